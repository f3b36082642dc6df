"""Gamma = Gc M^-1 Gc^T from the ABA's factors, one row's support at a time: O(rows d + rows^2 d).

The articulated-body inward pass is the map eps = (I - L) tau of the innovations
factorisation M^-1 = (I - L)^T D^-1 (I - L) (Jain, Rodriguez): eps_j = tau_j - S_j^T f_j with
f_p += X_j^T (f_j + G_j eps_j). A constraint row's generalized force Gc_r^T is non-zero only
on the links that support its two frames, so its innovations eps^r live on those links
and their ancestors (its *support*, at most twice the tree depth d), and
    Gamma_rs = sum over links j of eps_j^r . D_j^-1 eps_j^s,
a sum over the links both supports share. No column of M^-1 is formed; the correction
udot += M^-1 Gc^T lambda is then one full solve.
"""
from numba import njit

from .layout import CR_FA, CR_FB, CR_TYPE, CR_UA, CR_UB, DINV_ADR, FR_LINK, G_ADR, NU, PARENT, S_COLS, UOFF, W_F, W_TMP
from .spatial_inline import force_to_parent

COORD = 5


@njit(cache=True, inline="always")
def _link_of_speed(mi, k):
    """The link that owns speed k."""
    for j in range(mi.shape[0]):
        if mi[j, UOFF] <= k < mi[j, UOFF] + mi[j, NU]:
            return j
    return -1


@njit(cache=True)
def row_support(mi, fr, cr, i, out):
    """Write the links of row i's support into out (descending: children first); return the count.

    The support of a row is the union of the ancestor chains (links included) of its two
    frames' links (of its two hinges' links for a coordinate row)."""
    if int(cr[i, CR_TYPE]) == COORD:
        a = _link_of_speed(mi, int(cr[i, CR_UA]))
        b = _link_of_speed(mi, int(cr[i, CR_UB]))
    else:
        a = int(fr[int(cr[i, CR_FA]), FR_LINK])
        b = int(fr[int(cr[i, CR_FB]), FR_LINK])
    n = 0
    # merge the two chains by index: a parent's index is below its children's, so taking
    # the larger of the two current links writes every link once, in descending order
    while a >= 0 or b >= 0:
        if a == b:
            out[n] = a
            a = b = mi[a, PARENT]
        elif a > b:
            out[n] = a
            a = mi[a, PARENT]
        else:
            out[n] = b
            b = mi[b, PARENT]
        n += 1
    return n


@njit(cache=True)
def row_innovations(mi, mf, ws, z, tau, links, n, eps):
    """eps (u-sized, zero off the support) = the inward pass's innovations of the generalized
    force tau, whose non-zeros lie on the support links[:n] (descending). Uses ws W_F."""
    for t in range(n):
        j = int(links[t])
        for k in range(6):
            ws[j, W_F + k] = 0.0
    for t in range(n):
        j = int(links[t])
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        for k in range(nj):
            s = 0.0
            for r in range(6):
                s += mf[j, S_COLS + 6 * k + r] * ws[j, W_F + r]
            eps[uj + k] = tau[uj + k] - s
        p = mi[j, PARENT]
        if p < 0:
            continue
        ga = mi[j, G_ADR]
        for k in range(nj):
            e = eps[uj + k]
            for r in range(6):
                ws[j, W_F + r] += z[ga + 6 * k + r] * e
        f = force_to_parent(ws, j, ws, j, W_F)
        for k in range(6):
            ws[p, W_F + k] += f[k]


@njit(cache=True)
def gamma_row(mi, ws, z, E, e0, links, n, i, Gam, g0):
    """Gam[i, g0 + s] = sum over row i's support of eps^i . D^-1 eps^s for s <= i (E[s, e0:]
    holds eps^s, zero off its support); uses ws W_TMP."""
    for s in range(i + 1):
        Gam[i, g0 + s] = 0.0
    for t in range(n):
        j = int(links[t])
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        da = mi[j, DINV_ADR]
        for a in range(nj):
            y = 0.0
            for b in range(nj):
                y += z[da + nj * a + b] * E[i, e0 + uj + b]
            ws[j, W_TMP + a] = y
        for s in range(i + 1):
            g = 0.0
            for a in range(nj):
                g += ws[j, W_TMP + a] * E[s, e0 + uj + a]
            Gam[i, g0 + s] += g
