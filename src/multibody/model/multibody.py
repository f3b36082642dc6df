"""The Multibody: build a tree of bodies and hinges, then run the O(N) algorithms on it.

The algorithms, the sub-tree views, file export and the configuration space are methods
of ``Multibody`` too, but live in the layers above this package, which imports none of
them: the package ``multibody`` attaches them when it is imported (``multibody/methods.py``:
each method *is* the free function, ``Multibody.forward_dynamics is
algorithms.forward_dynamics``, no delegating call).
"""
import numpy as np

from .body import RigidBody
from .collision import CollisionMixin
from .compile import compile_model
from .constraint_api import ConstraintsMixin
from .generators import GeneratorsMixin
from .modal_api import ModalMixin
from .hinge import HINGE_KINDS, Hinge, make_subhinges
from .names import missing

_WORLD = "world"


class _CompiledOnDemand:
    """``m.compiled``: the CompiledModel, compiled on first use after each change.

    A non-data descriptor: once compiled, the model sits in the instance dict and is
    read at plain attribute speed (the algorithms read it on every call); a change to
    the model removes it, and the next read compiles again.
    """

    def __get__(self, mb, owner=None):
        if mb is None:
            return self
        return mb.finalize()


class Multibody(ConstraintsMixin, ModalMixin, GeneratorsMixin, CollisionMixin):
    """A multibody system: rigid bodies connected by hinges in a tree rooted at the world.

    Build it with ``add_body``/``add_hinge`` (or ``add_serial_chain``/``add_tree``,
    or ``multibody.load_urdf``); the first algorithm call compiles it into flat
    arrays (``finalize``, the constants), and any structural change recompiles on the
    next call. Per-call state lives in Data objects (``create_data``); the algorithms
    (``multibody.algorithms``, also methods here) use the calling thread's default
    Data unless given one, so one model may be used from several threads.

    Coordinates: q (nq,) configuration, u (nu,) generalized speeds, udot (nu,),
    tau (nu,) generalized forces; each hinge owns the slices ``q_slice(name)`` and
    ``u_slice(name)``. Spatial vectors are [angular; linear]; transforms T_AB map
    B coordinates to A; SI units.
    """

    def __init__(self, name="multibody", gravity=(0.0, 0.0, -9.81)):
        self.name = name
        self.world = RigidBody(_WORLD)
        self.world.multibody = self
        self._bodies = {_WORLD: self.world}
        self._hinges = {}
        self._nodes = {}
        self.gravity = gravity
        #: the model's actuators (``simulation.actuators.Actuator``; MJCF ``<actuator>``),
        #: driven by ``simulate(..., ctrl=...)``
        self.actuators = []

    compiled = _CompiledOnDemand()

    def __getstate__(self):
        """Pickle the model objects only: the compiled constants (with their per-thread
        data) are rebuilt on first use where the model lands (a worker process, say)."""
        state = dict(self.__dict__)
        state.pop("compiled", None)
        return state

    # ------------------------------------------------------------------ building
    def invalidate(self):
        """Mark the compiled model stale (a parameter changed): the next call recompiles."""
        self.__dict__.pop("compiled", None)

    def add_body(self, name, mass=0.0, com=(0.0, 0.0, 0.0), inertia=None):
        """Add a rigid body (not yet connected) and return it.

        mass [kg]; com (3,) [m] in the body frame; inertia (3, 3) [kg m^2] about the
        centre of mass in body-frame axes (or 6 values ixx, ixy, ixz, iyy, iyz, izz).
        """
        if name in self._bodies or name in self._nodes:
            raise ValueError(f"a body or node named {name!r} already exists")
        b = RigidBody(name, mass, com, inertia)
        b.multibody = self
        self._bodies[name] = b
        self.invalidate()
        return b

    def as_body(self, b, what="body"):
        """The RigidBody for ``b``: a body of this multibody, its name, or None (the world).

        ``what`` names the argument in errors.
        """
        if b is None:
            return self.world
        if isinstance(b, RigidBody):
            if self._bodies.get(b.name) is not b:
                raise ValueError(f"{what}: body {b.name!r} does not belong to this multibody")
            return b
        if isinstance(b, str):
            return self.body(b)
        raise TypeError(f"{what}: expected a body or a body name, got {type(b).__name__}")

    def add_hinge(self, parent, child, kind="pin", name=None, axis=None, axes=None, pitch=0.0,
                  T_parent_joint=None, T_child_joint=None, subhinges=None, armature=None):
        """Connect ``child`` to ``parent`` (a body, a node, their name, or None/"world"); return the Hinge.

        ``kind`` is one of ``HINGE_KINDS`` (pin/revolute/continuous, slider/prismatic,
        screw, spherical (rotation vector), spherical_quat, free (rotation vector +
        position), free_quat, locked/fixed, universal, gimbal, planar, cylindrical,
        translational); or give an explicit ``subhinges`` list. ``axis`` (3,) is the joint
        axis (plane normal for planar), ``axes`` the axes of universal/gimbal, ``pitch``
        [m/rad] that of a screw. T_parent_joint (4x4) places the hinge o-frame in the
        parent body frame; T_child_joint (4x4) places its p-frame in the child body frame.
        ``armature``: reflected rotor inertia per speed (scalar or (nu,)), see ``Hinge.armature``.
        """
        parent, T_parent_joint, parent_node = self._hinge_attachment(parent, T_parent_joint)
        child = self.as_body(child, "child")
        if child is self.world:
            raise ValueError("the world cannot be the child of a hinge")
        if child is parent:
            raise ValueError(f"hinge would connect body {child.name!r} to itself")
        if child.parent_hinge is not None:
            raise ValueError(f"body {child.name!r} already has a parent hinge "
                             f"({child.parent_hinge.name!r}); loops need constraints, not hinges")
        name = name or f"{child.name}_hinge"
        if name in self._hinges:
            raise ValueError(f"a hinge named {name!r} already exists")
        if subhinges is None:
            subhinges = make_subhinges(kind, axis=axis, axes=axes, pitch=pitch)
            kind = HINGE_KINDS[kind]
        else:
            kind = "custom"
        h = Hinge(name, parent, child, kind, subhinges, T_parent_joint, T_child_joint)
        h.parent_node = parent_node
        if armature is not None:
            h.armature = armature
        child.parent_hinge = h
        parent.child_hinges.append(h)
        self._hinges[name] = h
        self.invalidate()
        return h

    def add_node(self, name, body, T_body_node=None, mode_shapes=None):
        """Add a named frame fixed on ``body`` at T_body_node (4x4, body frame) and return it.

        On a modal body, ``mode_shapes`` (6, n_modes) is the node's small motion per unit
        of each modal coordinate, [rotation; translation] in body axes (zero if omitted)."""
        if name in self._bodies or name in self._nodes:
            raise ValueError(f"a body or node named {name!r} already exists")
        node = self._add_node(name, body, T_body_node, mode_shapes)
        self._nodes[name] = node
        self.invalidate()
        return node

    # ------------------------------------------------------------------ lookup
    def body(self, name):
        """The RigidBody called ``name`` (KeyError if none)."""
        try:
            return self._bodies[name]
        except (KeyError, TypeError):
            raise missing("body", name, self._bodies) from None

    def hinge(self, name):
        """The Hinge called ``name`` (KeyError if none)."""
        try:
            return self._hinges[name]
        except (KeyError, TypeError):
            raise missing("hinge", name, self._hinges) from None

    def node(self, name):
        """The Node called ``name`` (KeyError if none)."""
        try:
            return self._nodes[name]
        except (KeyError, TypeError):
            raise missing("node", name, self._nodes) from None

    @property
    def bodies(self):
        """Bodies in topological order (the world excluded)."""
        return [h.child for h in self.topological_hinges()]

    @property
    def hinges(self):
        """Hinges in coordinate order."""
        c = self.__dict__.get("compiled")
        if c is None:  # (a hinge added since marks it stale: the compiled order is the current one)
            return self.topological_hinges()
        return [self._hinges[name] for name in c.hinge_order]

    @property
    def nodes(self):
        """{name: Node} of the nodes (frames fixed on bodies), in the order they were added."""
        return dict(self._nodes)

    # ------------------------------------------------------------------ compile
    def topological_hinges(self):
        """Hinges in topological depth-first order (parents first); raises ValueError on a
        loop of hinges or a body not connected to the world."""
        order = []
        stack = [self.world]
        seen = {self.world.name}
        while stack:
            b = stack.pop()
            for h in reversed(b.child_hinges):
                if h.child.name in seen:
                    raise ValueError(f"hinge {h.name!r} closes a loop at body {h.child.name!r}")
                seen.add(h.child.name)
                stack.append(h.child)
            if b is not self.world:
                order.append(b.parent_hinge)
        disconnected = [n for n in self._bodies if n not in seen]
        if disconnected:
            raise ValueError(f"bodies not connected to the world by hinges: {disconnected}")
        return order

    def finalize(self):
        """Compile the model into arrays now (done automatically on first use); return the
        CompiledModel."""
        c = self.__dict__.get("compiled")
        if c is None:
            c = self.__dict__["compiled"] = compile_model(self)
        return c

    def create_data(self):
        """A new Data object (per-call state: workspace, chart offsets, external forces) for
        the current compiled model; pass it as ``data=`` to the algorithms, e.g. one per
        thread or per state. Its chart offsets start at the subhinges' current ones."""
        return self.compiled.create_data()

    # ------------------------------------------------------------------ sizes, names
    @property
    def nq(self):
        """Number of configuration coordinates."""
        return self.compiled.nq

    @property
    def nu(self):
        """Number of generalized speeds."""
        return self.compiled.nu

    @property
    def n_links(self):
        """Number of kernel links (moving subhinges)."""
        return self.compiled.n_links

    @property
    def hinge_names(self):
        """Names of the hinges that own coordinates, in coordinate order.

        Locked (fixed) hinges own none and are left out, as in Pinocchio's joint list;
        ``hinges`` lists every hinge.
        """
        c = self.compiled
        return [h for h in c.hinge_order if c.q_slices[h].stop > c.q_slices[h].start
                or c.u_slices[h].stop > c.u_slices[h].start]

    @property
    def body_names(self):
        """Body names in topological order (the world excluded)."""
        return [b.name for b in self.bodies]

    @property
    def node_names(self):
        """Names of the nodes (frames fixed on bodies)."""
        return list(self._nodes)

    def q_slice(self, name):
        """The slice of q owned by hinge ``name``."""
        try:
            return self.compiled.q_slices[name]
        except (KeyError, TypeError):
            raise missing("hinge", name, self._hinges) from None

    def u_slice(self, name):
        """The slice of u (and udot, tau) owned by hinge ``name``."""
        try:
            return self.compiled.u_slices[name]
        except (KeyError, TypeError):
            raise missing("hinge", name, self._hinges) from None

    @property
    def gravity(self):
        """Gravity acceleration (3,) [m/s^2] in the world frame; settable."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, g):
        g = np.array(g, dtype=float)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f"gravity must be a finite 3-vector, got {g!r}")
        self._gravity = g
        c = self.__dict__.get("compiled")
        if c is not None:  # a model parameter: written into the constants in place
            c.set_gravity(g)

    @property
    def total_mass(self):
        """Sum of the body masses [kg]."""
        return float(sum(b.mass for b in self._bodies.values()))

    # ------------------------------------------------------------------ display
    def dump_tree(self):
        """A readable multi-line description of the tree: bodies, hinges, coordinates, masses."""
        from .display import dump_tree
        return dump_tree(self)

    def display_model(self):
        """Print ``dump_tree()``."""
        print(self.dump_tree())

    def __repr__(self):
        try:
            return f"Multibody({self.name!r}, bodies={len(self._bodies) - 1}, nq={self.nq}, nu={self.nu})"
        except ValueError:
            return f"Multibody({self.name!r}, bodies={len(self._bodies) - 1}, not finalized)"
