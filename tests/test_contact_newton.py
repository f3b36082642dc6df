"""The semismooth Newton method on Alart and Curnier's function (kernels/contact_newton.py)
and the solver that calls it after the sweeps (``contact_solver.solve_contacts``): its
Jacobian against central differences, its answers against Coulomb's conditions, and two
contact problems of Solo12 (dumped from a drop onto the floor) that block Gauss-Seidel alone
does not solve."""
import os

import numpy as np
import pytest

from multibody.kernels.collision.layout import CF_COLS
from multibody.kernels.contact_newton import SEPARATED, SLIDING, STICKING, _alart_curnier, newton_contacts
from multibody.kernels.contact_solver import gauss_seidel_contacts, natural_residual, solve_contacts
from test_contact_solver import coulomb_violation, random_problem

SOLO12 = os.path.join(os.path.dirname(__file__), "data", "solo12_contact_problems.npz")


def alart_curnier(W, q, mu, lam, jacobian=False):
    m = len(q)
    rho = 1.0 / np.diag(W)[0::3]
    F, Jac, w, piece = np.empty(m), np.zeros((m, m)), np.empty(m), np.empty(m // 3, dtype=np.int64)
    _alart_curnier(W, q, mu, rho, lam, w, F, Jac, jacobian, piece)
    return F, Jac, piece


@pytest.mark.parametrize("seed", range(6))
def test_the_jacobian_is_the_derivative_of_each_piece(seed):
    """Away from the kinks, F is smooth: its Jacobian equals central differences, for random
    impulses that put contacts in every piece (separated, sticking, sliding)."""
    rng = np.random.default_rng(seed)
    W, vfree, b, mu = random_problem(rng, 4, 14)
    q = vfree + b
    for _ in range(20):
        lam = rng.standard_normal(12)
        lam[0::3] = np.abs(lam[0::3]) * (rng.random(4) < 0.8)
        F, Jac, piece = alart_curnier(W, q, mu, lam, jacobian=True)
        h = 1e-7
        fd = np.empty_like(Jac)
        for j in range(12):
            e = np.zeros(12)
            e[j] = h
            fp, _, pp = alart_curnier(W, q, mu, lam + e)
            fm, _, pm = alart_curnier(W, q, mu, lam - e)
            if not (np.array_equal(pp, piece) and np.array_equal(pm, piece)):
                break  # (a kink within h: no derivative to compare)
            fd[:, j] = (fp - fm) / (2 * h)
        else:
            np.testing.assert_allclose(Jac, fd, rtol=1e-6, atol=1e-6 * np.abs(Jac).max())
            PIECES.update(piece.tolist())


PIECES = set()


def test_the_jacobians_compared_cover_every_piece():
    if not PIECES:
        pytest.skip("run with the Jacobian tests")
    assert PIECES == {SEPARATED, STICKING, SLIDING}


@pytest.mark.parametrize("seed", range(10))
def test_newton_from_zero_solves_random_problems(seed):
    rng = np.random.default_rng(100 + seed)
    nc = 1 + seed % 5
    W, vfree, b, mu = random_problem(rng, nc, 3 * nc + 2)
    lam, v = np.zeros(3 * nc), np.empty(3 * nc)
    res, it = newton_contacts(W, vfree, b, mu, np.zeros(3 * nc), lam, v, 50, 1e-12)
    assert res <= 1e-12, (res, it)
    assert coulomb_violation(v, b, mu, lam) < 1e-7
    np.testing.assert_allclose(v, vfree + W @ lam, atol=1e-12)


def coulomb_misses(v, b, mu, lam, comp):
    """Coulomb's conditions per contact, each miss relative to the problem's largest impulse L
    or velocity V (``coulomb_violation`` takes each contact's own scales, which a resting
    contact among fast-approaching ones makes too small for any solver's rounding). Sliding is
    told by a slip above 1e-3 V: slower slips have a direction only to the residual's share."""
    w = v + b + comp * lam  # (comp per row)
    L, V = np.abs(lam).max(), np.abs(v + b).max()
    worst = 0.0
    for c in range(len(mu)):
        ln, lt, wn, wt = lam[3 * c], lam[3 * c + 1:3 * c + 3], w[3 * c], w[3 * c + 1:3 * c + 3]
        misses = [max(-ln, 0) / L, max(np.linalg.norm(lt) - mu[c] * ln, 0) / L, max(-wn, 0) / V,
                  abs(ln * wn) / (L * V)]
        # sliding: on the cone, against the slip (whose direction a residual r fixes to r V / |w_t|)
        if np.linalg.norm(wt) > 1e-3 * V:
            misses += [abs(np.linalg.norm(lt) - mu[c] * ln) / L,
                       np.linalg.norm(lt + mu[c] * ln * wt / np.linalg.norm(wt)) / L]
        else:  # sticking or separated: inside the cone
            misses += [max(np.linalg.norm(lt) - mu[c] * ln, 0) / L]
        worst = max(worst, *misses)
    return worst


def solo12(name):
    z = np.load(SOLO12)
    return tuple(z[f"{name}_{k}"] for k in ("W", "vfree", "b", "mu"))


def test_solo12_landing_needs_newton():
    """Solo12 landing on its feet: 24 contacts (72 rows) on 18 speeds, W's nonzero eigenvalues
    spanning 1e4 (light legs, heavy base). Gauss-Seidel creeps (above 1e-6 after 2000 sweeps,
    1e-9 after about 6000); the sweeps then Newton solve it in under 200 iterations."""
    W, vfree, b, mu = solo12("landing")
    m, nc = len(vfree), len(mu)
    comp = np.zeros(3 * nc)
    lam, v = np.zeros(m), np.empty(m)
    res_gs, _ = gauss_seidel_contacts(W, vfree, b, mu, comp, lam, v, 2000, 1e-9)
    assert res_gs > 1e-6
    lam, v = np.zeros(m), np.empty(m)
    res, it = solve_contacts(W, vfree, b, mu, comp, lam, v, 2000, 1e-9)
    assert res <= 1e-9 and it < 200, (res, it)
    assert coulomb_misses(v, b, mu, lam, comp) < 1e-6
    np.testing.assert_allclose(v, vfree + W @ lam, atol=1e-12)


def test_solo12_sitting_is_determined_by_the_regularization():
    """Solo12 fallen onto its knees (kp = 3): 12 contacts, feet and upper legs, 36 rows on 18
    speeds with W's nonzero eigenvalues from 1.2e-5 to 153, so internal forces between them are
    nearly free: the rigid problem needs both Newton starts (239 iterations; with 50 Newton
    iterations a start it stayed at 1.2e-3 and the run stopped). With the contact loop's default
    compliance (1e-6 W_nn) the impulses are determined: 71 iterations, the total normal
    impulse within 1e-6 of the rigid one."""
    W, vfree, b, mu = solo12("sitting")
    m, nc = len(vfree), len(mu)
    lam0, v = np.zeros(m), np.empty(m)
    res0, it0 = solve_contacts(W, vfree, b, mu, np.zeros(3 * nc), lam0, v, 2000, 1e-9)
    assert res0 <= 1e-9 and it0 > 150, (res0, it0)
    comp = 1e-6 * np.repeat(np.diag(W)[0::3], 3)
    lam, v = np.zeros(m), np.empty(m)
    res, it = solve_contacts(W, vfree, b, mu, comp, lam, v, 2000, 1e-9)
    assert res <= 1e-9 and it < 100, (res, it)
    assert coulomb_misses(v, b, mu, lam, comp) < 1e-6
    assert lam[0::3].sum() == pytest.approx(lam0[0::3].sum(), rel=1e-6)
    assert natural_residual(W, vfree, b, mu, comp, lam, v) == res


def test_boxes_landing_on_boxes_are_solved_by_the_softer_retry():
    """Ten boxes in two columns of five, dropped 1 cm onto each other (bench/bench_box_pile.py,
    t = 0.096 s): 22 contacts, 66 rows of rank 39, most with push-out targets (0.1 m/s) that
    the boxes can only nearly meet. At the default compliance (1e-6 W_nn) no solve meets 1e-9;
    the contact loop's last try (``_soft_retry``, 1e-4 W_nn) does, and is kept; a try that does
    no better keeps the impulses it was given."""
    from multibody.simulation.contact_loop import _soft_retry
    z = np.load(os.path.join(os.path.dirname(__file__), "data", "box_columns_contact_problem.npz"))
    W, vfree, b, mu = z["W"], z["vfree"], z["b"], z["mu"]
    m, nc = len(vfree), len(mu)
    comp = 1e-6 * np.repeat(np.diag(W)[0::3], 3)
    lam, v = np.zeros(m), np.empty(m)
    res, it = solve_contacts(W, vfree, b, mu, comp, lam, v, 2000, 1e-9)
    assert res > 1e-6
    given = lam.copy()
    cf = np.zeros((nc, CF_COLS))  # (hard contacts: no compliance of their own)
    res2, it2, kept = _soft_retry(W, vfree, b, mu, cf, comp.copy(), lam, v, np.empty(m), 2000, 1e-9, res, it, 1e-4)
    assert kept and res2 <= 1e-9 and it2 > it
    assert coulomb_misses(v, b, mu, lam, 1e-4 * np.repeat(np.diag(W)[0::3], 3)) < 1e-6
    lam[:] = given
    res3, _, kept3 = _soft_retry(W, vfree, b, mu, cf, comp.copy(), lam, v, np.empty(m), 3, 1e-9, 1e-12, it, 1e-4)
    assert not kept3 and res3 == 1e-12 and np.array_equal(lam, given)
