"""Analytic first derivatives of the inverse dynamics of trees with modal (flexible) bodies:
tau = M(q) udot + b(q, u) + K eta + C eta' (kernels/flex_dynamics.py), one forward tangent
pass per column, O(N nu), written as the recursion reads.

A column is a tangent direction: of q along ``integrate`` (a hinge coordinate moves its link's
frame by exp(s eps) in that frame, s the column of S; a modal coordinate eta_i is a plain
vector coordinate) or of u (a unit speed). The pass differentiates the recursion of
flex_inverse_dynamics term by term, after a base pass at (q, u, udot) has left Phi^T, V,
abias, A, F (the net forces, children's included) and the mass blocks M_k(eta):

  outward, per link k of the column's link j's subtree (all other tangents are zero):
    dV_k  = Phi_k^T dV_p  (+ at k = j: S e for a u column; -s x (Phi_j^T V_p) for a hinge q
            column, the frame turning under the parent's velocity; e_i in the modal rows for
            a modal rate column)
    dab_k = dV_k x (S u_k)  (+ at k = j, u column: V_j x s)
    dA_k  = Phi_k^T dA_p + dab_k  (+ at k = j, hinge q column: -s x (Phi_j^T A_p))
    dF_k  = db_k + M_k dA_k + dM_k A_k   (flex_inertia_tangent: db along (deta, dV_k), dM_k
            only for a modal q column of k's own body)
  inward: dtau rows S^T dF_k, the modal rows dF_k[6:] + the column of K (q) or C (u);
    dF_p += Phi_k^T dF_k[:6]  (+ at k = j, hinge q column: Phi_j^T (s x* F_j), the turned
            transform carrying the net force)

A link k on a deforming node N of its parent's body (fi NODE >= 0) adds, at every column,
the tangent of its node bias (kernels/flex_node_tangent.py: through V_p, the parent's modal
rates and, for a modal q column of the parent's body, eta), and for that column dPhi_k^T:
dV_k += dPhi_k^T V_p, dA_k += dPhi_k^T A_p outward, dF_p += dPhi_k F_k inward. At k = j (a hinge
q column) the node bias turns with k's frame as the rest of abias.
"""
from numba import njit

from . import flex_layout as FL
from .flex_inertia_tangent import bias_tangent, mass_tangent
from .flex_node_tangent import node_tangent
from .layout import NU, PARENT, S_COLS, SUBTREE_END, UOFF, W_P, W_R

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def _s_column(mf, k, i):
    """Column i of S_k (link frame)."""
    return (mf[k, S_COLS + 6 * i], mf[k, S_COLS + 6 * i + 1], mf[k, S_COLS + 6 * i + 2],
            mf[k, S_COLS + 6 * i + 3], mf[k, S_COLS + 6 * i + 4], mf[k, S_COLS + 6 * i + 5])


@njit(**_INL)
def _s_times(mi, mf, k, x):
    """S_k x[UOFF:UOFF + NU] (link frame)."""
    u0 = mi[k, UOFF]
    r0 = r1 = r2 = r3 = r4 = r5 = 0.0
    for i in range(mi[k, NU]):
        e = x[u0 + i]
        r0 += mf[k, S_COLS + 6 * i] * e
        r1 += mf[k, S_COLS + 6 * i + 1] * e
        r2 += mf[k, S_COLS + 6 * i + 2] * e
        r3 += mf[k, S_COLS + 6 * i + 3] * e
        r4 += mf[k, S_COLS + 6 * i + 4] * e
        r5 += mf[k, S_COLS + 6 * i + 5] * e
    return r0, r1, r2, r3, r4, r5


@njit(**_INL)
def _cross_motion(v, w):
    """v x w for motion vectors (6-tuples [angular; linear])."""
    return (v[1] * w[2] - v[2] * w[1], v[2] * w[0] - v[0] * w[2], v[0] * w[1] - v[1] * w[0],
            v[1] * w[5] - v[2] * w[4] + v[4] * w[2] - v[5] * w[1],
            v[2] * w[3] - v[0] * w[5] + v[5] * w[0] - v[3] * w[2],
            v[0] * w[4] - v[1] * w[3] + v[3] * w[1] - v[4] * w[0])


@njit(**_INL)
def _cross_force(v, f):
    """v x* f for a motion v and a force f."""
    return (v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4],
            v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5],
            v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3],
            v[1] * f[5] - v[2] * f[4], v[2] * f[3] - v[0] * f[5], v[0] * f[4] - v[1] * f[3])


@njit(**_INL)
def _parent_rows(fi, phi, k, p, X, dst, do):
    """dst[do:do+6] = Phi_k^T X_p (zero for a root: its parent, the world, does not change)."""
    if p < 0:
        for r in range(6):
            dst[do + r] = 0.0
        return
    o, nbp, vp = fi[k, FL.PHI], fi[p, FL.NB], fi[p, FL.VOFF]
    for r in range(6):
        s = 0.0
        for c in range(nbp):
            s += phi[o + r * nbp + c] * X[vp + c]
        dst[do + r] = s


@njit(**_INL)
def _node_bias(ab, vo, v, su):
    """The node's part of link k's abias: abias - V_k x (S u_k) (zero off a deforming node)."""
    c = _cross_motion(v, su)
    return (ab[vo] - c[0], ab[vo + 1] - c[1], ab[vo + 2] - c[2], ab[vo + 3] - c[3], ab[vo + 4] - c[4],
            ab[vo + 5] - c[5])


@njit(cache=True)
def _node_column(mi, ws, fi, fnode, q, V, A, k, p, ei, dV, dA, dphi):
    """Link k on a deforming node of p's body: dA += the node bias' tangent, and for the
    parent's modal coordinate ei (>= 0) dV += dPhi_k^T V_p, dA += dPhi_k^T A_p."""
    dn = node_tangent(fi, fnode, _row9(ws, k, W_R), _row3(ws, k, W_P), k, p, q, ei, V, dV, dphi)
    vo, nbp, vp = fi[k, FL.VOFF], fi[p, FL.NB], fi[p, FL.VOFF]
    for r in range(6):
        dA[vo + r] += dn[r]
        if ei >= 0:
            sv = sa = 0.0
            for c in range(nbp):
                sv += dphi[r * nbp + c] * V[vp + c]
                sa += dphi[r * nbp + c] * A[vp + c]
            dV[vo + r] += sv
            dA[vo + r] += sa


@njit(**_INL)
def _row9(ws, k, c):
    return (ws[k, c], ws[k, c + 1], ws[k, c + 2], ws[k, c + 3], ws[k, c + 4], ws[k, c + 5], ws[k, c + 6],
            ws[k, c + 7], ws[k, c + 8])


@njit(**_INL)
def _row3(ws, k, c):
    return (ws[k, c], ws[k, c + 1], ws[k, c + 2])


@njit(cache=True)
def outward_tangent(mi, mf, ws, fi, fm1, fm2, Mq, fnode, q, u, udot, phi, V, A, ab, j, col, modal, wrt_u, dV, dA, dM,
                    dphi, db):
    """The outward tangent pass of one column (see the module docstring): dV, dA and the
    links' force tangents dF (written into db's link rows) over j's subtree."""
    for k in range(j, mi[j, SUBTREE_END]):
        p = mi[k, PARENT]
        vo, nb = fi[k, FL.VOFF], fi[k, FL.NB]
        _parent_rows(fi, phi, k, p if k != j else -1, dV, dV, vo)
        _parent_rows(fi, phi, k, p if k != j else -1, dA, dA, vo)
        for r in range(6, nb):
            dV[vo + r] = 0.0
            dA[vo + r] = 0.0
        v = (V[vo], V[vo + 1], V[vo + 2], V[vo + 3], V[vo + 4], V[vo + 5])
        su = _s_times(mi, mf, k, u)
        ei = -1
        if k == j and modal:
            if wrt_u:
                dV[vo + 6 + col] = 1.0
            else:
                ei = col
                mass_tangent(fi, fm1, fm2, k, q, col, dM)
        elif k == j:
            s = _s_column(mf, k, col)
            if wrt_u:
                for r in range(6):
                    dV[vo + r] += s[r]
                vs = _cross_motion(v, s)
                for r in range(6):
                    dA[vo + r] += vs[r]
            else:  # the frame turns: Phi_j^T X_p = X_j - (its own terms)
                sud = _s_times(mi, mf, k, udot)
                x = (v[0] - su[0], v[1] - su[1], v[2] - su[2], v[3] - su[3], v[4] - su[4], v[5] - su[5])
                a = (A[vo] - sud[0] - ab[vo], A[vo + 1] - sud[1] - ab[vo + 1], A[vo + 2] - sud[2] - ab[vo + 2],
                     A[vo + 3] - sud[3] - ab[vo + 3], A[vo + 4] - sud[4] - ab[vo + 4], A[vo + 5] - sud[5] - ab[vo + 5])
                sx = _cross_motion(s, x)
                sa = _cross_motion(s, a)
                ab_node = _node_bias(ab, vo, v, su)
                sn = _cross_motion(s, ab_node)  # the node bias turns with the frame too
                for r in range(6):
                    dV[vo + r] -= sx[r]
                    dA[vo + r] -= sa[r] + sn[r]
        elif fi[k, FL.NODE] >= 0:  # on a deforming node of its parent's body
            _node_column(mi, ws, fi, fnode, q, V, A, k, p, col if (modal and not wrt_u and p == j) else -1, dV, dA,
                         dphi)
        dv = (dV[vo], dV[vo + 1], dV[vo + 2], dV[vo + 3], dV[vo + 4], dV[vo + 5])
        dab = _cross_motion(dv, su)
        for r in range(6):
            dA[vo + r] += dab[r]
        ma = fi[k, FL.MADR]
        bias_tangent(fi, Mq, ma, dM, fm1, fm2, k, q, ei, V, dV, vo, db, vo)  # dF = db + M dA + dM A
        for r in range(nb):
            s = 0.0
            for c in range(nb):
                s += Mq[ma + r * nb + c] * dA[vo + c]
                if ei >= 0:
                    s += dM[r * nb + c] * A[vo + c]
            db[vo + r] += s


@njit(cache=True)
def inward_tangent(mi, mf, ws, fi, fnode, q, K, C, phi, V, F, j, col, modal, wrt_u, dV, dphi, dF, out, oc):
    """The inward tangent pass of one column: out[:, oc] = dtau from the links' force
    tangents dF (zero outside j's subtree and its ancestors)."""
    n = mi.shape[0]
    for k in range(n - 1, -1, -1):
        vo = fi[k, FL.VOFF]
        u0 = mi[k, UOFF]
        for i in range(mi[k, NU]):
            s = 0.0
            for r in range(6):
                s += mf[k, S_COLS + 6 * i + r] * dF[vo + r]
            out[u0 + i, oc] = s
        um, nm = fi[k, FL.UM], fi[k, FL.NM]
        for i in range(nm):
            x = dF[vo + 6 + i]
            if k == j and modal:  # the elastic (q) or damping (u) force's column
                x += (C[fi[k, FL.DAMP] + i * nm + col] if wrt_u else K[fi[k, FL.STIFF] + i * nm + col])
            out[um + i, oc] = x
        p = mi[k, PARENT]
        if p < 0:
            continue
        o, nbp, vp = fi[k, FL.PHI], fi[p, FL.NB], fi[p, FL.VOFF]
        f = (dF[vo], dF[vo + 1], dF[vo + 2], dF[vo + 3], dF[vo + 4], dF[vo + 5])
        if k == j and not modal and not wrt_u:
            sf = _cross_force(_s_column(mf, k, col), (F[vo], F[vo + 1], F[vo + 2], F[vo + 3], F[vo + 4], F[vo + 5]))
            f = (f[0] + sf[0], f[1] + sf[1], f[2] + sf[2], f[3] + sf[3], f[4] + sf[4], f[5] + sf[5])
        for c in range(nbp):
            s = 0.0
            for r in range(6):
                s += phi[o + r * nbp + c] * f[r]
            dF[vp + c] += s
        if p == j and modal and not wrt_u and fi[k, FL.NODE] >= 0:  # the moved node carries F_k
            node_tangent(fi, fnode, _row9(ws, k, W_R), _row3(ws, k, W_P), k, p, q, col, V, dV, dphi)
            for c in range(nbp):
                s = 0.0
                for r in range(6):
                    s += dphi[r * nbp + c] * F[vo + r]
                dF[vp + c] += s


@njit(cache=True)
def flex_inverse_dynamics_tangents(mi, mf, ws, fi, fm1, fm2, Mq, fnode, K, C, q, u, udot, phi, V, A, F, ab, dV, dA,
                                   dF, dM, dphi, dtau_dq, dtau_du):
    """dtau_dq, dtau_du (nu, nu) after a base pass at (q, u, udot) (flex_inverse_dynamics:
    phi, V, A, F, ab, Mq and ws's placements hold its results); dV, dA, dF: work like V; dM:
    nb_max^2 numbers; dphi: 6 nb_max."""
    n = mi.shape[0]
    for j in range(n):
        for modal in (False, True):
            ncol = fi[j, FL.NM] if modal else mi[j, NU]
            base = fi[j, FL.UM] if modal else mi[j, UOFF]
            for col in range(ncol):
                for wrt_u in (False, True):
                    for i in range(dF.shape[0]):
                        dF[i] = 0.0
                    outward_tangent(mi, mf, ws, fi, fm1, fm2, Mq, fnode, q, u, udot, phi, V, A, ab, j, col, modal,
                                    wrt_u, dV, dA, dM, dphi, dF)
                    inward_tangent(mi, mf, ws, fi, fnode, q, K, C, phi, V, F, j, col, modal, wrt_u, dV, dphi, dF,
                                   dtau_du if wrt_u else dtau_dq, base + col)
