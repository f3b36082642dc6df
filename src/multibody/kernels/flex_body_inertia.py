"""A flexible body's generalized inertia at the current state: its mass matrix M(eta) and
its velocity-dependent (bias) force, from the kinetic energy T = 1/2 v^T M(eta) v of its
generalized velocity v = [V; eta'] (link frame; model in multibody.flex.modal_integrals):

    M(eta) = M0 + sum_j eta_j dM_j + sum_jl eta_j eta_l M2[j, l],   dM_j from M1[j] (rigid rows)

The frame's rows follow Euler-Poincare, d/dt (dT/dV) + V x* (dT/dV) = F, and the modal rows
Lagrange, d/dt (dT/deta') - dT/deta = Q; with d/dt (M v) = M v' + Mdot v the body's bias
force (everything but M v') is

    b = [V x* h; 0] + Mdot v - [0; dT/deta],   h = (M v)[:6],
    Mdot v = [W1 v; W1[:, 6:]^T V] + W2 v,  W1 = sum_j eta'_j M1[j],  W2 = 2 sum_jl eta'_j eta_l M2[j, l],
    dT/deta_j = V^T M1[j][:, 6:] eta' + 1/2 V^T M1[j][:, :6] V + sum_l eta_l v^T M2[j, l] v.

M2[j, l] is the rigid (6 x 6) block or, with geometric stiffening, the whole (nb x nb)
matrix (flag M2FULL), stored for the pairs j <= l only, by whole rows (kernels/flex_layout.py)
so that M(eta)'s sum is one contiguous run per pair. The bias force reads each pair once:
it adds it into W2 (up to its factor v, applied at the end) and takes its product with v v^T
(for dT/deta), in scratch shared by the links in the work M array (at SCR).

Its power v^T b = 1/2 v^T Mdot v = dT/dt - v^T M v', so energy is conserved exactly (the
power-balance test checks these lines). A rigid link (no modes) has b = [V x* M V].
"""
from numba import njit

from . import flex_layout as FL

_INL = dict(cache=True, inline="always")


@njit(cache=True)
def body_masses(fi, fmass, fm1, fm2, q, Mq):
    """Mq (per link, at MADR) = M(eta) of every link's body at q."""
    for k in range(fi.shape[0]):
        body_mass(fi, fmass, fm1, fm2, k, q, Mq, fi[k, FL.MADR])


@njit(cache=True)
def body_mass(fi, fmass, fm1, fm2, k, q, Mq, ma):
    """Mq[ma:] = M(eta) (nb x nb, row-major) of link k's body at q, from the shared constants
    (M0 in fmass at CADR, the integrals in fm1, fm2 at M1ADR, M2ADR)."""
    nb, nm, ca = fi[k, FL.NB], fi[k, FL.NM], fi[k, FL.CADR]
    for i in range(nb * nb):
        Mq[ma + i] = fmass[ca + i]
    qm, a1, a2 = fi[k, FL.QM], fi[k, FL.M1ADR], fi[k, FL.M2ADR]
    for j in range(nm):
        e = q[qm + j]
        o = a1 + j * 6 * nb
        for r in range(6):
            for c in range(nb):
                x = e * fm1[o + r * nb + c]
                Mq[ma + r * nb + c] += x
                if c >= 6:
                    Mq[ma + c * nb + r] += x
    if a2 >= 0:
        size = (nb if fi[k, FL.M2FULL] else 6) * nb  # M2[j, m]'s rows stored, whole
        o = a2
        for j in range(nm):
            for m in range(j, nm):
                w = q[qm + j] * q[qm + m]
                if m != j:
                    w *= 2.0  # M2[j, m] and M2[m, j]
                o0, m0 = max(o, 0), max(ma, 0)  # known >= 0: LLVM vectorizes (3x)
                for i in range(size):
                    Mq[m0 + i] += w * fm2[o0 + i]
                o += size


@njit(**_INL)
def bias_force(fi, Mq, ma, fm1, fm2, k, q, V, out, oo):
    """out[oo:oo + nb] = b, the bias force of link k's body (see the module docstring), its
    M(eta) at Mq[ma:]; uses the shared scratch (blocks SCR_W, SCR_O) of the work array Mq."""
    nb, nm, vo = fi[k, FL.NB], fi[k, FL.NM], fi[k, FL.VOFF]
    h0 = h1 = h2 = h3 = h4 = h5 = 0.0
    for c in range(nb):
        v = V[vo + c]
        h0 += Mq[ma + c] * v
        h1 += Mq[ma + nb + c] * v
        h2 += Mq[ma + 2 * nb + c] * v
        h3 += Mq[ma + 3 * nb + c] * v
        h4 += Mq[ma + 4 * nb + c] * v
        h5 += Mq[ma + 5 * nb + c] * v
    w0, w1, w2, v0, v1, v2 = V[vo], V[vo + 1], V[vo + 2], V[vo + 3], V[vo + 4], V[vo + 5]
    out[oo] = w1 * h2 - w2 * h1 + v1 * h5 - v2 * h4
    out[oo + 1] = w2 * h0 - w0 * h2 + v2 * h3 - v0 * h5
    out[oo + 2] = w0 * h1 - w1 * h0 + v0 * h4 - v1 * h3
    out[oo + 3] = w1 * h5 - w2 * h4
    out[oo + 4] = w2 * h3 - w0 * h5
    out[oo + 5] = w0 * h4 - w1 * h3
    for r in range(6, nb):
        out[oo + r] = 0.0
    qm, a1, a2 = fi[k, FL.QM], fi[k, FL.M1ADR], fi[k, FL.M2ADR]
    for j in range(nm):  # the first-order integrals: W1 v, W1[:, 6:]^T V, dT/deta_j
        ed = V[vo + 6 + j]
        o = a1 + j * 6 * nb
        t_all = 0.0  # V^T M1[j] v
        t_rr = 0.0  # V^T M1[j][:, :6] V
        for r in range(6):
            s = 0.0
            srr = 0.0
            for c in range(nb):
                x = fm1[o + r * nb + c] * V[vo + c]
                s += x
                if c < 6:
                    srr += x
            out[oo + r] += ed * s
            t_all += V[vo + r] * s
            t_rr += V[vo + r] * srr
        for c in range(nm):
            s = 0.0
            for r in range(6):
                s += fm1[o + r * nb + 6 + c] * V[vo + r]
            out[oo + 6 + c] += ed * s
        out[oo + 6 + j] -= t_all - 0.5 * t_rr
    if a2 >= 0:  # the second-order integrals: W2 v and their part of dT/deta
        rows = nb if fi[k, FL.M2FULL] else 6
        size = rows * nb  # the numbers stored per pair
        wa = fi[k, FL.SCR] + FL.SCR_W * nb * nb  # W = sum w2 M2[j, m] (rows x nb)
        oa = fi[k, FL.SCR] + FL.SCR_O * nb * nb  # O = v[:rows] v^T
        for r in range(rows):
            for c in range(nb):
                Mq[wa + r * nb + c] = 0.0
                Mq[oa + r * nb + c] = V[vo + r] * V[vo + c]
        o = a2
        for j in range(nm):
            for m in range(j, nm):
                if m == j:
                    w2 = 2.0 * V[vo + 6 + j] * q[qm + j]
                else:  # M2[j, m] = M2[m, j]: both terms of W2
                    w2 = 2.0 * (V[vo + 6 + j] * q[qm + m] + V[vo + 6 + m] * q[qm + j])
                vmv = add_scaled_and_dot(Mq, wa, w2, fm2, o, Mq, oa, size)  # v^T M2[j, m] v
                out[oo + 6 + j] -= q[qm + m] * vmv
                if m != j:
                    out[oo + 6 + m] -= q[qm + j] * vmv
                o += size
        for r in range(rows):  # W v by W's rows (W is symmetric: its stored rows are its columns)
            vr = V[vo + r]
            for c in range(nb):
                out[oo + c] += vr * Mq[wa + r * nb + c]


# (a dict, not a set: a set pickles in an order that depends on the process's string hash
# seed, and so did the cache key of every kernel closure that reaches this function)
@njit(cache=True, fastmath={"reassoc": True, "contract": True})
def add_scaled_and_dot(W, wa, w, B, ba, O, oa, n):
    """W[wa:wa + n] += w B[ba:ba + n] and return O[oa:oa + n] . B[ba:ba + n]. Reassociation
    lets the dot product run in vector lanes (its sum in another order); the addresses,
    known >= 0, let LLVM vectorize (no negative-index wraparound)."""
    wa, ba, oa = max(wa, 0), max(ba, 0), max(oa, 0)
    for i in range(n):
        W[wa + i] += w * B[ba + i]
    s = 0.0
    for i in range(n):
        s += O[oa + i] * B[ba + i]
    return s
