"""A contact run's warm start carried into the next run (issue 21): ``result.contact_warm_start``
and ``contact_options={"warm_start": ...}``. A run continued in two pieces at the same times is
the one-piece run to the bit (the state and the solver's warm start are all a step carries), a
cold second piece is not; the first solve of a warm call takes a few sweeps where a cold one takes many; a warm
start of another model, or of a run without contacts, is refused naming the option."""
import numpy as np
import pytest

import multibody as mb
from multibody.simulation import contact_loop as CL
from multibody.simulation.contact_warm_start import ContactWarmStart
from multibody.simulation.moreau import MoreauIntegrator

from contact_scenes import ball_scene, cube_scene

DT = 2.0 ** -10  # [s] (the step times k DT are exact: a piece started at t0 steps as the whole run does)


@pytest.fixture(scope="module")
def cube(tmp_path_factory):
    """The cube resting on the plane on its four corners (12 rows on 6 speeds), a little
    tilted and spun so that its impulses differ per corner and change from step to step."""
    m, q0, _ = cube_scene(tmp_path_factory.mktemp("warm"), 0.8)
    u0 = np.r_[0.0, 0.0, 0.3, 0.05, 0.0, 0.0]  # (spinning about the normal, sliding: friction at work)
    return m, q0, u0


def test_a_run_continued_with_its_warm_start_is_the_one_call_run_to_the_bit(cube):
    """An integrator continued from another's end, at the same times, with its warm start:
    the state and the warm start are all a step carries, so it ends where the one-piece run
    does, bit for bit."""
    m, q0, u0 = cube
    whole = MoreauIntegrator(m, q0, u0)
    whole.integrate(256 * DT, DT)
    first = MoreauIntegrator(m, q0, u0)
    first.integrate(128 * DT, DT)
    assert len(first.contact_warm_start) == 4  # the four corners
    ends = {}
    for name, warm in (("warm", first.contact_warm_start), ("cold", None)):
        second = MoreauIntegrator(m, first.q, first.u, t0=first.t, warm_start=warm)
        second.integrate(256 * DT, DT)
        ends[name] = second.q, second.u
    np.testing.assert_array_equal(ends["warm"][0], whole.q)
    np.testing.assert_array_equal(ends["warm"][1], whole.u)
    assert not np.array_equal(ends["cold"][1], whole.u)  # the same motion to the solver's tolerance only
    np.testing.assert_allclose(ends["cold"][1], whole.u, atol=1e-6)


def test_simulate_hands_its_warm_start_to_the_next_call(cube):
    """simulate's runs start at t = 0: at a step whose times are exact, a run continued from
    a result with its warm start is the one-call run's second half to the bit."""
    m, q0, u0 = cube
    whole = mb.simulate(m, q0, u0, 256 * DT, dt=DT)
    first = mb.simulate(m, q0, u0, 128 * DT, dt=DT)
    warm = mb.simulate(m, first.q[-1], first.u[-1], 128 * DT, dt=DT, contact_options={"warm_start": first})
    np.testing.assert_array_equal(warm.u, whole.u[128:])
    np.testing.assert_array_equal(warm.q, whole.q[128:])
    cold = mb.simulate(m, first.q[-1], first.u[-1], 128 * DT, dt=DT)
    assert not np.array_equal(cold.u, whole.u[128:])
    # the warm start object itself is taken as well
    again = mb.simulate(m, first.q[-1], first.u[-1], 128 * DT, dt=DT,
                        contact_options={"warm_start": first.contact_warm_start})
    np.testing.assert_array_equal(again.u, warm.u)


def test_the_first_solve_of_a_warm_run_takes_a_few_sweeps(cube):
    m, q0, u0 = cube
    first = mb.simulate(m, q0, np.zeros(m.nu), 0.05, dt=DT)
    sweeps = {}
    for name, warm in (("cold", None), ("warm", first)):
        integ = MoreauIntegrator(m, first.q[-1], first.u[-1], warm_start=warm)
        integ.integrate(DT, DT)  # one step
        sweeps[name] = int(integ.cst[CL.S_SWEEPS])
    assert sweeps["warm"] <= 5 < 50 < sweeps["cold"], sweeps


def test_a_warm_start_at_another_step_carries_the_same_forces(cube):
    m, q0, _ = cube
    first = mb.simulate(m, q0, np.zeros(m.nu), 0.05, dt=DT)
    w = first.contact_warm_start
    np.testing.assert_array_equal(w.impulses_for(w.dt), w.impulses)
    np.testing.assert_allclose(w.impulses_for(DT / 2), w.impulses * (DT / 2 / w.dt), rtol=1e-15)
    # resting: the normal impulses carry the weight over the run's last step, which was
    # shorter than DT (0.05 s is 51.2 steps): dt is that step's
    assert w.dt == pytest.approx(0.2 * DT, rel=1e-9)
    assert np.sum(w.impulses[:, 0]) == pytest.approx(9.81 * w.dt, rel=1e-4)
    half = MoreauIntegrator(m, first.q[-1], first.u[-1], warm_start=first)
    half.integrate(DT / 2, DT / 2)
    assert int(half.cst[CL.S_SWEEPS]) <= 5


def test_rollout_samples_start_from_the_warm_start_as_their_simulate_runs(cube):
    m, q0, u0 = cube
    first = mb.simulate(m, q0, u0, 0.05, dt=DT)
    Q0 = np.repeat(first.q[-1][None], 3, axis=0)
    U0 = first.u[-1] + np.array([[0.0] * 6, [0, 0, 0.1, 0, 0, 0], [0, 0, 0, 0.02, 0, 0]])
    out = mb.rollout(m, Q0, U0, 0.03, dt=DT, contact_options={"warm_start": first}, progress=False)
    for b in range(3):
        own = mb.simulate(m, Q0[b], U0[b], 0.03, dt=DT, contact_options={"warm_start": first})
        np.testing.assert_array_equal(out.u[b], own.u)


def test_bad_warm_starts_are_refused_naming_the_option(cube, tmp_path):
    m, q0, u0 = cube
    ball, b0 = ball_scene(tmp_path, 0.0)
    other = mb.simulate(ball, b0, np.zeros(ball.nu), 0.01, dt=DT)
    with pytest.raises(ValueError, match=r"contact_options\['warm_start'\].*other collision shapes"):
        mb.simulate(m, q0, u0, 0.01, dt=DT, contact_options={"warm_start": other})
    smooth = mb.simulate(m, q0, u0, 0.01, dt=DT, contact=False)
    assert smooth.contact_warm_start is None
    with pytest.raises(ValueError, match=r"contact_options\['warm_start'\].*without contacts"):
        mb.simulate(m, q0, u0, 0.01, dt=DT, contact_options={"warm_start": smooth})
    with pytest.raises(ValueError, match=r"contact_options\['warm_start'\].*got ndarray"):
        mb.simulate(m, q0, u0, 0.01, dt=DT, contact_options={"warm_start": np.zeros(3)})
    with pytest.raises(ValueError, match="outside"):
        ContactWarmStart([[0, 7, 0]], [[1.0, 0, 0]], DT, ("floor", "box"))
    with pytest.raises(ValueError, match="finite"):
        ContactWarmStart([[0, 1, 0]], [[np.nan, 0, 0]], DT, ("floor", "box"))
