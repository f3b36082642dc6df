"""Input validation shared by the :mod:`multibody.spatial` functions (private).

Every public function of the spatial layer converts its array arguments with
:func:`as_array`, which returns a float64 array and raises ``ValueError`` naming the
argument and the expected shape when the input has the wrong shape or is not finite.
"""

from __future__ import annotations

import numpy as np

# Tolerance on ||R^T R - I||_max and on the last row of a homogeneous transform.
ROTATION_TOL = 1e-6


def as_array(x, shape: tuple, name: str) -> np.ndarray:
    """Return ``x`` as a float64 array of ``shape``; raise ValueError otherwise."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must be a real array of shape {shape}; could not convert: {exc}"
        ) from None
    if a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must contain only finite values (no NaN/inf), shape {shape}")
    return a


def as_scalar(x, name: str) -> float:
    """Return ``x`` as a finite Python float; raise ValueError otherwise."""
    a = as_array(x, (), name)
    return float(a)


def as_rotation(x, name: str, tol: float = ROTATION_TOL) -> np.ndarray:
    """Return ``x`` as a (3, 3) float64 rotation matrix (orthonormal, det +1 within tol)."""
    R = as_array(x, (3, 3), name)
    err = np.max(np.abs(R.T @ R - np.eye(3)))
    if err > tol or np.linalg.det(R) <= 0.0:
        raise ValueError(
            f"{name} must be a (3, 3) rotation matrix (orthonormal with det +1, "
            f"tolerance {tol:g}); max |R^T R - I| = {err:.3g}, det = {np.linalg.det(R):.6g}"
        )
    return R


def as_transform(x, name: str, tol: float = ROTATION_TOL) -> np.ndarray:
    """Return ``x`` as a (4, 4) float64 homogeneous rigid transform; raise ValueError otherwise."""
    T = as_array(x, (4, 4), name)
    if np.max(np.abs(T[3] - (0.0, 0.0, 0.0, 1.0))) > tol:
        raise ValueError(f"{name} must be a (4, 4) homogeneous transform with last row [0, 0, 0, 1]")
    as_rotation(T[:3, :3], f"{name}[:3, :3]", tol)
    return T


def as_quaternion(x, name: str) -> np.ndarray:
    """Return ``x`` as a (4,) float64 quaternion (x, y, z, w) with nonzero norm."""
    q = as_array(x, (4,), name)
    if not np.any(q):
        raise ValueError(f"{name} must be a nonzero quaternion (x, y, z, w) of shape (4,)")
    return q
