"""Operational-space compliance Upsilon = J M^-1 J^T at k frames of a tree with modal
bodies, by recursion, (6 + n_modes) blocks, O(N + k^2 d): no M^-1 (the rigid kernel's
recursion, operational_space.py, in the flex kernels' link-frame generalized blocks).

From the articulated-inertia pass (flex_articulated_inertia.py: G, D^-1), with
Psi_k = I - H_k^T G_k^T (nb x nb; the map that carries the acceleration a' = Phi_k^T a_p
across link k when no force acts in its subtree) and Phi_k^T's zero modal rows:

1. Outward over the links that support a frame, the compliance of link k's generalized
   block [V_k; eta_k'] (Omega of the world = 0):
       Omega_k = Psi_k (Phi_k^T Omega_p Phi_k) Psi_k^T + H_k^T D_k^-1 H_k,
   where Phi_k^T Omega_p Phi_k is 6x6 (the rigid rows), so only Q = Psi_k[:, :6] is used.
2. A frame F on link L moves with V_F = B_F [V_L; eta_L'] (flex_jacobian.frame_map: the
   modal columns of a deforming node included). For frames a, b with deepest common
   ancestor link c: Upsilon_ab = B'_a Omega_c B'_b^T, where B' is B carried up to c by
   B <- (B Q_i) Phi_i^T at each link i passed (d: the tree depth).
"""
from numba import njit

from . import flex_layout as FL
from .flex_articulated_inertia import flex_articulated_inertia_pass
from .flex_jacobian import frame_map
from .flex_kinematics import flex_kinematics
from .layout import DEPTH, FR_LINK, NU, PARENT, S_COLS


def scratch_size(fi):
    """(largest nb, numbers of scratch) of the flex operator kernels (this compliance, the
    inverse mass matrix, frame Jacobians) for the link table fi: max(nb NUALL, 12 nb + 36 +
    nb NUALL, 36 + 6 NUALL) of the largest link, rounded up."""
    nbm, nkm = int(fi[:, FL.NB].max()), int(fi[:, FL.NUALL].max())
    return nbm, 64 + 12 * nbm + nbm * max(nkm, 6)


@njit(cache=True)
def _q_column_block(mf, fi, G, k, nu, nk, nb, Q, qo):
    """Q (nb x 6, row-major at Q[qo:]) = Psi_k[:, :6] = I[:, :6] - H_k^T G_k[:6, :]^T."""
    ga = fi[k, FL.GADR]
    for r in range(nb):
        for c in range(6):
            if r < 6:
                s = 1.0 if r == c else 0.0
                for a in range(nu):
                    s -= mf[k, S_COLS + 6 * a + r] * G[ga + c * nk + a]
            else:
                s = -G[ga + c * nk + nu + r - 6]
            Q[qo + r * 6 + c] = s


@njit(cache=True)
def _link_compliance(mi, mf, fi, phi, G, Dinv, Om, k, scratch):
    """Omega_k = Q (Phi^T Omega_p Phi) Q^T + H^T D^-1 H into Om at fi[k, PADR]."""
    nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
    oa, da = fi[k, FL.PADR], fi[k, FL.DADR]
    p = mi[k, PARENT]
    t6 = 0             # scratch layout: T6 (36), X (6 nbp, then nb x 6), Q (nb x 6), Y (nb x nk)
    x = 36
    qo = x + 6 * max(nb, fi[p, FL.NB] if p >= 0 else 6)
    yo = qo + 6 * nb
    for i in range(36):
        scratch[t6 + i] = 0.0
    if p >= 0:  # T6 = Phi^T Omega_p Phi (6x6), Phi^T the 6 x nbp block at phi[o:]
        o = fi[k, FL.PHI]
        nbp = fi[p, FL.NB]
        op = fi[p, FL.PADR]
        for r in range(6):
            for b in range(nbp):
                s = 0.0
                for m in range(nbp):
                    s += phi[o + r * nbp + m] * Om[op + m * nbp + b]
                scratch[x + r * nbp + b] = s
        for r in range(6):
            for c in range(6):
                s = 0.0
                for m in range(nbp):
                    s += scratch[x + r * nbp + m] * phi[o + c * nbp + m]
                scratch[t6 + 6 * r + c] = s
    _q_column_block(mf, fi, G, k, nu, nk, nb, scratch, qo)
    for r in range(nb):  # X = Q T6 (nb x 6)
        for c in range(6):
            s = 0.0
            for m in range(6):
                s += scratch[qo + r * 6 + m] * scratch[t6 + 6 * m + c]
            scratch[x + r * 6 + c] = s
    for r in range(nb):  # Y = H^T D^-1 (nb x nk): S D^-1 on the rigid rows, D^-1's modal rows
        for b in range(nk):
            if r < 6:
                s = 0.0
                for a in range(nu):
                    s += mf[k, S_COLS + 6 * a + r] * Dinv[da + a * nk + b]
            else:
                s = Dinv[da + (nu + r - 6) * nk + b]
            scratch[yo + r * nk + b] = s
    for r in range(nb):  # Omega = X Q^T + Y H
        for c in range(nb):
            s = 0.0
            for m in range(6):
                s += scratch[x + r * 6 + m] * scratch[qo + c * 6 + m]
            if c < 6:
                for b in range(nu):
                    s += scratch[yo + r * nk + b] * mf[k, S_COLS + 6 * b + c]
            else:
                s += scratch[yo + r * nk + nu + c - 6]
            Om[oa + r * nb + c] = s


@njit(cache=True)
def _carry_up(mi, mf, fi, phi, G, i, B, src, dst, scratch):
    """B[dst:] (6 x nb_parent) = (B Q_i) Phi_i^T for B[src:] (6 x nb_i): a frame map carried
    across link i to its parent (no force in i's subtree but at the frame)."""
    nb, nk, nu = fi[i, FL.NB], fi[i, FL.NUALL], mi[i, NU]
    ga = fi[i, FL.GADR]
    p = mi[i, PARENT]
    nbp = fi[p, FL.NB]
    o = fi[i, FL.PHI]
    for r in range(6):  # Z = B H^T (6 x nk) at scratch[36:]
        for a in range(nk):
            if a < nu:
                s = 0.0
                for m in range(6):
                    s += B[src + r * nb + m] * mf[i, S_COLS + 6 * a + m]
            else:
                s = B[src + r * nb + 6 + a - nu]
            scratch[36 + r * nk + a] = s
    for r in range(6):  # B Q = B[:, :6] - Z G[:6]^T (6x6) at scratch[0:]
        for c in range(6):
            s = B[src + r * nb + c]
            for a in range(nk):
                s -= scratch[36 + r * nk + a] * G[ga + c * nk + a]
            scratch[6 * r + c] = s
    for r in range(6):
        for c in range(nbp):
            s = 0.0
            for m in range(6):
                s += scratch[6 * r + m] * phi[o + m * nbp + c]
            B[dst + r * nbp + c] = s


@njit(cache=True)
def flex_operational_space_compliance(mi, mf, ws, fi, Mb, fnode, frame_node, fr, q, u0, phi, V, abias, pose, VN,
                                      P, G, Dinv, scratch, Om, mark, frames, Bf, Bw, out):
    """out (6k, 6k) = Upsilon at the k frame rows ``frames``. u0: zeros (nu,); Om: like P
    (the Omega blocks); mark: int64 (n,); Bf: (k, 6 max(nb)) the frames' maps; Bw:
    (24 max(nb),); scratch: at least max(nb NUALL, 12 nb + 36 + nb NUALL, 36 + 6 NUALL) of
    the largest link. False when some D is not positive definite."""
    n = mi.shape[0]
    k = frames.shape[0]
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, phi, V, abias, pose, VN)
    ok = flex_articulated_inertia_pass(mi, mf, fi, Mb, phi, P, G, Dinv, scratch)
    for j in range(n):
        mark[j] = 0
    for a in range(k):
        i = int(fr[frames[a], FR_LINK])
        while i >= 0 and mark[i] == 0:
            mark[i] = 1
            i = mi[i, PARENT]
    for j in range(n):
        if mark[j] != 0:
            _link_compliance(mi, mf, fi, phi, G, Dinv, Om, j, scratch)
    for a in range(k):
        frame_map(mi, fi, fnode, frame_node, fr, q, frames[a], Bf[a])
    blk = Bw.shape[0] // 4  # Bw: four 6 x max(nb) blocks, two for B'_a, two for B'_b
    for a in range(k):
        for b in range(a, k):
            ia = int(fr[frames[a], FR_LINK])
            ib = int(fr[frames[b], FR_LINK])
            for e in range(Bf.shape[1]):
                Bw[e] = Bf[a, e]
                Bw[2 * blk + e] = Bf[b, e]
            sa = 0  # the blocks holding B'_a (0 or 1) and B'_b (2 or 3)
            sb = 2
            while ia != ib and ia >= 0 and ib >= 0:
                if mi[ia, DEPTH] >= mi[ib, DEPTH]:
                    _carry_up(mi, mf, fi, phi, G, ia, Bw, sa * blk, (1 - sa) * blk, scratch)
                    sa = 1 - sa
                    ia = mi[ia, PARENT]
                else:
                    _carry_up(mi, mf, fi, phi, G, ib, Bw, sb * blk, (5 - sb) * blk, scratch)
                    sb = 5 - sb
                    ib = mi[ib, PARENT]
            if ia != ib or ia < 0:  # no common link: the frames do not interact (or one is on the world)
                for r in range(6):
                    for c in range(6):
                        out[6 * a + r, 6 * b + c] = 0.0
                        out[6 * b + c, 6 * a + r] = 0.0
                continue
            nb = fi[ia, FL.NB]
            oa = fi[ia, FL.PADR]
            ob = sb * blk
            for r in range(nb):  # X = Omega_c B'_b^T (nb x 6)
                for c in range(6):
                    s = 0.0
                    for m in range(nb):
                        s += Om[oa + r * nb + m] * Bw[ob + c * nb + m]
                    scratch[r * 6 + c] = s
            ob = sa * blk
            for r in range(6):
                for c in range(6):
                    s = 0.0
                    for m in range(nb):
                        s += Bw[ob + r * nb + m] * scratch[m * 6 + c]
                    out[6 * a + r, 6 * b + c] = s
                    out[6 * b + c, 6 * a + r] = s
    return ok
