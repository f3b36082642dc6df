"""The inverse mass matrix of trees with modal bodies by an articulated-body recursion,
O(N nu), (6 + n_modes) blocks: no M, no factorisation (the rigid kernel's recursion,
inverse_mass_matrix.py, in the flex kernels' link-frame generalized blocks).

With u = 0 and no gravity the articulated-body recursion is linear in tau, udot = M^-1 tau;
run on the nu unit forces at once it gives M^-1. Per link k (P, G, D^-1 from
flex_articulated_inertia.py; H_k = blockdiag(S_k^T, I); Phi_k^T with zero modal rows):

1. Inward, F_k (nb x nu) the bias force of link k per unit tau (zero outside the columns
   of its subtree's speeds), eps = e_k - H_k F_k (e_k: the link's own unit columns):
       M^-1[k, c] = D^-1 eps[:, c],   F_p[:, c] = Phi_k (F_k + G_k eps)[:6, c]
   (assigned: sibling subtrees own disjoint columns).
2. Outward, A_k (nb x nu) the acceleration of link k per unit tau, A' = Phi_k^T A_p
   (0 for a root): for the columns c >= the link's first speed
       M^-1[k, c] -= G_k[:6]^T A'[:, c],   A_k = A' + H_k^T M^-1[k, :],
   each entry mirrored into the lower triangle as it is written.
"""
from numba import njit

from . import flex_layout as FL
from .flex_articulated_inertia import flex_articulated_inertia_pass
from .flex_kinematics import flex_kinematics
from .layout import NU, PARENT, S_COLS, SUBTREE_END, UOFF


@njit(cache=True)
def _inward_pass(mi, mf, fi, phi, G, Dinv, scratch, W, Minv):
    """Pass 1 of ``flex_inverse_mass_matrix``, tip to root: each link's rows of M^-1 for
    the columns of its subtree (D^-1 eps), and its parent's F columns in W."""
    n = mi.shape[0]
    for k in range(n - 1, -1, -1):  # 1. inward
        nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
        vo, ga, da = fi[k, FL.VOFF], fi[k, FL.GADR], fi[k, FL.DADR]
        u0k = mi[k, UOFF]
        le = mi[k, SUBTREE_END] - 1
        ue = mi[le, UOFF] + fi[le, FL.NUALL]
        p = mi[k, PARENT]
        o = fi[k, FL.PHI]
        nbp = fi[p, FL.NB] if p >= 0 else 0
        vp = fi[p, FL.VOFF] if p >= 0 else 0
        for c in range(u0k, ue):
            own = c < u0k + nk
            for a in range(nk):  # eps = e_c - H F[:, c] in scratch
                if own:
                    e = 1.0 if a == c - u0k else 0.0
                elif a < nu:
                    e = 0.0
                    for m in range(6):
                        e -= mf[k, S_COLS + 6 * a + m] * W[vo + m, c]
                else:
                    e = -W[vo + 6 + a - nu, c]
                scratch[a] = e
            for a in range(nk):
                s = 0.0
                for b in range(nk):
                    s += Dinv[da + a * nk + b] * scratch[b]
                Minv[u0k + a, c] = s
            if p >= 0:
                for r in range(6):  # (F + G eps)[:6] into scratch[nk:]
                    s = 0.0 if own else W[vo + r, c]
                    for b in range(nk):
                        s += G[ga + r * nk + b] * scratch[b]
                    scratch[nk + r] = s
                for a in range(nbp):  # F_p[:, c] = Phi (...), Phi = (Phi^T)^T
                    s = 0.0
                    for r in range(6):
                        s += phi[o + r * nbp + a] * scratch[nk + r]
                    W[vp + a, c] = s


@njit(cache=True)
def _outward_pass(mi, mf, fi, phi, G, scratch, W, Minv):
    """Pass 2 of ``flex_inverse_mass_matrix``, root to tip: each link's rows of M^-1 less
    G^T of its parent's A columns, the symmetric entries, and its own A columns in W."""
    n = mi.shape[0]
    nu_all = Minv.shape[0]
    for k in range(n):  # 2. outward
        nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
        vo, ga = fi[k, FL.VOFF], fi[k, FL.GADR]
        u0k = mi[k, UOFF]
        le = mi[k, SUBTREE_END] - 1
        ue = mi[le, UOFF] + fi[le, FL.NUALL]
        leaf = mi[k, SUBTREE_END] == k + 1
        p = mi[k, PARENT]
        o = fi[k, FL.PHI]
        nbp = fi[p, FL.NB] if p >= 0 else 0
        vp = fi[p, FL.VOFF] if p >= 0 else 0
        for c in range(u0k, nu_all):
            for r in range(6):  # A' = Phi^T A_p[:, c] in scratch
                s = 0.0
                for m in range(nbp):
                    s += phi[o + r * nbp + m] * W[vp + m, c]
                scratch[r] = s
            for a in range(nk):
                x = Minv[u0k + a, c] if c < ue else 0.0
                for r in range(6):
                    x -= G[ga + r * nk + a] * scratch[r]
                Minv[u0k + a, c] = x
                if c >= u0k + nk:
                    Minv[c, u0k + a] = x
            if not leaf:  # A_k = A' + H^T M^-1[k, c] (leaves keep no A)
                for r in range(6):
                    s = scratch[r]
                    for a in range(nu):
                        s += mf[k, S_COLS + 6 * a + r] * Minv[u0k + a, c]
                    W[vo + r, c] = s
                for i in range(nb - 6):
                    W[vo + 6 + i, c] = Minv[u0k + nu + i, c]
        for a in range(nk):  # the own block's lower triangle: the upper's, exactly
            for b in range(a):
                Minv[u0k + a, u0k + b] = Minv[u0k + b, u0k + a]


@njit(cache=True)
def flex_inverse_mass_matrix(mi, mf, ws, fi, Mb, fnode, q, u0, phi, V, abias, pose, VN, P, G, Dinv, scratch, W,
                             Minv):
    """M(q)^-1 into Minv (nu, nu). u0: zeros (nu,) (only the placements and Phi^T are
    needed); W: scratch (sum of nb, nu) holding F_k, then A_k, in the rows fi[k, VOFF]..;
    scratch: at least max(nb NUALL, 6 nb, NUALL) of the largest link. False when some D is
    not positive definite."""
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, phi, V, abias, pose, VN)
    ok = flex_articulated_inertia_pass(mi, mf, fi, Mb, phi, P, G, Dinv, scratch)
    _inward_pass(mi, mf, fi, phi, G, Dinv, scratch, W, Minv)
    _outward_pass(mi, mf, fi, phi, G, scratch, W, Minv)
    return ok
