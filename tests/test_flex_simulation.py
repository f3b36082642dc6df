"""Simulating models with modal (flexible) bodies (simulation/flex_stepping.py): the compiled
loop's flex variants against SciPy's solve_ivp on ``m.forward_dynamics`` (code we did not
write integrating our dynamics), each tableau's order of convergence, energy
(kinetic + gravity + strain) conserved without damping and decaying with it, and the run
options (controls, force models, output, sinks, rollouts) against their rigid meaning."""
import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes
from multibody.simulation import JointLimitWarning, JointSpringDamper, RungeKuttaIntegrator
from multibody.simulation.tableaus import TABLEAUS

from flex_models import flexible_tree

solve_ivp = pytest.importorskip("scipy.integrate").solve_ivp


def pendulum(EI=2.0, n_modes=2, damping_ratio=0.0, kind="pin"):
    """A 1 m cantilever beam (rho A = 0.5 kg/m) from beam_modes on a hinge at its root, under
    gravity (the beam along x, gravity along -z, a pin about y)."""
    data = beam_modes(1.0, EI, 0.5, n_elements=20, n_modes=n_modes, damping_ratio=damping_ratio)
    m = mb.Multibody()
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": data.node_positions.shape[0] - 1})
    m.add_hinge(None, beam, kind, axis=(0, 1, 0))
    return m


def reference(m, q0, u0, t):
    """solve_ivp (DOP853, rtol = atol = 1e-13) of q' = u, u' = m.forward_dynamics(q, u, 0) at
    times t: for models whose q' = u (scalar hinges and modal coordinates)."""
    assert m.nq == m.nu

    def rates(_, y):
        return np.r_[y[m.nq:], m.forward_dynamics(y[:m.nq], y[m.nq:], np.zeros(m.nu))]

    sol = solve_ivp(rates, (t[0], t[-1]), np.r_[q0, u0], method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t)
    assert sol.success
    return sol.y[:m.nq].T, sol.y[m.nq:].T


def total_energy(m, q, u):
    return m.kinetic_energy(q, u) + m.potential_energy(q)  # potential: gravity + strain


Q0, U0 = np.array([0.3, 0.01, 0.0]), np.array([0.5, 0.0, 0.1])


def test_dopri5_run_equals_solve_ivp_on_forward_dynamics():
    m = pendulum(EI=20.0)
    r = mb.simulate(m, Q0, U0, 1.0, dt=0.01, integrator="dopri5", rtol=1e-12, atol=1e-12)
    q, u = reference(m, Q0, U0, r.t)
    assert r.status == "finished" and np.ptp(r.q[:, 1]) > 1e-3  # the beam bends
    assert np.abs(r.q - q).max() < 1e-8 and np.abs(r.u - u).max() < 1e-8


# fixed steps (ω h <= 0.15 for the pinned beam's fastest mode, ~150 rad/s) in the asymptotic range
STEPS = {1: 2e-5, 2: 2e-4, 3: 5e-4, 4: 1e-3, 5: 5e-4}


@pytest.mark.parametrize("name", ["euler", "midpoint", "heun", "rk4", "rk38", "bs32", "dopri5"])
def test_every_tableau_converges_at_its_order(name):
    m = pendulum()
    T = 0.1
    err = []
    for h in (STEPS[TABLEAUS[name]().order], STEPS[TABLEAUS[name]().order] / 2):
        integ = RungeKuttaIntegrator(m, Q0, U0, tableau=name, adaptive=False)
        integ.integrate(T, h)
        q, u = reference(m, Q0, U0, np.array([0.0, T]))
        err.append(max(np.abs(integ.q - q[-1]).max(), np.abs(integ.u - u[-1]).max()))
    order = np.log2(err[0] / err[1])
    assert abs(order - TABLEAUS[name]().order) < 0.25, (err, order)


def test_munthe_kaas_on_a_free_flexible_body():
    """A tumbling rigid hub (free hinge, rotation-vector chart, re-centred as it turns) with a
    beam clamped to it: RKMK with RK4 converges at order 4 to classic dopri5, and RKMK with
    dopri5 (adaptive, its error scaled per modal coordinate) agrees with it."""
    data = beam_modes(1.0, 5.0, 0.5, n_elements=20, n_modes=2)
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    hub = m.add_body("hub", mass=2.0, com=(-0.1, 0.0, 0.0), inertia=np.diag([0.05, 0.08, 0.1]))
    m.add_hinge(None, hub, "free")
    beam = m.add_modal_body("beam", modal_data=data)
    m.add_hinge(hub, beam, "locked")
    q0 = np.zeros(m.nq)
    q0[:3] = (0.2, -0.4, 0.3)
    q0[m.modal_slice(beam)] = (0.02, -0.01)
    u0 = np.r_[1.0, 4.0, -0.5, 0.1, 0.0, 0.2, 0.3, -0.2]
    T = 1.0
    ref = mb.simulate(m, q0, u0, T, dt=T, integrator="dopri5", rtol=1e-13, atol=1e-13)
    assert ref.n_chart_resets > 0  # the chart was re-centred along the way
    err = []
    for h in (2e-3, 1e-3):
        r = mb.simulate(m, q0, u0, T, dt=h, integrator="munthe_kaas", output_every=T)
        err.append(max(np.abs(r.q[-1] - ref.q[-1]).max(), np.abs(r.u[-1] - ref.u[-1]).max()))
    assert abs(np.log2(err[0] / err[1]) - 4) < 0.3, err
    mk = mb.simulate(m, q0, u0, T, dt=T, integrator="munthe_kaas", tableau="dopri5", rtol=1e-12, atol=1e-12)
    assert np.abs(mk.q[-1] - ref.q[-1]).max() < 1e-9 and np.abs(mk.u[-1] - ref.u[-1]).max() < 1e-9


def test_energy_is_conserved_on_a_random_flexible_tree():
    """Every hinge kind, children on deforming nodes, a modal body on a modal body; gravity;
    no damping: kinetic + gravity + strain energy stays constant over 10 s with dopri5."""
    rng = np.random.default_rng(3)
    m = flexible_tree(rng, gravity=(0.3, -0.2, -9.81))
    q0 = np.asarray(m.random_q(rng), dtype=float)
    for b in m.modal_bodies:
        q0[m.modal_slice(b)] = 0.05 * rng.normal(size=b.n_modes)
    u0 = 0.5 * rng.normal(size=m.nu)
    r = mb.simulate(m, q0, u0, 10.0, dt=0.05, integrator="dopri5", rtol=1e-12, atol=1e-12)
    E = np.array([total_energy(m, q, u) for q, u in zip(r.q, r.u)])
    scale = max(abs(E[0]), m.kinetic_energy(q0, u0))
    assert r.status == "finished" and np.abs(E - E[0]).max() < 1e-9 * scale
    ke, pe = r.energy(m)  # the result's energies: the same total
    np.testing.assert_allclose(ke + pe, E, rtol=0, atol=1e-12 * scale)


def test_energy_decays_monotonically_with_modal_damping():
    rng = np.random.default_rng(4)
    m = flexible_tree(rng, gravity=(0.0, 0.0, -9.81))
    for b in m.modal_bodies:
        b.damping = np.full(b.n_modes, 0.5)
    q0 = np.asarray(m.random_q(rng), dtype=float)
    for b in m.modal_bodies:
        q0[m.modal_slice(b)] = 0.05 * rng.normal(size=b.n_modes)
    u0 = rng.normal(size=m.nu)
    r = mb.simulate(m, q0, u0, 2.0, dt=0.01, integrator="dopri5", rtol=1e-11, atol=1e-11)
    E = np.array([total_energy(m, q, u) for q, u in zip(r.q, r.u)])
    assert np.all(np.diff(E) <= 1e-9 * abs(E[0]))
    assert E[0] - E[-1] > 0.01 * m.kinetic_energy(q0, u0)  # and it does decay


def test_a_control_equals_the_force_model_it_writes():
    """A control adding -c u on the hinge equals a JointSpringDamper of damping c; a control
    that writes nothing equals the run without it bit for bit (tau passes through)."""
    m = pendulum()
    tau = np.array([0.0, 0.3, -0.2])
    plain = mb.simulate(m, Q0, U0, 0.2, dt=1e-3, tau=tau)
    idle = mb.simulate(m, Q0, U0, 0.2, dt=1e-3, tau=tau, control=lambda t, q, u, out: None)
    assert np.array_equal(plain.q, idle.q) and np.array_equal(plain.u, idle.u)

    def damp(t, q, u, out):
        out[0] += -0.7 * u[0]

    a = mb.simulate(m, Q0, U0, 0.2, dt=1e-3, control=damp)
    b = mb.simulate(m, Q0, U0, 0.2, dt=1e-3, forces=[JointSpringDamper("beam_hinge", damping=0.7)])
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-14)
    assert not np.allclose(a.q, plain.q)


def test_joint_limits_hold_a_flexible_pendulum():
    m = pendulum(EI=20.0)
    m.hinge("beam_hinge").lower, m.hinge("beam_hinge").upper = -0.5, 0.5
    r = mb.simulate(m, np.array([0.4, 0.0, 0.0]), np.zeros(3), 1.0, dt=1e-4, output_every=1e-3)
    # the limit holds it near 0.5 (a soft limit: the effective inertia of the pin with the modes
    # free is small, 8e-4 kg m^2, so its spring is soft); without it the beam falls past 1 rad
    assert r.q[:, 0].max() < 0.65 and 0.45 < r.q[-1, 0] < 0.65
    with pytest.warns(JointLimitWarning, match="beam_hinge"):
        free = mb.simulate(m, np.array([0.4, 0.0, 0.0]), np.zeros(3), 1.0, dt=1e-4, output_every=1e-3, limits=False)
    assert free.q[:, 0].max() > 1.0


def test_output_every_sinks_and_labels(tmp_path):
    m = pendulum()
    full = mb.simulate(m, Q0, U0, 0.1, dt=1e-3)
    every = mb.simulate(m, Q0, U0, 0.1, dt=1e-3, output_every=0.01)
    assert np.array_equal(every.q, full.q[::10]) and np.array_equal(every.t, full.t[::10])
    for suffix in ("npz", "csv"):
        path = tmp_path / f"run.{suffix}"
        r = mb.simulate(m, Q0, U0, 0.1, dt=1e-3, output=path, keep_in_memory=False)
        back = mb.load_result(path)
        assert len(r) == 1 and np.allclose(back.q, full.q, rtol=0, atol=1e-15 if suffix == "npz" else 1e-9)
        assert back.q_names == ["beam_hinge", "beam.eta0", "beam.eta1"]


def test_rollout_samples_equal_their_own_runs():
    m = pendulum()
    rng = np.random.default_rng(6)
    B = 5
    Q0s = np.c_[rng.uniform(-1, 1, B), 0.002 * rng.normal(size=(B, 2))]
    U0s = np.c_[rng.normal(size=B), 0.01 * rng.normal(size=(B, 2))]
    r = mb.rollout(m, Q0s, U0s, 0.05, dt=1e-3, progress=False)
    mk = mb.rollout(m, Q0s, U0s, 0.05, dt=1e-3, integrator="munthe_kaas", progress=False)

    def ctl(t, Q, U, TAU):
        TAU[:, 0] -= 0.5 * U[:, 0]

    c = mb.rollout(m, Q0s, U0s, 0.05, dt=1e-3, control=ctl, progress=False)
    for b in (0, 4):
        s = mb.simulate(m, Q0s[b], U0s[b], 0.05, dt=1e-3)
        assert np.array_equal(s.q, r.q[b]) and np.array_equal(s.u, r.u[b])
        s = mb.simulate(m, Q0s[b], U0s[b], 0.05, dt=1e-3, integrator="munthe_kaas")
        assert np.array_equal(s.q, mk.q[b]) and np.array_equal(s.u, mk.u[b])
        s = mb.simulate(m, Q0s[b], U0s[b], 0.05, dt=1e-3, control=lambda t, q, u, out: out.__setitem__(0, out[0] - 0.5 * u[0]))
        assert np.array_equal(s.q, c.q[b]) and np.array_equal(s.u, c.u[b])


def test_a_singular_modal_inertia_says_why():
    """The beam's second mode at eta = 0.1 (tip 28 cm of a 1 m beam): with geometric
    stiffening (second order in eta) the pinned beam's M(eta) is no longer positive (its pin
    inertia with the modes free is small; it turns between 14 and 23 cm, at 5 cm before the
    second-order terms of the modal rows were kept): the run stops naming the reason."""
    m = pendulum()
    q = np.array([0.0, 0.0, 0.1])
    assert np.linalg.eigvalsh(m.mass_matrix(q)).min() < 0
    with pytest.raises(mb.SimulationError, match="at t = 0 s.*foreshortening"):
        mb.simulate(m, q, np.zeros(3), 0.01)


def test_examples_run(tmp_path):
    """examples/flexible_pendulum.py and spacecraft_slew.py with short settings."""
    import importlib
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    try:
        pend = importlib.import_module("flexible_pendulum")
        slew = importlib.import_module("spacecraft_slew")
    finally:
        sys.path.pop(0)
    res = pend.main(["--t-final", "0.3", "--plot", str(tmp_path / "pendulum.png")])
    m, _ = pend.flexible_pendulum()
    E = np.array([total_energy(m, q, u) for q, u in zip(res.q, res.u)])
    assert res.status == "finished" and res.q[-1, 0] > 0.3 and np.abs(E - E[0]).max() < 1e-9
    runs = slew.main(["--duration", "10", "--coast", "0.5", "--plot", str(tmp_path / "slew.png")])
    smooth, jumps = runs["sine"][2], runs["bang-bang"][2]
    assert abs(smooth["final"] - slew.SLEW) < 0.01 and smooth["momentum"] < 1e-9  # zero net impulse
    # the jumps of the bang-bang torque inside a step misplace at most tau dt of impulse
    assert jumps["tip_max"] > 1e-3 and jumps["momentum"] < 2e-3 * jumps["amplitude"]
    if importlib.util.find_spec("matplotlib"):
        assert (tmp_path / "pendulum.png").stat().st_size > 1000 and (tmp_path / "slew.png").stat().st_size > 1000
