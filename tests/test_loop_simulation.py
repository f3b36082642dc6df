"""Closed loops in motion: the four-bar of RigidBodyDynamics.jl's tests, a slider-crank, Baumgarte
stabilization, the constraint kinematics solver and constrained inverse dynamics."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.algorithms.constraint_kinematics import ConstraintError

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import four_bar  # noqa: E402  (the example's model: one definition of the four-bar)
from slider_crank import slider_crank  # noqa: E402

ANGLES = np.array([1.6707963267948966, -1.4591054166649482, 1.5397303602625536])


def _energy(m, res):
    return np.array([m.kinetic_energy(q, u) + m.potential_energy(q) for q, u in zip(res.q, res.u)])


def _closure(m, res):
    return max(np.abs(m.pose_error(q, "residual")).max() for q in res.q)


@pytest.fixture(scope="module")
def closed_four_bar():
    m = four_bar()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop: 3 of its 5 rows are redundant
        cks = m.constraint_kinematics()
        q = cks.solve_q(ANGLES)
        u = cks.solve_u(q, [2.0, 0.0, 0.0], frozen=["crank_joint"])
    return m, q, u


@pytest.mark.parametrize("integrator", ["rk4", "munthe_kaas"])
def test_four_bar_conserves_energy_and_stays_closed_without_stabilization(closed_four_bar, integrator):
    m, q, u = closed_four_bar
    assert np.abs(m.pose_error(q, "residual")).max() < 1e-12
    assert np.abs(m.velocity_error(q, u, "residual")).max() < 1e-12
    res = mb.simulate(m, q, u, 1.0, dt=1e-3, integrator=integrator, stabilization_gains=None)
    E = _energy(m, res)
    assert np.ptp(res.q[:, 0]) > 0.5  # it moves
    assert np.abs(E - E[0]).max() < 1e-8
    assert _closure(m, res) < 1e-10


def test_four_bar_opened_by_a_centiradian_is_pulled_shut_by_default_baumgarte(closed_four_bar):
    m, q, _ = closed_four_bar
    q0 = q.copy()
    q0[0] = 1.7
    assert np.abs(m.pose_error(q0, "residual")).max() > 1e-2
    res = mb.simulate(m, q0, np.zeros(3), 15.0, dt=1e-3)  # stabilization_gains="default"
    sep = np.array([np.abs(m.pose_error(x, "residual")).max() for x in res.q])
    assert sep[-1] < 1e-5 and sep[res.t > 5.0].max() < 1e-5
    off = mb.simulate(m, q0, np.zeros(3), 1.0, dt=1e-3, stabilization_gains=None)
    assert _closure(m, off) > 1e-2  # without it the loop stays open
    with pytest.raises(ValueError, match="'nope' is not an enabled constraint"):
        mb.simulate(m, q0, np.zeros(3), 0.01, dt=1e-3, stabilization_gains={"nope": (1, 1)})


def test_solve_q_reports_an_unclosable_loop_by_name():
    m = four_bar()
    q = ANGLES.copy()
    q[1] += 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ConstraintError, match="'closure'"):
            m.constraint_kinematics(max_iterations=5).solve_q(q, frozen=["crank_joint", "coupler_joint"])


def test_solve_udot_and_constrained_inverse_dynamics_round_trip(closed_four_bar):
    m, q, u = closed_four_bar
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        udot = m.constraint_kinematics().solve_udot(q, u, [0.7, 0.0, 0.0], frozen=["crank_joint"])
    assert abs(udot[0] - 0.7) < 1e-15
    assert np.abs(m.acceleration_error(q, u, udot, "residual")).max() < 1e-10
    inv = m.constrained_inverse_dynamics(q, u, udot, actuated=["crank_joint"])
    assert np.abs(inv.residual).max() < 1e-9 and np.all(inv.tau[1:] == 0.0)
    fwd = m.constrained_dynamics(q, u, inv.tau)
    np.testing.assert_allclose(fwd.udot, udot, atol=1e-9)


def test_slider_crank_driven_at_constant_speed_follows_the_closed_form():
    r, length, omega = 0.3, 1.0, 2 * np.pi
    m = slider_crank(r, length)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cks = m.constraint_kinematics()
        q = cks.solve_q([0.4, -0.3, 1.2], frozen=["crank_joint"])
        u = cks.solve_u(q, [omega, 0, 0], frozen=["crank_joint"])

    def drive(t, q, u, tau):  # computed torque for a crank at constant speed, plus a speed servo
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            udot = cks.solve_udot(q, u, np.zeros(3), frozen=["crank_joint"])
        tau[0] = m.constrained_inverse_dynamics(q, u, udot, actuated=["crank_joint"]).tau[0]
        tau[0] += 20.0 * (omega - u[0])
    res = mb.simulate(m, q, u, 1.2, dt=1e-3, control=drive)
    theta, x = res.q[:, 0], res.q[:, 2]
    closed_form = r * np.cos(theta) + np.sqrt(length ** 2 - (r * np.sin(theta)) ** 2)
    assert np.ptp(theta) > 2 * np.pi  # more than a turn
    assert np.abs(res.u[:, 0] - omega).max() < 1e-8
    assert np.abs(x - closed_form).max() < 1e-10


def test_linear_spring_damper_between_nodes_keeps_total_energy_and_dissipates_with_damping(closed_four_bar):
    m, q, u = closed_four_bar
    T = np.eye(4)
    T[:3, 3] = (0.5, 0.0, 0.0)
    m2 = four_bar()
    m2.add_node("crank_tip", "crank", T)
    T[:3, 3] = (0.2, 0.0, 0.9)
    m2.add_node("anchor", None, T)
    spring = mb.LinearSpringDamper("anchor", "crank_tip", stiffness=40.0, rest_length=0.3)
    res = mb.simulate(m2, q, u, 1.0, dt=1e-3, forces=[spring], stabilization_gains=None)
    E = _energy(m2, res) + np.array([spring.energy(m2, x) for x in res.q])
    assert np.ptp([spring.energy(m2, x) for x in res.q]) > 0.1  # the spring works
    assert np.abs(E - E[0]).max() < 1e-8
    damped = mb.LinearSpringDamper("anchor", "crank_tip", stiffness=40.0, damping=5.0, rest_length=0.3)
    res = mb.simulate(m2, q, u, 1.0, dt=1e-3, forces=[damped], stabilization_gains=None)
    E = _energy(m2, res) + np.array([damped.energy(m2, x) for x in res.q])
    assert np.all(np.diff(E) <= 1e-9) and E[-1] < E[0] - 0.1
    with pytest.raises(ValueError, match="stiffness must be finite and >= 0"):
        mb.LinearSpringDamper("anchor", "crank_tip", stiffness=-1.0)


def test_projection_every_k_samples_keeps_the_loop_closed(closed_four_bar):
    m, q, u = closed_four_bar
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loose = mb.simulate(m, q, u, 2.0, dt=1e-2, stabilization_gains=None)
        tight = mb.simulate(m, q, u, 2.0, dt=1e-2, stabilization_gains=None, project_every=10)
    assert _closure(m, loose) > 1e-8  # a coarse step drifts off the manifold
    # samples are stored before each projection: the drift is that of 10 steps, not of 200
    assert _closure(m, tight) < _closure(m, loose) / 5
    with pytest.raises(ValueError, match="project_every must be a positive integer"):
        mb.simulate(m, q, u, 0.1, dt=1e-2, project_every=0)


def test_loop_examples_run(tmp_path):
    import importlib
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free, pulled = importlib.import_module("four_bar").main(["--t-final", "1", "--plot", str(tmp_path / "fb.png")])
        res = importlib.import_module("slider_crank").main(["--turns", "0.2"])
        short = importlib.import_module("four_bar").main(["--t-final", "0.2", "--plot", ""])  # (under 1 s: crashed)
    assert (tmp_path / "fb.png").stat().st_size > 1000
    assert np.ptp(free.q[:, 0]) > 0.5 and pulled.status == "finished"
    assert res.status == "finished"
    assert short[1].status == "finished" and short[1].t[-1] == pytest.approx(0.2)
