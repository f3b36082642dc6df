"""The Coulomb contact problem by a semismooth Newton method on Alart and Curnier's function.

The same problem as ``contact_solver`` (its module docstring: W, v_free, b, mu, compliance,
impulses lambda): with w = v_free + b + (W + C) lambda and per contact i a step rho_i > 0,
Coulomb's law is F(lambda) = 0 for Alart & Curnier's (1991) function

    F_n = lambda_n - max(0, a),                 a = lambda_n - rho w_n
    F_t = lambda_t - proj_disk(mu max(0, a))(x),  x = lambda_t - rho w_t

(proj_disk(r): the projection onto the disk of radius r). F is piecewise smooth, so Newton's
method takes one element of its generalized Jacobian (``_contact_rows``: separated, sticking or
sliding) and a least-squares step (W is singular where contacts are redundant: the step of
least norm leaves the impulses' null space alone), with a non-monotone backtracking line
search on ||F||^2. Where block Gauss-Seidel creeps (light links against a heavy base make W's
eigenvalues span 1e4 and more, so each sweep removes a small fraction of the error), Newton
converges in a few iterations from the sweeps' iterate. The stopping criterion is the same
natural-map residual as the sweeps' (``natural_residual``), so either method's result means the
same.
"""
import math

import numpy as np
from numba import njit

from .coulomb import natural_residual, project_impulses

__all__ = ["newton_contacts"]

#: Armijo's sufficient decrease and the smallest step tried: where none passes, that tiny
#: step is taken. Near a kink of F (a contact changing between separated, sticking and
#: sliding) the Newton step of the current piece may decrease ||F|| only for a tiny step;
#: such steps cross the kink, and full steps follow (halvings cost an evaluation of F,
#: O(m^2), not a solve).
ARMIJO = 1e-4
MIN_STEP = 1e-10
#: The line search is non-monotone (Grippo, Lampariello & Lucidi 1986): a step passes if it
#: decreases ||F||^2 below the largest of the last MERIT_MEMORY iterations' values, not the
#: last one's. Steps that cross several kinks at once then pass: on 34 contact problems of
#: Solo12's drop, the monotone search left 17 unsolved and this one none.
MERIT_MEMORY = 10
#: Singular values below this fraction of the largest are dropped in the least-squares step.
RCOND = 1e-13
#: The pieces of F per contact.
SEPARATED = 0
STICKING = 1
SLIDING = 2


@njit(cache=True)
def _newton_step(Jac, F, piece, A, rhs, rows, step):
    """The Newton step: Jac step = -F, by least squares. A separated contact's rows are
    identity rows (F = lambda: its step is -lambda), so only the other contacts' rows make a
    system (A, k x k, k their rows): a handful of touching contacts among many within the
    margin costs a small solve."""
    m = F.shape[0]
    k = 0
    for c in range(m // 3):
        for r in range(3):
            if piece[c] == SEPARATED:
                step[3 * c + r] = -F[3 * c + r]
            else:
                rows[k] = 3 * c + r
                k += 1
    if k == 0:
        return
    for a in range(k):
        s = -F[rows[a]]
        for c in range(m // 3):
            if piece[c] == SEPARATED:
                for r in range(3):
                    s -= Jac[rows[a], 3 * c + r] * step[3 * c + r]
        rhs[a] = s
        for j in range(k):
            A[a, j] = Jac[rows[a], rows[j]]
    x = np.linalg.lstsq(A[:k, :k], rhs[:k], RCOND)[0]
    for a in range(k):
        step[rows[a]] = x[a]


@njit(cache=True)
def _contact_rows(Wc, q, mu, rho, lam, k, w, F, Jac, with_jacobian):
    """F[k:k+3] (and, if with_jacobian, rows k..k+2 of an element of its generalized Jacobian)
    of one contact, whose first row is k; w = q + Wc lam. Returns SEPARATED, STICKING or
    SLIDING: the piece of F taken."""
    m = q.shape[0]
    a = lam[k] - rho * w[k]
    x1 = lam[k + 1] - rho * w[k + 1]
    x2 = lam[k + 2] - rho * w[k + 2]
    if with_jacobian:
        for r in range(3):
            for j in range(m):
                Jac[k + r, j] = 0.0
    if not a > 0.0:  # separated: lambda = 0
        for r in range(3):
            F[k + r] = lam[k + r]
            if with_jacobian:
                Jac[k + r, k + r] = 1.0
        return SEPARATED
    F[k] = rho * w[k]
    rad = mu * a
    nx = math.sqrt(x1 * x1 + x2 * x2)
    if nx <= rad:  # sticking: w = 0
        F[k + 1] = rho * w[k + 1]
        F[k + 2] = rho * w[k + 2]
        if with_jacobian:
            for r in range(3):
                for j in range(m):
                    Jac[k + r, j] = rho * Wc[k + r, j]
        return STICKING
    d1 = x1 / nx  # sliding: lambda_t = -rad d on the disk's rim, d the slip's direction
    d2 = x2 / nx
    F[k + 1] = lam[k + 1] - rad * d1
    F[k + 2] = lam[k + 2] - rad * d2
    if not with_jacobian:
        return SLIDING
    g = rad / nx
    for j in range(m):
        Jac[k, j] = rho * Wc[k, j]
        da = -rho * Wc[k, j]  # d a / d lambda_j
        dx1 = -rho * Wc[k + 1, j]
        dx2 = -rho * Wc[k + 2, j]
        if j == k:
            da += 1.0
        elif j == k + 1:
            dx1 += 1.0
        elif j == k + 2:
            dx2 += 1.0
        px = d1 * dx1 + d2 * dx2  # (I - d d^T) dx = dx - d (d . dx)
        Jac[k + 1, j] = -mu * d1 * da - g * (dx1 - d1 * px)
        Jac[k + 2, j] = -mu * d2 * da - g * (dx2 - d2 * px)
    Jac[k + 1, k + 1] += 1.0
    Jac[k + 2, k + 2] += 1.0
    return SLIDING


@njit(cache=True)
def _alart_curnier(Wc, q, mu, rho, lam, w, F, Jac, with_jacobian, piece):
    """F(lam) (module docstring) into F, its generalized Jacobian into Jac if with_jacobian,
    each contact's piece (``_contact_rows``) into piece; returns ||F||^2."""
    m = q.shape[0]
    for i in range(m):
        s = q[i]
        for j in range(m):
            s += Wc[i, j] * lam[j]
        w[i] = s
    for c in range(m // 3):
        piece[c] = _contact_rows(Wc, q, mu[c], rho[c], lam, 3 * c, w, F, Jac, with_jacobian)
    f = 0.0
    for i in range(m):
        f += F[i] * F[i]
    return f


@njit(cache=True)
def newton_contacts(W, vfree, b, mu, compliance, lam, v, max_iter, tol):
    """Solve the Coulomb contact problem (module docstring) from the impulses lam, in place.

    Arguments and result as ``contact_solver.solve_contacts``: lam (m,) the start on entry,
    on return the iterate of the smallest natural-map residual met, projected onto the cones;
    v = v_free + W lam.
    Returns (residual, iterations). Each iteration costs a least-squares solve on the rows of
    the contacts not separated (O(k^3) for k such rows) and O(m^2) per evaluation of F, so the
    sweeps stay the first method; this one finishes what they creep on.
    """
    m = vfree.shape[0]
    nc = m // 3
    Wc = W.copy()
    q = np.empty(m)
    rho = np.empty(nc)
    for c in range(nc):
        for r in range(3):
            Wc[3 * c + r, 3 * c + r] += compliance[3 * c + r]
            q[3 * c + r] = vfree[3 * c + r] + b[3 * c + r]
        rho[c] = 1.0 / max(Wc[3 * c, 3 * c], 1e-300)
    w = np.empty(m)
    F = np.empty(m)
    Jac = np.empty((m, m))
    A = np.empty((m, m))
    rhs = np.empty(m)
    rows = np.empty(m, dtype=np.int64)
    step = np.empty(m)
    piece = np.empty(nc, dtype=np.int64)
    trial = np.empty(m)
    best = lam.copy()
    merits = np.zeros(MERIT_MEMORY)
    res = natural_residual(W, vfree, b, mu, compliance, lam, v)
    best_res = res
    it = 0
    while res > tol and it < max_iter:
        f = _alart_curnier(Wc, q, mu, rho, lam, w, F, Jac, True, piece)
        _newton_step(Jac, F, piece, A, rhs, rows, step)
        merits[it % MERIT_MEMORY] = f
        ref = merits.max()  # (the last MERIT_MEMORY merits; zeros before they are filled)
        s = 1.0
        while True:  # backtracking (Armijo, against the largest recent merit)
            for i in range(m):
                trial[i] = lam[i] + s * step[i]
            if _alart_curnier(Wc, q, mu, rho, trial, w, F, Jac, False, piece) <= ref - 2.0 * ARMIJO * s * f:
                break
            if s < MIN_STEP:
                break  # (the tiny step is taken: the memory moves on, and a later step may pass)
            s *= 0.5
        it += 1
        for i in range(m):
            lam[i] = trial[i]
        res = natural_residual(W, vfree, b, mu, compliance, lam, v)
        if res < best_res:
            best_res = res
            for i in range(m):
                best[i] = lam[i]
    for i in range(m):  # the best iterate, in the cone (Newton's iterates may be outside by its residual)
        lam[i] = best[i]
    project_impulses(mu, lam)
    return natural_residual(W, vfree, b, mu, compliance, lam, v), it
