"""The rotation group SO(3): skew matrices, exp/log of rotation vectors and their Jacobians.

Conventions (see ``DESIGN.md``):

* A rotation vector ``v`` (rad, shape (3,)) is the rotation ``R = exp([v]x)``: angle
  ``|v|`` about the unit axis ``v/|v|``. ``so3_log`` returns the angle in ``[0, pi]``.
* ``[v]x = skew(v)`` is the cross-product matrix, ``skew(a) @ b == cross(a, b)``.
* Jacobians (right and left, rad/rad):

      exp(v + dv) ≈ exp(v) exp(Jr(v) dv) ≈ exp(Jl(v) dv) exp(v)

  with ``Jr(v) = Jl(-v) = Jl(v).T``. For a rotation-vector joint ``R(t) = exp(v(t))``
  the body angular velocity (in the rotated frame) is ``ω = Jr(v) v̇`` and the spatial
  one (in the reference frame) is ``R ω = Jl(v) v̇``; so ``v̇ = Jr(v)^{-1} ω``.

All functions are pure NumPy on single (unbatched) inputs. They validate their inputs
and then call the unchecked formulas of :mod:`multibody.spatial.fast`, whose
coefficients use Taylor series near angle 0 so results are accurate to machine
precision there.
"""

from __future__ import annotations

import numpy as np

from . import _fast_rot as F
from ._checks import as_array, as_rotation

__all__ = [
    "skew",
    "unskew",
    "so3_exp",
    "so3_log",
    "rotvec_to_matrix",
    "matrix_to_rotvec",
    "so3_right_jacobian",
    "so3_right_jacobian_inv",
    "so3_left_jacobian",
    "so3_left_jacobian_inv",
    "so3_integrate",
    "so3_difference",
]


def skew(v) -> np.ndarray:
    """Cross-product (skew-symmetric) matrix ``[v]x``.

    Parameters
    ----------
    v : array_like, shape (3,)
        Any 3-vector (any units, any frame).

    Returns
    -------
    ndarray, shape (3, 3)
        ``S`` with ``S @ b == np.cross(v, b)`` and ``S.T == -S``.
    """
    return F.skew(as_array(v, (3,), "v"))


def unskew(S) -> np.ndarray:
    """Inverse of :func:`skew`: the vector ``v`` of a (3, 3) matrix with ``[v]x = S``.

    Parameters
    ----------
    S : array_like, shape (3, 3)
        Skew-symmetric matrix. Only its skew part ``(S - S.T)/2`` is used.

    Returns
    -------
    ndarray, shape (3,)
        ``v = (S[2,1] - S[1,2], S[0,2] - S[2,0], S[1,0] - S[0,1]) / 2``.
    """
    return F.unskew(as_array(S, (3, 3), "S"))


def so3_exp(v) -> np.ndarray:
    """Rotation matrix of a rotation vector: ``R = exp([v]x)`` (Rodrigues' formula).

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad). Any magnitude; accurate near 0 (Taylor series).

    Returns
    -------
    ndarray, shape (3, 3)
        ``R = I + sin|v|/|v| [v]x + (1 - cos|v|)/|v|^2 [v]x^2``. If ``v`` is the
        rotation vector of frame B relative to frame A (in A coordinates), ``R = R_AB``.
    """
    return F.so3_exp(as_array(v, (3,), "v"))


def so3_log(R) -> np.ndarray:
    """Rotation vector of a rotation matrix, the inverse of :func:`so3_exp`.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Rotation matrix (orthonormal, det +1, checked to 1e-6).

    Returns
    -------
    ndarray, shape (3,)
        Rotation vector ``v`` (rad) with ``so3_exp(v) == R`` and ``|v|`` in ``[0, pi]``.
        Robust at all angles (computed through the canonical quaternion with
        ``atan2``); at exactly ``pi`` either of the two equivalent vectors may be
        returned.
    """
    return F.so3_log(as_rotation(R, "R"))


rotvec_to_matrix = so3_exp
matrix_to_rotvec = so3_log


def so3_left_jacobian(v) -> np.ndarray:
    """Left Jacobian ``Jl(v)`` of SO(3): ``exp(v + dv) ≈ exp(Jl(v) dv) exp(v)``.

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad).

    Returns
    -------
    ndarray, shape (3, 3)
        ``Jl = I + (1 - cos θ)/θ^2 [v]x + (θ - sin θ)/θ^3 [v]x^2`` with ``θ = |v|``
        (dimensionless). ``R ω_body = Jl(v) v̇`` for ``R = exp(v)``.
    """
    return F.so3_left_jacobian(as_array(v, (3,), "v"))


def so3_left_jacobian_inv(v) -> np.ndarray:
    """Inverse of the left Jacobian, ``Jl(v)^{-1}``, shape (3, 3).

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad); singular at ``|v| = 2 pi k``, ``k >= 1``.

    Returns
    -------
    ndarray, shape (3, 3)
        ``I - [v]x / 2 + (1/θ^2 - (1 + cos θ)/(2 θ sin θ)) [v]x^2``, ``θ = |v|``.
    """
    return F.so3_left_jacobian_inv(as_array(v, (3,), "v"))


def so3_right_jacobian(v) -> np.ndarray:
    """Right Jacobian ``Jr(v)`` of SO(3): ``exp(v + dv) ≈ exp(v) exp(Jr(v) dv)``.

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad).

    Returns
    -------
    ndarray, shape (3, 3)
        ``Jr(v) = Jl(-v) = Jl(v).T``. For ``R(t) = exp(v(t))`` the body angular
        velocity (rad/s, rotated-frame coordinates) is ``ω = Jr(v) v̇``.
    """
    return F.so3_right_jacobian(as_array(v, (3,), "v"))


def so3_right_jacobian_inv(v) -> np.ndarray:
    """Inverse of the right Jacobian, ``Jr(v)^{-1} = Jl(-v)^{-1}``, shape (3, 3).

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad); singular at ``|v| = 2 pi k``, ``k >= 1``.

    Returns
    -------
    ndarray, shape (3, 3)
        Maps the body angular velocity to the rotation-vector rate: ``v̇ = Jr^{-1} ω``.
    """
    return F.so3_right_jacobian_inv(as_array(v, (3,), "v"))


def so3_integrate(R, w) -> np.ndarray:
    """Right (body-frame) increment of a rotation: ``R exp([w]x)``.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Rotation matrix ``R_AB``.
    w : array_like, shape (3,)
        Rotation vector (rad) in frame B coordinates (e.g. body angular velocity × dt).

    Returns
    -------
    ndarray, shape (3, 3)
        ``R_AB exp([w]x)``.
    """
    return F.so3_integrate(as_rotation(R, "R"), as_array(w, (3,), "w"))


def so3_difference(R0, R1) -> np.ndarray:
    """Body-frame difference of two rotations: ``log(R0^T R1)``, inverse of :func:`so3_integrate`.

    Parameters
    ----------
    R0, R1 : array_like, shape (3, 3)
        Rotation matrices (same reference frame).

    Returns
    -------
    ndarray, shape (3,)
        ``w`` (rad, in R0's rotated frame), ``|w| <= pi``, with ``R1 = R0 exp([w]x)``.
    """
    return F.so3_difference(as_rotation(R0, "R0"), as_rotation(R1, "R1"))
