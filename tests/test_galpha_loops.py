"""integrator="generalized_alpha" on closed loops (issue 23, item 1): the method applied to
the tree-augmented constrained dynamics with the run's Baumgarte gains (residual x - u_dot_TA,
Newton matrix I + gamma' C + beta' K from the constrained dynamics' analytic derivatives).

References we did not write: dopri5 at rtol 1e-13 on the same ODE (same gains) for the
order, the loop's own residuals (pose_error, velocity_error) for the closure, the model's
energy for the undamped linkage.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import closed_start, four_bar  # noqa: E402  (the example's model)
from slider_crank import slider_crank  # noqa: E402

sys.path.pop(0)
from test_radau_loops import _rollout_equals_own_runs  # noqa: E402

GALPHA = "generalized_alpha"


@pytest.fixture(scope="module")
def linkage():
    """(model, q0, u0): the four-bar closed, the crank at 2 rad/s (the example's start)."""
    m = four_bar()
    return (m, *closed_start(m))


@pytest.fixture(scope="module")
def crank():
    """(model, q0, u0): the slider-crank of examples/slider_crank.py closed, coasting at one
    turn per second (no gravity, no drive)."""
    m = slider_crank()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the planar loop's out-of-plane rows are redundant
        cks = m.constraint_kinematics()
        q = cks.solve_q([0.4, -0.3, 1.2], frozen=["crank_joint"])
        u = cks.solve_u(q, [2 * np.pi, 0, 0], frozen=["crank_joint"])
    return m, q, u


def _closure(m, res):
    """(|phi|, |Gc u|) per sample: the loop's largest position and velocity residuals."""
    phi = np.array([np.abs(m.pose_error(x, "residual")).max() for x in res.q])
    vel = np.array([np.abs(m.velocity_error(x, v, "residual")).max() for x, v in zip(res.q, res.u)])
    return phi, vel


def _energy(m, res):
    return np.array([m.kinetic_energy(x, v) + m.potential_energy(x) for x, v in zip(res.q, res.u)])


def test_second_order_on_the_four_bar(linkage):
    """Steps 0.01, 0.005, 0.0025 s over 1 s: q and u errors against dopri5 fall 4x per
    halving (measured orders 2.00, 2.00)."""
    m, q, u = linkage
    ref = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    errors = []
    for h in (0.01, 0.005, 0.0025):
        res = mb.simulate(m, q, u, 1.0, dt=h, integrator=GALPHA)
        assert res.status == "finished" and res.integrator == GALPHA and res.n_steps == round(1.0 / h)
        errors.append(max(np.abs(res.q[-1] - ref.q[-1]).max(), np.abs(res.u[-1] - ref.u[-1]).max()))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    print(f"four-bar: errors {np.array(errors)}, orders {orders}")
    assert np.all(np.abs(orders - 2.0) < 0.2)


@pytest.mark.parametrize("which, dt, bound", [("four_bar", 0.01, 5e-4), ("slider_crank", 0.005, 1e-4)])
def test_closure_stays_bounded(linkage, crank, which, dt, bound):
    """40 s: with the default Baumgarte gains |phi| stays below ``bound`` and its last
    quarter's peak is no higher than the first's (no drift; measured four-bar 2.3e-4 then
    2.2e-4 m, slider-crank 5.1e-5 then 5.0e-5), |Gc u| alike; without the gains |phi| grows
    (the last quarter's peak at least 3x the first's: the stabilization is what holds it)."""
    m, q, u = linkage if which == "four_bar" else crank
    n = round(10.0 / dt)
    kept = mb.simulate(m, q, u, 40.0, dt=dt, integrator=GALPHA)
    free = mb.simulate(m, q, u, 40.0, dt=dt, integrator=GALPHA, stabilization_gains=None)
    phi, vel = _closure(m, kept)
    phi_free, _ = _closure(m, free)
    print(f"{which}: |phi| {phi[:n].max():.2e} -> {phi[-n:].max():.2e}, |Gc u| {vel[:n].max():.2e} -> "
          f"{vel[-n:].max():.2e}; unstabilized |phi| {phi_free[:n].max():.2e} -> {phi_free[-n:].max():.2e}")
    assert kept.status == "finished" and phi.max() < bound and vel.max() < 20 * bound
    assert phi[-n:].max() <= phi[:n].max() and vel[-n:].max() <= vel[:n].max()
    assert phi_free[-n:].max() > 3 * phi_free[:n].max()


def test_energy_of_the_undamped_four_bar(linkage):
    """rho_inf = 1, 40 s: the energy drifts at the method's order, not at its own rate: the
    change over the run falls 4x per halving of dt (the Baumgarte terms, fed by the O(h^2)
    closure error, take work out of the linkage; measured -0.42 J at dt = 0.01, -0.11 J at
    0.005 of a kinetic swing of 9.3 J), and within each run the energy's spread over the
    first and the last 10 s agree within 20 % (its oscillation does not grow)."""
    m, q, u = linkage
    changes = []
    for dt in (0.01, 0.005):
        res = mb.simulate(m, q, u, 40.0, dt=dt, integrator=GALPHA, integrator_options=dict(rho_inf=1.0))
        e = _energy(m, res)
        n = round(10.0 / dt)
        changes.append(e[-1] - e[0])
        print(f"dt {dt}: energy change {changes[-1]:.3e} J, spread first/last 10 s {np.ptp(e[:n]):.3e} / "
              f"{np.ptp(e[-n:]):.3e} J")
        assert abs(np.ptp(e[-n:]) - np.ptp(e[:n])) < 0.2 * np.ptp(e[:n])
    assert 3.5 < changes[0] / changes[1] < 4.5 and abs(changes[1]) < 0.15


def test_bit_stable_across_runs(linkage):
    """Two runs of 1 s give the same bits (no state kept between runs)."""
    m, q, u = linkage
    a, b = (mb.simulate(m, q, u, 1.0, dt=0.01, integrator=GALPHA) for _ in range(2))
    assert np.array_equal(a.q, b.q) and np.array_equal(a.u, b.u)


def test_rollout_of_the_four_bar_equals_its_own_runs(linkage):
    """rollout under generalized_alpha serves loops (here, beside the other tests that compile
    the method's loop variants)."""
    _rollout_equals_own_runs(linkage, GALPHA)
