"""Composite-rigid-body mass matrix (CRBA).

Inward pass: composite inertias Ic_p += X_j^T Ic_j X_j.
Then for each link j: F = Ic_j S_j, M_jj = S_j^T F, and walking up the
ancestors i of j, F = X_i^T F, M_ij = S_i^T F (and M_ji = M_ij^T).
Work is O(N d) for tree depth d; M is dense (nu x nu).
"""
from numba import njit

from .common import first_nonfinite
from .joint_transform import link_placement
from .layout import INERTIA, NU, PARENT, S_COLS, UOFF, W_IA, W_P, W_R, W_U
from .spatial_inline import inertia_to_parent_add


@njit(cache=True, inline="always")
def _force_to_parent_inplace(R, p, f, off):
    """f[off:off+6] = X^T f[off:off+6] (child force to parent coordinates)."""
    n0 = R[0] * f[off] + R[1] * f[off + 1] + R[2] * f[off + 2]
    n1 = R[3] * f[off] + R[4] * f[off + 1] + R[5] * f[off + 2]
    n2 = R[6] * f[off] + R[7] * f[off + 1] + R[8] * f[off + 2]
    f0 = R[0] * f[off + 3] + R[1] * f[off + 4] + R[2] * f[off + 5]
    f1 = R[3] * f[off + 3] + R[4] * f[off + 4] + R[5] * f[off + 5]
    f2 = R[6] * f[off + 3] + R[7] * f[off + 4] + R[8] * f[off + 5]
    f[off] = n0 + p[1] * f2 - p[2] * f1
    f[off + 1] = n1 + p[2] * f0 - p[0] * f2
    f[off + 2] = n2 + p[0] * f1 - p[1] * f0
    f[off + 3] = f0
    f[off + 4] = f1
    f[off + 5] = f2


@njit(cache=True)
def crba_core(mi, mf, ws, q, M):
    """Fill the full symmetric mass matrix M (nu, nu)."""
    n = mi.shape[0]
    for j in range(n):
        link_placement(mi, mf, ws, q, j)
        for k in range(36):
            ws[j, W_IA + k] = mf[j, INERTIA + k]
    for j in range(n - 1, -1, -1):
        p = mi[j, PARENT]
        if p >= 0:
            inertia_to_parent_add(ws[j, W_R:W_R + 9], ws[j, W_P:W_P + 3], ws[j, W_IA:W_IA + 36],
                                  ws[p, W_IA:W_IA + 36])
    for j in range(n):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        F = ws[j, W_U:W_U + 36]
        for k in range(nj):  # F = Ic_j S_j, column k at 6k
            for r in range(6):
                s = 0.0
                for c in range(6):
                    s += ws[j, W_IA + 6 * r + c] * mf[j, S_COLS + 6 * k + c]
                F[6 * k + r] = s
        for a in range(nj):
            for k in range(nj):
                s = 0.0
                for r in range(6):
                    s += mf[j, S_COLS + 6 * a + r] * F[6 * k + r]
                M[uj + a, uj + k] = s
        i = j
        p = mi[i, PARENT]
        while p >= 0:
            R = ws[i, W_R:W_R + 9]
            P = ws[i, W_P:W_P + 3]
            for k in range(nj):
                _force_to_parent_inplace(R, P, F, 6 * k)
            npar = mi[p, NU]
            up = mi[p, UOFF]
            for a in range(npar):
                for k in range(nj):
                    s = 0.0
                    for r in range(6):
                        s += mf[p, S_COLS + 6 * a + r] * F[6 * k + r]
                    M[up + a, uj + k] = s
                    M[uj + k, up + a] = s
            i = p
            p = mi[i, PARENT]


@njit(cache=True)
def mass_matrix(mi, mf, ws, q, M):
    """Checked entry point: returns 0, or 1 when q holds a non-finite value."""
    if first_nonfinite(q) >= 0:
        return 1
    crba_core(mi, mf, ws, q, M)
    return 0
