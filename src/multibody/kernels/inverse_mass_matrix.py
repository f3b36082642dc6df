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
from .common import check_state, link_rows, model_arrays, ragged
from .joint_transform import place_links, world_placement
from .layout import DINV_ADR, G_ADR, NU, PARENT, S_COLS, SUBTREE_END, U_ADR, UOFF
from .spatial_inline import force_to_world, motion_to_world
from .status import OK, SINGULAR


@njit(cache=True, inline="always")
def world_columns(mi, mf, ws, z, j, W, r0):
    """For each speed c of link j: W[c, r0:r0+6] = its S column in world coordinates,
    W[c, r0+6:r0+12] = U's and W[c, r0+12:r0+18] = G's (force vectors)."""
    u0 = mi[j, UOFF]
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        m = motion_to_world(ws, j, mf[j, s], mf[j, s + 1], mf[j, s + 2], mf[j, s + 3], mf[j, s + 4], mf[j, s + 5])
        a = mi[j, U_ADR] + 6 * k
        fu = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
        a = mi[j, G_ADR] + 6 * k
        fg = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
        for r in range(6):
            W[u0 + k, r0 + r] = m[r]
            W[u0 + k, r0 + 6 + r] = fu[r]
            W[u0 + k, r0 + 12 + r] = fg[r]


@njit(cache=True)
def minv_core(mi, mf, ws, z, q, W, Minv):
    """Fill the full symmetric M^-1 (nu, nu); W is scratch of shape (nu, 6 n + 18).

    W[c, 6j:6j+6] holds column c of F_j, then of A_j (six numbers side by side, so the
    sweeps over columns read memory in order); W[c, 6n:6n+18] the world S, U, G
    columns of speed c. Returns False when some D_j is singular.
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
                W[c, 6 * j + r] = 0.0
    # inward: own block, the subtree's columns, and the parent's share F_p
    for j in range(n - 1, -1, -1):
        u0 = mi[j, UOFF]
        nj = mi[j, NU]
        da = mi[j, DINV_ADR]
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        fj = 6 * j
        p = mi[j, PARENT]
        fp = 6 * p
        for a in range(nj):
            for b in range(nj):
                Minv[u0 + a, u0 + b] = z[da + nj * a + b]
            for c in range(ue, nu):
                Minv[u0 + a, c] = 0.0
        if nj == 1:
            dinv = z[da]
            s0, s1, s2, s3, s4, s5 = W[u0, r0], W[u0, r0 + 1], W[u0, r0 + 2], W[u0, r0 + 3], W[u0, r0 + 4], W[u0, r0 + 5]
            for c in range(u0 + 1, ue):
                Minv[u0, c] = -dinv * (s0 * W[c, fj] + s1 * W[c, fj + 1] + s2 * W[c, fj + 2]
                                       + s3 * W[c, fj + 3] + s4 * W[c, fj + 4] + s5 * W[c, fj + 5])
            if p >= 0:
                for c in range(u0, ue):
                    x = Minv[u0, c]
                    for r in range(6):
                        W[c, fp + r] += W[c, fj + r] + W[u0, r0 + 6 + r] * x
            continue
        for c in range(u0 + nj, ue):
            for a in range(nj):
                s = 0.0
                for b in range(nj):
                    t = 0.0
                    for r in range(6):
                        t += W[u0 + b, r0 + r] * W[c, fj + r]
                    s += z[da + nj * a + b] * t
                Minv[u0 + a, c] = -s
        if p >= 0:
            for c in range(u0, ue):
                for r in range(6):
                    s = W[c, fj + r]
                    for a in range(nj):
                        s += W[u0 + a, r0 + 6 + r] * Minv[u0 + a, c]
                    W[c, fp + r] += s
    # outward: subtract G^T A_p, then A_j = A_p + S M^-1[j, :], over columns from u0 on
    for j in range(n):
        u0 = mi[j, UOFF]
        nj = mi[j, NU]
        p = mi[j, PARENT]
        fj = 6 * j
        fp = 6 * p
        if nj == 1:
            g0, g1, g2, g3, g4, g5 = (W[u0, r0 + 12], W[u0, r0 + 13], W[u0, r0 + 14], W[u0, r0 + 15],
                                      W[u0, r0 + 16], W[u0, r0 + 17])
            s0, s1, s2, s3, s4, s5 = W[u0, r0], W[u0, r0 + 1], W[u0, r0 + 2], W[u0, r0 + 3], W[u0, r0 + 4], W[u0, r0 + 5]
            if p >= 0:
                for c in range(u0, nu):
                    x = Minv[u0, c] - (g0 * W[c, fp] + g1 * W[c, fp + 1] + g2 * W[c, fp + 2]
                                       + g3 * W[c, fp + 3] + g4 * W[c, fp + 4] + g5 * W[c, fp + 5])
                    Minv[u0, c] = x
                    W[c, fj] = W[c, fp] + s0 * x
                    W[c, fj + 1] = W[c, fp + 1] + s1 * x
                    W[c, fj + 2] = W[c, fp + 2] + s2 * x
                    W[c, fj + 3] = W[c, fp + 3] + s3 * x
                    W[c, fj + 4] = W[c, fp + 4] + s4 * x
                    W[c, fj + 5] = W[c, fp + 5] + s5 * x
            else:
                for c in range(u0, nu):
                    x = Minv[u0, c]
                    W[c, fj] = s0 * x
                    W[c, fj + 1] = s1 * x
                    W[c, fj + 2] = s2 * x
                    W[c, fj + 3] = s3 * x
                    W[c, fj + 4] = s4 * x
                    W[c, fj + 5] = s5 * x
            continue
        for c in range(u0, nu):
            if p >= 0:
                for a in range(nj):
                    s = 0.0
                    for r in range(6):
                        s += W[u0 + a, r0 + 12 + r] * W[c, fp + r]
                    Minv[u0 + a, c] -= s
            for r in range(6):
                s = W[c, fp + r] if p >= 0 else 0.0
                for a in range(nj):
                    s += W[u0 + a, r0 + r] * Minv[u0 + a, c]
                W[c, fj + r] = s
    for r in range(nu):
        for c in range(r):
            Minv[r, c] = Minv[c, r]
    return True


@njit(cache=True)
def inverse_mass_matrix(mbuf, dbuf, q, W, Minv):
    """Checked entry point: a status for q, or SINGULAR."""
    mi, mf = model_arrays(mbuf)
    n = mi.shape[0]
    ws = link_rows(dbuf, n)
    z = ragged(dbuf, n)
    st = check_state(mi, q, q, q, -1, -1)
    if st == OK and not minv_core(mi, mf, ws, z, q, W, Minv):
        return SINGULAR
    return st
