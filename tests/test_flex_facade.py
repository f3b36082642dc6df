"""The facade's energies, centre of mass and random configurations on models with modal
bodies, against a body of lumped point masses whose positions we compute ourselves."""
import numpy as np
import pytest

import multibody as mb
from multibody.flex import modal_data_from_nodes
from multibody.algorithms.energy import trajectory_energies


def _point_mass_body(rng, k=5, n=2):
    x = rng.normal(size=(k, 3))
    shapes = 0.3 * rng.normal(size=(k, 3, n))
    masses = rng.uniform(0.5, 1.5, k)
    return modal_data_from_nodes(x, shapes, stiffness=rng.uniform(10, 20, n), masses=masses), x, shapes, masses


def _model(rng):
    data, x, shapes, masses = _point_mass_body(rng)
    m = mb.Multibody()
    m.gravity = rng.normal(size=3)
    lump = m.add_body("lump", mass=2.0, com=(0.1, 0.2, 0.3), inertia=np.eye(3))
    m.add_hinge(None, lump, "spherical")
    body = m.add_modal_body("flex", modal_data=data)
    T = np.eye(4)
    T[:3, 3] = (0.5, 0.0, -0.2)
    m.add_hinge(lump, body, "pin", axis=(0, 1, 0), T_parent_joint=T)
    return m, data, x, shapes, masses


def test_centre_of_mass_and_potential_energy_of_deformed_point_masses():
    rng = np.random.default_rng(3)
    m, data, x, shapes, masses = _model(rng)
    q = m.random_q(rng, modal_scale=0.05)
    eta = q[m.modal_slice("flex")]
    assert np.abs(eta).max() > 0.0
    T_lump, T_flex = m.body_pose(q, "lump"), m.body_pose(q, "flex")
    points = (x + shapes @ eta) @ T_flex[:3, :3].T + T_flex[:3, 3]  # world positions of the masses
    total = 2.0 + masses.sum()
    com = (2.0 * (T_lump[:3, :3] @ np.array([0.1, 0.2, 0.3]) + T_lump[:3, 3]) + masses @ points) / total
    np.testing.assert_allclose(m.center_of_mass(q), com, rtol=0, atol=1e-13)
    strain = 0.5 * eta @ (data.stiffness * eta)
    assert abs(m.potential_energy(q) - (-total * m.gravity @ com + strain)) < 1e-12 * (1 + total * abs(com).max())


def test_trajectory_energies_and_result_energy_take_the_flex_path():
    rng = np.random.default_rng(4)
    m, *_ = _model(rng)
    Q = np.array([m.random_q(rng, modal_scale=0.05) for _ in range(3)])
    U = rng.normal(size=(3, m.nu))
    ke, pe = trajectory_energies(m, Q, U)
    np.testing.assert_array_equal(ke, [m.kinetic_energy(q, u) for q, u in zip(Q, U)])
    np.testing.assert_array_equal(pe, [m.potential_energy(q) for q in Q])
    res = mb.simulate(m, Q[0], np.zeros(m.nu), 0.2, dt=0.01, integrator="dopri5", rtol=1e-10, atol=1e-12)
    total = np.sum(res.energy(m), axis=0)
    assert np.abs(total - total[0]).max() < 1e-8 * max(1.0, np.abs(total).max())


def test_random_q_leaves_modal_coordinates_undeformed_unless_asked():
    rng = np.random.default_rng(5)
    m, *_ = _model(rng)
    q = m.random_q(7)
    assert np.all(q[m.modal_slice("flex")] == 0.0)
    rigid = q[:m.modal_slice("flex").start]
    assert np.linalg.norm(rigid[:3]) > 0 and rigid[3] != 0.0  # the hinges are still sampled
    eta = np.array([m.random_q(s, modal_scale=1e-3)[m.modal_slice("flex")] for s in range(400)])
    assert 0.8e-3 < eta.std() < 1.2e-3


def test_quaternions_after_a_modal_body_are_checked():
    """The state check used to hand a model over to the flex path at its first modal link,
    before the quaternions of the links after it were checked: a non-unit one was used as
    it was, a zero one raised a bare ZeroDivisionError."""
    rng = np.random.default_rng(6)
    data, *_ = _point_mass_body(rng)
    m = mb.Multibody()
    body = m.add_modal_body("flex", modal_data=data)
    m.add_hinge(None, body, "pin", axis=(0, 1, 0))
    ball = m.add_body("ball", mass=1.0, inertia=np.eye(3))
    m.add_hinge(body, ball, "spherical_quat")
    q, u = np.zeros(m.nq), np.zeros(m.nu)
    quat = m.q_slice("ball_hinge")
    for value, message in ((2.0, "not a unit quaternion.*ball_hinge"), (0.0, "zero quaternion.*ball_hinge")):
        q[quat.stop - 1] = value
        for call in (lambda: m.forward_dynamics(q, u, u), lambda: m.mass_matrix(q), lambda: m.kinetic_energy(q, u)):
            with pytest.raises(ValueError, match=message):
                call()
    q[quat.stop - 1] = 1.0
    assert np.all(np.isfinite(m.forward_dynamics(q, u, u)))
