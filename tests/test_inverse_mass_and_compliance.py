"""The O(N) inverse mass matrix and the operational-space compliance.

M^-1 from the articulated-body recursion against inv(M) of our CRBA (itself checked
against Pinocchio elsewhere) and against Pinocchio's computeMinverse on the peer
robots; Upsilon = J M^-1 J^T at 1-4 frames against the dense product.
"""
import numpy as np
import pinocchio as pin
import pytest

import multibody as mb
from robots import ROBOTS, robot_urdf, robots_dir
from test_dynamics_vs_pinocchio import KINDS, random_transform, random_tree

TOL = 1e-10
needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")


def rel_err(a, b):
    assert a.shape == b.shape
    if a.size == 0:  # a tree of locked hinges has no speeds
        return 0.0
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


def load(name):
    floating = ROBOTS[name][1]
    return mb.load_urdf(robot_urdf(name), floating_base="quaternion" if floating else False)


@needs_robots
@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_inverse_mass_matrix_on_peer_robots(name):
    m = load(name)
    rng = np.random.default_rng(1)
    for _ in range(3):
        q = m.random_q(rng)
        M = m.mass_matrix(q)
        Minv = m.inverse_mass_matrix(q)
        assert rel_err(Minv, np.linalg.inv(M)) <= TOL
        assert np.abs(M @ Minv - np.eye(m.nu)).max() <= 1e-9
        assert np.array_equal(Minv, Minv.T)


@needs_robots
def test_inverse_mass_matrix_matches_pinocchio_compute_minverse():
    """An independent peer: Pinocchio's ABA-based computeMinverse on UR5 and Panda."""
    for name in ("ur5", "panda"):
        m = load(name)
        model = pin.buildModelFromUrdf(robot_urdf(name))
        data = model.createData()
        assert m.hinge_names == list(model.names)[1:]
        rng = np.random.default_rng(2)
        q = rng.uniform(-1, 1, m.nq)
        Mp = pin.computeMinverse(model, data, q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        assert rel_err(m.inverse_mass_matrix(q), Mp) <= TOL


@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_inverse_mass_matrix_on_random_trees(kind):
    kinds = KINDS[:-1] if kind == "mixed" else [kind]
    for seed in range(3):
        rng = np.random.default_rng(seed)
        m = random_tree(rng, kinds, n_bodies=9)
        q = m.random_q(rng)
        assert rel_err(m.inverse_mass_matrix(q), np.linalg.inv(m.mass_matrix(q))) <= TOL


def test_inverse_mass_matrix_out_and_errors():
    m = mb.Multibody()
    m.add_serial_chain("l", 5)
    q = m.random_q(0)
    out = np.empty((5, 5))
    assert m.inverse_mass_matrix(q, out=out) is out
    assert rel_err(out, np.linalg.inv(m.mass_matrix(q))) <= TOL
    with pytest.raises(ValueError, match="out must be"):
        m.inverse_mass_matrix(q, out=np.empty((4, 4)))
    with pytest.raises(ValueError, match=r"q must have shape \(5,\)"):
        m.inverse_mass_matrix(np.zeros(4))
    with pytest.raises(ValueError, match=r"q\[2\] is not finite"):
        m.inverse_mass_matrix(np.r_[0.0, 0.0, np.nan, 0.0, 0.0])
    m2 = mb.Multibody()
    m2.add_body("massless")
    m2.add_hinge(None, "massless", "pin")
    with pytest.raises(ValueError, match="singular"):
        m2.inverse_mass_matrix(np.zeros(1))


def test_inverse_mass_matrix_forest_far_base_armature_and_data():
    """Several trees on the world (each computed in its root's frame), a free base far
    from the origin, armature, a spherical hinge inside the tree: equal to inv(M) through
    the thread's data, data= and the batched path. M^-1 does not depend on the free base's
    position (u is in the base frame), so the reference is inv(M) with the base at the
    origin (tests/test_translation_invariance.py checks M itself far away)."""
    m = mb.Multibody()
    base = m.add_body("base", mass=3.0, com=[0.1, -0.05, 0.02], inertia=[0.3, 0.01, 0.0, 0.4, 0.02, 0.5])
    m.add_hinge(None, base, "free_quat")
    m.add_serial_chain("arm", 3, parent="base", kind="pin", axis=(0.3, 1.0, 0.2))
    ball = m.add_body("ball", mass=0.7, com=[0.0, 0.1, 0.0], inertia=[0.02, 0.0, 0.0, 0.03, 0.0, 0.04])
    m.add_hinge("arm1", ball, "spherical", armature=0.05)
    m.add_serial_chain("post", 2, kind="slider", axis=(0.0, 0.0, 1.0))  # a second tree on the world
    m.add_serial_chain("leg", 2, kind="pin", axis=(1.0, 0.0, 0.0))  # and a third
    rng = np.random.default_rng(4)
    for shift in (0.0, 1e3):
        q = m.random_q(rng)
        q[4:7] = 0.0
        want = np.linalg.inv(m.mass_matrix(q))
        q[4:7] = shift  # the free base's position
        assert rel_err(m.inverse_mass_matrix(q), want) <= TOL
        data = m.create_data()
        out = np.empty((m.nu, m.nu))
        assert m.inverse_mass_matrix(q, out=out, data=data) is out
        assert rel_err(out, want) <= TOL
        assert np.array_equal(out, m.inverse_mass_matrix(q))
        Q = np.stack([q, q])
        assert np.array_equal(m.inverse_mass_matrix(Q)[1], out)


def test_inverse_mass_matrix_bad_out_and_model_change():
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    q = m.random_q(0)
    for bad in (np.empty((3, 3), dtype=np.float32), np.empty((3, 4)), np.empty((6, 6))[::2, ::2],
                np.empty((3, 3)).T[:, :2], [[0.0] * 3] * 3):
        with pytest.raises(ValueError, match="out must be"):
            m.inverse_mass_matrix(q, out=bad)
    m.inverse_mass_matrix(q)
    m.add_serial_chain("k", 2, parent="l2")  # recompiled: the next call uses the new model
    q = m.random_q(1)
    assert rel_err(m.inverse_mass_matrix(q), np.linalg.inv(m.mass_matrix(q))) <= TOL


def dense_compliance(m, q, frames):
    J = np.vstack([m.body_jacobian(q, f) for f in frames])
    return J @ np.linalg.solve(m.mass_matrix(q), J.T)


@needs_robots
@pytest.mark.parametrize("frames", [
    ["left_sole_link"],
    ["left_sole_link", "right_sole_link"],
    ["left_sole_link", "right_sole_link", "gripper_left_base_link"],
    ["left_sole_link", "right_sole_link", "gripper_left_base_link", "gripper_right_base_link"],
    ["gripper_right_base_link", "gripper_right_base_link"],
])
def test_compliance_on_talos_feet_and_hands(frames):
    m = load("talos")
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = m.random_q(rng)
        Y = m.operational_space_compliance(q, frames)
        assert Y.shape == (6 * len(frames), 6 * len(frames))
        assert rel_err(Y, dense_compliance(m, q, frames)) <= TOL


@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_compliance_on_random_trees(kind):
    kinds = KINDS[:-1] if kind == "mixed" else [kind]
    for seed in range(3):
        rng = np.random.default_rng(seed)
        m = random_tree(rng, kinds, n_bodies=9)
        m.add_node("tip", "b8", random_transform(rng))
        q = m.random_q(rng)
        names = m.body_names + ["tool", "tip"]
        for k in range(1, 5):
            frames = list(rng.choice(names, size=k, replace=False))
            assert rel_err(m.operational_space_compliance(q, frames), dense_compliance(m, q, frames)) <= TOL


def test_compliance_of_the_world_and_unrelated_branches():
    m = mb.Multibody()
    m.add_serial_chain("a", 3)
    m.add_serial_chain("b", 3)  # a second chain from the world: no common ancestor
    q = m.random_q(0)
    Y = m.operational_space_compliance(q, ["a2", "b2", "world"])
    assert np.all(Y[:6, 6:12] == 0.0) and np.all(Y[12:, :] == 0.0)
    assert rel_err(Y[:12, :12], dense_compliance(m, q, ["a2", "b2"])) <= TOL
    assert rel_err(m.operational_space_compliance(q, "a1"), dense_compliance(m, q, ["a1"])) <= TOL
    with pytest.raises(KeyError, match="unknown body, node or hinge 'a9'"):
        m.operational_space_compliance(q, ["a9"])
    with pytest.raises(ValueError, match="at least one"):
        m.operational_space_compliance(q, [])
