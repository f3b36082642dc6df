"""Closed loops in a velocity-level (impulse) step: the loops' rows eliminated (issue 21).

A Moreau-Jean step with contact changes the speeds by impulses. With enabled constraints
(loops, convel and coordinate rows Gc, nr rows on nu speeds) the loop impulses mu act beside
the contact impulses lambda:

    u+ = u_f + M^-1 (Gc^T mu + J^T lambda),    Gc u+ = g (the loops' wanted rates).

Eliminating mu (Gamma = Gc M^-1 Gc^T, seed 000's Gamma in joint coordinates):

    u+ = u_c + P J^T lambda,   u_c = u_f + M^-1 Gc^T Gamma^+ (g - Gc u_f),
    P = M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1,

P the constrained compliance (the loops' motion's M^-1: Gc P = 0, P = P^T >= 0). The
contact problem is then the tree's with P for M^-1 (W = J P J^T, free speeds u_c), and any
contact impulses keep Gc u+ = g.

How, in the kinetic metric: with M^-1 = L L^T (Cholesky) and B = Gc L = U S V^T (SVD), the
loops' free directions are V's columns past B's rank r, so

    P = (L V0)(L V0)^T   (V0 = V[:, r:]),    u_c = u_f + L V_r S_r^-1 U_r^T (g - Gc u_f),

P positive semi-definite by construction; Gc P = B V0 (L V0)^T is zero to B's rounding but
along dropped rows, where it is of their (small) singular values.
Rank: singular values below RANK_TOL of the largest are dropped (Gamma = B B^T, so this is
tree-augmented dynamics' test of Gamma's pivots against 1e-12 of its largest diagonal).
Why not Gamma's LDL^T, as TA (the first version): M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1 is a
difference that rounding may leave indefinite, where (L V0)(L V0)^T is a Gram matrix. On
Cassie (36 rows of rank 28, rotor entries of M^-1 of 1e5) both drop the same 10 rows and
agree to 3e-9 of |P|, their most negative eigenvalues -4e-15 (LDL^T) and -4e-16 (this) of
the largest. Dense, O(nu^3 + nr nu^2) per step: the step's M^-1 and W are dense already.
"""
import numpy as np
from numba import njit

__all__ = ["loop_basis", "constrained_compliance", "project_speeds", "RANK_TOL"]

#: Singular values of Gc L below this fraction of the largest count as redundant rows.
RANK_TOL = 1e-6


@njit(cache=True)
def loop_basis(Minv, G, nr, LV, S, U):
    """The kinetic-metric SVD of the loop rows Gc = G[:nr, :nu] (module docstring): LV (nu, nu)
    = L V with M^-1 = L L^T (Minv (nu, nu)), S[:min(nr, nu)] the singular values of Gc L
    (descending), U[:nr, :nr] its left singular vectors. Returns the rank r (RANK_TOL), or -1
    when M^-1 is not positive definite."""
    nu = Minv.shape[0]
    for a in range(nu):  # (Cholesky needs exact symmetry; M^-1 is symmetric up to rounding)
        for b in range(a):
            s = 0.5 * (Minv[a, b] + Minv[b, a])
            Minv[a, b] = s
            Minv[b, a] = s
    for a in range(nu):
        if not Minv[a, a] > 0.0:
            return -1
    L = np.linalg.cholesky(Minv)
    B = np.ascontiguousarray(G[:nr, :nu]) @ L
    u, s, vt = np.linalg.svd(B)
    k = s.shape[0]
    r = 0
    for i in range(k):
        S[i] = s[i]
        if s[i] > RANK_TOL * s[0]:
            r += 1
    LV[:, :] = L @ vt.T
    U[:nr, :nr] = u
    return r


@njit(cache=True)
def constrained_compliance(LV, r, P):
    """P (nu, nu) = (L V0)(L V0)^T, the compliance of the loops' free motion, from
    ``loop_basis``'s LV and rank r."""
    nu = P.shape[0]
    for a in range(nu):
        for b in range(a + 1):
            s = 0.0
            for k in range(r, nu):
                s += LV[a, k] * LV[b, k]
            P[a, b] = s
            P[b, a] = s


@njit(cache=True)
def project_speeds(G, nr, LV, S, U, r, g, u, x):
    """u <- u + L V_r S_r^-1 U_r^T (g - Gc u) in place (Gc = G[:nr]): the speeds nearest u in
    the kinetic metric with Gc u = g on the rows of rank r (``loop_basis``). g (nr,), x
    scratch (nr,). Returns the largest |Gc u - g| before."""
    nu = u.shape[0]
    worst = 0.0
    for i in range(nr):
        s = g[i]
        for k in range(nu):
            s -= G[i, k] * u[k]
        x[i] = s
        worst = max(worst, abs(s))
    for j in range(r):
        s = 0.0
        for i in range(nr):
            s += U[i, j] * x[i]
        s /= S[j]
        for a in range(nu):
            u[a] += LV[a, j] * s
    return worst
