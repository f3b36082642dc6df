"""Maps of the rotation and rigid-motion groups the joint kinds share: SO(3)'s right
Jacobian, unit quaternions, SE(3)'s exponential translation and adjoint.

One home for each formula and small-angle cut-off; the kind modules (``spherical``,
``free``, ``spherical_quat``, ``free_quat``) compose them. They take and return scalars
(no arrays, so no reference counts around their calls) and are compiled once each, not
inlined: the kind modules' functions load and store around them.
"""
import math

from numba import njit

from ..spatial_inline import mul33_vec


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
def so3_rotvec_step(vx, vy, vz, wx, wy, wz, dt):
    """log(exp(v) exp(w dt)): a rotation vector moved by the body angular velocity w for dt."""
    a = quat_exp(vx, vy, vz)
    b = quat_exp(wx * dt, wy * dt, wz * dt)
    c = quat_mul(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
    return quat_log(c[0], c[1], c[2], c[3])


@njit(cache=True)
def quat_step(x, y, z, w, wx, wy, wz, dt):
    """q (x) exp(w dt): a unit quaternion moved by the body angular velocity w for dt."""
    b = quat_exp(wx * dt, wy * dt, wz * dt)
    return quat_mul(x, y, z, w, b[0], b[1], b[2], b[3])


@njit(cache=True)
def chart_recentred(cx, cy, cz, cw, vx, vy, vz):
    """The chart offset c (x) exp(v), normalised: the chart centred on the rotation c exp(v)."""
    e = quat_exp(vx, vy, vz)
    c = quat_mul(cx, cy, cz, cw, e[0], e[1], e[2], e[3])
    n = math.sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3])
    return (c[0] / n, c[1] / n, c[2] / n, c[3] / n)


@njit(cache=True)
def chart_change(cx, cy, cz, cw, ox, oy, oz, ow, vx, vy, vz):
    """The rotation vector of c (x) exp(v) (v in the chart c) in the chart o: log(o^-1 c exp(v))."""
    e = quat_exp(vx, vy, vz)
    c = quat_mul(cx, cy, cz, cw, e[0], e[1], e[2], e[3])
    d = quat_mul(-ox, -oy, -oz, ow, c[0], c[1], c[2], c[3])
    return quat_log(d[0], d[1], d[2], d[3])


@njit(cache=True)
def se3_translation(R, wx, wy, wz, vx, vy, vz, dt):
    """R Jl(w dt) v dt: the translation of the SE(3) exponential exp([w; v] dt) in the axes
    of R (the rotation at the start of the step)."""
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
    return mul33_vec(R, lx + b * a0 + c * b0, ly + b * a1 + c * b1, lz + b * a2 + c * b2)


@njit(cache=True, inline="always")
def se3_ad(ax, ay, az, bx, by, bz, w0, w1, w2, v0, v1, v2):
    """ad_xi eta for xi = [a; b], eta = [w; v] (se(3)): [a x w; a x v + b x w]."""
    return (ay * w2 - az * w1, az * w0 - ax * w2, ax * w1 - ay * w0,
            ay * v2 - az * v1 + by * w2 - bz * w1,
            az * v0 - ax * v2 + bz * w0 - bx * w2,
            ax * v1 - ay * v0 + bx * w1 - by * w0)


@njit(cache=True)
def se3_dexp_inv(a0, a1, a2, b0, b1, b2, u0, u1, u2, u3, u4, u5):
    """dexp^-1_{-phi}(u) on SE(3) for phi = [a; b]: the series u + 1/2 ad u + 1/12 ad^2 u
    - 1/720 ad^4 u, its rotation part in closed form (exact on SO(3)), as a 6-tuple."""
    e1 = se3_ad(a0, a1, a2, b0, b1, b2, u0, u1, u2, u3, u4, u5)
    e2 = se3_ad(a0, a1, a2, b0, b1, b2, e1[0], e1[1], e1[2], e1[3], e1[4], e1[5])
    e3 = se3_ad(a0, a1, a2, b0, b1, b2, e2[0], e2[1], e2[2], e2[3], e2[4], e2[5])
    e4 = se3_ad(a0, a1, a2, b0, b1, b2, e3[0], e3[1], e3[2], e3[3], e3[4], e3[5])
    d = jr_inv_times(a0, a1, a2, u0, u1, u2)
    return (d[0], d[1], d[2],
            u3 + 0.5 * e1[3] + e2[3] / 12.0 - e4[3] / 720.0,
            u4 + 0.5 * e1[4] + e2[4] / 12.0 - e4[4] / 720.0,
            u5 + 0.5 * e1[5] + e2[5] / 12.0 - e4[5] / 720.0)


IDENTITY_ROTATION = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)  # row-major 9-tuple
