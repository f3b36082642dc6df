"""Differentiable functions between Lie-group spaces and the finite-difference checker."""
import numpy as np
import pytest

from multibody.planning import (AffineFunction, ConstantFunction, DifferentiableFunction,
                                FunctionFromCallables, IdentityFunction, LiegroupSpace,
                                check_jacobian, finite_difference_jacobian)
from multibody.spatial import motion_transform, se3_exp, transform_inverse


class PoseProduct(DifferentiableFunction):
    """f(T) = A T B on SE(3) (quaternion chart); Jacobian Ad(B^-1) in body coordinates."""

    def __init__(self, a, b):
        s = LiegroupSpace.SE3()
        super().__init__(s, s, name="A*T*B")
        self.a, self.b, self.f = a, b, s.factors[0]

    def _value(self, x):
        return self.f.from_matrix(self.a @ self.f.to_matrix(x) @ self.b)

    def _jacobian(self, x):
        return motion_transform(transform_inverse(self.b))


def test_user_function_on_se3_passes_the_checker():
    rng = np.random.default_rng(0)
    f = PoseProduct(se3_exp(rng.normal(size=6)), se3_exp(rng.normal(size=6)))
    for _ in range(5):
        res = check_jacobian(f, rng=rng)
        assert res.ok and res.max_abs_error < 1e-7, res.max_abs_error


def test_checker_detects_a_wrong_jacobian():
    rng = np.random.default_rng(1)
    a, b = se3_exp(rng.normal(size=6)), se3_exp(rng.normal(size=6))
    wrong = FunctionFromCallables(LiegroupSpace.SE3(), LiegroupSpace.SE3(),
                                  PoseProduct(a, b).value,
                                  jacobian=lambda x: motion_transform(b))   # not inverted
    res = check_jacobian(wrong, rng=rng)
    assert not res.ok and not bool(res) and res.max_abs_error > 1e-2
    assert res.analytic.shape == res.numeric.shape == (6, 6)


def test_lie_to_vector_function_fd():
    # f: SO(3) x R^2 -> R^3, f(R, x) = R @ (x0, x1, 1): J = [-R [p]x, R[:, :2]]
    s = LiegroupSpace.SO3() * LiegroupSpace.Rn(2)
    rot = s.factors[0]

    def value(z):
        return rot.to_matrix(z[:4]) @ np.array([z[4], z[5], 1.0])

    def jac(z):
        r = rot.to_matrix(z[:4])
        p = np.array([z[4], z[5], 1.0])
        px = np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
        return np.hstack([-r @ px, r[:, :2]])

    f = FunctionFromCallables(s, 3, value, jac, name="rotate")
    assert f.output_space == LiegroupSpace.Rn(3)
    res = check_jacobian(f, rng=2)
    assert res.ok and res.max_abs_error < 1e-8


def test_builtin_functions():
    a = AffineFunction([[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]], [1.0, 0.0, -2.0])
    np.testing.assert_allclose(a([1.0, 1.0]), [4.0, -1.0, 1.5])
    assert check_jacobian(a, rng=0).max_abs_error < 1e-8
    c = ConstantFunction(LiegroupSpace.Rn(2), LiegroupSpace.SE3())
    np.testing.assert_allclose(c([3.0, 4.0]), LiegroupSpace.SE3().neutral())
    assert c.jacobian([0.0, 0.0]).shape == (6, 2)
    i = IdentityFunction(LiegroupSpace.SO3("rotvec"))
    assert check_jacobian(i, rng=0).max_abs_error < 1e-8
    fd = FunctionFromCallables(LiegroupSpace.Rn(1), LiegroupSpace.SO2(),
                               lambda x: [np.cos(2 * x[0]), np.sin(2 * x[0])])
    np.testing.assert_allclose(fd.jacobian([0.3]), [[2.0]], atol=1e-8)   # FD fallback


def test_function_errors_name_the_problem():
    a = AffineFunction(np.eye(2))
    with pytest.raises(ValueError, match=r"x must have shape \(2,\)"):
        a([1.0, 2.0, 3.0])
    bad = FunctionFromCallables(2, 2, lambda x: np.zeros(3))
    with pytest.raises(ValueError, match=r"_value returned shape \(3,\)"):
        bad([0.0, 0.0])
    bad_j = FunctionFromCallables(2, 2, lambda x: x, lambda x: np.eye(3))
    with pytest.raises(ValueError, match=r"_jacobian returned shape"):
        bad_j.jacobian([0.0, 0.0])
    with pytest.raises(ValueError, match="offset"):
        AffineFunction(np.eye(2), [1.0])
    with pytest.raises(ValueError, match="input_space"):
        FunctionFromCallables("R3", 2, lambda x: x)
    with pytest.raises(ValueError, match="step"):
        finite_difference_jacobian(a, [0.0, 0.0], step=0.0)
