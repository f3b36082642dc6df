"""Spatial (6, 6) rigid-body inertia about a frame origin, ``[angular; linear]`` ordering.

For a body with mass ``m`` (kg), centre of mass ``c`` (m) and rotational inertia ``Ic``
(kg m^2) about the centre of mass, all in the coordinates of frame B, the spatial
inertia about B's origin is

    I_B = [[Ic - m [c]x [c]x,  m [c]x],
           [-m [c]x,           m 1   ]]

so that the momentum is ``h = I_B @ [ω; v]`` (``v`` the velocity of B's origin) and the
kinetic energy is ``0.5 * V @ I_B @ V``.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_array, as_scalar, as_transform
from ._fast_rigid import force_transform, motion_transform_inverse
from ._fast_rot import skew as _skew
from ._fast_rot import unskew as _unskew

__all__ = ["spatial_inertia", "inertia_from_spatial", "transform_spatial_inertia"]

_SYM_TOL = 1e-9


def _check_symmetric(M: np.ndarray, name: str) -> None:
    scale = max(1.0, float(np.max(np.abs(M))))
    if np.max(np.abs(M - M.T)) > _SYM_TOL * scale:
        raise ValueError(f"{name} must be symmetric (shape {M.shape})")


def spatial_inertia(mass, com, inertia_com) -> np.ndarray:
    """Spatial inertia of a rigid body about the frame origin.

    Parameters
    ----------
    mass : float
        Mass (kg), ``>= 0``.
    com : array_like, shape (3,)
        Centre of mass (m) in this frame.
    inertia_com : array_like, shape (3, 3)
        Symmetric rotational inertia (kg m^2) about the centre of mass, axes of this
        frame.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[Ic - m[c]x[c]x, m[c]x], [-m[c]x, m 1]]`` (symmetric).
    """
    m = as_scalar(mass, "mass")
    if m < 0.0:
        raise ValueError(f"mass must be >= 0 (kg), got {m}")
    c = as_array(com, (3,), "com")
    Ic = as_array(inertia_com, (3, 3), "inertia_com")
    _check_symmetric(Ic, "inertia_com")
    C = _skew(c)
    I = np.zeros((6, 6))
    I[:3, :3] = Ic - m * (C @ C)
    I[:3, 3:] = m * C
    I[3:, :3] = -m * C
    I[3:, 3:] = m * np.eye(3)
    return I


def inertia_from_spatial(I6):
    """Mass, centre of mass and central inertia of a spatial inertia (inverse of
    :func:`spatial_inertia`).

    Parameters
    ----------
    I6 : array_like, shape (6, 6)
        Symmetric spatial inertia about a frame origin, ``[angular; linear]`` ordering.

    Returns
    -------
    mass : float
        Mass (kg), ``I6[3:, 3:]`` trace / 3.
    com : ndarray, shape (3,)
        Centre of mass (m) in the frame; zeros if ``mass == 0``.
    inertia_com : ndarray, shape (3, 3)
        Rotational inertia (kg m^2) about the centre of mass, frame axes.
    """
    I6 = as_array(I6, (6, 6), "I6")
    _check_symmetric(I6, "I6")
    m = float(np.trace(I6[3:, 3:]) / 3.0)
    if m < 0.0:
        raise ValueError(f"I6 must have a nonnegative mass block I6[3:, 3:], got mass {m}")
    if m == 0.0:
        return 0.0, np.zeros(3), I6[:3, :3].copy()
    c = _unskew(I6[:3, 3:]) / m  # I6[:3, 3:] = m [c]x
    C = _skew(c)
    Ic = I6[:3, :3] + m * (C @ C)
    return m, c, 0.5 * (Ic + Ic.T)


def transform_spatial_inertia(T_AB, I_B) -> np.ndarray:
    """Re-express a spatial inertia about another frame's origin.

    Parameters
    ----------
    T_AB : array_like, shape (4, 4)
        Rigid transform, ``p_A = R_AB p_B + p_AB``.
    I_B : array_like, shape (6, 6)
        Spatial inertia of a body about B's origin, in B coordinates.

    Returns
    -------
    ndarray, shape (6, 6)
        ``I_A = X_AB^{-T} I_B X_AB^{-1}`` (= ``force_transform(T_AB) @ I_B @
        motion_transform_inverse(T_AB)``): the same body's inertia about A's origin in
        A coordinates. Kinetic energy is invariant: ``V_A·I_A V_A == V_B·I_B V_B`` for
        ``V_A = X_AB V_B``.
    """
    T = as_transform(T_AB, "T_AB")
    I_B = as_array(I_B, (6, 6), "I_B")
    I_A = force_transform(T) @ I_B @ motion_transform_inverse(T)
    return 0.5 * (I_A + I_A.T)
