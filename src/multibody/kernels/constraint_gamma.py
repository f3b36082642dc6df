"""Gc, the innovations and Gamma = Gc M^-1 Gc^T on each row's support: O(rows d + rows^2 d).

The articulated-body inward pass is the map eps = (I - L) tau of the innovations
factorisation M^-1 = (I - L)^T D^-1 (I - L) (Jain, Rodriguez): eps_j = tau_j - S_j^T f_j with
f_p += X_j^T (f_j + G_j eps_j). A constraint row's generalized force Gc_r^T = J_a^T w_a +
J_b^T w_b (its wrenches on its two frames) is non-zero only on the links that support them,
so its innovations live on those links and their ancestors (its *support*, at most twice
the tree depth d), and
    Gamma_rs = sum over links j of eps_j^r . D_j^-1 eps_j^s,
a sum over the links both supports share. No column of M^-1 is formed.

Everything here is in world coordinates (Pluecker, about the world origin): the motion
columns S_j (W_SW), the ABA's G_j = U_j D_j^-1 (``world_gains``, into W_GW) and the
wrenches. Then the force a row passes inward needs no transform: with H_j = sum of
G_k eps_k over the support links k below j, eps_j = S_j . (w_a [j supports a] + w_b [j
supports b]) - S_j . H_j, whose first term is the row of Gc. A support is two chains of
ancestors that merge, so H is carried as two running sums, one per chain, added where the
chains meet.
"""
from numba import njit

from .constraint_work import R_WA, R_WB, WC_GU, WC_H, WC_LA, WC_LB, WC_NSUP, WC_ROW
from .layout import (
    CR_FA, CR_FB, CR_TYPE, CR_UA, CR_UB, DINV_ADR, FR_LINK, G_ADR, NU, PARENT, SUBTREE_END, UOFF, W_PPLUS, W_SW,
)
from .spatial_inline import force_to_world

COORD = 5
W_GW = W_PPLUS  # 36: G_j's columns in world coordinates (force vectors), written after the ABA (P+ is dead then)


@njit(cache=True)
def world_gains(mi, ws, z):
    """ws[j, W_GW + 6k:] = column k of G_j = U_j D_j^-1 in world coordinates, for every link
    with a parent (a root passes nothing on). Needs the world placements."""
    for j in range(mi.shape[0]):
        if mi[j, PARENT] < 0:
            continue
        ga = mi[j, G_ADR]
        for k in range(mi[j, NU]):
            a = ga + 6 * k
            f = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5])
            for r in range(6):
                ws[j, W_GW + 6 * k + r] = f[r]


@njit(cache=True, inline="always")
def _link_of_speed(mi, k):
    """The link that owns speed k."""
    for j in range(mi.shape[0]):
        if mi[j, UOFF] <= k < mi[j, UOFF] + mi[j, NU]:
            return j
    return -1


@njit(cache=True)
def supports(mi, fr, cr, W, c0, l0):
    """Each row's support, kept in W (computed where W[i, c0 + WC_NSUP] is 0): the union of
    the ancestor chains (links included) of its two frames' links (of its two hinges' links
    for a coordinate row), descending (children first), at W[i, l0:], with the two links."""
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
        n = 0
        # merge the two chains by index: a parent's index is below its children's, so taking
        # the larger of the two current links writes every link once, in descending order
        while a >= 0 or b >= 0:
            if a == b:
                W[i, l0 + n] = a
                a = b = mi[a, PARENT]
            elif a > b:
                W[i, l0 + n] = a
                a = mi[a, PARENT]
            else:
                W[i, l0 + n] = b
                b = mi[b, PARENT]
            n += 1
        W[i, c0 + WC_NSUP] = n


@njit(cache=True, inline="always")
def _sdot(s, W, i, w):
    """Motion column s (6-tuple) . wrench W[i, w:w+6]."""
    return (W[i, w] * s[0] + W[i, w + 1] * s[1] + W[i, w + 2] * s[2]
            + W[i, w + 3] * s[3] + W[i, w + 4] * s[4] + W[i, w + 5] * s[5])


@njit(cache=True, inline="always")
def _load6(ws, j, o):
    return ws[j, o], ws[j, o + 1], ws[j, o + 2], ws[j, o + 3], ws[j, o + 4], ws[j, o + 5]


@njit(cache=True)
def group_pass(mi, ws, z, W, i0, i1, nu, nc, c0, l0, coord, innovations, udot):
    """Rows i0 .. i1 - 1 (one constraint's: the same support) on their support: Gc's entries
    W[i, :nu] from their wrenches (a coordinate row's are already there); with
    ``innovations`` also eps^i into W[nc + k, i] and Gc_i udot into W[i, c0 + WC_GU]. The
    rows run side by side, link by link. Needs W_SW (and W_GW with innovations)."""
    cnt = int(W[i0, c0 + WC_NSUP])
    la = int(W[i0, c0 + WC_LA])
    lb = int(W[i0, c0 + WC_LB])
    wa = c0 + WC_ROW + R_WA
    wb = c0 + WC_ROW + R_WB
    for i in range(i0, i1):
        for k in range(13):
            W[i, c0 + WC_H + k] = 0.0
    merged = False
    for t in range(cnt):
        j = int(W[i0, l0 + t])
        end = mi[j, SUBTREE_END]
        ina = j <= la < end
        inb = j <= lb < end
        if ina and inb and not merged:  # the chains meet: one running sum from here on
            for i in range(i0, i1):
                for r in range(6):
                    W[i, c0 + WC_H + r] += W[i, c0 + WC_H + 6 + r]
            merged = True
        ho = c0 + WC_H if ina else c0 + WC_H + 6
        has_parent = mi[j, PARENT] >= 0
        uj = mi[j, UOFF]
        for k in range(mi[j, NU]):
            s = _load6(ws, j, W_SW + 6 * k)
            for i in range(i0, i1):
                if coord:
                    g = W[i, uj + k]
                else:
                    g = 0.0
                    if ina:
                        g += _sdot(s, W, i, wa)
                    if inb:
                        g += _sdot(s, W, i, wb)
                    W[i, uj + k] = g
                if innovations:
                    W[i, c0 + WC_GU] += g * udot[uj + k]
                    W[nc + uj + k, i] = g - _sdot(s, W, i, ho)
        if not innovations or not has_parent:
            continue
        for k in range(mi[j, NU]):
            gk = _load6(ws, j, W_GW + 6 * k)
            for i in range(i0, i1):
                e = W[nc + uj + k, i]
                for r in range(6):
                    W[i, ho + r] += gk[r] * e


@njit(cache=True)
def group_gamma(mi, z, W, i0, i1, nc, g0, l0, c0):
    """W[i, g0 + s] = Gamma_is = sum over row i's support of (D^-1 eps^i) . eps^s, s <= i, for
    the rows i0 .. i1 - 1 of one constraint (eps^s is zero off its own support): each link
    adds D^-1 eps^i times the contiguous rows of the transposed innovations."""
    for i in range(i0, i1):
        for s in range(i + 1):
            W[i, g0 + s] = 0.0
    for t in range(int(W[i0, c0 + WC_NSUP])):
        j = int(W[i0, l0 + t])
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        da = mi[j, DINV_ADR]
        for i in range(i0, i1):
            for a in range(nj):
                y = 0.0
                for b in range(nj):
                    y += z[da + nj * a + b] * W[nc + uj + b, i]
                gi = W[i, g0:g0 + i + 1]
                ek = W[nc + uj + a, :i + 1]
                for s in range(i + 1):
                    gi[s] += y * ek[s]
