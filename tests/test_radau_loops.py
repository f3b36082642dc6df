"""integrator="radau" on closed loops (issue 23, item 1): the tree-augmented dynamics with
Baumgarte stabilization, its Jacobian from the constrained dynamics' analytic derivatives.

The planar four-bar of examples/four_bar.py against dopri5 at rtol 1e-13 on the same ODE
(same gains): the adaptive error follows rtol, fixed steps show order 5, the loop closure
stays at the Baumgarte level (and is pulled back from an opened start as dopri5 pulls it),
the energy of the undamped linkage is kept to the tolerance's level; rollout serves radau on
loops. generalized_alpha serves loops too (tests/test_galpha_loops.py).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import closed_start, four_bar  # noqa: E402  (the example's model)

sys.path.pop(0)


def orders(errors):
    """log2 of successive error ratios (steps halved)."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


@pytest.fixture(scope="module")
def linkage():
    """(model, q0, u0): the four-bar closed, the crank at 2 rad/s (the example's start)."""
    m = four_bar()
    return (m, *closed_start(m))


def _error(res, ref):
    return max(np.abs(res.q[-1] - ref.q[-1]).max(), np.abs(res.u[-1] - ref.u[-1]).max())


def _separation(m, res):
    """The loop's largest residual (m, rad) over the samples of a run."""
    return np.array([np.abs(m.pose_error(x, "residual")).max() for x in res.q])


def _energy(m, res):
    return np.array([m.kinetic_energy(x, v) + m.potential_energy(x) for x, v in zip(res.q, res.u)])


def test_adaptive_error_follows_the_tolerance(linkage):
    """1 s of the swinging four-bar: the error at the end is below 10 rtol |y|max for rtol =
    1e-6, 1e-8, 1e-10 (|y| up to 5.8), falling at least 30x per 100x of rtol."""
    m, q, u = linkage
    ref = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    scale = max(np.abs(ref.q).max(), np.abs(ref.u).max())
    errors = []
    for rtol in (1e-6, 1e-8, 1e-10):
        res = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="radau", rtol=rtol, atol=rtol * 1e-2)
        assert res.status == "finished" and res.integrator == "radau"
        errors.append(_error(res, ref))
        print(f"rtol {rtol:g}: error {errors[-1]:.2e}, {res.n_steps} steps, {res.n_rejected} rejected")
        assert errors[-1] < 10 * rtol * scale
    assert errors[0] > 30 * errors[1] and errors[1] > 30 * errors[2]


def test_fifth_order_on_the_four_bar(linkage):
    """Fixed steps 0.02, 0.01, 0.005 s over 1 s (the iteration run to newton_tol 1e-7, so the
    collocation solution is what is measured): q and u errors fall 32x per halving."""
    m, q, u = linkage
    ref = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    errors = []
    for h in (0.02, 0.01, 0.005):
        res = mb.simulate(m, q, u, 1.0, dt=h, integrator="radau", rtol=1e-12, atol=1e-14,
                          integrator_options=dict(adaptive=False, newton_tol=1e-7))
        assert res.status == "finished" and res.n_steps == round(1.0 / h)
        errors.append(_error(res, ref))
    print(f"four-bar: errors {np.array(errors)}, orders {orders(errors)}")
    assert np.all(np.abs(orders(errors) - 5.0) < 0.5)


def test_fifth_order_on_the_four_bar_with_the_default_newton_tolerance(linkage):
    """As above with the default newton_tol: the iteration's stop must not cap the order.
    Before the fix (RADAU5's FACCON = 1 at the start; it started at UROUND^0.8, so the first
    steps stopped after one iteration) the errors were 3.7e-6, 3.7e-7, 4.2e-8 (orders 3.3,
    3.1); now 1.1e-7, 3.4e-9, 1.1e-10 (orders 5.0, 5.0)."""
    m, q, u = linkage
    ref = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="dopri5", rtol=1e-13, atol=1e-13)
    errors = []
    for h in (0.02, 0.01, 0.005):
        res = mb.simulate(m, q, u, 1.0, dt=h, integrator="radau", rtol=1e-12, atol=1e-14,
                          integrator_options=dict(adaptive=False))
        assert res.status == "finished" and res.n_steps == round(1.0 / h)
        errors.append(_error(res, ref))
    print(f"four-bar, default newton_tol: errors {np.array(errors)}, orders {orders(errors)}")
    assert np.all(np.abs(orders(errors) - 5.0) < 0.5)


def test_closure_held_at_the_baumgarte_level(linkage):
    """Closed start, 5 s at rtol 1e-6: with the default gains the loop's residual stays below
    5e-8 and 10x below the unstabilized run's (the gains act in the implicit run); an opened
    start (crank turned 0.03 rad off the loop) is pulled shut as dopri5 pulls it (same ODE)."""
    m, q, u = linkage
    kept = mb.simulate(m, q, u, 5.0, dt=0.01, integrator="radau", rtol=1e-6, atol=1e-8)
    free = mb.simulate(m, q, u, 5.0, dt=0.01, integrator="radau", rtol=1e-6, atol=1e-8, stabilization_gains=None)
    s_kept, s_free = _separation(m, kept).max(), _separation(m, free).max()
    print(f"largest residual: stabilized {s_kept:.2e}, unstabilized {s_free:.2e}")
    assert s_kept < 5e-8 and 10 * s_kept < s_free
    opened = q.copy()
    opened[0] = 1.7
    pulled = [mb.simulate(m, opened, np.zeros(3), 2.0, dt=0.01, integrator=k, rtol=1e-8, atol=1e-10)
              for k in ("radau", "dopri5")]
    s_radau, s_dopri = (_separation(m, r) for r in pulled)
    print(f"opened: residual at 0, 0.5, 1, 2 s {s_radau[[0, 50, 100, 200]]}")
    assert s_radau[0] > 1e-2 and s_radau[-1] < 1e-8
    np.testing.assert_allclose(s_radau[[50, 100]], s_dopri[[50, 100]], rtol=1e-4)


def test_energy_of_the_undamped_four_bar(linkage):
    """5 s, no damping: the energy's spread stays at the tolerance's level (below 1e-5 J at
    rtol 1e-6, below 1e-7 J at rtol 1e-9, of a kinetic swing of 9.3 J)."""
    m, q, u = linkage
    for rtol, bound in ((1e-6, 1e-5), (1e-9, 1e-7)):
        res = mb.simulate(m, q, u, 5.0, dt=0.01, integrator="radau", rtol=rtol, atol=rtol * 1e-2)
        e = _energy(m, res)
        kinetic = np.array([m.kinetic_energy(x, v) for x, v in zip(res.q, res.u)])
        print(f"rtol {rtol:g}: energy spread {np.ptp(e):.2e} J, kinetic swing {np.ptp(kinetic):.2f} J")
        assert np.ptp(e) < bound and np.ptp(kinetic) > 1.0


def _rollout_equals_own_runs(linkage, integrator):
    """rollout under an implicit method (radau, generalized_alpha) on the four-bar: each sample
    (the closed start and the crank turned faster) is its own simulate run bit for bit, the
    Baumgarte gains passed on (zero gains differ), radau's tolerances too."""
    m, q0, u0 = linkage
    Q0, U0 = np.array([q0, q0]), np.array([u0, 1.5 * u0])
    kw = dict(integrator=integrator, save_every=2)
    if integrator == "radau":
        kw.update(rtol=1e-6, atol=1e-8)
    out = mb.rollout(m, Q0, U0, 0.2, dt=0.01, progress=False, **kw)
    assert np.all(out.status == 9)  # FINISHED
    for b in range(2):
        one = mb.simulate(m, Q0[b], U0[b], 0.2, **(dict(dt=0.02, rtol=1e-6, atol=1e-8) if integrator == "radau"
                                                    else dict(dt=0.01, save_every=2)), integrator=integrator)
        assert np.array_equal(out.t, one.t)
        assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)
    loose = mb.rollout(m, Q0, U0, 0.2, dt=0.01, progress=False, stabilization_gains=None, **kw)
    assert not np.array_equal(loose.q, out.q)


def test_rollout_of_the_four_bar_equals_its_own_runs(linkage):
    """rollout under radau serves loops (generalized_alpha's: tests/test_galpha_loops.py)."""
    _rollout_equals_own_runs(linkage, "radau")
