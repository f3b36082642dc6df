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

All functions are pure NumPy on single (unbatched) inputs; coefficient functions use
Taylor series near angle 0 so results are accurate to machine precision there.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_array, as_rotation
from .quaternion import _from_matrix, _to_rotvec

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

# Below _SERIES_ANGLE (rad) the coefficients sin(t)/t and (1 - cos t)/t^2 use Taylor
# series (their closed forms have no cancellation, only the 0/0 at t = 0). The
# coefficients whose closed forms cancel catastrophically near 0 switch to their
# series below _CANCEL_ANGLE; 8 terms keep the series at machine precision there.
_SERIES_ANGLE = 0.1
_CANCEL_ANGLE = 0.5

# Taylor coefficients in powers of t^2.
_C_SERIES = (1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800, -1 / 6227020800,
             1 / 1307674368000, -1 / 355687428096000)
_D_SERIES = (1 / 12, 1 / 720, 1 / 30240, 1 / 1209600, 1 / 47900160, 691 / 1307674368000,
             1 / 74724249600, 3617 / 10670622842880000)


def _series(t2: float, coeffs) -> float:
    """Evaluate sum_k coeffs[k] * t2**k (Horner)."""
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * t2 + c
    return acc


def _skew(v: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _coef_a(t: float, t2: float) -> float:
    """sin(t)/t"""
    if t < _SERIES_ANGLE:
        return 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0)))
    return np.sin(t) / t


def _coef_b(t: float, t2: float) -> float:
    """(1 - cos t)/t^2"""
    if t < _SERIES_ANGLE:
        return 0.5 - t2 / 24.0 * (1.0 - t2 / 30.0 * (1.0 - t2 / 56.0 * (1.0 - t2 / 90.0)))
    s = np.sin(0.5 * t)
    return 2.0 * s * s / t2


def _coef_c(t: float, t2: float) -> float:
    """(t - sin t)/t^3"""
    if t < _CANCEL_ANGLE:
        return _series(t2, _C_SERIES)
    return (t - np.sin(t)) / (t2 * t)


def _coef_d(t: float, t2: float) -> float:
    """1/t^2 - (1 + cos t)/(2 t sin t), the [v]x^2 coefficient of the inverse Jacobians."""
    if t < _CANCEL_ANGLE:
        return _series(t2, _D_SERIES)
    # (1 + cos t)/sin t = cot(t/2): this form avoids the cancellation in 1 + cos t near pi
    h = 0.5 * t
    return (1.0 - h * np.cos(h) / np.sin(h)) / t2


def _exp(v: np.ndarray) -> np.ndarray:
    t2 = float(v @ v)
    t = np.sqrt(t2)
    S = _skew(v)
    return np.eye(3) + _coef_a(t, t2) * S + _coef_b(t, t2) * (S @ S)


def _left_jacobian(v: np.ndarray) -> np.ndarray:
    t2 = float(v @ v)
    t = np.sqrt(t2)
    S = _skew(v)
    return np.eye(3) + _coef_b(t, t2) * S + _coef_c(t, t2) * (S @ S)


def _left_jacobian_inv(v: np.ndarray) -> np.ndarray:
    t2 = float(v @ v)
    t = np.sqrt(t2)
    S = _skew(v)
    return np.eye(3) - 0.5 * S + _coef_d(t, t2) * (S @ S)


def _log(R: np.ndarray) -> np.ndarray:
    return _to_rotvec(_from_matrix(R))


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
    return _skew(as_array(v, (3,), "v"))


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
    S = as_array(S, (3, 3), "S")
    return 0.5 * np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]])


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
    return _exp(as_array(v, (3,), "v"))


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
    return _log(as_rotation(R, "R"))


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
    return _left_jacobian(as_array(v, (3,), "v"))


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
    return _left_jacobian_inv(as_array(v, (3,), "v"))


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
    return _left_jacobian(-as_array(v, (3,), "v"))


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
    return _left_jacobian_inv(-as_array(v, (3,), "v"))


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
    R = as_rotation(R, "R")
    w = as_array(w, (3,), "w")
    return R @ _exp(w)


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
    R0 = as_rotation(R0, "R0")
    R1 = as_rotation(R1, "R1")
    return _log(R0.T @ R1)
