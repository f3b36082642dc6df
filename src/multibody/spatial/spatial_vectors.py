"""Spatial (6-d) motion and force vectors: change of frame and cross products.

Conventions (see ``DESIGN.md``):

* Motion vector (spatial velocity, twist, acceleration): ``m = [ω; v]`` with ``v`` the
  velocity of the origin of the frame the vector is expressed about (rad/s; m/s).
* Force vector (wrench, momentum): ``f = [n; f]``, moment ``n`` about that origin
  (N m; N).
* ``T_AB`` (4, 4): ``p_A = R_AB p_B + p_AB``.
* Motion transform ``X_AB = motion_transform(T_AB)`` maps a motion vector given in B
  (about B's origin) to A (about A's origin); ``force_transform(T_AB) = X_AB^{-T}`` does
  the same for force vectors, so the power ``f·m`` is frame independent.
  ``motion_transform(T_AB @ T_BC) == X_AB @ X_BC``.
"""

from __future__ import annotations

import numpy as np

from . import _fast_rigid as F
from ._checks import as_array, as_transform

__all__ = [
    "motion_transform",
    "motion_transform_inverse",
    "force_transform",
    "force_transform_inverse",
    "spatial_cross_motion",
    "spatial_cross_force",
    "crm",
    "crf",
]


def motion_transform(T_AB) -> np.ndarray:
    """Motion-vector transform ``X_AB`` (the adjoint ``Ad(T_AB)``), B to A.

    Parameters
    ----------
    T_AB : array_like, shape (4, 4)
        Rigid transform, ``p_A = R p_B + p``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[R, 0], [[p]x R, R]]``: ``m_A = X_AB m_B`` for a motion vector ``[ω; v]``
        expressed in B coordinates about B's origin, giving A coordinates about A's
        origin.
    """
    return F.motion_transform(as_transform(T_AB, "T_AB"))


def motion_transform_inverse(T_AB) -> np.ndarray:
    """Inverse motion transform ``X_BA = X_AB^{-1}``, A to B.

    Parameters
    ----------
    T_AB : array_like, shape (4, 4)
        Rigid transform, ``p_A = R p_B + p``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[R^T, 0], [-R^T [p]x, R^T]]``: maps a motion vector in A (about A's origin)
        to B (about B's origin).
    """
    return F.motion_transform_inverse(as_transform(T_AB, "T_AB"))


def force_transform(T_AB) -> np.ndarray:
    """Force-vector transform ``X_AB^{-T}``, B to A.

    Parameters
    ----------
    T_AB : array_like, shape (4, 4)
        Rigid transform, ``p_A = R p_B + p``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[R, [p]x R], [0, R]]``: ``f_A = F f_B`` for a force vector ``[n; f]`` in B
        coordinates (moment about B's origin), giving A coordinates (moment about A's
        origin). ``f_A·m_A == f_B·m_B`` for motion vectors mapped by
        :func:`motion_transform`.
    """
    return F.force_transform(as_transform(T_AB, "T_AB"))


def force_transform_inverse(T_AB) -> np.ndarray:
    """Inverse force transform ``X_AB^T`` (A to B for force vectors), shape (6, 6).

    Parameters
    ----------
    T_AB : array_like, shape (4, 4)
        Rigid transform, ``p_A = R p_B + p``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[R^T, -R^T [p]x], [0, R^T]]``.
    """
    return F.force_transform_inverse(as_transform(T_AB, "T_AB"))


def spatial_cross_motion(v) -> np.ndarray:
    """Spatial cross-product matrix for motion vectors, ``crm(v)`` (the Lie bracket ``ad_v``).

    Parameters
    ----------
    v : array_like, shape (6,)
        Motion vector ``[ω; u]`` (e.g. a spatial velocity, rad/s; m/s).

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[[ω]x, 0], [[u]x, [ω]x]]`` so that ``crm(v) @ m == v × m`` for a motion
        vector ``m`` (same frame).
    """
    return F.spatial_cross_motion(as_array(v, (6,), "v"))


def spatial_cross_force(v) -> np.ndarray:
    """Spatial cross-product matrix for force vectors, ``crf(v) = -crm(v)^T``.

    Parameters
    ----------
    v : array_like, shape (6,)
        Motion vector ``[ω; u]`` (rad/s; m/s).

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[[ω]x, [u]x], [0, [ω]x]]`` so that ``crf(v) @ f == v ×* f`` for a force
        vector ``f`` (same frame), e.g. the gyroscopic term ``v ×* (I v)``.
    """
    return F.spatial_cross_force(as_array(v, (6,), "v"))


crm = spatial_cross_motion
crf = spatial_cross_force
