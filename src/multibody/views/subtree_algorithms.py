"""The algorithms of a sub-tree: each runs on the sub-tree's own coordinates, every other
coordinate of the model held (frozen) at the values given.

Arguments ``q`` (nq,) and ``u`` (nu,) are the **full model's** vectors: the sub-tree reads
its own entries (``q_index`` / ``u_index``) and, from the other coordinates of q, the world
pose of its root. The speeds of the other coordinates are treated as zero (frozen: the
root and every body outside the sub-tree are at rest), whatever ``u`` holds there. Forces,
accelerations and matrices are the sub-tree's: ``tau`` / ``udot`` (nu_sub,), M (nu_sub,
nu_sub), Jacobians (6, nu_sub) (the full model's columns ``u_index``). ``data``: a Data of
the full model whose chart offsets q is expressed in (default: the calling thread's).

Each call runs the model's O(N) kernels on the sub-tree's derived model
(``model.subtree_model``): the forward dynamics equals M_ss^-1 (tau_s - b_s) of the full
model with the other speeds zero, and with a sub-graph's enabled constraints it is their
tree-augmented dynamics.
"""
import numpy as np

from ..algorithms.checks import check_vector
from ..results import SimulationResult, coordinate_labels
from ..simulation.simulate import ModelView, simulate


def full_vector(x, n, name):
    """x as a float64 (n,) array: taken as it is when it already is one (for q before the
    root pose's kernel, which checks it), else through ``check_vector``."""
    if isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == (n,):
        return x
    return check_vector(x, n, name)


class SubTreeAlgorithms(ModelView):
    """Mixed into ``SubTree``: needs ``_prepare(q, data)`` -> (DerivedModel, q, full Data).
    A ``ModelView``: ``multibody.simulate(sub, ...)`` is ``sub.simulate(...)``."""

    def _speeds(self, D, u):
        return check_vector(u, self.multibody.nu, "u")[D.u_index]

    # ------------------------------------------------------------------ dynamics
    def forward_dynamics(self, q, u, tau, f_ext=None, data=None):
        """udot_sub (nu_sub,): the sub-tree's accelerations under ``tau`` (nu_sub,) [N m or N],
        gravity, ``f_ext`` ({body or node name: wrench [moment; force] (6,) about its origin,
        in its axes}) and, for a sub-graph, its enabled constraints; the rest of the model frozen."""
        D, q, _ = self._prepare(q, data)
        return D.model.forward_dynamics(q[D.q_index], self._speeds(D, u), tau, f_ext=f_ext)

    def inverse_dynamics(self, q, u, udot, f_ext=None, data=None):
        """tau_sub (nu_sub,) = M_ss udot + b_s - J_s^T f_ext for the sub-tree's accelerations
        ``udot`` (nu_sub,), the rest of the model frozen (its constraints are not applied)."""
        D, q, _ = self._prepare(q, data)
        return D.model.inverse_dynamics(q[D.q_index], self._speeds(D, u), udot, f_ext=f_ext)

    def mass_matrix(self, q, data=None):
        """M_ss (nu_sub, nu_sub): the full mass matrix's block of the sub-tree's speeds."""
        D, q, _ = self._prepare(q, data)
        return D.model.mass_matrix(q[D.q_index])

    def inverse_mass_matrix(self, q, data=None):
        """M_ss^-1 (nu_sub, nu_sub), by the O(N nu) articulated-body recursion."""
        D, q, _ = self._prepare(q, data)
        return D.model.inverse_mass_matrix(q[D.q_index])

    def bias_forces(self, q, u, data=None):
        """b_s (nu_sub,): Coriolis, centrifugal and gravity forces of the sub-tree's speeds."""
        D, q, _ = self._prepare(q, data)
        return D.model.bias_forces(q[D.q_index], self._speeds(D, u))

    def gravity_forces(self, q, data=None):
        """g_s (nu_sub,): the forces on the sub-tree's speeds that hold it still."""
        D, q, _ = self._prepare(q, data)
        return D.model.gravity_forces(q[D.q_index])

    # ------------------------------------------------------------------ kinematics
    def body_pose(self, q, body, data=None):
        """T_world_body (4, 4) of a body or node of the sub-tree (or its root), at the full q."""
        D, q, _ = self._prepare(q, data)
        return D.to_world(D.model.body_pose(q[D.q_index], self._frame(D, body)))

    def body_jacobian(self, q, body, frame="body", data=None):
        """J (6, nu_sub): the spatial velocity [w; v] of a body or node of the sub-tree per
        unit speed of the sub-tree (``frame`` as ``Multibody.body_jacobian``): the full
        Jacobian's columns ``u_index``."""
        if frame not in ("body", "world_aligned", "world"):
            raise ValueError(f"frame must be 'body', 'world_aligned' or 'world', got {frame!r}")
        D, q, _ = self._prepare(q, data)
        qs, name = q[D.q_index], self._frame(D, body)
        J = D.model.body_jacobian(qs, name)
        if frame == "body":
            return J
        T = D.to_world(D.model.body_pose(qs, name))
        Jw = np.vstack([T[:3, :3] @ J[:3], T[:3, :3] @ J[3:]])
        if frame == "world":
            Jw[3:] += np.cross(T[:3, 3], Jw[:3], axis=0)
        return Jw

    def body_velocity(self, q, u, body, data=None):
        """[w; v] (6,) of a body or node of the sub-tree, in its own axes (the others frozen)."""
        D, q, _ = self._prepare(q, data)
        return D.model.body_velocity(q[D.q_index], self._speeds(D, u), self._frame(D, body))

    def _frame(self, D, body):
        name = getattr(body, "name", body)
        frames = D.compiled().frame_rows
        if not (isinstance(name, str) and name in frames) or (name == "world" and D.moving_root):
            raise ValueError(f"body: {name!r} is not a body or node of sub-tree {self.name!r} "
                             f"(nor its root)")
        return name

    # ------------------------------------------------------------------ energy
    def kinetic_energy(self, q, u, data=None):
        """Kinetic energy [J] of the sub-tree's bodies, 1/2 u_s^T M_ss u_s (the others at rest)."""
        D, q, _ = self._prepare(q, data)
        return D.model.kinetic_energy(q[D.q_index], self._speeds(D, u))

    def potential_energy(self, q, data=None):
        """Gravitational potential energy [J] of the sub-tree's bodies (zero at the world origin)."""
        return -self._mass() * float(self.multibody.gravity @ self.center_of_mass(q, data))

    def _mass(self):
        return float(sum(b.mass for b in self.bodies))

    def center_of_mass(self, q, data=None):
        """Centre of mass (3,) [m] of the sub-tree's bodies, world frame."""
        D, q, _ = self._prepare(q, data)
        return D.point_to_world(D.model.center_of_mass(q[D.q_index]))

    # ------------------------------------------------------------------ coordinates
    def integrate(self, q, u_sub, dt=1.0, data=None):
        """The full q (nq,) with the sub-tree's coordinates moved along ``u_sub`` (nu_sub,)
        for ``dt`` [s] on their manifolds; the others unchanged."""
        D, q, _ = self._prepare(q, data)
        out = q.copy()
        out[D.q_index] = D.model.integrate(q[D.q_index], u_sub, dt)
        return out

    def sanitize(self, q, data=None):
        """Re-centre the sub-tree's rotation-vector charts whose angle exceeds their
        max_chart_angle (none while ``enable_subhinge_charts(False)``), as ``Multibody.sanitize``:
        q (the full, writeable float64 (nq,) array) and the chart offsets of ``data`` change in
        place, the poses do not. Returns True if a chart moved."""
        nq = self.multibody.nq
        if not (isinstance(q, np.ndarray) and q.dtype == np.float64 and q.shape == (nq,)
                and q.flags.c_contiguous and q.flags.writeable):
            raise ValueError(f"q must be a writeable C-contiguous float64 array of shape ({nq},)")
        D, _, d = self._prepare(q, data)
        qs = q[D.q_index]
        if not D.model.sanitize(qs):
            return False
        q[D.q_index] = qs
        D.charts_to(d, store=d is self.multibody.compiled.thread_data())
        return True

    def global_q(self, q, data=None):
        """The full q with the sub-tree's rotation-vector charts re-expressed about the identity."""
        D, q, _ = self._prepare(q, data)
        out = q.copy()
        out[D.q_index] = D.model.global_q(q[D.q_index])
        return out

    def reset_charts(self, q=None, data=None):
        """Reset the sub-tree's chart offsets (in ``data``, default the calling thread's, and
        then in the subhinges) to the identity; given the full q, return it re-expressed so
        the poses are unchanged."""
        if q is None:
            D, d = self._unplaced(data)
        else:
            D, q, d = self._prepare(q, data)
        qs = D.model.reset_charts(None if q is None else q[D.q_index])
        D.charts_to(d, store=d is self.multibody.compiled.thread_data())
        if q is None:
            return None
        out = q.copy()
        out[D.q_index] = qs
        return out

    def chart_offsets(self, data=None):
        """{hinge name: chart offset quaternion (x, y, z, w)} of the sub-tree's rotation-vector
        subhinges (in ``data``, default the calling thread's)."""
        D, _ = self._unplaced(data)
        return D.model.chart_offsets()

    # ------------------------------------------------------------------ simulation
    def simulate(self, q0, u0, t_final, dt=1e-3, data=None, **options):
        """Integrate the sub-tree's coordinates only, the rest of the model frozen at q0.

        q0 (nq,), u0 (nu,): the full initial state (the other speeds count as zero).
        ``options`` are ``multibody.simulate``'s, sized for the sub-tree: ``tau``
        (nu_sub,), ``control(t, q_sub, u_sub, tau_out)`` with the sub-tree's q (nq_sub,),
        u and tau_out (nu_sub,), force models naming its hinges and bodies; a file written
        by ``output=`` holds the sub-tree's columns. The sub-tree's hinge limits are honoured
        and its enabled constraints (a sub-graph's) kept. Returns a ``SimulationResult``
        whose ``q`` (N, nq) and ``u`` (N, nu) are the full vectors: the other coordinates
        held at q0, their speeds zero. The ``result`` of the exception a run ends with
        (``SimulationError``, ``KeyboardInterrupt``, ``SimulationTerminated``) is made full too.
        """
        D, q0, _ = self._prepare(check_vector(q0, self.multibody.nq, "q0"), data)
        u0 = check_vector(u0, self.multibody.nu, "u0")
        D.sync_limits()
        try:
            res = simulate(D.model, q0[D.q_index], u0[D.u_index], t_final, dt, **options)
        except BaseException as e:  # SimulationError, KeyboardInterrupt, SimulationTerminated
            if getattr(e, "result", None) is not None:
                e.result = self._full_result(D, q0, e.result)
            raise
        return self._full_result(D, q0, res)

    def _full_result(self, D, q0, res):
        m = self.multibody
        Q = np.repeat(q0[None], len(res.t), axis=0)
        Q[:, D.q_index] = res.q
        U = np.zeros((len(res.t), m.nu))
        U[:, D.u_index] = res.u
        return SimulationResult(res.t, Q, U, res.status, res.message, res.n_steps, res.n_rejected,
                                res.wall_time, res.integrator, res.n_chart_resets,
                                labels=coordinate_labels(m))
