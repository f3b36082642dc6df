"""Coulomb's law on the exact cone, as the contact solvers measure it: the projection onto the
friction cone and the natural-map residual (both solvers, ``contact_solver``'s sweeps and
``contact_newton``'s Newton method, stop on it, so their results mean the same)."""
import math

from numba import njit

__all__ = ["project_cone", "project_impulses", "natural_residual"]


@njit(cache=True, inline="always")
def project_cone(mu, x0, x1, x2):
    """The Euclidean projection of (x0; x1, x2) onto the cone ||(t1, t2)|| <= mu n: (p0, p1, p2)."""
    s = math.sqrt(x1 * x1 + x2 * x2)
    if s <= mu * x0:
        return x0, x1, x2
    if mu * s <= -x0:  # in the polar cone: projects onto the apex
        return 0.0, 0.0, 0.0
    pn = (x0 + mu * s) / (1.0 + mu * mu)
    k = mu * pn / s
    return pn, k * x1, k * x2


@njit(cache=True)
def project_impulses(mu, lam):
    """Each contact's impulse lam[3c:3c+3] onto its cone (friction mu[c]), in place."""
    for c in range(lam.shape[0] // 3):
        k = 3 * c
        lam[k], lam[k + 1], lam[k + 2] = project_cone(mu[c], lam[k], lam[k + 1], lam[k + 2])


@njit(cache=True)
def natural_residual(W, vfree, b, mu, compliance, lam, v):
    """The natural-map residual of impulses lam: max over contacts of
    ||lam_i - proj_cone(lam_i - rho_i (w_i + mu ||w_t|| e_n))||, w = v_free + (W + C) lam + b,
    rho_i = 1 / W_i,nn, scaled by max_i (||lam_i|| + rho_i ||v_free_i + b_i||) (dimensionless;
    zero exactly at a solution). Also writes v = v_free + W lam (without compliance)."""
    m = vfree.shape[0]
    for i in range(m):  # (by columns: independent sums, each in the order of j; a zero impulse adds nothing)
        v[i] = vfree[i]
    for j in range(m):
        x = lam[j]
        if x != 0.0:
            for i in range(m):
                v[i] += W[i, j] * x
    worst = 0.0
    scale = 0.0
    for c in range(m // 3):
        k = 3 * c
        rho = 1.0 / max(W[k, k] + compliance[c], 1e-300)
        w0 = v[k] + b[k] + compliance[c] * lam[k]
        w1 = v[k + 1] + b[k + 1] + compliance[c] * lam[k + 1]
        w2 = v[k + 2] + b[k + 2] + compliance[c] * lam[k + 2]
        wt = math.sqrt(w1 * w1 + w2 * w2)
        p0, p1, p2 = project_cone(mu[c], lam[k] - rho * (w0 + mu[c] * wt), lam[k + 1] - rho * w1,
                                  lam[k + 2] - rho * w2)
        e = math.sqrt((lam[k] - p0) ** 2 + (lam[k + 1] - p1) ** 2 + (lam[k + 2] - p2) ** 2)
        worst = max(worst, e)
        f0 = vfree[k] + b[k]
        f1 = vfree[k + 1] + b[k + 1]
        f2 = vfree[k + 2] + b[k + 2]
        size = math.sqrt(lam[k] ** 2 + lam[k + 1] ** 2 + lam[k + 2] ** 2) + rho * math.sqrt(f0 * f0 + f1 * f1 + f2 * f2)
        scale = max(scale, size)
    if worst == 0.0:
        return 0.0
    return worst / max(scale, 1e-300)
