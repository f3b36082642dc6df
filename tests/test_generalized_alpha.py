"""integrator="generalized_alpha" (issue 23, item 1): second order on a pendulum and on a
tumbling quaternion body against dopri5 at tight tolerance, the trapezoidal member's energy
without drift, high-frequency damping by rho_inf, dm_control's manipulator at MuJoCo's step,
bad input, and the run interface (control, control_period, rollout, refusals). Newton's
matrix against central differences of the residual: test_galpha_newton.py."""
import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import multibody as mb
from multibody.simulation.galpha import GeneralizedAlphaIntegrator, GeneralizedAlphaWarning
from multibody.simulation.joint_dynamics import JointDynamics

GA = "generalized_alpha"


def pendulum(length=1.0, mass=1.0):
    """A point mass on a massless rod, pin about y, hanging along -z at q = 0."""
    m = mb.Multibody("pendulum")
    b = m.add_body("bob", mass=mass, com=(0.0, 0.0, -length), inertia=np.zeros((3, 3)))
    m.add_hinge(None, b, "pin", axis=(0.0, 1.0, 0.0), name="swing")
    return m


def tumbler(kind="free_quat"):
    """An asymmetric free body (principal inertias 1, 2, 3) under gravity."""
    m = mb.Multibody("tumbler")
    b = m.add_body("b", mass=2.0, inertia=np.diag([1.0, 2.0, 3.0]))
    m.add_hinge(None, b, kind=kind)
    return m


def orders(errors):
    """log2 of successive error ratios (steps halved)."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


@pytest.mark.parametrize("rho", [1.0, 0.8, 0.0])
def test_second_order_on_a_pendulum(rho):
    """Released at 1.2 rad, 2 s, steps 20, 10, 5, 2.5 ms against dopri5 at rtol 1e-12: the
    errors of q and u fall 4x per halving."""
    m = pendulum()
    ref = mb.simulate(m, [1.2], [0.0], 2.0, dt=2.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    eq, eu = [], []
    for h in (0.02, 0.01, 0.005, 0.0025):
        res = mb.simulate(m, [1.2], [0.0], 2.0, dt=h, integrator=GA, integrator_options=dict(rho_inf=rho))
        assert res.status == "finished" and res.integrator == GA
        eq.append(abs(res.q[-1, 0] - ref.q[-1, 0]))
        eu.append(abs(res.u[-1, 0] - ref.u[-1, 0]))
    print(f"rho_inf {rho}: q errors {np.array(eq)}, orders {orders(eq)}; u orders {orders(eu)}")
    assert np.all(np.abs(orders(eq) - 2.0) < 0.15) and np.all(np.abs(orders(eu) - 2.0) < 0.15)


@pytest.mark.parametrize("kind", ["free_quat", "free"])
def test_second_order_on_a_tumbling_body(kind):
    """Near the intermediate axis (it flips), 3 s: the rotation's error (angle of R_ref^T R)
    and the speeds' fall 4x per halving; quaternions stay unit (q moves through integrate)."""
    m = tumbler(kind)
    q0 = m.neutral_q()
    u0 = np.array([0.05, 2.0, 0.05, 0.3, -0.2, 1.0])
    ref = mb.simulate(m, q0, u0, 3.0, dt=3.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    R_ref = m.body_pose(ref.q[-1], "b")[:3, :3]
    er, eu = [], []
    for h in (0.02, 0.01, 0.005, 0.0025):
        res = mb.simulate(m, q0, u0, 3.0, dt=h, integrator=GA)
        if kind == "free_quat":
            assert np.max(np.abs(np.linalg.norm(res.q[:, :4], axis=1) - 1.0)) < 1e-13
        R = m.body_pose(res.q[-1], "b")[:3, :3]
        er.append(Rotation.from_matrix(R_ref.T @ R).magnitude())
        eu.append(np.abs(res.u[-1] - ref.u[-1]).max())
    print(f"{kind}: rotation errors {np.array(er)}, orders {orders(er)}; u orders {orders(eu)}")
    assert np.all(np.abs(orders(er) - 2.0) < 0.2) and np.all(np.abs(orders(eu) - 2.0) < 0.2)


def energy(m, res):
    ke, pe = res.energy(m)
    return ke + pe


def test_trapezoidal_member_keeps_the_energy_of_an_undamped_pendulum():
    """rho_inf = 1 over 40 s (about 20 periods): the energy error is O(h^2) (4x smaller per
    halving) and does not drift (the second half's largest error is no larger than the
    first half's)."""
    m = pendulum()
    worst = []
    for h in (0.02, 0.01):
        res = mb.simulate(m, [1.2], [0.0], 40.0, dt=h, integrator=GA, integrator_options=dict(rho_inf=1.0))
        dE = np.abs(energy(m, res) - energy(m, res)[0])
        half = len(dE) // 2
        print(f"h {h}: max |dE| {dE.max():.3e} J (first half {dE[:half].max():.3e}, second {dE[half:].max():.3e})")
        assert dE[half:].max() <= 1.05 * dE[:half].max()
        worst.append(dE.max())
    assert 3.5 < worst[0] / worst[1] < 4.5


def stiff_pendulum(omega):
    """A pendulum whose 1 kg bob slides along its 1 m rod on a spring of frequency omega
    (rad/s), with a light (0.01 kg) rod: a slow swing and a fast radial mode."""
    m = mb.Multibody("stiff")
    rod = m.add_body("rod", mass=0.01, com=(0.0, 0.0, -0.5), inertia=np.zeros((3, 3)))
    m.add_hinge(None, rod, "pin", axis=(0.0, 1.0, 0.0), name="swing")
    bob = m.add_body("bob", mass=1.0, inertia=np.eye(3) * 1e-4)
    T = np.eye(4)
    T[2, 3] = -1.0
    m.add_hinge(rod, bob, "slider", axis=(0.0, 0.0, 1.0), T_parent_joint=T, name="radial")
    return m, [mb.JointSpringDamper("radial", stiffness=omega ** 2 * 1.0)]


def test_rho_inf_damps_a_stiff_mode_and_keeps_the_slow_motion():
    """omega h = 100: the radial mode (excited by a 0.1 mm stretch) keeps its amplitude with
    rho_inf = 1 and is gone with rho_inf = 0.5 (about a factor 0.5 per step), while the
    swing stays within 1e-3 rad of dopri5 run on the same model from no stretch. The mode's
    amplitude is read from the second differences of the stored steps (the discrete mode
    alternates from step to step; the swing's quasi-static stretch is smooth)."""
    h = 0.01
    m, springs = stiff_pendulum(100.0 / h)
    stretch = 1e-4
    ref = mb.simulate(m, [0.8, 0.0], [0.0, 0.0], 2.0, dt=2.0, integrator="dopri5", rtol=1e-10, atol=1e-12,
                      forces=springs)
    fast = {}
    for rho in (1.0, 0.5):
        res = mb.simulate(m, [0.8, stretch], [0.0, 0.0], 2.0, dt=h, integrator=GA, forces=springs,
                          integrator_options=dict(rho_inf=rho))
        r = res.q[:, 1]
        fast[rho] = np.abs(r[2:] - 2 * r[1:-1] + r[:-2])[-50:].max() / 4
        swing = abs(res.q[-1, 0] - ref.q[-1, 0])
        print(f"rho_inf {rho}: fast radial amplitude at the end {fast[rho]:.3e} m, swing error {swing:.3e} rad")
        assert swing < 1e-3
    assert fast[1.0] > 0.5 * stretch
    assert fast[0.5] < 1e-5 * stretch


DM = importlib.util.find_spec("dm_control")
MANIPULATOR = Path(DM.submodule_search_locations[0]) / "suite" / "manipulator.xml" if DM else None


@pytest.mark.skipif(MANIPULATOR is None or not MANIPULATOR.exists(), reason="dm_control is not installed")
def test_manipulator_at_mujocos_step_is_finite_and_never_gains_energy(monkeypatch, tmp_path):
    """dm_control's manipulator.xml (finger-tip dampers of 0.01 N m s on 7e-8 kg m^2) with
    m.mjcf_forces and the hinges' own damping and springs at dt = 2 ms for 5 s: finite, and
    its mechanical energy (kinetic, gravity, joint springs) never increases. Explicit RK4
    without its implicit damping blows up at that step."""
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = mb.load_mjcf(str(MANIPULATOR))
    q0 = m.neutral_q()
    res = mb.simulate(m, q0, np.zeros(m.nu), 5.0, dt=2e-3, limits=False, contact=False, integrator=GA,
                      forces=m.mjcf_forces)
    assert res.status == "finished" and res.n_steps == 2500 and np.all(np.isfinite(res.u))
    p = JointDynamics().parameters(m)
    spring = 0.5 * np.sum(p["stiffness"] * (res.q[:, p["q"]] - p["reference"]) ** 2, axis=1)
    E = energy(m, res) + spring
    print(f"manipulator: {res.n_steps} steps, {res.wall_time:.3g} s wall, E {E[0]:.6f} -> {E[-1]:.6f} J, "
          f"largest increase {np.diff(E).max():.3e} J")
    assert np.max(np.diff(E)) <= 1e-12 * abs(E[0])
    assert E[-1] < E[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(mb.SimulationError):
            mb.simulate(m, q0, np.zeros(m.nu), 5.0, dt=2e-3, limits=False, contact=False, integrator="rk4",
                        forces=m.mjcf_forces, implicit_damping=False)


@pytest.mark.parametrize("options, match", [
    (dict(rho_inf=1.5), "rho_inf"), (dict(rho_inf=-0.1), "rho_inf"), (dict(rho_inf=float("nan")), "rho_inf"),
    (dict(adaptive=True), "adaptive"), (dict(newton_rtol=-1.0), "newton_rtol"), (dict(newton_atol=0.0), "newton_atol"),
    (dict(max_iterations=0), "max_iterations"), (dict(tableau="rk4"), "unknown 'tableau'"),
])
def test_bad_options_are_refused_by_name(options, match):
    m = pendulum()
    with pytest.raises(ValueError, match=match):
        mb.simulate(m, [0.5], [0.0], 0.1, dt=0.01, integrator=GA, integrator_options=options)


@pytest.mark.parametrize("dt", [0.0, -0.01, float("nan"), float("inf")])
def test_a_non_positive_step_is_refused(dt):
    with pytest.raises(ValueError, match="dt"):
        mb.simulate(pendulum(), [0.5], [0.0], 0.1, dt=dt, integrator=GA)
    with pytest.raises(ValueError, match="dt"):
        mb.rollout(pendulum(), [[0.5]], [[0.0]], 0.1, dt=dt, integrator=GA, progress=False)


def test_refusals_name_generalized_alpha_and_what_is_not_served():
    m = pendulum()
    with pytest.raises(ValueError, match="adaptive"):
        GeneralizedAlphaIntegrator(m, [0.5], [0.0], adaptive=True)
    with pytest.raises(ValueError, match="only integrator='generalized_alpha' takes"):
        mb.simulate(m, [0.5], [0.0], 0.1, dt=0.01, integrator="rk4", integrator_options=dict(rho_inf=0.5))
    with pytest.raises(ValueError, match="implicit_damping=True"):
        mb.simulate(m, [0.5], [0.0], 0.1, dt=0.01, integrator=GA, implicit_damping=True)
    ball = mb.Multibody("ball")
    body = ball.add_body("ball", mass=1.0, inertia=np.eye(3) * 0.4)
    ball.add_hinge(None, body, "free_quat")
    ball.add_collision(body, mb.Sphere(0.1))
    ball.add_collision(ball.world, mb.Plane())
    with pytest.raises(ValueError, match="generalized_alpha.*cannot step the model's contacts"):
        mb.simulate(ball, ball.neutral_q(), np.zeros(6), 0.1, dt=0.01, integrator=GA)


def test_control_once_per_step_and_sampled_control():
    """A PD control toward 0.3 rad is called once per step (at its start) and its result
    equals the same law held by control_period = dt; with control_period = 10 dt it is
    called ten times fewer."""
    m = pendulum()
    calls = []

    def pd(t, q, u, tau):
        calls.append(t)
        tau[0] += -20.0 * (q[0] - 0.3) - 2.0 * u[0]

    res = mb.simulate(m, [0.0], [0.0], 1.0, dt=0.01, integrator=GA, control=pd)
    assert len(calls) == res.n_steps == 100 and np.allclose(calls, np.arange(100) * 0.01)
    calls.clear()
    held = mb.simulate(m, [0.0], [0.0], 1.0, dt=0.01, integrator=GA, control=pd, control_period=0.01)
    assert len(calls) == 100 and np.abs(held.q - res.q).max() < 1e-12
    calls.clear()
    mb.simulate(m, [0.0], [0.0], 1.0, dt=0.01, integrator=GA, control=pd, control_period=0.1)
    assert len(calls) == 10


def test_a_joint_limit_holds_and_its_edge_is_warned():
    """Pushed by 5 N m into a limit at 0.2 rad (the default limit springs at dt = 10 ms): the
    run finishes, settled within 1e-2 rad of the bound. The limit's damper engages with a
    jump (c u) at the edge, so the step across it has no exact solution: its Newton
    iteration stops at max_iterations, once, and the run says so."""
    m = pendulum()
    m.hinges[0].set_limits(-0.2, 0.2)
    with pytest.warns(GeneralizedAlphaWarning, match="1 step stopped at max_iterations = 30"):
        push = mb.simulate(m, [0.0], [0.0], 2.0, dt=0.01, integrator=GA, tau=[5.0])
    assert push.status == "finished" and push.q[:, 0].max() < 0.2 + 0.01 and abs(push.q[-1, 0] - 0.2) < 1e-2


def test_coulomb_friction_stops_a_block_at_the_closed_form_distance():
    """A 1 kg block sliding at 1 m/s against 2 N of friction (the regularized law, slip
    speed 1e-3 m/s, slope F / v_s = 2000 N s/m: Newton's simplified matrix from a
    saturated predictor sends it between the two saturated sides) stops after
    v0^2 / (2 F / m) = 0.25 m and holds, every step's iteration converged (no warning), at
    dt = 10 ms."""
    m = mb.Multibody("block")
    b = m.add_body("block", mass=1.0, inertia=np.eye(3) * 1e-2)
    m.add_hinge(None, b, "slider", axis=(1.0, 0.0, 0.0), name="x").friction = 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", GeneralizedAlphaWarning)
        res = mb.simulate(m, [0.0], [1.0], 1.0, dt=0.01, integrator=GA)
    k = np.searchsorted(res.t, 0.25)
    assert abs(res.q[k, 0] - (0.25 - 0.25 ** 2)) < 1e-9  # sliding: x = v0 t - F t^2 / 2m
    assert abs(res.q[-1, 0] - 0.25) < 2e-5 and abs(res.u[-1, 0]) < 1e-9


def test_rollout_samples_equal_their_own_runs(tmp_path):
    """rollout under generalized_alpha: each sample's trajectory is its own simulate run's
    (stored every 2nd step), and a results file written by simulate holds the same samples."""
    m = tumbler("free_quat")
    rng = np.random.default_rng(0)
    Q0 = np.array([m.neutral_q() for _ in range(3)])
    U0 = rng.normal(size=(3, 6))
    out = mb.rollout(m, Q0, U0, 0.5, dt=0.01, integrator=GA, save_every=2, progress=False,
                     integrator_options=dict(rho_inf=0.6))
    assert np.all(out.status == 9)  # FINISHED
    for b in range(3):
        one = mb.simulate(m, Q0[b], U0[b], 0.5, dt=0.01, integrator=GA, save_every=2,
                          integrator_options=dict(rho_inf=0.6), output=tmp_path / f"s{b}.npz")
        assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)
        back = mb.load_result(tmp_path / f"s{b}.npz")
        assert np.array_equal(back.q, one.q)
    with pytest.raises(NotImplementedError, match="generalized_alpha.*control"):
        mb.rollout(m, Q0, U0, 0.5, dt=0.01, integrator=GA, progress=False, control=lambda t, Q, U, T: None)
