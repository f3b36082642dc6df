"""The unchecked helpers of ``multibody.spatial.fast``.

The checked functions of ``multibody.spatial`` validate and then call these, so the two
must agree to the bit; and both must match independent references (SciPy's
``Rotation`` and ``expm``, matrix power series ``sum_n X^n / (n+1)!``, long Taylor sums)
at small and large angles, including just below, at and just above the small-angle
series cut-offs, where a wrong switch point or a wrong series coefficient shows.
"""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

import multibody.spatial as sp
from multibody.spatial import fast

_NEAR_CUTOFFS = [c * f for c in (fast.SERIES_ANGLE, fast.CANCEL_ANGLE)
                 for f in (0.9, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.1)]
ANGLES = [0.0, 1e-12, 1e-8, 1e-5, 1e-3, 0.02, *_NEAR_CUTOFFS, 1.0, 2.0, 3.0, math.pi - 1e-6]


def _rotvec(t, seed):
    axis = np.random.default_rng(seed).normal(size=3)
    return t * axis / np.linalg.norm(axis)


def _power_series(X, n_terms=40):
    """sum_n X^n / (n+1)!: the left Jacobian of exp for X = ad(x) (an independent reference)."""
    out = np.zeros_like(X)
    term = np.eye(X.shape[0])
    for n in range(n_terms):
        out += term / math.factorial(n + 1)
        term = term @ X
    return out


def _taylor(t, first_factorial, n_terms=40):
    """sum_k (-1)^k t^(2k) / (2k + first_factorial)!"""
    return sum((-1) ** k * t ** (2 * k) / math.factorial(2 * k + first_factorial)
               for k in range(n_terms))


def _bernoulli(n_max):
    """Bernoulli numbers B_0 .. B_n_max as exact fractions (B_1 = -1/2)."""
    b = [Fraction(1)]
    for m in range(1, n_max + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(60)


def _coef_d_reference(t):
    """1/t^2 - cot(t/2)/(2t) = -sum_{n>=1} (-1)^n B_2n t^(2n-2) / (2n)!, all terms >= 0."""
    return sum(float(-(-1) ** n * _B[2 * n] / math.factorial(2 * n)) * t ** (2 * n - 2)
               for n in range(1, 31))


def _ad_se2(xi):
    w, vx, vy = xi
    return np.array([[0.0, 0.0, 0.0], [vy, 0.0, -w], [-vx, w, 0.0]])


def _hat_se2(xi):
    w, vx, vy = xi
    return np.array([[0.0, -w, vx], [w, 0.0, vy], [0.0, 0.0, 0.0]])


@pytest.mark.parametrize("t", ANGLES)
def test_coefficients_match_taylor_sums_and_closed_forms(t):
    assert fast.coef_a(t) == pytest.approx(_taylor(t, 1), rel=1e-15, abs=1e-16)
    assert fast.coef_b(t) == pytest.approx(_taylor(t, 2), rel=1e-15, abs=1e-16)
    assert fast.coef_c(t) == pytest.approx(_taylor(t, 3), rel=2e-15, abs=1e-16)
    assert fast.coef_d(t) == pytest.approx(_coef_d_reference(t), rel=2e-15)
    if t >= 0.5:  # where the closed form has little cancellation
        d = 1.0 / t ** 2 - 1.0 / (2.0 * t * math.tan(0.5 * t))
        assert fast.coef_d(t) == pytest.approx(d, rel=1e-13)


@pytest.mark.parametrize("t", ANGLES)
def test_so3_against_scipy_and_power_series(t):
    v = _rotvec(t, 1)
    R = fast.so3_exp(v)
    np.testing.assert_allclose(R, Rotation.from_rotvec(v).as_matrix(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(R, expm(fast.skew(v)), rtol=0, atol=1e-14)
    np.testing.assert_allclose(fast.so3_log(R), v, rtol=0, atol=1e-15 if t < 3.0 else 1e-11)
    K = fast.skew(v)
    Jl, Jr = _power_series(K), _power_series(-K)
    np.testing.assert_allclose(fast.so3_left_jacobian(v), Jl, rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast.so3_right_jacobian(v), Jr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast.so3_left_jacobian_inv(v) @ Jl, np.eye(3), rtol=0, atol=1e-14)
    np.testing.assert_allclose(fast.so3_right_jacobian_inv(v) @ Jr, np.eye(3), rtol=0, atol=1e-14)


@pytest.mark.parametrize("t", ANGLES)
def test_quaternions_against_scipy(t):
    v = _rotvec(t, 2)
    rot = Rotation.from_rotvec(v)
    q = fast.quat_from_rotvec(v)
    np.testing.assert_allclose(q, rot.as_quat(), rtol=0, atol=3e-16)
    np.testing.assert_allclose(fast.quat_to_matrix(3.7 * q), rot.as_matrix(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast.matrix_to_quat(rot.as_matrix()), q, rtol=0,
                               atol=1e-15 if t < 3.0 else 1e-12)
    # sign and scale invariant, angle in [0, pi]
    np.testing.assert_allclose(fast.quat_to_rotvec(-2.5 * q), v, rtol=0, atol=1e-15)
    other = Rotation.from_rotvec(_rotvec(1.3, 3))
    prod = fast.quat_multiply(q, other.as_quat())
    np.testing.assert_allclose(fast.quat_to_matrix(prod), (rot * other).as_matrix(), atol=1e-15)
    np.testing.assert_allclose(fast.quat_canonical(-4.0 * q), q, rtol=0, atol=3e-16)
    np.testing.assert_allclose(fast.quat_multiply(q, fast.quat_inverse(2.0 * q)),
                               [0, 0, 0, 0.5], atol=3e-16)


@pytest.mark.parametrize("t", ANGLES)
def test_se3_against_expm_and_power_series(t):
    xi = np.concatenate([_rotvec(t, 4), np.random.default_rng(5).normal(size=3)])
    T = fast.se3_exp(xi)
    np.testing.assert_allclose(T, expm(sp.se3_hat(xi)), rtol=0, atol=1e-14)
    if t < 3.0:
        np.testing.assert_allclose(fast.se3_log(T), xi, rtol=0, atol=1e-14)
    ad = fast.spatial_cross_motion(xi)
    Jl, Jr = _power_series(ad), _power_series(-ad)
    np.testing.assert_allclose(fast.se3_left_jacobian(xi), Jl, rtol=0, atol=1e-14)
    np.testing.assert_allclose(fast.se3_right_jacobian(xi), Jr, rtol=0, atol=1e-14)
    np.testing.assert_allclose(fast.se3_left_jacobian_inv(xi) @ Jl, np.eye(6), rtol=0, atol=1e-13)
    np.testing.assert_allclose(fast.se3_right_jacobian_inv(xi) @ Jr, np.eye(6), rtol=0, atol=1e-13)
    # adjoints: Ad(exp(xi)) = expm(ad(xi)); force transforms are the inverse transposes
    X = expm(ad)
    np.testing.assert_allclose(fast.motion_transform(T), X, rtol=0, atol=1e-13)
    np.testing.assert_allclose(fast.motion_transform_inverse(T) @ X, np.eye(6), atol=1e-13)
    np.testing.assert_allclose(fast.force_transform(T) @ X.T, np.eye(6), atol=1e-13)
    np.testing.assert_allclose(fast.force_transform_inverse(T), X.T, rtol=0, atol=1e-13)
    np.testing.assert_allclose(fast.spatial_cross_force(xi), -ad.T, rtol=0, atol=0)


@pytest.mark.parametrize("t", [-a for a in ANGLES[1::2]] + ANGLES[::2])
def test_se2_against_expm_and_power_series(t):
    xi = np.array([t, 0.7, -1.3])
    angle, p = fast.se2_exp(xi)
    M = expm(_hat_se2(xi))
    assert angle == t
    np.testing.assert_allclose(p, M[:2, 2], rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast.se2_log(angle, p), xi, rtol=0, atol=1e-15)
    ad = _ad_se2(xi)
    Jr = _power_series(-ad)
    np.testing.assert_allclose(fast.se2_right_jacobian(xi), Jr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast.se2_right_jacobian_inv(xi) @ Jr, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(fast.se2_adjoint(angle, p), expm(ad), rtol=0, atol=1e-14)


def _cases():
    v = _rotvec(0.3, 6)
    xi = np.concatenate([_rotvec(2.0, 7), [0.1, -0.2, 0.3]])
    q = np.array([0.3, -0.1, 0.5, 0.8])
    R, T = fast.so3_exp(v), fast.se3_exp(xi)
    return [
        ("skew", (v,)), ("unskew", (R,)), ("so3_exp", (v,)), ("so3_log", (R,)),
        ("so3_left_jacobian", (v,)), ("so3_left_jacobian_inv", (v,)),
        ("so3_right_jacobian", (v,)), ("so3_right_jacobian_inv", (v,)),
        ("so3_integrate", (R, v)), ("so3_difference", (R, R.T)),
        ("quat_multiply", (q, q[::-1].copy())), ("quat_conjugate", (q,)),
        ("quat_inverse", (q,)), ("quat_normalize", (q,)), ("quat_to_matrix", (q,)),
        ("matrix_to_quat", (R,)), ("quat_from_rotvec", (v,)), ("quat_to_rotvec", (q,)),
        ("quat_rotate", (q, v)), ("transform", (R, v)), ("transform_inverse", (T,)),
        ("se3_exp", (xi,)), ("se3_log", (T,)), ("se3_integrate", (T, xi)),
        ("se3_difference", (T, fast.transform_inverse(T))),
        ("se3_left_jacobian", (xi,)), ("se3_left_jacobian_inv", (xi,)),
        ("se3_right_jacobian", (xi,)), ("se3_right_jacobian_inv", (xi,)),
        ("motion_transform", (T,)), ("motion_transform_inverse", (T,)),
        ("force_transform", (T,)), ("force_transform_inverse", (T,)),
        ("spatial_cross_motion", (xi,)), ("spatial_cross_force", (xi,)),
    ]


@pytest.mark.parametrize("name, args", _cases(), ids=[c[0] for c in _cases()])
def test_checked_functions_run_the_fast_formula(name, args):
    """Same bits: the checked function validates, then delegates (one formula)."""
    copies = [a.copy() for a in args]
    np.testing.assert_array_equal(getattr(sp, name)(*args), getattr(fast, name)(*args))
    for a, c in zip(args, copies):
        np.testing.assert_array_equal(a, c)  # inputs untouched


def test_fast_is_exported():
    assert "fast" in sp.__all__ and sp.fast is fast
    assert all(hasattr(fast, name) for name in fast.__all__)
    assert "unchecked" in fast.__doc__
