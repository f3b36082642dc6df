"""Maps of the rotation and rigid-motion groups the joint kinds share: SO(3)'s right
Jacobian, unit quaternions, SE(3)'s exponential translation and adjoint.

One home for each formula and small-angle cut-off; the kind modules (``spherical``,
``free``, ``spherical_quat``, ``free_quat``) compose them. They take and return scalars
(no arrays, so no reference counts around their calls).
"""
import math

from numba import njit


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


@njit(cache=True, inline="always")
def se3_translation_step(R, wx, wy, wz, vx, vy, vz, dt, q, i):
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


@njit(cache=True, inline="always")
def se3_ad(ax, ay, az, bx, by, bz, w0, w1, w2, v0, v1, v2):
    """ad_xi eta for xi = [a; b], eta = [w; v] (se(3)): [a x w; a x v + b x w]."""
    return (ay * w2 - az * w1, az * w0 - ax * w2, ax * w1 - ay * w0,
            ay * v2 - az * v1 + by * w2 - bz * w1,
            az * v0 - ax * v2 + bz * w0 - bx * w2,
            ax * v1 - ay * v0 + bx * w1 - by * w0)


@njit(cache=True, inline="always")
def se3_dexp_inv(phi, u, out, k):
    """out[k:k+6] = dexp^-1_{-phi}(u) on SE(3) for phi = phi[k:k+6]: the series
    u + 1/2 ad u + 1/12 ad^2 u - 1/720 ad^4 u, its rotation part then in closed form
    (exact on SO(3))."""
    a0, a1, a2, b0, b1, b2 = phi[k], phi[k + 1], phi[k + 2], phi[k + 3], phi[k + 4], phi[k + 5]
    e1 = se3_ad(a0, a1, a2, b0, b1, b2, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5])
    e2 = se3_ad(a0, a1, a2, b0, b1, b2, e1[0], e1[1], e1[2], e1[3], e1[4], e1[5])
    e3 = se3_ad(a0, a1, a2, b0, b1, b2, e2[0], e2[1], e2[2], e2[3], e2[4], e2[5])
    e4 = se3_ad(a0, a1, a2, b0, b1, b2, e3[0], e3[1], e3[2], e3[3], e3[4], e3[5])
    for r in range(6):
        out[k + r] = u[k + r] + 0.5 * e1[r] + e2[r] / 12.0 - e4[r] / 720.0
    d = jr_inv_times(a0, a1, a2, u[k], u[k + 1], u[k + 2])
    out[k] = d[0]
    out[k + 1] = d[1]
    out[k + 2] = d[2]


@njit(cache=True, inline="always")
def so3_dexp_inv(phi, u, out, k):
    """out[k:k+3] = dexp^-1_{-phi}(u) on SO(3): Jr(phi)^-1 u for phi = phi[k:k+3]."""
    d = jr_inv_times(phi[k], phi[k + 1], phi[k + 2], u[k], u[k + 1], u[k + 2])
    out[k] = d[0]
    out[k + 1] = d[1]
    out[k + 2] = d[2]


@njit(cache=True, inline="always")
def rotate_into(R, u, k, out, i):
    """out[i:i+3] = R u[k:k+3] (R a 9-tuple, row-major): p_dot = R v of the free kinds."""
    for r in range(3):
        out[i + r] = R[3 * r] * u[k] + R[3 * r + 1] * u[k + 1] + R[3 * r + 2] * u[k + 2]


IDENTITY_ROTATION = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)  # row-major 9-tuple
