"""The constraint half of a Multibody's building API (mixed into ``Multibody``).

Constraints are named; each is enabled when added. The enabled ones, in seed 000's
order (hinge loops, then convel, then coordinate constraints, each in the order they
were added), are what the algorithms honour: their residual rows make ``Gc``, the
constraint kinematics solver closes them, and forward dynamics and ``simulate`` keep them.
Constraint embedding (``aggregation_sub_graph``, ``embedded_forward_dynamics``) and the
sub-tree views (``sub_tree``, ``sub_graph``) are methods of ``Multibody`` too, attached
from the layers above (``multibody/methods.py``).
"""
import numpy as np

from .body import Node, RigidBody
from .constraints import ConvelConstraint, CoordinateConstraint, LoopConstraint
from .modal_body import ModalBody
from .names import missing

_ORDER = {"loop": 0, "convel": 1, "coordinate": 2}


class ConstraintsMixin:
    """Loop, convel and coordinate constraints; see ``multibody.model.constraints``."""

    def _constraint_table(self):
        return self.__dict__.setdefault("_constraints", {})

    def _frame_of(self, node, what, cname):
        """A Node, or a body (its own frame), given as object or name."""
        if isinstance(node, (Node, RigidBody)):
            name = node.name
        elif isinstance(node, str):
            name = node
        else:
            raise TypeError(f"constraint {cname!r}: {what} must be a node, a body or a name, "
                            f"got {type(node).__name__}")
        if name in self._nodes:
            return self._nodes[name]
        if name in self._bodies:
            return self._bodies[name]
        raise ValueError(f"constraint {cname!r}: {what} {name!r} is neither a node nor a body of "
                         f"this multibody")

    def _add_constraint(self, c):
        table = self._constraint_table()
        if c.name in table:
            raise ValueError(f"a constraint named {c.name!r} already exists")
        table[c.name] = c
        c.enabled = True
        self.invalidate()
        return c

    def _two_frames(self, name, node_a, node_b):
        a = self._frame_of(node_a, "node_a", name)
        b = self._frame_of(node_b, "node_b", name)
        if a is b:
            raise ValueError(f"constraint {name!r}: node_a and node_b are the same frame {a.name!r}")
        body_a = a if isinstance(a, RigidBody) else a.body
        body_b = b if isinstance(b, RigidBody) else b.body
        if body_a is body_b and not isinstance(body_a, ModalBody):  # a modal body's nodes deform apart
            raise ValueError(f"constraint {name!r}: node_a {a.name!r} and node_b {b.name!r} are on the "
                             f"same body {body_a.name!r}, a rigid one: nothing can move between them")
        return a, b

    def add_loop_constraint(self, name, node_a, node_b, kind="pin", axis=None, axes=None, pitch=0.0):
        """Close a loop with a cut hinge of ``kind`` between ``node_a`` and ``node_b`` and return it.

        The nodes (Node objects, bodies or their names) are the cut joint's two frames: they
        coincide when the joint is at zero displacement. ``kind``: pin, slider, screw,
        cylindrical, universal, spherical, gimbal, planar, translational or locked (weld);
        ``axis`` (3,) the joint axis in the node frames (default z; the plane normal of
        planar), ``axes`` the two perpendicular axes of a universal joint (the first fixed in
        node a, the second in node b), ``pitch`` [m/rad] a screw's. The constraint has
        6 - nu(kind) residual rows.
        """
        a, b = self._two_frames(name, node_a, node_b)
        return self._add_constraint(LoopConstraint(name, a, b, kind, axis, axes, pitch))

    def add_convel_constraint(self, name, node_a, node_b, axis):
        """A scalar velocity constraint n . V_rel = 0: the spatial velocity of ``node_b``
        relative to ``node_a``, in node a's axes, has no component along the spatial axis
        ``axis`` = [n_w; n_v] (6,). It has no position level (it may be non-holonomic)."""
        a, b = self._two_frames(name, node_a, node_b)
        return self._add_constraint(ConvelConstraint(name, a, b, axis))

    def add_coordinate_constraint(self, name, hinge_a, hinge_b, ratio=1.0, offset=0.0):
        """q_a = ratio * q_b + offset between the one-dof hinges ``hinge_a`` and ``hinge_b``
        (objects or names): gears, differentials, URDF ``<mimic>``."""
        ha = hinge_a if not isinstance(hinge_a, str) else self.hinge(hinge_a)
        hb = hinge_b if not isinstance(hinge_b, str) else self.hinge(hinge_b)
        for h, what in ((ha, "hinge_a"), (hb, "hinge_b")):
            if self._hinges.get(getattr(h, "name", None)) is not h:
                raise ValueError(f"coordinate constraint {name!r}: {what} is not a hinge of this multibody")
        return self._add_constraint(CoordinateConstraint(name, ha, hb, ratio, offset))

    # ------------------------------------------------------------------ lookup
    def constraint(self, name):
        """The constraint called ``name`` (enabled or not; KeyError if none)."""
        try:
            return self._constraint_table()[name]
        except (KeyError, TypeError):
            raise missing("constraint", name, self._constraint_table()) from None

    @property
    def constraints(self):
        """{name: constraint} of every constraint, enabled or not, in the order added."""
        return dict(self._constraint_table())

    @property
    def enabled_constraints(self):
        """The enabled constraints in row order: hinge loops, convel, coordinate."""
        cs = [c for c in self._constraint_table().values() if c.enabled]
        return sorted(cs, key=lambda c: _ORDER[c.category])

    def enable_constraint(self, name):
        """Enable constraint ``name`` (an object or name): the algorithms honour it."""
        c = self.constraint(getattr(name, "name", name))
        c.enabled = True
        self.invalidate()

    def disable_constraint(self, name):
        """Disable constraint ``name``: the algorithms ignore it until it is enabled again."""
        c = self.constraint(getattr(name, "name", name))
        c.enabled = False
        self.invalidate()

    def body_constraints(self, body):
        """The constraints (enabled or not) that act on ``body``: loop/convel constraints with a
        node on it, coordinate constraints with a hinge whose child it is."""
        b = self.as_body(body, "body")
        out = []
        for c in self._constraint_table().values():
            if c.category == "coordinate":
                if b in (c.hinge_a.child, c.hinge_b.child):
                    out.append(c)
            elif b in (_body(c.node_a), _body(c.node_b)):
                out.append(c)
        return out

    def loop_bodies(self, name):
        """The bodies of a loop or convel constraint's loop: the spanning-tree path between
        its two nodes' bodies (their common ancestor excluded, the world never listed)."""
        c = self.constraint(getattr(name, "name", name))
        if c.category == "coordinate":
            raise ValueError(f"constraint {c.name!r} is a coordinate constraint: it has no loop of bodies")
        chains = []
        for node in (c.node_a, c.node_b):
            chain, b = [], _body(node)
            while b is not self.world:
                chain.append(b)
                b = b.parent_hinge.parent
            chains.append(chain)
        common = set(chains[0]) & set(chains[1])
        a = [b for b in chains[0] if b not in common]
        return a + [b for b in reversed(chains[1]) if b not in common]

    # ------------------------------------------------------------------ index look-ups
    def constraint_residual_at(self, row):
        """(constraint, local row) of row ``row`` of the residual vector (and of Gc)."""
        return _locate(self.compiled.constraint_rows, row, "row")

    def constraint_error_at(self, row):
        """(constraint, local entry) of entry ``row`` of the error vector (6 per hinge loop)."""
        return _locate(self.compiled.constraint_errors, row, "row")

    def coord_at(self, u_offset):
        """(hinge, local index) of entry ``u_offset`` of u."""
        c = self.compiled
        for h, s in c.u_slices.items():
            if s.start <= u_offset < s.stop:
                return self.hinge(h), u_offset - s.start
        raise IndexError(f"u_offset {u_offset!r} is outside u (nu = {c.nu})")

    @staticmethod
    def complementary_indices(n_u, indices):
        """The indices of range(n_u) not in ``indices``, sorted (dependent from independent)."""
        idx = set(int(i) for i in indices)
        bad = [i for i in idx if not 0 <= i < n_u]
        if bad:
            raise IndexError(f"indices {sorted(bad)} are outside range({n_u})")
        return np.array([i for i in range(n_u) if i not in idx], dtype=int)


def _body(frame):
    return frame if isinstance(frame, RigidBody) else frame.body


def _locate(slices, row, what):
    for c, s in slices.items():
        if s.start <= row < s.stop:
            return c, row - s.start
    total = max((s.stop for s in slices.values()), default=0)
    raise IndexError(f"{what} {row!r} is outside the {total} constraint rows")
