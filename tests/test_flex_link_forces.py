"""simulate with modal bodies and link-level forces or constraints (simulation/
flex_link_forces.py: wrenches and spring-dampers at frames, compiled into every stage of the
loop's flex variants), checked against closed forms and conservation laws:

* a cantilever's static tip deflection under a tip force, P L^3 / (3 EI);
* energy (kinetic + gravity + strain + spring) of a flexible pendulum held by a spring
  between its deforming tip and the world;
* a four-bar linkage with a flexible coupler, its loop closed at the coupler's deforming
  tip: energy and closure over the run, with and without Baumgarte stabilization.
"""
import importlib
import pathlib
import sys

import numpy as np
import pytest

import multibody as mb
from flex_models import total_energy
from multibody.flex import beam_modes
from multibody.simulation import ExternalForce, LinearSpringDamper, RungeKuttaIntegrator

Y = (0, 1, 0)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
try:
    four_bar = importlib.import_module("flexible_four_bar")  # the model: examples/flexible_four_bar.py
finally:
    sys.path.pop(0)
flexible_four_bar = four_bar.flexible_four_bar


def _T(x, z=0.0):
    T = np.eye(4)
    T[0, 3], T[2, 3] = x, z
    return T


def cantilever(damping_ratio=1.0):
    """1 m beam, EI = 50 N m^2, clamped to the world (6 modes, critically damped)."""
    data = beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=6, nodes=[1.0], damping_ratio=damping_ratio,
                      geometric_stiffening=False)
    m = mb.Multibody()
    m.gravity = np.zeros(3)
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": 0})
    m.add_hinge(None, beam, "fixed")
    return m


@pytest.mark.parametrize("axes", ["world", "body"])
def test_tip_force_gives_the_static_deflection_of_beam_theory(axes):
    m = cantilever()
    P = 0.5  # N along z: 3.3 mm of tip deflection, small enough for a follower force to agree
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), 1.5, dt=0.5, integrator="dopri5", rtol=1e-9, atol=1e-12,
                      forces=[ExternalForce("tip", (0, 0, 0, 0, 0, P), axes=axes)])
    tip = m.frame_pose(res.q[-1], "tip")[:3, 3]
    assert abs(tip[2] - P / (3 * 50.0)) < 2e-3 * P / (3 * 50.0)  # 6 modes: 1.9e-4 short of it


def test_spring_to_the_world_conserves_energy():
    """A flexible pendulum (pin about y) under gravity, its tip tied by an undamped spring to
    a world point: kinetic + gravity + strain + spring energy is constant."""
    data = beam_modes(1.0, EI=50.0, rhoA=0.5, n_elements=16, n_modes=3, nodes=[1.0])
    m = mb.Multibody()
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": 0})
    m.add_hinge(None, beam, "pin", axis=Y)
    m.add_node("anchor", None, _T(1.2, 0.4))
    spring = LinearSpringDamper("anchor", "tip", stiffness=4.0, rest_length=0.1)  # ~3 N: ~2 cm
    q0 = np.zeros(m.nq)
    q0[0] = 0.3
    res = mb.simulate(m, q0, np.zeros(m.nu), 1.0, dt=0.05, integrator="dopri5", rtol=1e-11, atol=1e-13,
                      forces=[spring])
    e = np.array([total_energy(m, q, u) + spring.energy(m, q) for q, u in zip(res.q, res.u)])
    assert np.ptp(res.q[:, 0]) > 0.05 and np.abs(res.q[:, m.modal_slice(beam)]).max() > 1e-4
    assert np.abs(e - e[0]).max() < 1e-8 * np.abs(e).max()


@pytest.mark.parametrize("gains", [None, "default"])
def test_flexible_four_bar_keeps_its_loop_and_its_energy(gains):
    m, q0 = flexible_four_bar(EI=5.0)
    assert np.abs(m.pose_error(q0, "residual")).max() < 1e-12
    res = mb.simulate(m, q0, np.zeros(m.nu), 0.3, dt=0.02, integrator="dopri5", rtol=1e-8, atol=1e-12,
                      stabilization_gains=gains)  # energy 9e-12 / 2e-12, closure 2.7e-11 / 5.1e-12
    e = np.array([total_energy(m, q, u) for q, u in zip(res.q, res.u)])
    closure = max(np.abs(m.pose_error(q, "residual")).max() for q in res.q)
    assert np.ptp(res.q[:, 0]) > 0.5  # the crank turns
    assert np.abs(res.q[:, m.modal_slice("coupler")]).max() > 1e-3  # the coupler bends
    assert np.abs(e - e[0]).max() < 1e-8 * np.abs(e).max()
    assert closure < 1e-9


def test_the_stage_forces_are_the_constrained_dynamics():
    """One fixed step of Euler from the closed four-bar: u1 = u0 + h udot, udot from
    m.constrained_dynamics (with the run's default gains) plus a user control's torque."""
    m, q0 = flexible_four_bar()
    u0 = np.zeros(m.nu)
    u0[0] = 0.7
    u0 = m.constraint_kinematics().solve_u(q0, u0, frozen=[0])

    def control(t, q, u, tau_out):
        tau_out[0] = 0.25 - 0.1 * u[0]

    integ = RungeKuttaIntegrator(m, q0, u0, tableau="euler", control=control,
                                 stabilization_gains="default")
    integ.step(0.0, 1e-3)
    tau = np.zeros(m.nu)
    control(0.0, q0, u0, tau)
    udot = m.constrained_dynamics(q0, u0, tau, stabilization_gains="default").udot
    np.testing.assert_allclose(integ.u, u0 + 1e-3 * udot, rtol=0, atol=1e-13)


def test_example_runs(tmp_path):
    res = four_bar.main(["--t-final", "0.1", "--EI", "5", "--plot", str(tmp_path / "four_bar.png")])
    assert res.status == "finished" and res.q[-1, 0] > -1.2
    if importlib.util.find_spec("matplotlib"):
        assert (tmp_path / "four_bar.png").stat().st_size > 1000


@pytest.mark.parametrize("axes", ["body", "world"])
def test_sinusoidal_wrench_at_a_deforming_node_follows_its_time_law(axes):
    """One Euler step at t = 0.3 s of a cantilever pushed at its deforming tip by
    w0 + w1 sin(2 pi f t + phase): u1 = u0 + h udot, udot from the forward dynamics under
    that wrench as f_ext (a world-axes wrench rotated into the tip's axes here; the loop's
    own rotation, time law and packing are what this checks: both map the wrench through the
    flex external-force kernel, which test_implicit_flex_forces checks against J^T w)."""
    m = cantilever(damping_ratio=0.5)
    rng = np.random.default_rng(4)
    q0 = 1e-3 * rng.normal(size=m.nq)
    u0 = 0.1 * rng.normal(size=m.nu)
    w0, w1 = np.array([0.1, 0.0, -0.2, 0.0, 0.3, 0.5]), np.array([0.2, -0.1, 0.0, 0.4, 0.0, -0.3])
    force = ExternalForce("tip", w0, amplitude=w1, frequency=1.7, phase=0.4, axes=axes)
    t0, h = 0.3, 1e-3
    integ = RungeKuttaIntegrator(m, q0, u0, tableau="euler", forces=[force], t0=t0)
    integ.step(t0, h)
    w = w0 + w1 * np.sin(2.0 * np.pi * 1.7 * t0 + 0.4)
    if axes == "world":
        R = m.frame_pose(q0, "tip")[:3, :3]
        w = np.concatenate([R.T @ w[:3], R.T @ w[3:]])
    udot = m.forward_dynamics(q0, u0, np.zeros(m.nu), f_ext={"tip": w})
    assert np.abs(udot).max() > 1.0  # the wrench and the elastic forces move it
    np.testing.assert_allclose(integ.u, u0 + h * udot, rtol=0, atol=1e-12 * np.abs(udot).max())


def test_the_constrained_flex_loop_is_the_facades_constrained_dynamics():
    """The loop's constrained flex variant (``flex_stepping``, ``ta``: the compiled flex
    tree-augmented dynamics in the stage) steps with the facade's constrained udot: one Euler
    step u1 = u0 + h udot, with the joint force models' forces added (a joint spring-damper)
    and with a wrench at a deforming node (``flex_link_forces``) taken as f_ext."""
    from multibody.simulation.forces import JointSpringDamper
    m, q0 = flexible_four_bar()
    rng = np.random.default_rng(3)
    q0 = q0 + 0.02 * rng.normal(size=m.nq)  # off the closed state: the gains act
    u0, tau = rng.normal(size=m.nu), rng.normal(size=m.nu)
    spring = JointSpringDamper(m.hinges[0].name, stiffness=3.0, damping=0.4, q_ref=0.1)
    wrench = ExternalForce("coupler_mid", (0.0, 0.3, 0.0, 0.0, 0.0, -2.0))
    h = 1e-3
    tau_full = tau.copy()
    tau_full[m.u_slice(m.hinges[0].name)] -= 3.0 * (q0[0] - 0.1) + 0.4 * u0[0]
    for forces, f_ext in (([spring], None), ([spring, wrench], {"coupler_mid": wrench.wrench})):
        integ = RungeKuttaIntegrator(m, q0, u0, tableau="euler", tau=tau, forces=forces,
                                     stabilization_gains="default")
        integ.step(0.0, h)
        udot = m.constrained_dynamics(q0, u0, tau_full, f_ext=f_ext, stabilization_gains="default").udot
        assert np.abs(udot).max() > 1.0
        np.testing.assert_allclose(integ.u, u0 + h * udot, rtol=0, atol=1e-12 * np.abs(udot).max())
    without = m.constrained_dynamics(q0, u0, tau_full, stabilization_gains="default").udot
    assert np.abs(udot - without).max() > 1e-2  # the wrench changes the motion

@pytest.mark.parametrize("axes", ["body", "world"])
def test_a_wrench_on_a_rigid_body_of_a_flexible_model(axes):
    """A wrench on the rigid arm that carries a modal beam (a frame on a rigid link of a model
    with modal bodies, packed at its frame row like a node): one Euler step is u0 + h udot,
    udot from the facade's forward dynamics with the wrench as f_ext (world axes rotated
    into the arm's here)."""
    data = beam_modes(1.0, EI=20.0, rhoA=1.0, n_elements=8, n_modes=2, nodes=[1.0])
    m = mb.Multibody()
    arm = m.add_body("arm", mass=1.0, inertia=np.diag([0.1, 0.1, 0.05]))
    m.add_hinge(None, arm, "pin", axis=Y)
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": 0})
    m.add_hinge(arm, beam, "pin", axis=(0, 0, 1), T_parent_joint=_T(0.3))
    rng = np.random.default_rng(1)
    q0 = np.r_[0.7, -0.4, 1e-3 * rng.normal(size=2)]
    u0 = np.r_[0.3, -0.2, 0.01 * rng.normal(size=2)]
    w = np.array([0.1, -0.3, 0.2, 1.0, 0.5, -0.7])
    integ = RungeKuttaIntegrator(m, q0, u0, tableau="euler", forces=[ExternalForce("arm", w, axes=axes)])
    integ.step(0.0, 1e-3)
    if axes == "world":
        R = m.frame_pose(q0, "arm")[:3, :3]
        w = np.concatenate([R.T @ w[:3], R.T @ w[3:]])
    udot = m.forward_dynamics(q0, u0, np.zeros(m.nu), f_ext={"arm": w})
    assert np.abs(udot - m.forward_dynamics(q0, u0, np.zeros(m.nu))).max() > 0.1  # the wrench acts
    np.testing.assert_allclose(integ.u, u0 + 1e-3 * udot, rtol=0, atol=1e-13 * np.abs(udot).max())
