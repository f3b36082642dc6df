"""mb.rollout: many initial states through the compiled loop, across cores."""
import numpy as np
import pytest

import multibody as mb
from multibody.kernels.status import Status


def chain():
    m = mb.Multibody()
    m.add_serial_chain("l", 4, kind="pin")
    return m


def test_each_sample_equals_its_own_simulate_run_bit_for_bit():
    m = chain()
    rng = np.random.default_rng(0)
    B = 7
    Q0, U0 = rng.normal(size=(B, m.nq)), rng.normal(size=(B, m.nu))
    tau = rng.normal(size=(B, m.nu))
    r = mb.rollout(m, Q0, U0, 0.3, dt=1e-3, tau=tau, save_every=3)
    assert r.q.shape == (B, 101, m.nq) and r.t.shape == (101,) and r.failed.size == 0
    for b in (0, 3, 6):
        s = mb.simulate(m, Q0[b], U0[b], 0.3, dt=1e-3, tau=tau[b], save_every=3)
        assert np.array_equal(s.t, r.t) and np.array_equal(s.q, r.q[b]) and np.array_equal(s.u, r.u[b])


def test_munthe_kaas_rollout_of_tumbling_bodies():
    m = mb.Multibody()
    b = m.add_body("box", mass=2.0, inertia=np.diag([0.1, 0.2, 0.3]))
    m.add_hinge(None, b, "free_quat")
    m.gravity = (0.0, 0.0, 0.0)
    rng = np.random.default_rng(1)
    Q0 = np.array([m.random_q(rng) for _ in range(4)])
    U0 = rng.normal(size=(4, 6))
    r = mb.rollout(m, Q0, U0, 0.5, dt=1e-3, integrator="munthe_kaas")
    s = mb.simulate(m, Q0[2], U0[2], 0.5, dt=1e-3, integrator="munthe_kaas")
    assert np.array_equal(s.q, r.q[2]) and np.array_equal(s.u, r.u[2])
    assert np.abs(np.linalg.norm(r.q[:, :, :4], axis=2) - 1.0).max() < 1e-13


def test_open_loop_inputs_per_output_interval():
    m = chain()
    rng = np.random.default_rng(2)
    B, N = 3, 50
    Q0, U0 = rng.normal(size=(B, m.nq)), np.zeros((B, m.nu))
    tau = rng.normal(size=(B, m.nu))
    held = np.repeat(tau[:, None], N, axis=1)
    a = mb.rollout(m, Q0, U0, 0.05, dt=1e-3, tau=tau)
    b = mb.rollout(m, Q0, U0, 0.05, dt=1e-3, tau=held)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.u, b.u)
    step = held.copy()
    step[:, 25:] += 5.0  # a step input at t = 25 ms changes only what follows
    c = mb.rollout(m, Q0, U0, 0.05, dt=1e-3, tau=step)
    assert np.array_equal(c.q[:, :26], b.q[:, :26]) and not np.allclose(c.q[:, 27:], b.q[:, 27:])


def test_a_failing_sample_stops_alone():
    m = chain()
    Q0, U0 = np.zeros((4, m.nq)), np.zeros((4, m.nu))
    U0[1] = 1e200  # overflows at once
    r = mb.rollout(m, Q0, U0, 0.1, dt=1e-3)
    assert list(r.failed) == [1] and r.status[1] == Status.NONFINITE_STATE
    assert np.isfinite(r.q[[0, 2, 3]]).all() and np.isnan(r.q[1, -1]).all()
    assert np.isnan(r.t_failure[0]) and r.t_failure[1] <= 2e-3


def test_a_sample_that_ends_finite_but_huge_is_a_blow_up():
    """RK4 on a spring with h w = 3 grows by |R(3i)| = 1.505 per step: 100 steps take 1e-3 m to
    1e14, finite. simulate fails such a run as a blow-up; rollout marks the sample BLOW_UP at
    its first stored sample past the bounds and keeps its rows."""
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    m.add_body("b", mass=2.0, inertia=np.eye(3) * 0.1)
    m.add_hinge(None, "b", "slider", axis=(1.0, 0.0, 0.0), name="s").spring_stiffness = 2.0 * 300.0 ** 2
    with pytest.raises(mb.SimulationError, match="blew up"):
        mb.simulate(m, [1e-3], [0.0], 1.0, dt=1e-2)
    r = mb.rollout(m, np.array([[0.0], [1e-3]]), np.zeros((2, 1)), 1.0, dt=1e-2, progress=False)
    assert list(r.failed) == [1] and r.status[1] == Status.BLOW_UP and r.status[0] == Status.FINISHED
    first = int(np.argmax(np.abs(r.u[1, :, 0]) >= 1e8))
    assert 0 < first and r.t_failure[1] == r.t[first] and np.isnan(r.t_failure[0])
    assert np.isfinite(r.u[1]).all() and np.abs(r.u[1, -1, 0]) > 1e14


def test_bad_arguments_are_named():
    m = chain()
    Q0, U0 = np.zeros((2, m.nq)), np.zeros((2, m.nu))
    with pytest.raises(ValueError, match="U0 must have shape"):
        mb.rollout(m, Q0, np.zeros((3, m.nu)), 0.1)
    with pytest.raises(ValueError, match="tau must have shape"):
        mb.rollout(m, Q0, U0, 0.1, dt=1e-2, tau=np.zeros((2, 3, m.nu)))
    with pytest.raises(ValueError, match="t_final"):
        mb.rollout(m, Q0, U0, -1.0)


def test_a_stacked_control_equals_each_samples_simulate_with_its_control():
    m = chain()
    rng = np.random.default_rng(3)
    B = 5
    Q0, U0 = rng.normal(size=(B, m.nq)), rng.normal(size=(B, m.nu))
    gains = rng.uniform(1.0, 20.0, B)

    def stacked(t, Q, U, TAU):
        TAU[:] = -gains[:, None] * Q - 0.5 * U + np.sin(t)

    r = mb.rollout(m, Q0, U0, 0.1, dt=1e-3, control=stacked)
    assert r.failed.size == 0
    for b in (0, 4):
        def single(t, q, u, tau, k=gains[b]):
            tau[:] = -k * q - 0.5 * u + np.sin(t)
        s = mb.simulate(m, Q0[b], U0[b], 0.1, dt=1e-3, control=single)
        assert np.array_equal(s.q, r.q[b]) and np.array_equal(s.u, r.u[b])

    def bad(t, Q, U, TAU):
        TAU[:] = 0.0
        if t > 0.05:
            TAU[2, 1] = np.nan
    r = mb.rollout(m, Q0, U0, 0.1, dt=1e-3, control=bad)
    assert list(r.failed) == [2] and r.status[2] == Status.CONTROL_NONFINITE


def test_a_sampled_stacked_control_equals_each_samples_sampled_simulate():
    m = chain()
    rng = np.random.default_rng(4)
    B = 4
    Q0, U0 = rng.normal(size=(B, m.nq)), rng.normal(size=(B, m.nu))
    gains = rng.uniform(1.0, 20.0, B)
    times = []

    def stacked(t, Q, U, TAU):
        times.append(t)
        TAU[:] += -gains[:, None] * Q - 0.5 * U + np.sin(t)

    tau = np.full((B, m.nu), 0.1)
    r = mb.rollout(m, Q0, U0, 0.1, dt=1e-3, tau=tau, control=stacked, control_period=0.02, progress=False)
    assert r.failed.size == 0 and np.allclose(times, [0.0, 0.02, 0.04, 0.06, 0.08], rtol=0, atol=1e-15)
    for b in (0, 3):
        def single(t, q, u, tau_out, k=gains[b]):
            tau_out[:] += -k * q - 0.5 * u + np.sin(t)
        s = mb.simulate(m, Q0[b], U0[b], 0.1, dt=1e-3, tau=tau[b], control=single, control_period=0.02)
        np.testing.assert_allclose(r.q[b], s.q, rtol=0, atol=1e-12)  # (step grids equal up to roundings)
        np.testing.assert_allclose(r.u[b], s.u, rtol=0, atol=1e-11)
    every = mb.rollout(m, Q0, U0, 0.1, dt=1e-3, tau=tau, control=stacked, progress=False)
    assert np.abs(every.q[:, -1] - r.q[:, -1]).max() > 1e-6  # (held forces differ from per-stage ones)
    with pytest.raises(ValueError, match="multiple of the output interval"):
        mb.rollout(m, Q0, U0, 0.1, dt=1e-3, control=stacked, control_period=0.0015)
    with pytest.raises(ValueError, match="control_period"):
        mb.rollout(m, Q0, U0, 0.1, dt=1e-3, control=stacked, control_period=-1.0)
    with pytest.raises(ValueError, match="control_period needs a control"):
        mb.rollout(m, Q0, U0, 0.1, dt=1e-3, control_period=0.01)


def test_samples_of_a_closed_loop_equal_their_own_simulate_runs_and_stay_closed():
    """A model with a loop steps with its tree-augmented dynamics in rollout as in simulate
    (before, rollout's loop variant ignored the constraints: the four-bar opened by 0.78 m
    in 0.5 s); rigid four-bar, Baumgarte gains as given, and the flexible four-bar."""
    import sys
    import warnings
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    from flexible_four_bar import flexible_four_bar
    from four_bar import closed_start, four_bar
    m = four_bar()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop: redundant rows
        q0, u0 = closed_start(m)
    Q0, U0 = np.array([q0, q0]), np.array([u0, 0.5 * u0])
    for gains in ("default", (0.0, 0.0)):
        r = mb.rollout(m, Q0, U0, 0.5, dt=1e-3, stabilization_gains=gains, progress=False)
        assert np.all(r.status == Status.FINISHED)
        for b in range(2):
            s = mb.simulate(m, Q0[b], U0[b], 0.5, dt=1e-3, integrator="rk4", stabilization_gains=gains)
            assert np.array_equal(s.q, r.q[b]) and np.array_equal(s.u, r.u[b])
            assert max(np.abs(m.pose_error(q, "residual")).max() for q in r.q[b]) < 1e-6
        assert np.ptp(r.q[0, :, 0]) > 0.5  # the crank turns
    mf, qf = flexible_four_bar(EI=5.0)
    Qf = np.array([qf, qf])
    r = mb.rollout(mf, Qf, np.zeros((2, mf.nu)), 0.1, dt=1e-3, progress=False)
    s = mb.simulate(mf, qf, np.zeros(mf.nu), 0.1, dt=1e-3, integrator="rk4")
    assert np.array_equal(s.q, r.q[1]) and np.array_equal(s.u, r.u[1])
    assert max(np.abs(mf.pose_error(q, "residual")).max() for q in r.q[0]) < 1e-8
