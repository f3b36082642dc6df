"""Coordinate maps of the subhinges: q_dot = N(q) u, and q (+) u dt.

PIN/SLIDER/SCREW/TRANSLATIONAL: q_dot = u, q + u dt.
SPHERICAL (chart-relative rotation vector v): q_dot = Jr(v)^-1 w, and the step
    is v' = log(exp(v) exp(w dt)) within the same chart.
SPHERICAL_QUAT: q_dot = 1/2 q (x) [w; 0], step q' = q (x) exp(w dt).
FREE / FREE_QUAT: rotation as above; position p_dot = R v, and the step is the
    exact SE(3) motion T' = T exp([w; v] dt) (p' = p + R Jl(w dt) v dt).

``qdot`` and ``integrate`` are the facade's checked entry points (the simulation calls the
maps themselves on states it keeps valid): q's quaternions must be unit, as for the
dynamics (``check_state``), and a non-finite result is OVERFLOW.
"""
import math

from numba import njit

from .common import check_state_modal_ok, result_status
from .joint_transform import chart_rotation
from .layout import BODY_NU, FREE, FREE_QUAT, KIND, NQ, NU, QOFF, SPHERICAL, SPHERICAL_QUAT, UOFF, W_CHART
from .spatial_inline import rot_quat


@njit(cache=True)
def jr_inv_times(vx, vy, vz, wx, wy, wz):
    """Jr(v)^-1 w for the right Jacobian of SO(3)."""
    th2 = vx * vx + vy * vy + vz * vz
    if th2 < 1e-10:
        c = 1.0 / 12.0 + th2 / 720.0
    else:
        th = math.sqrt(th2)
        c = 1.0 / th2 - (1.0 + math.cos(th)) / (2.0 * th * math.sin(th))
    # v x w and v x (v x w)
    a0 = vy * wz - vz * wy
    a1 = vz * wx - vx * wz
    a2 = vx * wy - vy * wx
    b0 = vy * a2 - vz * a1
    b1 = vz * a0 - vx * a2
    b2 = vx * a1 - vy * a0
    return (wx + 0.5 * a0 + c * b0, wy + 0.5 * a1 + c * b1, wz + 0.5 * a2 + c * b2)


@njit(cache=True)
def quat_mul(ax, ay, az, aw, bx, by, bz, bw):
    return (aw * bx + bw * ax + ay * bz - az * by,
            aw * by + bw * ay + az * bx - ax * bz,
            aw * bz + bw * az + ax * by - ay * bx,
            aw * bw - ax * bx - ay * by - az * bz)


@njit(cache=True)
def quat_exp(vx, vy, vz):
    """Unit quaternion of the rotation vector v."""
    th = math.sqrt(vx * vx + vy * vy + vz * vz)
    if th < 1e-8:
        s = 0.5 - th * th / 48.0
    else:
        s = math.sin(0.5 * th) / th
    return (s * vx, s * vy, s * vz, math.cos(0.5 * th))


@njit(cache=True)
def quat_log(x, y, z, w):
    """Rotation vector (angle in [0, pi]) of the quaternion (x, y, z, w)."""
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-8:
        s = 2.0 / w
    else:
        s = 2.0 * math.atan2(n, w) / n
    return (s * x, s * y, s * z)


@njit(cache=True)
def qdot_from_u(mi, ws, q, u, qdot):
    """qdot = N(q) u for every link."""
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        i = mi[j, QOFF]
        k = mi[j, UOFF]
        if kind == SPHERICAL or kind == FREE:
            d = jr_inv_times(q[i], q[i + 1], q[i + 2], u[k], u[k + 1], u[k + 2])
            qdot[i] = d[0]
            qdot[i + 1] = d[1]
            qdot[i + 2] = d[2]
            if kind == FREE:
                R = chart_rotation(ws, j, q[i], q[i + 1], q[i + 2])
                for r in range(3):
                    qdot[i + 3 + r] = R[3 * r] * u[k + 3] + R[3 * r + 1] * u[k + 4] + R[3 * r + 2] * u[k + 5]
        elif kind == SPHERICAL_QUAT or kind == FREE_QUAT:
            d4 = quat_mul(q[i], q[i + 1], q[i + 2], q[i + 3], u[k], u[k + 1], u[k + 2], 0.0)
            for r in range(4):
                qdot[i + r] = 0.5 * d4[r]
            if kind == FREE_QUAT:
                R = rot_quat(q[i], q[i + 1], q[i + 2], q[i + 3])
                for r in range(3):
                    qdot[i + 4 + r] = R[3 * r] * u[k + 3] + R[3 * r + 1] * u[k + 4] + R[3 * r + 2] * u[k + 5]
        else:
            for r in range(mi[j, NQ]):
                qdot[i + r] = u[k + r]
        for r in range(mi[j, BODY_NU]):  # a modal body's eta: Euclidean, after the hinge's
            qdot[i + mi[j, NQ] + r] = u[k + mi[j, NU] + r]


@njit(cache=True)
def qdot(mi, ws, q, u, out):
    """Checked entry point of ``qdot_from_u``: a status for (q, u), or OVERFLOW."""
    st = check_state_modal_ok(mi, q, u, u, 1, -1)  # (a modal body's eta: Euclidean, qdot_from_u knows it)
    if st == 0:
        qdot_from_u(mi, ws, q, u, out)
    return result_status(st, out)


@njit(cache=True, inline="always")
def _translation_step(R, wx, wy, wz, vx, vy, vz, dt, q, i):
    """q[i:i+3] += R Jl(w dt) v dt: the translation of the SE(3) exponential."""
    ax = wx * dt
    ay = wy * dt
    az = wz * dt
    th2 = ax * ax + ay * ay + az * az
    if th2 < 1e-10:
        b = 0.5 - th2 / 24.0
        c = 1.0 / 6.0 - th2 / 120.0
    else:
        th = math.sqrt(th2)
        b = (1.0 - math.cos(th)) / th2
        c = (th - math.sin(th)) / (th2 * th)
    lx = vx * dt
    ly = vy * dt
    lz = vz * dt
    a0 = ay * lz - az * ly
    a1 = az * lx - ax * lz
    a2 = ax * ly - ay * lx
    b0 = ay * a2 - az * a1
    b1 = az * a0 - ax * a2
    b2 = ax * a1 - ay * a0
    t0 = lx + b * a0 + c * b0
    t1 = ly + b * a1 + c * b1
    t2 = lz + b * a2 + c * b2
    for r in range(3):
        q[i + r] += R[3 * r] * t0 + R[3 * r + 1] * t1 + R[3 * r + 2] * t2


@njit(cache=True)
def integrate_q(mi, ws, q, u, dt, qout):
    """qout = q (+) u dt on each subhinge's manifold (see module docstring). qout may alias q."""
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        i = mi[j, QOFF]
        k = mi[j, UOFF]
        R = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
        px = py = pz = 0.0
        if kind == SPHERICAL or kind == FREE:
            if kind == FREE:
                R = chart_rotation(ws, j, q[i], q[i + 1], q[i + 2])
                px = q[i + 3]
                py = q[i + 4]
                pz = q[i + 5]
            a = quat_exp(q[i], q[i + 1], q[i + 2])
            b = quat_exp(u[k] * dt, u[k + 1] * dt, u[k + 2] * dt)
            c = quat_mul(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
            v = quat_log(c[0], c[1], c[2], c[3])
            qout[i] = v[0]
            qout[i + 1] = v[1]
            qout[i + 2] = v[2]
            if kind == FREE:
                qout[i + 3] = px
                qout[i + 4] = py
                qout[i + 5] = pz
                _translation_step(R, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5], dt, qout, i + 3)
        elif kind == SPHERICAL_QUAT or kind == FREE_QUAT:
            if kind == FREE_QUAT:
                R = rot_quat(q[i], q[i + 1], q[i + 2], q[i + 3])
                px = q[i + 4]
                py = q[i + 5]
                pz = q[i + 6]
            b = quat_exp(u[k] * dt, u[k + 1] * dt, u[k + 2] * dt)
            c = quat_mul(q[i], q[i + 1], q[i + 2], q[i + 3], b[0], b[1], b[2], b[3])
            for r in range(4):
                qout[i + r] = c[r]
            if kind == FREE_QUAT:
                qout[i + 4] = px
                qout[i + 5] = py
                qout[i + 6] = pz
                _translation_step(R, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5], dt, qout, i + 4)
        else:
            for r in range(mi[j, NQ]):
                qout[i + r] = q[i + r] + u[k + r] * dt
        for r in range(mi[j, BODY_NU]):
            qout[i + mi[j, NQ] + r] = q[i + mi[j, NQ] + r] + u[k + mi[j, NU] + r] * dt


@njit(cache=True)
def integrate(mi, ws, q, u, dt, out):
    """Checked entry point of ``integrate_q``: a status for (q, u), or OVERFLOW."""
    st = check_state_modal_ok(mi, q, u, u, 1, -1)
    if st == 0:
        integrate_q(mi, ws, q, u, dt, out)
    return result_status(st, out)


@njit(cache=True)
def sanitize_charts(mi, ws, q, max_angles):
    """Re-centre the chart of every SPHERICAL/FREE link whose |v| > max_angles[j].

    The chart offset becomes offset (x) exp(v) and v becomes 0, so the rotation is
    unchanged. Writes the chart offsets (ws W_CHART, data state) and q in place; returns how many moved.
    """
    moved = 0
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        if kind != SPHERICAL and kind != FREE:
            continue
        i = mi[j, QOFF]
        th = math.sqrt(q[i] * q[i] + q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2])
        if th <= max_angles[j]:
            continue
        e = quat_exp(q[i], q[i + 1], q[i + 2])
        c = quat_mul(ws[j, W_CHART], ws[j, W_CHART + 1], ws[j, W_CHART + 2], ws[j, W_CHART + 3], e[0], e[1], e[2], e[3])
        n = math.sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3])
        for r in range(4):
            ws[j, W_CHART + r] = c[r] / n
        q[i] = 0.0
        q[i + 1] = 0.0
        q[i + 2] = 0.0
        moved += 1
    return moved
