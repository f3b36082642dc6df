"""Batched algorithms: stacked states give exactly what a loop of single calls gives."""
import numpy as np
import pytest

import multibody as mb
from robots import robot_urdf, robots_dir
from test_dynamics_vs_pinocchio import KINDS, random_tree


def models():
    out = []
    rng = np.random.default_rng(0)
    m = random_tree(rng, KINDS[:-1], n_bodies=10)
    out.append((m, "tool"))
    if robots_dir() is not None:
        out.append((mb.load_urdf(robot_urdf("talos"), floating_base="quaternion"), "left_sole_link"))
    return out


@pytest.mark.parametrize("B", [1, 2, 3, 17, 256, 4096])
def test_batched_equals_a_loop_of_single_calls_bit_for_bit(B):
    for m, frame in models():
        rng = np.random.default_rng(B)
        Q = np.array([m.random_q(rng) for _ in range(B)])
        U, T = rng.normal(size=(B, m.nu)), rng.normal(size=(B, m.nu))
        small = B <= 256  # the O(nu^2) outputs on the larger batches would only repeat the check
        checks = [(m.forward_dynamics(Q, U, T), lambda i: m.forward_dynamics(Q[i], U[i], T[i])),
                  (m.inverse_dynamics(Q, U, T), lambda i: m.inverse_dynamics(Q[i], U[i], T[i])),
                  (m.kinetic_energy(Q, U), lambda i: m.kinetic_energy(Q[i], U[i])),
                  (m.body_pose(Q, frame), lambda i: m.body_pose(Q[i], frame)),
                  (m.potential_energy(Q), lambda i: m.potential_energy(Q[i])),
                  (m.center_of_mass(Q), lambda i: m.center_of_mass(Q[i])),
                  (m.integrate(Q, U, 0.01), lambda i: m.integrate(Q[i], U[i], 0.01))]
        if small:
            checks += [(m.mass_matrix(Q), lambda i: m.mass_matrix(Q[i])),
                       (m.inverse_mass_matrix(Q), lambda i: m.inverse_mass_matrix(Q[i])),
                       (m.body_jacobian(Q, frame), lambda i: m.body_jacobian(Q[i], frame))]
        for stacked, single in checks:
            for i in sorted({0, B // 2, B - 1} | set(range(min(B, 8)))):
                assert np.array_equal(stacked[i], single(i)), (i, stacked[i], single(i))


def test_batched_errors_name_the_sample_and_shapes():
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    Q = np.zeros((5, 3))
    Q[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"sample 3: q\[1\] is not finite"):
        m.forward_dynamics(Q, np.zeros((5, 3)), np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"u must have shape \(5, 3\)"):
        m.forward_dynamics(np.zeros((5, 3)), np.zeros((4, 3)), np.zeros((5, 3)))
    out = np.empty((5, 3))
    assert m.forward_dynamics(np.zeros((5, 3)), np.zeros((5, 3)), np.zeros((5, 3)), out=out) is out
    with pytest.raises(ValueError, match="out must be"):
        m.mass_matrix(np.zeros((5, 3)), out=np.empty(3))
    with pytest.raises(ValueError, match="f_ext is not supported"):
        m.forward_dynamics(np.zeros((5, 3)), np.zeros((5, 3)), np.zeros((5, 3)), f_ext={"l1": np.ones(6)})


def test_batched_calls_use_the_threads_charts():
    m = mb.Multibody()
    m.add_serial_chain("l", 3, kind="spherical")
    q = np.full(m.nq, 1.3)
    m.sanitize(q)  # moves the charts of this thread's default data
    Q = np.array([q, 0.5 * q])
    for i in range(2):
        assert np.array_equal(m.body_pose(Q, "l2")[i], m.body_pose(Q[i], "l2"))
        assert np.array_equal(m.integrate(Q, np.ones((2, m.nu)), 0.1)[i], m.integrate(Q[i], np.ones(m.nu), 0.1))
