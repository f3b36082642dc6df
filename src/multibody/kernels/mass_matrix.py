"""Composite-rigid-body mass matrix (CRBA).

Inward pass: composite inertias Ic_p += X_j^T Ic_j X_j.
Then for each link j: F = Ic_j S_j, M_jj = S_j^T F, and walking up the
ancestors i of j, F = X_i^T F, M_ij = S_i^T F (and M_ji = M_ij^T).
Work is O(N d) for tree depth d; M is dense (nu x nu).
"""
from numba import njit

from .common import check_state
from .joint_transform import place_links
from .layout import INERTIA, NU, PARENT, S_COLS, UOFF, W_IA, W_U
from .spatial_inline import force_to_parent, inertia_to_parent_add


@njit(cache=True)
def crba_core(mi, mf, ws, q, M):
    """Fill the full symmetric mass matrix M (nu, nu); entries of unrelated branches are 0."""
    n = mi.shape[0]
    place_links(mi, mf, ws, q)
    for r in range(M.shape[0]):
        for c in range(M.shape[1]):
            M[r, c] = 0.0
    for j in range(n):
        for k in range(36):
            ws[j, W_IA + k] = mf[j, INERTIA + k]
    for j in range(n - 1, -1, -1):
        p = mi[j, PARENT]
        if p >= 0:
            inertia_to_parent_add(ws, j, ws, j, W_IA, ws, p, W_IA)
    for j in range(n):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        for k in range(nj):  # F = Ic_j S_j, column k at W_U + 6k
            for r in range(6):
                s = 0.0
                for c in range(6):
                    s += ws[j, W_IA + 6 * r + c] * mf[j, S_COLS + 6 * k + c]
                ws[j, W_U + 6 * k + r] = s
        for a in range(nj):
            for k in range(nj):
                s = 0.0
                for r in range(6):
                    s += mf[j, S_COLS + 6 * a + r] * ws[j, W_U + 6 * k + r]
                M[uj + a, uj + k] = s
        i = j
        p = mi[i, PARENT]
        while p >= 0:
            for k in range(nj):
                f = force_to_parent(ws, i, ws, j, W_U + 6 * k)
                for r in range(6):
                    ws[j, W_U + 6 * k + r] = f[r]
            up = mi[p, UOFF]
            for a in range(mi[p, NU]):
                for k in range(nj):
                    s = 0.0
                    for r in range(6):
                        s += mf[p, S_COLS + 6 * a + r] * ws[j, W_U + 6 * k + r]
                    M[up + a, uj + k] = s
                    M[uj + k, up + a] = s
            i = p
            p = mi[i, PARENT]


@njit(cache=True)
def mass_matrix(mi, mf, ws, q, M):
    """Checked entry point: 0 ok, else a ``check_state`` status for q."""
    st = check_state(mi, q, q, q, -1, -1)
    if st == 0:
        crba_core(mi, mf, ws, q, M)
    return st
