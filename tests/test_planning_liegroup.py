"""Lie-group configuration spaces: group operations, Jacobians vs finite differences."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from multibody.planning import (R3xSO3, SE2, SE3, SO2, SO3, FunctionFromCallables,
                                LiegroupSpace, VectorSpace, finite_difference_jacobian)
from multibody.spatial import quat_to_matrix, se3_exp, so3_exp

FACTORS = [VectorSpace(3), SO2(), SO3(), SO3("rotvec"), SE2(), SE3(), SE3("rotvec"),
           R3xSO3(), R3xSO3("rotvec"), SO3("rotvec", chart_offset=[0.3, -0.1, 0.5, 0.8]),
           SE3("rotvec", chart_offset=[-0.2, 0.6, 0.1, 0.7])]
MIXED = LiegroupSpace(FACTORS)


def fd_check(space_in, space_out, fn, x, jac, tol=1e-7):
    f = FunctionFromCallables(space_in, space_out, fn)
    num = finite_difference_jacobian(f, x, 1e-6)
    err = np.max(np.abs(num - jac))
    assert err < tol, err
    return err


@pytest.mark.parametrize("factor", FACTORS, ids=lambda f: f.name)
def test_factor_group_operations_and_jacobians(factor):
    space = LiegroupSpace([factor])
    rng = np.random.default_rng(7)
    for _ in range(4):
        q0 = space.random(rng)
        v = rng.uniform(-1.2, 1.2, space.nv)
        q1 = space.integrate(q0, v)
        # round trip, identity, neutral
        np.testing.assert_allclose(space.difference(q0, q1), v, atol=1e-12)
        np.testing.assert_allclose(space.difference(q0, q0), 0.0, atol=1e-12)
        np.testing.assert_allclose(space.difference(space.neutral(), space.integrate(
            space.neutral(), v)), v, atol=1e-12)
        # the four Jacobians, on the group
        fd_check(space, space, lambda x: space.integrate(x, v), q0, space.d_integrate_dq(q0, v))
        fd_check(LiegroupSpace.Rn(space.nv), space, lambda w: space.integrate(q0, w), v,
                 space.d_integrate_dv(q0, v))
        rn = LiegroupSpace.Rn(space.nv)
        fd_check(space, rn, lambda x: space.difference(x, q1), q0,
                 space.d_difference_dq0(q0, q1))
        fd_check(space, rn, lambda x: space.difference(q0, x), q1,
                 space.d_difference_dq1(q0, q1))


def test_mixed_space_sizes_and_jacobians():
    assert MIXED.nq == 3 + 2 + 4 + 3 + 4 + 7 + 6 + 7 + 6 + 3 + 6
    assert MIXED.nv == 3 + 1 + 3 + 3 + 3 + 6 + 6 + 6 + 6 + 3 + 6
    rng = np.random.default_rng(1)
    q0 = MIXED.random(rng)
    v = rng.normal(size=MIXED.nv)
    q1 = MIXED.integrate(q0, v)
    jq = MIXED.d_integrate_dq(q0, v)
    assert jq.shape == (MIXED.nv, MIXED.nv)
    fd_check(MIXED, MIXED, lambda x: MIXED.integrate(x, v), q0, jq)
    fd_check(MIXED, LiegroupSpace.Rn(MIXED.nv), lambda x: MIXED.difference(q0, x), q1,
             MIXED.d_difference_dq1(q0, q1))


def test_quaternion_and_rotvec_charts_stay_normalized():
    rng = np.random.default_rng(3)
    sq, sr = LiegroupSpace.SO3(), LiegroupSpace.SO3("rotvec")
    q, r = sq.neutral(), sr.neutral()
    for _ in range(50):
        w = rng.normal(size=3) * 2.0
        q, r = sq.integrate(q, w), sr.integrate(r, w)
        assert abs(np.linalg.norm(q) - 1.0) < 1e-12
        assert np.linalg.norm(r) <= math.pi + 1e-12
        np.testing.assert_allclose(quat_to_matrix(q), so3_exp(r), atol=1e-10)


def test_se3_is_exact_exponential_and_r3xso3_is_direct_product():
    rng = np.random.default_rng(4)
    q = SE3().random(rng, 1.0)
    xi = rng.normal(size=6)
    t0 = SE3().to_matrix(q)
    np.testing.assert_allclose(SE3().to_matrix(SE3().integrate(q, xi)), t0 @ se3_exp(xi),
                               atol=1e-12)
    q2 = R3xSO3().integrate(q, xi)
    np.testing.assert_allclose(q2[4:], q[4:] + xi[3:], atol=1e-14)
    np.testing.assert_allclose(quat_to_matrix(q2[:4]), t0[:3, :3] @ so3_exp(xi[:3]), atol=1e-12)


def test_so2_and_se2_known_values():
    s = LiegroupSpace.SO2()
    q = s.integrate(s.neutral(), [0.5])
    np.testing.assert_allclose(q, [math.cos(0.5), math.sin(0.5)])
    np.testing.assert_allclose(s.difference(q, s.neutral()), [-0.5])
    se2 = LiegroupSpace.SE2()
    # a quarter turn while moving forward by pi/2 along a circle of radius 1
    q = se2.integrate(se2.neutral(), [math.pi / 2, math.pi / 2, 0.0])
    np.testing.assert_allclose(q, [0.0, 1.0, 1.0, 1.0], atol=1e-14)
    # pure translation in the body frame of a rotated start
    q0 = np.array([0.0, 1.0, 2.0, 3.0])  # heading +y
    np.testing.assert_allclose(se2.integrate(q0, [0.0, 1.0, 0.0]), [0.0, 1.0, 2.0, 4.0],
                               atol=1e-14)


def test_chart_offset_changes_matrix_not_tangent():
    off = np.array([0.1, 0.2, -0.3, 0.9])
    off /= np.linalg.norm(off)
    a, b = SE3("rotvec"), SE3("rotvec", chart_offset=off)
    rng = np.random.default_rng(5)
    q, xi = a.random(rng, 1.0), rng.normal(size=6)
    np.testing.assert_allclose(b.to_matrix(q)[:3, :3], quat_to_matrix(off) @ so3_exp(q[:3]))
    np.testing.assert_allclose(b.from_matrix(b.to_matrix(q)), q, atol=1e-12)
    np.testing.assert_allclose(b.to_matrix(b.integrate(q, xi)), b.to_matrix(q) @ se3_exp(xi),
                               atol=1e-12)
    np.testing.assert_allclose(a.difference(q, a.integrate(q, xi))[:3],
                               b.difference(q, b.integrate(q, xi))[:3], atol=1e-12)
    assert LiegroupSpace([a]) != LiegroupSpace([b])
    with pytest.raises(ValueError, match="rotvec"):
        SO3("quaternion", chart_offset=off)


def test_products_equality_and_repr():
    a = LiegroupSpace.Rn(2) * LiegroupSpace.Rn(1) * LiegroupSpace.SE3()
    assert a == LiegroupSpace([VectorSpace(3), SE3()])
    assert a != LiegroupSpace([VectorSpace(3), R3xSO3()])
    assert a != LiegroupSpace([VectorSpace(3), SE3("rotvec")])
    assert "SE(3)" in repr(a) and a.nq == 10 and a.nv == 9
    assert LiegroupSpace() == LiegroupSpace.Rn(0)
    named = LiegroupSpace([VectorSpace(1), SO3()], names=["elbow", "wrist"])
    assert named.q_slice("wrist") == slice(1, 5) and named.v_slice("wrist") == slice(1, 4)
    with pytest.raises(KeyError, match="shoulder"):
        named.factor_index("shoulder")


def test_select_subspaces():
    space = LiegroupSpace([VectorSpace(3), SO3(), VectorSpace(2), SE3("rotvec")])
    sub, q_idx, v_idx = space.select([3, 4, 5, 6, 0, 2])
    assert sub == LiegroupSpace([SO3(), VectorSpace(2)])
    np.testing.assert_array_equal(v_idx, [3, 4, 5, 0, 2])
    np.testing.assert_array_equal(space.velocity_indices([(9, 6), 7, 8]),
                                  [8, 9, 10, 11, 12, 13, 6, 7])
    with pytest.raises(ValueError, match="contiguously"):
        space.select([3, 4])          # half a quaternion
    with pytest.raises(ValueError, match="contiguously"):
        space.select([4, 3, 5, 6])    # quaternion out of order
    with pytest.raises(ValueError, match="repeated"):
        space.select([0, 0])
    with pytest.raises(ValueError, match=r"\[0, 15\)"):
        space.select([15])


def test_bad_inputs_name_the_argument():
    s = LiegroupSpace.SE3()
    with pytest.raises(ValueError, match=r"q must have shape \(7,\)"):
        s.integrate(np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError, match=r"v must have shape \(6,\)"):
        s.integrate(s.neutral(), np.zeros(7))
    with pytest.raises(ValueError, match="q1 contains non-finite"):
        s.difference(s.neutral(), np.full(7, np.nan))
    with pytest.raises(ValueError, match="chart"):
        SO3("euler")
    with pytest.raises(ValueError, match="factors"):
        LiegroupSpace([3])
    with pytest.raises(ValueError, match="non-zero"):
        s.integrate(np.zeros(7), np.zeros(6))          # zero quaternion
    with pytest.raises(ValueError, match="chart_offset"):
        SO3("rotvec", chart_offset=[0.0, 0.0, 1.0])    # not a quaternion
    with pytest.raises(ValueError, match=r"x must have shape \(7,\)"):
        s.check_q(np.zeros(3), "x")
    assert s.check_v([0.0] * 6).dtype == np.float64


def test_public_import_paths():
    from multibody.planning import liegroup
    from multibody.planning.liegroup import (Factor, LiegroupSpace, as_index_array,  # noqa: F401
                                             configuration_space)
    assert set(liegroup.__all__) >= {"LiegroupSpace", "VectorSpace", "SO2", "SO3", "SE2", "SE3",
                                     "R3xSO3", "as_index_array", "configuration_space"}
    assert all(isinstance(f, Factor) for f in FACTORS)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-3.0, 3.0), min_size=6, max_size=6),
       st.lists(st.floats(-3.0, 3.0), min_size=6, max_size=6))
def test_se3_rotvec_roundtrip_property(a, b):
    s = LiegroupSpace.SE3("rotvec")
    q0 = s.integrate(s.neutral(), np.array(a))
    v = np.array(b)
    if np.linalg.norm(v[:3]) >= math.pi - 1e-3:   # log is the inverse only inside the ball
        v[:3] *= (math.pi - 0.1) / np.linalg.norm(v[:3])
    np.testing.assert_allclose(s.difference(q0, s.integrate(q0, v)), v, atol=1e-9)
