"""Unit quaternions for rotations, scalar-last ``(x, y, z, w)`` with the Hamilton product.

Conventions (see ``DESIGN.md``):

* A quaternion is stored as ``q = (x, y, z, w)`` (SciPy / Pinocchio order) and
  represents the rotation ``R = quat_to_matrix(q)``; ``q`` and ``-q`` are the same
  rotation. Functions returning a rotation quaternion return the canonical one with
  ``w >= 0``.
* Product: ``quat_to_matrix(quat_multiply(q1, q2)) == quat_to_matrix(q1) @ quat_to_matrix(q2)``.
* A rotation vector ``v`` (rad) is ``R = exp([v]x)``, angle ``|v|``, axis ``v / |v|``.

All functions are pure NumPy, take single (unbatched) inputs and return new arrays.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_array, as_quaternion, as_rotation

__all__ = [
    "quat_identity",
    "quat_multiply",
    "quat_conjugate",
    "quat_inverse",
    "quat_normalize",
    "quat_to_matrix",
    "matrix_to_quat",
    "quat_from_rotvec",
    "quat_to_rotvec",
    "quat_rotate",
]


# --------------------------------------------------------------------------------------
# unchecked cores (float64 inputs of the right shape), shared with so3.py and charts.py
# --------------------------------------------------------------------------------------

def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + bw * ax + ay * bz - az * by,
        aw * by + bw * ay + az * bx - ax * bz,
        aw * bz + bw * az + ax * by - ay * bx,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def _canonical_unit(q: np.ndarray) -> np.ndarray:
    q = q / np.linalg.norm(q)
    return -q if q[3] < 0.0 else q


def _to_matrix(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q / np.linalg.norm(q)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    return np.array([
        [1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)],
        [2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)],
        [2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)],
    ])


def _from_matrix(R: np.ndarray) -> np.ndarray:
    # Shepperd's method: pick the largest of 4w^2, 4x^2, 4y^2, 4z^2 to divide by,
    # so the result is accurate for every angle including pi.
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    k = int(np.argmax((R[0, 0], R[1, 1], R[2, 2], tr)))
    if k == 3:
        s = 2.0 * np.sqrt(max(1.0 + tr, 0.0))  # s = 4w
        q = np.array([(R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s,
                      (R[1, 0] - R[0, 1]) / s, 0.25 * s])
    elif k == 0:
        s = 2.0 * np.sqrt(max(1.0 + R[0, 0] - R[1, 1] - R[2, 2], 0.0))  # s = 4x
        q = np.array([0.25 * s, (R[0, 1] + R[1, 0]) / s,
                      (R[0, 2] + R[2, 0]) / s, (R[2, 1] - R[1, 2]) / s])
    elif k == 1:
        s = 2.0 * np.sqrt(max(1.0 - R[0, 0] + R[1, 1] - R[2, 2], 0.0))  # s = 4y
        q = np.array([(R[0, 1] + R[1, 0]) / s, 0.25 * s,
                      (R[1, 2] + R[2, 1]) / s, (R[0, 2] - R[2, 0]) / s])
    else:
        s = 2.0 * np.sqrt(max(1.0 - R[0, 0] - R[1, 1] + R[2, 2], 0.0))  # s = 4z
        q = np.array([(R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s,
                      0.25 * s, (R[1, 0] - R[0, 1]) / s])
    return _canonical_unit(q)


def _from_rotvec(v: np.ndarray) -> np.ndarray:
    theta = float(np.sqrt(v @ v))
    half = 0.5 * theta
    if half < 1e-4:
        h2 = half * half
        s = 0.5 * (1.0 - h2 / 6.0 + h2 * h2 / 120.0)  # sin(theta/2)/theta
    else:
        s = np.sin(half) / theta
    return np.array([s * v[0], s * v[1], s * v[2], np.cos(half)])


def _to_rotvec(q: np.ndarray) -> np.ndarray:
    q = _canonical_unit(q)  # w >= 0 -> angle in [0, pi]
    xyz = q[:3]
    w = q[3]
    n = float(np.sqrt(xyz @ xyz))
    if n < 1e-8:
        # angle / n = 2 atan(n / w) / n with w ~ 1
        r = n / w
        scale = 2.0 / w * (1.0 - r * r / 3.0)
    else:
        scale = 2.0 * np.arctan2(n, w) / n
    return scale * xyz


# --------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------

def quat_identity() -> np.ndarray:
    """Identity rotation quaternion ``(0, 0, 0, 1)``, shape (4,), scalar-last."""
    return np.array([0.0, 0.0, 0.0, 1.0])


def quat_multiply(q1, q2) -> np.ndarray:
    """Hamilton product ``q1 ⊗ q2`` of two quaternions (x, y, z, w).

    Parameters
    ----------
    q1, q2 : array_like, shape (4,)
        Quaternions, scalar-last. Not normalised by this function.

    Returns
    -------
    ndarray, shape (4,)
        ``q1 ⊗ q2``. For unit quaternions ``q1 = q_AB`` and ``q2 = q_BC`` (rotation
        from B to A and from C to B) the product is ``q_AC``; equivalently
        ``quat_to_matrix(q1 ⊗ q2) = quat_to_matrix(q1) @ quat_to_matrix(q2)``.
    """
    a = as_array(q1, (4,), "q1")
    b = as_array(q2, (4,), "q2")
    return _mul(a, b)


def quat_conjugate(q) -> np.ndarray:
    """Conjugate ``(-x, -y, -z, w)`` of a quaternion ``q`` of shape (4,).

    For a unit quaternion this is the inverse rotation (``q_BA`` from ``q_AB``).
    """
    q = as_array(q, (4,), "q")
    return np.array([-q[0], -q[1], -q[2], q[3]])


def quat_inverse(q) -> np.ndarray:
    """Multiplicative inverse ``conj(q) / |q|^2`` of a nonzero quaternion, shape (4,)."""
    q = as_quaternion(q, "q")
    return np.array([-q[0], -q[1], -q[2], q[3]]) / (q @ q)


def quat_normalize(q) -> np.ndarray:
    """Return ``q / |q|`` for a nonzero quaternion ``q`` of shape (4,).

    The sign is kept (no canonicalisation of ``w``). Raises ``ValueError`` for a zero,
    non-finite or wrongly shaped ``q``.
    """
    q = as_quaternion(q, "q")
    return q / np.linalg.norm(q)


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix of a quaternion.

    Parameters
    ----------
    q : array_like, shape (4,)
        Nonzero quaternion (x, y, z, w); it is normalised first. ``q_AB`` gives ``R_AB``
        (maps coordinates in frame B to frame A).

    Returns
    -------
    ndarray, shape (3, 3)
        Rotation matrix ``R``, orthonormal with det +1.
    """
    q = as_quaternion(q, "q")
    return _to_matrix(q)


def matrix_to_quat(R) -> np.ndarray:
    """Unit quaternion (x, y, z, w) of a rotation matrix, canonical with ``w >= 0``.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Rotation matrix (orthonormal, det +1, checked to 1e-6).

    Returns
    -------
    ndarray, shape (4,)
        Unit quaternion ``q`` with ``quat_to_matrix(q) == R`` and ``q[3] >= 0``
        (Shepperd's method: accurate for all angles, including pi).
    """
    R = as_rotation(R, "R")
    return _from_matrix(R)


def quat_from_rotvec(v) -> np.ndarray:
    """Unit quaternion of a rotation vector.

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad): axis ``v/|v|``, angle ``|v|``; ``R = exp([v]x)``.

    Returns
    -------
    ndarray, shape (4,)
        ``(sin(|v|/2) v/|v|, cos(|v|/2))``, exact near ``v = 0`` (Taylor series).
        ``w`` is negative for ``|v| > pi`` (the quaternion follows ``v`` continuously).
    """
    v = as_array(v, (3,), "v")
    return _from_rotvec(v)


def quat_to_rotvec(q) -> np.ndarray:
    """Rotation vector (rad) of a quaternion, angle in ``[0, pi]``.

    Parameters
    ----------
    q : array_like, shape (4,)
        Nonzero quaternion (x, y, z, w); normalised and canonicalised to ``w >= 0``.

    Returns
    -------
    ndarray, shape (3,)
        Rotation vector ``v`` with ``quat_to_matrix(q) == exp([v]x)`` and ``|v| <= pi``.
    """
    q = as_quaternion(q, "q")
    return _to_rotvec(q)


def quat_rotate(q, p) -> np.ndarray:
    """Rotate a 3-vector: ``quat_to_matrix(q) @ p``.

    Parameters
    ----------
    q : array_like, shape (4,)
        Nonzero quaternion (x, y, z, w), normalised first; ``q_AB``.
    p : array_like, shape (3,)
        Vector in frame B coordinates.

    Returns
    -------
    ndarray, shape (3,)
        The same vector in frame A coordinates.
    """
    q = as_quaternion(q, "q")
    p = as_array(p, (3,), "p")
    return _to_matrix(q) @ p
