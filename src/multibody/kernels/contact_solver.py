"""The Coulomb contact problem on the Delassus matrix: projected block Gauss-Seidel, then
Newton's method where the sweeps creep (``solve_contacts``).

Given W (m, m), m = 3 nc, the Delassus matrix J M^-1 J^T of nc contacts (rows per contact in
its frame (n, t1, t2)), the free relative velocity v_free (m,), the velocity targets b (m,)
(normal rows only: restitution and penetration recovery; tangential rows 0) and per contact
the friction mu, find impulses lambda (m,) with v = v_free + W lambda and, per contact i, with
w_i = v_i + b_i, one of (De Saxce's form of Coulomb's law):

* separate: lambda_i = 0 and w_n >= 0;
* stick: w_i = 0 and ||lambda_t|| <= mu lambda_n;
* slide: w_n = 0, lambda_t = -mu lambda_n w_t / ||w_t|| (the maximal dissipation direction).

This is the exact cone, not Anitescu's convex relaxation (which has w_n = mu ||w_t|| when
sliding and so lifts sliding bodies). Block Gauss-Seidel sweeps the contacts; each contact's
3x3 problem, the others held, is solved exactly by enumerating its three cases (the slide's
direction by a root find on its angle, ``_slide``). The sweeps stop when the natural-map
residual (``natural_residual``, in ``coulomb``) is below ``tol`` or after ``max_iter`` sweeps.
Compliance (per row, [m/(N s)]: velocity per impulse) is added to W's diagonal (C, diagonal):
a soft contact lets the impulse in at the rate w = -C lambda. Per row, because a contact may
be soft in its normal only (a spring-damper surface, ``contact_step.soft_targets``) and keep
its friction rows as stiff as the run's regularisation (a soft tangent would creep).
"""
import math

import numpy as np
from numba import njit

from .contact_newton import newton_contacts
from .coulomb import coupling, natural_residual, natural_residual_coupled, project_cone, project_impulses

__all__ = ["solve_contacts", "gauss_seidel_contacts", "natural_residual", "project_cone"]

#: Angles sampled on the circle to bracket the slip direction before bisection.
SLIDE_SAMPLES = 24
#: Under-relaxation when the sweeps stall: every STALL_SWEEPS sweeps, a residual not below
#: STALL_GAIN of the last check's cuts omega (the step towards each local solution) by
#: OMEGA_CUT, down to OMEGA_MIN. Coulomb's law is not associated (no potential), so plain
#: Gauss-Seidel may cycle between states; damping the steps breaks the cycles (the fixed
#: points, the solutions, are the same).
STALL_SWEEPS = 10
STALL_GAIN = 0.5
OMEGA_CUT = 0.7
OMEGA_MIN = 0.05
#: Sweeps before the Newton method (``solve_contacts``) and its most iterations.
GS_FIRST = 50
NEWTON_ITERATIONS = 100
#: Larger problems take no Newton step: its least-squares solve costs O(k^3) for k rows (25 ms
#: at the 597 rows of 50 boxes in a pile, the time of 350 of their sweeps, which skip W's zero
#: blocks), and piles, the large problems, are redundant rather than ill-conditioned. Where
#: the sweeps stall, the contact loop's softer retries (``contact_loop``) make W + C definite.
NEWTON_MAX_ROWS = 300
#: Most regula falsi (Illinois) steps on a bracketed angle.
SLIDE_BISECTIONS = 100


@njit(cache=True, inline="always")
def _inverse3(A, Ainv):
    """Ainv = A^-1 (3x3) by the adjugate; returns the determinant (0: not inverted)."""
    c00 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]
    c01 = A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2]
    c02 = A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * c00 + A[0, 1] * c01 + A[0, 2] * c02
    if not abs(det) > 1e-300:
        return 0.0
    Ainv[0, 0] = c00 / det
    Ainv[1, 0] = c01 / det
    Ainv[2, 0] = c02 / det
    Ainv[0, 1] = (A[0, 2] * A[2, 1] - A[0, 1] * A[2, 2]) / det
    Ainv[1, 1] = (A[0, 0] * A[2, 2] - A[0, 2] * A[2, 0]) / det
    Ainv[2, 1] = (A[0, 1] * A[2, 0] - A[0, 0] * A[2, 1]) / det
    Ainv[0, 2] = (A[0, 1] * A[1, 2] - A[0, 2] * A[1, 1]) / det
    Ainv[1, 2] = (A[0, 2] * A[1, 0] - A[0, 0] * A[1, 2]) / det
    Ainv[2, 2] = (A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]) / det
    return det


@njit(cache=True, inline="always")
def _slide_at(A, r, mu, th):
    """The sliding impulse with slip direction d = (cos th, sin th): lambda = ln (e_n - mu d)
    with ln from w_n = 0. Returns (ln, f, g): f = d_perp . w_t (zero when w_t is along d),
    g = d . w_t (positive: the slip is along d, as Coulomb wants)."""
    c = math.cos(th)
    s = math.sin(th)
    e0 = 1.0
    e1 = -mu * c
    e2 = -mu * s
    an = A[0, 0] * e0 + A[0, 1] * e1 + A[0, 2] * e2
    if not an > 0.0:
        return -1.0, 0.0, -1.0
    ln = -r[0] / an
    w1 = r[1] + ln * (A[1, 0] * e0 + A[1, 1] * e1 + A[1, 2] * e2)
    w2 = r[2] + ln * (A[2, 0] * e0 + A[2, 1] * e1 + A[2, 2] * e2)
    return ln, -s * w1 + c * w2, c * w1 + s * w2


@njit(cache=True, inline="always")
def _take(cur, best, c0, c1, c2, lam):
    """Keep (c0, c1, c2) in lam if it is nearer the current impulse cur than ``best`` (a
    squared distance; negative: none yet); returns the new best."""
    d = (c0 - cur[0]) ** 2 + (c1 - cur[1]) ** 2 + (c2 - cur[2]) ** 2
    if best < 0.0 or d < best:
        lam[0] = c0
        lam[1] = c1
        lam[2] = c2
        return d
    return best


@njit(cache=True)
def _slide(A, r, mu, cur, best, lam):
    """The slide cases of one contact: angles th with f(th) = 0, g > 0, ln > 0, bracketed on
    SLIDE_SAMPLES angles and refined by regula falsi (Illinois); each kept in lam if nearer
    cur (``_take``)."""
    a = 0.0
    la, fa, ga = _slide_at(A, r, mu, a)
    for k in range(SLIDE_SAMPLES):
        b = 2.0 * math.pi * (k + 1) / SLIDE_SAMPLES
        lb, fb, gb = _slide_at(A, r, mu, b)
        th = -1.0
        if fa == 0.0:
            th = a
        elif fa * fb < 0.0:  # (whether the slip is along d, g > 0, is checked at the root)
            th = _root(A, r, mu, a, fa, b, fb)
        if th >= 0.0:
            ln, f, g = _slide_at(A, r, mu, th)
            if ln > 0.0 and g > 0.0:
                best = _take(cur, best, ln, -mu * ln * math.cos(th), -mu * ln * math.sin(th), lam)
        a, fa = b, fb
    return best


@njit(cache=True)
def _root(A, r, mu, a, fa, b, fb):
    """The angle in [a, b] where f (``_slide_at``) changes sign: regula falsi with the
    Illinois rule (superlinear), to the angle's rounding or SLIDE_BISECTIONS steps."""
    side = 0
    for _ in range(SLIDE_BISECTIONS):
        c = (a * fb - b * fa) / (fb - fa)
        if not a < c < b:
            c = 0.5 * (a + b)
        lc, fc, gc = _slide_at(A, r, mu, c)
        if fc == 0.0:
            return c
        if (fc < 0.0) == (fa < 0.0):
            a, fa = c, fc
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb = c, fc
            if side == 1:
                fa *= 0.5
            side = 1
        if b - a <= 4e-16 * (1.0 + abs(a)):
            break
    return (a * fb - b * fa) / (fb - fa) if fb != fa else 0.5 * (a + b)


@njit(cache=True)
def _local_solve(A, Ainv, r, mu, cur, lam):
    """Exact solution of one contact's problem w = r + A lambda (A 3x3, SPD): separate or
    stick; when both hold (A couples the normal and tangential rows), the one nearest the
    current impulse cur, so that the sweeps do not jump between branches; slide (its
    roots, the nearest) when neither does. Writes lam; False when none holds (lam left)."""
    best = -1.0
    if r[0] >= 0.0:
        best = _take(cur, best, 0.0, 0.0, 0.0, lam)
    s0 = -(Ainv[0, 0] * r[0] + Ainv[0, 1] * r[1] + Ainv[0, 2] * r[2])
    s1 = -(Ainv[1, 0] * r[0] + Ainv[1, 1] * r[1] + Ainv[1, 2] * r[2])
    s2 = -(Ainv[2, 0] * r[0] + Ainv[2, 1] * r[1] + Ainv[2, 2] * r[2])
    if s0 > 0.0 and math.sqrt(s1 * s1 + s2 * s2) <= mu * s0:
        best = _take(cur, best, s0, s1, s2, lam)
    if r[0] < 0.0 and best < 0.0:  # neither separate nor stick: slide
        if mu == 0.0:  # frictionless: the normal row alone
            best = _take(cur, best, -r[0] / A[0, 0], 0.0, 0.0, lam)
        else:
            best = _slide(A, r, mu, cur, best, lam)
    return best >= 0.0


@njit(cache=True, inline="always")
def _row_sums(W, lam, k, lo, hi, a0, a1, a2):
    """(a0, a1, a2) plus rows k, k+1, k+2 of W times lam over the columns lo..hi-1, in order."""
    for j in range(lo, hi):
        x = lam[j]
        a0 += W[k, j] * x
        a1 += W[k + 1, j] * x
        a2 += W[k + 2, j] * x
    return a0, a1, a2


@njit(cache=True)
def gauss_seidel_contacts(W, vfree, b, mu, compliance, lam, v, max_iter, tol):
    """Projected block Gauss-Seidel (module docstring) in place, at most max_iter sweeps;
    arguments and result as ``solve_contacts``."""
    ptr, idx = coupling(W)
    return _sweeps(W, vfree, b, mu, compliance, lam, v, max_iter, tol, ptr, idx)


@njit(cache=True, inline="always")
def _sweeps(W, vfree, b, mu, compliance, lam, v, max_iter, tol, ptr, idx):
    """``gauss_seidel_contacts`` with W's nonzero blocks given (``coulomb.coupling``; empty:
    all): the sums run over them only."""
    m = vfree.shape[0]
    nc = m // 3
    A = np.empty((3, 3))
    Ainv = np.empty((3, 3))
    r = np.empty(3)
    loc = np.empty(3)
    project_impulses(mu, lam)  # (a warm start outside the cone is projected into it)
    res = natural_residual_coupled(W, vfree, b, mu, compliance, lam, v, ptr, idx)
    sweeps = 0
    omega = 1.0
    checked = res
    while res > tol and sweeps < max_iter:
        for c in range(nc):
            k = 3 * c
            a0 = vfree[k] + b[k]  # (the three rows' sums side by side: independent chains)
            a1 = vfree[k + 1] + b[k + 1]
            a2 = vfree[k + 2] + b[k + 2]
            if ptr.shape[0] == 0:
                a0, a1, a2 = _row_sums(W, lam, k, 0, m, a0, a1, a2)
            else:
                for d in idx[ptr[c]:ptr[c + 1]]:
                    a0, a1, a2 = _row_sums(W, lam, k, 3 * d, 3 * d + 3, a0, a1, a2)
            r[0] = a0
            r[1] = a1
            r[2] = a2
            for i in range(3):
                for j in range(3):  # the contact's own impulse left out: r is the others' part
                    r[i] -= W[k + i, k + j] * lam[k + j]
                for j in range(3):
                    A[i, j] = W[k + i, k + j]
                A[i, i] += compliance[k + i]
            if _inverse3(A, Ainv) == 0.0:
                tr = A[0, 0] + A[1, 1] + A[2, 2]  # a singular block: the least regularisation that inverts it
                for i in range(3):
                    A[i, i] += 1e-12 * tr + 1e-300
                _inverse3(A, Ainv)
            if _local_solve(A, Ainv, r, mu[c], lam[k:k + 3], loc):
                for i in range(3):  # (a convex combination of two cone points stays in the cone)
                    lam[k + i] += omega * (loc[i] - lam[k + i])
        sweeps += 1
        res = natural_residual_coupled(W, vfree, b, mu, compliance, lam, v, ptr, idx)
        if sweeps % STALL_SWEEPS == 0:
            if not res < STALL_GAIN * checked:
                omega = max(OMEGA_MIN, OMEGA_CUT * omega)
            checked = res
    return res, sweeps


@njit(cache=True)
def solve_contacts(W, vfree, b, mu, compliance, lam, v, max_iter, tol):
    """Solve the Coulomb contact problem (module docstring) in place.

    W (m, m) Delassus matrix [m/(N s)] (only its diagonal 3x3 blocks must be definite);
    vfree, b (m,) free relative velocity and targets [m/s]; mu (nc,); compliance (m,); lam (m,)
    impulses [N s]: the warm start on entry, the solution on return; v (m,) receives
    v_free + W lam. Returns (residual, iterations): the natural-map residual
    (``natural_residual``) and the sweeps plus Newton iterations taken (at most max_iter);
    residual <= tol means converged.

    Up to GS_FIRST sweeps of block Gauss-Seidel (cheap, robust, warm-started); if they have
    not converged, up to NEWTON_ITERATIONS of ``contact_newton`` from their iterate (sweeps
    creep where W is ill-conditioned, Newton does not) and, if it has not converged (it can
    stall among the kinks of a nonsmooth F), as many from zero impulses; then the sweeps again
    with what is left of max_iter, from the best iterate so far, which is returned. Problems
    of more than NEWTON_MAX_ROWS rows take the sweeps only (see there).
    """
    ptr, idx = coupling(W)
    first = min(max_iter, GS_FIRST if vfree.shape[0] <= NEWTON_MAX_ROWS else max_iter)
    res, its = _sweeps(W, vfree, b, mu, compliance, lam, v, first, tol, ptr, idx)
    if res <= tol or its >= max_iter:
        return res, its
    keep = lam.copy()
    for start in range(2):  # Newton from the sweeps' iterate, then from zero impulses
        if start == 1:
            lam[:] = 0.0
        res_n, its_n = newton_contacts(W, vfree, b, mu, compliance, lam, v, min(max_iter - its, NEWTON_ITERATIONS),
                                       tol)
        its += its_n
        if res_n < res:
            res = res_n
            keep[:] = lam
        else:
            lam[:] = keep
        if res <= tol or its >= max_iter:
            break
    if res <= tol or its >= max_iter:
        natural_residual(W, vfree, b, mu, compliance, lam, v)
        return res, its
    res_g, its_g = _sweeps(W, vfree, b, mu, compliance, lam, v, max_iter - its, tol, ptr, idx)
    if not res_g < res:
        lam[:] = keep
        natural_residual(W, vfree, b, mu, compliance, lam, v)
        return res, its + its_g
    return res_g, its + its_g
