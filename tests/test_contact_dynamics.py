"""Hard frictional contact in ``simulate`` (integrator "moreau", issue 21) against Coulomb's
closed forms, on MJCF scenes loaded with ``mb.load_mjcf`` (tests/contact_scenes.py), each
also 1e5 m from the origin.

* A cube thrown at v0 = 2 m/s on a plane (mu = 0.5) decelerates at mu g: it stops after
  v0^2 / (2 mu g) = 0.40775 m at t = v0 / (mu g) = 0.40775 s, and stays.
* On a 30 degree incline from rest: mu = 0.7 > tan 30 holds it; mu = 0.4 slides with
  a = g (sin 30 - mu cos 30): 0.75336 m in 1 s.
* A ball dropped on a plane comes to rest, with a total normal force of m g.
"""
import math

import numpy as np
import pytest

import multibody as mb
from multibody.simulation.failures import SimulationError
from multibody.simulation.moreau import ContactWarning, MoreauIntegrator

from contact_scenes import G, HALF, RADIUS, ball_scene, cube_scene

SHIFTS = [(0.0, 0.0, 0.0), (1e5, -1e5, 1e5)]


def energy(m, res):
    ke, pe = res.energy(m)
    return ke + pe


@pytest.mark.parametrize("shift", SHIFTS)
def test_thrown_cube_stops_at_the_coulomb_distance_and_time(tmp_path, monkeypatch, shift):
    monkeypatch.chdir(tmp_path)
    m, q0, _ = cube_scene(tmp_path, 0.5, shift=shift)
    v0, mu, dt = 2.0, 0.5, 1e-4
    u0 = np.r_[0, 0, 0, v0, 0, 0]
    res = mb.simulate(m, q0, u0, 0.6, dt=dt)
    assert res.integrator == "moreau"
    x = res.q[:, 4] - shift[0]
    speed = res.u[:, 3]
    d_exact, t_exact = v0 ** 2 / (2 * mu * G), v0 / (mu * G)
    t_stop = res.t[np.argmax(np.abs(speed) < 1e-9)]
    assert abs(t_stop - t_exact) <= dt + 1e-12  # (the step that ends the slide)
    assert t_stop == pytest.approx(t_exact, rel=1e-3)
    assert x[-1] == pytest.approx(d_exact, rel=1e-3)
    stopped = res.t >= t_stop
    assert np.ptp(x[stopped]) < 1e-9  # stays at rest
    assert np.max(np.abs(res.q[:, 6] - shift[2] - HALF)) < 1e-3  # on the plane, within 1 mm
    e = energy(m, res)
    assert np.all(np.diff(e) <= 1e-9)  # friction only dissipates (e = 0)
    assert e[-1] == pytest.approx(e[0] - 0.5 * v0 ** 2, abs=1e-6)


@pytest.mark.parametrize("shift", SHIFTS)
def test_cube_on_an_incline_holds_or_slides_as_coulomb_says(tmp_path, monkeypatch, shift):
    monkeypatch.chdir(tmp_path)
    th = math.radians(30.0)
    for mu, expected in ((0.7, 0.0), (0.4, 0.5 * G * (math.sin(th) - 0.4 * math.cos(th)))):
        m, q0, R = cube_scene(tmp_path, mu, tilt_deg=30.0, shift=shift, name=f"incline{mu}")
        res = mb.simulate(m, q0, np.zeros(6), 1.0, dt=1e-4)
        p = res.q[:, 4:7]
        along = (p - p[0]) @ R[:, 0]  # downhill: the plane's +x
        normal = (p - np.asarray(shift)) @ R[:, 2]
        if expected == 0.0:
            assert abs(along[-1]) < 1e-3  # holds: less than 1 mm of creep in 1 s
            # (the default contact_regularization, 1e-6 of W_nn, lets a sticking contact creep at
            # 1e-6 of the speed its impulse cancels per step: g sin(30) h W_nn/W_tt, 1e-9 m in 1 s)
            assert abs(along[-1]) < 1e-8
            rigid = mb.simulate(m, q0, np.zeros(6), 1.0, dt=1e-4, contact_options=dict(contact_regularization=0.0))
            assert abs(((rigid.q[:, 4:7] - p[0]) @ R[:, 0])[-1]) < 1e-12  # rigid contacts stick exactly
        else:
            assert along[-1] == pytest.approx(expected, rel=1e-3)  # 0.75336 m
        assert np.max(np.abs(normal - HALF)) < 1e-3
        assert np.all(np.diff(energy(m, res)) <= 1e-9)


@pytest.mark.parametrize("shift", SHIFTS)
def test_dropped_ball_rests_with_normal_force_mg(tmp_path, monkeypatch, shift):
    monkeypatch.chdir(tmp_path)
    m, q0 = ball_scene(tmp_path, 0.2, shift=shift)
    res = mb.simulate(m, q0, np.zeros(6), 10.0, dt=1e-3, contact_output=True)
    z = res.q[:, 6] - shift[2]
    assert abs(z[-1] - RADIUS) < 1e-3
    late = res.t >= 2.0
    assert np.ptp(z[late]) < 1e-9  # no drift over the last 8 s
    f = res.contacts.total_force()
    assert res.contacts.count[-1] == 1
    assert f[-1, 2] == pytest.approx(1.0 * G, rel=1e-6)
    np.testing.assert_allclose(f[-1, :2], 0, atol=1e-9)
    rec = res.contacts.at(len(res.contacts) - 1)
    np.testing.assert_allclose(rec["normals"][0], [0, 0, 1], atol=1e-12)
    names = [m.compiled.contact.shape_names[i] for i in rec["shapes"][0]]
    assert names[0] == "floor"
    e = energy(m, res)
    assert np.max(e - e[0]) <= 1e-9  # (e = 0: never above the start)
    assert np.ptp(e[late]) < 1e-9


@pytest.mark.parametrize("shift", SHIFTS)
def test_frictionless_contact_slides_at_g_sin_theta_and_rests_a_ball(tmp_path, monkeypatch, shift):
    """mu = 0 (MJCF friction 0): the cube slides down the 30 degree incline at g sin 30
    (2.4525 m in 1 s, 0 in the normal direction), a dropped ball bounces off the floor and
    rests with a total normal force of m g. Until 2026-11-28 either run stopped at its first
    frictionless contact that had to separate (natural-map residual 1: the cone's projection
    let a negative normal through when mu = 0)."""
    monkeypatch.chdir(tmp_path)
    th = math.radians(30.0)
    m, q0, R = cube_scene(tmp_path, 0.0, tilt_deg=30.0, shift=shift, name="frictionless")
    res = mb.simulate(m, q0, np.zeros(6), 1.0, dt=1e-4)
    p = res.q[:, 4:7]
    assert ((p[-1] - p[0]) @ R[:, 0]) == pytest.approx(0.5 * G * math.sin(th), rel=1e-3)
    assert np.max(np.abs((p - np.asarray(shift)) @ R[:, 2] - HALF)) < 1e-3
    assert abs((p[-1] - p[0]) @ R[:, 1]) < 1e-12  # (no friction, no sideways push)
    m, q0 = ball_scene(tmp_path, 0.2, mu=0.0, shift=shift, name="frictionless_ball")
    res = mb.simulate(m, q0, np.zeros(6), 2.0, dt=1e-3, contact_output=True)
    assert abs(res.q[-1, 6] - shift[2] - RADIUS) < 1e-3
    assert res.contacts.total_force()[-1, 2] == pytest.approx(1.0 * G, rel=1e-6)


def test_runge_kutta_with_contact_is_refused_and_contact_false_falls(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m, q0 = ball_scene(tmp_path, 0.0)
    with pytest.raises(ValueError, match="moreau"):
        mb.simulate(m, q0, np.zeros(6), 0.1, integrator="rk4")
    res = mb.simulate(m, q0, np.zeros(6), 0.5, contact=False)  # rk4, no contact: free fall
    assert res.integrator == "rk4"
    assert res.q[-1, 6] == pytest.approx(RADIUS - 0.5 * G * 0.25, rel=1e-9)
    with pytest.raises(ValueError, match="contact=False"):
        mb.simulate(m, q0, np.zeros(6), 0.1, integrator="moreau", contact=False)
    with pytest.raises(ValueError, match="moreau"):
        mb.rollout(m, q0[None], np.zeros((1, 6)), 0.1, integrator="rk4")


def test_unconverged_solve_stops_the_run_with_its_residual(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m, q0, _ = cube_scene(tmp_path, 0.5)
    integ = MoreauIntegrator(m, q0, np.r_[0, 0, 0, 1.0, 0, 0], contact_tol=1e-16, max_sweeps=1, contact_accept=1e-16)
    with pytest.raises(SimulationError, match="residual"):
        integ.integrate(0.01, 1e-3)
    assert integ.contact_residual > 1e-16


def test_solves_that_stop_short_within_contact_accept_go_on_counted_and_warned(tmp_path, monkeypatch):
    """One sweep per step does not reach 1e-16: with contact_accept 1 every such step goes on,
    and the run ends with one ContactWarning giving the count and the worst residual."""
    monkeypatch.chdir(tmp_path)
    m, q0, _ = cube_scene(tmp_path, 0.5)
    options = dict(contact_tol=1e-16, max_sweeps=1, contact_accept=1.0)
    with pytest.warns(ContactWarning, match=r"stopped above contact_tol = 1e-16 on (\d+) steps \(worst residual"):
        res = mb.simulate(m, q0, np.r_[0, 0, 0, 1.0, 0, 0], 0.05, dt=1e-3, contact_options=options)
    assert res.status == "finished" and res.t[-1] == pytest.approx(0.05)
    integ = MoreauIntegrator(m, q0, np.r_[0, 0, 0, 1.0, 0, 0], **options)
    with pytest.warns(ContactWarning):
        integ.integrate(0.05, 1e-3)
    assert 0 < integ.short_solves <= 50 and 1e-16 < integ.worst_residual <= 1.0
    with pytest.raises(ValueError, match="contact_options: unknown 'tol'"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact_options=dict(tol=1e-6))
    with pytest.raises(ValueError, match="contact_options: the run has no contacts"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact=False, contact_options=dict(max_sweeps=5))
    with pytest.raises(ValueError, match="contact_accept must be finite and >= contact_tol"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact_options=dict(contact_accept=1e-12))
    with pytest.raises(ValueError, match="contact_regularization must be in \\[0, 1\\)"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact_options=dict(contact_regularization=-1e-6))
    with pytest.raises(ValueError, match="retry_regularization must be in \\[0, 1\\)"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact_options=dict(retry_regularization=float("nan")))


def test_restitution_bounces_to_e_squared_of_the_drop(tmp_path):
    """A ball with restitution e dropped from h0 rebounds to e^2 h0 (the impact's speed is
    that of the step that finds it: within g h of the exact one)."""
    e, h0, r = 0.5, 0.2, 0.1
    m = mb.Multibody()
    m.add_body("ball", mass=1.0, inertia=[0.4 * r * r, 0, 0, 0.4 * r * r, 0, 0.4 * r * r])
    m.add_hinge("world", "ball", kind="free_quat")
    m.add_collision("world", mb.Plane(), name="floor")
    m.add_collision("ball", mb.Sphere(r), restitution=e)
    res = mb.simulate(m, np.r_[0, 0, 0, 1.0, 0, 0, r + h0], np.zeros(6), 0.5 + 0.4, dt=1e-4)
    z = res.q[:, 6] - r
    first = np.argmax(res.u[:, 5] > 0)  # the first sample after the impact
    apex = z[first:][np.argmax(res.u[first:, 5] <= 0)]
    assert apex == pytest.approx(e * e * h0, rel=2e-2)


def test_pushed_cube_holds_below_mu_m_g_and_accelerates_above(tmp_path, monkeypatch):
    """A horizontal push F from a control (called once per "moreau" step): the cube stays while
    F <= mu m g and accelerates at F / m - mu g beyond."""
    monkeypatch.chdir(tmp_path)
    m, q0, _ = cube_scene(tmp_path, 0.5)
    calls = []
    for F, a in ((3.0, 0.0), (7.0, 7.0 - 0.5 * G)):
        def push(t, q, u, tau_out, F=F):
            calls.append(t)
            tau_out[3] += F  # the force along the body's x (u = [w; v] in the body's axes)
        n0 = len(calls)
        res = mb.simulate(m, q0, np.zeros(6), 1.0, dt=1e-3, control=push)
        assert len(calls) - n0 == 1000
        # (held: it creeps by nanometres, the default contact_regularization's 1e-6 of the speed)
        assert res.q[-1, 4] - q0[4] == pytest.approx(0.5 * a * 1.0, rel=1e-6, abs=1e-8)


def test_rollout_with_contact_equals_simulate_per_sample(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m, q0, _ = cube_scene(tmp_path, 0.5)
    U0 = np.array([[0, 0, 0, v, 0, 0] for v in (1.0, 2.0)])
    out = mb.rollout(m, np.repeat(q0[None], 2, axis=0), U0, 0.5, dt=1e-3, save_every=10, progress=False)
    assert np.all(out.status == 9)  # FINISHED
    for b in range(2):
        res = mb.simulate(m, q0, U0[b], 0.5, dt=1e-3, save_every=10)
        np.testing.assert_array_equal(out.q[b], res.q)
        np.testing.assert_array_equal(out.t, res.t)
        assert out.q[b, -1, 4] == pytest.approx(U0[b, 3] ** 2 / (2 * 0.5 * G), rel=1e-3)
    with pytest.raises(NotImplementedError, match="control"):
        mb.rollout(m, q0[None], U0[:1], 0.1, control=lambda t, Q, U, T: None, progress=False)


def test_interpenetrating_start_is_warned_by_shape_and_body(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m, q0 = ball_scene(tmp_path, -0.01)  # 1 cm into the floor
    with pytest.warns(UserWarning, match=r"interpenetrates: 'floor' \(body 'world'\) and .*ball.* by 0.01 m; .* at "
                                         r"most 0.1 m/s: the deepest takes 0.1 s or more\)"):
        res = mb.simulate(m, q0, np.zeros(6), 1.0)
    assert np.max(np.diff(res.q[:, 6])) <= 0.1 * 1e-3 + 1e-12  # at RECOVERY_SPEED at most
    assert abs(res.q[-1, 6] - RADIUS) < 1e-6  # pushed out, at rest
