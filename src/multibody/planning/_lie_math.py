"""SO(2), SO(3), SE(2) and SE(3) helpers used by the planning layer (private).

The functions mirror :mod:`multibody.spatial` (same names, same conventions; the
planning tests check that they agree to rounding) without its input validation:
the planning layer validates once at its public boundary and then calls these in
inner loops, where the spatial layer's checks cost ~10x the arithmetic. SO(2) and
SE(2), which the spatial layer does not cover, live only here.

Conventions (project-wide):

- quaternions are scalar-last ``(x, y, z, w)``;
- tangent vectors of SE(3) are ``[omega; v]`` (angular first), body frame:
  ``exp(xi + d) ~= exp(xi) exp(Jr(xi) d)`` defines the right Jacobian ``Jr``;
- SE(2) tangent vectors are ``[omega; vx; vy]`` (angular first), body frame.
"""

from __future__ import annotations

import math

import numpy as np


__all__ = [
    "skew", "unskew", "so3_exp", "so3_log", "so3_left_jacobian",
    "so3_left_jacobian_inv", "so3_right_jacobian", "so3_right_jacobian_inv",
    "quat_multiply", "quat_conjugate", "quat_normalize", "quat_to_matrix",
    "matrix_to_quat", "quat_from_rotvec", "quat_to_rotvec", "se3_exp", "se3_log",
    "se3_left_jacobian", "se3_right_jacobian", "se3_left_jacobian_inv",
    "se3_right_jacobian_inv", "se3_adjoint", "transform_inverse", "so2_angle", "se2_exp", "se2_log",
    "se2_right_jacobian", "se2_right_jacobian_inv", "se2_adjoint",
]

# ---------------------------------------------------------------- coefficients
# a = sin t / t, b = (1 - cos t) / t^2, c = (t - sin t) / t^3


def _coef_a(t: float) -> float:
    if t < 1e-3:
        t2 = t * t
        return 1.0 - t2 / 6.0 + t2 * t2 / 120.0
    return math.sin(t) / t


def _coef_b(t: float) -> float:
    if t < 1e-2:
        t2 = t * t
        return 0.5 - t2 / 24.0 + t2 * t2 / 720.0
    return (1.0 - math.cos(t)) / (t * t)


def _coef_jinv(t: float) -> float:
    """1/t^2 - cot(t/2) / (2 t): the K^2 coefficient of the inverse SO(3) Jacobians."""
    if t < 1e-2:
        t2 = t * t
        return 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
    return 1.0 / (t * t) - 1.0 / (2.0 * t * math.tan(0.5 * t))


def _coef_c(t: float) -> float:
    if t < 5e-2:
        t2 = t * t
        return 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0
    return (t - math.sin(t)) / (t * t * t)




# ----------------------------------------------------------------------- SO(3)

def skew(w):
    """Cross-product matrix of a 3-vector: ``skew(a) @ b == cross(a, b)``. (3,) -> (3, 3)."""
    x, y, z = float(w[0]), float(w[1]), float(w[2])
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def unskew(m):
    """Inverse of :func:`skew` (antisymmetric part). (3, 3) -> (3,)."""
    return 0.5 * np.array([m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1]])


def _jac_coefs(w):
    x, y, z = float(w[0]), float(w[1]), float(w[2])
    t = math.sqrt(x * x + y * y + z * z)
    return x, y, z, t


def _i_plus(x, y, z, t, a, b):
    """I + a K + b K^2 with K = skew((x, y, z)), |(x, y, z)| = t."""
    t2 = t * t
    return np.array([
        [1.0 + b * (x * x - t2), -a * z + b * x * y, a * y + b * x * z],
        [a * z + b * x * y, 1.0 + b * (y * y - t2), -a * x + b * y * z],
        [-a * y + b * x * z, a * x + b * y * z, 1.0 + b * (z * z - t2)],
    ])


def so3_exp(w):
    """Rotation matrix of a rotation vector (Rodrigues). (3,) -> (3, 3)."""
    x, y, z, t = _jac_coefs(w)
    return _i_plus(x, y, z, t, _coef_a(t), _coef_b(t))


def so3_log(r):
    """Rotation vector (norm in [0, pi]) of a rotation matrix. (3, 3) -> (3,)."""
    return quat_to_rotvec(matrix_to_quat(r))


def so3_left_jacobian(w):
    """Left Jacobian: ``exp(w + d) ~= exp(Jl(w) d) exp(w)``. (3,) -> (3, 3)."""
    x, y, z, t = _jac_coefs(w)
    return _i_plus(x, y, z, t, _coef_b(t), _coef_c(t))


def so3_right_jacobian(w):
    """Right Jacobian: ``exp(w + d) ~= exp(w) exp(Jr(w) d)``. (3,) -> (3, 3)."""
    x, y, z, t = _jac_coefs(w)
    return _i_plus(x, y, z, t, -_coef_b(t), _coef_c(t))


def so3_left_jacobian_inv(w):
    """Inverse of :func:`so3_left_jacobian` (``|w| < 2 pi``). (3,) -> (3, 3)."""
    x, y, z, t = _jac_coefs(w)
    return _i_plus(x, y, z, t, -0.5, _coef_jinv(t))


def so3_right_jacobian_inv(w):
    """Inverse of :func:`so3_right_jacobian` (``|w| < 2 pi``). (3,) -> (3, 3)."""
    x, y, z, t = _jac_coefs(w)
    return _i_plus(x, y, z, t, 0.5, _coef_jinv(t))


# ------------------------------------------------------------------ quaternions

def quat_multiply(a, b):
    """Hamilton product ``a * b`` of (x, y, z, w) quaternions. (4,), (4,) -> (4,)."""
    ax, ay, az, aw = float(a[0]), float(a[1]), float(a[2]), float(a[3])
    bx, by, bz, bw = float(b[0]), float(b[1]), float(b[2]), float(b[3])
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def quat_conjugate(q):
    """Conjugate (inverse of a unit quaternion). (4,) -> (4,)."""
    return np.array([-q[0], -q[1], -q[2], q[3]], dtype=float)


def quat_normalize(q):
    """Unit quaternion with the same direction (sign kept). (4,) -> (4,)."""
    q = np.asarray(q, dtype=float)
    n = math.sqrt(float(q @ q))
    if not n > 0.0:
        raise ValueError("quaternion must be non-zero and finite")
    return q / n


def quat_to_matrix(q):
    """Rotation matrix of a quaternion (x, y, z, w), normalized first. (4,) -> (3, 3)."""
    x, y, z, w = quat_normalize(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quat(r):
    """Unit quaternion (x, y, z, w), ``w >= 0``, of a rotation matrix (Shepperd). (3, 3) -> (4,)."""
    r00, r01, r02 = float(r[0][0]), float(r[0][1]), float(r[0][2])
    r10, r11, r12 = float(r[1][0]), float(r[1][1]), float(r[1][2])
    r20, r21, r22 = float(r[2][0]), float(r[2][1]), float(r[2][2])
    tr = r00 + r11 + r22
    if tr > 0.0:
        s = 2.0 * math.sqrt(1.0 + tr)
        x, y, z, w = (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s, 0.25 * s
    elif r00 >= r11 and r00 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r00 - r11 - r22, 1e-300))
        x, y, z, w = 0.25 * s, (r01 + r10) / s, (r02 + r20) / s, (r21 - r12) / s
    elif r11 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r11 - r00 - r22, 1e-300))
        x, y, z, w = (r01 + r10) / s, 0.25 * s, (r12 + r21) / s, (r02 - r20) / s
    else:
        s = 2.0 * math.sqrt(max(1.0 + r22 - r00 - r11, 1e-300))
        x, y, z, w = (r02 + r20) / s, (r12 + r21) / s, 0.25 * s, (r10 - r01) / s
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if w < 0.0:
        n = -n
    return np.array([x / n, y / n, z / n, w / n])


def quat_from_rotvec(w):
    """Unit quaternion (x, y, z, w) of a rotation vector. (3,) -> (4,)."""
    x, y, z, t = _jac_coefs(w)
    h = 0.5 * t
    s = 0.5 * _coef_a(h)  # sin(t/2) / t
    return np.array([s * x, s * y, s * z, math.cos(h)])


def quat_to_rotvec(q):
    """Rotation vector (norm in [0, pi]) of a quaternion (x, y, z, w). (4,) -> (3,)."""
    x, y, z, w = (float(c) for c in q)
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-8 * max(w, 1e-300):
        # angle = 2 atan2(n, w) ~= 2 n / w (1 - n^2 / (3 w^2))
        k = (2.0 / w) * (1.0 - n * n / (3.0 * w * w)) if w > 0 else 0.0
    else:
        k = 2.0 * math.atan2(n, w) / n
    return np.array([k * x, k * y, k * z])


# ----------------------------------------------------------------------- SE(3)

def _se3_q_block(w, v):
    """Lower-left block Q(w, v) of the SE(3) left Jacobian, angular first (Barfoot)."""
    t = math.sqrt(float(w @ w))
    wx = skew(w)
    vx = skew(v)
    wv = wx @ vx
    vw = vx @ wx
    wvw = wv @ wx
    if t < 1e-1:
        t2 = t * t
        d = 1.0 / 24.0 - t2 / 720.0 + t2 * t2 / 40320.0 - t2 * t2 * t2 / 3628800.0
        e = 1.0 / 120.0 - t2 / 2520.0 + t2 * t2 / 120960.0 - t2 * t2 * t2 / 9979200.0
    else:
        d = (0.5 * t * t + math.cos(t) - 1.0) / t ** 4
        e = (2.0 * t - 3.0 * math.sin(t) + t * math.cos(t)) / (2.0 * t ** 5)
    return (0.5 * vx + _coef_c(t) * (wv + vw + wvw) + d * (wx @ wv + vw @ wx - 3.0 * wvw)
            + e * (wvw @ wx + wx @ wvw))


def se3_exp(xi):
    """Homogeneous transform ``exp(xi)`` of a twist ``xi = [omega; v]``. (6,) -> (4, 4)."""
    x, y, z, t = _jac_coefs(xi)
    out = np.eye(4)
    out[:3, :3] = _i_plus(x, y, z, t, _coef_a(t), _coef_b(t))
    out[:3, 3] = _i_plus(x, y, z, t, _coef_b(t), _coef_c(t)) @ np.asarray(xi[3:6], dtype=float)
    return out


def se3_log(t):
    """Twist ``[omega; v]`` with ``se3_exp(xi) == T``, ``|omega| <= pi``. (4, 4) -> (6,)."""
    t = np.asarray(t, dtype=float)
    w = so3_log(t[:3, :3])
    return np.concatenate([w, so3_left_jacobian_inv(w) @ t[:3, 3]])


def se3_left_jacobian(xi):
    """SE(3) left Jacobian, angular first: ``exp(xi + d) ~= exp(Jl d) exp(xi)``. (6,) -> (6, 6)."""
    xi = np.asarray(xi, dtype=float)
    jl = so3_left_jacobian(xi[:3])
    out = np.zeros((6, 6))
    out[:3, :3] = jl
    out[3:, 3:] = jl
    out[3:, :3] = _se3_q_block(xi[:3], xi[3:])
    return out


def se3_right_jacobian(xi):
    """SE(3) right Jacobian: ``exp(xi + d) ~= exp(xi) exp(Jr d)``. (6,) -> (6, 6)."""
    return se3_left_jacobian(-np.asarray(xi, dtype=float))


def se3_left_jacobian_inv(xi):
    """Inverse of :func:`se3_left_jacobian`. (6,) -> (6, 6)."""
    xi = np.asarray(xi, dtype=float)
    jinv = so3_left_jacobian_inv(xi[:3])
    out = np.zeros((6, 6))
    out[:3, :3] = jinv
    out[3:, 3:] = jinv
    out[3:, :3] = -jinv @ _se3_q_block(xi[:3], xi[3:]) @ jinv
    return out


def se3_right_jacobian_inv(xi):
    """Inverse of :func:`se3_right_jacobian`. (6,) -> (6, 6)."""
    return se3_left_jacobian_inv(-np.asarray(xi, dtype=float))


def se3_adjoint(t):
    """Adjoint ``Ad(T_AB)`` on twists ``[omega; v]`` (B to A). (4, 4) -> (6, 6)."""
    t = np.asarray(t, dtype=float)
    r = t[:3, :3]
    out = np.zeros((6, 6))
    out[:3, :3] = r
    out[3:, 3:] = r
    out[3:, :3] = skew(t[:3, 3]) @ r
    return out


def transform_inverse(t):
    """Inverse of a rigid transform. (4, 4) -> (4, 4)."""
    t = np.asarray(t, dtype=float)
    out = np.eye(4)
    rt = t[:3, :3].T
    out[:3, :3] = rt
    out[:3, 3] = -rt @ t[:3, 3]
    return out


# ------------------------------------------------------------------ SO(2), SE(2)

def so2_angle(c, s):
    """Angle of the unit complex number ``c + i s`` in (-pi, pi]."""
    return math.atan2(s, c)


def _se2_v(t):
    """V(t) with p = V(t) [vx, vy] in the SE(2) exponential."""
    a = _coef_a(abs(t))
    tb = t * _coef_b(abs(t))  # (1 - cos t) / t
    return np.array([[a, -tb], [tb, a]])


def se2_exp(xi):
    """``exp`` of an SE(2) twist ``[omega, vx, vy]`` -> (angle, position (2,))."""
    t = float(xi[0])
    return t, _se2_v(t) @ np.asarray(xi[1:3], dtype=float)


def se2_log(angle, p):
    """Twist ``[omega, vx, vy]`` of the SE(2) element (angle in (-pi, pi], position p)."""
    v = _se2_v(angle)
    det = v[0, 0] ** 2 + v[1, 0] ** 2
    vinv = np.array([[v[0, 0], v[1, 0]], [-v[1, 0], v[0, 0]]]) / det
    return np.concatenate([[angle], vinv @ np.asarray(p, dtype=float)])


def se2_right_jacobian(xi):
    """SE(2) right Jacobian, angular first: ``exp(xi + d) ~= exp(xi) exp(Jr d)``. (3,) -> (3, 3)."""
    t = float(xi[0])
    r1, r2 = float(xi[1]), float(xi[2])
    at = abs(t)
    a = _coef_a(at)
    tb = t * _coef_b(at)
    tc = t * _coef_c(at)  # (t - sin t) / t^2
    b = _coef_b(at)
    out = np.zeros((3, 3))
    out[0, 0] = 1.0
    out[1, 0] = r1 * tc - r2 * b
    out[2, 0] = r1 * b + r2 * tc
    out[1, 1] = a
    out[1, 2] = tb
    out[2, 1] = -tb
    out[2, 2] = a
    return out


def se2_right_jacobian_inv(xi):
    """Inverse of :func:`se2_right_jacobian`. (3,) -> (3, 3)."""
    j = se2_right_jacobian(xi)
    a = j[1:, 1:]
    det = a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]
    ainv = np.array([[a[1, 1], -a[0, 1]], [-a[1, 0], a[0, 0]]]) / det
    out = np.zeros((3, 3))
    out[0, 0] = 1.0
    out[1:, 1:] = ainv
    out[1:, 0] = -ainv @ j[1:, 0]
    return out


def se2_adjoint(angle, p):
    """Adjoint of an SE(2) element on twists ``[omega, vx, vy]``. -> (3, 3)."""
    c, s = math.cos(angle), math.sin(angle)
    out = np.zeros((3, 3))
    out[0, 0] = 1.0
    out[1:, 1:] = [[c, -s], [s, c]]
    out[1, 0] = p[1]
    out[2, 0] = -p[0]
    return out
