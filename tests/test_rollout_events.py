"""Events in ``rollout`` (issue 23): every sample watches the events in its own run, its rows on
the output grid equal to its own ``simulate`` run's samples there, its events recorded.

Against closed forms: balls dropped from three heights bounce (e = 0.8) at the times of free
fall; a cube sliding on a plane (mu = 0.5) kicked by a timed event between two output times
stops where Coulomb's deceleration says. And the grid itself: after an event a run goes back
to its output times, in ``simulate`` as in ``rollout``.
"""
import numpy as np
import pytest

import multibody as mb
from multibody.kernels.status import FINISHED
from multibody.simulation.sample_runs import SampleFailure

from contact_scenes import G, cube_scene

E = 0.8  # the balls' restitution
HEIGHTS = np.array([1.0, 0.5, 2.0])


def ball():
    """A ball on a vertical slider: q = height [m], u = its rate; gravity -9.81 m/s^2 along z."""
    m = mb.Multibody("ball")
    m.add_body("ball", 1.0, (0, 0, 0), np.eye(3) * 0.01)
    m.add_hinge(None, "ball", "slider", axis=(0, 0, 1))
    return m


def bounce():
    return mb.Event(lambda t, q, u: q[0], direction=-1, action=lambda t, q, u: (q, -E * u), name="bounce")


def bounce_times(h, n):
    """The first n impact times of a ball dropped from h: a fall, then flights of 2 e^k v1 / g."""
    t1 = np.sqrt(2 * h / G)
    return t1 + np.concatenate([[0.0], np.cumsum(2 * E ** np.arange(1, n) * t1)])


def on_grid(t, interval):
    return np.abs(t - np.round(t / interval) * interval) <= 1e-12


@pytest.mark.parametrize("integrator", ["rk4", "radau"])
def test_rollout_samples_bounce_at_the_closed_form_times_as_their_simulate_runs(integrator):
    m, dt, t_final = ball(), 1e-2, 3.7
    out = mb.rollout(m, HEIGHTS[:, None], np.zeros((3, 1)), t_final, dt=dt, integrator=integrator,
                     events=[bounce()], progress=False)
    assert np.all(out.status == FINISHED) and out.stopped.size == 0
    np.testing.assert_allclose(out.t, np.arange(371) * dt, rtol=0, atol=1e-12)
    assert not np.isnan(out.q).any()
    for b, h in enumerate(HEIGHTS):
        times = np.array([r.t for r in out.events[b]])
        n = min(times.size, 10)
        assert n >= 5  # (2 m: five bounces in 3.7 s)
        assert np.abs(times[:n] - bounce_times(h, n)).max() < 1e-9
        assert all(r.name == "bounce" and r.u_after[0] == -E * r.u_before[0] for r in out.events[b])
        res = mb.simulate(m, [h], [0.0], t_final, dt=dt, integrator=integrator, events=[bounce()])
        np.testing.assert_array_equal(times, [r.t for r in res.events])
        grid = ~np.isin(res.t, times)  # simulate's samples but the two at each event
        np.testing.assert_allclose(res.t[grid], out.t, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(res.q[grid], out.q[b])
        np.testing.assert_array_equal(res.u[grid], out.u[b])


@pytest.mark.parametrize("integrator, save_every", [("rk4", 3), ("dopri5", 1), ("radau", 1)])
def test_after_an_event_simulate_goes_back_to_its_output_times(integrator, save_every):
    dt = 1e-2
    res = mb.simulate(ball(), [1.0], [0.0], 3.7, dt=dt, integrator=integrator, events=[bounce()],
                      save_every=save_every)
    times = np.array([r.t for r in res.events])
    assert times.size >= 10 and not on_grid(times, dt).any()
    grid = ~np.isin(res.t, times)
    interval = dt * save_every
    assert on_grid(res.t[grid][:-1], interval).all() and res.t[-1] == 3.7
    assert np.count_nonzero(grid) == int(np.ceil(3.7 / interval - 1e-9)) + 1  # every output time, once


def test_a_terminal_event_ends_its_sample_alone():
    ground = mb.Event(lambda t, q, u: q[0], direction=-1, terminal=True, name="ground")
    out = mb.rollout(ball(), np.array([[1.0], [0.5], [20.0]]), np.zeros((3, 1)), 1.0, dt=1e-2,
                     events=[ground], progress=False)
    assert np.all(out.status == FINISHED) and out.stopped.tolist() == [0, 1]
    for b, h in enumerate((1.0, 0.5)):
        (r,) = out.events[b]
        assert r.stop and abs(r.t - np.sqrt(2 * h / G)) < 1e-9
        reached = out.t < r.t
        assert not np.isnan(out.q[b, reached]).any() and np.isnan(out.q[b, ~reached]).all()
    assert out.events[2] == () and not np.isnan(out.q[2]).any()  # 20 m: still falling at 1 s


def test_a_kicked_cube_slides_to_the_coulomb_distance(tmp_path, monkeypatch):
    """A timed event between two output times (t_k = 0.0525 s, output every 10 ms) adds 1 m/s
    to each sliding cube: it stops v(t_k)^2 / (2 mu g) further on; rows as simulate's."""
    monkeypatch.chdir(tmp_path)
    m, q0, _ = cube_scene(tmp_path, 0.5)
    mu, t_kick, v0 = 0.5, 0.0525, np.array([0.5, 1.0])

    def kick(t, q, u):
        u = u.copy()
        u[3] += 1.0
        return q, u

    event = mb.Event(at=t_kick, action=kick, name="kick")
    U0 = np.array([[0, 0, 0, v, 0, 0] for v in v0])
    out = mb.rollout(m, np.repeat(q0[None], 2, axis=0), U0, 0.6, dt=1e-3, save_every=10, events=[event],
                     progress=False)
    assert np.all(out.status == FINISHED) and not np.isnan(out.q).any()
    a = mu * G
    for b in range(2):
        (r,) = out.events[b]
        assert r.t == t_kick and r.kind == "timed" and r.u_after[3] == r.u_before[3] + 1.0
        assert r.u_before[3] == pytest.approx(v0[b] - a * t_kick, rel=1e-3)
        x_kick = v0[b] * t_kick - 0.5 * a * t_kick ** 2
        v_kick = v0[b] - a * t_kick + 1.0
        assert out.q[b, -1, 4] - q0[4] == pytest.approx(x_kick + v_kick ** 2 / (2 * a), rel=1e-4)  # (2.1e-6, 1.3e-6)
        res = mb.simulate(m, q0, U0[b], 0.6, dt=1e-3, save_every=10, events=[event])
        grid = res.t != t_kick
        np.testing.assert_array_equal(res.q[grid], out.q[b])
        np.testing.assert_allclose(res.t[grid], out.t, rtol=0, atol=1e-12)


def test_an_action_that_changes_the_shared_model_is_refused_by_name():
    m = mb.Multibody("ball and tip")
    m.add_body("ball", 1.0, (0, 0, 0), np.eye(3) * 0.01)
    m.add_hinge(None, "ball", "slider", name="drop", axis=(0, 0, 1))
    m.add_body("tip", 0.1, (0, 0, 0), np.eye(3) * 1e-3)
    m.add_hinge("ball", "tip", "pin", name="tilt", axis=(0, 1, 0))
    m.add_coordinate_constraint("hold", "tilt", "drop")
    m.disable_constraint("hold")

    def latch(t, q, u):
        m.enable_constraint("hold")

    event = mb.Event(lambda t, q, u: q[0], direction=-1, action=latch, name="latch")
    with pytest.raises(SampleFailure, match="event 'latch': its action changed the model") as info:
        mb.rollout(m, np.array([[1.0, 0.0]]), np.zeros((1, 2)), 1.0, dt=1e-2, events=[event], progress=False)
    assert info.value.sample == 0
    assert not np.isnan(info.value.result.q[0, :40]).any()  # the rows before the event are kept


def test_bad_event_arguments_are_refused_by_name():
    m = ball()
    with pytest.raises(TypeError, match=r"events\[0\] must be an Event"):
        mb.rollout(m, [[1.0]], [[0.0]], 1.0, events=[lambda t, q, u: q[0]], progress=False)
    with pytest.raises(ValueError, match="event_tol"):
        mb.rollout(m, [[1.0]], [[0.0]], 1.0, events=[bounce()], event_tol=0.0, progress=False)
    with pytest.raises(NotImplementedError, match="with events does not take a control callback"):
        mb.rollout(m, [[1.0]], [[0.0]], 1.0, events=[bounce()], control=lambda t, Q, U, T: None, progress=False)
    with pytest.raises(NotImplementedError, match=r"with events does not take tau of shape \(B, N, nu\)"):
        mb.rollout(m, [[1.0]], [[0.0]], 0.1, dt=1e-2, events=[bounce()], tau=np.zeros((1, 10, 1)),
                   progress=False)
