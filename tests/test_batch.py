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
    pins = mb.Multibody("pins")  # PIN links only: the batches' PIN-only peers (kernels/pin_batch.py)
    pins.add_serial_chain("p", 6)
    assert pins.compiled.all_pins
    out.append((pins, pins.bodies[-1].name))
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


def _arm_and_free_base_robots():
    """(model, frame): the random tree, and with example-robot-data a fixed-base arm (panda)
    and a free-base humanoid (talos, quaternion base)."""
    out = [(random_tree(np.random.default_rng(0), KINDS[:-1], n_bodies=10), "tool")]
    if robots_dir() is not None:
        out += [(mb.load_urdf(robot_urdf("panda")), "panda_hand"),
                (mb.load_urdf(robot_urdf("talos"), floating_base="quaternion"), "left_sole_link")]
    return out


@pytest.mark.parametrize("B", [1, 5, 64])
def test_stacked_bias_gravity_and_pose_gradient_equal_single_calls_bit_for_bit(B):
    for m, frame in _arm_and_free_base_robots():
        rng = np.random.default_rng(B)
        Q = np.array([m.random_q(rng) for _ in range(B)])
        U = rng.normal(size=(B, m.nu))
        b, g, G = m.bias_forces(Q, U), m.gravity_forces(Q), m.pose_gradient(Q, frame)
        assert b.shape == g.shape == (B, m.nu) and G.shape == (B, 6, m.nq)
        for i in range(B):
            assert np.array_equal(b[i], m.bias_forces(Q[i], U[i])), i
            assert np.array_equal(g[i], m.gravity_forces(Q[i])), i
            assert np.array_equal(G[i], m.pose_gradient(Q[i], frame)), i


def test_stacked_bias_gravity_and_pose_gradient_errors_name_the_users_argument():
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    Q, U = np.zeros((5, 3)), np.zeros((5, 3))
    with pytest.raises(ValueError, match=r"^u must have shape \(5, 3\) \(stacked states\), got \(3,\)"):
        m.bias_forces(Q, np.zeros(3))
    with pytest.raises(ValueError, match=r"^u must have shape \(5, 3\) \(stacked states\), got \(4, 3\)"):
        m.bias_forces(Q, np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"^q must have shape \(5, 3\) \(stacked states\), got \(5, 2\)"):
        m.gravity_forces(np.zeros((5, 2)))
    with pytest.raises(ValueError, match=r"^q must have shape \(5, 3\) \(stacked states\), got \(5, 4\)"):
        m.pose_gradient(np.zeros((5, 4)), "l2")
    Q[3, 1] = np.nan
    for call in (lambda: m.bias_forces(Q, U), lambda: m.gravity_forces(Q), lambda: m.pose_gradient(Q, "l2")):
        with pytest.raises(ValueError, match=r"^sample 3: q\[1\] is not finite"):
            call()
    Q[3, 1] = 0.0
    U[2, 0] = 1e200
    with pytest.raises(ValueError, match=r"^sample 2: overflow: q/u too large"):
        m.bias_forces(Q, U)
    with pytest.raises(ValueError, match="data= is not supported with stacked states"):
        m.gravity_forces(Q, data=m.create_data())
    with pytest.raises(KeyError, match="unknown body, node or hinge 'nope'"):
        m.pose_gradient(Q, "nope")


def test_stacked_forward_dynamics_with_constraints_equals_single_calls_bit_for_bit():
    """Models with enabled constraints: stacked forward dynamics is the batched tree-augmented
    dynamics (kernels/batch.constrained_forward_dynamics_batch, the flex peer for modal
    bodies), sample for sample the single call's numbers; a bad sample is named."""
    import sys
    import warnings
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    from flexible_four_bar import flexible_four_bar
    from four_bar import four_bar
    rng = np.random.default_rng(7)
    for m in (four_bar(), flexible_four_bar()[0]):
        B = 9
        Q = np.array([m.random_q(rng) for _ in range(B)])
        U, T = rng.normal(size=(B, m.nu)), rng.normal(size=(B, m.nu))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # planar loops: redundant rows
            stacked = m.forward_dynamics(Q, U, T)
            out = np.empty((B, m.nu))
            assert m.forward_dynamics(Q, U, T, out=out) is out
            for i in range(B):
                single = m.forward_dynamics(Q[i], U[i], T[i])
                assert np.array_equal(stacked[i], single) and np.array_equal(out[i], single), i
            assert np.array_equal(m.forward_dynamics(Q[0], U[0], T[0], data=m.create_data()), stacked[0])
            T[4, 1] = np.nan
            with pytest.raises(ValueError, match="sample 4.*tau"):
                m.forward_dynamics(Q, U, T)
            with pytest.raises(ValueError, match="f_ext is not supported with stacked"):
                m.forward_dynamics(Q, U, T, f_ext={m.bodies[0].name: np.zeros(6)})
