"""Property and unit tests for multibody.spatial (pure NumPy spatial algebra)."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

import multibody.spatial as sp

PI = np.pi
# SPATIAL_EXAMPLES=2000 for a long search; the default keeps the file fast.
FAST = settings(max_examples=int(os.environ.get("SPATIAL_EXAMPLES", "50")), deadline=None)

# ------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------

finite = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)
vec3 = hnp.arrays(np.float64, 3, elements=finite)
vec6 = hnp.arrays(np.float64, 6, elements=finite)
unit_dir = hnp.arrays(np.float64, 3, elements=st.floats(-1.0, 1.0)).filter(
    lambda a: np.linalg.norm(a) > 1e-3).map(lambda a: a / np.linalg.norm(a))
# angles: tiny, moderate, near pi (all strictly below pi)
angle = st.one_of(
    st.floats(0.0, 1e-6),
    st.floats(0.0, PI - 1e-6),
    st.floats(PI - 1e-6, PI - 1e-12),
    st.sampled_from([0.0, 1e-15, 1e-10, 0.1, 0.5, 1.0, PI - 1e-9]),
)
rotvec = st.builds(lambda d, a: d * a, unit_dir, angle)
quat = hnp.arrays(np.float64, 4, elements=st.floats(-1.0, 1.0)).filter(
    lambda q: np.linalg.norm(q) > 1e-2).map(lambda q: q / np.linalg.norm(q))
rotation = quat.map(lambda q: Rotation.from_quat(q).as_matrix())
point = hnp.arrays(np.float64, 3, elements=st.floats(-5.0, 5.0))
transform_ = st.builds(sp.transform, rotation, point)
twist = st.builds(lambda w, v: np.concatenate((w, v)), rotvec, point)


def _orthonormal(R, tol=1e-12):
    return np.allclose(R.T @ R, np.eye(3), atol=tol) and np.linalg.det(R) > 0


def _same_rotvec(a, b, atol):
    """True when two rotation vectors give the same rotation."""
    return np.allclose(sp.so3_exp(a), sp.so3_exp(b), atol=atol)


# ------------------------------------------------------------------------------------
# SO(3)
# ------------------------------------------------------------------------------------

@FAST
@given(vec3, vec3)
def test_skew_is_cross_product(a, b):
    S = sp.skew(a)
    assert np.allclose(S @ b, np.cross(a, b), atol=1e-12)
    assert np.array_equal(S, -S.T)
    assert np.allclose(sp.unskew(S), a)


@FAST
@given(rotvec)
def test_so3_exp_matches_scipy_and_is_rotation(v):
    R = sp.so3_exp(v)
    assert _orthonormal(R)
    assert np.allclose(R, Rotation.from_rotvec(v).as_matrix(), atol=1e-13)
    assert sp.rotvec_to_matrix is sp.so3_exp
    assert sp.matrix_to_rotvec is sp.so3_log


@FAST
@given(rotvec)
def test_so3_log_exp_round_trip(v):
    w = sp.so3_log(sp.so3_exp(v))
    assert np.linalg.norm(w) <= PI + 1e-12
    # below pi the log is unique and the round trip is exact to rounding
    assert np.allclose(w, v, atol=1e-9, rtol=0)


@FAST
@given(rotation)
def test_so3_exp_log_round_trip(R):
    v = sp.so3_log(R)
    assert np.linalg.norm(v) <= PI + 1e-12
    assert np.allclose(sp.so3_exp(v), R, atol=1e-12)


@pytest.mark.parametrize("theta", [0.0, 1e-300, 1e-16, 1e-12, 1e-8, 1e-5, 1e-3, 0.0999, 0.1001,
                                   0.5, 3.0, PI - 1e-6, PI - 1e-10, PI])
def test_so3_exp_log_special_angles(theta):
    axis = np.array([0.48, -0.6, 0.64])
    v = theta * axis
    R = sp.so3_exp(v)
    assert _orthonormal(R)
    w = sp.so3_log(R)
    assert np.allclose(sp.so3_exp(w), R, atol=1e-14)
    assert np.linalg.norm(w) <= PI + 1e-15
    if theta < PI:
        assert np.allclose(w, v, rtol=1e-8, atol=1e-300 if theta < 1e-8 else 1e-14)
    else:  # at pi, v and -v are the same rotation
        assert np.allclose(w, v, atol=1e-12) or np.allclose(w, -v, atol=1e-12)


def test_so3_log_exact_pi_rotations():
    for R in (np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0])):
        w = sp.so3_log(R)
        assert np.isclose(np.linalg.norm(w), PI)
        assert np.allclose(sp.so3_exp(w), R, atol=1e-14)


def _fd_right(v, h=1e-6):
    R0 = sp.so3_exp(v)
    J = np.zeros((3, 3))
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        J[:, i] = (sp.so3_log(R0.T @ sp.so3_exp(v + e)) - sp.so3_log(R0.T @ sp.so3_exp(v - e))) / (2 * h)
    return J


def _fd_left(v, h=1e-6):
    R0 = sp.so3_exp(v)
    J = np.zeros((3, 3))
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        J[:, i] = (sp.so3_log(sp.so3_exp(v + e) @ R0.T) - sp.so3_log(sp.so3_exp(v - e) @ R0.T)) / (2 * h)
    return J


@FAST
@given(rotvec)
def test_so3_jacobians_match_finite_differences(v):
    assume(np.linalg.norm(v) < PI - 1e-3)
    Jr = sp.so3_right_jacobian(v)
    Jl = sp.so3_left_jacobian(v)
    assert np.allclose(Jr, _fd_right(v), atol=1e-7)
    assert np.allclose(Jl, _fd_left(v), atol=1e-7)
    assert np.allclose(Jr, Jl.T, atol=1e-14)
    assert np.allclose(Jl @ v, v, atol=1e-12)
    assert np.allclose(sp.so3_right_jacobian_inv(v) @ Jr, np.eye(3), atol=1e-10)
    assert np.allclose(sp.so3_left_jacobian_inv(v) @ Jl, np.eye(3), atol=1e-10)


@pytest.mark.parametrize("theta", [0.0, 1e-12, 1e-6, 1e-3, 0.0999, 0.1001, 0.4999, 0.5001, 2.0])
def test_so3_jacobians_near_series_switch(theta):
    v = theta * np.array([0.6, 0.0, -0.8])
    assert np.allclose(sp.so3_right_jacobian(v), _fd_right(v), atol=1e-8)
    assert np.allclose(sp.so3_left_jacobian(v), _fd_left(v), atol=1e-8)
    assert np.allclose(sp.so3_left_jacobian_inv(v) @ sp.so3_left_jacobian(v), np.eye(3), atol=1e-14)
    assert np.allclose(sp.so3_right_jacobian_inv(v) @ sp.so3_right_jacobian(v), np.eye(3), atol=1e-14)


@FAST
@given(rotvec, vec3)
def test_rotvec_joint_body_angular_velocity(v, vdot):
    """R(t) = exp(v(t)): body angular velocity ω = Jr(v) v̇ and v̇ = Jr^{-1} ω."""
    assume(np.linalg.norm(v) < PI - 1e-3)
    h = 1e-6
    Rdot = (sp.so3_exp(v + h * vdot) - sp.so3_exp(v - h * vdot)) / (2 * h)
    omega = sp.unskew(sp.so3_exp(v).T @ Rdot)
    assert np.allclose(omega, sp.so3_right_jacobian(v) @ vdot, atol=1e-6 * (1 + np.abs(vdot).max()))
    assert np.allclose(sp.so3_right_jacobian_inv(v) @ sp.so3_right_jacobian(v) @ vdot, vdot, atol=1e-8)


@FAST
@given(rotation, rotvec)
def test_so3_integrate_difference(R, w):
    R1 = sp.so3_integrate(R, w)
    assert np.allclose(R1, R @ sp.so3_exp(w), atol=1e-14)
    assert np.allclose(sp.so3_difference(R, R1), w, atol=1e-8)


# ------------------------------------------------------------------------------------
# quaternions
# ------------------------------------------------------------------------------------

@FAST
@given(quat, quat)
def test_quaternion_against_scipy(q1, q2):
    assert np.allclose(sp.quat_to_matrix(q1), Rotation.from_quat(q1).as_matrix(), atol=1e-13)
    prod = sp.quat_multiply(q1, q2)
    ref = (Rotation.from_quat(q1) * Rotation.from_quat(q2)).as_quat()
    assert np.allclose(prod, ref, atol=1e-13) or np.allclose(prod, -ref, atol=1e-13)
    assert np.allclose(sp.quat_to_matrix(prod), sp.quat_to_matrix(q1) @ sp.quat_to_matrix(q2), atol=1e-13)
    assert np.allclose(sp.quat_to_rotvec(q1), Rotation.from_quat(q1).as_rotvec(), atol=1e-10) or \
        np.isclose(np.linalg.norm(sp.quat_to_rotvec(q1)), PI)


@FAST
@given(quat)
def test_quaternion_matrix_round_trip_canonical(q):
    q_c = q if q[3] >= 0 else -q
    q2 = sp.matrix_to_quat(sp.quat_to_matrix(q))
    assert q2[3] >= 0
    assert np.isclose(np.linalg.norm(q2), 1.0)
    if q_c[3] > 1e-9:
        assert np.allclose(q2, q_c, atol=1e-12)
    else:
        assert np.allclose(q2, q_c, atol=1e-12) or np.allclose(q2, -q_c, atol=1e-12)
    assert np.allclose(sp.quat_to_matrix(q2), sp.quat_to_matrix(q), atol=1e-13)


@FAST
@given(rotvec)
def test_quaternion_rotvec_round_trip(v):
    q = sp.quat_from_rotvec(v)
    assert np.isclose(np.linalg.norm(q), 1.0)
    assert np.allclose(q, Rotation.from_rotvec(v).as_quat(canonical=False), atol=1e-14)
    assert np.allclose(sp.quat_to_matrix(q), sp.so3_exp(v), atol=1e-13)
    assert np.allclose(sp.quat_to_rotvec(q), v, atol=1e-9)
    assert np.allclose(sp.matrix_to_quat(sp.so3_exp(v)), q, atol=1e-9)


@FAST
@given(quat, point)
def test_quaternion_algebra(q, p):
    assert np.allclose(sp.quat_multiply(q, sp.quat_conjugate(q)), sp.quat_identity(), atol=1e-14)
    assert np.allclose(sp.quat_multiply(sp.quat_identity(), q), q)
    assert np.allclose(sp.quat_multiply(3.0 * q, sp.quat_inverse(3.0 * q)), sp.quat_identity(), atol=1e-14)
    assert np.allclose(sp.quat_normalize(2.5 * q), q)
    assert np.allclose(sp.quat_rotate(q, p), Rotation.from_quat(q).apply(p), atol=1e-12)
    # non-unit input is normalised by quat_to_matrix
    assert np.allclose(sp.quat_to_matrix(7.0 * q), sp.quat_to_matrix(q), atol=1e-14)


def test_quaternion_product_known_value():
    i = np.array([1.0, 0, 0, 0])
    j = np.array([0, 1.0, 0, 0])
    k = np.array([0, 0, 1.0, 0])
    assert np.array_equal(sp.quat_multiply(i, j), k)  # Hamilton: ij = k
    assert np.array_equal(sp.quat_multiply(j, i), -k)
    assert np.array_equal(sp.quat_multiply(i, i), [0, 0, 0, -1.0])


# ------------------------------------------------------------------------------------
# roll-pitch-yaw
# ------------------------------------------------------------------------------------

rpy_angles = st.tuples(st.floats(-PI, PI), st.floats(-PI / 2, PI / 2), st.floats(-PI, PI)).map(np.array)


@FAST
@given(rpy_angles)
def test_rpy_against_scipy_extrinsic_xyz(rpy):
    R = sp.rpy_to_matrix(rpy)
    assert np.allclose(R, Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-14)
    r, p, y = rpy
    Rx = sp.so3_exp([r, 0, 0])
    Ry = sp.so3_exp([0, p, 0])
    Rz = sp.so3_exp([0, 0, y])
    assert np.allclose(R, Rz @ Ry @ Rx, atol=1e-14)
    back = sp.matrix_to_rpy(R)
    assert -PI / 2 <= back[1] <= PI / 2
    assert np.allclose(sp.rpy_to_matrix(back), R, atol=1e-9)
    if abs(abs(p) - PI / 2) > 1e-3 and max(abs(r), abs(y)) < PI - 1e-9:
        assert np.allclose(back, rpy, atol=1e-9)


@pytest.mark.parametrize("pitch", [PI / 2, -PI / 2])
def test_rpy_gimbal_lock(pitch):
    R = sp.rpy_to_matrix([0.3, pitch, -1.1])
    back = sp.matrix_to_rpy(R)
    assert back[0] == 0.0
    assert np.allclose(sp.rpy_to_matrix(back), R, atol=1e-12)


# ------------------------------------------------------------------------------------
# re-centred rotation-vector charts
# ------------------------------------------------------------------------------------

@FAST
@given(rotvec, quat, quat)
def test_rotvec_change_chart_keeps_rotation(v, q_old, q_new):
    v2 = sp.rotvec_change_chart(v, q_old, q_new)
    assert np.linalg.norm(v2) <= PI + 1e-12
    lhs = sp.quat_to_matrix(q_old) @ sp.so3_exp(v)
    rhs = sp.quat_to_matrix(q_new) @ sp.so3_exp(v2)
    assert np.allclose(lhs, rhs, atol=1e-12)
    # same chart: unchanged (below pi)
    assert np.allclose(sp.rotvec_change_chart(v, q_old, -q_old), v, atol=1e-9)


@FAST
@given(rotvec, quat)
def test_rotvec_recenter(v, q):
    v_new, q_new = sp.rotvec_recenter(v, q)
    assert np.array_equal(v_new, np.zeros(3))
    assert np.isclose(np.linalg.norm(q_new), 1.0) and q_new[3] >= 0
    assert np.allclose(sp.quat_to_matrix(q_new), sp.quat_to_matrix(q) @ sp.so3_exp(v), atol=1e-12)
    # moving back to the old chart recovers v
    assert _same_rotvec(sp.rotvec_change_chart(v_new, q_new, q), v, atol=1e-12)


# ------------------------------------------------------------------------------------
# SE(3)
# ------------------------------------------------------------------------------------

@FAST
@given(transform_, point)
def test_transform_inverse_and_point(T, p):
    Ti = sp.transform_inverse(T)
    assert np.allclose(T @ Ti, np.eye(4), atol=1e-12)
    pA = sp.transform_point(T, p)
    assert np.allclose(pA, T[:3, :3] @ p + T[:3, 3])
    assert np.allclose(sp.transform_point(Ti, pA), p, atol=1e-12)
    assert np.allclose(sp.transform_point(T, np.stack([p, 2 * p])), np.stack([pA, sp.transform_point(T, 2 * p)]))


@FAST
@given(rotvec, point)
def test_transform_from_rotvec(v, p):
    T = sp.transform_from_rotvec(v, p)
    assert np.allclose(T, sp.transform(sp.so3_exp(v), p))


@FAST
@given(twist)
def test_se3_exp_matches_matrix_exponential(xi):
    T = sp.se3_exp(xi)
    assert np.allclose(T, expm(sp.se3_hat(xi)), atol=1e-11)
    assert np.allclose(sp.se3_vee(sp.se3_hat(xi)), xi)


@FAST
@given(twist)
def test_se3_log_exp_round_trip(xi):
    assert np.allclose(sp.se3_log(sp.se3_exp(xi)), xi, atol=1e-8)


@FAST
@given(transform_)
def test_se3_exp_log_round_trip(T):
    xi = sp.se3_log(T)
    assert np.linalg.norm(xi[:3]) <= PI + 1e-12
    assert np.allclose(sp.se3_exp(xi), T, atol=1e-11)


@pytest.mark.parametrize("eps", [1e-12, 1e-9, 3e-7, 1e-4])
def test_se3_log_near_pi(eps):
    for axis in (np.array([0.0, 0.0, 1.0]), np.array([0.48, -0.6, 0.64])):
        xi = np.concatenate(((PI - eps) * axis, [0.3, 1.0, -1.0]))
        T = sp.se3_exp(xi)
        assert np.allclose(sp.se3_exp(sp.se3_log(T)), T, atol=1e-14)
        assert np.allclose(sp.se3_log(T), xi, atol=1e-9)


def _ad_series(xi, sign):
    A = sign * sp.spatial_cross_motion(xi)
    J = np.zeros((6, 6))
    P = np.eye(6)
    fact = 1.0
    for n in range(80):
        J += P / fact
        P = P @ A
        fact *= n + 2
    return J


def _fd_se3(xi, side, h=1e-6):
    T0 = sp.se3_exp(xi)
    T0i = sp.transform_inverse(T0)
    J = np.zeros((6, 6))
    for i in range(6):
        e = np.zeros(6)
        e[i] = h
        if side == "right":
            d = sp.se3_log(T0i @ sp.se3_exp(xi + e)) - sp.se3_log(T0i @ sp.se3_exp(xi - e))
        else:
            d = sp.se3_log(sp.se3_exp(xi + e) @ T0i) - sp.se3_log(sp.se3_exp(xi - e) @ T0i)
        J[:, i] = d / (2 * h)
    return J


@FAST
@given(twist)
def test_se3_jacobians_match_finite_differences(xi):
    assume(np.linalg.norm(xi[:3]) < PI - 1e-3)
    Jr = sp.se3_right_jacobian(xi)
    Jl = sp.se3_left_jacobian(xi)
    assert np.allclose(Jr, _fd_se3(xi, "right"), atol=2e-6)
    assert np.allclose(Jl, _fd_se3(xi, "left"), atol=2e-6)
    assert np.allclose(Jl, _ad_series(xi, 1.0), atol=1e-12)
    assert np.allclose(Jr, _ad_series(xi, -1.0), atol=1e-12)
    assert np.allclose(sp.se3_left_jacobian_inv(xi) @ Jl, np.eye(6), atol=1e-10)
    assert np.allclose(sp.se3_right_jacobian_inv(xi) @ Jr, np.eye(6), atol=1e-10)
    # Jl = Ad(exp(xi)) Jr
    assert np.allclose(Jl, sp.motion_transform(sp.se3_exp(xi)) @ Jr, atol=1e-11)


@pytest.mark.parametrize("theta", [0.0, 1e-12, 1e-6, 1e-3, 0.0999, 0.1001, 0.4999, 0.5001, 2.0, 3.1])
def test_se3_jacobians_near_series_switch(theta):
    xi = np.concatenate((theta * np.array([0.0, 0.6, 0.8]), [0.3, -1.2, 2.0]))
    for sign in (1.0, -1.0):
        J = sp.se3_left_jacobian(sign * xi)
        assert np.allclose(J, _ad_series(sign * xi, 1.0), atol=2e-15, rtol=0)
        assert np.allclose(sp.se3_left_jacobian_inv(sign * xi) @ J, np.eye(6), atol=1e-14)


@FAST
@given(transform_, twist)
def test_se3_integrate_difference(T, xi):
    T1 = sp.se3_integrate(T, xi)
    assert np.allclose(T1, T @ sp.se3_exp(xi), atol=1e-14)
    assert np.allclose(sp.se3_difference(T, T1), xi, atol=1e-8)


# ------------------------------------------------------------------------------------
# spatial vectors
# ------------------------------------------------------------------------------------

@FAST
@given(transform_, vec6, vec6)
def test_motion_force_duality(T, m_B, f_B):
    X = sp.motion_transform(T)
    F = sp.force_transform(T)
    m_A = X @ m_B
    f_A = F @ f_B
    assert np.isclose(f_A @ m_A, f_B @ m_B, atol=1e-9)
    assert np.allclose(F, np.linalg.inv(X).T, atol=1e-10)
    assert np.allclose(sp.motion_transform_inverse(T) @ X, np.eye(6), atol=1e-12)
    assert np.allclose(sp.motion_transform_inverse(T), sp.motion_transform(sp.transform_inverse(T)), atol=1e-12)
    assert np.allclose(sp.force_transform_inverse(T) @ F, np.eye(6), atol=1e-12)


@FAST
@given(transform_, vec3, vec3)
def test_motion_transform_is_rigid_body_velocity(T, w_B, v_B):
    """A rigid body with twist [w_B; v_B] at B's origin has, at A's origin, velocity
    v_A = R v_B + w_A x (p_A_of_Aorigin - p_AB) = R v_B + p_AB x w_A."""
    R, p = T[:3, :3], T[:3, 3]
    m_A = sp.motion_transform(T) @ np.concatenate((w_B, v_B))
    w_A = R @ w_B
    assert np.allclose(m_A[:3], w_A)
    assert np.allclose(m_A[3:], R @ v_B + np.cross(w_A, -p), atol=1e-10)


@FAST
@given(transform_, transform_)
def test_motion_transform_composition(T_AB, T_BC):
    T_AC = T_AB @ T_BC
    assert np.allclose(sp.motion_transform(T_AC), sp.motion_transform(T_AB) @ sp.motion_transform(T_BC), atol=1e-10)
    assert np.allclose(sp.force_transform(T_AC), sp.force_transform(T_AB) @ sp.force_transform(T_BC), atol=1e-10)


@FAST
@given(vec6, vec6, vec6)
def test_spatial_cross_products(v, m, f):
    crm = sp.spatial_cross_motion(v)
    crf = sp.spatial_cross_force(v)
    assert np.allclose(crf, -crm.T)
    assert np.allclose(crm @ m, -sp.spatial_cross_motion(m) @ v, atol=1e-10)
    assert np.isclose((crf @ f) @ m, -f @ (crm @ m), atol=1e-8)
    assert sp.crm is sp.spatial_cross_motion and sp.crf is sp.spatial_cross_force
    # crm(v) is the derivative of the motion transform along exp(t v): the adjoint
    h = 1e-6
    dX = (sp.motion_transform(sp.se3_exp(h * v)) - sp.motion_transform(sp.se3_exp(-h * v))) / (2 * h)
    assert np.allclose(dX, crm, atol=1e-6)


# ------------------------------------------------------------------------------------
# spatial inertia
# ------------------------------------------------------------------------------------

mass = st.floats(0.01, 100.0)
com = hnp.arrays(np.float64, 3, elements=st.floats(-2.0, 2.0))
principal = hnp.arrays(np.float64, 3, elements=st.floats(0.01, 10.0))


@st.composite
def body(draw):
    m = draw(mass)
    c = draw(com)
    R = draw(rotation)
    Ic = R @ np.diag(draw(principal)) @ R.T
    return m, c, 0.5 * (Ic + Ic.T)


def _kinetic_energy(m, c, Ic, V):
    """First-principles energy of a body moving with twist V = [ω; v] at the frame origin."""
    w, v = V[:3], V[3:]
    v_c = v + np.cross(w, c)
    return 0.5 * m * v_c @ v_c + 0.5 * w @ Ic @ w


@FAST
@given(body(), vec6)
def test_spatial_inertia_energy_and_round_trip(b, V):
    m, c, Ic = b
    I6 = sp.spatial_inertia(m, c, Ic)
    assert np.allclose(I6, I6.T)
    assert np.isclose(0.5 * V @ I6 @ V, _kinetic_energy(m, c, Ic, V), rtol=1e-10, atol=1e-10)
    m2, c2, Ic2 = sp.inertia_from_spatial(I6)
    assert np.isclose(m2, m) and np.allclose(c2, c, atol=1e-12) and np.allclose(Ic2, Ic, atol=1e-10)
    # linear momentum = m v_c
    assert np.allclose((I6 @ V)[3:], m * (V[3:] + np.cross(V[:3], c)), atol=1e-9)


@FAST
@given(body(), transform_, vec6)
def test_transform_spatial_inertia_energy_invariance(b, T_AB, V_B):
    m, c, Ic = b
    I_B = sp.spatial_inertia(m, c, Ic)
    I_A = sp.transform_spatial_inertia(T_AB, I_B)
    V_A = sp.motion_transform(T_AB) @ V_B
    assert np.isclose(V_A @ I_A @ V_A, V_B @ I_B @ V_B, rtol=1e-9, atol=1e-9)
    # same body described directly in A
    R, p = T_AB[:3, :3], T_AB[:3, 3]
    assert np.allclose(I_A, sp.spatial_inertia(m, R @ c + p, R @ Ic @ R.T), atol=1e-9)
    # momentum is a force vector: h_A = F h_B
    assert np.allclose(I_A @ V_A, sp.force_transform(T_AB) @ (I_B @ V_B), atol=1e-8)


@FAST
@given(body(), transform_, transform_)
def test_transform_spatial_inertia_composition(b, T_AB, T_BC):
    I_C = sp.spatial_inertia(*b)
    lhs = sp.transform_spatial_inertia(T_AB, sp.transform_spatial_inertia(T_BC, I_C))
    assert np.allclose(lhs, sp.transform_spatial_inertia(T_AB @ T_BC, I_C), atol=1e-8)


def test_spatial_inertia_about_offset_origin():
    """A point-free translation: inertia at c equals the central inertia moved by -c."""
    m, c, Ic = 2.0, np.array([0.1, -0.2, 0.3]), np.diag([0.4, 0.5, 0.6])
    I_com = sp.spatial_inertia(m, np.zeros(3), Ic)
    I_o = sp.transform_spatial_inertia(sp.transform(np.eye(3), c), I_com)
    assert np.allclose(I_o, sp.spatial_inertia(m, c, Ic))
    # parallel-axis theorem on the rotational block
    assert np.allclose(I_o[:3, :3], Ic + m * (c @ c * np.eye(3) - np.outer(c, c)))


def test_massless_inertia():
    I6 = sp.spatial_inertia(0.0, np.zeros(3), np.zeros((3, 3)))
    m, c, Ic = sp.inertia_from_spatial(I6)
    assert m == 0.0 and np.array_equal(c, np.zeros(3)) and np.array_equal(Ic, np.zeros((3, 3)))


# ------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------

GOOD3 = np.zeros(3)
GOOD4 = np.array([0.0, 0.0, 0.0, 1.0])
GOOD6 = np.zeros(6)
R0 = np.eye(3)
T0 = np.eye(4)
I0 = sp.spatial_inertia(1.0, np.zeros(3), np.eye(3))

# (function, good args, index of the argument to corrupt, its name, its shape)
CASES = [
    (sp.skew, (GOOD3,), 0, "v", "(3,)"),
    (sp.unskew, (R0,), 0, "S", "(3, 3)"),
    (sp.so3_exp, (GOOD3,), 0, "v", "(3,)"),
    (sp.so3_log, (R0,), 0, "R", "(3, 3)"),
    (sp.so3_right_jacobian, (GOOD3,), 0, "v", "(3,)"),
    (sp.so3_right_jacobian_inv, (GOOD3,), 0, "v", "(3,)"),
    (sp.so3_left_jacobian, (GOOD3,), 0, "v", "(3,)"),
    (sp.so3_left_jacobian_inv, (GOOD3,), 0, "v", "(3,)"),
    (sp.so3_integrate, (R0, GOOD3), 1, "w", "(3,)"),
    (sp.so3_difference, (R0, R0), 1, "R1", "(3, 3)"),
    (sp.quat_multiply, (GOOD4, GOOD4), 1, "q2", "(4,)"),
    (sp.quat_conjugate, (GOOD4,), 0, "q", "(4,)"),
    (sp.quat_normalize, (GOOD4,), 0, "q", "(4,)"),
    (sp.quat_to_matrix, (GOOD4,), 0, "q", "(4,)"),
    (sp.matrix_to_quat, (R0,), 0, "R", "(3, 3)"),
    (sp.quat_from_rotvec, (GOOD3,), 0, "v", "(3,)"),
    (sp.quat_to_rotvec, (GOOD4,), 0, "q", "(4,)"),
    (sp.rpy_to_matrix, (GOOD3,), 0, "rpy", "(3,)"),
    (sp.matrix_to_rpy, (R0,), 0, "R", "(3, 3)"),
    (sp.rotvec_change_chart, (GOOD3, GOOD4, GOOD4), 2, "offset_new", "(4,)"),
    (sp.rotvec_recenter, (GOOD3, GOOD4), 0, "v", "(3,)"),
    (sp.transform, (R0, GOOD3), 1, "p", "(3,)"),
    (sp.transform_inverse, (T0,), 0, "T", "(4, 4)"),
    (sp.transform_from_rotvec, (GOOD3, GOOD3), 0, "v", "(3,)"),
    (sp.se3_exp, (GOOD6,), 0, "xi", "(6,)"),
    (sp.se3_log, (T0,), 0, "T", "(4, 4)"),
    (sp.se3_left_jacobian, (GOOD6,), 0, "xi", "(6,)"),
    (sp.se3_left_jacobian_inv, (GOOD6,), 0, "xi", "(6,)"),
    (sp.se3_right_jacobian, (GOOD6,), 0, "xi", "(6,)"),
    (sp.se3_right_jacobian_inv, (GOOD6,), 0, "xi", "(6,)"),
    (sp.motion_transform, (T0,), 0, "T_AB", "(4, 4)"),
    (sp.force_transform, (T0,), 0, "T_AB", "(4, 4)"),
    (sp.motion_transform_inverse, (T0,), 0, "T_AB", "(4, 4)"),
    (sp.spatial_cross_motion, (GOOD6,), 0, "v", "(6,)"),
    (sp.spatial_cross_force, (GOOD6,), 0, "v", "(6,)"),
    (sp.spatial_inertia, (1.0, GOOD3, R0), 1, "com", "(3,)"),
    (sp.spatial_inertia, (1.0, GOOD3, R0), 2, "inertia_com", "(3, 3)"),
    (sp.inertia_from_spatial, (I0,), 0, "I6", "(6, 6)"),
    (sp.transform_spatial_inertia, (T0, I0), 0, "T_AB", "(4, 4)"),
    (sp.transform_spatial_inertia, (T0, I0), 1, "I_B", "(6, 6)"),
]


def _ids(case):
    return f"{case[0].__name__}-{case[3]}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_bad_input_wrong_shape(case):
    fn, args, k, name, shape = case
    fn(*args)  # the good arguments are accepted
    bad = list(args)
    bad[k] = np.zeros(np.asarray(args[k]).size + 1)
    with pytest.raises(ValueError, match=re.escape(f"{name} must have shape {shape}")):
        fn(*bad)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_bad_input_nan(case):
    fn, args, k, name, shape = case
    bad = list(args)
    a = np.array(args[k], dtype=float)
    a.flat[0] = np.nan
    bad[k] = a
    with pytest.raises(ValueError) as exc:
        fn(*bad)
    assert name in str(exc.value) and "finite" in str(exc.value)


def test_bad_input_values():
    with pytest.raises(ValueError, match="rotation matrix"):
        sp.so3_log(np.ones((3, 3)))
    with pytest.raises(ValueError, match="rotation matrix"):
        sp.matrix_to_quat(np.diag([1.0, 1.0, -1.0]))  # reflection
    with pytest.raises(ValueError, match="last row"):
        sp.se3_log(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="nonzero"):
        sp.quat_to_matrix(np.zeros(4))
    with pytest.raises(ValueError, match="mass"):
        sp.spatial_inertia(-1.0, GOOD3, R0)
    with pytest.raises(ValueError, match="mass"):
        sp.spatial_inertia(np.nan, GOOD3, R0)
    with pytest.raises(ValueError, match="symmetric"):
        sp.spatial_inertia(1.0, GOOD3, np.triu(np.ones((3, 3))))
    with pytest.raises(ValueError, match="v must"):
        sp.so3_exp("abc")
    with pytest.raises(ValueError, match="p must have shape"):
        sp.transform_point(T0, np.zeros((2, 4)))


def test_rpy_rebuilds_near_gimbal_lock_rotations_to_rounding():
    """cp = cos(pitch) down to 1e-13: the angles rebuild R to 1e-15 (was ~cp)."""
    from multibody.spatial import matrix_to_rpy, rpy_to_matrix
    rng = np.random.default_rng(7)
    for cp in (1e-3, 1e-8, 5e-12, 1e-13):
        for sign in (1.0, -1.0):
            pitch = sign * np.arccos(cp)
            R = rpy_to_matrix([rng.uniform(-3, 3), pitch, rng.uniform(-3, 3)])
            assert np.abs(rpy_to_matrix(matrix_to_rpy(R)) - R).max() < 1e-15 * 4
