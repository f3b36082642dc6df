"""Tests of multibody.simulation: tableaus, steppers, sinks, force models, simulate."""
import math
import re

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import multibody as mb
from multibody.simulation import (
    TABLEAUS, ButcherTableau, ExpandingStorage, ExternalForce, JointSpringDamper, MuntheKaasIntegrator,
    RingBufferStorage, RungeKuttaIntegrator, SimulationError, get_tableau, integrate, simulate, step,
)


def chain7():
    m = mb.Multibody()
    m.add_serial_chain("l", 7, kind="pin", axis=(0, 1, 0), mass=1.0, length=0.5, inertia=np.diag([0.05] * 3))
    q0 = np.array([1, -0.5, 0.7, -0.3, 0.4, -0.6, 0.2])
    return m, q0


def pendulum():
    m = mb.Multibody()
    b = m.add_body("bob", mass=1.0, com=(0.0, 0.0, -1.0), inertia=np.eye(3) * 1e-3)
    m.add_hinge(None, b, kind="pin", axis=(1, 0, 0))
    return m


def energy(m, res):
    return np.array([m.kinetic_energy(q, u) + m.potential_energy(q) for q, u in zip(res.q, res.u)])


# ---------------------------------------------------------------- tableaus
@pytest.mark.parametrize("name", sorted(TABLEAUS))
def test_tableau_consistency(name):
    tab = get_tableau(name)
    assert abs(tab.b.sum() - 1) < 1e-14
    np.testing.assert_allclose(tab.A.sum(axis=1), tab.c, atol=1e-14)
    if tab.is_embedded:
        assert abs(tab.b_hat.sum() - 1) < 1e-14


def test_tableau_validation():
    with pytest.raises(ValueError, match="lower triangular"):
        ButcherTableau([[1.0]], [1.0])
    with pytest.raises(ValueError, match="sum to 1"):
        ButcherTableau([[0.0]], [0.5])
    with pytest.raises(ValueError, match="unknown integrator 'rk5'"):
        get_tableau("rk5")


@pytest.mark.parametrize("name,order", [("euler", 1), ("midpoint", 2), ("heun", 2), ("rk4", 4),
                                        ("rk38", 4), ("bs32", 3), ("dopri5", 5)])
def test_convergence_order(name, order):
    m = pendulum()
    q0, u0 = np.array([1.0]), np.array([0.0])
    ref = simulate(m, q0, u0, 1.0, dt=0.5, integrator="dopri5", rtol=1e-13, atol=1e-14)
    errs = []
    for dt in (0.02, 0.01):
        it = RungeKuttaIntegrator(m, q0, u0, name, adaptive=False)
        it.integrate(1.0, dt)
        errs.append(abs(it.q[0] - ref.q[-1, 0]))
    p = math.log2(errs[0] / errs[1])
    assert abs(p - order) < 0.35, (p, errs)


# ---------------------------------------------------------------- accuracy, conservation
def test_energy_drift_7dof_rk4_and_dopri5():
    m, q0 = chain7()
    u0 = np.zeros(7)
    res = simulate(m, q0, u0, 10.0, dt=1e-3, integrator="rk4")
    assert res.t.shape == (10001,) and res.q.shape == (10001, 7) and res.u.shape == (10001, 7)
    assert res.t[-1] == 10.0
    E = energy(m, res)
    assert np.max(np.abs(E - E[0])) / abs(E[0]) <= 1e-8
    res = simulate(m, q0, u0, 10.0, dt=0.01, integrator="dopri5", rtol=1e-10, atol=1e-12)
    assert res.t.shape == (1001,)
    np.testing.assert_allclose(res.t, np.linspace(0, 10, 1001), atol=1e-12)
    E = energy(m, res)
    assert np.max(np.abs(E - E[0])) / abs(E[0]) <= 1e-8


def test_energy_drift_xarm7_swinging_about_its_hanging_pose():
    """The 7-dof xArm7 of example-robot-data, no damping or input, RK4 dt = 1 ms for 10 s.

    The arm swings (+-0.3 rad, speeds up to ~14 rad/s) about the pose where it hangs
    below its base (found by descending the potential). Started upright instead, the
    free fall spins the light wrist to 200+ rad/s and RK4's truncation error at 1 ms
    gives ~5e-6 relative drift (4th-order convergence); dopri5 handles both.
    """
    robots = pytest.importorskip("robots")
    if robots.robots_dir() is None:
        pytest.skip("example-robot-data not installed")
    m = mb.load_urdf(robots.urdf("xarm_description/urdf/xarm7.urdf"))
    assert m.nu == 7
    q = m.random_q(3, scale=1.0)
    for _ in range(4000):
        q = q - 0.002 * m.gravity_forces(q)
    assert np.abs(m.gravity_forces(q)).max() < 0.1
    q0 = q + np.random.default_rng(0).uniform(-0.3, 0.3, 7)
    for integrator, kw in (("rk4", {}), ("dopri5", dict(rtol=1e-10, atol=1e-12))):
        # the hanging pose lies beyond joint 2's URDF limit: the unconstrained dynamics here
        # (and without the URDF's joint damping and friction: a conservative system)
        res = simulate(m, q0, np.zeros(7), 10.0, dt=1e-3, integrator=integrator, limits=False, contact=False,
                       joint_dynamics=False, **kw)
        E = energy(m, res)
        assert np.abs(res.u).max() > 5.0  # it really moves
        assert np.max(np.abs(E - E[0])) / abs(E[0]) <= 1e-8, integrator


def test_munthe_kaas_equals_rk4_on_vector_coordinates():
    m, q0 = chain7()
    a = simulate(m, q0, np.zeros(7), 0.5, integrator="rk4")
    b = simulate(m, q0, np.zeros(7), 0.5, integrator="munthe_kaas")
    np.testing.assert_allclose(a.q, b.q, atol=1e-12)


def test_tumbling_body_free_quat_munthe_kaas():
    m = mb.Multibody(gravity=(0, 0, 0))
    I = np.diag([1.0, 2.0, 3.0])
    b = m.add_body("b", mass=2.0, inertia=I)
    m.add_hinge(None, b, kind="free_quat")
    q0 = np.array([0, 0, 0, 1.0, 0, 0, 0])
    u0 = np.array([0.01, 2.0, 0.01, 0.1, 0, 0])
    res = simulate(m, q0, u0, 20.0, dt=1e-3, integrator="munthe_kaas")
    assert np.max(np.abs(np.linalg.norm(res.q[:, :4], axis=1) - 1)) <= 1e-12
    R = Rotation.from_quat(res.q[:, :4]).as_matrix()
    Lw = np.einsum("nij,jk,nk->ni", R, I, res.u[:, :3])
    assert np.max(np.abs(Lw - Lw[0])) <= 1e-9
    assert res.u[:, 1].min() < -1.9 and res.u[:, 1].max() > 1.9  # intermediate-axis flip
    # momentum of the centre of mass, too
    pw = np.einsum("nij,nj->ni", R, res.u[:, 3:])
    assert np.max(np.abs(pw - pw[0])) <= 1e-9


def test_spherical_pendulum_charts_recentred():
    m = mb.Multibody()
    b = m.add_body("bob", mass=1.0, com=(0, 0, -1.0), inertia=np.eye(3) * 1e-3)
    m.add_hinge(None, b, kind="spherical")
    q0, u0 = np.array([0.5, 0, 0.0]), np.array([0, 0, 4.0])
    for integ in ("rk4", "munthe_kaas"):
        res = simulate(m, q0, u0, 10.0, dt=1e-3, integrator=integ)
        assert res.n_chart_resets > 10  # many revolutions
        E = energy(m, res)
        assert np.max(np.abs(E - E[0])) / abs(E[0]) <= 1e-10
    # the model's own charts are untouched; q is in the start charts
    np.testing.assert_array_equal(m.chart_offsets()["bob_hinge"], [0, 0, 0, 1])


def test_agrees_with_pinocchio_rk4():
    pin = pytest.importorskip("pinocchio")
    from pin_convert import q_to_pin, to_pinocchio
    m = mb.Multibody()
    m.add_serial_chain("a", 4, kind="pin", axis=(0, 1, 0), mass=1.2, length=0.4, inertia=np.diag([0.02, 0.03, 0.04]))
    m.add_serial_chain("b", 2, parent="a1", kind="pin", axis=(1, 0, 0), mass=0.7, length=0.3,
                       inertia=np.diag([0.01, 0.02, 0.015]))
    q0 = np.linspace(0.4, -0.3, m.nq)
    u0 = np.linspace(-0.5, 0.5, m.nu)
    res = simulate(m, q0, u0, 0.5, dt=1e-3)
    model = to_pinocchio(m)
    data = model.createData()
    tau = np.zeros(m.nu)
    q, v = q_to_pin(m, q0), u0.copy()
    f = lambda q, v: pin.aba(model, data, q, v, tau).copy()
    dt = 1e-3
    for _ in range(500):
        k1v = f(q, v); k1q = v
        k2q = v + 0.5 * dt * k1v; k2v = f(q + 0.5 * dt * k1q, k2q)
        k3q = v + 0.5 * dt * k2v; k3v = f(q + 0.5 * dt * k2q, k3q)
        k4q = v + dt * k3v; k4v = f(q + dt * k3q, k4q)
        q = q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
        v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    np.testing.assert_allclose(res.q[-1], q, atol=1e-9)
    np.testing.assert_allclose(res.u[-1], v, atol=1e-9)


def _mjcf_chain(n, L, mass, I):
    body = ""
    for k in range(n):
        pos = "0 0 0" if k == 0 else f"{L} 0 0"
        body += (f'<body pos="{pos}"><joint type="hinge" axis="0 1 0"/>'
                 f'<inertial pos="{L / 2} 0 0" mass="{mass}" diaginertia="{I[0]} {I[1]} {I[2]}"/>')
    body += "</body>" * n
    return (f'<mujoco><option timestep="0.001" integrator="RK4" gravity="0 0 -9.81">'
            f'<flag contact="disable"/></option><worldbody>{body}</worldbody></mujoco>')


def test_agrees_with_mujoco_rk4():
    mujoco = pytest.importorskip("mujoco")
    n, L, mass, I = 4, 0.4, 1.0, (0.01, 0.02, 0.03)
    m = mb.Multibody()
    m.add_serial_chain("l", n, kind="pin", axis=(0, 1, 0), mass=mass, length=L, inertia=np.diag(I))
    q0 = np.array([0.3, -0.2, 0.5, 0.1])
    u0 = np.array([0.2, 0.0, -0.3, 0.1])
    res = simulate(m, q0, u0, 0.5, dt=1e-3)
    model = mujoco.MjModel.from_xml_string(_mjcf_chain(n, L, mass, I))
    data = mujoco.MjData(model)
    data.qpos[:] = q0
    data.qvel[:] = u0
    for _ in range(500):
        mujoco.mj_step(model, data)
    np.testing.assert_allclose(res.q[-1], data.qpos, atol=1e-6)
    np.testing.assert_allclose(res.u[-1], data.qvel, atol=1e-6)


# ---------------------------------------------------------------- control, forces
def test_control_callback_matches_constant_tau():
    m, q0 = chain7()
    tau = np.linspace(-1, 1, 7)
    a = simulate(m, q0, np.zeros(7), 0.1, tau=tau)
    calls = []

    def control(t, q, u, tau_out):
        calls.append(t)
        tau_out[:] = tau

    b = simulate(m, q0, np.zeros(7), 0.1, control=control)
    np.testing.assert_allclose(a.q, b.q, atol=1e-13)
    assert len(calls) == 4 * 100


def test_spring_damper_dissipates_and_undamped_conserves():
    m = pendulum()
    m.gravity = (0, 0, 0)
    q0, u0 = np.array([0.5]), np.array([0.0])
    res = simulate(m, q0, u0, 2.0, forces=[JointSpringDamper("bob_hinge", stiffness=10.0)])
    E = energy(m, res) + 0.5 * 10.0 * res.q[:, 0] ** 2
    assert np.max(np.abs(E - E[0])) < 1e-9
    res = simulate(m, q0, u0, 2.0, forces=[JointSpringDamper("bob_hinge", stiffness=10.0, damping=0.5)])
    E = energy(m, res) + 0.5 * 10.0 * res.q[:, 0] ** 2
    assert E[-1] < 0.5 * E[0]


def test_external_force_holds_body_against_gravity():
    m = mb.Multibody()
    b = m.add_body("b", mass=2.0, inertia=np.diag([0.1, 0.2, 0.3]))
    m.add_hinge(None, b, kind="free_quat")
    m.add_node("tip", b, T_body_node=np.eye(4))
    q0 = np.r_[Rotation.from_rotvec([0.3, 0.2, 0.1]).as_quat(), 0, 0, 0]
    res = simulate(m, q0, np.zeros(6), 0.5, forces=[ExternalForce("tip", [0, 0, 0, 0, 0, 2 * 9.81], axes="world")])
    np.testing.assert_allclose(res.u[-1], 0, atol=1e-12)
    res = simulate(m, q0, np.zeros(6), 0.5)
    assert abs(res.q[-1, 6] + 0.5 * 9.81 * 0.25) < 1e-9  # free fall


# ---------------------------------------------------------------- sinks, step, integrate
def test_sinks_step_and_integrate():
    m, q0 = chain7()
    ring = RingBufferStorage(m.nq, m.nu, capacity=10)
    it = MuntheKaasIntegrator(m, q0, np.zeros(7), "rk4", sink=ring)
    integrate(it, 0.1, 1e-3)
    assert ring.total == 101 and ring.t.shape == (10,)
    np.testing.assert_allclose(ring.t, np.linspace(0.091, 0.1, 10), atol=1e-12)
    full = simulate(m, q0, np.zeros(7), 0.1, integrator="munthe_kaas")
    np.testing.assert_allclose(ring.q, full.q[-10:], atol=1e-13)
    exp = ExpandingStorage(m.nq, m.nu, capacity=2)
    it = RungeKuttaIntegrator(m, q0, np.zeros(7), "rk4", sink=exp)
    t = 0.0
    for _ in range(5):
        t = step(it, t, 1e-3)
    assert exp.t.shape == (6,) and abs(t - 5e-3) < 1e-15
    np.testing.assert_allclose(exp.q, full.q[:6], atol=1e-13)


def test_max_realtime_rate_throttles():
    import time
    m = pendulum()
    it = RungeKuttaIntegrator(m, [0.3], [0.0])
    it.integrate(1e-3, 1e-3)  # compile
    t0 = time.perf_counter()
    it.integrate(0.05 + 1e-3, 1e-3, max_realtime_rate=1.0)
    assert time.perf_counter() - t0 >= 0.04


# ---------------------------------------------------------------- bad input, failures
def test_bad_arguments():
    m = pendulum()
    for kw, match in [(dict(dt=0.0), "dt"), (dict(dt=-1e-3), "dt"), (dict(dt=float("nan")), "dt"),
                      (dict(integrator="rk5"), "unknown integrator"), (dict(integrator=3), "integrator")]:
        with pytest.raises(ValueError, match=match):
            simulate(m, [0.1], [0.0], 1.0, **kw)
    for tf in (0.0, -1.0, float("inf"), "x"):
        with pytest.raises(ValueError, match="t_final"):
            simulate(m, [0.1], [0.0], tf)
    with pytest.raises(ValueError, match="q"):
        simulate(m, [0.1, 0.2], [0.0], 1.0)
    with pytest.raises(ValueError, match="not finite"):
        simulate(m, [np.nan], [0.0], 1.0)
    with pytest.raises(TypeError, match="callable"):
        simulate(m, [0.1], [0.0], 1.0, control=3)


def test_nonfinite_control_stops_with_partial_results(tmp_path):
    m, q0 = chain7()

    def control(t, q, u, tau_out):
        tau_out[:] = 0.0
        if t > 0.05:
            tau_out[3] = np.inf

    out = tmp_path / "partial.npz"
    with pytest.raises(SimulationError, match=r"non-finite joint force at t = 0\.05\d* s: tau\[3\] = inf "
                                              r"\(it belongs to hinge 'l3_hinge'\)") as ei:
        simulate(m, q0, np.zeros(7), 1.0, control=control, output=out)
    res = ei.value.result
    assert res.status == "failed" and res.t[-1] == pytest.approx(0.05)
    assert np.all(np.isfinite(res.q)) and res.q.shape == (51, 7)
    data = np.load(out)
    np.testing.assert_array_equal(data["t"], res.t)
    assert str(data["status"]) == "failed"


@pytest.mark.parametrize("integrator", ["rk4", "dopri5"])
def test_nonfinite_state_names_time_and_coordinate(integrator):
    m, q0 = chain7()
    with pytest.raises(SimulationError, match=r"non-finite at t = [\d.e+-]+ s: [qu]\[\d\] \(it belongs to hinge") as ei:
        simulate(m, q0, np.zeros(7), 1.0, tau=np.full(7, 1e300), integrator=integrator, h_min=1e-6)
    res = ei.value.result
    assert len(res) >= 1 and np.all(np.isfinite(res.q)) and np.all(np.isfinite(res.u))


def test_results_files(tmp_path):
    m = pendulum()
    res = simulate(m, [0.3], [0.0], 0.01, output=tmp_path / "r.csv")
    data = np.loadtxt(tmp_path / "r.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[:, 1], res.q[:, 0])
    with pytest.raises(ValueError, match="unknown file type"):
        res.save(tmp_path / "r.txt")


def test_save_every():
    m, q0 = chain7()
    res = simulate(m, q0, np.zeros(7), 0.1, save_every=10)
    assert res.t.shape == (11,)
    np.testing.assert_allclose(res.q, simulate(m, q0, np.zeros(7), 0.1).q[::10], atol=1e-15)


def test_stabilization_gains_rejected_without_loop_constraints():
    """Explicit gains on a tree are a mistake worth saying; None and the default are fine."""
    m, q0 = chain7()
    with pytest.raises(ValueError, match=r"stabilization_gains=\(10\.0, 100\.0\): the model has no enabled constraints"):
        simulate(m, q0, np.zeros(7), 0.1, stabilization_gains=(10.0, 100.0))
    with pytest.raises(ValueError, match="stabilization_gains"):
        RungeKuttaIntegrator(m, q0, np.zeros(7), stabilization_gains=0.0)
    assert len(simulate(m, q0, np.zeros(7), 0.01, stabilization_gains=None)) == 11
    assert len(simulate(m, q0, np.zeros(7), 0.01, stabilization_gains="default")) == 11


def test_control_returning_tau_instead_of_writing_it_raises():
    m, q0 = chain7()
    with pytest.raises(SimulationError, match=r"TypeError .*control returned a ndarray at t = 0 s.*tau_out\[:\] = \.\.\.") as ei:
        simulate(m, q0, np.zeros(7), 0.01, control=lambda t, q, u, tau: -10.0 * q)
    assert isinstance(ei.value.__cause__, TypeError) and len(ei.value.result) == 1  # (the loop's errors: issue 19)
    res = simulate(m, q0, np.zeros(7), 0.01, control=lambda t, q, u, tau: tau)  # returning tau_out itself: fine
    assert res.status == "finished"


def test_blow_up_is_reported_as_such_not_as_a_singular_inertia():
    from importlib.metadata import PackageNotFoundError, files
    try:
        panda = next(str(f.locate()) for f in files("example-robot-data") if f.name == "panda.urdf")
    except (PackageNotFoundError, StopIteration, TypeError):
        pytest.skip("example-robot-data is not installed")
    m = mb.load_urdf(panda)
    q_ref = m.neutral_q()

    def pd(t, q, u, tau_out):  # Kd = 30 on the light fingers is far too stiff for RK4 at 1 ms
        tau_out[:] = -100.0 * (q - q_ref) - 30.0 * u

    with pytest.raises(SimulationError) as ei:
        simulate(m, q_ref + 0.1, np.zeros(m.nu), 1.0, dt=1e-3, control=pd, efforts=False,
                 contact=False)  # (unclamped; not about contact)
    text = str(ei.value)
    assert "singular" not in text
    assert re.search(r"blew up at t = 0\.00\d+ s: u\[\d\] \(hinge 'panda_\w+'\) grew to [-\d.e+]+ [a-z/]+", text), text
    assert "smaller dt" in text and "dopri5" in text  # only methods that exist (generalized_alpha, issue 23)
    assert "integrator='generalized_alpha'" in text and "not a control's gains" in text
    assert ei.value.result.status == "failed" and np.all(np.isfinite(ei.value.result.u))
