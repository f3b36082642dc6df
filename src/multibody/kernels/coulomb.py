"""Coulomb's law on the exact cone, as the contact solvers measure it: the projection onto the
friction cone and the natural-map residual (both solvers, ``contact_solver``'s sweeps and
``contact_newton``'s Newton method, stop on it, so their results mean the same)."""
import math

import numpy as np
from numba import njit

__all__ = ["project_cone", "project_impulses", "natural_residual", "natural_residual_coupled", "coupling"]


@njit(cache=True, inline="always")
def project_cone(mu, x0, x1, x2):
    """The Euclidean projection of (x0; x1, x2) onto the cone ||(t1, t2)|| <= mu n: (p0, p1, p2).
    With mu = 0 the cone is the ray t = 0, n >= 0 (frictionless): a point with t = 0 is in it
    only when n >= 0 (s <= mu x0 alone let a negative normal through, so a separating
    frictionless contact never reached a zero residual)."""
    s = math.sqrt(x1 * x1 + x2 * x2)
    if s <= mu * x0 and x0 >= 0.0:
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


#: Problems of at most this many contacts run over all of W (``coupling``).
DENSE_CONTACTS = 32


@njit(cache=True)
def coupling(W):
    """The contacts coupled in W (m, m), m = 3 nc, as compressed rows (ptr (nc + 1,), idx):
    contacts idx[ptr[c]:ptr[c + 1]], increasing, are those d whose block W[3c:3c+3, 3d:3d+3]
    has a nonzero entry (c itself included). Contacts couple only through the speeds of the
    links both touch, so a pile of free bodies has a handful per contact (50 boxes: 10 of 199);
    the sweeps and the residual then skip the zero blocks (``natural_residual_coupled``,
    ``contact_solver.gauss_seidel_contacts``), adding the same nonzero terms in the same order.
    Up to DENSE_CONTACTS contacts, empty arrays: run over every block (a robot's feet couple
    through its base anyway, and the list's making and reading cost more than the zeros)."""
    nc = W.shape[0] // 3
    if nc <= DENSE_CONTACTS:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    ptr = np.zeros(nc + 1, dtype=np.int64)
    idx = np.empty(nc * nc, dtype=np.int64)
    n = 0
    for c in range(nc):
        for d in range(nc):
            nonzero = False
            for i in range(3):
                for j in range(3):
                    if W[3 * c + i, 3 * d + j] != 0.0:
                        nonzero = True
            if nonzero:
                idx[n] = d
                n += 1
        ptr[c + 1] = n
    return ptr, idx[:n]


@njit(cache=True)
def natural_residual(W, vfree, b, mu, compliance, lam, v):
    """The natural-map residual of impulses lam: max over contacts of
    ||lam_i - proj_cone(lam_i - rho_i (w_i + mu ||w_t|| e_n))||, w = v_free + (W + C) lam + b,
    rho_i = 1 / (W + C)_i,nn, scaled by max_i (||lam_i|| + rho_i ||v_free_i + b_i||) (dimensionless;
    zero exactly at a solution). Also writes v = v_free + W lam (without compliance)."""
    m = vfree.shape[0]
    for i in range(m):  # (by columns: independent sums, each in the order of j; a zero impulse adds nothing)
        v[i] = vfree[i]
    for j in range(m):
        x = lam[j]
        if x != 0.0:
            for i in range(m):
                v[i] += W[i, j] * x
    return _cone_residual(W, vfree, b, mu, compliance, lam, v)


@njit(cache=True)
def natural_residual_coupled(W, vfree, b, mu, compliance, lam, v, ptr, idx):
    """``natural_residual`` over W's nonzero blocks only (``coupling``'s ptr, idx; empty:
    every block): the same sums, in the same order, without the zero terms."""
    if ptr.shape[0] == 0:
        return natural_residual(W, vfree, b, mu, compliance, lam, v)
    m = vfree.shape[0]
    for i in range(m):
        v[i] = vfree[i]
    for d in range(m // 3):
        for j in range(3 * d, 3 * d + 3):
            x = lam[j]
            if x != 0.0:
                for e in idx[ptr[d]:ptr[d + 1]]:  # (W is symmetric: the contacts coupled to d)
                    for i in range(3 * e, 3 * e + 3):
                        v[i] += W[i, j] * x
    return _cone_residual(W, vfree, b, mu, compliance, lam, v)


@njit(cache=True, inline="always")
def _cone_residual(W, vfree, b, mu, compliance, lam, v):
    """The residual of ``natural_residual`` from v = v_free + W lam."""
    m = vfree.shape[0]
    worst = 0.0
    scale = 0.0
    for c in range(m // 3):
        k = 3 * c
        rho = 1.0 / max(W[k, k] + compliance[k], 1e-300)
        w0 = v[k] + b[k] + compliance[k] * lam[k]
        w1 = v[k + 1] + b[k + 1] + compliance[k + 1] * lam[k + 1]
        w2 = v[k + 2] + b[k + 2] + compliance[k + 2] * lam[k + 2]
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
