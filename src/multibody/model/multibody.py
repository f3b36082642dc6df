"""The Multibody: build a tree of bodies and hinges, then run the O(N) algorithms on it."""
import difflib

import numpy as np

from ..kernels import layout as L
from ._entry import KERNELS, as_float_vector, check_vector
from .body import Node, RigidBody
from .compile import compile_model
from .hinge import HINGE_KINDS, Hinge, make_subhinges

_WORLD = "world"
_empty = np.empty


def _check_out(out, shape):
    """Raise ValueError unless ``out`` is a writeable C-contiguous float64 array of ``shape``.

    (The dispatcher rejects a wrong dtype, layout or a read-only array with TypeError; the
    shape is checked before the call, so a kernel never writes past ``out``.)
    """
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous float64 array of shape {shape}, "
                         f"got {type(out).__name__} {getattr(out, 'shape', '')}")


class Multibody:
    """A multibody system: rigid bodies connected by hinges in a tree rooted at the world.

    Build it with ``add_body``/``add_hinge`` (or ``add_serial_chain``/``add_tree``,
    or ``multibody.load_urdf``); the first algorithm call compiles it into flat
    arrays (``finalize``), and any structural change recompiles on the next call.

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
        self._compiled = None
        self.gravity = gravity

    # ------------------------------------------------------------------ building
    def _invalidate(self):
        if self._compiled is not None:
            self._save_charts()
        self._compiled = None

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
        self._invalidate()
        return b

    def _as_body(self, b, what):
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
                  T_parent_joint=None, T_child_joint=None, subhinges=None):
        """Connect ``child`` to ``parent`` (a body, a name, or None/"world") and return the Hinge.

        ``kind`` is one of ``HINGE_KINDS`` (pin/revolute/continuous, slider/prismatic,
        screw, spherical (rotation vector), spherical_quat, free (rotation vector +
        position), free_quat, locked/fixed, universal, gimbal, planar, cylindrical,
        translational); or give an explicit ``subhinges`` list. ``axis`` (3,) is the joint
        axis (plane normal for planar), ``axes`` the axes of universal/gimbal, ``pitch``
        [m/rad] that of a screw. T_parent_joint (4x4) places the hinge o-frame in the
        parent body frame; T_child_joint (4x4) places its p-frame in the child body frame.
        """
        parent = self._as_body(parent, "parent")
        child = self._as_body(child, "child")
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
        child.parent_hinge = h
        parent.child_hinges.append(h)
        self._hinges[name] = h
        self._invalidate()
        return h

    def add_node(self, name, body, T_body_node=None):
        """Add a named frame fixed on ``body`` at T_body_node (4x4, body frame) and return it."""
        if name in self._bodies or name in self._nodes:
            raise ValueError(f"a body or node named {name!r} already exists")
        node = Node(name, self._as_body(body, "body"), T_body_node)
        self._nodes[name] = node
        self._invalidate()
        return node

    def add_serial_chain(self, name, n_bodies, parent=None, kind="pin", axis=(0.0, 1.0, 0.0),
                         mass=1.0, length=1.0, inertia=None):
        """Append a chain of ``n_bodies`` identical bodies to ``parent``; return the bodies.

        Body k is ``f"{name}{k}"``, hinge k ``f"{name}{k}_hinge"``. Each body is a
        uniform rod of ``mass`` [kg] and ``length`` [m] along its x axis (centre of
        mass at x = length/2, inertia of a thin rod unless ``inertia`` is given);
        each hinge sits at the tip (x = length) of the previous body. Used to
        generate large test systems procedurally.
        """
        from .generators import serial_chain
        return serial_chain(self, name, n_bodies, parent, kind, axis, mass, length, inertia)

    def add_tree(self, name, branch_length, n_branches, depth, parent=None, kind="pin",
                 axis=(0.0, 1.0, 0.0), mass=1.0, length=1.0, inertia=None):
        """Append a tree of serial branches to ``parent``; return the bodies.

        The tree has ``depth`` levels; each branch is a chain of ``branch_length``
        bodies (as ``add_serial_chain``) and the tip of every branch not at the last
        level carries ``n_branches`` child branches.
        """
        from .generators import tree
        return tree(self, name, branch_length, n_branches, depth, parent, kind, axis, mass, length, inertia)

    # ------------------------------------------------------------------ lookup
    def _missing(self, kind, name, options):
        close = difflib.get_close_matches(str(name), list(options), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        return KeyError(f"unknown {kind} {name!r}{hint}")

    def body(self, name):
        """The RigidBody called ``name`` (KeyError if none)."""
        try:
            return self._bodies[name]
        except (KeyError, TypeError):
            raise self._missing("body", name, self._bodies) from None

    def hinge(self, name):
        """The Hinge called ``name`` (KeyError if none)."""
        try:
            return self._hinges[name]
        except (KeyError, TypeError):
            raise self._missing("hinge", name, self._hinges) from None

    def node(self, name):
        """The Node called ``name`` (KeyError if none)."""
        try:
            return self._nodes[name]
        except (KeyError, TypeError):
            raise self._missing("node", name, self._nodes) from None

    @property
    def bodies(self):
        """Bodies in topological order (the world excluded)."""
        return [h.child for h in self._topological_hinges()]

    @property
    def hinges(self):
        """Hinges in coordinate order."""
        return self._topological_hinges()

    # ------------------------------------------------------------------ compile
    def _topological_hinges(self):
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
        """Compile the model into arrays now (done automatically on first use); return it."""
        if self._compiled is None:
            c = compile_model(self)
            c.shape_M = (c.nu, c.nu)
            c.max_chart_angles = np.array(
                [getattr(s, "max_chart_angle", np.inf) for s in c.link_subhinges], dtype=float)
            c.frames = {}
            for n, link in c.body_link.items():
                c.frames[n] = (link, np.ascontiguousarray(c.T_link_body[n]))
            for n, node in self._nodes.items():
                link = c.body_link[node.body.name]
                c.frames[n] = (link, np.ascontiguousarray(c.T_link_body[node.body.name] @ node.T_body_node))
            self._compiled = c
        return self._compiled

    @property
    def compiled(self):
        """The CompiledModel (compiling if needed)."""
        return self._compiled or self.finalize()

    def _save_charts(self):
        c = self._compiled
        for j, s in enumerate(c.link_subhinges):
            if hasattr(s, "chart_offset"):
                s.chart_offset = c.mf[j, L.CHART:L.CHART + 4].copy()

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
            raise self._missing("hinge", name, self._hinges) from None

    def u_slice(self, name):
        """The slice of u (and udot, tau) owned by hinge ``name``."""
        try:
            return self.compiled.u_slices[name]
        except (KeyError, TypeError):
            raise self._missing("hinge", name, self._hinges) from None

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
        if self._compiled is not None:
            self._compiled.mf[-1, L.GRAVITY:L.GRAVITY + 3] = g

    def neutral_q(self):
        """The neutral configuration (nq,): zero angles/offsets, identity quaternions."""
        c = self.compiled
        q = np.zeros(c.nq)
        for h in self._topological_hinges():
            q[c.q_slices[h.name]] = h.neutral_q()
        return q

    def random_q(self, rng=None, scale=np.pi):
        """A random configuration: uniform angles/offsets in [-scale, scale], random unit quaternions."""
        rng = np.random.default_rng(rng)
        c = self.compiled
        q = rng.uniform(-scale, scale, c.nq)
        for j, s in enumerate(c.link_subhinges):
            i = c.mi[j, L.QOFF]
            if s.kind in ("spherical", "free"):
                v = rng.normal(size=3)
                q[i:i + 3] = v / np.linalg.norm(v) * rng.uniform(0, min(scale, s.max_chart_angle))
            elif s.kind in ("spherical_quat", "free_quat"):
                v = rng.normal(size=4)
                q[i:i + 4] = v / np.linalg.norm(v)
        return q

    # ------------------------------------------------------------------ errors
    def _raise_status(self, status, names, arrays):
        if status in (1, 2, 3):
            name = names[status - 1]
            x = arrays[status - 1]
            idx = int(np.flatnonzero(~np.isfinite(x))[0])
            raise ValueError(f"{name}[{idx}] is not finite ({x[idx]}); {self._coordinate_owner(name, idx)}")
        if status in (5, 6, 7):
            name = names[status - 5]
            n = self.compiled.nq if name == "q" else self.compiled.nu
            shape = np.shape(arrays[status - 5])
            raise ValueError(f"{name} must have shape ({n},), got {shape}")
        if status == 4:
            raise ValueError("the joint-space inertia of a subhinge is singular (a massless body "
                             "at the end of a moving hinge?)")
        raise RuntimeError(f"kernel failed with status {status}")

    def _coordinate_owner(self, name, idx):
        c = self.compiled
        slices = c.q_slices if name == "q" else c.u_slices
        for h, s in slices.items():
            if s.start <= idx < s.stop:
                return f"it belongs to hinge {h!r}"
        return "index out of range"

    def _with_fext(self, f_ext, method, *args):
        """Call ``method(*args)`` with the wrenches of ``f_ext`` loaded into the workspace."""
        c = self.compiled
        self._load_fext(f_ext)
        c.mf[c.n_links, L.USE_FEXT] = 1.0
        try:
            return method(*args)
        finally:
            c.mf[c.n_links, L.USE_FEXT] = 0.0

    def _load_fext(self, f_ext):
        """Write external wrenches into the workspace (link frames)."""
        c = self.compiled
        if not isinstance(f_ext, dict):
            raise ValueError("f_ext must be a dict {body or node name: wrench (6,) [moment; force] "
                             "about the frame origin, in the frame's axes}")
        fext = np.zeros((c.n_links, 6))
        for name, w in f_ext.items():
            link, T = self._frame(name)
            w = np.asarray(w, dtype=float)
            if w.shape != (6,) or not np.all(np.isfinite(w)):
                raise ValueError(f"f_ext[{name!r}] must be a finite (6,) wrench, got {w!r}")
            if link < 0:
                continue  # a wrench on the world does nothing
            R, p = T[:3, :3], T[:3, 3]
            f = R @ w[3:]
            fext[link, :3] += R @ w[:3] + np.cross(p, f)
            fext[link, 3:] += f
        c.ws[:c.n_links, L.W_FEXT:L.W_FEXT + 6] = fext

    def _frame(self, name):
        try:
            return self.compiled.frames[name]
        except (KeyError, TypeError):
            raise self._missing("body or node", name, self.compiled.frames) from None

    # ------------------------------------------------------------------ dynamics
    def forward_dynamics(self, q, u, tau, f_ext=None, out=None):
        """udot (nu,) = M(q)^-1 (tau - b(q, u) + J^T f_ext), by the O(N) articulated-body algorithm.

        q (nq,), u (nu,), tau (nu,); gravity included; f_ext is an optional dict
        {body or node name: wrench [moment; force] (6,) about the frame origin, in the
        frame's axes}. ``out``: an optional float64 (nu,) array to write the result into
        (saves an allocation in hot loops); it is also returned.
        """
        if f_ext is not None:
            return self._with_fext(f_ext, self.forward_dynamics, q, u, tau, None, out)
        c = self._compiled or self.finalize()
        if out is None:
            out = _empty(c.nu)
        elif getattr(out, "shape", None) != (c.nu,):
            _check_out(out, (c.nu,))
        try:
            st = KERNELS.forward_dynamics(c.buf, q, u, tau, out)
        except TypeError:
            q, u, tau = as_float_vector(q, "q"), as_float_vector(u, "u"), as_float_vector(tau, "tau")
            _check_out(out, (c.nu,))
            st = KERNELS.forward_dynamics(c.buf, q, u, tau, out)
        if st:
            self._raise_status(st, ("q", "u", "tau"), (q, u, tau))
        return out

    def inverse_dynamics(self, q, u, udot, f_ext=None, out=None):
        """tau (nu,) = M(q) udot + b(q, u) - J^T f_ext, by recursive Newton-Euler (gravity included).

        f_ext and ``out`` (an optional float64 (nu,) result array) as in ``forward_dynamics``.
        """
        if f_ext is not None:
            return self._with_fext(f_ext, self.inverse_dynamics, q, u, udot, None, out)
        c = self._compiled or self.finalize()
        if out is None:
            out = _empty(c.nu)
        elif getattr(out, "shape", None) != (c.nu,):
            _check_out(out, (c.nu,))
        try:
            st = KERNELS.inverse_dynamics(c.buf, q, u, udot, out)
        except TypeError:
            q, u, udot = as_float_vector(q, "q"), as_float_vector(u, "u"), as_float_vector(udot, "udot")
            _check_out(out, (c.nu,))
            st = KERNELS.inverse_dynamics(c.buf, q, u, udot, out)
        if st:
            self._raise_status(st, ("q", "u", "udot"), (q, u, udot))
        return out

    def mass_matrix(self, q, out=None):
        """The symmetric joint-space mass matrix M(q) (nu, nu), composite-rigid-body algorithm.

        ``out``: an optional float64 C-contiguous (nu, nu) array to write M into (saves an
        allocation in hot loops); it is also returned.
        """
        c = self._compiled or self.finalize()
        if out is None:
            out = _empty(c.shape_M)
        elif getattr(out, "shape", None) != c.shape_M:
            _check_out(out, c.shape_M)
        try:
            st = KERNELS.mass_matrix(c.buf, q, out)
        except TypeError:
            q = as_float_vector(q, "q")
            _check_out(out, c.shape_M)
            st = KERNELS.mass_matrix(c.buf, q, out)
        if st:
            self._raise_status(st, ("q",), (q,))
        return out

    def bias_forces(self, q, u):
        """b(q, u) (nu,): Coriolis, centrifugal and gravity forces, so M udot + b = tau."""
        c = self.compiled
        return self.inverse_dynamics(q, u, np.zeros(c.nu))

    def gravity_forces(self, q):
        """g(q) (nu,): the generalized gravity forces (tau that holds the system still)."""
        c = self.compiled
        return self.inverse_dynamics(q, np.zeros(c.nu), np.zeros(c.nu))

    def _q(self, q):
        return check_vector(q, self.compiled.nq, "q")

    def _u(self, u, name="u"):
        return check_vector(u, self.compiled.nu, name)

    # ------------------------------------------------------------------ kinematics
    def body_pose(self, q, body):
        """T_world_body (4, 4): the pose of a body (or node) frame in the world."""
        c = self._compiled or self.finalize()
        q = self._q(q)
        link, T = self._frame(body)
        out = np.empty((4, 4))
        st = KERNELS.frame_pose(c.buf, q, link, T, out)
        if st:
            self._raise_status(st, ("q",), (q,))
        return out

    frame_pose = body_pose

    def body_jacobian(self, q, body, frame="body"):
        """J (6, nu) mapping u to the spatial velocity [w; v] of a body (or node) frame.

        frame="body": w and v (velocity of the frame origin) in the frame's own axes;
        "world_aligned": the same vectors in world axes; "world": the spatial velocity
        in world coordinates (v is the velocity of the world-origin point moving with the body).
        """
        c = self._compiled or self.finalize()
        q = self._q(q)
        link, T = self._frame(body)
        J = np.zeros((6, c.nu))
        T_wf = np.empty((4, 4))
        st = KERNELS.frame_jacobian(c.buf, q, link, T, T_wf, J)
        if st:
            self._raise_status(st, ("q",), (q,))
        if frame == "body":
            return J
        R = T_wf[:3, :3]
        Jw = np.vstack([R @ J[:3], R @ J[3:]])
        if frame == "world_aligned":
            return Jw
        if frame == "world":
            Jw[3:] += np.cross(T_wf[:3, 3], Jw[:3], axis=0)
            return Jw
        raise ValueError(f"frame must be 'body', 'world_aligned' or 'world', got {frame!r}")

    frame_jacobian = body_jacobian

    def body_velocity(self, q, u, body):
        """[w; v] (6,) of a body (or node) frame, in its own axes (v: its origin's velocity)."""
        c = self._compiled or self.finalize()
        q, u = self._q(q), self._u(u)
        link, T = self._frame(body)
        out = np.empty(12)
        st = KERNELS.frame_velocity_acceleration(c.buf, q, u, np.zeros(c.nu), link, T, out)
        if st:
            self._raise_status(st, ("q", "u", "udot"), (q, u, u))
        return out[:6].copy()

    def body_acceleration(self, q, u, udot, body, kind="spatial"):
        """Acceleration (6,) of a body (or node) frame, in its own axes (gravity not included).

        kind="spatial": [dw/dt; dv/dt], the rate of change of the frame's spatial velocity
        [w; v] (v: velocity of the point at the frame origin); kind="classical": [dw/dt; a]
        with a = dv/dt + w x v the acceleration of the frame origin itself.
        """
        c = self._compiled or self.finalize()
        q, u, udot = self._q(q), self._u(u), self._u(udot, "udot")
        if kind not in ("spatial", "classical"):
            raise ValueError(f"kind must be 'spatial' or 'classical', got {kind!r}")
        link, T = self._frame(body)
        out = np.empty(12)
        st = KERNELS.frame_velocity_acceleration(c.buf, q, u, udot, link, T, out)
        if st:
            self._raise_status(st, ("q", "u", "udot"), (q, u, udot))
        acc = out[6:].copy()
        if kind == "classical":
            acc[3:] += np.cross(out[:3], out[3:6])
        return acc

    def u_from_qdot_matrix(self, q):
        """The (nu, nq) matrix N+ with u = N+(q) q_dot (exact for q_dot tangent to the
        quaternion constraint). Identity for scalar and translational coordinates."""
        from .coordinate_maps import u_from_qdot_matrix
        c = self.compiled
        return u_from_qdot_matrix(c, self._q(q))

    def pose_gradient(self, q, body):
        """G (6, nq): derivative of the frame pose with respect to the coordinates q.

        For a small change dq, G dq = [d_theta; d_p] where d_theta (3,) is the rotation
        vector of R(q + dq) R(q)^T (world axes) and d_p (3,) the change of the frame
        origin in the world. It is the coordinate-space counterpart of the Jacobian:
        G = J_world_aligned(q) N+(q).
        """
        return self.body_jacobian(q, body, "world_aligned") @ self.u_from_qdot_matrix(q)

    def qdot(self, q, u):
        """q_dot (nq,) = N(q) u: coordinate rates of the generalized speeds."""
        c = self._compiled or self.finalize()
        q, u = self._q(q), self._u(u)
        out = np.empty(c.nq)
        KERNELS.qdot_from_u(c.mi, c.mf, q, u, out)
        return out

    def integrate(self, q, u, dt=1.0):
        """q (+) u dt (nq,): move along the constant speeds u for dt seconds, on each
        hinge's manifold (exact exponential for rotations and free hinges)."""
        c = self._compiled or self.finalize()
        q, u = self._q(q), self._u(u)
        if not np.isfinite(dt):
            raise ValueError(f"dt must be finite, got {dt!r}")
        out = np.empty(c.nq)
        KERNELS.integrate_q(c.mi, c.mf, q, u, float(dt), out)
        return out

    # ------------------------------------------------------------------ charts
    def sanitize(self, q):
        """Re-centre rotation-vector charts whose angle exceeds their max_chart_angle.

        Modifies q (a float64 (nq,) array) and the chart offsets in place; the poses
        are unchanged. Returns True if any chart moved.
        """
        c = self.compiled
        if not (isinstance(q, np.ndarray) and q.dtype == np.float64 and q.shape == (c.nq,)
                and q.flags.c_contiguous and q.flags.writeable):
            raise ValueError(f"q must be a writeable C-contiguous float64 array of shape ({c.nq},)")
        moved = KERNELS.sanitize_charts(c.mi, c.mf, q, c.max_chart_angles)
        if moved:
            self._save_charts()
        return bool(moved)

    def chart_offsets(self):
        """{hinge name: chart offset quaternion (x, y, z, w)} for rotation-vector subhinges."""
        c = self.compiled
        out = {}
        for j, s in enumerate(c.link_subhinges):
            if s.kind in ("spherical", "free"):
                out[s.hinge.name] = c.mf[j, L.CHART:L.CHART + 4].copy()
        return out

    def global_q(self, q):
        """q with every rotation-vector chart re-expressed about the identity (global coordinates)."""
        from .coordinate_maps import global_coordinates
        c = self.compiled
        return global_coordinates(c, self._q(q))

    def reset_charts(self, q=None):
        """Reset all chart offsets to the identity; if q is given, return it re-expressed so
        the poses are unchanged."""
        out = None if q is None else self.global_q(q)
        c = self.compiled
        for j, s in enumerate(c.link_subhinges):
            if s.kind in ("spherical", "free"):
                c.mf[j, L.CHART:L.CHART + 4] = (0.0, 0.0, 0.0, 1.0)
        self._save_charts()
        return out

    # ------------------------------------------------------------------ energy, com
    def kinetic_energy(self, q, u):
        """Kinetic energy [J] = 1/2 u^T M(q) u."""
        c = self._compiled or self.finalize()
        q, u = self._q(q), self._u(u)
        out = np.empty(1)
        st = KERNELS.kinetic_energy(c.buf, q, u, out)
        if st:
            self._raise_status(st, ("q", "u"), (q, u))
        return float(out[0])

    def _mass_com(self, q):
        c = self._compiled or self.finalize()
        q = self._q(q)
        out = np.empty(4)
        st = KERNELS.mass_and_com(c.buf, q, out)
        if st:
            self._raise_status(st, ("q",), (q,))
        return out

    def potential_energy(self, q):
        """Gravitational potential energy [J] = -m_total g . c (zero at the world origin)."""
        out = self._mass_com(q)
        return float(-out[0] * self._gravity @ out[1:])

    def center_of_mass(self, q):
        """Centre of mass (3,) [m] of all bodies, in the world frame."""
        return self._mass_com(q)[1:].copy()

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

    def configuration_space(self):
        """The LiegroupSpace of q (one factor per hinge); see ``multibody.planning``."""
        from ..planning.liegroup import configuration_space
        return configuration_space(self)

    def __repr__(self):
        try:
            return f"Multibody({self.name!r}, bodies={len(self._bodies) - 1}, nq={self.nq}, nu={self.nu})"
        except ValueError:
            return f"Multibody({self.name!r}, bodies={len(self._bodies) - 1}, not finalized)"
