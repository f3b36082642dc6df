"""Events in ``simulate``: zero crossings of g(t, q, u) located in their step (against closed
forms: a bouncing ball, a thrown ball), resets, terminal events, timed events, an action that
closes a loop constraint (a latched panel), and bad input named by the event."""
import numpy as np
import pytest

import multibody as mb
from multibody.results import load_result

G = 9.81
INTEGRATORS = ["rk4", "dopri5", "munthe_kaas", "generalized_alpha", "radau"]


def ball():
    """A ball on a vertical slider: q = height [m], u = its rate; gravity -9.81 m/s^2 along z."""
    m = mb.Multibody("ball")
    m.add_body("ball", 1.0, (0, 0, 0), np.eye(3) * 0.01)
    m.add_hinge(None, "ball", "slider", axis=(0, 0, 1))
    return m


def _height(t, q, u):
    return q[0]


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_bouncing_ball_hits_the_ground_at_the_closed_form_times(integrator):
    e, h = 0.8, 1.0
    bounce = mb.Event(_height, direction=-1, action=lambda t, q, u: (q, -e * u), name="bounce")
    res = mb.simulate(ball(), [h], [0.0], 3.7, dt=1e-2, integrator=integrator, events=[bounce])
    t1 = np.sqrt(2 * h / G)  # the first fall, then flights of 2 e^k v1 / g
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * e ** np.arange(1, 10) * t1)])
    times = np.array([r.t for r in res.events])
    assert len(times) >= 10
    assert np.abs(times[:10] - exact).max() < 1e-9
    for r in res.events[:10]:
        assert (r.name, r.index, r.kind, r.stop) == ("bounce", 0, "state", False)
        assert abs(r.q_before[0]) < 1e-9 and r.u_before[0] < 0
        np.testing.assert_array_equal(r.u_after, -e * r.u_before)
        k = np.flatnonzero(res.t == r.t)  # the samples just before and just after, at t*
        assert k.size == 2 and res.u[k[0], 0] == r.u_before[0] and res.u[k[1], 0] == r.u_after[0]
    assert np.all(np.diff(res.t) >= 0) and res.t[-1] == 3.7
    assert res.q[:, 0].min() > -1e-9  # never below the ground


@pytest.mark.parametrize("direction, roots", [(1, [0]), (-1, [1]), (0, [0, 1])])
def test_direction_selects_rising_or_falling_crossings(direction, roots):
    v0, level = 5.0, 0.5  # thrown up: q = v0 t - g t^2 / 2 crosses the level going up, then down
    exact = (v0 + np.array([-1, 1]) * np.sqrt(v0 ** 2 - 2 * G * level)) / G
    event = mb.Event(lambda t, q, u: q[0] - level, direction=direction)
    for integrator in ("rk4", "dopri5"):
        res = mb.simulate(ball(), [0.0], [v0], 1.0, dt=1e-2, integrator=integrator, events=[event])
        times = [r.t for r in res.events]
        assert len(times) == len(roots), integrator
        np.testing.assert_allclose(times, exact[roots], rtol=0, atol=1e-10)
        assert all(r.name == "event0" for r in res.events)


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_a_terminal_event_ends_the_run_at_its_crossing(integrator):
    ground = mb.Event(_height, direction=-1, terminal=True, name="ground")
    res = mb.simulate(ball(), [1.0], [0.0], 5.0, dt=1e-2, integrator=integrator, events=[ground])
    t1 = np.sqrt(2 / G)
    assert res.t[-1] == res.events[0].t and abs(res.t[-1] - t1) < 1e-9
    assert abs(res.q[-1, 0]) < 1e-9 and res.status == "finished" and "ground" in res.message
    assert len(res.events) == 1 and res.events[0].stop
    stop = mb.Event(_height, direction=-1, action=lambda t, q, u: "stop")  # the same by the action
    again = mb.simulate(ball(), [1.0], [0.0], 5.0, dt=1e-2, integrator=integrator, events=[stop])
    assert again.t[-1] == res.t[-1]


@pytest.mark.parametrize("integrator", ["rk4", "dopri5", "munthe_kaas", "generalized_alpha"])
def test_timed_events_fire_at_their_times_exactly(integrator):
    at = [0.0123456789, 0.5, 0.5 + 1e-3, 0.77]  # off the step grid, and two close together
    kick = mb.Event(at=at, action=lambda t, q, u: (q, u + 1.0), name="kick")
    res = mb.simulate(ball(), [0.0], [0.0], 1.0, dt=1e-2, integrator=integrator, events=[kick])
    assert [r.t for r in res.events] == at and all(r.kind == "timed" for r in res.events)
    for t in at:
        assert np.count_nonzero(res.t == t) == 2
    # free flight with velocity jumps of 1 m/s: q and u in closed form (RK is exact on quadratics)
    t_end = 1.0
    u_end = -G * t_end + len(at)
    q_end = -G * t_end ** 2 / 2 + sum(t_end - np.array(at))
    assert abs(res.u[-1, 0] - u_end) < 1e-12 and abs(res.q[-1, 0] - q_end) < 1e-12


@pytest.mark.parametrize("integrator, options", [("rk4", dict(save_every=10)), ("dopri5", dict(dt=1e-2))])
def test_watching_an_event_that_never_fires_keeps_the_samples_as_they_were(integrator, options):
    """Events are watched at every step, but the output grid is the user's: bit for bit."""
    m = ball()
    kw = dict(dict(dt=1e-3, integrator=integrator), **options)
    plain = mb.simulate(m, [1.0], [3.0], 0.5, **kw)
    never = mb.Event(lambda t, q, u: q[0] + 10.0)
    watched = mb.simulate(m, [1.0], [3.0], 0.5, events=[never], **kw)
    assert len(watched.events) == 0 and len(plain) == len(watched)
    np.testing.assert_array_equal(watched.t, plain.t)
    np.testing.assert_array_equal(watched.q, plain.q)
    assert watched.n_steps == plain.n_steps


def test_events_reach_the_results_file(tmp_path):
    bounce = mb.Event(_height, direction=-1, action=lambda t, q, u: (q, -0.5 * u))
    res = mb.simulate(ball(), [1.0], [0.0], 1.0, dt=1e-2, events=[bounce], output=tmp_path / "run.npz")
    back = load_result(tmp_path / "run.npz")
    np.testing.assert_array_equal(back.t, res.t)
    np.testing.assert_array_equal(back.u, res.u)
    assert np.count_nonzero(back.t == res.events[0].t) == 2
    assert len(res.events) >= 2 and len(back.events) == len(res.events)  # the records too (NPZ)
    for a, b in zip(back.events, res.events):
        assert (a.t, a.name, a.index, a.kind, a.stop) == (b.t, b.name, b.index, b.kind, b.stop)
        for f in ("q_before", "u_before", "q_after", "u_after"):
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert back.events[0].u_after[0] == -0.5 * back.events[0].u_before[0]
    again = res.save(tmp_path / "saved.npz")  # SimulationResult.save keeps them as well
    assert [e.t for e in load_result(again).events] == [e.t for e in res.events]
    res.save(tmp_path / "run.csv")  # a CSV file keeps the event samples only
    back = load_result(tmp_path / "run.csv")
    assert back.events == [] and np.count_nonzero(back.t == res.events[0].t) == 2


def test_a_results_file_with_broken_event_arrays_is_refused_by_name(tmp_path):
    bounce = mb.Event(_height, direction=-1, action=lambda t, q, u: (q, -0.5 * u))
    mb.simulate(ball(), [1.0], [0.0], 1.0, dt=1e-2, events=[bounce], output=tmp_path / "run.npz")
    with np.load(tmp_path / "run.npz") as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(tmp_path / "partial.npz", **{k: v for k, v in arrays.items() if k != "event_kind"})
    with pytest.raises(ValueError, match="partial.npz.*needs all of event_t"):
        load_result(tmp_path / "partial.npz")
    arrays["event_q_after"] = arrays["event_q_after"][:, :0]
    np.savez(tmp_path / "shape.npz", **arrays)
    with pytest.raises(ValueError, match=r"shape.npz.*event_q_after has shape \(\d+, 0\)"):
        load_result(tmp_path / "shape.npz")


def panel(latch_angle):
    """A panel on a pin about y swinging down under gravity; a weld ("latch", disabled) between
    its tip and a catch fixed in the world where the tip is at ``latch_angle``."""
    m = mb.Multibody("deployment")
    m.add_body("panel", 2.0, (0.5, 0.0, 0.0), np.diag([0.01, 0.17, 0.17]))
    m.add_hinge(None, "panel", "pin", axis=(0, 1, 0))
    tip = np.eye(4)
    tip[0, 3] = 1.0
    m.add_node("tip", "panel", tip)
    c, s = np.cos(latch_angle), np.sin(latch_angle)
    catch = np.eye(4)
    catch[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]  # R_y(latch_angle)
    catch[:3, 3] = catch[:3, :3] @ [1.0, 0.0, 0.0]
    m.add_node("catch", None, catch)
    m.add_loop_constraint("latch", "catch", "tip", "locked")
    m.disable_constraint("latch")
    return m


@pytest.mark.parametrize("integrator", ["rk4", "dopri5"])
def test_a_latch_event_closes_a_loop_and_the_panel_stays_latched(integrator):
    angle = 0.8
    m = panel(angle)
    m.enable_constraint("latch")
    assert np.abs(m.pose_error(np.array([angle]), "residual")).max() < 1e-15  # (the latch as built)
    m.disable_constraint("latch")
    calls = []

    def latch(t, q, u):
        calls.append(t)
        m.enable_constraint("latch")
        return q, np.zeros_like(u)  # the catch takes the panel's momentum

    event = mb.Event(lambda t, q, u: q[0] - angle, direction=1, action=latch, name="latch")
    res = mb.simulate(m, [0.0], [0.0], 1.5, dt=1e-3, integrator=integrator, events=[event])
    assert len(calls) == 1 and res.events[0].t == calls[0]
    t_star = calls[0]
    assert 0.2 < t_star < 1.0 and res.events[0].u_before[0] > 1.0  # it swung there fast
    after = res.t >= t_star
    assert np.abs(res.q[after, 0] - angle).max() < 1e-9  # latched: it stays
    assert np.abs(res.u[after][1:, 0]).max() < 1e-9
    residual = max(np.abs(m.pose_error(q, "residual")).max() for q in res.q[after])
    assert residual < 1e-9
    assert np.ptp(res.q[~after, 0]) > 0.7  # it swung freely before


def test_bad_events_are_refused_by_name():
    with pytest.raises(TypeError, match="'hit': g must be callable"):
        mb.Event(3.0, name="hit")
    with pytest.raises(ValueError, match="'hit': direction must be"):
        mb.Event(_height, direction=2, name="hit")
    with pytest.raises(ValueError, match="direction must be"):
        mb.Event(_height, direction=0.5)
    with pytest.raises(ValueError, match="give g"):
        mb.Event()
    with pytest.raises(ValueError, match="at must hold"):
        mb.Event(at=[0.1, float("nan")])
    with pytest.raises(TypeError, match="action must be callable"):
        mb.Event(_height, action="bounce")
    with pytest.raises(TypeError, match=r"events\[1\] must be an Event"):
        mb.simulate(ball(), [1.0], [0.0], 0.1, events=[mb.Event(_height), _height])
    with pytest.raises(ValueError, match="event_tol"):
        mb.simulate(ball(), [1.0], [0.0], 0.1, events=[mb.Event(_height)], event_tol=0.0)


@pytest.mark.parametrize("action, match", [
    (lambda t, q, u: (q, np.zeros(2)), r"'bad'.*u_new has shape \(2,\)"),
    (lambda t, q, u: (q * np.nan, u), r"'bad'.*q_new\[0\] is nan"),
    (lambda t, q, u: 7, "'bad': action must return"),
    (lambda t, q, u: "halt", "'bad': action returned 'halt'"),
])
def test_a_bad_action_stops_the_run_naming_its_event(action, match):
    event = mb.Event(_height, direction=-1, action=action, name="bad")
    with pytest.raises(mb.SimulationError, match=match) as info:
        mb.simulate(ball(), [1.0], [0.0], 1.0, dt=1e-2, events=[event])
    assert abs(info.value.result.t[-1] - np.sqrt(2 / G)) < 1e-9  # the samples up to the event


def test_a_g_that_is_not_a_finite_number_is_named():
    event = mb.Event(lambda t, q, u: np.nan if t > 0.1 else 1.0, name="gnan")
    with pytest.raises(mb.SimulationError, match="event 'gnan': g is nan"):
        mb.simulate(ball(), [1.0], [0.0], 1.0, dt=1e-2, events=[event])


def test_a_model_change_checks_the_state_and_names_the_event():
    angle = 0.8
    m = panel(angle)
    keep_speed = mb.Event(lambda t, q, u: q[0] - angle, direction=1, name="latch",
                          action=lambda t, q, u: m.enable_constraint("latch"))  # (u left as it is)
    with pytest.warns(RuntimeWarning, match="event 'latch': the state after its action is off"):
        mb.simulate(m, [0.0], [0.0], 0.6, dt=1e-3, events=[keep_speed])
    b = ball()

    def grow(t, q, u):
        b.add_body("second", 1.0, (0, 0, 0), np.eye(3) * 0.01)
        b.add_hinge("ball", "second", "slider", axis=(1, 0, 0))

    with pytest.raises(mb.SimulationError, match="event 'grow': the state does not fit the model"):
        mb.simulate(b, [1.0], [0.0], 1.0, dt=1e-2, events=[mb.Event(at=0.1, action=grow, name="grow")])


def test_project_every_goes_on_with_sampled_control():
    angle = 0.8
    m = panel(angle)
    m.enable_constraint("latch")

    def hold(t, q, u, tau_out):
        tau_out[:] = 0.0

    kw = dict(dt=1e-3, control=hold, control_period=0.01, stabilization_gains=None)
    off = mb.simulate(m, [angle + 1e-3], [0.0], 0.05, **kw)
    assert np.abs(m.pose_error(off.q[-1], "residual")).max() > 1e-4  # nothing pulls it back
    on = mb.simulate(m, [angle + 1e-3], [0.0], 0.05, project_every=5, **kw)
    assert np.abs(m.pose_error(on.q[-1], "residual")).max() < 1e-9


def test_events_fire_before_a_sample_at_the_same_time():
    seen = {}

    def control(t, q, u, tau_out):
        seen[t] = u[0]
        tau_out[:] = 0.0

    reset = mb.Event(at=[0.0, 0.02], action=lambda t, q, u: (q, np.full_like(u, 5.0 + t)), name="reset")
    res = mb.simulate(ball(), [0.0], [0.0], 0.05, dt=1e-3, control=control, control_period=0.01, events=[reset])
    assert sorted(seen) == [0.0, 0.01, 0.02, 0.03, 0.04]
    assert seen[0.0] == 5.0 and seen[0.02] == 5.02  # the control sees the state after the reset
    assert [r.t for r in res.events] == [0.0, 0.02]
    assert res.t[0] == 0.0 and res.u[0, 0] == 0.0 and res.t[1] == 0.0 and res.u[1, 0] == 5.0


@pytest.mark.parametrize("kind, integrator", [("free", "rk4"), ("free", "dopri5"), ("free_quat", "munthe_kaas"),
                                              ("free_quat", "rk4")])
def test_a_spinning_free_body_bounces_at_the_closed_form_times(kind, integrator):
    """A free body spinning about the vertical (its charts re-centred as it turns) bounces as
    the slider does: the located states go through the run's start charts."""
    m = mb.Multibody("spinning")
    m.add_body("top", 1.0, (0, 0, 0), np.diag([0.02, 0.02, 0.03]))
    m.add_hinge(None, "top", kind)
    z = m.nq - 1  # q = [rotation; position], u = [omega; v] in the body axes (z stays vertical)
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
    q0[z] = 1.0
    if kind == "free_quat":
        q0[3] = 1.0
    u0[2] = 12.0  # rad/s about z
    e = 0.8

    def bounce(t, q, u):
        u = u.copy()
        u[5] = -e * u[5]
        return q, u

    res = mb.simulate(m, q0, u0, 3.7, dt=1e-2, integrator=integrator,
                      events=[mb.Event(lambda t, q, u: q[z], direction=-1, action=bounce)])
    t1 = np.sqrt(2 / G)
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * e ** np.arange(1, 10) * t1)])
    assert np.abs(np.array([r.t for r in res.events[:10]]) - exact).max() < 1e-9
    assert kind == "free_quat" or res.n_chart_resets > 3
