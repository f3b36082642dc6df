"""Sampled control (``simulate(control_period=)``): the control is called at t = k T only, with
the state at the sample, and its joint forces are held until the next sample (zero-order hold)
whatever the integrator's stages and steps."""
import numpy as np
import pytest

import multibody as mb

from robots import robot_urdf, robots_dir

PERIOD = 0.01  # 100 Hz


@pytest.fixture(scope="module")
def ur5():
    if robots_dir() is None:
        pytest.skip("example-robot-data is not installed")
    return mb.load_urdf(robot_urdf("ur5"))


def _pd(m, calls):
    """A PD controller towards q = 0.3 (gains through the mass matrix at q = 0.1, stable when
    sampled at 100 Hz) that records (t, q, u, tau) of each call."""
    M = m.mass_matrix(np.full(m.compiled.nq, 0.1))

    def control(t, q, u, tau_out):
        tau_out[:] += M @ (100.0 * (0.3 - q) - 20.0 * u)
        calls.append((t, q.copy(), u.copy(), tau_out.copy()))
    return control


@pytest.mark.parametrize("integrator, dt", [("rk4", 1e-3), ("dopri5", 1e-3), ("rk4", 3e-3)])
def test_pd_at_100_hz_is_called_at_the_samples_with_their_states(ur5, integrator, dt):
    c = ur5.compiled
    q0, u0 = np.full(c.nq, 0.1), np.zeros(c.nu)
    calls = []
    res = mb.simulate(ur5, q0, u0, 1.0, dt=dt, integrator=integrator, control=_pd(ur5, calls), contact=False,
                      control_period=PERIOD)
    # 100 calls in a 1 s run: t = 0, 0.01, ..., 0.99 (none at t_final: its forces would act on nothing)
    assert len(calls) == 100
    t_calls = np.array([x[0] for x in calls])
    np.testing.assert_array_equal(t_calls, np.arange(100) * PERIOD)
    assert res.t[-1] == 1.0
    for t, q, u, _ in calls:  # a step ends on every sample: the state passed is the stored one
        (k,) = np.flatnonzero(res.t == t)
        np.testing.assert_array_equal(q, res.q[k])
        np.testing.assert_array_equal(u, res.u[k])
    np.testing.assert_array_equal(calls[0][1], q0)
    assert np.all(np.diff(res.t) > 0)
    if integrator == "rk4" and dt == 3e-3:  # 3 steps of 3 ms and one of 1 ms per period
        assert res.n_steps == 400
        assert np.allclose(np.diff(res.t[:6]), [3e-3, 3e-3, 3e-3, 1e-3, 3e-3], atol=1e-15)


def test_forces_are_held_between_samples(ur5):
    """Zero-order hold: each period equals a run without control under the sample's forces."""
    c = ur5.compiled
    calls = []
    res = mb.simulate(ur5, np.full(c.nq, 0.1), np.zeros(c.nu), 0.1, dt=1e-3, control=_pd(ur5, calls),
                      control_period=PERIOD)
    assert np.abs(res.q[-1] - res.q[0]).max() > 1e-3  # it moves
    for k in (0, 3, 7):
        t, q, u, tau = calls[k]
        one = mb.simulate(ur5, q, u, PERIOD, dt=1e-3, tau=tau)
        (j,) = np.flatnonzero(np.isclose(res.t, t + PERIOD, rtol=0, atol=1e-15))
        np.testing.assert_allclose(one.q[-1], res.q[j], rtol=0, atol=1e-12)
        np.testing.assert_allclose(one.u[-1], res.u[j], rtol=0, atol=1e-10)
    # called at every stage instead, the same PD gives another trajectory
    every = mb.simulate(ur5, np.full(c.nq, 0.1), np.zeros(c.nu), 0.1, dt=1e-3, control=_pd(ur5, []))
    assert np.abs(every.q[-1] - res.q[-1]).max() > 1e-6


def test_a_period_that_does_not_divide_t_final(ur5):
    c = ur5.compiled
    calls = []
    res = mb.simulate(ur5, np.zeros(c.nq), np.zeros(c.nu), 0.1, dt=2e-3, control=_pd(ur5, calls),
                      control_period=0.03)
    np.testing.assert_array_equal([x[0] for x in calls], [0.0, 0.03, 0.06, 0.09])
    assert all(t in res.t for t in (0.03, 0.06, 0.09))  # each sample ends a step
    np.testing.assert_allclose(res.t[-3:], [0.096, 0.098, 0.1], rtol=0, atol=1e-15)  # the grid starts at 0.09
    assert res.t[-1] == 0.1


@pytest.mark.parametrize("bad", [0.0, -0.01, float("nan"), float("inf"), "fast", [0.01]])
def test_bad_control_periods_are_refused_by_name(ur5, bad):
    c = ur5.compiled
    with pytest.raises(ValueError, match="control_period"):
        mb.simulate(ur5, np.zeros(c.nq), np.zeros(c.nu), 0.1, control=_pd(ur5, []), control_period=bad)


def test_control_period_needs_a_callable_control(ur5):
    c = ur5.compiled
    with pytest.raises(ValueError, match="control_period needs a control"):
        mb.simulate(ur5, np.zeros(c.nq), np.zeros(c.nu), 0.1, control_period=0.01)
    with pytest.raises(TypeError, match="control must be callable"):
        mb.simulate(ur5, np.zeros(c.nq), np.zeros(c.nu), 0.1, control=3, control_period=0.01)


def test_a_non_finite_sampled_force_stops_the_run_with_the_samples(ur5):
    c = ur5.compiled

    def control(t, q, u, tau_out):
        tau_out[2] = np.nan if t > 0.025 else 0.0

    with pytest.raises(mb.SimulationError, match=r"tau_out\[2\]") as info:
        mb.simulate(ur5, np.zeros(c.nq), np.zeros(c.nu), 0.1, control=control, control_period=0.01)
    assert info.value.result.t[-1] == pytest.approx(0.03)
