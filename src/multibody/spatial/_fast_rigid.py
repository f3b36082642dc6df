"""Unchecked SE(3), spatial-vector and SE(2) formulas: the one implementation of the spatial layer.

Private module; its public face is :mod:`multibody.spatial.fast`. Inputs must be
float64 NumPy arrays of the stated shapes: twists ``xi = [ω; v]`` (6,), rigid
transforms ``T_AB`` (4, 4) (``p_A = R_AB p_B + p_AB``), motion vectors ``[ω; v]`` (6,);
SE(2) twists ``[ω; vx; vy]`` (3,). Nothing is checked. The small-angle series and
their cut-offs are those of :mod:`._fast_rot` (plus the two Q-block coefficients
below, switched at the same ``CANCEL_ANGLE``).
"""

from __future__ import annotations

import math

import numpy as np

from ._fast_rot import (CANCEL_ANGLE, coef_a, coef_b, coef_c, series, skew, so3_exp,
                        so3_left_jacobian, so3_left_jacobian_inv, so3_log)

# Taylor coefficients (powers of t^2) of (t^2/2 + cos t - 1)/t^4 and
# (2t - 3 sin t + t cos t)/(2 t^5), the Q-block coefficients that cancel near t = 0.
_C2_SERIES = (1 / 24, -1 / 720, 1 / 40320, -1 / 3628800, 1 / 479001600, -1 / 87178291200,
              1 / 20922789888000, -1 / 6402373705728000)
_C3_SERIES = (1 / 120, -1 / 2520, 1 / 120960, -1 / 9979200, 1 / 1245404160,
              -1 / 217945728000, 1 / 50812489728000, -1 / 15205637551104000)


# ----------------------------------------------------------------- transforms

def transform(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``[[R, p], [0, 0, 0, 1]]``. (3, 3), (3,) -> (4, 4)."""
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def transform_inverse(T: np.ndarray) -> np.ndarray:
    """``T_BA`` from ``T_AB``: ``[[R^T, -R^T p], [0, 1]]``. (4, 4) -> (4, 4)."""
    Rt = T[:3, :3].T
    return transform(Rt, -Rt @ T[:3, 3])


def _blocks(diag: np.ndarray, lower: np.ndarray | None, upper: np.ndarray | None) -> np.ndarray:
    """(6, 6) matrix ``[[diag, upper], [lower, diag]]`` (missing blocks zero)."""
    X = np.zeros((6, 6))
    X[:3, :3] = diag
    X[3:, 3:] = diag
    if lower is not None:
        X[3:, :3] = lower
    if upper is not None:
        X[:3, 3:] = upper
    return X


def motion_transform(T: np.ndarray) -> np.ndarray:
    """Adjoint ``Ad(T_AB) = [[R, 0], [[p]x R, R]]`` on motion vectors, B to A.

    (4, 4) -> (6, 6). Also the planning layer's SE(3) adjoint; ``motion_transform_inverse``
    is ``Ad(T^-1)``.
    """
    R = T[:3, :3]
    return _blocks(R, skew(T[:3, 3]) @ R, None)


def motion_transform_inverse(T: np.ndarray) -> np.ndarray:
    """``Ad(T_AB)^{-1} = [[R^T, 0], [-R^T [p]x, R^T]]``, A to B. (4, 4) -> (6, 6)."""
    Rt = T[:3, :3].T
    return _blocks(Rt, -Rt @ skew(T[:3, 3]), None)


def force_transform(T: np.ndarray) -> np.ndarray:
    """``Ad(T_AB)^{-T} = [[R, [p]x R], [0, R]]`` on force vectors, B to A. (4, 4) -> (6, 6)."""
    R = T[:3, :3]
    return _blocks(R, None, skew(T[:3, 3]) @ R)


def force_transform_inverse(T: np.ndarray) -> np.ndarray:
    """``Ad(T_AB)^T = [[R^T, -R^T [p]x], [0, R^T]]``, A to B. (4, 4) -> (6, 6)."""
    Rt = T[:3, :3].T
    return _blocks(Rt, None, -Rt @ skew(T[:3, 3]))


def spatial_cross_motion(v: np.ndarray) -> np.ndarray:
    """``crm(v) = [[[ω]x, 0], [[u]x, [ω]x]]`` (``ad_v``) of ``v = [ω; u]``. (6,) -> (6, 6)."""
    return _blocks(skew(v[:3]), skew(v[3:]), None)


def spatial_cross_force(v: np.ndarray) -> np.ndarray:
    """``crf(v) = -crm(v)^T = [[[ω]x, [u]x], [0, [ω]x]]``. (6,) -> (6, 6)."""
    return _blocks(skew(v[:3]), None, skew(v[3:]))


# ------------------------------------------------------------------------ SE(3)

def se3_exp(xi: np.ndarray) -> np.ndarray:
    """``exp(hat(xi)) = [[exp([ω]x), Jl(ω) v], [0, 1]]`` of a twist ``[ω; v]``. (6,) -> (4, 4)"""
    w = xi[:3]
    return transform(so3_exp(w), so3_left_jacobian(w) @ xi[3:])


def se3_log(T: np.ndarray) -> np.ndarray:
    """Twist ``[ω; Jl(ω)^{-1} p]``, ``|ω| <= pi``, of a rigid transform. (4, 4) -> (6,)."""
    w = so3_log(T[:3, :3])
    return np.concatenate((w, so3_left_jacobian_inv(w) @ T[:3, 3]))


def se3_integrate(T: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """Body-frame increment ``T exp(hat(xi))``. (4, 4), (6,) -> (4, 4)."""
    return T @ se3_exp(xi)


def se3_difference(T0: np.ndarray, T1: np.ndarray) -> np.ndarray:
    """``log(T0^{-1} T1)``, inverse of :func:`se3_integrate`. (4, 4), (4, 4) -> (6,)."""
    return se3_log(transform_inverse(T0) @ T1)


def _q_block(xi: np.ndarray) -> np.ndarray:
    """Lower-left block ``Q(ω, v)`` of the SE(3) left Jacobian (Barfoot, eq. 7.86)."""
    w = xi[:3]
    t = math.sqrt(float(w @ w))
    t2 = t * t
    if t < CANCEL_ANGLE:
        c2 = series(t2, _C2_SERIES)
        c3 = series(t2, _C3_SERIES)
    else:
        c2 = (0.5 * t2 + math.cos(t) - 1.0) / (t2 * t2)
        c3 = (2.0 * t - 3.0 * math.sin(t) + t * math.cos(t)) / (2.0 * t2 * t2 * t)
    W = skew(w)
    V = skew(xi[3:])
    WV = W @ V
    VW = V @ W
    WVW = WV @ W
    return (0.5 * V + coef_c(t) * (WV + VW + WVW) + c2 * (W @ WV + VW @ W - 3.0 * WVW)
            + c3 * (WVW @ W + W @ WVW))


def se3_left_jacobian(xi: np.ndarray) -> np.ndarray:
    """``Jl(xi) = [[Jl(ω), 0], [Q(ω, v), Jl(ω)]]``, ``exp(xi + d) ~= exp(Jl d) exp(xi)``.

    (6,) -> (6, 6).
    """
    return _blocks(so3_left_jacobian(xi[:3]), _q_block(xi), None)


def se3_left_jacobian_inv(xi: np.ndarray) -> np.ndarray:
    """``Jl(xi)^{-1} = [[Jl^{-1}, 0], [-Jl^{-1} Q Jl^{-1}, Jl^{-1}]]``. (6,) -> (6, 6)."""
    J = so3_left_jacobian_inv(xi[:3])
    return _blocks(J, -J @ _q_block(xi) @ J, None)


def se3_right_jacobian(xi: np.ndarray) -> np.ndarray:
    """``Jr(xi) = Jl(-xi)``: ``exp(xi + d) ~= exp(xi) exp(Jr d)``. (6,) -> (6, 6)."""
    return se3_left_jacobian(-xi)


def se3_right_jacobian_inv(xi: np.ndarray) -> np.ndarray:
    """``Jr(xi)^{-1} = Jl(-xi)^{-1}``. (6,) -> (6, 6)."""
    return se3_left_jacobian_inv(-xi)


# ------------------------------------------------------------------------ SE(2)
# An element is (angle t (rad), position p (2,)); twists [ω; vx; vy], body frame:
# exp([ω; v]) = (ω, V(ω) v) with V(t) = [[a, -t b], [t b, a]], a = sin t / t,
# b = (1 - cos t) / t^2.

def _se2_ab(t: float) -> tuple[float, float]:
    at = abs(t)
    return coef_a(at), t * coef_b(at)


def se2_exp(xi: np.ndarray) -> tuple[float, np.ndarray]:
    """``exp([ω; vx; vy])`` as ``(angle ω, position V(ω) v (2,))``. (3,) -> (float, (2,))."""
    t, vx, vy = xi.tolist()
    a, tb = _se2_ab(t)
    return t, np.array([a * vx - tb * vy, tb * vx + a * vy])


def se2_log(angle: float, p: np.ndarray) -> np.ndarray:
    """Twist ``[ω; V^{-1} p]`` (3,) of the element ``(angle in (-pi, pi], p (2,))``."""
    a, tb = _se2_ab(angle)
    px, py = p.tolist()
    det = a * a + tb * tb
    return np.array([angle, (a * px + tb * py) / det, (a * py - tb * px) / det])


def se2_adjoint(angle: float, p: np.ndarray) -> np.ndarray:
    """Adjoint ``[[1, 0], [[py; -px], R(angle)]]`` of ``(angle, p (2,))`` on twists. -> (3, 3)."""
    c, s = math.cos(angle), math.sin(angle)
    px, py = p.tolist()
    return np.array([[1.0, 0.0, 0.0], [py, c, -s], [-px, s, c]])


def se2_right_jacobian(xi: np.ndarray) -> np.ndarray:
    """SE(2) ``Jr``: ``exp(xi + d) ~= exp(xi) exp(Jr d)``, ``[ω; vx; vy]``. (3,) -> (3, 3)."""
    t, r1, r2 = xi.tolist()
    at = abs(t)
    a, b = coef_a(at), coef_b(at)
    tb, tc = t * b, t * coef_c(at)  # (1 - cos t) / t, (t - sin t) / t^2
    return np.array([[1.0, 0.0, 0.0],
                     [r1 * tc - r2 * b, a, tb],
                     [r1 * b + r2 * tc, -tb, a]])


def se2_right_jacobian_inv(xi: np.ndarray) -> np.ndarray:
    """Inverse of :func:`se2_right_jacobian`. (3,) -> (3, 3)."""
    j = se2_right_jacobian(xi)
    a, tb = j[1, 1], j[1, 2]
    ainv = np.array([[a, -tb], [tb, a]]) / (a * a + tb * tb)
    out = np.zeros((3, 3))
    out[0, 0] = 1.0
    out[1:, 1:] = ainv
    out[1:, 0] = -ainv @ j[1:, 0]
    return out
