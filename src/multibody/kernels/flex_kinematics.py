"""Kinematics of trees with modal (flexible) bodies: the outward pass shared by the flex
dynamics kernels (kernels/flex_dynamics.py).

Link k's generalized velocity is [V_k; eta_k'] (nb = 6 + n_modes entries; V_k its frame's
spatial velocity in its axes). A link hanging from a deforming node N of its parent's body
(pose in the parent link frame (exp(theta) R0, p0 + Pi_t eta), theta = Pi_r eta) moves as

    V_N = X(N<-p) V_p + Psi eta_p',   Psi = [R0^T Jr(theta) Pi_r; R_N^T Pi_t]   (in N)
    V_k = X(k<-N) V_N + S_k u_k,  i.e.  V_k = Phi_k^T [V_p; eta_p'] + S_k u_k,

and its velocity-product acceleration is X(k<-N) (Psi' eta_p' + V_N x Psi eta_p') +
V_k x S_k u_k. A link on a rigid parent (or a node without mode shapes) has Phi_k^T =
X(k<-p). Written per link into the work arrays: Phi^T, the world pose (and the origin in
tree coordinates: flex_layout.POSE_*), V, abias.
"""
import math

from numba import njit

from . import flex_layout as FL
from .common import joint_motion
from .joint_transform import place_links
from .layout import PARENT, W_C, W_P, W_R
from .spatial_inline import mul33, rot_rotvec

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def jr_coefficients(t):
    """a, b of Jr(theta) = I - a [theta]x + b [theta]x^2 and a1 = a'(t)/t, b1 = b'(t)/t,
    t = |theta| (series below 0.1, where the closed forms cancel)."""
    if t < 0.1:
        t2 = t * t
        a = 0.5 - t2 / 24.0 + t2 * t2 / 720.0 - t2 * t2 * t2 / 40320.0
        b = 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0 - t2 * t2 * t2 / 362880.0
        a1 = -1.0 / 12.0 + t2 / 180.0 - t2 * t2 / 6720.0 + t2 * t2 * t2 / 453600.0
        b1 = -1.0 / 60.0 + t2 / 1260.0 - t2 * t2 / 60480.0 + t2 * t2 * t2 / 4989600.0
        return a, b, a1, b1
    c, s = math.cos(t), math.sin(t)
    t2 = t * t
    a = (1.0 - c) / t2
    b = (t - s) / (t2 * t)
    a1 = s / (t2 * t) - 2.0 * (1.0 - c) / (t2 * t2)
    b1 = (1.0 - c) / (t2 * t2) - 3.0 * (t - s) / (t2 * t2 * t)
    return a, b, a1, b1


@njit(**_INL)
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(**_INL)
def jr_apply(th, w):
    """Jr(th) w (3-tuples)."""
    t = math.sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2])
    a, b, _, _ = jr_coefficients(t)
    c1 = _cross(th[0], th[1], th[2], w[0], w[1], w[2])
    c2 = _cross(th[0], th[1], th[2], c1[0], c1[1], c1[2])
    return (w[0] - a * c1[0] + b * c2[0], w[1] - a * c1[1] + b * c2[1], w[2] - a * c1[2] + b * c2[2])


@njit(**_INL)
def jr_rate_apply(th, thd):
    """(d/dt Jr(th)) thd for th' = thd: -a' (th x thd) + b' th x (th x thd) + b thd x (th x thd)."""
    t = math.sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2])
    _, b, a1, b1 = jr_coefficients(t)
    d = th[0] * thd[0] + th[1] * thd[1] + th[2] * thd[2]  # t t'
    c1 = _cross(th[0], th[1], th[2], thd[0], thd[1], thd[2])
    c2 = _cross(th[0], th[1], th[2], c1[0], c1[1], c1[2])
    c3 = _cross(thd[0], thd[1], thd[2], c1[0], c1[1], c1[2])
    return (-a1 * d * c1[0] + b1 * d * c2[0] + b * c3[0], -a1 * d * c1[1] + b1 * d * c2[1] + b * c3[1],
            -a1 * d * c1[2] + b1 * d * c2[2] + b * c3[2])


@njit(**_INL)
def motion_in_child(R, p, w0, w1, w2, v0, v1, v2):
    """X(c<-p) [w; v] for a child frame at (R, p) in the parent: (R^T w, R^T (v - p x w))."""
    c = _cross(p[0], p[1], p[2], w0, w1, w2)
    x0, x1, x2 = v0 - c[0], v1 - c[1], v2 - c[2]
    return (R[0] * w0 + R[3] * w1 + R[6] * w2, R[1] * w0 + R[4] * w1 + R[7] * w2, R[2] * w0 + R[5] * w1 + R[8] * w2,
            R[0] * x0 + R[3] * x1 + R[6] * x2, R[1] * x0 + R[4] * x1 + R[7] * x2, R[2] * x0 + R[5] * x1 + R[8] * x2)


@njit(**_INL)
def _mode_sum(fnode, a, nm, row, q, qm):
    """Row ``row`` of Pi (record at a) times eta = q[qm:qm+nm]."""
    s = 0.0
    for i in range(nm):
        s += fnode[a + FL.N_PI + row * nm + i] * q[qm + i]
    return s


@njit(**_INL)
def _mat_vec(R, x0, x1, x2):
    return (R[0] * x0 + R[1] * x1 + R[2] * x2, R[3] * x0 + R[4] * x1 + R[5] * x2, R[6] * x0 + R[7] * x1 + R[8] * x2)


@njit(**_INL)
def _matT_vec(R, x0, x1, x2):
    return (R[0] * x0 + R[3] * x1 + R[6] * x2, R[1] * x0 + R[4] * x1 + R[7] * x2, R[2] * x0 + R[5] * x1 + R[8] * x2)


@njit(cache=True)
def node_deformation(fnode, a, nm, q, qm):
    """(E, theta, translation Pi_t eta) of the node record at a: E = exp(Pi_r eta) (9-tuple)."""
    th = (_mode_sum(fnode, a, nm, 0, q, qm), _mode_sum(fnode, a, nm, 1, q, qm), _mode_sum(fnode, a, nm, 2, q, qm))
    dt = (_mode_sum(fnode, a, nm, 3, q, qm), _mode_sum(fnode, a, nm, 4, q, qm), _mode_sum(fnode, a, nm, 5, q, qm))
    return rot_rotvec(th[0], th[1], th[2]), th, dt


@njit(cache=True)
def flex_kinematics(mi, mf, ws, fi, fnode, q, u, phi, V, abias, pose, VN):
    """Outward pass: Phi^T, world poses (R (9), p (3), p relative to the tree's root (3) per
    link: flex_layout.POSE_*), V = [V_k; eta_k'] and the velocity-product accelerations abias
    (zero u gives the placements and Phi^T only)."""
    n = mi.shape[0]
    place_links(mi, mf, ws, q)
    for k in range(n):
        p = mi[k, PARENT]
        WR = (ws[k, W_R], ws[k, W_R + 1], ws[k, W_R + 2], ws[k, W_R + 3], ws[k, W_R + 4], ws[k, W_R + 5],
              ws[k, W_R + 6], ws[k, W_R + 7], ws[k, W_R + 8])
        WP = (ws[k, W_P], ws[k, W_P + 1], ws[k, W_P + 2])
        a = fi[k, FL.NODE]
        nbp = fi[p, FL.NB] if p >= 0 else 6
        o = fi[k, FL.PHI]
        vo = fi[k, FL.VOFF]
        if a >= 0:
            nm = nbp - 6
            qm = fi[p, FL.QM]
            E, th, dt = node_deformation(fnode, a, nm, q, qm)
            R0 = (fnode[a], fnode[a + 1], fnode[a + 2], fnode[a + 3], fnode[a + 4], fnode[a + 5],
                  fnode[a + 6], fnode[a + 7], fnode[a + 8])
            p0 = (fnode[a + 9], fnode[a + 10], fnode[a + 11])
            d = (WP[0] - p0[0], WP[1] - p0[1], WP[2] - p0[2])
            Ed = _mat_vec(E, d[0], d[1], d[2])
            R = mul33(E, WR)
            t = (p0[0] + dt[0] + Ed[0], p0[1] + dt[1] + Ed[1], p0[2] + dt[2] + Ed[2])
            RNc = mul33((R0[0], R0[3], R0[6], R0[1], R0[4], R0[7], R0[2], R0[5], R0[8]), WR)
            pNc = _matT_vec(R0, d[0], d[1], d[2])
            RN = mul33(E, R0)
            pN = (p0[0] + dt[0], p0[1] + dt[1], p0[2] + dt[2])
        else:
            R, t = WR, WP
            th, RN, pN, R0, RNc, pNc = WP, WR, WP, WR, WR, WP  # unused off a deforming node
        _store_motion_transform(phi, o, nbp, R, t)
        if p >= 0:
            Rp = (pose[p, 0], pose[p, 1], pose[p, 2], pose[p, 3], pose[p, 4], pose[p, 5], pose[p, 6], pose[p, 7], pose[p, 8])
            Rw = mul33(Rp, R)
            tw = _mat_vec(Rp, t[0], t[1], t[2])
            for i in range(9):
                pose[k, FL.POSE_R + i] = Rw[i]
            for i in range(3):
                pose[k, FL.POSE_P + i] = pose[p, FL.POSE_P + i] + tw[i]
                pose[k, FL.POSE_PT + i] = pose[p, FL.POSE_PT + i] + tw[i]
        else:
            for i in range(9):
                pose[k, FL.POSE_R + i] = R[i]
            for i in range(3):
                pose[k, FL.POSE_P + i] = t[i]
                pose[k, FL.POSE_PT + i] = 0.0
        nab = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        if a >= 0:  # Phi^T's node columns (before they are used) and the node's abias part
            nab = _node_bias(fnode, a, nbp - 6, fi[p, FL.VOFF], V, th, RN, pN, R0, RNc, pNc, phi, o, nbp, VN, k)
        # velocity: V_k = Phi^T V_p + S u, eta' copied
        joint_motion(mi, mf, k, u, ws, k, W_C)  # S u
        for i in range(6):
            s = ws[k, W_C + i]
            if p >= 0:
                vp = fi[p, FL.VOFF]
                for c in range(nbp):
                    s += phi[o + i * nbp + c] * V[vp + c]
            V[vo + i] = s
        nm_k = fi[k, FL.NM]
        um = fi[k, FL.UM]
        for i in range(nm_k):
            V[vo + 6 + i] = u[um + i]
            abias[vo + 6 + i] = 0.0
        vk = (V[vo], V[vo + 1], V[vo + 2], V[vo + 3], V[vo + 4], V[vo + 5])
        vj = (ws[k, W_C], ws[k, W_C + 1], ws[k, W_C + 2], ws[k, W_C + 3], ws[k, W_C + 4], ws[k, W_C + 5])
        ab = _cross_motion(vk, vj)
        for i in range(6):
            abias[vo + i] = ab[i] + nab[i]


@njit(**_INL)
def _cross_motion(v, w):
    """v x w for motion vectors (6-tuples [angular; linear])."""
    a = _cross(v[0], v[1], v[2], w[0], w[1], w[2])
    b = _cross(v[0], v[1], v[2], w[3], w[4], w[5])
    c = _cross(v[3], v[4], v[5], w[0], w[1], w[2])
    return (a[0], a[1], a[2], b[0] + c[0], b[1] + c[1], b[2] + c[2])


@njit(cache=True)
def _store_motion_transform(phi, o, ncols, R, t):
    """Columns 0..5 of the 6 x ncols row-major block at phi[o:] = X(c<-p) of (R, t)."""
    for c in range(6):
        x = motion_in_child(R, t, 1.0 if c == 0 else 0.0, 1.0 if c == 1 else 0.0, 1.0 if c == 2 else 0.0,
                            1.0 if c == 3 else 0.0, 1.0 if c == 4 else 0.0, 1.0 if c == 5 else 0.0)
        for r in range(6):
            phi[o + r * ncols + c] = x[r]


@njit(**_INL)
def psi_column(fnode, a, nm, i, th, R0, RN):
    """Column i of Psi_N = [R0^T Jr(theta) Pi_r; R_N^T Pi_t] (N's axes) of the node record at
    a, with theta = Pi_r eta and R_N = exp(theta) R0 its rotation in the link (9-tuples)."""
    pi = a + FL.N_PI
    r = jr_apply(th, (fnode[pi + i], fnode[pi + nm + i], fnode[pi + 2 * nm + i]))
    rw = _matT_vec(R0, r[0], r[1], r[2])
    tw = _matT_vec(RN, fnode[pi + 3 * nm + i], fnode[pi + 4 * nm + i], fnode[pi + 5 * nm + i])
    return rw[0], rw[1], rw[2], tw[0], tw[1], tw[2]


@njit(**_INL)
def node_velocity_product(fnode, a, th, thd, vn, w):
    """Psi_N' eta' + V_N x (Psi_N eta') (N's axes) of the node record at a, for theta,
    theta' = Pi_r eta' (3-tuples), V_N and w = Psi_N eta' (6-tuples): with R_N' = R_N [w_r]x,
    Psi_N' eta' = [R0^T Jr'(theta) theta'; -(w_r x w_t)]."""
    jd = jr_rate_apply(th, thd)
    jdN = _matT_vec((fnode[a], fnode[a + 1], fnode[a + 2], fnode[a + 3], fnode[a + 4], fnode[a + 5],
                     fnode[a + 6], fnode[a + 7], fnode[a + 8]), jd[0], jd[1], jd[2])
    lin = _cross(w[0], w[1], w[2], w[3], w[4], w[5])
    c = _cross_motion(vn, w)
    return jdN[0] + c[0], jdN[1] + c[1], jdN[2] + c[2], -lin[0] + c[3], -lin[1] + c[4], -lin[2] + c[5]


@njit(cache=True)
def _node_bias(fnode, a, nm, vp, V, th, RN, pN, R0, RNc, pNc, phi, o, nbp, VN, k):
    """Write the node's columns of Phi^T (X(k<-N) Psi) and V_N; return the node's part of
    abias, X(k<-N) (Psi' eta_p' + V_N x Psi eta_p')."""
    pi = a + FL.N_PI
    wr = (0.0, 0.0, 0.0)
    wt = (0.0, 0.0, 0.0)
    for i in range(nm):  # Psi's column i, and w = Psi eta'
        col = psi_column(fnode, a, nm, i, th, R0, RN)
        x = motion_in_child(RNc, pNc, col[0], col[1], col[2], col[3], col[4], col[5])
        for r6 in range(6):
            phi[o + r6 * nbp + 6 + i] = x[r6]
        e = V[vp + 6 + i]
        wr = (wr[0] + col[0] * e, wr[1] + col[1] * e, wr[2] + col[2] * e)
        wt = (wt[0] + col[3] * e, wt[1] + col[4] * e, wt[2] + col[5] * e)
    thd = (0.0, 0.0, 0.0)
    for i in range(nm):
        e = V[vp + 6 + i]
        thd = (thd[0] + fnode[pi + i] * e, thd[1] + fnode[pi + nm + i] * e, thd[2] + fnode[pi + 2 * nm + i] * e)
    vn = motion_in_child(RN, pN, V[vp], V[vp + 1], V[vp + 2], V[vp + 3], V[vp + 4], V[vp + 5])
    vn = (vn[0] + wr[0], vn[1] + wr[1], vn[2] + wr[2], vn[3] + wt[0], vn[4] + wt[1], vn[5] + wt[2])
    for i in range(6):
        VN[k, i] = vn[i]
    aN = node_velocity_product(fnode, a, th, thd, vn, (wr[0], wr[1], wr[2], wt[0], wt[1], wt[2]))
    return motion_in_child(RNc, pNc, aN[0], aN[1], aN[2], aN[3], aN[4], aN[5])
