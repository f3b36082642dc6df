"""ExplicitConstraintSet: the reference library's scenarios with values derived here."""
import itertools

import numpy as np
import pytest

from multibody.planning import (AffineFunction, DifferentiableFunction, EqualToZero, Equality,
                                ExplicitConstraint, ExplicitConstraintSet, FunctionFromCallables,
                                ImplicitFunction, LiegroupSpace, SE3, SO3, VectorSpace,
                                check_jacobian, finite_difference_jacobian)
from multibody.spatial import (motion_transform, se3_exp, so3_exp, so3_right_jacobian,
                               transform_inverse)

R4 = LiegroupSpace.Rn(4)
R5 = LiegroupSpace.Rn(5)


def affine(space, out, ins, coefs, offset=0.0, **kw):
    """q[out] = sum coefs[k] q[ins[k]] + offset on a vector space."""
    name = kw.pop("name", None)
    f = AffineFunction(np.atleast_2d(coefs), [offset], name=name or f"f{out}")
    return ExplicitConstraint(space, f, ins, [out], name=name, **kw)


def projector_fd_error(cs, p, rhs_ok=True):
    """max |J - J_fd| of the set seen as the map p -> solve(p) on the Lie group."""
    f = FunctionFromCallables(cs.space, cs.space, cs.solve, jacobian=cs.jacobian)
    return check_jacobian(f, p, step=1e-6).max_abs_error


# ----------------------------------------------------------------- chain q0 -> q3
def test_chain_in_all_six_orders():
    # q1 = 2 q0 + 1, q2 = -q1 + 3, q3 = q2 / 2 - 2; at q0 = 1.5: q = (1.5, 4, -1, -2.5)
    make = [lambda: affine(R4, 1, [0], [2.0], 1.0), lambda: affine(R4, 2, [1], [-1.0], 3.0),
            lambda: affine(R4, 3, [2], [0.5], -2.0)]
    p = np.array([1.5, 10.0, -7.0, 3.0])
    for perm in itertools.permutations(range(3)):
        cs = ExplicitConstraintSet(R4)
        cons = [make[k]() for k in perm]
        assert [cs.add(c) for c in cons] == [0, 1, 2]
        np.testing.assert_array_equal(cs.in_q, [0])
        np.testing.assert_array_equal(cs.in_v, [0])
        np.testing.assert_array_equal(cs.out_q, [1, 2, 3])
        np.testing.assert_array_equal(cs.out_v, [1, 2, 3])
        np.testing.assert_array_equal(cs.not_out_q, [0])
        q = cs.solve(p)
        np.testing.assert_allclose(q, [1.5, 4.0, -1.0, -2.5], atol=1e-15)
        assert cs.is_satisfied(q) and not cs.is_satisfied(p)
        # dependency order: the constraint producing q1, then q2, then q3
        outs = [int(cs.constraints[i].output_q[0]) for i in cs.computation_order]
        assert outs == [1, 2, 3]
        jac = cs.jacobian(p)
        np.testing.assert_allclose(jac[:, 0], [1.0, 2.0, -2.0, -1.0])
        np.testing.assert_allclose(jac[:, 1:], 0.0)


def test_gain_chain_jacobian_column():
    a, b, c = 2.0, -3.0, 0.5
    cs = ExplicitConstraintSet(R4)
    cs.add(affine(R4, 3, [2], [c]))
    cs.add(affine(R4, 1, [0], [a]))
    cs.add(affine(R4, 2, [1], [b]))
    jac = cs.jacobian(np.array([0.7, 0.0, 0.0, 0.0]))
    np.testing.assert_allclose(jac[:, 0], [1.0, a, a * b, a * b * c])
    np.testing.assert_allclose(cs.jacobian_not_out_to_out(np.zeros(4)), [[a], [a * b], [a * b * c]])
    np.testing.assert_allclose(cs.solve([1.0, 0, 0, 0]), [1.0, a, a * b, a * b * c])
    # dependency degrees: every function depends once on q0
    np.testing.assert_array_equal(cs.in_out_dependencies(), [[1, 0, 0, 0]] * 3)


# ---------------------------------------------------------------- diamond on R^5
def test_diamond_dependencies_and_jacobian():
    # q1 = 2 q0 + 1 ; q2 = 3 q0 - q4 ; q3 = q1 - 2 q2 ; q4 free input
    cs = ExplicitConstraintSet(R5)
    assert cs.add(affine(R5, 3, [1, 2], [1.0, -2.0], name="top")) == 0
    assert cs.add(affine(R5, 1, [0], [2.0], 1.0, name="left")) == 1
    assert cs.add(affine(R5, 2, [0, 4], [3.0, -1.0], name="right")) == 2
    np.testing.assert_array_equal(cs.in_q, [0, 4])
    np.testing.assert_array_equal(cs.out_q, [1, 2, 3])
    np.testing.assert_array_equal(cs.not_out_v, [0, 4])
    # rows in add order (top, left, right); q0 reaches "top" along two paths
    np.testing.assert_array_equal(cs.in_out_dependencies(), [[2, 0, 0, 0, 1],
                                                             [1, 0, 0, 0, 0],
                                                             [1, 0, 0, 0, 1]])
    assert cs.computation_order[-1] == 0
    np.testing.assert_array_equal(cs.function_of_configuration, [-1, 1, 2, 0, -1])
    expected = np.array([[1, 0, 0, 0, 0],
                         [2, 0, 0, 0, 0],
                         [3, 0, 0, 0, -1],
                         [2 - 2 * 3, 0, 0, 0, 2],
                         [0, 0, 0, 0, 1]], dtype=float)
    p = np.array([0.5, 9.0, 9.0, 9.0, -1.0])
    np.testing.assert_allclose(cs.jacobian(p), expected)
    np.testing.assert_allclose(cs.jacobian_not_out_to_out(p), expected[1:4][:, [0, 4]])
    np.testing.assert_allclose(cs.solve(p), [0.5, 2.0, 2.5, -3.0, -1.0])
    assert projector_fd_error(cs, p) < 1e-8


# ---------------------------------------------------------- compatibility rules
def test_cycles_overlaps_and_duplicates_are_rejected():
    cs = ExplicitConstraintSet(R4)
    c01 = affine(R4, 1, [0], [1.0], name="q1(q0)")
    assert cs.add(c01) == 0
    assert cs.add(c01) == -1                                         # same object
    assert cs.add(affine(R4, 2, [3], [1.0], name="q1(q0)")) == -1    # same name
    assert cs.add(affine(R4, 1, [2], [1.0])) == -1                   # q1 already an output
    assert cs.add(affine(R4, 0, [1], [1.0])) == -1                   # 2-cycle
    assert cs.add(affine(R4, 2, [1], [1.0])) == 1
    assert cs.add(affine(R4, 0, [2, 3], [1.0, 1.0])) == -1           # 3-cycle
    assert cs.add(affine(R4, 3, [0, 2], [1.0, 1.0])) == 2            # fine: feeds forward
    assert len(cs) == 3 and c01 in cs


def test_malformed_and_mismatched_constraints_raise():
    with pytest.raises(ValueError, match="malformed"):
        ExplicitConstraint(R4, AffineFunction([[1.0, 1.0]]), [0, 1], [1])
    with pytest.raises(ValueError, match="does not match"):
        ExplicitConstraint(R4, AffineFunction([[1.0, 1.0]]), [0], [1])
    with pytest.raises(ValueError, match="g_inverse"):
        ExplicitConstraint(R4, AffineFunction([[1.0]]), [0], [1], g=AffineFunction([[2.0]]))
    with pytest.raises(ValueError, match="comparison"):
        ExplicitConstraint(R4, AffineFunction([[1.0]]), [0], [1], comparison="<=")
    cs = ExplicitConstraintSet(R5)
    with pytest.raises(ValueError, match="space"):
        cs.add(affine(R4, 1, [0], [1.0]))
    with pytest.raises(TypeError):
        cs.add("q1 = q0")
    with pytest.raises(ValueError, match="error_threshold"):
        cs.error_threshold = -1.0
    with pytest.raises(KeyError):
        cs.right_hand_side(3)


# ------------------------------------------------------------ right-hand sides
def test_right_hand_sides_per_constraint_and_stacked():
    cs = ExplicitConstraintSet(R5)
    c_a = affine(R5, 1, [0], [1.0], comparison=Equality, name="a")
    c_b = affine(R5, 2, [1], [2.0], comparison=EqualToZero, name="b")
    c_c = affine(R5, 3, [2, 4], [1.0, 1.0], comparison=Equality, name="c")
    for c in (c_a, c_b, c_c):
        cs.add(c)
    assert cs.right_hand_side_size == 2
    cs.set_right_hand_side([0.5, -1.0])                    # dispatched to a then c
    np.testing.assert_allclose(cs.right_hand_side(c_a), [0.5])
    np.testing.assert_allclose(cs.right_hand_side(1), [0.0])
    np.testing.assert_allclose(cs.right_hand_side(c_c), [-1.0])
    q = cs.solve(np.array([1.0, 0, 0, 0, 2.0]))
    np.testing.assert_allclose(q, [1.0, 1.5, 3.0, 4.0, 2.0])   # q3 = q2 + q4 - 1
    cs.set_right_hand_side([0.25], c_a)
    np.testing.assert_allclose(cs.right_hand_side(), [0.25, -1.0])
    with pytest.raises(ValueError, match="EqualToZero"):
        cs.set_right_hand_side([1.0], c_b)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        cs.set_right_hand_side([1.0, 2.0, 3.0])
    # from an input configuration: Equality components absorb the offset
    p = np.array([1.0, 3.0, 6.0, 0.0, 1.0])                   # satisfies b (q2 = 2 q1)
    rhs = cs.right_hand_side_from_input(p)
    np.testing.assert_allclose(rhs, [2.0, -7.0])
    assert cs.is_satisfied(p)
    np.testing.assert_allclose(cs.solve(p), p)
    np.testing.assert_allclose(cs.right_hand_side_from_input([0, 1, 0, 0, 0], c_a), [1.0])
    np.testing.assert_allclose(cs.right_hand_side(), [1.0, -7.0])
    cs.right_hand_side_from_input(p)
    ok, err = cs.is_satisfied(np.array([1.0, 3.0, 7.0, 0.0, 1.0]), return_error=True)
    assert not ok and err.shape == (3,)
    np.testing.assert_allclose(err, [0.0, 1.0, -1.0])   # q2 is off by one: b and c see it
    ok_b, err_b = cs.is_constraint_satisfied(c_b, np.array([1.0, 3.0, 7.0, 0.0, 1.0]))
    assert not ok_b and err_b[0] == pytest.approx(1.0)
    cs.error_threshold = 2.0
    assert cs.is_satisfied(np.array([1.0, 3.0, 7.0, 0.0, 1.0]))
    assert cs.squared_error_threshold == 4.0


# -------------------------------------------------- constraints on Lie groups
class PoseOfProduct(DifferentiableFunction):
    """f(T, R) = T (R, p0) B : SE(3) x SO(3) -> SE(3)[rotvec]."""

    def __init__(self, in_space, out_space, p0, b):
        super().__init__(in_space, out_space, "pose")
        self.p0, self.b = p0, b
        self.ta, self.rb = in_space.factors[0], in_space.factors[1]
        self.out = out_space.factors[0]

    def _m(self, x):
        m = np.eye(4)
        m[:3, :3] = self.rb.to_matrix(x[7:11])
        m[:3, 3] = self.p0
        return m

    def _value(self, x):
        return self.out.from_matrix(self.ta.to_matrix(x[:7]) @ self._m(x) @ self.b)

    def _jacobian(self, x):
        jt = motion_transform(transform_inverse(self._m(x) @ self.b))
        jr = motion_transform(transform_inverse(self.b))[:, :3]
        return np.hstack([jt, jr])


class RightMultiply(DifferentiableFunction):
    """x -> x D on an SE(3) factor; Jacobian Ad(D^-1)."""

    def __init__(self, space, d):
        super().__init__(space, space, "xD")
        self.d, self.f = d, space.factors[0]

    def _value(self, x):
        return self.f.from_matrix(self.f.to_matrix(x) @ self.d)

    def _jacobian(self, x):
        return motion_transform(transform_inverse(self.d))


def lie_set(rng, mask=(Equality,) * 6):
    # q: A = SE3 [0:7] | R = SO3 [7:11] | x = R^2 [11:13] | B = SE3 rotvec [13:19] | y [19]
    space = LiegroupSpace([SE3(), SO3(), VectorSpace(2), SE3("rotvec"), VectorSpace(1)])
    so3 = LiegroupSpace.SO3()

    def rot_value(x):
        return so3.factors[0].from_matrix(so3_exp([x[0], x[1], 0.3]))

    c1 = ExplicitConstraint(space, FunctionFromCallables(
        2, so3, rot_value, lambda x: so3_right_jacobian([x[0], x[1], 0.3])[:, :2], "R(x)"),
        slice(11, 13), slice(7, 11))
    in2, _, _ = space.select(range(0, 11))
    out2, _, _ = space.select(range(13, 19))
    d = se3_exp(rng.normal(size=6))
    c2 = ExplicitConstraint(space, PoseOfProduct(in2, out2, rng.normal(size=3),
                                                 se3_exp(rng.normal(size=6))),
                            [(0, 11)], [(13, 6)], g=RightMultiply(out2, d),
                            g_inverse=RightMultiply(out2, transform_inverse(d)), comparison=mask)
    fb = out2.factors[0]

    def y_value(b):
        return fb.to_matrix(b)[:3, 3][:1] * 2.0

    c3 = ExplicitConstraint(space, FunctionFromCallables(
        out2, 1, y_value, lambda b: 2.0 * np.hstack([np.zeros(3), fb.to_matrix(b)[0, :3]])[None],
        "y(B)"), [(13, 6)], [19])
    cs = ExplicitConstraintSet(space)
    for c in (c3, c2, c1):
        assert cs.add(c) >= 0
    return space, cs, (c1, c2, c3)


def test_lie_group_set_index_sets_solution_and_projector_jacobian():
    rng = np.random.default_rng(11)
    space, cs, (c1, c2, c3) = lie_set(rng)
    np.testing.assert_array_equal(cs.in_q, list(range(0, 7)) + [11, 12])
    np.testing.assert_array_equal(cs.out_q, list(range(7, 11)) + list(range(13, 20)))
    np.testing.assert_array_equal(cs.in_v, list(range(0, 6)) + [9, 10])
    np.testing.assert_array_equal(cs.out_v, list(range(6, 9)) + list(range(11, 18)))
    np.testing.assert_array_equal(cs.not_out_v, list(range(0, 6)) + [9, 10])
    # paths are counted through velocity components: c1 (R, 3 components) reads x once;
    # c2 reads A once per component and the 3 components of R; c3 reads the 6 of B
    deps = cs.in_out_dependencies()
    row_c2 = np.array([1] * 6 + [0] * 3 + [3, 3] + [0] * 7)
    np.testing.assert_array_equal(deps[2], [0] * 9 + [1, 1] + [0] * 7)
    np.testing.assert_array_equal(deps[1], row_c2)
    np.testing.assert_array_equal(deps[0], 6 * row_c2)
    worst = 0.0
    for _ in range(10):
        cs.set_right_hand_side(rng.normal(size=cs.right_hand_side_size) * 0.5)
        p = space.random(rng)
        q = cs.solve(p)
        assert cs.is_satisfied(q)
        assert np.linalg.norm(cs.error(q)) < 1e-12
        np.testing.assert_allclose(q[cs.not_out_q], p[cs.not_out_q])
        jac = cs.jacobian(p)
        np.testing.assert_allclose(jac[np.ix_(cs.not_out_v, cs.not_out_v)], np.eye(8))
        np.testing.assert_allclose(jac[:, cs.out_v], 0.0)
        worst = max(worst, projector_fd_error(cs, p))
        # implicit form: h(q) = rhs on the solution, J_h J_E = 0 (the projector stays on it)
        for i, c in enumerate(cs.constraints):
            h = ImplicitFunction(c)
            np.testing.assert_allclose(h(q), cs.right_hand_side(i), atol=1e-10)
            assert check_jacobian(h, p).max_abs_error < 1e-7
            np.testing.assert_allclose(h.jacobian(q) @ cs.jacobian(q), 0.0, atol=1e-10)
    assert worst < 1e-7, worst


def test_equal_to_zero_mask_on_lie_output():
    rng = np.random.default_rng(12)
    mask = (Equality, EqualToZero, Equality, EqualToZero, EqualToZero, Equality)
    space, cs, (c1, c2, c3) = lie_set(rng, mask)
    assert c2.parameter_size == 3 and cs.right_hand_side_size == 3 + 3 + 1
    p = space.random(rng)
    rhs = cs.right_hand_side_from_input(p, c2)
    np.testing.assert_allclose(rhs[[1, 3, 4]], 0.0)
    np.testing.assert_allclose(rhs[[0, 2, 5]], c2.implicit_value(p)[[0, 2, 5]])
    q = cs.solve(p)
    np.testing.assert_allclose(c2.implicit_value(q), rhs, atol=1e-12)


def test_finite_difference_jacobian_of_constraint_output():
    rng = np.random.default_rng(13)
    space, cs, (c1, c2, c3) = lie_set(rng)
    x = space.random(rng)[c2.input_q]
    f = FunctionFromCallables(c2.input_space, c2.output_space,
                              lambda z: c2.output_value(z, np.full(6, 0.2)))
    num = finite_difference_jacobian(f, x)
    assert np.abs(num - c2.output_jacobian(x, np.full(6, 0.2))).max() < 1e-7


def test_unnamed_constraints_get_distinct_default_names():
    cs = ExplicitConstraintSet(R4)
    f = FunctionFromCallables(1, 1, lambda x: 2 * x, lambda x: np.array([[2.0]]))
    c1 = ExplicitConstraint(R4, f, [0], [1])
    c2 = ExplicitConstraint(R4, f, [0], [2])
    assert c1.name == "FunctionFromCallables: q[0] -> q[1]"
    assert cs.add(c1) == 0 and cs.add(c2) == 1
    assert "q[0] -> q[2]" in cs.describe() and "ExplicitConstraint(" in repr(c2)
