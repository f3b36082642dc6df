"""Gc, the innovations and Gamma = Gc M^-1 Gc^T on each row's support: O(rows d + rows^2 d).

The articulated-body inward pass is the map eps = (I - L) tau of the innovations
factorisation M^-1 = (I - L)^T D^-1 (I - L) (Jain, Rodriguez): eps_j = tau_j - S_j^T f_j with
f_p += X_j^T (f_j + G_j eps_j). A constraint row's generalized force Gc_r^T = J_a^T w_a +
J_b^T w_b (its wrenches on its two frames) is non-zero only on the links that support them,
so its innovations live on those links and their ancestors (its *support*, at most twice
the tree depth d), and
    Gamma_rs = sum over links j of eps_j^r . D_j^-1 eps_j^s,
a sum over the links both supports share. No column of M^-1 is formed.

Everything here is in tree coordinates (world axes, about the root origin of each link's
tree, layout.py): the motion columns S_j (W_SW), the ABA's G_j = U_j D_j^-1
(``tree_factors``, into W_GT) and the wrenches. About the world origin these grow with the
tree's distance from it and eps cancels them (TA on a four-bar 1.5e11 m out was off by 5e-4);
a chain of ancestors never leaves its tree, and a row on two trees runs up each chain in
its own. Then the force a row passes inward needs no transform: F starts as the wrench
on its chain's frame, eps_j = tau_j + S_j . F, F -= G_j eps_j (tau: a coordinate row's
own entries). A support is two chains of ancestors that merge, so F is carried as two
running sums, one per chain, added where the chains meet. Gc's rows (S_j . w on the
chains, ``group_jacobian``) are not needed for the dynamics.
"""
from numba import njit

from .constraint_work import NO_NRT, R_WA, R_WB, WC_GEND, WC_LA, WC_LB, WC_NA, WC_NB, WC_NDOF, WC_NSUP, WC_ROW, WC_TEND
from .layout import (
    CR_FA, CR_FB, CR_TYPE, CR_UA, CR_UB, DINV_ADR, FR_LINK, G_ADR, NU, PARENT, SUBTREE_END, UOFF, W_PPLUS, W_PR, W_SW,
)
from .spatial_inline import force_to_world

COORD = 5
W_GT = W_PPLUS  # 36: G_j's columns in tree coordinates (force vectors), written after the ABA (P+ is dead then)


@njit(**NO_NRT)
def tree_factors(mi, ws, z):
    """ws[j, W_GT + 6k:] = column k of G_j = U_j D_j^-1 in tree coordinates, for every link
    with a parent (a root passes nothing on). Needs the placements (W_RW, W_PR)."""
    for j in range(mi.shape[0]):
        if mi[j, PARENT] < 0:
            continue
        ga = mi[j, G_ADR]
        for k in range(mi[j, NU]):
            a = ga + 6 * k
            f = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5], W_PR)
            for r in range(6):
                ws[j, W_GT + 6 * k + r] = f[r]


@njit(cache=True, inline="always")
def _link_of_speed(mi, k):
    """The link that owns speed k."""
    for j in range(mi.shape[0]):
        if mi[j, UOFF] <= k < mi[j, UOFF] + mi[j, NU]:
            return j
    return -1


@njit(cache=True, inline="always")
def _group_end(cr, i):
    """One past the last row of the constraint row i begins (rows on the same two frames;
    a coordinate row alone)."""
    nc = cr.shape[0]
    if int(cr[i, CR_TYPE]) == COORD:
        return i + 1
    e = i + 1
    while (e < nc and int(cr[e, CR_TYPE]) != COORD and cr[e, CR_FA] == cr[i, CR_FA]
           and cr[e, CR_FB] == cr[i, CR_FB]):
        e += 1
    return e


@njit(cache=True, inline="always")
def _supports(mi, j, a):
    """Whether link j is link a or one of its ancestors (a = -1, the world: no link is)."""
    return j <= a < mi[j, SUBTREE_END]


@njit(**NO_NRT)
def supports(mi, fr, cr, W, c0, l0):
    """Each row's support, kept in W (computed where W[i, c0 + WC_NSUP] is 0): the ancestor
    chains (links included) of its two frames' links (of its two hinges' links for a
    coordinate row) at W[i, l0:], the links of a's chain alone, of b's alone, then of both,
    each descending (children first); the speeds of all, root first, at W[i, l0 + 2n:]; the
    two links and the end of the row's group."""
    n = mi.shape[0]
    for i in range(cr.shape[0]):
        if W[i, c0 + WC_NSUP] != 0.0:
            continue
        if int(cr[i, CR_TYPE]) == COORD:
            a = _link_of_speed(mi, int(cr[i, CR_UA]))
            b = _link_of_speed(mi, int(cr[i, CR_UB]))
        else:
            a = int(fr[int(cr[i, CR_FA]), FR_LINK])
            b = int(fr[int(cr[i, CR_FB]), FR_LINK])
        W[i, c0 + WC_LA] = a
        W[i, c0 + WC_LB] = b
        W[i, c0 + WC_GEND] = _group_end(cr, i)
        cnt = 0
        j = a
        while j >= 0 and not _supports(mi, j, b):
            W[i, l0 + cnt] = j
            cnt += 1
            j = mi[j, PARENT]
        W[i, c0 + WC_NA] = cnt
        j = b
        while j >= 0 and not _supports(mi, j, a):
            W[i, l0 + cnt] = j
            cnt += 1
            j = mi[j, PARENT]
        W[i, c0 + WC_NB] = cnt - W[i, c0 + WC_NA]
        while j >= 0:  # the common ancestors (j: their first, or -1)
            W[i, l0 + cnt] = j
            cnt += 1
            j = mi[j, PARENT]
        nd = 0
        for j in range(n):  # speeds root first: by link index
            for t in range(cnt):
                if int(W[i, l0 + t]) == j:
                    for k in range(mi[j, UOFF], mi[j, UOFF] + mi[j, NU]):
                        W[i, l0 + 2 * n + nd] = k
                        nd += 1
        W[i, c0 + WC_NSUP] = cnt
        W[i, c0 + WC_NDOF] = nd


@njit(cache=True, inline="always")
def _sdot(s, W, i, w):
    """Motion column s (6-tuple) . wrench W[i, w:w+6]."""
    return (W[i, w] * s[0] + W[i, w + 1] * s[1] + W[i, w + 2] * s[2]
            + W[i, w + 3] * s[3] + W[i, w + 4] * s[4] + W[i, w + 5] * s[5])


@njit(cache=True, inline="always")
def _load6(ws, j, o):
    return ws[j, o], ws[j, o + 1], ws[j, o + 2], ws[j, o + 3], ws[j, o + 4], ws[j, o + 5]


@njit(**NO_NRT)
def group_jacobian(mi, ws, W, i0, i1, c0, l0):
    """Gc's entries W[i, :nu] of rows i0 .. i1 - 1 (one constraint's, not a coordinate row:
    its entries are constraint_rows_core's) from their wrenches, S_j . (w_a [j supports a] +
    w_b [j supports b]) on the support. Entries off the support are never written: they
    stay 0. Needs W_SW."""
    na = int(W[i0, c0 + WC_NA])
    nab = na + int(W[i0, c0 + WC_NB])
    wa = c0 + WC_ROW + R_WA
    wb = c0 + WC_ROW + R_WB
    for t in range(int(W[i0, c0 + WC_NSUP])):
        j = int(W[i0, l0 + t])
        uj = mi[j, UOFF]
        for k in range(mi[j, NU]):
            s = _load6(ws, j, W_SW + 6 * k)
            for i in range(i0, i1):
                g = 0.0
                if t < na or t >= nab:
                    g += _sdot(s, W, i, wa)
                if t >= na:
                    g += _sdot(s, W, i, wb)
                W[i, uj + k] = g


@njit(cache=True, inline="always")
def _dot6(s, f):
    return ((s[0] * f[0] + s[1] * f[1]) + (s[2] * f[2] + s[3] * f[3])) + (s[4] * f[4] + s[5] * f[5])


@njit(cache=True, inline="always")
def _sub6(f, g, e):
    return (f[0] - g[0] * e, f[1] - g[1] * e, f[2] - g[2] * e, f[3] - g[3] * e, f[4] - g[4] * e, f[5] - g[5] * e)


@njit(**NO_NRT)
def _general_step(mi, ws, z, W, i, j, nu, coord, f):
    """``_link_step`` for a link with nj != 1 speeds (out of line: a chain of pins never
    takes it)."""
    nj = mi[j, NU]
    uj = mi[j, UOFF]
    e0 = nu + uj
    da = mi[j, DINV_ADR]
    if nj == 6 and not coord and mi[j, PARENT] < 0:  # a free root: unrolled
        e = (_dot6(_load6(ws, j, W_SW), f), _dot6(_load6(ws, j, W_SW + 6), f),
             _dot6(_load6(ws, j, W_SW + 12), f), _dot6(_load6(ws, j, W_SW + 18), f),
             _dot6(_load6(ws, j, W_SW + 24), f), _dot6(_load6(ws, j, W_SW + 30), f))
        for a in range(6):
            W[i, e0 + a] = e[a]
            o = da + 6 * a  # row a of D^-1
            W[i, nu + e0 + a] = _dot6((z[o], z[o + 1], z[o + 2], z[o + 3], z[o + 4], z[o + 5]), e)
        return f
    for k in range(nj):
        e = _dot6(_load6(ws, j, W_SW + 6 * k), f)
        if coord:
            e += W[i, uj + k]
        W[i, e0 + k] = e
    for a in range(nj):
        y = 0.0
        for b in range(nj):
            y += z[da + nj * a + b] * W[i, e0 + b]
        W[i, nu + e0 + a] = y
    if mi[j, PARENT] >= 0:
        for k in range(nj):
            f = _sub6(f, _load6(ws, j, W_GT + 6 * k), W[i, e0 + k])
    return f


@njit(cache=True, inline="always")
def _link_step(mi, ws, z, W, i, j, nu, coord, f):
    """One link j of row i's inward pass (the force f, tree coordinates, passed from below):
    eps_j = tau_j + S_j . f into W[i, nu + u_j:], D_j^-1 eps_j into W[i, 2 nu + u_j:];
    returns f - G_j eps_j, what the parent gets (a root passes nothing on)."""
    if mi[j, NU] != 1:
        return _general_step(mi, ws, z, W, i, j, nu, coord, f)
    uj = mi[j, UOFF]
    e = _dot6(_load6(ws, j, W_SW), f)
    if coord:
        e += W[i, uj]
    W[i, nu + uj] = e
    W[i, 2 * nu + uj] = z[mi[j, DINV_ADR]] * e
    if mi[j, PARENT] >= 0:
        f = _sub6(f, _load6(ws, j, W_GT), e)
    return f


@njit(**NO_NRT)
def row_innovations(mi, ws, z, W, i, nu, c0, l0, coord):
    """Row i's inward pass on its support, in tree coordinates: eps^i into W[i, nu:] and
    D^-1 eps^i into W[i, 2 nu:] (eps stays 0 off the support). The force starts as the wrench
    on each frame, runs up each chain alone, then, summed, up the common ancestors. A
    coordinate row's tau is its row of Gc (W[i, :nu]), its forces start at 0. Needs W_SW
    and W_GT."""
    na = int(W[i, c0 + WC_NA])
    nab = na + int(W[i, c0 + WC_NB])
    zero = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    fa = zero if coord else _load6(W, i, c0 + WC_ROW + R_WA)
    for t in range(na):
        fa = _link_step(mi, ws, z, W, i, int(W[i, l0 + t]), nu, coord, fa)
    fb = zero if coord else _load6(W, i, c0 + WC_ROW + R_WB)
    for t in range(na, nab):
        fb = _link_step(mi, ws, z, W, i, int(W[i, l0 + t]), nu, coord, fb)
    f = (fa[0] + fb[0], fa[1] + fb[1], fa[2] + fb[2], fa[3] + fb[3], fa[4] + fb[4], fa[5] + fb[5])
    for t in range(nab, int(W[i, c0 + WC_NSUP])):
        f = _link_step(mi, ws, z, W, i, int(W[i, l0 + t]), nu, coord, f)


@njit(**NO_NRT)
def support_ends(mi, W, i0, i1, c0, l0):
    """W[s, c0 + WC_TEND] for the rows s < i1: how many speeds of the support of rows i0 ..
    i1 - 1 (root first, at W[i0, l0 + 2n:]) the support of row s's constraint reaches (its
    eps^s is zero past them), found once per constraint h: the last of our links that h's
    support holds."""
    h0 = 0
    while h0 < i1:
        h1 = int(W[h0, c0 + WC_GEND])
        la = int(W[h0, c0 + WC_LA])
        lb = int(W[h0, c0 + WC_LB])
        top = -1  # the last of our links (by index) that h's support holds
        for t in range(int(W[i0, c0 + WC_NSUP])):
            j = int(W[i0, l0 + t])
            if j > top and (_supports(mi, j, la) or _supports(mi, j, lb)):
                top = j
        te = 0
        for t in range(int(W[i0, c0 + WC_NSUP])):
            j = int(W[i0, l0 + t])
            if j <= top:
                te += mi[j, NU]
        for s in range(h0, h1):
            W[s, c0 + WC_TEND] = te
        h0 = h1


@njit(**NO_NRT)
def gamma_rows(mi, W, i0, i1, nu, c0, l0):
    """W[i, 3 nu + s] = Gamma_is for s <= i, rows i0 .. i1 - 1 of one constraint: the sum over
    the speeds k of their support (root first, at W[i0, l0 + 2n:]) of (D^-1 eps^i)_k eps^s_k,
    four rows s at a time. eps^s is zero off its own support, whose last speed in that list
    (WC_TEND, found per constraint of the rows s) ends the sum."""
    d0 = l0 + 2 * mi.shape[0]
    support_ends(mi, W, i0, i1, c0, l0)
    g0 = 3 * nu
    y0 = 2 * nu
    i = i0
    while i + 1 < i1:  # two rows i, i + 1 (the same support) against four rows s
        s = 0
        while s + 4 <= i + 2:  # (Gamma[i, i + 1], above the diagonal, is written too: unused)
            te = int(max(max(W[s, c0 + WC_TEND], W[s + 1, c0 + WC_TEND]),
                         max(W[s + 2, c0 + WC_TEND], W[s + 3, c0 + WC_TEND])))
            a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
            for t in range(te):
                k = int(W[i0, d0 + t])
                y = W[i, y0 + k]
                x = W[i + 1, y0 + k]
                e0, e1, e2, e3 = W[s, nu + k], W[s + 1, nu + k], W[s + 2, nu + k], W[s + 3, nu + k]
                a0 += y * e0
                a1 += y * e1
                a2 += y * e2
                a3 += y * e3
                b0 += x * e0
                b1 += x * e1
                b2 += x * e2
                b3 += x * e3
            W[i, g0 + s] = a0
            W[i, g0 + s + 1] = a1
            W[i, g0 + s + 2] = a2
            W[i, g0 + s + 3] = a3
            W[i + 1, g0 + s] = b0
            W[i + 1, g0 + s + 1] = b1
            W[i + 1, g0 + s + 2] = b2
            W[i + 1, g0 + s + 3] = b3
            s += 4
        while s <= i + 1:
            a0 = b0 = 0.0
            for t in range(int(W[s, c0 + WC_TEND])):
                k = int(W[i0, d0 + t])
                e0 = W[s, nu + k]
                a0 += W[i, y0 + k] * e0
                b0 += W[i + 1, y0 + k] * e0
            W[i, g0 + s] = a0
            W[i + 1, g0 + s] = b0
            s += 1
        i += 2
    if i < i1:  # the last row alone
        s = 0
        while s + 4 <= i + 1:
            te = int(max(max(W[s, c0 + WC_TEND], W[s + 1, c0 + WC_TEND]),
                         max(W[s + 2, c0 + WC_TEND], W[s + 3, c0 + WC_TEND])))
            a0 = a1 = a2 = a3 = 0.0
            for t in range(te):
                k = int(W[i0, d0 + t])
                y = W[i, y0 + k]
                a0 += y * W[s, nu + k]
                a1 += y * W[s + 1, nu + k]
                a2 += y * W[s + 2, nu + k]
                a3 += y * W[s + 3, nu + k]
            W[i, g0 + s] = a0
            W[i, g0 + s + 1] = a1
            W[i, g0 + s + 2] = a2
            W[i, g0 + s + 3] = a3
            s += 4
        while s <= i:
            a0 = 0.0
            for t in range(int(W[s, c0 + WC_TEND])):
                k = int(W[i0, d0 + t])
                a0 += W[i, y0 + k] * W[s, nu + k]
            W[i, g0 + s] = a0
            s += 1
