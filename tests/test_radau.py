"""integrator="radau" (issue 23, item 1): Radau IIA of order 5, adaptive, in a compiled loop.

One step against the method's stability function (the (2, 3) Pade approximant of exp) on a
linear spring-damper, order 5 by halving fixed steps on a pendulum and on tumbling free
bodies (quaternion and rotation vector) against dopri5 at tight tolerance, the adaptive
error against the tolerance, a stiff flexible pendulum against a rigid one in a fraction
of dopri5's steps, energy of a conservative chain and the same run 1e5 m from the origin,
the run interface (control, control_period) and bad input.
"""
import time

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import multibody as mb
from multibody.flex import beam_modes
from multibody.simulation.radau import RadauIntegrator

FIXED = dict(adaptive=False)


def pendulum(gravity=(0.0, 0.0, -9.81)):
    """A point mass of 1 kg on a massless 1 m rod, pin about y, hanging along -z at q = 0."""
    m = mb.Multibody("pendulum", gravity=gravity)
    b = m.add_body("bob", mass=1.0, com=(0.0, 0.0, -1.0), inertia=np.zeros((3, 3)))
    m.add_hinge(None, b, "pin", axis=(0.0, 1.0, 0.0), name="swing")
    return m


def tumbler(kind):
    """An asymmetric free body (principal inertias 1, 2, 3) under gravity."""
    m = mb.Multibody("tumbler")
    b = m.add_body("b", mass=2.0, inertia=np.diag([1.0, 2.0, 3.0]))
    m.add_hinge(None, b, kind=kind)
    return m


def chain(shift=(0.0, 0.0, 0.0)):
    """Three rods (pin, ball (quaternion), pin), the root hinge placed at ``shift`` [m]."""
    m = mb.Multibody("chain")
    parent, T = None, np.eye(4)
    T[:3, 3] = shift
    for i, kind in enumerate(("pin", "spherical_quat", "pin")):
        b = m.add_body(f"rod{i}", mass=1.0 + 0.3 * i, com=(0.0, 0.0, -0.5),
                       inertia=np.diag([0.09, 0.08 + 0.01 * i, 0.01]))
        m.add_hinge(parent, b, kind, axis=None if kind == "spherical_quat" else (0.0, 1.0, 0.0), T_parent_joint=T)
        parent, T = b, np.eye(4)
        T[2, 3] = -1.0
    return m


def orders(errors):
    """log2 of successive error ratios (steps halved)."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


def test_one_step_is_the_stability_function():
    """theta'' = -k theta - c theta' (a pin with a spring-damper, no gravity, inertia 1):
    one step of h = 0.1 gives R(hA) y0 with R(z) = (1 + 2z/5 + z^2/20) / (1 - 3z/5 +
    3z^2/20 - z^3/60), the stability function of 3-stage Radau IIA, to 1e-12; with k = 1e6
    (omega h = 100) too, where the step damps the mode as L-stability says (|R| ~ 0.06)."""
    for k, c in ((4.0, 0.3), (1e6, 10.0)):
        m = pendulum(gravity=(0.0, 0.0, 0.0))
        spring = mb.JointSpringDamper("swing", stiffness=k, damping=c)
        h = 0.1
        A = np.array([[0.0, 1.0], [-k, -c]])
        Z = h * A
        I = np.eye(2)
        R = np.linalg.solve(I - 0.6 * Z + 0.15 * Z @ Z - Z @ Z @ Z / 60.0, I + 0.4 * Z + Z @ Z / 20.0)
        y = R @ np.array([0.3, -0.2])
        res = mb.simulate(m, [0.3], [-0.2], h, dt=h, integrator="radau", forces=[spring], rtol=1e-12, atol=1e-14,
                          integrator_options=FIXED, joint_dynamics=False, limits=False)
        assert res.n_steps == 1
        err = np.abs(np.array([res.q[-1, 0], res.u[-1, 0]]) - y).max()
        print(f"k {k:g}: one step {res.q[-1, 0]:.15f}, {res.u[-1, 0]:.15f}; R(hA) y0 {y}; error {err:.1e}")
        assert err < 1e-12 * max(1.0, np.abs(y).max())


def test_fifth_order_on_a_pendulum():
    """Released at 1.2 rad, 2 s, fixed steps 0.1, 0.05, 0.025 s against dopri5 at rtol 1e-13:
    the errors of q and u fall 32x per halving (order 5)."""
    m = pendulum()
    ref = mb.simulate(m, [1.2], [0.0], 2.0, dt=2.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    eq, eu = [], []
    for h in (0.1, 0.05, 0.025):
        res = mb.simulate(m, [1.2], [0.0], 2.0, dt=h, integrator="radau", rtol=1e-12, atol=1e-14,
                          integrator_options=FIXED)
        assert res.status == "finished" and res.integrator == "radau"
        eq.append(abs(res.q[-1, 0] - ref.q[-1, 0]))
        eu.append(abs(res.u[-1, 0] - ref.u[-1, 0]))
    print(f"pendulum: q errors {np.array(eq)}, orders {orders(eq)}; u errors {np.array(eu)}, orders {orders(eu)}")
    assert np.all(np.abs(orders(eq) - 5.0) < 0.5) and np.all(np.abs(orders(eu) - 5.0) < 0.5)


@pytest.mark.parametrize("kind", ["free_quat", "free"])
def test_fifth_order_on_a_tumbling_body(kind):
    """Near the intermediate axis (it flips), 3 s: the rotation's error (angle of R_ref^T R),
    the position's and the speeds' fall 32x per halving of 0.1, 0.05, 0.025 s; quaternions
    stay unit (q moves through the model's integrate)."""
    m = tumbler(kind)
    q0 = m.neutral_q()
    u0 = np.array([0.05, 2.0, 0.05, 0.3, -0.2, 1.0])
    ref = mb.simulate(m, q0, u0, 3.0, dt=3.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    T_ref = m.body_pose(ref.q[-1], "b")
    er, ex, eu = [], [], []
    for h in (0.1, 0.05, 0.025):
        res = mb.simulate(m, q0, u0, 3.0, dt=h, integrator="radau", rtol=1e-12, atol=1e-14,
                          integrator_options=FIXED)
        if kind == "free_quat":
            assert np.max(np.abs(np.linalg.norm(res.q[:, :4], axis=1) - 1.0)) < 1e-13
        T = m.body_pose(res.q[-1], "b")
        er.append(Rotation.from_matrix(T_ref[:3, :3].T @ T[:3, :3]).magnitude())
        ex.append(np.abs(T[:3, 3] - T_ref[:3, 3]).max())
        eu.append(np.abs(res.u[-1] - ref.u[-1]).max())
    print(f"{kind}: rotation errors {np.array(er)}, orders {orders(er)}; position orders {orders(ex)}; "
          f"u errors {np.array(eu)}, orders {orders(eu)}")
    for e in (er, ex, eu):
        assert np.all(np.abs(orders(e) - 5.0) < 0.6)


def test_adaptive_error_follows_the_tolerance():
    """Adaptive steps on the pendulum, 2 s: the error at the end is below 10 rtol for rtol =
    1e-6, 1e-8, 1e-10, and the steps grow like rtol^(-1/5) or slower (order 5, not less)."""
    m = pendulum()
    ref = mb.simulate(m, [1.2], [0.0], 2.0, dt=2.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    steps = []
    for rtol in (1e-6, 1e-8, 1e-10):
        res = mb.simulate(m, [1.2], [0.0], 2.0, dt=2.0, integrator="radau", rtol=rtol, atol=rtol)
        err = max(abs(res.q[-1, 0] - ref.q[-1, 0]), abs(res.u[-1, 0] - ref.u[-1, 0]))
        print(f"rtol {rtol:g}: error {err:.2e}, {res.n_steps} steps, {res.n_rejected} rejected")
        assert res.status == "finished" and err < 10 * rtol
        steps.append(res.n_steps)
    assert steps[2] < steps[0] * 100 ** 0.2 * 100 ** 0.2 * 1.5


def test_jacobian_reuse():
    """On the pendulum at rtol 1e-8 the Jacobian is reused across steps (fewer formed than
    steps, fewer factorisations than tries); formed anew at every step (jacobian_rate tiny)
    the run agrees within the tolerance: the iteration converges to the same collocation
    solution whichever Jacobian steers it (measured: 31 and 65 Jacobians for 71 steps)."""
    m = pendulum()
    runs = []
    for rate in (0.001, 1e-300):
        integ = RadauIntegrator(m, [1.2], [0.0], rtol=1e-8, atol=1e-8, jacobian_rate=rate)
        integ.integrate(2.0, 2.0)
        runs.append(integ)
        print(f"jacobian_rate {rate:g}: {integ.n_steps} steps, {integ.n_rejected} rejected, {integ.jacobians} "
              f"Jacobians, {integ.factorizations} factorisations, {integ.newton_iterations} Newton iterations")
    reuse, fresh = runs
    assert reuse.jacobians < reuse.n_steps / 2 and reuse.factorizations < reuse.n_steps + reuse.n_rejected
    assert fresh.jacobians > 1.5 * reuse.jacobians
    assert abs(reuse.q[0] - fresh.q[0]) < 1e-7 and abs(reuse.u[0] - fresh.u[0]) < 1e-7


def beam_pendulum(EI=2e6, rhoA=0.5, damping_ratio=0.02):
    """(flexible, rigid): a 1 m beam_modes beam (3 clamped modes) on a pin about y, and a
    rigid rod with its mass, centre of mass and inertia on the same pin."""
    data = beam_modes(1.0, EI, rhoA, n_elements=40, n_modes=3, damping_ratio=damping_ratio)
    flex = mb.Multibody("beam pendulum")
    beam = flex.add_modal_body("beam", modal_data=data)
    flex.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    rigid = mb.Multibody("rigid pendulum")
    rod = rigid.add_body("rod", mass=data.mass, com=data.com, inertia=data.inertia)
    rigid.add_hinge(None, rod, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return flex, rigid, data


def test_stiff_flexible_pendulum():
    """A steel-stiff beam (first mode 1.1 kHz, then 7.0 and 19.6 kHz, 2 % modal damping)
    released horizontal: at rtol 1e-8 radau reaches theta(1 s) within 1e-5 rad of the rigid
    pendulum with its inertia, in at most 1/5 of dopri5's steps (dopri5 is held by the
    19.6 kHz mode's stability bound; radau follows the motion once the modes have decayed)."""
    flex, rigid, data = beam_pendulum()
    assert data.frequencies[0] / (2 * np.pi) > 1000.0
    ref = mb.simulate(rigid, [0.0], [0.0], 1.0, dt=1.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    q0, u0 = np.zeros(flex.nq), np.zeros(flex.nu)
    runs = {}
    for name in ("radau", "dopri5"):
        mb.simulate(flex, q0, u0, 1e-3, dt=1e-3, integrator=name, rtol=1e-8, atol=1e-10)  # (compiled here)
        wall = time.perf_counter()
        res = mb.simulate(flex, q0, u0, 1.0, dt=1.0, integrator=name, rtol=1e-8, atol=1e-10)
        runs[name] = (res, time.perf_counter() - wall)
        print(f"{name}: theta(1) - rigid {res.q[-1, 0] - ref.q[-1, 0]:.2e} rad, {res.n_steps} steps "
              f"({res.n_rejected} rejected), {runs[name][1]:.3f} s")
    radau, dopri = runs["radau"][0], runs["dopri5"][0]
    assert radau.status == "finished" and dopri.status == "finished"
    assert abs(radau.q[-1, 0] - ref.q[-1, 0]) < 1e-5
    assert 5 * radau.n_steps <= dopri.n_steps


def test_energy_of_a_chain_and_far_from_the_origin():
    """A pin-ball-pin chain of rods released sideways with a twist, 3 s at rtol 1e-9: the
    total energy stays within 1e-7 of its start (relative to the kinetic energy's peak, rtol
    level); the same chain 1e5 m from the origin gives the same q and u to 1e-9."""
    near, far = chain(), chain((1e5, -3e4, 2e4))
    q0 = near.neutral_q()
    q0[0] = 1.0
    q0[1:5] = Rotation.from_rotvec([0.4, -0.2, 0.3]).as_quat()
    q0[5] = -0.7
    u0 = np.zeros(near.nu)
    u0[1:4] = [1.5, -0.5, 2.0]
    res = mb.simulate(near, q0, u0, 3.0, dt=0.01, integrator="radau", rtol=1e-9, atol=1e-12)
    ke, pe = res.energy(near)
    drift = np.abs(ke + pe - ke[0] - pe[0]).max() / ke.max()
    print(f"chain: {res.n_steps} steps, energy drift {drift:.2e} of the peak kinetic energy {ke.max():.3f} J")
    assert res.status == "finished" and drift < 1e-7
    away = mb.simulate(far, q0, u0, 3.0, dt=0.01, integrator="radau", rtol=1e-9, atol=1e-12)
    dq = np.abs(away.q - res.q).max()
    du = np.abs(away.u - res.u).max()
    print(f"1e5 m away: {away.n_steps} steps (near {res.n_steps}); max |dq| {dq:.1e}, |du| {du:.1e}")
    assert away.n_steps == res.n_steps and dq < 1e-9 and du < 1e-9


def test_control_once_per_step_and_sampled():
    """A PD control on the pendulum is called once per step try with the step's start state
    (never more calls than steps + rejections + 1); with control_period 0.01 s over 1 s,
    exactly 100 times, and the run matches its explicit reference within the tolerance."""
    m = pendulum()
    calls = []

    def pd(t, q, u, tau):
        calls.append(t)
        tau[0] -= 5.0 * q[0] + 0.5 * u[0]

    res = mb.simulate(m, [1.0], [0.0], 1.0, dt=1.0, integrator="radau", control=pd, rtol=1e-6)
    assert res.status == "finished" and res.n_steps <= len(calls) <= res.n_steps + res.n_rejected + 1
    calls.clear()
    res = mb.simulate(m, [1.0], [0.0], 1.0, dt=0.01, integrator="radau", control=pd, control_period=0.01, rtol=1e-10,
                      atol=1e-12)
    assert len(calls) == 100
    calls.clear()
    ref = mb.simulate(m, [1.0], [0.0], 1.0, dt=0.01, integrator="dopri5", control=pd, control_period=0.01,
                      rtol=1e-12, atol=1e-12)
    assert np.abs(res.q - ref.q).max() < 1e-8


def test_bad_input():
    """Each bad argument is named."""
    m = pendulum()
    run = lambda **kw: mb.simulate(m, [0.5], [0.0], 0.1, dt=0.1, integrator="radau", **kw)  # noqa: E731
    for kw, text in ((dict(rtol=0.0), "rtol"), (dict(rtol=-1e-6), "rtol"), (dict(rtol=float("nan")), "rtol"),
                     (dict(atol=-1.0), "atol"),
                     (dict(integrator_options=dict(rho_inf=0.5)), "rho_inf"),
                     (dict(integrator_options=dict(adaptive="yes")), "adaptive"),
                     (dict(integrator_options=dict(max_iterations=0)), "max_iterations"),
                     (dict(integrator_options=dict(max_iterations=2.5)), "max_iterations"),
                     (dict(integrator_options=dict(newton_tol=-1.0)), "newton_tol"),
                     (dict(integrator_options=dict(jacobian_rate=0.0)), "jacobian_rate")):
        with pytest.raises(ValueError, match=text):
            run(**kw)
    with pytest.raises(TypeError, match="integrator_options"):
        run(integrator_options=[("adaptive", False)])
    with pytest.raises(NotImplementedError, match="radau.*control"):
        mb.rollout(m, [[0.5]], [[0.0]], 0.1, dt=0.1, integrator="radau", control=lambda t, Q, U, T: None)
    with pytest.raises(ValueError, match="rtol"):
        RadauIntegrator(m, [0.5], [0.0], rtol=0.0)
