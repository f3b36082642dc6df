"""Sub-trees and sub-graphs of a Multibody (seed 000's SubTree and SubGraph).

A **sub-tree** is a part of the model's tree hanging from a *virtual root* body: the
descendants of ``root`` (root excluded: it is the sub-tree's base, as the world is the
model's), only on the branches that hold a body of ``use_branches`` (if given), cut below
each body of ``stop_at`` (those bodies kept). The model itself is the top sub-graph: make
them with ``m.sub_tree(...)`` / ``m.sub_graph(...)``, or nested, ``sub.sub_tree(...)``.
The body set is fixed when the sub-tree is made.

Every algorithm runs on the sub-tree's own coordinates with the rest of the model frozen
(held at the q given, at rest): see ``views.subtree_algorithms`` for the conventions
(full-model q and u in, sub-tree-sized forces and matrices out). A **sub-graph** adds
bilateral constraints (loop, convel, coordinate) whose frames lie on its bodies or its root,
each enabled or disabled per sub-graph; its algorithms honour the enabled ones.
"""
import numpy as np

from ..algorithms.checks import check_vector, data_object
from ..model.body import RigidBody
from ..model.constraints import Constraint
from ..model.names import missing
from ..model.subtree_model import DerivedModel
from ..model.subtree_select import as_model_body, select_bodies
from .subtree_algorithms import SubTreeAlgorithms, full_vector

#: row order of the constraint categories (seed 000: hinge loops, convel, coordinate)
_ORDER = ("loop", "convel", "coordinate")
_EYE4 = np.eye(4)
_EYE4.flags.writeable = False


class SubTree(SubTreeAlgorithms):
    """A sub-tree of a Multibody; make it with ``m.sub_tree(name, root, use_branches, stop_at)``.

    ``multibody`` (the full model), ``parent`` (the model or sub-tree it was made from),
    ``name``, ``root`` (the virtual root body; the world for a sub-tree of the whole tree).
    Lookups: ``bodies``, ``hinges`` (the bodies' parent hinges), ``nodes``, their names,
    ``body``/``hinge``/``node`` by name, ``q_index``/``u_index`` (int arrays into the full q
    and u, in the sub-tree's coordinate order), ``nq``, ``nu``. The algorithms are the
    methods of ``SubTreeAlgorithms``. One sub-tree object serves one thread at a time (its
    derived model takes each call's root pose); make one per thread for parallel calls.
    """

    def __init__(self, parent, name, root, use_branches=None, stop_at=None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        m = parent.multibody if isinstance(parent, SubTree) else parent
        within = set(parent.bodies) if isinstance(parent, SubTree) else None
        root = as_model_body(m, root, "root")
        if within is not None and root is not parent.root and root not in within:
            raise ValueError(f"root: body {root.name!r} is not in sub-tree {parent.name!r} (nor its root)")
        self.multibody, self.parent, self.name, self.root = m, parent, name, root
        self._bodies = select_bodies(m, root, use_branches, stop_at, within)
        self._body_set = set(self._bodies)
        self._hinges = [b.parent_hinge for b in self._bodies]
        self._charts = True
        self._version = 0  # bumped when what the derived model holds changes
        self._derived = None

    # ------------------------------------------------------------------ lookups
    @property
    def bodies(self):
        """The sub-tree's bodies in topological order (its root excluded)."""
        return list(self._bodies)

    @property
    def hinges(self):
        """The sub-tree's hinges (each body's parent hinge), in coordinate order."""
        return list(self._hinges)

    @property
    def body_names(self):
        """Names of ``bodies``."""
        return [b.name for b in self._bodies]

    @property
    def hinge_names(self):
        """Names of the sub-tree's hinges that own coordinates, in coordinate order."""
        return [h.name for h in self._hinges if h.nq or h.nu]

    @property
    def nodes(self):
        """{name: Node} of the nodes on the sub-tree's bodies."""
        return {n: nd for n, nd in self.multibody.nodes.items() if nd.body in self._body_set}

    @property
    def node_names(self):
        """Names of ``nodes``."""
        return list(self.nodes)

    def __contains__(self, body):
        """True for a body of the sub-tree (object or name; its root is not one)."""
        if isinstance(body, RigidBody):
            return body in self._body_set
        return any(b.name == body for b in self._bodies)

    def body(self, name):
        """The body called ``name`` (KeyError if the sub-tree has none)."""
        for b in self._bodies:
            if b.name == name:
                return b
        raise missing("body of sub-tree " + repr(self.name), name, self.body_names)

    def hinge(self, name):
        """The hinge called ``name`` (KeyError if the sub-tree has none)."""
        for h in self._hinges:
            if h.name == name:
                return h
        raise missing("hinge of sub-tree " + repr(self.name), name, [h.name for h in self._hinges])

    def node(self, name):
        """The node called ``name`` on a body of the sub-tree (KeyError if none)."""
        nodes = self.nodes
        try:
            return nodes[name]
        except (KeyError, TypeError):
            raise missing("node of sub-tree " + repr(self.name), name, nodes) from None

    @property
    def q_index(self):
        """(nq_sub,) int array: entry k of the sub-tree's q is entry q_index[k] of the full q."""
        return self._derived_model().q_index.copy()

    @property
    def u_index(self):
        """(nu_sub,) int array: entry k of the sub-tree's u (udot, tau) is entry u_index[k] of
        the full model's."""
        return self._derived_model().u_index.copy()

    @property
    def nq(self):
        """Number of the sub-tree's configuration coordinates."""
        return int(self._derived_model().q_index.size)

    @property
    def nu(self):
        """Number of the sub-tree's generalized speeds."""
        return int(self._derived_model().u_index.size)

    def restrict_q(self, q):
        """The sub-tree's entries (nq_sub,) of the full q (nq,)."""
        return check_vector(q, self.multibody.nq, "q")[self._derived_model().q_index]

    def restrict_u(self, u):
        """The sub-tree's entries (nu_sub,) of a full u-sized vector (u, udot, tau)."""
        return check_vector(u, self.multibody.nu, "u")[self._derived_model().u_index]

    def expand_q(self, q_sub, q):
        """A copy of the full q (nq,) with the sub-tree's entries set to ``q_sub`` (nq_sub,)."""
        D = self._derived_model()
        out = check_vector(q, self.multibody.nq, "q").copy()
        out[D.q_index] = check_vector(q_sub, D.q_index.size, "q_sub")
        return out

    def expand_u(self, u_sub, u=None):
        """A full u-sized vector (nu,): ``u`` (default zeros) with the sub-tree's entries ``u_sub``."""
        D = self._derived_model()
        nu = self.multibody.nu
        out = np.zeros(nu) if u is None else check_vector(u, nu, "u").copy()
        out[D.u_index] = check_vector(u_sub, D.u_index.size, "u_sub")
        return out

    # ------------------------------------------------------------------ charts
    @property
    def subhinge_charts_enabled(self):
        """Whether ``sanitize`` and ``simulate`` re-centre the sub-tree's rotation-vector charts."""
        return self._charts

    def enable_subhinge_charts(self, flag):
        """Turn the re-centring of the sub-tree's spherical and free (rotation-vector)
        subhinge charts on (True, the default: for time-domain simulation) or off (False: q
        stays in the current charts, as configuration kinematics and linearization want).
        Off, ``sanitize`` and ``simulate`` never re-centre them (a max_chart_angle of +inf
        per link in the derived model's table; no kernel change). The current offsets stay:
        ``reset_charts(q)`` goes back to global rotation vectors. The parent model's own
        ``sanitize`` is not affected."""
        self._charts = bool(flag)
        if self._derived is not None:
            self._derived.set_charts(self._charts)

    # ------------------------------------------------------------------ nesting, display
    def sub_tree(self, name, root, use_branches=None, stop_at=None):
        """A SubTree inside this one (``root``: a body of this sub-tree, or its root)."""
        return SubTree(self, name, root, use_branches, stop_at)

    def sub_graph(self, name, root, use_branches=None, stop_at=None, constraints=()):
        """A SubGraph inside this one (see ``SubGraph``)."""
        return SubGraph(self, name, root, use_branches, stop_at, constraints)

    def dump_tree(self):
        """A readable multi-line description: root, bodies, hinges, coordinates (indices into
        the full q and u), nodes, and a sub-graph's constraints."""
        from .subgraph_display import dump_subtree
        return dump_subtree(self)

    def display_model(self):
        """Print ``dump_tree()``."""
        print(self.dump_tree())

    def as_multibody(self, q=None, data=None):
        """The derived Multibody the algorithms run on: copies of the sub-tree's bodies,
        hinges, nodes and enabled constraints, its world frame the root body's frame, its
        gravity the world's in root axes at the root pose of the full ``q`` (default: the last
        one used; the identity before any). Its q/u are the full ones' ``q_index``/``u_index`` entries; its poses are
        relative to the root. Read it; a change to it is not seen by the sub-tree's cache."""
        if q is None:
            return self._unplaced(data)[0].model
        return self._prepare(q, data)[0].model

    def __repr__(self):
        return (f"{type(self).__name__}({self.name!r} of {self.multibody.name!r}, root={self.root.name!r}, "
                f"bodies={len(self._bodies)}, nq={self.nq}, nu={self.nu})")

    # ------------------------------------------------------------------ the derived model
    def _derived_constraints(self):
        return ()

    def _derived_model(self):
        """The DerivedModel for the full model's current compiled constants (made on demand)."""
        m = self.multibody
        c = m.compiled
        D = self._derived
        if D is None or D.source is not c or D.version != self._version:
            D = DerivedModel(m, self.name, self.root, self._bodies, self._hinges, self._derived_constraints())
            D.version = self._version
            D.set_charts(self._charts)
            self._derived = D
        return D

    def _prepare(self, q, data):
        """(DerivedModel placed at the root pose of the full q and holding the chart offsets
        of ``data``, q checked, the full model's Data)."""
        m = self.multibody
        c = m.compiled
        d = data_object(c, data)
        D = self._derived_model()
        if D.moving_root:  # body_pose checks q (shape, finite entries named in full-q indices)
            q = full_vector(q, c.nq, "q")
            D.place(m.body_pose(q, self.root.name, data=d), m.gravity)
        else:
            q = check_vector(q, c.nq, "q")
            D.place(_EYE4, m.gravity)
        D.charts_from(d)
        return D, q, d

    def _unplaced(self, data):
        """(DerivedModel at its last root pose (identity the first time), the full Data), the
        chart offsets of ``data`` copied in: for what does not depend on the root pose."""
        d = data_object(self.multibody.compiled, data)
        D = self._derived_model()
        D.compiled()
        D.charts_from(d)
        return D, d


class SubGraph(SubTree):
    """A sub-tree with bilateral constraints; make it with ``m.sub_graph(name, root,
    use_branches, stop_at, constraints)``.

    ``constraints`` (constraint objects or names of the parent's) are added and enabled. A
    constraint belongs in the sub-graph when its two frames lie on its bodies or its root (a
    coordinate constraint: both hinges are its own); any other raises ValueError naming it.
    ``inherit_constraints()`` adds every such constraint of the parent at once. Enabling and
    disabling is per sub-graph (the parent's state is not touched); the algorithms honour the
    enabled ones (tree-augmented forward dynamics, constrained simulation).
    """

    def __init__(self, parent, name, root, use_branches=None, stop_at=None, constraints=()):
        super().__init__(parent, name, root, use_branches, stop_at)
        self._constraints = {}
        self._enabled = set()
        for c in ([constraints] if isinstance(constraints, (str, Constraint)) else constraints):
            self.add_constraint(c)

    # ------------------------------------------------------------------ constraints
    def _parent_constraints(self):
        p = self.parent
        return p.constraints if hasattr(p, "constraints") else self.multibody.constraints

    def _parent_enabled(self, c):
        if isinstance(self.parent, SubGraph):
            return c.name in self.parent._enabled
        return c.enabled  # the model's own state (also for a plain sub-tree's sub-graph)

    def _outside(self, c):
        """The first frame (node, body or hinge name) of ``c`` outside the sub-graph, or None."""
        if c.category == "coordinate":
            for h in (c.hinge_a, c.hinge_b):
                if h.child not in self._body_set:
                    return f"hinge {h.name!r}"
            return None
        for what, frame in (("node_a", c.node_a), ("node_b", c.node_b)):
            body = frame if isinstance(frame, RigidBody) else frame.body
            if body is not self.root and body not in self._body_set:
                return f"{what} {frame.name!r} (on body {body.name!r})"
        return None

    def add_constraint(self, constraint):
        """Add a constraint of the parent (object or name) and enable it; ValueError naming it
        when it is not the parent's or a frame of it lies outside the sub-graph."""
        name = getattr(constraint, "name", constraint)
        table = self._parent_constraints()
        if not isinstance(name, str) or name not in table or (
                not isinstance(constraint, str) and table[name] is not constraint):
            raise ValueError(f"constraints: {name!r} is not a constraint of {self._parent_name()}")
        c = table[name]
        where = self._outside(c)
        if where is not None:
            raise ValueError(f"constraints: constraint {name!r} has {where} outside sub-graph "
                             f"{self.name!r} (its bodies and its root {self.root.name!r})")
        self._constraints[name] = c
        self._enabled.add(name)
        self._version += 1
        return c

    def _parent_name(self):
        p = self.parent
        return f"sub-tree {p.name!r}" if isinstance(p, SubTree) else f"multibody {p.name!r}"

    def inherit_constraints(self):
        """Add every constraint of the parent whose frames lie on this sub-graph's bodies or its
        root, enabled as in the parent; returns the names added."""
        added = []
        for name, c in self._parent_constraints().items():
            if name not in self._constraints and self._outside(c) is None:
                self._constraints[name] = c
                if self._parent_enabled(c):
                    self._enabled.add(name)
                added.append(name)
        self._version += 1
        return added

    def constraint(self, name):
        """The constraint called ``name`` in this sub-graph (enabled or not; KeyError if none)."""
        try:
            return self._constraints[getattr(name, "name", name)]
        except (KeyError, TypeError):
            raise missing(f"constraint of sub-graph {self.name!r}", name, self._constraints) from None

    @property
    def constraints(self):
        """{name: constraint} of the sub-graph's constraints, enabled or not, in the order added."""
        return dict(self._constraints)

    @property
    def enabled_constraints(self):
        """The enabled constraints in row order: hinge loops, convel, coordinate."""
        cs = [c for n, c in self._constraints.items() if n in self._enabled]
        return sorted(cs, key=lambda c: _ORDER.index(c.category))

    def enable_constraint(self, name):
        """Enable constraint ``name`` (object or name) in this sub-graph; a constraint of the
        parent not yet in it is added (and checked) first."""
        n = getattr(name, "name", name)
        if n not in self._constraints:
            self.add_constraint(name)
            return
        self._enabled.add(n)
        self._version += 1

    def disable_constraint(self, name):
        """Disable constraint ``name`` in this sub-graph (KeyError if it has none such)."""
        self._enabled.discard(self.constraint(name).name)
        self._version += 1

    def _derived_constraints(self):
        return self.enabled_constraints

    # ------------------------------------------------------------------ constraint algorithms
    def pose_error(self, q, form="error", data=None):
        """Position-level errors of the enabled constraints at the full q (see ``Multibody.pose_error``)."""
        D, q, _ = self._prepare(q, data)
        return D.model.pose_error(q[D.q_index], form=form)

    def velocity_error(self, q, u, form="error", data=None):
        """Velocity-level errors Gc u_s of the enabled constraints (the others frozen)."""
        D, q, _ = self._prepare(q, data)
        return D.model.velocity_error(q[D.q_index], self._speeds(D, u), form=form)

    def constraint_jacobian(self, q, form="residual", data=None):
        """Gc (rows, nu_sub): the enabled constraints' rates per unit speed of the sub-graph."""
        D, q, _ = self._prepare(q, data)
        return D.model.constraint_jacobian(q[D.q_index], form=form)

    def constrained_dynamics(self, q, u, tau, f_ext=None, stabilization_gains=None, data=None):
        """Tree-augmented dynamics of the sub-graph (``Multibody.constrained_dynamics``): udot,
        multipliers, forces, all sized for the sub-graph; the rest of the model frozen."""
        D, q, _ = self._prepare(q, data)
        return D.model.constrained_dynamics(q[D.q_index], self._speeds(D, u), tau, f_ext=f_ext,
                                            stabilization_gains=stabilization_gains)
