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
from .common import check_state, data_start, link_rows, model_arrays, ragged
from .joint_transform import place_links, world_placement
from .layout import DINV_ADR, G_ADR, NU, PARENT, S_COLS, SUBTREE_END, U_ADR, UOFF
from .spatial_inline import force_to_world, motion_to_world
from .status import OK, SINGULAR


@njit(cache=True, inline="always")
def world_columns(mi, mf, ws, z, j, W, r0):
    """For each speed c of link j, in world coordinates: its S column (motion vector) at
    W[r0, 6c:6c+6], U's at W[r0 + 1, 6c:] and G's at W[r0 + 2, 6c:] (force vectors)."""
    u0 = mi[j, UOFF]
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        m = motion_to_world(ws, j, mf[j, s], mf[j, s + 1], mf[j, s + 2], mf[j, s + 3], mf[j, s + 4], mf[j, s + 5])
        a = mi[j, U_ADR] + 6 * k
        fu = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
        a = mi[j, G_ADR] + 6 * k
        fg = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
        o = 6 * (u0 + k)
        for r in range(6):
            W[r0, o + r] = m[r]
            W[r0 + 1, o + r] = fu[r]
            W[r0 + 2, o + r] = fg[r]


@njit(cache=True, inline="always")
def _load6(W, row, o):
    return W[row, o], W[row, o + 1], W[row, o + 2], W[row, o + 3], W[row, o + 4], W[row, o + 5]


@njit(cache=True, inline="always")
def _dot6(t, W, row, o):
    return (t[0] * W[row, o] + t[1] * W[row, o + 1] + t[2] * W[row, o + 2]
            + t[3] * W[row, o + 3] + t[4] * W[row, o + 4] + t[5] * W[row, o + 5])


@njit(cache=True)
def minv_core(mi, mf, ws, z, q, W, Minv):
    """Fill the full symmetric M^-1 (nu, nu); W is scratch of shape (n + 3, 6 nu).

    Row j of W holds F_j (written by j's children), then A_j: column c of it at
    W[j, 6c:6c+6], so a sweep over columns reads and writes one row in order. Rows
    n, n+1, n+2 hold the world S, U, G columns. Nothing needs zeroing: every entry is
    written before it is read. Returns False when some D_j is singular.
    """
    n = mi.shape[0]
    nu = Minv.shape[0]
    place_links(mi, mf, ws, q)
    if not articulated_inertia_pass(mi, mf, ws, z):
        return False
    S = n
    U = n + 1
    G = n + 2
    for j in range(n):
        world_placement(mi, ws, j)
        world_columns(mi, mf, ws, z, j, W, S)
    # inward: own block and the subtree's columns; the parent's F over j's subtree is
    # F_j + U_j M^-1[j, :] (sibling subtrees are disjoint: assigned, never summed)
    for j in range(n - 1, -1, -1):
        u0 = mi[j, UOFF]
        nj = mi[j, NU]
        da = mi[j, DINV_ADR]
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        p = mi[j, PARENT]
        for a in range(nj):
            for b in range(nj):
                Minv[u0 + a, u0 + b] = z[da + nj * a + b]
        if nj == 1:  # the common case, with S and U in registers
            dinv = z[da]
            sj = _load6(W, S, 6 * u0)
            for c in range(u0 + 1, ue):
                Minv[u0, c] = -dinv * _dot6(sj, W, j, 6 * c)
            if p >= 0:
                uj = _load6(W, U, 6 * u0)
                x = Minv[u0, u0]
                for r in range(6):
                    W[p, 6 * u0 + r] = uj[r] * x
                for c in range(u0 + 1, ue):
                    o = 6 * c
                    x = Minv[u0, c]
                    for r in range(6):
                        W[p, o + r] = W[j, o + r] + uj[r] * x
            continue
        for c in range(u0 + nj, ue):
            o = 6 * c
            for a in range(nj):
                x = 0.0
                for b in range(nj):
                    t = 0.0
                    for r in range(6):
                        t += W[S, 6 * (u0 + b) + r] * W[j, o + r]
                    x += z[da + nj * a + b] * t
                Minv[u0 + a, c] = -x
        if p >= 0:
            for c in range(u0, ue):
                o = 6 * c
                for r in range(6):
                    x = W[j, o + r] if c >= u0 + nj else 0.0
                    for a in range(nj):
                        x += W[U, 6 * (u0 + a) + r] * Minv[u0 + a, c]
                    W[p, o + r] = x
    # outward: M^-1[j, c] -= G^T A_p[:, c] (M^-1[j, c] is 0 before for c past j's
    # subtree), then A_j = A_p + S M^-1[j, :], over the columns from u0 on; leaves keep no A
    for j in range(n):
        u0 = mi[j, UOFF]
        nj = mi[j, NU]
        p = mi[j, PARENT]
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        leaf = mi[j, SUBTREE_END] == j + 1
        if nj == 1:
            gj = _load6(W, G, 6 * u0)
            sj = _load6(W, S, 6 * u0)
            for c in range(u0, nu):
                o = 6 * c
                x = Minv[u0, c] if c < ue else 0.0
                if p >= 0:
                    x -= _dot6(gj, W, p, o)
                Minv[u0, c] = x
                if not leaf:
                    if p >= 0:
                        for r in range(6):
                            W[j, o + r] = W[p, o + r] + sj[r] * x
                    else:
                        for r in range(6):
                            W[j, o + r] = sj[r] * x
            continue
        for c in range(u0, nu):
            o = 6 * c
            for a in range(nj):
                x = Minv[u0 + a, c] if c < ue else 0.0
                if p >= 0:
                    g = 6 * (u0 + a)
                    for r in range(6):
                        x -= W[G, g + r] * W[p, o + r]
                Minv[u0 + a, c] = x
            if not leaf:
                for r in range(6):
                    x = W[p, o + r] if p >= 0 else 0.0
                    for a in range(nj):
                        x += W[S, 6 * (u0 + a) + r] * Minv[u0 + a, c]
                    W[j, o + r] = x
    for r in range(nu):
        for c in range(r):
            Minv[r, c] = Minv[c, r]
    return True


@njit(cache=True)
def inverse_mass_matrix(dbuf, q, W, Minv):
    """Checked entry point: a status for q, or SINGULAR."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    ws = link_rows(dbuf, d0, n)
    z = ragged(dbuf, d0, n)
    st = check_state(mi, q, q, q, -1, -1)
    if st == OK and not minv_core(mi, mf, ws, z, q, W, Minv):
        return SINGULAR
    return st
