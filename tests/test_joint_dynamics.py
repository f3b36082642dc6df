"""Joint dynamics from model files: damping, springs, Coulomb friction, effort limits and
actuators, applied by ``simulate`` by default; checked against closed forms and against
MuJoCo's own RK4 on the same MJCF files (contacts off, where both integrate the same
equations)."""
import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.simulation.joint_dynamics import EffortLimitWarning, JointDynamics

G = 9.81


def slider(mass=2.0, friction=0.0, damping=0.0):
    """A body on a frictional x slider, no gravity."""
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    b = m.add_body("b", mass=mass, inertia=np.eye(3) * 0.1)
    h = m.add_hinge(None, b, "slider", axis=(1.0, 0.0, 0.0), name="s")
    h.friction, h.damping = friction, damping
    return m


def test_coulomb_friction_stops_a_thrown_body_at_the_closed_form_distance():
    """v0 = 1.5 m/s, F = 3 N, m = 2 kg: it decelerates at F / m and stops after v0^2 m / (2 F)
    = 0.75 m at t = 1 s, then stays."""
    m = slider(friction=3.0)
    res = mb.simulate(m, np.zeros(1), np.array([1.5]), 1.5, dt=1e-3)
    i = np.searchsorted(res.t, 0.5)
    assert res.u[i, 0] == pytest.approx(1.5 - 1.5 * 0.5, rel=1e-3)  # the Coulomb deceleration
    assert res.q[-1, 0] == pytest.approx(0.75, rel=1e-3)
    assert abs(res.q[-1, 0] - res.q[np.searchsorted(res.t, 1.2), 0]) < 1e-4  # at rest after it stopped
    off = mb.simulate(m, np.zeros(1), np.array([1.5]), 1.5, dt=1e-3, joint_dynamics=False)
    assert off.q[-1, 0] == pytest.approx(1.5 * 1.5)


def test_coulomb_friction_holds_a_load_below_it_up_to_the_documented_creep():
    """A load of F / 3 on a body at rest: it creeps at v_s artanh(1/3) (module docstring), v_s
    the slip speed after the step's stability floor; a load of 2 F accelerates it at F / m."""
    m = slider(friction=3.0)
    res = mb.simulate(m, np.zeros(1), np.zeros(1), 1.0, dt=1e-3, tau=np.array([1.0]))
    v_s = JointDynamics(dt=1e-3).parameters(m)["slip_speed"][0]
    assert v_s == pytest.approx(2 * 3.0 * 1e-3 / 2.0)  # F dt / (I / 2)
    assert res.q[-1, 0] == pytest.approx(v_s * math.atanh(1 / 3), rel=0.05)
    assert res.q[-1, 0] < 1.1e-3
    res = mb.simulate(m, np.zeros(1), np.zeros(1), 1.0, dt=1e-3, tau=np.array([6.0]))
    assert res.u[-1, 0] == pytest.approx((6.0 - 3.0) / 2.0, rel=1e-3)


def test_damping_from_a_urdf_dissipates_and_can_be_turned_off(tmp_path):
    urdf = (Path(mb.__file__).parent / "data" / "double_pendulum.urdf").read_text()
    urdf = urdf.replace("</joint>", '<dynamics damping="0.3"/></joint>')
    p = tmp_path / "damped.urdf"
    p.write_text(urdf)
    m = mb.load_urdf(p)
    assert [h.damping for h in m.hinges] == [0.0, 0.3, 0.3]
    q0, u0 = np.array([1.0, -0.5]), np.zeros(2)
    on = mb.simulate(m, q0, u0, 2.0, dt=1e-3)
    off = mb.simulate(m, q0, u0, 2.0, dt=1e-3, joint_dynamics=False)
    def energy(q, u):
        return m.kinetic_energy(q, u) + m.potential_energy(q)
    e_on, e_off = (energy(r.q[-1], r.u[-1]) - energy(q0, u0) for r in (on, off))
    assert e_on < -0.05 and abs(e_off) < 1e-6
    # the same as the force model written out by hand
    hand = mb.simulate(m, q0, u0, 2.0, dt=1e-3, joint_dynamics=False,
                       forces=[mb.JointSpringDamper(h, damping=0.3) for h in ("shoulder", "elbow")])
    assert np.array_equal(hand.q, on.q)


def test_effort_limits_clamp_the_given_forces_and_say_so():
    m = slider()
    m.hinge("s").effort = 0.5
    with pytest.warns(EffortLimitWarning, match=r"'s'.*5 > 0\.5"):
        res = mb.simulate(m, np.zeros(1), np.zeros(1), 1.0, dt=1e-3, tau=np.array([5.0]))
    assert res.clamped == {"s": (1, 5.0)} and res.u[-1, 0] == pytest.approx(0.5 / 2.0)

    def push(t, q, u, tau_out):
        tau_out[0] = -7.0
    with pytest.warns(EffortLimitWarning, match="'s'"):
        res = mb.simulate(m, np.zeros(1), np.zeros(1), 0.1, dt=1e-3, control=push)
    assert res.clamped["s"][0] == 400 and res.u[-1, 0] == pytest.approx(-0.5 * 0.1 / 2.0)  # 4 stages x 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = mb.simulate(m, np.zeros(1), np.zeros(1), 1.0, dt=1e-3, tau=np.array([5.0]), efforts=False)
    assert res.clamped == {} and res.u[-1, 0] == pytest.approx(5.0 / 2.0)


CARTPOLE = """<mujoco model="cartpole"><compiler angle="radian"/><option timestep="0.001" integrator="RK4"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody><body name="cart" pos="0 0 1">
    <joint name="slider" type="slide" axis="1 0 0" damping="0.5" armature="0.1"/>
    <geom type="box" size="0.2 0.1 0.05" mass="1"/>
    <body name="pole"><joint name="hinge" type="hinge" axis="0 1 0" damping="0.01" springref="0.1"
      stiffness="0.2" ref="0.2"/>
      <geom type="capsule" fromto="0 0 0 0 0 0.6" size="0.02" mass="0.1"/></body></body></worldbody>
  <actuator><motor name="push" joint="slider" gear="2" ctrlrange="-1 1"/>
    <position name="hold" joint="hinge" kp="3" kv="0.2" forcerange="-0.5 0.5"/>
    <velocity name="drag" joint="slider" kv="0.7"/></actuator>
</mujoco>"""


def test_an_event_that_changes_the_model_does_not_count_the_clamp_again():
    """The run's integrator is made anew after each model change; the constant tau it takes
    over was clamped once, at the start, and is counted once."""
    m = slider()
    m.hinge("s").effort = 0.5
    events = [mb.Event(at=at, action=lambda t, q, u, k=k: m.add_node(f"n{k}", "b") and None, name=f"grow{k}")
              for k, at in enumerate((0.3, 0.6))]
    with pytest.warns(EffortLimitWarning, match=r"'s' \(1 time,"):
        res = mb.simulate(m, np.zeros(1), np.zeros(1), 1.0, dt=1e-3, tau=np.array([5.0]), events=events)
    assert len(res.events) == 2 and res.clamped == {"s": (1, 5.0)}
    assert res.u[-1, 0] == pytest.approx(0.5 / 2.0)


def test_the_smallest_inertia_is_sampled_once_per_model_and_limits(monkeypatch):
    """The armature of the implicit damping, the force-model entries and the default joint
    limits all need the smallest effective inertia (33 M^-1 calls, 24 ms on Solo12): it is
    sampled once per compiled model and what it reads uncompiled (the limits), not per run."""
    import multibody.simulation.forces as fm
    calls = []
    real = fm._inverse_mass
    monkeypatch.setattr(fm, "_inverse_mass", lambda m: calls.append(1) or real(m))
    m = slider(damping=1.0, friction=0.5)
    first = mb.simulate(m, np.zeros(1), np.ones(1), 0.01, dt=1e-3)
    again = mb.simulate(m, np.zeros(1), np.ones(1), 0.01, dt=1e-3)
    assert len(calls) == 1 and np.array_equal(first.q, again.q)
    chain = mb.Multibody()
    chain.add_serial_chain("l", 2)
    bent = np.array([0.0, 1.1])
    free = fm.smallest_inertia(chain, [0, 1], bent)
    chain.hinge("l1_hinge").set_limits(1.0, 1.2)  # the elbow kept bent: no straight arm, the lightest
    limited = fm.smallest_inertia(chain, [0, 1], bent)
    assert len(calls) == 3 and limited[0] > 1.5 * free[0]
    fm._INERTIA_MEMO.clear()
    assert np.array_equal(fm.smallest_inertia(chain, [0, 1], bent), limited)


def test_mjcf_dampers_springs_and_actuators_match_mujocos_rk4(tmp_path):
    """MuJoCo's RK4 integrates damping, springs and affine actuators explicitly, as we do: the
    trajectories agree to rounding, with constant controls and with controls from a function
    (ctrl out of its range is clipped; a force range saturates the servo)."""
    mujoco = pytest.importorskip("mujoco")
    p = tmp_path / "cartpole.xml"
    p.write_text(CARTPOLE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # everything in the file is mapped
        m = mb.load_mjcf(p)
    assert [a.name for a in m.actuators] == ["push", "hold", "drag"]
    mm = mujoco.MjModel.from_xml_path(str(p))
    mp = m.mjcf_map
    q0, u0 = np.array([0.0, 0.5]), np.array([0.1, -0.3])
    for ctrl in (np.array([1.7, 0.4, -0.2]), np.array([-0.3, 0.9, 0.1])):
        md = mujoco.MjData(mm)
        md.qpos[:], md.qvel[:], md.ctrl[:] = mp.q_to(q0), mp.v_to(q0, u0), ctrl
        for _ in range(500):
            mujoco.mj_step(mm, md)
        for given in (ctrl, lambda t, q, u, c=ctrl: c):
            res = mb.simulate(m, q0, u0, 0.5, dt=1e-3, ctrl=given)
            assert np.abs(res.q[-1] - mp.q_from(md.qpos)).max() < 1e-12
            assert np.abs(res.u[-1] - mp.v_from(md.qpos, md.qvel)).max() < 1e-12
    # ctrl = 0 by default: the servo holds the pole's length at 0, as MuJoCo's does
    md = mujoco.MjData(mm)
    md.qpos[:], md.qvel[:] = mp.q_to(q0), mp.v_to(q0, u0)
    for _ in range(500):
        mujoco.mj_step(mm, md)
    res = mb.simulate(m, q0, u0, 0.5, dt=1e-3)
    assert np.abs(res.q[-1] - mp.q_from(md.qpos)).max() < 1e-12


_dmc = importlib.util.find_spec("dm_control")
DM_SUITE = sorted(str(p) for p in (Path(_dmc.submodule_search_locations[0]) / "suite").glob("*.xml")) if _dmc else []


@pytest.mark.skipif(not DM_SUITE, reason="dm_control is not installed")
def test_dm_control_suite_matches_mujocos_rk4_without_contacts(monkeypatch, tmp_path):
    """Every suite model whose dynamics we map whole (no tendon, equality, unmapped actuator,
    friction loss, gravity compensation or fluid), contacts and limits off in both, at rest
    from qpos0 with random controls (seeded, within a fifth of their ranges: full
    ones throw the humanoid about so hard that rounding grows to 4e-6 in 0.5 s): 0.5 s at the model's own time step under MuJoCo's RK4 and
    ours agree to 1e-6 (relative to the motion's size)."""
    mujoco = pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)  # (MuJoCo writes MUJOCO_LOG.TXT where it runs)
    compared, worst, rng = [], 0.0, np.random.default_rng(5)
    for path in DM_SUITE:
        mm = mujoco.MjModel.from_xml_path(path)
        if (mm.ntendon or mm.neq or mm.dof_frictionloss.any() or mm.body_gravcomp.any()
                or mm.opt.density > 0 or mm.opt.viscosity > 0):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = mb.load_mjcf(path)
        if len(m.actuators) != mm.nu or m.nu == 0:
            continue
        mm.opt.integrator = int(mujoco.mjtIntegrator.mjINT_RK4)
        mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT) | int(mujoco.mjtDisableBit.mjDSBL_LIMIT)
        md = mujoco.MjData(mm)
        lo, hi = mm.actuator_ctrlrange.T
        ctrl = 0.2 * np.where(mm.actuator_ctrllimited, lo + (hi - lo) * rng.random(mm.nu), rng.standard_normal(mm.nu))
        md.ctrl[:] = ctrl
        dt = float(mm.opt.timestep)
        n = int(round(0.5 / dt))
        for _ in range(n):
            mujoco.mj_step(mm, md)
        mp = m.mjcf_map
        res = mb.simulate(m, mp.q_from(mm.qpos0), np.zeros(m.nu), n * dt, dt=dt, limits=False, ctrl=ctrl, contact=False,
                          implicit_damping=False)  # (MuJoCo's RK4 takes the damping explicitly)
        q_mj = mp.q_from(md.qpos)
        err = max(np.abs(res.q[-1] - q_mj).max() / max(1.0, np.abs(q_mj - mp.q_from(mm.qpos0)).max()),
                  np.abs(res.u[-1] - mp.v_from(md.qpos, md.qvel)).max() / max(1.0, np.abs(md.qvel).max()))
        print(f"{Path(path).name}: dt {dt:g} s, {len(m.actuators)} actuators, error {err:.1e}")
        compared.append(Path(path).name)
        worst = max(worst, err)
        assert err < 1e-6, (path, err)
    print(f"compared {len(compared)} suite models with MuJoCo's RK4: {compared}; worst {worst:.1e}")
    assert len(compared) >= 5


def test_bad_joint_dynamics_input_names_the_argument():
    m = slider()
    h = m.hinge("s")
    with pytest.raises(ValueError, match=r"hinge 's': damping must be >= 0"):
        h.damping = -1.0
    with pytest.raises(ValueError, match=r"hinge 's': friction must be finite"):
        h.friction = np.nan
    with pytest.raises(ValueError, match=r"one value per generalized speed \(1\)"):
        h.damping = (0.1, 0.2)
    with pytest.raises(ValueError, match="ctrl: the model has no actuators"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.1, ctrl=[1.0])
    with pytest.raises(ValueError, match="joint_dynamics must be True, False or a JointDynamics"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.1, joint_dynamics="yes")
    with pytest.raises(ValueError, match="efforts must be True or False"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.1, efforts=None)
    m.actuators = [mb.Actuator.motor("a", "s")]
    with pytest.raises(ValueError, match=r"ctrl must have shape \(1,\)"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.1, ctrl=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"ctrl\[0\] \(actuator 'a'\) is not finite"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.1, ctrl=[np.inf])
    m.actuators = [mb.Actuator.motor("a", "nope")]
    with pytest.raises(ValueError, match="actuator 'a': the model has no hinge 'nope'"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.1)
    ball = mb.Multibody()
    b = ball.add_body("b", mass=1.0, inertia=np.eye(3))
    ball.add_hinge(None, b, "spherical", name="j").spring_stiffness = 1.0
    with pytest.raises(ValueError, match="hinge 'j': spring_stiffness on rotation coordinate 0"):
        mb.simulate(ball, ball.neutral_q(), np.zeros(3), 0.1)


def test_stiff_damping_is_implicit_by_default_and_warned_when_explicit():
    """c dt / I = 10: explicit RK4 amplifies by 291 per step (a state of 1e246 after 0.1 s,
    which used to end as 'finished'); implicit in velocity, the speed decays."""
    m = slider(mass=1e-3, damping=10.0)
    res = mb.simulate(m, np.zeros(1), np.array([1.0]), 0.1, dt=1e-3)
    assert np.all(np.diff(np.abs(res.u[:, 0])) <= 0) and abs(res.u[-1, 0]) < 1e-30
    assert res.q[-1, 0] == pytest.approx((1e-3 + 1e-3 * 10.0) / 10.0, rel=0.05)  # (m + dt c) u0 / c: implicit
    with pytest.warns(RuntimeWarning, match=r"hinge 's': damping 10 with dt = 0.001 s.*implicit_damping='auto'"):
        with pytest.raises(mb.SimulationError, match=r"blew up at t = .*u\[0\] \(hinge 's'\)"):
            mb.simulate(m, np.zeros(1), np.array([1.0]), 0.1, dt=1e-3, implicit_damping=False)
    with pytest.raises(ValueError, match="implicit_damping=True needs a fixed step"):
        mb.simulate(m, np.zeros(1), np.array([1.0]), 0.1, integrator="dopri5", implicit_damping=True)


def test_implicit_damping_keeps_the_xarm7_accurate_at_one_millisecond():
    """xArm7's URDF damping (2 to 10 N m s/rad) on a wrist of 1.3e-4 kg m^2: explicit RK4 at
    1 ms blows up; with the stiff joint implicit the 2 s swing stays within 1e-4 rad of a
    tight dopri5 (friction set aside: its regularization depends on the step)."""
    robots = pytest.importorskip("robots")
    if robots.robots_dir() is None:
        pytest.skip("example-robot-data not installed")
    m = mb.load_urdf(robots.urdf("xarm_description/urdf/xarm7.urdf"))
    for h in m.hinges:
        h.friction = 0.0
    implicit = JointDynamics(dt=1e-3).parameters(m)["implicit"]
    assert implicit.sum() == 1 and implicit[-1]  # the last wrist joint only
    q0 = m.neutral_q() + 0.3
    res = mb.simulate(m, q0, np.zeros(7), 2.0, dt=1e-3, contact=False)
    ref = mb.simulate(m, q0, np.zeros(7), 2.0, dt=1e-2, integrator="dopri5", rtol=1e-10, atol=1e-12,
                      contact=False)
    assert np.abs(res.q[-1] - ref.q[-1]).max() < 1e-4
    with pytest.warns(RuntimeWarning, match="damping"), pytest.raises(mb.SimulationError):
        mb.simulate(m, q0, np.zeros(7), 2.0, dt=1e-3, implicit_damping=False, contact=False)


def test_friction_too_stiff_for_the_step_is_warned_by_hinge():
    m = slider(mass=1e-3, friction=1.0)
    with pytest.warns(RuntimeWarning, match=r"Coulomb friction of hinge 's'.*raised \(up to 2 on 's'"):
        mb.simulate(m, np.zeros(1), np.zeros(1), 0.01, dt=1e-3)


def test_joint_dynamics_survive_the_model_file(tmp_path):
    m = slider(friction=0.4, damping=0.2)
    m.hinge("s").spring_stiffness, m.hinge("s").spring_reference = (3.0,), (-0.1,)
    m.save(tmp_path / "m.yaml")
    back = mb.load_model(tmp_path / "m.yaml")
    for a, b in zip(back.hinge("s").joint_dynamics(), m.hinge("s").joint_dynamics()):
        assert np.array_equal(a, b)
    assert back.hinge("s").friction == 0.4 and back.hinge("s").spring_stiffness == (3.0,)


def test_rollout_applies_joint_dynamics_efforts_and_ctrl_as_simulate_does():
    m = slider(friction=1.0, damping=0.2)
    m.hinge("s").effort = 2.0
    m.actuators = [mb.Actuator.position("servo", "s", kp=5.0, kv=0.5)]
    Q0, U0 = np.zeros((3, 1)), np.array([[0.5], [0.0], [-1.0]])
    tau = np.array([[1.0], [3.0], [-4.0]])
    with pytest.warns(EffortLimitWarning):
        roll = mb.rollout(m, Q0, U0, 0.3, dt=1e-3, tau=tau, ctrl=[0.2], progress=False)
    assert set(roll.clamped) == {"s"}
    for b in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EffortLimitWarning)
            one = mb.simulate(m, Q0[b], U0[b], 0.3, dt=1e-3, tau=tau[b], ctrl=[0.2])
        assert np.array_equal(roll.q[b], one.q)
    with pytest.raises(ValueError, match="ctrl must be an array"):
        mb.rollout(m, Q0, U0, 0.3, ctrl=lambda t, q, u: [0.0], progress=False)


@pytest.mark.skipif(not DM_SUITE, reason="dm_control is not installed")
def test_manipulator_runs_at_mujocos_step_and_never_gains_energy(monkeypatch, tmp_path):
    """dm_control's manipulator.xml, its dampers (7e-8 kg m^2 finger tips against 0.01 N m s)
    and actuators at zero control, RK4 at 2 ms for 5 s: finite (its light joints' damping
    implicit), and a passive system whose energy (kinetic, gravity, joint springs) never grows."""
    monkeypatch.chdir(tmp_path)
    path = next(p for p in DM_SUITE if p.endswith("manipulator.xml"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = mb.load_mjcf(path)
    res = mb.simulate(m, m.neutral_q(), np.zeros(m.nu), 5.0, dt=2e-3, limits=False, contact=False)
    assert res.status == "finished" and np.all(np.isfinite(res.u))
    p = JointDynamics(dt=2e-3).parameters(m)
    spring = 0.5 * np.sum(p["stiffness"] * (res.q[:, p["q"]] - p["reference"]) ** 2, axis=1)
    ke, pe = res.energy(m)
    energy = ke + pe + spring
    assert np.max(np.diff(energy)) <= 1e-9 * abs(energy[0])


def test_cli_reports_the_work_of_the_joint_damping_beside_the_drift(tmp_path, capsys):
    import re

    from multibody.cli import main
    urdf = (Path(mb.__file__).parent / "data" / "double_pendulum.urdf").read_text()
    p = tmp_path / "damped.urdf"
    p.write_text(urdf.replace("</joint>", '<dynamics damping="0.3"/></joint>'))
    assert main(["simulate", str(p), "--q0", "1,-0.5", "--t-final", "2"]) == 0
    said = capsys.readouterr().out
    work = float(re.search(r"damping and friction did ([-\d.e+]+) J of work", said).group(1))
    drift = float(re.search(r"max drift ([-\d.e+]+) J", said).group(1))
    balance = float(re.search(r"drifts by at most ([-\d.e+]+) J", said).group(1))
    assert work < -0.05 and drift == pytest.approx(-work, rel=0.01) and balance < 1e-5


def test_a_ctrl_function_is_sampled_with_control_period():
    """ctrl(t, q, u) under control_period is called at the samples only and its controls are
    held (zero-order) in between, as a sampled control's joint forces are."""
    m = slider(damping=0.1)
    m.actuators = [mb.Actuator.motor("push", "s", gear=2.0)]
    times = []

    def ctrl(t, q, u):
        times.append(t)
        return [1.0 if t < 0.5 else -1.0]
    res = mb.simulate(m, np.zeros(1), np.zeros(1), 1.0, dt=1e-3, ctrl=ctrl, control_period=0.1)
    assert times == pytest.approx(np.arange(10) * 0.1, abs=1e-12)
    ref = mb.simulate(m, np.zeros(1), np.zeros(1), 0.5, dt=1e-3, ctrl=[1.0])
    assert res.q[500, 0] == pytest.approx(ref.q[-1, 0], abs=1e-12)
