"""First-order changes of a flexible body's generalized inertia (kernels/flex_body_inertia.py):
the tangent of its mass matrix M(eta) along one modal coordinate, and the tangent of its bias
force b(eta, v) along a change (deta, dv) of its modal coordinates and generalized velocity.

With v = [V; eta'] (link frame) and, as flex_body_inertia's docstring writes them,

    M(eta)  = M0 + sum_j eta_j dM_j + sum_jl eta_j eta_l M2[j, l]
    b       = [V x* h; 0] + Mdot v - [0; dT/deta],   h = (M v)[:6],

every term is a polynomial in (eta, v), so its tangent is the product rule applied term by
term, as below; nothing is differenced. The modal direction deta is one unit coordinate
(index ``ei`` of the body's modes, -1: none), which is what a column of the derivatives asks.
"""
from numba import njit

from . import flex_layout as FL


@njit(cache=True)
def mass_tangent(fi, fm1, fm2, k, q, ei, dM):
    """dM[:nb*nb] = dM(eta)/deta_ei of link k's body (nb x nb, row-major): M1[ei]'s rows (and
    their mirror into the modal columns' rows) plus the second-order pairs that hold ei."""
    nb, nm = fi[k, FL.NB], fi[k, FL.NM]
    for i in range(nb * nb):
        dM[i] = 0.0
    qm, a1, a2 = fi[k, FL.QM], fi[k, FL.M1ADR], fi[k, FL.M2ADR]
    o = a1 + ei * 6 * nb
    for r in range(6):
        for c in range(nb):
            x = fm1[o + r * nb + c]
            dM[r * nb + c] += x
            if c >= 6:
                dM[c * nb + r] += x
    if a2 >= 0:
        size = (nb if fi[k, FL.M2FULL] else 6) * nb
        o = a2
        for j in range(nm):
            for m in range(j, nm):
                # d/deta_ei of eta_j eta_m (times 2 where j != m: both M2[j, m] and M2[m, j])
                w = (q[qm + m] if j == ei else 0.0) + (q[qm + j] if m == ei else 0.0)
                if m != j:
                    w *= 2.0
                if w != 0.0:
                    for i in range(size):
                        dM[i] += w * fm2[o + i]
                o += size


@njit(cache=True)
def bias_tangent(fi, Mq, ma, dM, fm1, fm2, k, q, ei, V, dV, vo, out, oo):
    """out[oo:oo + nb] = db, the tangent of link k's bias force (flex_body_inertia.bias_force)
    along dv = dV[vo:vo + nb] and the unit modal direction ei (-1: eta held); M(eta) at
    Mq[ma:], and dM (its tangent along ei, ``mass_tangent``) read only where ei >= 0."""
    nb, nm = fi[k, FL.NB], fi[k, FL.NM]
    qm, a1, a2 = fi[k, FL.QM], fi[k, FL.M1ADR], fi[k, FL.M2ADR]
    h = (_row(Mq, ma, nb, 0, V, vo), _row(Mq, ma, nb, 1, V, vo), _row(Mq, ma, nb, 2, V, vo),
         _row(Mq, ma, nb, 3, V, vo), _row(Mq, ma, nb, 4, V, vo), _row(Mq, ma, nb, 5, V, vo))
    dh = (_row(Mq, ma, nb, 0, dV, vo), _row(Mq, ma, nb, 1, dV, vo), _row(Mq, ma, nb, 2, dV, vo),
          _row(Mq, ma, nb, 3, dV, vo), _row(Mq, ma, nb, 4, dV, vo), _row(Mq, ma, nb, 5, dV, vo))
    if ei >= 0:  # + dM v
        dh = (dh[0] + _row(dM, 0, nb, 0, V, vo), dh[1] + _row(dM, 0, nb, 1, V, vo), dh[2] + _row(dM, 0, nb, 2, V, vo),
              dh[3] + _row(dM, 0, nb, 3, V, vo), dh[4] + _row(dM, 0, nb, 4, V, vo), dh[5] + _row(dM, 0, nb, 5, V, vo))
    v = (V[vo], V[vo + 1], V[vo + 2], V[vo + 3], V[vo + 4], V[vo + 5])
    dv = (dV[vo], dV[vo + 1], dV[vo + 2], dV[vo + 3], dV[vo + 4], dV[vo + 5])
    a = _cross_force(dv, h)
    b = _cross_force(v, dh)
    for r in range(6):
        out[oo + r] = a[r] + b[r]
    for r in range(6, nb):
        out[oo + r] = 0.0
    for j in range(nm):  # the first-order integrals (no eta in them: dv only)
        ed, ded = V[vo + 6 + j], dV[vo + 6 + j]
        o = a1 + j * 6 * nb
        dt_all = 0.0  # d(V^T M1[j] v)
        dt_rr = 0.0  # d(V^T M1[j][:, :6] V)
        for r in range(6):
            s = ds = srr = dsrr = 0.0
            for c in range(nb):
                x = fm1[o + r * nb + c]
                s += x * V[vo + c]
                ds += x * dV[vo + c]
                if c < 6:
                    srr += x * V[vo + c]
                    dsrr += x * dV[vo + c]
            out[oo + r] += ded * s + ed * ds
            dt_all += dV[vo + r] * s + V[vo + r] * ds
            dt_rr += dV[vo + r] * srr + V[vo + r] * dsrr
        for c in range(nm):
            s = ds = 0.0
            for r in range(6):
                s += fm1[o + r * nb + 6 + c] * V[vo + r]
                ds += fm1[o + r * nb + 6 + c] * dV[vo + r]
            out[oo + 6 + c] += ded * s + ed * ds
        out[oo + 6 + j] -= dt_all - 0.5 * dt_rr
    if a2 >= 0:
        _second_order_tangent(fi, fm2, k, q, ei, V, dV, vo, out, oo)


@njit(cache=True)
def _second_order_tangent(fi, fm2, k, q, ei, V, dV, vo, out, oo):
    """The second-order integrals' part of db: W2 v (W2 = sum_jm w2 M2[j, m]) and
    -sum eta_m v^T M2[j, m] v in the modal rows, differentiated in (eta along ei, v)."""
    nb, nm, qm = fi[k, FL.NB], fi[k, FL.NM], fi[k, FL.QM]
    rows = nb if fi[k, FL.M2FULL] else 6
    size = rows * nb
    o = fi[k, FL.M2ADR]
    for j in range(nm):
        for m in range(j, nm):
            ej, em, dej, dem = V[vo + 6 + j], V[vo + 6 + m], dV[vo + 6 + j], dV[vo + 6 + m]
            qj, qmm = q[qm + j], q[qm + m]
            dqj = 1.0 if j == ei else 0.0
            dqm = 1.0 if m == ei else 0.0
            if m == j:
                w2 = 2.0 * ej * qmm
                dw2 = 2.0 * (dej * qmm + ej * dqm)
            else:
                w2 = 2.0 * (ej * qmm + em * qj)
                dw2 = 2.0 * (dej * qmm + ej * dqm + dem * qj + em * dqj)
            vmv = dvmv = 0.0
            for r in range(rows):
                vr, dvr = V[vo + r], dV[vo + r]
                for c in range(nb):
                    x = fm2[o + r * nb + c]
                    vmv += vr * x * V[vo + c]
                    dvmv += (dvr * V[vo + c] + vr * dV[vo + c]) * x
                    out[oo + c] += (dw2 * vr + w2 * dvr) * x
            out[oo + 6 + j] -= dqm * vmv + qmm * dvmv
            if m != j:
                out[oo + 6 + m] -= dqj * vmv + qj * dvmv
            o += size


@njit(cache=True, inline="always")
def _row(B, ba, nb, r, x, xo):
    """Row r of the (nb x nb) block at B[ba:] times x[xo:xo + nb]."""
    s = 0.0
    for c in range(nb):
        s += B[ba + r * nb + c] * x[xo + c]
    return s


@njit(cache=True, inline="always")
def _cross_force(v, f):
    """v x* f for a motion v and a force f (6-tuples [angular; linear])."""
    w0, w1, w2, l0, l1, l2 = v
    n0, n1, n2, f0, f1, f2 = f
    return (w1 * n2 - w2 * n1 + l1 * f2 - l2 * f1, w2 * n0 - w0 * n2 + l2 * f0 - l0 * f2,
            w0 * n1 - w1 * n0 + l0 * f1 - l1 * f0, w1 * f2 - w2 * f1, w2 * f0 - w0 * f2, w0 * f1 - w1 * f0)
