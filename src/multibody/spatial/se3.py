"""Rigid transforms and the group SE(3): exp/log of twists and their Jacobians.

Conventions (see ``DESIGN.md``):

* ``T_AB`` (4, 4) maps coordinates in frame B to frame A: ``p_A = R_AB p_B + p_AB``,
  with ``p_AB`` the position (m) of B's origin in A coordinates.
* A twist ``xi = [ω; v]`` (shape (6,), angular first: rad and m) is the body twist
  applied for unit time: ``T = exp(hat(xi))`` with ``hat(xi) = [[ [ω]x, v ], [0, 0]]``.
  Then ``R = exp([ω]x)`` and ``p = Jl(ω) v`` (``Jl`` the SO(3) left Jacobian).
* Jacobians (6, 6) in the same ``[ω; v]`` ordering:

      exp(xi + dxi) ≈ exp(xi) exp(Jr(xi) dxi) ≈ exp(Jl(xi) dxi) exp(xi),

  ``Jr(xi) = Jl(-xi)``; ``Jl(xi) = sum_n ad(xi)^n/(n+1)!`` with ``ad = spatial_cross_motion``.
"""

from __future__ import annotations

import numpy as np

from . import _fast_rigid as F
from ._checks import as_array, as_rotation, as_transform
from ._fast_rot import skew as _skew
from ._fast_rot import so3_exp as _so3_exp
from ._fast_rot import unskew as _unskew

__all__ = [
    "transform",
    "transform_inverse",
    "transform_from_rotvec",
    "transform_point",
    "se3_hat",
    "se3_vee",
    "se3_exp",
    "se3_log",
    "se3_left_jacobian",
    "se3_left_jacobian_inv",
    "se3_right_jacobian",
    "se3_right_jacobian_inv",
    "se3_integrate",
    "se3_difference",
]


def transform(R, p) -> np.ndarray:
    """Homogeneous transform ``T_AB`` from a rotation and a translation.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Rotation ``R_AB`` (orthonormal, det +1, checked to 1e-6).
    p : array_like, shape (3,)
        Position ``p_AB`` (m) of B's origin in A coordinates.

    Returns
    -------
    ndarray, shape (4, 4)
        ``[[R, p], [0, 0, 0, 1]]``, so that ``p_A = R p_B + p``.
    """
    return F.transform(as_rotation(R, "R"), as_array(p, (3,), "p"))


def transform_inverse(T) -> np.ndarray:
    """Inverse of a rigid transform: ``T_BA`` from ``T_AB``.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        Homogeneous rigid transform ``T_AB``.

    Returns
    -------
    ndarray, shape (4, 4)
        ``[[R^T, -R^T p], [0, 1]]``.
    """
    return F.transform_inverse(as_transform(T, "T"))


def transform_from_rotvec(v, p) -> np.ndarray:
    """Homogeneous transform from a rotation vector and a translation.

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad), ``R_AB = so3_exp(v)``.
    p : array_like, shape (3,)
        Position ``p_AB`` (m) of B's origin in A coordinates.

    Returns
    -------
    ndarray, shape (4, 4)
        ``T_AB = [[exp([v]x), p], [0, 1]]``. (Not the same as ``se3_exp([v; p])``,
        whose translation is ``Jl(v) p``.)
    """
    return F.transform(_so3_exp(as_array(v, (3,), "v")), as_array(p, (3,), "p"))


def transform_point(T, p) -> np.ndarray:
    """Apply a transform to points: ``p_A = R_AB p_B + p_AB``.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        Homogeneous rigid transform ``T_AB``.
    p : array_like, shape (3,) or (N, 3)
        Point(s) in frame B coordinates (m).

    Returns
    -------
    ndarray, same shape as ``p``
        The point(s) in frame A coordinates (m).
    """
    T = as_transform(T, "T")
    a = np.asarray(p, dtype=np.float64)
    if a.ndim == 2 and a.shape[1] == 3:
        a = as_array(a, a.shape, "p")
        return a @ T[:3, :3].T + T[:3, 3]
    a = as_array(a, (3,), "p")
    return T[:3, :3] @ a + T[:3, 3]


def se3_hat(xi) -> np.ndarray:
    """The (4, 4) Lie-algebra matrix of a twist ``xi = [ω; v]`` (shape (6,)).

    Returns ``[[skew(ω), v], [0, 0, 0, 0]]`` (rad/s and m/s, or rad and m).
    """
    xi = as_array(xi, (6,), "xi")
    M = np.zeros((4, 4))
    M[:3, :3] = _skew(xi[:3])
    M[:3, 3] = xi[3:]
    return M


def se3_vee(M) -> np.ndarray:
    """Inverse of :func:`se3_hat`: the twist ``[ω; v]`` (6,) of a (4, 4) se(3) matrix.

    Only the skew part of the upper-left block and the upper-right column are used.
    """
    M = as_array(M, (4, 4), "M")
    return np.concatenate((_unskew(M[:3, :3]), M[:3, 3]))


def se3_exp(xi) -> np.ndarray:
    """Exponential of a twist: ``T = exp(se3_hat(xi))``.

    Parameters
    ----------
    xi : array_like, shape (6,)
        Twist ``[ω; v]`` (rad; m): the body twist of frame B applied for unit time
        starting from A.

    Returns
    -------
    ndarray, shape (4, 4)
        ``T_AB = [[exp([ω]x), Jl(ω) v], [0, 1]]``.
    """
    return F.se3_exp(as_array(xi, (6,), "xi"))


def se3_log(T) -> np.ndarray:
    """Logarithm of a rigid transform, the inverse of :func:`se3_exp`.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        Homogeneous rigid transform.

    Returns
    -------
    ndarray, shape (6,)
        Twist ``xi = [ω; v]`` (rad; m) with ``se3_exp(xi) == T`` and ``|ω| <= pi``:
        ``ω = so3_log(R)``, ``v = Jl(ω)^{-1} p``.
    """
    return F.se3_log(as_transform(T, "T"))


def se3_left_jacobian(xi) -> np.ndarray:
    """Left Jacobian of SE(3), ``exp(xi + dxi) ≈ exp(Jl(xi) dxi) exp(xi)``.

    Parameters
    ----------
    xi : array_like, shape (6,)
        Twist ``[ω; v]`` (rad; m).

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[Jl(ω), 0], [Q(ω, v), Jl(ω)]]`` in ``[ω; v]`` ordering (``Jl(ω)`` the SO(3)
        left Jacobian, ``Q`` the closed form of Barfoot, *State Estimation for
        Robotics*, eq. 7.86, evaluated by Taylor series near ``ω = 0``).
        Equal to ``sum_n ad(xi)^n / (n+1)!``.
    """
    return F.se3_left_jacobian(as_array(xi, (6,), "xi"))


def se3_left_jacobian_inv(xi) -> np.ndarray:
    """Inverse of the SE(3) left Jacobian, shape (6, 6), ``[ω; v]`` ordering.

    Parameters
    ----------
    xi : array_like, shape (6,)
        Twist ``[ω; v]``; singular at ``|ω| = 2 pi k``, ``k >= 1``.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[Jl^{-1}, 0], [-Jl^{-1} Q Jl^{-1}, Jl^{-1}]]``.
    """
    return F.se3_left_jacobian_inv(as_array(xi, (6,), "xi"))


def se3_right_jacobian(xi) -> np.ndarray:
    """Right Jacobian of SE(3), ``exp(xi + dxi) ≈ exp(xi) exp(Jr(xi) dxi)``.

    Parameters
    ----------
    xi : array_like, shape (6,)
        Twist ``[ω; v]`` (rad; m).

    Returns
    -------
    ndarray, shape (6, 6)
        ``Jr(xi) = Jl(-xi)`` in ``[ω; v]`` ordering. For ``T(t) = exp(xi(t))`` the body
        twist (in the moving frame) is ``Jr(xi) ẋi``.
    """
    return F.se3_right_jacobian(as_array(xi, (6,), "xi"))


def se3_right_jacobian_inv(xi) -> np.ndarray:
    """Inverse of the SE(3) right Jacobian, ``Jl(-xi)^{-1}``, shape (6, 6), ``[ω; v]`` ordering.

    Parameters
    ----------
    xi : array_like, shape (6,)
        Twist ``[ω; v]``; singular at ``|ω| = 2 pi k``, ``k >= 1``.
    """
    return F.se3_right_jacobian_inv(as_array(xi, (6,), "xi"))


def se3_integrate(T, xi) -> np.ndarray:
    """Right (body-frame) increment of a transform: ``T exp(hat(xi))``.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        Rigid transform ``T_AB``.
    xi : array_like, shape (6,)
        Twist ``[ω; v]`` (rad; m) in frame B coordinates (body twist × dt).

    Returns
    -------
    ndarray, shape (4, 4)
        ``T_AB exp(hat(xi))``.
    """
    return F.se3_integrate(as_transform(T, "T"), as_array(xi, (6,), "xi"))


def se3_difference(T0, T1) -> np.ndarray:
    """Body-frame difference of two transforms: ``log(T0^{-1} T1)``.

    Parameters
    ----------
    T0, T1 : array_like, shape (4, 4)
        Rigid transforms with the same reference frame.

    Returns
    -------
    ndarray, shape (6,)
        ``xi = [ω; v]`` (rad; m, T0's frame) with ``T1 = T0 exp(hat(xi))``,
        inverse of :func:`se3_integrate`.
    """
    return F.se3_difference(as_transform(T0, "T0"), as_transform(T1, "T1"))
