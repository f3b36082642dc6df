"""The inverse mass matrix M^-1 by an articulated-body recursion, O(N nu), no factorisation.

With the articulated inertias of the ABA (articulated_inertia.py: U, D^-1, G) and
v = 0, g = 0, forward dynamics is linear in tau: udot = M^-1 tau. Running its
passes on the nu unit vectors at once gives M^-1 column block by column block
(Featherstone's and Carpentier's formulation of the ABA on matrices), here in world
coordinates so no per-link transform of the 6 x nu blocks is needed:

Inward (j = tips to root), with F_j (6 x nu) the articulated bias force of link j
per unit tau (zero outside its subtree's columns):
    M^-1[j, j] = D_j^-1,  M^-1[j, c] = -D_j^-1 S_j^T F_j[:, c]  for c in j's subtree,
    F_p += F_j + U_j M^-1[j, :]                               (the parent's share).
Outward (j = root to tips), with A_j (6 x nu) the acceleration of link j per unit tau:
    M^-1[j, c] -= G_j^T A_p[:, c],  A_j = A_p + S_j M^-1[j, :]  for c >= j's first speed.
Only the upper triangle (columns from j's first speed on) is formed; the lower one
is its mirror. Work and the scratch F/A blocks are O(N nu).
"""
from numba import njit

from .articulated_inertia import articulated_inertia_pass
from .common import check_state, split_data, split_model
from .joint_transform import place_links, world_placement
from .layout import DINV_ADR, G_ADR, NU, PARENT, S_COLS, SUBTREE_END, U_ADR, UOFF
from .spatial_inline import force_to_world, motion_to_world
from .status import OK, SINGULAR


@njit(cache=True, inline="always")
def world_columns(mi, mf, ws, z, j, W, r0):
    """W[r0:r0+6, c] = S_j column in world coordinates, W[r0+6:r0+12, c] = U_j's and
    W[r0+12:r0+18, c] = G_j's (force vectors), for each speed c of link j."""
    u0 = mi[j, UOFF]
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        m = motion_to_world(ws, j, mf[j, s], mf[j, s + 1], mf[j, s + 2], mf[j, s + 3], mf[j, s + 4], mf[j, s + 5])
        a = mi[j, U_ADR] + 6 * k
        fu = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
        a = mi[j, G_ADR] + 6 * k
        fg = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
        for r in range(6):
            W[r0 + r, u0 + k] = m[r]
            W[r0 + 6 + r, u0 + k] = fu[r]
            W[r0 + 12 + r, u0 + k] = fg[r]


@njit(cache=True)
def minv_core(mi, mf, ws, z, q, W, Minv):
    """Fill the full symmetric M^-1 (nu, nu); W is scratch of shape (6 n + 18, nu).

    Rows 6j..6j+5 of W hold F_j, then A_j; rows 6n.. hold the world S, U, G columns.
    Returns False when some D_j is singular.
    """
    n = mi.shape[0]
    nu = Minv.shape[0]
    place_links(mi, mf, ws, q)
    if not articulated_inertia_pass(mi, mf, ws, z):
        return False
    r0 = 6 * n
    for j in range(n):
        world_placement(mi, ws, j)
        world_columns(mi, mf, ws, z, j, W, r0)
        le = mi[j, SUBTREE_END] - 1
        for c in range(mi[j, UOFF], mi[le, UOFF] + mi[le, NU]):
            for r in range(6):
                W[6 * j + r, c] = 0.0
    for j in range(n - 1, -1, -1):
        u0 = mi[j, UOFF]
        nj = mi[j, NU]
        da = mi[j, DINV_ADR]
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        for a in range(nj):
            for b in range(nj):
                Minv[u0 + a, u0 + b] = z[da + nj * a + b]
            for c in range(ue, nu):
                Minv[u0 + a, c] = 0.0
        for c in range(u0 + nj, ue):
            for a in range(nj):
                s = 0.0
                for b in range(nj):
                    t = 0.0
                    for r in range(6):
                        t += W[r0 + r, u0 + b] * W[6 * j + r, c]
                    s += z[da + nj * a + b] * t
                Minv[u0 + a, c] = -s
        p = mi[j, PARENT]
        if p >= 0:
            for c in range(u0, ue):
                for r in range(6):
                    s = W[6 * j + r, c]
                    for a in range(nj):
                        s += W[r0 + 6 + r, u0 + a] * Minv[u0 + a, c]
                    W[6 * p + r, c] += s
    for j in range(n):
        u0 = mi[j, UOFF]
        nj = mi[j, NU]
        p = mi[j, PARENT]
        for c in range(u0, nu):
            if p >= 0:
                for a in range(nj):
                    s = 0.0
                    for r in range(6):
                        s += W[r0 + 12 + r, u0 + a] * W[6 * p + r, c]
                    Minv[u0 + a, c] -= s
            for r in range(6):
                s = W[6 * p + r, c] if p >= 0 else 0.0
                for a in range(nj):
                    s += W[r0 + r, u0 + a] * Minv[u0 + a, c]
                W[6 * j + r, c] = s
    for r in range(nu):
        for c in range(r):
            Minv[r, c] = Minv[c, r]
    return True


@njit(cache=True)
def inverse_mass_matrix(mbuf, dbuf, q, W, Minv):
    """Checked entry point: a status for q, or SINGULAR."""
    mi, mf, fr = split_model(mbuf)
    flags, ws, z = split_data(dbuf, mi.shape[0])
    st = check_state(mi, q, q, q, -1, -1)
    if st == OK and not minv_core(mi, mf, ws, z, q, W, Minv):
        return SINGULAR
    return st
