"""Cross-check multibody.spatial against Pinocchio (test extra `pin`).

Pinocchio orders spatial vectors [linear; angular]; we order them [angular; linear].
The permutation is done here, in the test, never in the library.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody.spatial as sp

pin = pytest.importorskip("pinocchio")

# P @ x_pin = x_ours for 6-vectors; P @ M_pin @ P.T = M_ours for 6x6 operators.
P = np.zeros((6, 6))
P[:3, 3:] = np.eye(3)
P[3:, :3] = np.eye(3)

RNG = np.random.default_rng(20240611)
N = 25


def _rotvecs():
    out = [np.zeros(3), np.array([1e-9, -2e-9, 0.0]), (np.pi - 1e-7) * np.array([0.6, 0.0, 0.8])]
    for _ in range(N):
        d = RNG.normal(size=3)
        out.append(d / np.linalg.norm(d) * RNG.uniform(0.0, np.pi - 1e-3))
    return out


def _twists():
    return [np.concatenate((w, RNG.normal(size=3))) for w in _rotvecs()]


def _motion(xi):
    """Pinocchio Motion from our [ω; v]."""
    return pin.Motion(xi[3:], xi[:3])


@pytest.mark.parametrize("v", _rotvecs())
def test_so3_against_pinocchio(v):
    R = sp.so3_exp(v)
    assert np.allclose(R, pin.exp3(v), atol=1e-13)
    assert np.allclose(sp.so3_log(R), pin.log3(R), atol=1e-8)
    # Pinocchio's Jexp3 is the right Jacobian, Jlog3(R) its inverse at log(R)
    assert np.allclose(sp.so3_right_jacobian(v), pin.Jexp3(v), atol=1e-12)
    assert np.allclose(sp.so3_right_jacobian_inv(v), pin.Jlog3(R), atol=1e-7)


@pytest.mark.parametrize("xi", _twists())
def test_se3_against_pinocchio(xi):
    M = pin.exp6(_motion(xi))
    assert np.allclose(sp.se3_exp(xi), M.homogeneous, atol=1e-12)
    log = pin.log6(M)
    assert np.allclose(sp.se3_log(M.homogeneous), np.concatenate((log.angular, log.linear)), atol=1e-7)
    assert np.allclose(sp.se3_right_jacobian(xi), P @ pin.Jexp6(_motion(xi)) @ P.T, atol=1e-11)
    # adjoint / motion transform and its dual
    assert np.allclose(sp.motion_transform(M.homogeneous), P @ M.action @ P.T, atol=1e-12)
    assert np.allclose(sp.force_transform(M.homogeneous), P @ M.dualAction @ P.T, atol=1e-12)
    assert np.allclose(sp.motion_transform_inverse(M.homogeneous), P @ M.actInv(pin.SE3.Identity()).action @ P.T,
                       atol=1e-12)
    # spatial cross products
    m = RNG.normal(size=6)
    assert np.allclose(sp.spatial_cross_motion(xi) @ m, P @ _motion(xi).cross(_motion(m)).vector, atol=1e-12)
    f = RNG.normal(size=6)
    fp = pin.Force(f[3:], f[:3])
    assert np.allclose(sp.spatial_cross_force(xi) @ f, P @ _motion(xi).cross(fp).vector, atol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_inertia_against_pinocchio(seed):
    rng = np.random.default_rng(seed)
    m = rng.uniform(0.1, 10.0)
    c = rng.normal(size=3)
    A = rng.normal(size=(3, 3))
    Ic = A @ A.T + 0.1 * np.eye(3)
    I_pin = pin.Inertia(m, c, Ic)
    I6 = sp.spatial_inertia(m, c, Ic)
    assert np.allclose(I6, P @ I_pin.matrix() @ P.T, atol=1e-12)
    T = pin.SE3.Random()
    # Pinocchio: T.act(I) expresses the inertia given in the child frame in the parent frame
    assert np.allclose(sp.transform_spatial_inertia(T.homogeneous, I6), P @ T.act(I_pin).matrix() @ P.T, atol=1e-10)


@pytest.mark.parametrize("seed", range(10))
def test_quaternion_and_rpy_against_pinocchio(seed):
    rng = np.random.default_rng(100 + seed)
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    qp = pin.Quaternion(q[3], q[0], q[1], q[2])  # constructor takes (w, x, y, z)
    assert np.allclose(sp.quat_to_matrix(q), qp.toRotationMatrix(), atol=1e-13)
    rpy = rng.uniform([-np.pi, -np.pi / 2, -np.pi], [np.pi, np.pi / 2, np.pi])
    assert np.allclose(sp.rpy_to_matrix(rpy), pin.rpy.rpyToMatrix(*rpy), atol=1e-13)
    assert np.allclose(sp.matrix_to_rpy(sp.rpy_to_matrix(rpy)), pin.rpy.matrixToRpy(pin.rpy.rpyToMatrix(*rpy)),
                       atol=1e-9)
