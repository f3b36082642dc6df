"""Force models inside the compiled stepping loop: their packed layout and ``apply_forces``.

Each force-model entry is one row of ``fmi`` (int64, N_FMI columns) and one row of
``fmf`` (float64, N_FMF columns). ``simulation.forces`` packs them with the column names
below; ``apply_forces`` reads them with the same names.
"""
import math

import numpy as np
from numba import njit

from ..kernels.energy import link_velocities
from ..kernels.joint_transform import forward_kinematics_pass, tree_root
from ..kernels.layout import W_FEXT, W_PR, W_PW, W_RW, W_V
from ..kernels.spatial_inline import load9, mul33T_vec, mul33_vec

__all__ = ["apply_forces", "placed_forces", "world_entries", "link_forces"]

# --- entry types (fmi[e, FMI_TYPE])
FM_SPRING = 0    # tau[u_i] += -k (q[q_i] - q_ref) - c u[u_i]
FM_WRENCH = 1    # link wrench (link axes, about the link origin) w0 + w1 sin(omega t + phase)
FM_WORLD = 2     # world-axes wrench w0 + w1 sin(omega t + phase) at a point of the link
FM_LIMIT = 3     # one-sided spring-damper: tau[u_i] += max(0, k d + c d_dot) out of the limit,
                 # d = lower - q or q - upper, the penetration (nothing while d <= 0)
FM_LINEAR = 4    # spring-damper between point a (link FMI_LINK) and point b (link FMI_LINK_B):
                 # F = -(k (l - l0) + c l_dot) d/l on b, -F on a; d = p_b - p_a, l = |d|
FM_FRICTION = 5  # Coulomb friction, regularized: tau[u_i] += -F tanh(u / v_s)
FM_ACTUATOR = 6  # an actuator on one coordinate: tau[u_i] += g clip(a ctrl + b0 + b1 g q + b2 g u, f_min, f_max)
FM_FRAME_WRENCH = 7  # (models with modal bodies) wrench at frame row FMI_FRAME, its axes, about its origin
FM_FRAME_WORLD = 8   # (modal bodies) world-axes wrench at frame row FMI_FRAME's origin
FM_FRAME_LINEAR = 9  # (modal bodies) FM_LINEAR between the origins of frame rows FMI_FRAME (a) and FMI_FRAME_B
                     # (b); row -1: a point of the world, at FM_POINT_A (a) or FM_POINT (b)
JOINT_LEVEL = (FM_SPRING, FM_LIMIT, FM_FRICTION, FM_ACTUATOR)  # the entries that need no link placements
LINK_LEVEL = (FM_WRENCH, FM_WORLD, FM_LINEAR)  # the rigid loop variants' link-level entries (``links``)

# --- integer columns (fmi)
FMI_TYPE = 0     # the entry type: FM_SPRING ... FM_ACTUATOR
FMI_U = 1        # FM_SPRING, FM_LIMIT, FM_FRICTION, FM_ACTUATOR: index of the coordinate in u
FMI_LINK = 1     # FM_WRENCH, FM_WORLD: the link the wrench acts on
FMI_Q = 2        # FM_SPRING, FM_LIMIT, FM_ACTUATOR: index of the coordinate in q
FMI_LINK_B = 2   # FM_LINEAR: the link of point b (-1: the world)
FMI_FRAME = 1    # FM_FRAME_*: the frame row (of point a for FM_FRAME_LINEAR; -1: the world)
FMI_FRAME_B = 2  # FM_FRAME_LINEAR: the frame row of point b (-1: the world)
N_FMI = 3

# --- float columns (fmf)
FM_K = 0         # FM_SPRING, FM_LIMIT: stiffness [N m/rad or N/m]
FM_C = 1         # FM_SPRING, FM_LIMIT: damping [N m s/rad or N s/m]
FM_QREF = 2      # FM_SPRING: rest position
FM_LOWER = 3     # FM_LIMIT: lower limit [rad or m] (-inf: none)
FM_UPPER = 4     # FM_LIMIT: upper limit [rad or m] (+inf: none)
FM_W0 = 0        # wrenches: constant part [moment; force] (6 columns)
FM_W1 = 6        # wrenches: amplitude of the sinusoidal part (6 columns)
FM_OMEGA = 12    # wrenches: angular frequency [rad/s]
FM_PHASE = 13    # wrenches: phase [rad]
FM_POINT = 14    # FM_WORLD: point of application in link axes (3 columns); FM_LINEAR: point b;
                 # FM_FRAME_LINEAR: point b in the world where b is a world frame
FM_LENGTH = 2    # FM_LINEAR: rest length l0 [m]
FM_POINT_A = 3   # FM_LINEAR: point a in its link's axes (3 columns); FM_FRAME_LINEAR: a world point a
FM_FRICTION_FORCE = 0  # FM_FRICTION: F [N m or N]
FM_SLIP_SPEED = 1      # FM_FRICTION: v_s [rad/s or m/s], the speed where tanh reaches 0.76 F
FM_GEAR = 0      # FM_ACTUATOR: g, the transmission (force on the joint = g x actuator force)
FM_GAIN = 1      # FM_ACTUATOR: a, the gain on ctrl
FM_BIAS = 2      # FM_ACTUATOR: b0, b1, b2 (3 columns), the bias (MuJoCo's affine actuators)
FM_FORCE_MIN = 5  # FM_ACTUATOR: the force range (-inf, inf: none)
FM_FORCE_MAX = 6
FM_CTRL = 7      # FM_ACTUATOR: the control input (clamped to its range when packed)
N_FMF = 17


@njit(cache=True, inline="always")
def wrench_phase(fmf, e, t):
    """sin(omega t + phase) of the wrench entry e at time t."""
    return math.sin(fmf[e, FM_OMEGA] * t + fmf[e, FM_PHASE])


@njit(cache=True, inline="always")
def wrench_component(fmf, e, k, s):
    """Component k of the wrench entry e, w0 + w1 s (s: its ``wrench_phase``)."""
    return fmf[e, FM_W0 + k] + fmf[e, FM_W1 + k] * s


@njit(cache=True, inline="always")
def spring_tension(fmf, e, length, rate):
    """-(k (l - l0) + c l_dot) of the FM_LINEAR entry e: the force on point b along the unit
    vector from a to b (a pull toward a when stretched)."""
    return -(fmf[e, FM_K] * (length - fmf[e, FM_LENGTH]) + fmf[e, FM_C] * rate)


@njit(cache=True, inline="always")
def _world_wrench_to_link(ws, j, fmf, e, s):
    """Add the FM_WORLD entry e (at sin value s) to ws[j, W_FEXT:+6]: world axes -> link
    axes (R_world_link^T), moment moved from the point to the link origin."""
    R = load9(ws, j, W_RW)
    n = mul33T_vec(R, wrench_component(fmf, e, 0, s), wrench_component(fmf, e, 1, s), wrench_component(fmf, e, 2, s))
    f = mul33T_vec(R, wrench_component(fmf, e, 3, s), wrench_component(fmf, e, 4, s), wrench_component(fmf, e, 5, s))
    px = fmf[e, FM_POINT]
    py = fmf[e, FM_POINT + 1]
    pz = fmf[e, FM_POINT + 2]
    ws[j, W_FEXT] += n[0] + py * f[2] - pz * f[1]
    ws[j, W_FEXT + 1] += n[1] + pz * f[0] - px * f[2]
    ws[j, W_FEXT + 2] += n[2] + px * f[1] - py * f[0]
    ws[j, W_FEXT + 3] += f[0]
    ws[j, W_FEXT + 4] += f[1]
    ws[j, W_FEXT + 5] += f[2]


@njit(cache=True, inline="always")
def _point_state(mi, ws, j, fmf, e, o):
    """The point fmf[e, o:o+3] (link j axes; j < 0: the world) as (reference point, offset
    from it, velocity), world axes: the reference is the origin of link j's tree's root and
    the offset is taken from W_PR (tree coordinates, kernels/layout.py), so two points of one
    tree are compared without going through the world origin; a point on the world is its
    own reference."""
    x, y, z = fmf[e, o], fmf[e, o + 1], fmf[e, o + 2]
    if j < 0:
        return (x, y, z), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    R = load9(ws, j, W_RW)
    r = mul33_vec(R, x, y, z)
    wx, wy, wz = ws[j, W_V], ws[j, W_V + 1], ws[j, W_V + 2]
    v = mul33_vec(R, ws[j, W_V + 3] + wy * z - wz * y, ws[j, W_V + 4] + wz * x - wx * z,
                  ws[j, W_V + 5] + wx * y - wy * x)
    root = tree_root(mi, j)
    return ((ws[root, W_PW], ws[root, W_PW + 1], ws[root, W_PW + 2]),
            (ws[j, W_PR] + r[0], ws[j, W_PR + 1] + r[1], ws[j, W_PR + 2] + r[2]), v)


@njit(cache=True, inline="always")
def _push_at_point(ws, j, fmf, e, o, fx, fy, fz):
    """Add the world force (fx, fy, fz) at the point fmf[e, o:o+3] of link j to its W_FEXT."""
    if j < 0:
        return
    f = mul33T_vec(load9(ws, j, W_RW), fx, fy, fz)
    px, py, pz = fmf[e, o], fmf[e, o + 1], fmf[e, o + 2]
    ws[j, W_FEXT] += py * f[2] - pz * f[1]
    ws[j, W_FEXT + 1] += pz * f[0] - px * f[2]
    ws[j, W_FEXT + 2] += px * f[1] - py * f[0]
    for k in range(3):
        ws[j, W_FEXT + 3 + k] += f[k]


@njit(cache=True)
def linear_spring(mi, ws, fmi, fmf, e):
    """Apply the FM_LINEAR entry e (world placements and link velocities must be current).
    The points' separation is (o_b - o_a) + (r_b - r_a) from ``_point_state``: exact for two
    points of one tree (o_b = o_a) however far it is from the world origin."""
    ja, jb = fmi[e, FMI_LINK], fmi[e, FMI_LINK_B]
    oa, ra, va = _point_state(mi, ws, ja, fmf, e, FM_POINT_A)
    ob, rb, vb = _point_state(mi, ws, jb, fmf, e, FM_POINT)
    d = ((ob[0] - oa[0]) + (rb[0] - ra[0]), (ob[1] - oa[1]) + (rb[1] - ra[1]), (ob[2] - oa[2]) + (rb[2] - ra[2]))
    length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    if length == 0.0:
        return  # no direction: the spring pushes nowhere
    n = (d[0] / length, d[1] / length, d[2] / length)
    rate = n[0] * (vb[0] - va[0]) + n[1] * (vb[1] - va[1]) + n[2] * (vb[2] - va[2])
    mag = spring_tension(fmf, e, length, rate)
    _push_at_point(ws, jb, fmf, e, FM_POINT, mag * n[0], mag * n[1], mag * n[2])
    _push_at_point(ws, ja, fmf, e, FM_POINT_A, -mag * n[0], -mag * n[1], -mag * n[2])


@njit(cache=True, inline="always")
def apply_forces(mi, mf, ws, fmi, fmf, q, u, t, tau0, tau, links):
    """tau = tau0 + spring-dampers and limit forces; with ``links`` (a constant of the loop's
    variant) also the link-level entries into ws[:, W_FEXT]; returns the use_fext flag.

    The flag is a bool value throughout: returning a literal 0 (no force models) beside an
    int made Numba compile the ABA for both types (4 s of a cold start)."""
    for i in range(tau.shape[0]):
        tau[i] = tau0[i]
    nf = fmi.shape[0]
    use = nf < 0  # False, as a value of type bool
    if nf == 0:
        return use
    velocities = False
    if links:
        for j in range(mi.shape[0]):
            for k in range(6):
                ws[j, W_FEXT + k] = 0.0
    for e in range(nf):
        typ = fmi[e, FMI_TYPE]
        if typ == FM_SPRING:
            ui = fmi[e, FMI_U]
            tau[ui] += -fmf[e, FM_K] * (q[fmi[e, FMI_Q]] - fmf[e, FM_QREF]) - fmf[e, FM_C] * u[ui]
            continue
        if typ == FM_LIMIT:
            ui = fmi[e, FMI_U]
            x = q[fmi[e, FMI_Q]]
            if x < fmf[e, FM_LOWER]:
                tau[ui] += max(0.0, fmf[e, FM_K] * (fmf[e, FM_LOWER] - x) - fmf[e, FM_C] * u[ui])
            elif x > fmf[e, FM_UPPER]:
                tau[ui] -= max(0.0, fmf[e, FM_K] * (x - fmf[e, FM_UPPER]) + fmf[e, FM_C] * u[ui])
            continue
        if typ == FM_FRICTION:
            ui = fmi[e, FMI_U]
            tau[ui] -= fmf[e, FM_FRICTION_FORCE] * math.tanh(u[ui] / fmf[e, FM_SLIP_SPEED])
            continue
        if typ == FM_ACTUATOR:
            ui = fmi[e, FMI_U]
            g = fmf[e, FM_GEAR]
            force = (fmf[e, FM_GAIN] * fmf[e, FM_CTRL] + fmf[e, FM_BIAS] + fmf[e, FM_BIAS + 1] * g * q[fmi[e, FMI_Q]]
                     + fmf[e, FM_BIAS + 2] * g * u[ui])
            tau[ui] += g * min(max(force, fmf[e, FM_FORCE_MIN]), fmf[e, FM_FORCE_MAX])
            continue
        if links and (typ == FM_WRENCH or typ == FM_WORLD or typ == FM_LINEAR):  # links: a constant,
            use = True  # link-level entries only in the loop variant with them (frame entries: flex_link_forces)
            if typ == FM_LINEAR:
                if not velocities:
                    link_velocities(mi, mf, ws, u)
                    velocities = True
                linear_spring(mi, ws, fmi, fmf, e)
                continue
            j = fmi[e, FMI_LINK]
            s = wrench_phase(fmf, e, t)
            if typ == FM_WRENCH:
                for k in range(6):
                    ws[j, W_FEXT + k] += wrench_component(fmf, e, k, s)
            else:
                _world_wrench_to_link(ws, j, fmf, e, s)
    return use


@njit(cache=True, inline="always")
def world_entries(fmi):
    """True if the packed entries hold one that reads the links' world placements
    (FM_WORLD, FM_LINEAR)."""
    for e in range(fmi.shape[0]):
        if fmi[e, FMI_TYPE] == FM_WORLD or fmi[e, FMI_TYPE] == FM_LINEAR:
            return True
    return False


@njit(cache=True, inline="always")
def placed_forces(mi, mf, ws, fmi, fmf, q, u, t, tau0, tau, links):
    """``apply_forces`` after the kinematics pass at q where an entry reads the world
    placements (``world_entries``; only with ``links``, a constant): for callers whose
    placements may be another state's (the implicit methods' residuals and matrices at a
    trial state; the RK stages place the links themselves, ``stages.stage_rates``)."""
    if links and world_entries(fmi):
        forward_kinematics_pass(mi, mf, ws, q)
    return apply_forces(mi, mf, ws, fmi, fmf, q, u, t, tau0, tau, links)


def link_forces(fmi):
    """True if the packed entries ``fmi`` hold a rigid link-level force model (LINK_LEVEL:
    FM_WRENCH, FM_WORLD, FM_LINEAR): the rigid loop variant without them applies only the
    joint-level ones. (The frame entries of models with modal bodies, FM_FRAME_*, are every
    flex variant's: ``flex_link_forces``.)"""
    return bool(np.isin(fmi[:, FMI_TYPE], LINK_LEVEL).any())


@njit(cache=True)
def joint_force_samples(mi, mf, ws, fmi, fmf, T, Q, U, out):
    """out[k] = the joint-level force models' generalized forces at sample k (T[k], Q[k],
    U[k]): ``apply_forces`` itself, without link-level entries, from zero joint forces (what
    ``energy_balance`` integrates the work of)."""
    zero = np.zeros(U.shape[1])
    for k in range(T.shape[0]):
        apply_forces(mi, mf, ws, fmi, fmf, Q[k], U[k], T[k], zero, out[k], False)
