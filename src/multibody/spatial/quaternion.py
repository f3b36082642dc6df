"""Unit quaternions for rotations, scalar-last ``(x, y, z, w)`` with the Hamilton product.

Conventions (see ``DESIGN.md``):

* A quaternion is stored as ``q = (x, y, z, w)`` (SciPy / Pinocchio order) and
  represents the rotation ``R = quat_to_matrix(q)``; ``q`` and ``-q`` are the same
  rotation. Functions returning a rotation quaternion return the canonical one with
  ``w >= 0``.
* Product: ``quat_to_matrix(quat_multiply(q1, q2)) == quat_to_matrix(q1) @ quat_to_matrix(q2)``.
* A rotation vector ``v`` (rad) is ``R = exp([v]x)``, angle ``|v|``, axis ``v / |v|``.

All functions are pure NumPy, take single (unbatched) inputs and return new arrays;
they validate their inputs and call the unchecked :mod:`multibody.spatial.fast`.
"""

from __future__ import annotations

import numpy as np

from . import _fast_rot as F
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
    return F.quat_multiply(as_array(q1, (4,), "q1"), as_array(q2, (4,), "q2"))


def quat_conjugate(q) -> np.ndarray:
    """Conjugate ``(-x, -y, -z, w)`` of a quaternion ``q`` of shape (4,).

    For a unit quaternion this is the inverse rotation (``q_BA`` from ``q_AB``).
    """
    return F.quat_conjugate(as_array(q, (4,), "q"))


def quat_inverse(q) -> np.ndarray:
    """Multiplicative inverse ``conj(q) / |q|^2`` of a nonzero quaternion, shape (4,)."""
    return F.quat_inverse(as_quaternion(q, "q"))


def quat_normalize(q) -> np.ndarray:
    """Return ``q / |q|`` for a nonzero quaternion ``q`` of shape (4,).

    The sign is kept (no canonicalisation of ``w``). Raises ``ValueError`` for a zero,
    non-finite or wrongly shaped ``q``.
    """
    return F.quat_normalize(as_quaternion(q, "q"))


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
    return F.quat_to_matrix(as_quaternion(q, "q"))


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
    return F.matrix_to_quat(as_rotation(R, "R"))


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
    return F.quat_from_rotvec(as_array(v, (3,), "v"))


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
    return F.quat_to_rotvec(as_quaternion(q, "q"))


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
    return F.quat_rotate(as_quaternion(q, "q"), as_array(p, (3,), "p"))
