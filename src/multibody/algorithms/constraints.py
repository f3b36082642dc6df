"""Constraint errors, their Jacobians, and tree-augmented constrained dynamics (seed 000).

Two forms of every constraint quantity, as in seed 000:

* the **residual** form: one entry per residual row (6 - nu per hinge loop, one per
  convel and coordinate constraint), the rows of ``Gc`` (Gc u = 0 when the velocity
  constraints hold; ``Gc^T y`` are squeeze forces, which cause no motion);
* the **error** form: 6 entries per hinge loop ([rotation; translation] of node b relative
  to node a in a's axes, to first order, the joint's free components 0), then the convel
  and coordinate rows: error = E residual with a constant block-diagonal E.

Convel constraints have no position level: their pose error is 0.
"""
from types import SimpleNamespace

import numpy as np

from ..kernels.constraint_work import WC_KD, WC_KP, WC_LAMBDA, WC_ROW, row_offset, work_shape

_row_offset = row_offset.py_func
from .checks import as_float_vector, check_result, check_vector, data_object, raise_status, run_kernel
from .external_forces import generalized_external_forces, with_external_forces

#: Featherstone (2008) section 8.3 / RigidBodyDynamics.jl's default: critically damped at 10 rad/s
DEFAULT_GAINS = (100.0, 20.0)


def constraint_work(c, d):
    """Data d's constraint work array (kernels/constraint_work.py), made on first use; its
    Baumgarte gains are zero except during a ``constrained_dynamics`` call that sets them."""
    W = d.constraint_work
    if W is None:
        W = d.constraint_work = np.zeros(work_shape(c.nu, c.nc, c.n_links))
    return W


def gains_of(c, W):
    """The (nc, 2) view [kp, kd] of the Baumgarte gains in a constraint work array W."""
    c0 = _row_offset(c.nu, c.nc)
    return W[:, c0 + WC_KP:c0 + WC_KD + 1]


def simulation_work(m, stabilization_gains):
    """A simulation run's own constraint work array with its Baumgarte gains written in (see
    ``baumgarte_gains``), or None for a model without enabled constraints, where only None
    and "default" are accepted (explicit gains on a tree are a mistake worth saying)."""
    c = m.compiled
    if not c.nc:
        if not (stabilization_gains is None or isinstance(stabilization_gains, str)
                and stabilization_gains == "default"):
            raise ValueError(f"stabilization_gains={stabilization_gains!r}: the model has no enabled "
                             f"constraints to stabilize; leave it as None or 'default'")
        return None
    W = np.zeros(work_shape(c.nu, c.nc, c.n_links))
    gains_of(c, W)[:] = baumgarte_gains(m, stabilization_gains)
    return W


def _rows(m, q, u, data):
    """Evaluate every constraint row at (q, u): (c, W) with Gc in W[:, :nu]."""
    c = m.compiled
    d = data_object(c, data)
    q = as_float_vector(q, "q")
    u = np.zeros(c.nu) if u is None else as_float_vector(u, "u")
    W = constraint_work(c, d)
    st = run_kernel(c, q, c.kernels.constraint_rows, d.buf, q, u, W)
    if st:
        raise_status(c, st, ("q", "u"), (q, u))
    check_result(c, W[:, :c.nu], ("q", "u"), (q, u))  # Gc, and the rows' coefficients
    check_result(c, _coefficients(c, W), ("q", "u"), (q, u))
    return c, W


def _coefficients(c, W):
    c0 = _row_offset(c.nu, c.nc)
    return W[:, c0 + WC_ROW:c0 + WC_ROW + 16]


def error_map(m):
    """E (n_errors, n_rows): the error form of the residual rows (block diagonal, constant)."""
    c = m.compiled
    E = np.zeros((c.n_errors, c.nc))
    for con in c.constraints:
        E[c.constraint_errors[con], c.constraint_rows[con]] = con.error_map()
    return E


def _form(m, x, form):
    if form == "residual":
        return x
    if form == "error":
        return error_map(m) @ x
    raise ValueError(f"form must be 'residual' or 'error', got {form!r}")


def pose_error(m, q, form="error", data=None):
    """Position-level constraint errors at q (error form: 6 per hinge loop; or residual form)."""
    c, W = _rows(m, q, None, data)
    return _form(m, _coefficients(c, W)[:, 0].copy(), form)


def velocity_error(m, q, u, form="error", data=None):
    """Velocity-level constraint errors Gc u (error or residual form)."""
    c, W = _rows(m, q, u, data)
    return _form(m, _coefficients(c, W)[:, 13].copy(), form)


def acceleration_error(m, q, u, udot, form="error", data=None):
    """Acceleration-level constraint errors Gc udot + Gc_dot u (error or residual form)."""
    c, W = _rows(m, q, u, data)
    udot = as_float_vector(udot, "udot")
    if udot.shape != (c.nu,):
        raise ValueError(f"udot must have shape ({c.nu},), got {udot.shape}")
    return _form(m, W[:, :c.nu] @ udot + _coefficients(c, W)[:, 14], form)


def constraint_jacobian(m, q, form="residual", data=None):
    """Gc (rows, nu): d(constraint)/dt = Gc u; the error form is E Gc (6 rows per hinge loop)."""
    c, W = _rows(m, q, None, data)
    return _form(m, W[:, :c.nu].copy(), form)


def constraint_bias(m, q, u, form="residual", data=None):
    """Gc_dot u: the constraints' acceleration at udot = 0 (their velocity-product term)."""
    c, W = _rows(m, q, u, data)
    return _form(m, _coefficients(c, W)[:, 14].copy(), form)


def pose_error_gradient(m, q, form="error", data=None):
    """d(pose error)/dq (rows, nq): the derivative with respect to the coordinates q themselves
    (Gc times the u <- q_dot map; for a tangent step q (+) du the derivative is Gc)."""
    return constraint_jacobian(m, q, form, data) @ m.u_from_qdot_matrix(q)


def constraint_nodes(m):
    """The frames (Node or body objects) that loop and convel constraints join, in row order,
    each once: the node order of ``constraint_q_matrix``."""
    nodes = []
    for con in m.compiled.constraints:
        if con.category != "coordinate":
            for node in (con.node_a, con.node_b):
                if node not in nodes:
                    nodes.append(node)
    return nodes


def constraint_q_matrix(m, q, data=None):
    """(Q, J): Q (rows, 6 n_nodes + 2 n_cc) maps the stacked spatial velocities of the
    constraint nodes ([w; v of the origin], world axes, nodes as ``constraint_nodes``) and,
    per coordinate constraint, (u_a, u_b) to the residual rates; J stacks the matching
    Jacobians (6 per node, then the two unit rows per coordinate constraint). Gc = Q J."""
    c, W = _rows(m, q, None, data)
    C = _coefficients(c, W)
    nodes = constraint_nodes(m)
    coords = [con for con in c.constraints if con.category == "coordinate"]
    ncol = 6 * len(nodes) + 2 * len(coords)
    Q = np.zeros((c.nc, ncol))
    J = np.zeros((ncol, c.nu))
    for k, node in enumerate(nodes):
        Jl = m.frame_jacobian(q, node.name)  # [w; v] in the frame's axes
        R = m.frame_pose(q, node.name)[:3, :3]
        J[6 * k:6 * k + 3] = R @ Jl[:3]
        J[6 * k + 3:6 * k + 6] = R @ Jl[3:]
    for con in c.constraints:
        rows = c.constraint_rows[con]
        if con.category == "coordinate":
            k = 6 * len(nodes) + 2 * coords.index(con)
            Q[rows, k], Q[rows, k + 1] = 1.0, -con.ratio
            J[k, c.u_slices[con.hinge_a.name].start] = 1.0
            J[k + 1, c.u_slices[con.hinge_b.name].start] = 1.0
            continue
        ka, kb = 6 * nodes.index(con.node_a), 6 * nodes.index(con.node_b)
        Q[rows, ka:ka + 6] = C[rows, 1:7]
        Q[rows, kb:kb + 6] = C[rows, 7:13]
    return Q, J


def baumgarte_gains(m, gains):
    """Baumgarte gains per residual row, (rows, 2) [kp 1/s^2, kd 1/s], from ``gains``: None (off),
    "default" (DEFAULT_GAINS for every constraint), a pair (kp, kd) for all, or a dict
    {constraint name: (kp, kd)} (the others get the defaults)."""
    c = m.compiled
    G = np.zeros((c.nc, 2))
    if gains is None:
        return G
    if isinstance(gains, str):
        if gains != "default":
            raise ValueError(f"stabilization_gains must be None, 'default', (kp, kd) or a dict "
                             f"{{constraint name: (kp, kd)}}, got {gains!r}")
        G[:] = DEFAULT_GAINS
        return G
    if isinstance(gains, dict):
        G[:] = DEFAULT_GAINS
        names = {con.name: con for con in c.constraints}
        for name, pair in gains.items():
            if name not in names:
                raise ValueError(f"stabilization_gains: {name!r} is not an enabled constraint "
                                 f"(enabled: {sorted(names)})")
            G[c.constraint_rows[names[name]]] = _pair(pair, f"stabilization_gains[{name!r}]")
        return G
    G[:] = _pair(gains, "stabilization_gains")
    return G


def _pair(pair, what):
    p = np.asarray(pair, dtype=float)
    if p.shape != (2,) or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"{what} must be a pair (kp, kd) of finite non-negative gains, got {pair!r}")
    return p


def constrained_dynamics(m, q, u, tau, f_ext=None, stabilization_gains=None, data=None):
    """Tree-augmented constrained forward dynamics: a namespace with ``udot`` (nu,),
    ``multipliers`` (rows,), ``forces`` {constraint name: its generalized force Gc_k^T
    lambda_k (nu,)} and ``constraint_force`` (nu,) = Gc^T lambda (their sum).

    O(N) per constraint row plus one rows x rows solve (kernels/constrained_dynamics.py);
    ``stabilization_gains`` as in ``baumgarte_gains`` (default None: the accelerations
    keep the constraints' acceleration level exactly). f_ext as in ``forward_dynamics``.
    """
    c = m.compiled
    d = data_object(c, data)
    if f_ext is not None:
        if c.flex is None:  # wrenches on the links, in the data buffer for the one call
            return with_external_forces(c, d, f_ext, constrained_dynamics, m, q, u, tau, None,
                                        stabilization_gains, d)
        q = check_vector(q, c.nq, "q", c)  # modal bodies: the wrenches as generalized forces J^T w
        tau = check_vector(tau, c.nu, "tau", c) + generalized_external_forces(c, d, q, f_ext)
    q, u, tau = as_float_vector(q, "q"), as_float_vector(u, "u"), as_float_vector(tau, "tau")
    W = constraint_work(c, d)
    c0 = _row_offset(c.nu, c.nc)
    gains = gains_of(c, W)
    gains[:] = baumgarte_gains(m, stabilization_gains)
    udot = np.empty(c.nu)
    try:
        st = run_kernel(c, q, c.kernels.constrained_forward_dynamics, d.buf, q, u, tau, W, udot)
    finally:
        gains[:] = 0.0
    if st:
        raise_status(c, st, ("q", "u", "tau"), (q, u, tau))
    lam = check_result(c, W[:, c0 + WC_LAMBDA].copy(), ("q", "u", "tau"), (q, u, tau))
    G = _rows(m, q, u, d)[1][:, :c.nu]  # the dynamics kernel needs no Gc: the rows kernel makes it
    forces = {con.name: G[s].T @ lam[s] for con, s in c.constraint_rows.items()}
    return SimpleNamespace(udot=udot, multipliers=lam, forces=forces, constraint_force=G.T @ lam)


def free_speeds(m, frozen):
    """The u indices (ascending int array) that ``frozen`` leaves free: it names hinges (their
    whole u slices) or u indices held; ValueError naming ``frozen`` for anything else."""
    c = m.compiled
    held = set()
    for f in frozen:
        if isinstance(f, str):
            s = m.u_slice(f)
            held.update(range(s.start, s.stop))
        elif isinstance(f, (int, np.integer)) and 0 <= f < c.nu:
            held.add(int(f))
        else:
            raise ValueError(f"frozen: {f!r} is neither a hinge name nor a u index in range({c.nu})")
    return np.array([i for i in range(c.nu) if i not in held], dtype=int)


def constrained_inverse_dynamics(m, q, u, udot, actuated=None, f_ext=None, data=None):
    """Joint forces and multipliers that produce a motion consistent with the constraints:
    a namespace with ``tau`` (nu,) (zero outside the actuated speeds), ``multipliers`` (rows,)
    and ``residual`` (the part of M udot + b that no actuated force and no constraint force
    can produce: 0 when the motion is reachable), from M udot + b - J^T f_ext = tau + Gc^T lambda.

    ``actuated``: hinge names or u indices of the driven speeds (default: every speed, then
    tau is the least-norm choice: the constraints carry all they can). With actuated speeds
    and constraint rows together independent the answer is unique. ``udot`` should satisfy the
    constraints' acceleration level (``constraint_kinematics().solve_udot``).
    """
    c = m.compiled
    tau_id = m.inverse_dynamics(q, u, udot, f_ext=f_ext, data=data)
    G = constraint_jacobian(m, q, data=data)
    if actuated is None:
        idx = np.arange(c.nu)
    else:
        free = free_speeds(m, actuated)
        idx = np.setdiff1d(np.arange(c.nu), free)
    if actuated is None:
        lam = np.linalg.lstsq(G.T, tau_id, rcond=1e-12)[0]
        tau = tau_id - G.T @ lam
        return SimpleNamespace(tau=tau, multipliers=lam, residual=np.zeros(c.nu))
    A = np.hstack([np.eye(c.nu)[:, idx], G.T])
    x = np.linalg.lstsq(A, tau_id, rcond=1e-12)[0]
    tau = np.zeros(c.nu)
    tau[idx] = x[:idx.size]
    lam = x[idx.size:]
    return SimpleNamespace(tau=tau, multipliers=lam, residual=tau_id - A @ x)
