"""Wrenches and spring-dampers at the frames of modal bodies (``simulation/flex_link_forces.py``)
under integrator="radau" and "generalized_alpha" (issue 23: implicit methods serve force models
on modal bodies).

The model: a flexible pendulum (a modal beam on a pin about y, 2 % damped modes) held at its
deforming tip by a damped spring to a world point, pushed there by a sinusoidal world-axes
wrench, and by a body-axes wrench at its middle node; a second spring joins the two nodes.
Checked:

* Newton's matrix (M, C, K) of generalized_alpha's residual ID - tau at a moving, bent state
  against central differences of that residual formed by the facade (``m.inverse_dynamics``
  with the forces as ``f_ext``, their wrenches from ``m.frame_pose`` and ``m.body_velocity``):
  the frame entries' share and its signs;
* radau at rtol 1e-9 against dopri5 at rtol 1e-12, and generalized_alpha's second order;
* a stiff, strongly damped tip tether (k = 2e6 N/m, c = 2e4 N s/m), where radau's steps are
  far fewer than dopri5's;
* rollout equal to its own simulate runs.
"""
import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes
from multibody.kernels.common import data_start, link_rows
from multibody.simulation.flex_implicit import flex_iteration_matrix
from multibody.simulation.radau import RadauIntegrator

GA = "generalized_alpha"
T_FINAL = 0.3
ANCHOR = np.array([1.1, 0.0, 0.3])


def pendulum(k_tip=40.0, c_tip=0.8, rest_tip=0.2):
    """(model, forces, q0): the module docstring's pendulum, released 0.4 rad from level; the
    tip spring's stiffness, damping and rest length as given (rest_tip None: the tip's
    distance from the anchor at q0, no pull at the start)."""
    data = beam_modes(1.0, EI=20.0, rhoA=1.0, n_elements=12, n_modes=3, nodes=[0.5, 1.0], damping_ratio=0.02)
    m = mb.Multibody("tied flexible pendulum")
    beam = m.add_modal_body("beam", modal_data=data, nodes={"mid": 0, "tip": 1})
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    T = np.eye(4)
    T[:3, 3] = ANCHOR
    m.add_node("anchor", None, T)
    q0 = np.zeros(m.nq)
    q0[0] = 0.4
    if rest_tip is None:
        rest_tip = np.linalg.norm(m.frame_pose(q0, "tip")[:3, 3] - ANCHOR)
    forces = [mb.LinearSpringDamper("anchor", "tip", stiffness=k_tip, damping=c_tip, rest_length=rest_tip),
              mb.ExternalForce("tip", (0.0, 0.1, 0.0, 0.5, 0.0, -1.0), amplitude=(0.0, 0.0, 0.0, 0.0, 0.0, 2.0),
                               frequency=3.0, phase=0.2, axes="world"),
              mb.ExternalForce("mid", (0.0, -0.2, 0.0, 0.0, 0.0, 0.7)),
              mb.LinearSpringDamper("mid", "tip", stiffness=15.0, damping=0.3, rest_length=0.45)]
    return m, forces, q0


def facade_f_ext(m, forces, t, q, u):
    """The forces' wrenches at their frames, in the frames' axes, from the facade's poses and
    velocities (the compiled loop's formulas written out independently)."""
    f_ext = {}

    def add(frame, w):
        f_ext[frame] = f_ext.get(frame, np.zeros(6)) + w

    for f in forces:
        if isinstance(f, mb.ExternalForce):
            w = f.wrench + f.amplitude * np.sin(2 * np.pi * f.frequency * t + f.phase)
            if f.axes == "world":
                R = m.frame_pose(q, f.frame)[:3, :3]
                w = np.concatenate([R.T @ w[:3], R.T @ w[3:]])
            add(f.frame, w)
            continue
        (Ta, Tb) = (m.frame_pose(q, f.frame_a), m.frame_pose(q, f.frame_b))
        va = Ta[:3, :3] @ m.body_velocity(q, u, f.frame_a)[3:] if f.frame_a != "anchor" else np.zeros(3)
        vb = Tb[:3, :3] @ m.body_velocity(q, u, f.frame_b)[3:]
        d = Tb[:3, 3] - Ta[:3, 3]
        length = np.linalg.norm(d)
        n = d / length
        F = -(f.stiffness * (length - f.rest_length) + f.damping * n @ (vb - va)) * n  # on b
        add(f.frame_b, np.concatenate([np.zeros(3), Tb[:3, :3].T @ F]))
        if f.frame_a != "anchor":
            add(f.frame_a, np.concatenate([np.zeros(3), -Ta[:3, :3].T @ F]))
    return f_ext


@pytest.fixture(scope="module")
def reference():
    """dopri5 at rtol 1e-12 over T_FINAL (samples every 0.05 s)."""
    m, forces, q0 = pendulum()
    ref = mb.simulate(m, q0, np.zeros(m.nu), T_FINAL, dt=0.05, integrator="dopri5", rtol=1e-12, atol=1e-14,
                      forces=forces)
    assert ref.status == "finished"
    return m, forces, q0, ref


def test_newton_matrix_is_the_residuals_derivative(reference):
    """K = dr/dq (tangent), C = dr/du and M of r = ID(q, u, x) - tau(t, q, u), the forces'
    share by central differences inside the loop, against central differences of the facade's
    r (the forces as f_ext) at a moving, bent state; the residual itself is the facade's."""
    m, forces, _, ref = reference
    rng = np.random.default_rng(5)
    q, u, x, t = ref.q[3], ref.u[3] + 0.5 * rng.normal(size=m.nu), rng.normal(size=m.nu), 0.17
    assert np.abs(q[1:]).max() > 1e-3  # bent

    def r(qq, uu):
        return m.inverse_dynamics(qq, uu, x, f_ext=facade_f_ext(m, forces, t, qq, uu))

    integ = RadauIntegrator(m, q, u, forces=forces)
    c, buf, nu = m.compiled, integ.data.buf, m.nu
    n = c.mi.shape[0]
    ws = link_rows(buf, data_start(buf, n), n)
    src, tau = np.zeros(nu), np.zeros(nu)
    K, C, S = np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros((nu, nu))
    assert flex_iteration_matrix(c.mi, integ.mf, ws, buf, integ._rw[28], integ.fmi, integ.fmf, t, q, u, x, src, tau,
                                 0.0, 0.0, K, C, S)
    np.testing.assert_allclose(S, m.mass_matrix(q), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(m.inverse_dynamics(q, u, x) - tau, r(q, u), rtol=1e-12, atol=1e-12)
    # the forces' generalized forces are sum J_F^T w over their frames (J_F: the Jacobian kernel,
    # not the external-force kernel the loop maps them with)
    jtw = sum(m.frame_jacobian(q, frame).T @ w for frame, w in facade_f_ext(m, forces, t, q, u).items())
    np.testing.assert_allclose(tau, jtw, rtol=1e-12, atol=1e-12 * np.abs(jtw).max())
    assert np.abs(jtw).max() > 1.0
    eps = 1e-6
    Kfd = np.array([(r(m.integrate(q, e), u) - r(m.integrate(q, -e), u)) / (2 * eps) for e in np.eye(nu) * eps]).T
    Cfd = np.array([(r(q, u + e) - r(q, u - e)) / (2 * eps) for e in np.eye(nu) * eps]).T
    print(f"K - central differences {np.abs(K - Kfd).max():.2e} of {np.abs(Kfd).max():.2e}; "
          f"C {np.abs(C - Cfd).max():.2e} of {np.abs(Cfd).max():.2e}")
    assert np.abs(K - Kfd).max() <= 1e-6 * np.abs(Kfd).max()
    assert np.abs(C - Cfd).max() <= 1e-6 * np.abs(Cfd).max()
    # the forces' share is there: without them the matrices miss it by far more than the above
    K0, C0 = np.zeros((nu, nu)), np.zeros((nu, nu))
    bare = RadauIntegrator(m, q, u)
    assert flex_iteration_matrix(c.mi, bare.mf, ws, buf, bare._rw[28], bare.fmi, bare.fmf, t, q, u, x, src, tau,
                                 0.0, 0.0, K0, C0, S)
    print(f"without the forces' share: K off by {np.abs(K0 - Kfd).max():.2e}, C by {np.abs(C0 - Cfd).max():.2e}")
    assert np.abs(K0 - Kfd).max() > 1e3 * np.abs(K - Kfd).max() and np.abs(C0 - Cfd).max() > 1e3 * np.abs(C - Cfd).max()


def _error(res, ref):
    return max(np.abs(res.q[-1] - ref.q[-1]).max(), np.abs(res.u[-1] - ref.u[-1]).max())


def test_radau_agrees_with_dopri5(reference):
    """radau at rtol 1e-9 ends within 1e-7 of dopri5 at rtol 1e-12."""
    m, forces, q0, ref = reference
    res = mb.simulate(m, q0, np.zeros(m.nu), T_FINAL, dt=0.05, integrator="radau", rtol=1e-9, atol=1e-11,
                      forces=forces)
    err = _error(res, ref)
    print(f"radau: {res.n_steps} steps, error {err:.2e}")
    assert res.status == "finished" and res.integrator == "radau"
    assert err < 1e-7
    assert np.abs(ref.q[-1] - ref.q[0]).max() > 0.1  # it moved


def test_generalized_alpha_is_second_order(reference):
    """Steps 1, 0.5 and 0.25 ms against dopri5: the errors fall about 4x per halving (measured
    3.7 and 3.9; at 4 and 2 ms, before the beam's modes are resolved, 3.1 and 2.6)."""
    m, forces, q0, ref = reference
    errors = []
    for h in (0.001, 0.0005, 0.00025):
        res = mb.simulate(m, q0, np.zeros(m.nu), T_FINAL, dt=h, integrator=GA, forces=forces)
        assert res.status == "finished" and res.integrator == GA
        errors.append(_error(res, ref))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    print(f"generalized_alpha: errors {errors}, ratios {ratios}")
    assert np.all((3.5 < ratios) & (ratios < 4.5))
    assert errors[-1] < 1e-3


def test_stiff_tether_radau_takes_far_fewer_steps():
    """A stiff, strongly damped tip tether (k = 2e6 N/m, c = 2e4 N s/m, unstretched at the
    start: a fast decaying mode near -k/c = -100 s^-1 and a faster one near -c/m): at rtol 1e-6
    dopri5's steps are set by its stability there, radau's by the swing (measured 14950
    against 145, its Newton matrix carrying the tether's share); both agree to 5e-6 (measured 4.4e-7:
    each run's error is about its rtol), and generalized_alpha at 1 ms to 1e-4 (measured 1.4e-6)."""
    m, forces, q0 = pendulum(k_tip=2e6, c_tip=2e4, rest_tip=None)
    kw = dict(dt=0.05, rtol=1e-6, atol=1e-8, forces=forces)
    explicit = mb.simulate(m, q0, np.zeros(m.nu), 0.2, integrator="dopri5", **kw)
    implicit = mb.simulate(m, q0, np.zeros(m.nu), 0.2, integrator="radau", **kw)
    ga = mb.simulate(m, q0, np.zeros(m.nu), 0.2, dt=1e-3, integrator=GA, forces=forces)
    err = max(np.abs(implicit.q[-1] - explicit.q[-1]).max(), np.abs(implicit.u[-1] - explicit.u[-1]).max())
    print(f"stiff tether: dopri5 {explicit.n_steps} steps, radau {implicit.n_steps}, error {err:.2e}; "
          f"generalized_alpha {np.abs(ga.q[-1] - explicit.q[-1]).max():.2e}")
    assert explicit.status == implicit.status == ga.status == "finished"
    assert implicit.n_steps * 20 <= explicit.n_steps
    assert err < 5e-6
    assert np.abs(ga.q[-1] - explicit.q[-1]).max() < 1e-4


@pytest.mark.parametrize("integrator", ["rk4", "radau", GA])
def test_rollout_equals_its_own_runs(integrator):
    """rollout of two starts under the frame forces equals simulate's runs to the bit."""
    m, forces, q0 = pendulum()
    Q0 = np.array([q0, q0])
    Q0[1, 0] += 0.1
    U0 = np.zeros((2, m.nu))
    kw = dict(dt=2e-4 if integrator == "rk4" else 0.01, forces=forces)  # (rk4: within the beam's modes)
    if integrator == "radau":
        kw.update(rtol=1e-6, atol=1e-8)
    out = mb.rollout(m, Q0, U0, 0.05, integrator=integrator, **kw)
    for b in range(2):
        one = mb.simulate(m, Q0[b], U0[b], 0.05, integrator=integrator, **kw)
        assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)
