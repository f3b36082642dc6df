"""Closed loops in a velocity-level (impulse) step: the loops' rows eliminated (issue 21).

A Moreau-Jean step with contact changes the speeds by impulses. With enabled constraints
(loops, convel and coordinate rows Gc, nr rows on nu speeds) the loop impulses mu act beside
the contact impulses lambda:

    u+ = u_f + M^-1 (Gc^T mu + J^T lambda),    Gc u+ = g (the loops' wanted rates).

Eliminating mu (Gamma = Gc M^-1 Gc^T, seed 000's Gamma in joint coordinates):

    mu = Gamma^+ (g - Gc u_f - Gc M^-1 J^T lambda), so
    u+ = u_c + P J^T lambda,   u_c = u_f + M^-1 Gc^T Gamma^+ (g - Gc u_f),
    P = M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1,

P the constrained compliance (the loops' motion's M^-1: Gc P = 0, P = P^T >= 0). The
contact problem is then the tree's with P for M^-1 (W = J P J^T, free speeds u_c), and any
contact impulses keep Gc u+ = g. Gamma is factored as tree-augmented dynamics factors it
(``constrained_dynamics.factor_gamma``: LDL^T in row order, rows whose pivot falls below
1e-12 of the largest diagonal dropped, mu = 0 on them), so both drop the same redundant
rows. Dense, O(nu^2 nr + nu nr^2): the step's M^-1 and W are dense already.
"""
from numba import njit

from .constrained_dynamics import factor_gamma, ldl_solve

__all__ = ["constrained_compliance", "project_speeds"]


@njit(cache=True)
def constrained_compliance(Minv, G, nr, MGt, A, P):
    """P (nu, nu) = M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1 (module docstring) from Minv (nu, nu) and
    Gc = G[:nr] (nr, nu); leaves MGt[:, :nr] = M^-1 Gc^T (nu, nr) and Gamma's LDL^T factors in
    A[:, :nr] (A: (nr, nr + 1), its last column the solves' scratch) for ``project_speeds``.
    Returns the number of rows dropped as redundant."""
    nu = Minv.shape[0]
    for a in range(nu):
        for i in range(nr):
            s = 0.0
            for k in range(nu):
                s += Minv[a, k] * G[i, k]
            MGt[a, i] = s
    for i in range(nr):
        for j in range(i + 1):
            s = 0.0
            for k in range(nu):
                s += G[i, k] * MGt[k, j]
            A[i, j] = s
            A[j, i] = s
    dropped = factor_gamma(A, 0, nr)  # (nu = 0: Gamma's columns start at column 0)
    for a in range(nu):  # column a of P: M^-1's minus M^-1 Gc^T Gamma^+ (row a of M^-1 Gc^T)^T
        for i in range(nr):
            A[i, nr] = MGt[a, i]
        ldl_solve(A, 0, nr, nr)
        for b in range(nu):
            s = 0.0
            for i in range(nr):
                s += MGt[b, i] * A[i, nr]
            P[b, a] = Minv[b, a] - s
    return dropped


@njit(cache=True)
def project_speeds(G, nr, MGt, A, g, u):
    """u <- u + M^-1 Gc^T Gamma^+ (g - Gc u) in place: the speeds nearest u in the kinetic
    metric with Gc u = g on the rows Gamma's factors keep (``constrained_compliance`` left
    MGt and A). Gc = G[:nr] (nr, nu), g (nr,). Returns the largest |Gc u - g| before."""
    nu = u.shape[0]
    worst = 0.0
    for i in range(nr):
        s = g[i]
        for k in range(nu):
            s -= G[i, k] * u[k]
        A[i, nr] = s
        worst = max(worst, abs(s))
    ldl_solve(A, 0, nr, nr)
    for a in range(nu):
        s = 0.0
        for i in range(nr):
            s += MGt[a, i] * A[i, nr]
        u[a] += s
    return worst
