"""The Coulomb contact solver (kernels/contact_solver.py) against Coulomb's conditions, read
directly off its answer: per contact separate, stick or slide, with the slide's friction
opposite the slip at the cone's boundary (maximal dissipation)."""
import math

import numpy as np
import pytest

from multibody.kernels.contact_solver import natural_residual, project_cone, solve_contacts


def coulomb_violation(v, b, mu, lam, comp=None):
    """The largest miss of Coulomb's law per contact (impulse and velocity units mixed: each
    term is relative to the contact's impulse or velocity scale)."""
    nc = len(mu)
    comp = np.zeros(3 * nc) if comp is None else comp  # (per row)
    worst = 0.0
    for c in range(nc):
        k = slice(3 * c, 3 * c + 3)
        ln, lt = lam[3 * c], lam[3 * c + 1:3 * c + 3]
        w = v[k] + b[k] + comp[k] * lam[k]
        wn, wt = w[0], w[1:]
        lsc = max(np.linalg.norm(lam[k]), 1e-12)
        vsc = max(np.linalg.norm(v[k] + b[k]), np.linalg.norm(b[k]), 1e-12)
        assert ln >= -1e-12 * lsc, "normal impulse pulls"
        assert np.linalg.norm(lt) <= mu[c] * ln + 1e-9 * lsc, "impulse outside the cone"
        assert wn >= -1e-8 * vsc, "contact approaches"
        worst = max(worst, abs(ln * wn) / (lsc * vsc))  # complementarity
        if ln > 1e-9 * lsc and np.linalg.norm(wt) > 1e-8 * vsc:  # sliding
            assert np.linalg.norm(lt) == pytest.approx(mu[c] * ln, rel=1e-8), "slides inside the cone"
            worst = max(worst, np.linalg.norm(lt / np.linalg.norm(lt) + wt / np.linalg.norm(wt)))
    return worst


def random_problem(rng, nc, ndof):
    J = rng.standard_normal((3 * nc, ndof))
    Mi = rng.standard_normal((ndof, ndof))
    Minv = Mi @ Mi.T / ndof + 0.1 * np.eye(ndof)
    W = J @ Minv @ J.T
    vfree = rng.standard_normal(3 * nc)
    vfree[0::3] = -np.abs(vfree[0::3]) + 0.2  # mostly approaching: contacts engage
    b = np.zeros(3 * nc)
    b[0::3] = 0.1 * rng.standard_normal(nc)
    mu = rng.uniform(0.0, 1.2, nc)
    return W, vfree, b, mu


def solve(W, vfree, b, mu, comp=None, lam=None, max_iter=5000, tol=1e-12):
    m = len(vfree)
    comp = np.zeros(m) if comp is None else comp
    lam = np.zeros(m) if lam is None else lam.copy()
    v = np.empty(m)
    res, it = solve_contacts(W, vfree, b, mu, comp, lam, v, max_iter, tol)
    return lam, v, res, it


@pytest.mark.parametrize("seed", range(12))
def test_random_spd_problems_satisfy_coulomb(seed):
    rng = np.random.default_rng(seed)
    nc = 1 + seed % 4
    W, vfree, b, mu = random_problem(rng, nc, 3 * nc + 2)  # full rank
    lam, v, res, it = solve(W, vfree, b, mu)
    assert res <= 1e-12, (res, it)
    assert np.allclose(v, vfree + W @ lam, atol=1e-12)
    assert coulomb_violation(v, b, mu, lam) < 1e-7
    CASES.update(contact_cases(v, b, mu, lam))


CASES = set()


def contact_cases(v, b, mu, lam):
    out = set()
    for c in range(len(mu)):
        ln, lt = lam[3 * c], lam[3 * c + 1:3 * c + 3]
        out.add("separate" if ln == 0 else "slide" if np.linalg.norm(lt) > mu[c] * ln * (1 - 1e-9) else "stick")
    return out


def test_random_problems_cover_every_case():
    if len(CASES) == 0:
        pytest.skip("run with the random problems")
    assert CASES == {"separate", "stick", "slide"}


def test_single_contact_cases_by_hand():
    """One contact with W = I: the three cases have closed forms."""
    W = np.eye(3)
    mu = np.array([0.5])
    lam, v, *_ = solve(W, np.array([1.0, 0.3, 0.0]), np.zeros(3), mu)  # separating
    assert np.all(lam == 0)
    lam, v, *_ = solve(W, np.array([-1.0, 0.3, -0.2]), np.zeros(3), mu)  # sticks: v = 0
    np.testing.assert_allclose(lam, [1.0, -0.3, 0.2], atol=1e-15)
    lam, v, *_ = solve(W, np.array([-1.0, 3.0, 4.0]), np.zeros(3), mu)  # slides: lt = -mu ln d
    np.testing.assert_allclose(lam, [1.0, -0.3, -0.4], atol=1e-14)
    np.testing.assert_allclose(v, [0.0, 2.7, 3.6], atol=1e-14)  # no lift: v_n = 0 (not mu |v_t|)


def test_box_corners_on_six_dof_rank_deficient():
    """A free box on four corners: W (12 x 12) has rank 6. It rests (stick, v = 0) with the
    weight's impulse m g h shared so that the total is exact, and slides when pushed."""
    m, a, h, g = 1.0, 0.05, 1e-3, 9.81
    I = m * (2 * 0.1 ** 2) / 12 * np.eye(3)
    Minv = np.zeros((6, 6))
    Minv[:3, :3] = np.linalg.inv(I)
    Minv[3:, 3:] = np.eye(3) / m
    J = []
    for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        r = np.array([sx * a, sy * a, -a])
        for e in np.eye(3)[[2, 0, 1]]:  # rows n = z, t1 = x, t2 = y
            J.append(np.concatenate([np.cross(r, e), e]))  # d(v_point . e) / d[w; v]
    J = np.array(J)
    W = J @ Minv @ J.T
    assert np.linalg.matrix_rank(W) == 6
    mu = np.full(4, 0.5)
    u_free = np.array([0, 0, 0, 0, 0, -g * h])  # resting, one step of gravity
    lam, v, res, it = solve(W, J @ u_free, np.zeros(12), mu, tol=1e-10)
    assert res <= 1e-10
    u_plus = u_free + Minv @ J.T @ lam
    np.testing.assert_allclose(u_plus, 0, atol=1e-9)  # (to the tolerance: rank deficient, PGS converges linearly)
    assert lam[0::3].sum() == pytest.approx(m * g * h, rel=1e-12)
    u_free = np.array([0, 0, 0, 1.0, 0, -g * h])  # sliding along x at 1 m/s
    lam, v, res, it = solve(W, J @ u_free, np.zeros(12), mu, tol=1e-10)
    assert res <= 1e-10
    assert coulomb_violation(v, np.zeros(12), mu, lam) < 1e-7
    u_plus = u_free + Minv @ J.T @ lam
    assert u_plus[3] == pytest.approx(1.0 - 0.5 * g * h, rel=1e-9)  # Coulomb deceleration mu g
    assert u_plus[5] == pytest.approx(0.0, abs=1e-9)
    th = math.radians(30.0)  # on a 30 degree incline (gravity in the box's axes): mu 0.7 holds,
    u_free = np.array([0, 0, 0, g * h * math.sin(th), 0, -g * h * math.cos(th)])  # mu 0.4 slides
    for mu_k, slide in ((0.7, 0.0), (0.4, g * h * (math.sin(th) - 0.4 * math.cos(th)))):
        lam, v, res, it = solve(W, J @ u_free, np.zeros(12), np.full(4, mu_k), tol=1e-12)
        assert res <= 1e-12
        u_plus = u_free + Minv @ J.T @ lam
        np.testing.assert_allclose(u_plus, [0, 0, 0, slide, 0, 0], atol=1e-12)


def test_compliance_and_warm_start():
    rng = np.random.default_rng(8)
    W, vfree, b, mu = random_problem(rng, 3, 11)
    comp = np.array([0.0, 0.0, 0.0, 0.3, 0.3, 0.3, 1.0, 0.2, 0.2])  # (per row: the third soft in its normal)
    lam, v, res, it = solve(W, vfree, b, mu, comp=comp)
    assert res <= 1e-12
    assert coulomb_violation(v, b, mu, lam, comp) < 1e-7
    lam2, v2, res2, it2 = solve(W, vfree, b, mu, comp=comp, lam=lam)
    assert it2 == 0
    np.testing.assert_allclose(lam2, lam, rtol=1e-14, atol=0)


def test_nonconvergence_is_reported():
    rng = np.random.default_rng(3)
    W, vfree, b, mu = random_problem(rng, 4, 14)
    lam, v, res, it = solve(W, vfree, b, mu, max_iter=1, tol=1e-14)
    assert it == 1 and res > 1e-14


def test_cone_projection_is_a_projection():
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = rng.standard_normal(3)
        mu = rng.uniform(0.0, 2.0)
        p = np.array(project_cone(mu, *x))
        assert np.linalg.norm(p[1:]) <= mu * p[0] + 1e-12
        assert (x - p) @ p == pytest.approx(0.0, abs=1e-12)  # x - p is normal to the cone at p
        y = np.array(project_cone(mu, *p))
        np.testing.assert_allclose(y, p, atol=1e-14)
        # every other cone point is no closer
        for _ in range(5):
            n = abs(rng.standard_normal())
            t = rng.standard_normal(2)
            t *= mu * n * rng.uniform() / max(np.linalg.norm(t), 1e-300)
            z = np.array([n, *t])
            assert np.linalg.norm(x - z) >= np.linalg.norm(x - p) - 1e-12


def test_frictionless_cone_is_the_nonnegative_normal_ray():
    """mu = 0: the cone is {t = 0, n >= 0}; points on the normal axis below the apex project
    to it (until 2026-11-28 they were returned as they were, so a separating frictionless
    contact's residual stayed 1), and a separating frictionless contact is a solution."""
    for x, p in (((-1.0, 0.0, 0.0), (0.0, 0.0, 0.0)), ((2.0, 0.0, 0.0), (2.0, 0.0, 0.0)),
                 ((2.0, 3.0, -4.0), (2.0, 0.0, 0.0)), ((-2.0, 3.0, -4.0), (0.0, 0.0, 0.0)),
                 ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))):
        assert project_cone(0.0, *x) == p, x
    for mu in (0.0, 0.5):  # on the axis below the apex: the apex, whatever the friction
        assert project_cone(mu, -1.0, 0.0, 0.0) == (0.0, 0.0, 0.0)
    v = np.empty(3)
    separating, comp = np.array([0.5, 0.2, -0.1]), np.zeros(3)
    assert natural_residual(np.eye(3), separating, np.zeros(3), np.array([0.0]), comp, np.zeros(3), v) == 0.0
    lam, v, res, it = solve(np.eye(3), separating, np.zeros(3), np.array([0.0]), max_iter=50, tol=1e-12)
    assert res == 0.0 and np.array_equal(lam, np.zeros(3))


def test_natural_residual_zero_at_solution_only():
    W = np.eye(3)
    v = np.empty(3)
    mu = np.array([0.5])
    comp = np.zeros(3)
    assert natural_residual(W, np.array([-1.0, 3.0, 4.0]), np.zeros(3), mu, comp,
                            np.array([1.0, -0.3, -0.4]), v) < 1e-15
    assert natural_residual(W, np.array([-1.0, 3.0, 4.0]), np.zeros(3), mu, comp,
                            np.array([1.0, 0.0, 0.0]), v) > 0.01
    assert math.isfinite(natural_residual(W, np.zeros(3), np.zeros(3), mu, comp, np.zeros(3), v))


def test_a_solve_that_ends_above_tol_is_made_again_from_rest_and_the_better_kept():
    """The contact loop's ``_cold_retry``: a bad warm start with few sweeps ends far from the
    solution; from zero impulses the same sweeps do better, and that one is kept; told the
    first was already better (residual 0), it keeps the first impulses and their v."""
    from multibody.simulation.contact_loop import _cold_retry
    rng = np.random.default_rng(5)
    W, vfree, b, mu = random_problem(rng, 4, 14)
    m, comp = len(vfree), np.zeros(12)
    bad = np.tile([50.0, 40.0, -30.0], 4)  # a warm start far outside every cone
    lam, v = bad.copy(), np.empty(m)
    res, it = solve_contacts(W, vfree, b, mu, comp, lam, v, 3, 1e-14)
    first = lam.copy()
    res2, it2 = _cold_retry(W, vfree, b, mu, comp, lam, v, np.empty(m), 3, 1e-14, res, it)
    assert res2 < res and it2 > it and not np.array_equal(lam, first)
    assert res2 == pytest.approx(natural_residual(W, vfree, b, mu, comp, lam, np.empty(m)), rel=1e-12)
    lam[:] = first
    res3, _ = _cold_retry(W, vfree, b, mu, comp, lam, v, np.empty(m), 3, 1e-14, 0.0, it)
    assert res3 == 0.0 and np.array_equal(lam, first)
    np.testing.assert_allclose(v, vfree + W @ first, rtol=1e-12, atol=1e-12)
