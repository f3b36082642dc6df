"""Robots of example-robot-data against Pinocchio, an independent peer.

Fixed-base arms and floating-base quadrupeds and humanoids (Pinocchio with a
free-flyer root, ours with floating_base="quaternion" and also the rotation-vector
free hinge), at random states: mass matrix, inverse dynamics, forward dynamics,
body poses and body Jacobians, to 1e-9 (relative, absolute near zero).
Pinocchio orders spatial vectors [linear; angular] and a free flyer's q as
[position; quaternion]; the permutations are done here, never in the library.
"""
import warnings

import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

import multibody as mb
from robots import ROBOTS, robot_urdf, robots_dir

pytestmark = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")

TOL = 1e-9


def assert_close(a, b, what):
    err = np.abs(np.asarray(a) - np.asarray(b)).max()
    assert err <= TOL * max(1.0, np.abs(b).max()), f"{what}: max difference {err:.3e}"


def state_maps(m, pm):
    """Functions mapping our (q, u) to Pinocchio's, matched by joint name."""
    perm = np.zeros(pm.nv, dtype=int)
    parts = []
    for jid in range(1, pm.njoints):
        j, name = pm.joints[jid], pm.names[jid]
        qs, us = m.q_slice(name), m.u_slice(name)
        if j.nv == 6:  # free flyer: Pinocchio [v; w], ours [w; v]
            perm[j.idx_v:j.idx_v + 6] = np.r_[us.start + 3:us.start + 6, us.start:us.start + 3]
        else:
            perm[j.idx_v:j.idx_v + j.nv] = np.arange(us.start, us.stop)
        parts.append((j, qs))

    def q_to_pin(q):
        qp = np.zeros(pm.nq)
        for j, qs in parts:
            x = q[qs]
            if j.nq == 7 and len(x) == 7:  # ours [quat; p]
                qp[j.idx_q:j.idx_q + 7] = np.r_[x[4:], x[:4]]
            elif j.nq == 7:  # ours [rotation vector; p]
                qp[j.idx_q:j.idx_q + 7] = np.r_[x[3:], Rotation.from_rotvec(x[:3]).as_quat()]
            elif j.nq == 2 and j.nv == 1:  # continuous: (cos, sin)
                qp[j.idx_q:j.idx_q + 2] = np.cos(x[0]), np.sin(x[0])
            else:
                qp[j.idx_q:j.idx_q + j.nq] = x
        return qp

    return q_to_pin, perm


def load_pair(name, floating):
    path = robot_urdf(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # undefined mimic targets in some files
        m = mb.load_urdf(path, floating_base=floating)
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    return m, pm


CASES = [(n, "quaternion" if fl else False) for n, (_, fl) in ROBOTS.items()]
CASES += [("solo12", True), ("talos", True)]  # rotation-vector free hinge at the root


@pytest.mark.parametrize("name,floating", CASES)
def test_robot_matches_pinocchio(name, floating):
    m, pm = load_pair(name, floating)
    pd = pm.createData()
    q_to_pin, P = state_maps(m, pm)
    assert (m.nu, len(m.body_names) > 0) == (pm.nv, True)
    rng = np.random.default_rng(sum(map(ord, name)))
    S = np.r_[3:6, 0:3]
    frames = [n for n in m.body_names if pm.existFrame(n, pin.FrameType.BODY)]
    assert len(frames) >= len(m.body_names) - 1
    for trial in range(3):
        q = m.random_q(rng, scale=1.5)
        u, udot, tau = rng.normal(size=(3, m.nu))
        qp, up, udp, taup = q_to_pin(q), u[P], udot[P], tau[P]
        M = pin.crba(pm, pd, qp)
        M = np.triu(M) + np.triu(M, 1).T
        assert_close(m.mass_matrix(q)[np.ix_(P, P)], M, f"{name} mass matrix")
        assert_close(m.inverse_dynamics(q, u, udot)[P], pin.rnea(pm, pd, qp, up, udp), f"{name} rnea")
        assert_close(m.forward_dynamics(q, u, tau)[P], pin.aba(pm, pd, qp, up, taup), f"{name} aba")
        pin.forwardKinematics(pm, pd, qp, up, udp)
        pin.computeJointJacobians(pm, pd, qp)
        pin.updateFramePlacements(pm, pd)
        for body in frames[:: max(1, len(frames) // 12)]:
            fid = pm.getFrameId(body, pin.FrameType.BODY)
            assert_close(m.body_pose(q, body), pd.oMf[fid].homogeneous, f"{name} pose of {body}")
            J = pin.getFrameJacobian(pm, pd, fid, pin.LOCAL)[S]
            assert_close(m.body_jacobian(q, body)[:, P], J, f"{name} Jacobian of {body}")
            assert_close(m.body_velocity(q, u, body), pin.getFrameVelocity(pm, pd, fid, pin.LOCAL).vector[S],
                         f"{name} velocity of {body}")
            assert_close(m.body_acceleration(q, u, udot, body),
                         pin.getFrameAcceleration(pm, pd, fid, pin.LOCAL).vector[S], f"{name} acceleration of {body}")
            assert_close(m.body_acceleration(q, u, udot, body, kind="classical"),
                         pin.getFrameClassicalAcceleration(pm, pd, fid, pin.LOCAL).vector[S],
                         f"{name} classical acceleration of {body}")


@pytest.mark.parametrize("name", list(ROBOTS))
def test_hinge_names_and_coordinate_order_match_pinocchio(name):
    floating = "quaternion" if ROBOTS[name][1] else False
    m, pm = load_pair(name, floating)
    assert m.hinge_names == list(pm.names)[1:]
    for jid in range(1, pm.njoints):
        j = pm.joints[jid]
        assert m.u_slice(pm.names[jid]) == slice(j.idx_v, j.idx_v + j.nv)


@pytest.mark.parametrize("name,floating", [("ur5", False), ("talos", "quaternion")])
def test_joint_names_are_frames_as_in_pinocchio(name, floating):
    """A hinge's name is its p-frame on the child (Pinocchio's joint frame, oMi): pose, Jacobian
    and velocity at every joint, at random states."""
    m, pm = load_pair(name, floating)
    pd = pm.createData()
    q_to_pin, P = state_maps(m, pm)
    rng = np.random.default_rng(7)
    S = np.r_[3:6, 0:3]
    for trial in range(2):
        q = m.random_q(rng, scale=1.5)
        u = rng.normal(size=m.nu)
        pin.forwardKinematics(pm, pd, q_to_pin(q), u[P])
        pin.computeJointJacobians(pm, pd, q_to_pin(q))
        for jid in range(1, pm.njoints):
            joint = pm.names[jid]
            assert joint not in m.body_names
            assert_close(m.body_pose(q, joint), pd.oMi[jid].homogeneous, f"{name} pose of joint {joint}")
            J = pin.getJointJacobian(pm, pd, jid, pin.LOCAL)[S]
            assert_close(m.body_jacobian(q, joint)[:, P], J, f"{name} Jacobian of joint {joint}")
            assert_close(m.body_velocity(q, u, joint), pd.v[jid].vector[S], f"{name} velocity of joint {joint}")


def test_a_body_keeps_its_name_over_a_hinge_of_the_same_name():
    from multibody.spatial.se3 import transform
    m = mb.Multibody()
    m.add_body("arm", 1.0, [0.5, 0, 0], np.eye(3) * 0.1)
    m.add_body("tip", 1.0, [0.5, 0, 0], np.eye(3) * 0.1)
    m.add_hinge("world", "arm", "pin", name="arm", axis=[0, 0, 1], T_child_joint=transform(np.eye(3), [-0.5, 0, 0]))
    m.add_hinge("arm", "tip", "pin", name="elbow", axis=[0, 0, 1], T_parent_joint=transform(np.eye(3), [1, 0, 0]),
                T_child_joint=transform(np.eye(3), [-0.5, 0, 0]))
    q = np.array([0.0, np.pi / 2])
    assert np.allclose(m.body_pose(q, "arm")[:3, 3], [0.5, 0, 0])  # the body's frame, not the hinge's
    assert np.allclose(m.body_pose(q, "elbow")[:3, 3], [1.5, 0, 0])  # the elbow's p-frame, on the tip
    assert np.allclose(m.body_pose(q, "tip")[:3, 3], [1.5, 0.5, 0])
    assert np.allclose(m.body_pose(q, "elbow")[:3, :3], m.body_pose(q, "tip")[:3, :3])
    with pytest.raises(KeyError, match="unknown body, node or hinge 'elbo'; did you mean 'elbow'"):
        m.body_pose(q, "elbo")
