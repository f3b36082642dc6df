"""Unchecked SO(3) and quaternion formulas: the one implementation of the spatial layer.

Private module; its public face is :mod:`multibody.spatial.fast`, and the checked
functions of :mod:`multibody.spatial` validate their inputs and call these. Inputs
must be float64 NumPy arrays of the stated shapes (``(3,)`` rotation vectors, ``(4,)``
quaternions (x, y, z, w), ``(3, 3)`` rotation matrices); nothing is checked.

Scalars are unpacked with ``ndarray.tolist()`` and combined with :mod:`math`: for
3-vectors this is several times faster than NumPy element arithmetic.

Small-angle series (the only place they live): with ``t = |v|``

==========  ==========================================  ========================
coefficient value                                       series below
==========  ==========================================  ========================
``a``       ``sin t / t``                               ``SERIES_ANGLE``
``b``       ``(1 - cos t) / t^2``                       ``SERIES_ANGLE``
``c``       ``(t - sin t) / t^3``                       ``CANCEL_ANGLE``
``d``       ``1/t^2 - (1 + cos t) / (2 t sin t)``       ``CANCEL_ANGLE``
==========  ==========================================  ========================

``a`` and ``b`` have no cancellation, only the 0/0 at ``t = 0``; ``c`` and ``d``
cancel catastrophically near 0, so they switch later and keep 8 series terms.
"""

from __future__ import annotations

import math

import numpy as np

SERIES_ANGLE = 0.1
CANCEL_ANGLE = 0.5

# Taylor coefficients in powers of t^2.
_C_SERIES = (1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800, -1 / 6227020800,
             1 / 1307674368000, -1 / 355687428096000)
_D_SERIES = (1 / 12, 1 / 720, 1 / 30240, 1 / 1209600, 1 / 47900160, 691 / 1307674368000,
             1 / 74724249600, 3617 / 10670622842880000)


# ------------------------------------------------------------------ coefficients

def series(t2: float, coeffs) -> float:
    """``sum_k coeffs[k] * t2**k`` (Horner)."""
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * t2 + c
    return acc


def coef_a(t: float) -> float:
    """``sin t / t`` for ``t >= 0``."""
    if t < SERIES_ANGLE:
        t2 = t * t
        return 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0)))
    return math.sin(t) / t


def coef_b(t: float) -> float:
    """``(1 - cos t) / t^2`` for ``t >= 0``."""
    t2 = t * t
    if t < SERIES_ANGLE:
        return 0.5 - t2 / 24.0 * (1.0 - t2 / 30.0 * (1.0 - t2 / 56.0 * (1.0 - t2 / 90.0)))
    s = math.sin(0.5 * t)
    return 2.0 * s * s / t2


def coef_c(t: float) -> float:
    """``(t - sin t) / t^3`` for ``t >= 0``."""
    t2 = t * t
    if t < CANCEL_ANGLE:
        return series(t2, _C_SERIES)
    return (t - math.sin(t)) / (t2 * t)


def coef_d(t: float) -> float:
    """``1/t^2 - (1 + cos t)/(2 t sin t)``, the ``[v]x^2`` coefficient of ``Jl^{-1}``."""
    t2 = t * t
    if t < CANCEL_ANGLE:
        return series(t2, _D_SERIES)
    # (1 + cos t)/sin t = cot(t/2): no cancellation in 1 + cos t near pi
    h = 0.5 * t
    return (1.0 - h / math.tan(h)) / t2


# ------------------------------------------------------------------------ SO(3)

def _i_plus(x: float, y: float, z: float, a: float, b: float) -> np.ndarray:
    """``I + a K + b K^2`` with ``K = skew((x, y, z))`` (``K^2 = w w^T - |w|^2 I``)."""
    xy, xz, yz = b * x * y, b * x * z, b * y * z
    return np.array([
        [1.0 - b * (y * y + z * z), xy - a * z, xz + a * y],
        [xy + a * z, 1.0 - b * (x * x + z * z), yz - a * x],
        [xz - a * y, yz + a * x, 1.0 - b * (x * x + y * y)],
    ])


def skew(v: np.ndarray) -> np.ndarray:
    """Cross-product matrix: ``skew(v) @ b == cross(v, b)``. (3,) -> (3, 3)."""
    x, y, z = v.tolist()
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def unskew(S: np.ndarray) -> np.ndarray:
    """Vector of the skew part of ``S``: inverse of :func:`skew`. (3, 3) -> (3,)."""
    return 0.5 * np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]])


def so3_exp(v: np.ndarray) -> np.ndarray:
    """Rotation matrix ``exp([v]x)`` of a rotation vector (rad). (3,) -> (3, 3)."""
    x, y, z = v.tolist()
    t = math.sqrt(x * x + y * y + z * z)
    return _i_plus(x, y, z, coef_a(t), coef_b(t))


def so3_left_jacobian(v: np.ndarray) -> np.ndarray:
    """``Jl(v)``: ``exp(v + dv) ~= exp(Jl(v) dv) exp(v)``. (3,) -> (3, 3)."""
    x, y, z = v.tolist()
    t = math.sqrt(x * x + y * y + z * z)
    return _i_plus(x, y, z, coef_b(t), coef_c(t))


def so3_right_jacobian(v: np.ndarray) -> np.ndarray:
    """``Jr(v) = Jl(-v)``: ``exp(v + dv) ~= exp(v) exp(Jr(v) dv)``. (3,) -> (3, 3)."""
    x, y, z = v.tolist()
    t = math.sqrt(x * x + y * y + z * z)
    return _i_plus(x, y, z, -coef_b(t), coef_c(t))


def so3_left_jacobian_inv(v: np.ndarray) -> np.ndarray:
    """``Jl(v)^{-1}`` (singular at ``|v| = 2 pi k``, ``k >= 1``). (3,) -> (3, 3)."""
    x, y, z = v.tolist()
    t = math.sqrt(x * x + y * y + z * z)
    return _i_plus(x, y, z, -0.5, coef_d(t))


def so3_right_jacobian_inv(v: np.ndarray) -> np.ndarray:
    """``Jr(v)^{-1} = Jl(-v)^{-1}``. (3,) -> (3, 3)."""
    x, y, z = v.tolist()
    t = math.sqrt(x * x + y * y + z * z)
    return _i_plus(x, y, z, 0.5, coef_d(t))


def so3_log(R: np.ndarray) -> np.ndarray:
    """Rotation vector, ``|v|`` in ``[0, pi]``, of a rotation matrix. (3, 3) -> (3,)."""
    return quat_to_rotvec(matrix_to_quat(R))


def so3_integrate(R: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Body-frame increment ``R exp([w]x)``. (3, 3), (3,) -> (3, 3)."""
    return R @ so3_exp(w)


def so3_difference(R0: np.ndarray, R1: np.ndarray) -> np.ndarray:
    """``log(R0^T R1)``, inverse of :func:`so3_integrate`. (3, 3), (3, 3) -> (3,)."""
    return so3_log(R0.T @ R1)


# ------------------------------------------------------------------ quaternions

def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a ⊗ b`` of (x, y, z, w) quaternions. (4,), (4,) -> (4,)."""
    ax, ay, az, aw = a.tolist()
    bx, by, bz, bw = b.tolist()
    return np.array([
        aw * bx + bw * ax + ay * bz - az * by,
        aw * by + bw * ay + az * bx - ax * bz,
        aw * bz + bw * az + ax * by - ay * bx,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    """``(-x, -y, -z, w)``: the inverse rotation of a unit quaternion. (4,) -> (4,)."""
    x, y, z, w = q.tolist()
    return np.array([-x, -y, -z, w])


def quat_inverse(q: np.ndarray) -> np.ndarray:
    """``conj(q) / |q|^2`` of a nonzero quaternion. (4,) -> (4,)."""
    return quat_conjugate(q) / float(q @ q)


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """``q / |q|``, sign kept, for a nonzero quaternion. (4,) -> (4,)."""
    return q / math.sqrt(float(q @ q))


def quat_canonical(q: np.ndarray) -> np.ndarray:
    """Unit quaternion of a nonzero ``q`` with ``w >= 0`` (same rotation). (4,) -> (4,)."""
    n = math.sqrt(float(q @ q))
    return q / (-n if q[3] < 0.0 else n)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix of a nonzero quaternion (normalised first). (4,) -> (3, 3)."""
    x, y, z, w = q.tolist()
    s = 2.0 / (x * x + y * y + z * z + w * w)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    return np.array([
        [1.0 - (yy + zz), xy - wz, xz + wy],
        [xy + wz, 1.0 - (xx + zz), yz - wx],
        [xz - wy, yz + wx, 1.0 - (xx + yy)],
    ])


def quat_rotate(q: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``quat_to_matrix(q) @ p``. (4,), (3,) -> (3,)."""
    return quat_to_matrix(q) @ p


def matrix_to_quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternion, ``w >= 0``, of a rotation matrix. (3, 3) -> (4,).

    Shepperd's method: divide by the largest of ``4w^2, 4x^2, 4y^2, 4z^2``, so the
    result is accurate for every angle including pi.
    """
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = R.tolist()
    tr = r00 + r11 + r22
    if tr >= r00 and tr >= r11 and tr >= r22:
        s = 2.0 * math.sqrt(max(1.0 + tr, 0.0))  # 4w
        q = ((r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s, 0.25 * s)
    elif r00 >= r11 and r00 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r00 - r11 - r22, 0.0))  # 4x
        q = (0.25 * s, (r01 + r10) / s, (r02 + r20) / s, (r21 - r12) / s)
    elif r11 >= r22:
        s = 2.0 * math.sqrt(max(1.0 - r00 + r11 - r22, 0.0))  # 4y
        q = ((r01 + r10) / s, 0.25 * s, (r12 + r21) / s, (r02 - r20) / s)
    else:
        s = 2.0 * math.sqrt(max(1.0 - r00 - r11 + r22, 0.0))  # 4z
        q = ((r02 + r20) / s, (r12 + r21) / s, 0.25 * s, (r10 - r01) / s)
    return quat_canonical(np.array(q))


def quat_from_rotvec(v: np.ndarray) -> np.ndarray:
    """``(sin(t/2) v/t, cos(t/2))``, ``t = |v|`` (``w < 0`` for ``t > pi``). (3,) -> (4,)."""
    x, y, z = v.tolist()
    half = 0.5 * math.sqrt(x * x + y * y + z * z)
    s = 0.5 * coef_a(half)  # sin(t/2) / t
    return np.array([s * x, s * y, s * z, math.cos(half)])


def quat_to_rotvec(q: np.ndarray) -> np.ndarray:
    """Rotation vector, angle in ``[0, pi]``, of a nonzero quaternion. (4,) -> (3,).

    Scale-invariant in ``q`` (no normalisation needed): ``v = 2 atan2(n, w) xyz / n``
    with ``n = |xyz|``, ``w >= 0`` after flipping the sign.
    """
    x, y, z, w = q.tolist()
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-8 * w:
        # 2 atan(n / w) / n = (2 / w) (1 - r^2 / 3 + ...), r = n / w < 1e-8
        r = n / w
        k = 2.0 / w * (1.0 - r * r / 3.0)
    else:
        k = 2.0 * math.atan2(n, w) / n
    return np.array([k * x, k * y, k * z])
