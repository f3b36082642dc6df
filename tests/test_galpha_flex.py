"""integrator="generalized_alpha" on models with modal (flexible) bodies (issue 23): Newton's
matrix from the analytic flex derivatives against central differences of the residual,
second order on a flexible pendulum against dopri5 at tight tolerance, the trapezoidal
member's energy error O(h^2), and rho_inf = 0 damping a stiff beam's modes while the swing
follows radau's; rollout."""
import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes
from multibody.kernels.common import data_start, link_rows
from multibody.simulation.flex_implicit import flex_iteration_matrix, flex_residual
from multibody.simulation.galpha import GeneralizedAlphaIntegrator

GA = "generalized_alpha"


def beam_pendulum(EI=5.0, rhoA=1.0, damping_ratio=0.0):
    """A 1 m beam_modes beam (2 clamped modes; EI = 5: 1.25 and 7.84 Hz) on a pin about y,
    horizontal at q = 0."""
    data = beam_modes(1.0, EI, rhoA, n_elements=10, n_modes=2, damping_ratio=damping_ratio)
    m = mb.Multibody("beam pendulum")
    beam = m.add_modal_body("beam", modal_data=data)
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return m, data


def orders(errors):
    """log2 of successive error ratios (steps halved)."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


def _check_matrix(m, forces, q, u, x):
    """(K, C, S, Kfd, Cfd): the flex Newton matrix's pieces and central differences of the
    residual (along ``integrate`` for q)."""
    integ = GeneralizedAlphaIntegrator(m, q, u, forces=forces)
    c, buf = m.compiled, integ.data.buf
    n = c.mi.shape[0]
    ws = link_rows(buf, data_start(buf, n), n)
    nu = m.nu
    tau, r, src = np.zeros(nu), np.zeros(nu), np.zeros(nu)

    def res(qq, uu):
        flex_residual(c.mi, integ.mf, ws, buf, integ.fmi, integ.fmf, 0.3, qq, uu, x, src, tau, r)
        return r.copy()

    K, C, S = np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros((nu, nu))
    assert flex_iteration_matrix(c.mi, integ.mf, ws, buf, integ._gw[16], integ.fmi, integ.fmf, 0.3, q, u, x, src,
                                 tau, 0.013, 0.21, K, C, S)
    assert np.allclose(S, m.mass_matrix(q) + 0.21 * C + 0.013 * K, rtol=0, atol=1e-12 * np.abs(S).max())
    eps = 1e-6
    Kfd = np.array([(res(m.integrate(q, e), u) - res(m.integrate(q, -e), u)) / (2 * eps)
                    for e in np.eye(nu) * eps]).T
    Cfd = np.array([(res(q, u + e) - res(q, u - e)) / (2 * eps) for e in np.eye(nu) * eps]).T
    return K, C, S, Kfd, Cfd


def test_newton_matrix_equals_central_differences_of_the_residual():
    """The residual r = ID_flex(q, u, x) - tau(q, u) (modal stiffness and 5 % damping, a
    joint spring-damper on the pivot) and K_t = dr/dq, C_t = dr/du from the analytic flex
    derivatives against central differences; on a random flexible tree (every hinge kind,
    quaternions, a body hanging from a deforming node) too."""
    from flex_models import flexible_tree
    m, _ = beam_pendulum(damping_ratio=0.05)
    rng = np.random.default_rng(2)
    cases = [(m, [mb.JointSpringDamper("pivot", stiffness=7.0, damping=0.3)],
              rng.normal(size=m.nq) * 0.03, rng.normal(size=m.nu))]
    tree = flexible_tree(np.random.default_rng(1), gravity=(0.0, 0.0, -9.81))
    cases.append((tree, [], tree.random_q(rng=rng), rng.normal(size=tree.nu)))
    for model, forces, q, u in cases:
        x = rng.normal(size=model.nu)
        K, C, S, Kfd, Cfd = _check_matrix(model, forces, q, u, x)
        print(f"{model.name}: K - central differences {np.abs(K - Kfd).max():.2e} of {np.abs(Kfd).max():.2e}; "
              f"C {np.abs(C - Cfd).max():.2e} of {np.abs(Cfd).max():.2e}")
        assert np.abs(K - Kfd).max() <= 1e-6 * max(1.0, np.abs(Kfd).max())
        assert np.abs(C - Cfd).max() <= 1e-6 * max(1.0, np.abs(Cfd).max())
        assert np.abs(K).max() > 1.0 and np.abs(C).max() > 0.1


@pytest.mark.parametrize("rho", [1.0, 0.5])
def test_second_order_on_a_flexible_pendulum(rho):
    """Released horizontal, 0.5 s (the beam swings 1.65 rad, its modes ringing), steps 0.5,
    0.25, 0.125 ms against dopri5 at rtol 1e-13: the errors of q and u (hinge and modes) fall
    4x per halving. (At 1 ms and above the rates' errors are not yet asymptotic, their sign
    changing between 2 and 1 ms; the coordinates' are from 2 ms.)"""
    m, _ = beam_pendulum()
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
    ref = mb.simulate(m, q0, u0, 0.5, dt=0.5, integrator="dopri5", rtol=1e-13, atol=1e-13)
    eq, eu = [], []
    for h in (0.0005, 0.00025, 0.000125):
        res = mb.simulate(m, q0, u0, 0.5, dt=h, integrator=GA, integrator_options=dict(rho_inf=rho))
        assert res.status == "finished" and res.integrator == GA
        eq.append(np.abs(res.q[-1] - ref.q[-1]).max())
        eu.append(np.abs(res.u[-1] - ref.u[-1]).max())
    print(f"rho_inf {rho}: q errors {np.array(eq)}, orders {orders(eq)}; u orders {orders(eu)}")
    assert np.all(np.abs(orders(eq) - 2.0) < 0.2) and np.all(np.abs(orders(eu) - 2.0) < 0.2)


def test_second_order_on_a_random_flexible_tree():
    """A random flexible tree (pins, sliders, spherical, universal, free and cylindrical
    hinges, a body hanging from a deforming node) under gravity from random rates, 0.2 s,
    steps 2 and 1 ms against dopri5 at rtol 1e-11: the errors of u fall 4x (measured 4.00)."""
    from flex_models import flexible_tree
    m = flexible_tree(np.random.default_rng(1), gravity=(0.0, 0.0, -9.81))
    q0, u0 = m.neutral_q(), np.random.default_rng(2).normal(size=m.nu)
    ref = mb.simulate(m, q0, u0, 0.2, dt=0.2, integrator="dopri5", rtol=1e-11, atol=1e-11)
    errors = []
    for h in (0.002, 0.001):
        res = mb.simulate(m, q0, u0, 0.2, dt=h, integrator=GA)
        assert res.status == "finished"
        errors.append(np.abs(res.u[-1] - ref.u[-1]).max())
    print(f"flexible tree: u errors {errors}, ratio {errors[0] / errors[1]:.2f}")
    assert 3.7 < errors[0] / errors[1] < 4.3


def test_trapezoidal_member_keeps_the_energy_of_an_undamped_flexible_pendulum():
    """rho_inf = 1 over 10 s (kinetic, gravity's and strain energy): the energy error falls
    about 4x per halving of the step (O(h^2)), with no drift (the second half's largest error
    within 1.1x the first half's)."""
    m, _ = beam_pendulum()
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
    worst = []
    for h in (0.01, 0.005):
        res = mb.simulate(m, q0, u0, 10.0, dt=h, integrator=GA, integrator_options=dict(rho_inf=1.0))
        ke, pe = res.energy(m)
        dE = np.abs(ke + pe - ke[0] - pe[0])
        half = len(dE) // 2
        print(f"h {h}: max |dE| {dE.max():.3e} J (first half {dE[:half].max():.3e}, second {dE[half:].max():.3e})")
        assert dE[half:].max() <= 1.1 * dE[:half].max()
        worst.append(dE.max())
    print(f"ratio {worst[0] / worst[1]:.2f}")
    assert 3.5 < worst[0] / worst[1] < 4.5


def test_rho_inf_zero_damps_a_stiff_beams_modes_and_keeps_the_swing():
    """A steel-stiff undamped beam (modes 1.1 and 7.0 kHz: omega h = 7 and 44 at h = 1 ms)
    released horizontal, 1 s: with rho_inf = 1 its modes keep ringing, with rho_inf = 0 they
    are gone (modal rates below 1e-5 of rho_inf = 1's), and the swing theta(1 s) is within
    2e-5 rad of radau at rtol 1e-8 on the same beam with 2 % modal damping (its modes decay
    physically; the swing is the same to the quasi-static deflection, g / omega^2 ~ 2e-7 m)."""
    m, data = beam_pendulum(EI=2e6, rhoA=0.5)
    assert data.frequencies[0] / (2 * np.pi) > 1000.0
    damped, _ = beam_pendulum(EI=2e6, rhoA=0.5, damping_ratio=0.02)
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
    ref = mb.simulate(damped, q0, u0, 1.0, dt=1.0, integrator="radau", rtol=1e-8, atol=1e-10)
    ring = {}
    for rho in (1.0, 0.0):
        res = mb.simulate(m, q0, u0, 1.0, dt=1e-3, integrator=GA, integrator_options=dict(rho_inf=rho))
        assert res.status == "finished"
        ring[rho] = np.abs(res.u[-100:, 1:]).max()  # the modal rates over the last 0.1 s
        swing = abs(res.q[-1, 0] - ref.q[-1, 0])
        print(f"rho_inf {rho}: modal rates over the last 0.1 s {ring[rho]:.3e}, swing - radau {swing:.2e} rad")
        if rho == 0.0:
            assert swing < 2e-5
    assert ring[1.0] > 1e-4
    assert ring[0.0] < 1e-5 * ring[1.0]


def test_rollout_serves_modal_bodies():
    """rollout serves modal bodies under generalized_alpha, each sample its own simulate run.
    (Forces at their frames: test_implicit_flex_forces.py.)"""
    m, _ = beam_pendulum()
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
    Q0 = np.array([q0, q0])
    Q0[1, 0] = 0.3
    out = mb.rollout(m, Q0, np.zeros((2, m.nu)), 0.02, dt=0.01, integrator=GA, progress=False)
    for b in range(2):
        one = mb.simulate(m, Q0[b], u0, 0.02, dt=0.01, integrator=GA)
        assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)
