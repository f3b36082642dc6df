"""First-order changes of what a link hanging from a deforming node N of its parent's body
carries (kernels/flex_kinematics.py): its Phi_k^T = X(k<-N) [X(N<-p) | Psi(eta)] and its node
bias X(k<-N) (Psi' eta' + V_N x Psi eta'), along a change of the parent's modal coordinate
eta_i (index ``ei``, -1: none), of the parent's velocity dV_p[:6] and of its modal rates
dV_p[6:] (the tangent pass of kernels/flex_dynamics_derivatives.py).

With theta = Pi_r eta, R_N = exp(theta) R0 and psi_i = Psi's column i (N's axes):
  d X(N<-p) / deta_i = -(psi_i x) X(N<-p)        (N turns and moves by psi_i)
  d Psi_l / deta_i = [R0^T (dJr[Pi_r e_i]) Pi_r e_l ; -(psi_i,r x) R_N^T Pi_t e_l]
and the node bias by the product rule through Jr and its rate, whose coefficients' derivatives
are ``jr_second`` (a''s and b''s derivatives over t, series below 0.1 as jr_coefficients').
"""
import math

from numba import njit

from . import flex_layout as FL
from .flex_kinematics import _cross, _mat_vec, _matT_vec, jr_coefficients, motion_in_child, node_deformation, psi_column

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def jr_second(t):
    """a2 = a1'(t)/t and b2 = b1'(t)/t for jr_coefficients' a1, b1."""
    if t < 0.1:
        t2 = t * t
        return 1.0 / 90.0 - t2 / 1680.0 + t2 * t2 / 75600.0, 1.0 / 630.0 - t2 / 15120.0 + t2 * t2 / 831600.0
    c, s = math.cos(t), math.sin(t)
    t3 = t * t * t
    a1d = c / t3 - 5.0 * s / (t3 * t) + 8.0 * (1.0 - c) / (t3 * t * t)
    b1d = s / (t3 * t) - 7.0 * (1.0 - c) / (t3 * t * t) + 15.0 * (t - s) / (t3 * t3)
    return a1d / t, b1d / t


@njit(**_INL)
def _add(x, y, sx=1.0, sy=1.0):
    return sx * x[0] + sy * y[0], sx * x[1] + sy * y[1], sx * x[2] + sy * y[2]


@njit(**_INL)
def _cx(x, y):
    return _cross(x[0], x[1], x[2], y[0], y[1], y[2])


@njit(**_INL)
def jr_tangent(th, dth, w):
    """d/deps Jr(th + eps dth) w at eps = 0 (3-tuples)."""
    t = math.sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2])
    a, b, a1, b1 = jr_coefficients(t)
    g = th[0] * dth[0] + th[1] * dth[1] + th[2] * dth[2]
    c1 = _cx(th, w)
    c2 = _cx(th, c1)
    e1 = _cx(dth, w)
    e2 = _add(_cx(dth, c1), _cx(th, e1))
    return (-a1 * g * c1[0] - a * e1[0] + b1 * g * c2[0] + b * e2[0],
            -a1 * g * c1[1] - a * e1[1] + b1 * g * c2[1] + b * e2[1],
            -a1 * g * c1[2] - a * e1[2] + b1 * g * c2[2] + b * e2[2])


@njit(**_INL)
def jr_rate_tangent(th, thd, dth, dthd):
    """The tangent of flex_kinematics.jr_rate_apply(th, thd) along (dth, dthd)."""
    t = math.sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2])
    _, b, a1, b1 = jr_coefficients(t)
    a2, b2 = jr_second(t)
    g = th[0] * dth[0] + th[1] * dth[1] + th[2] * dth[2]
    d = th[0] * thd[0] + th[1] * thd[1] + th[2] * thd[2]
    dd = dth[0] * thd[0] + dth[1] * thd[1] + dth[2] * thd[2] + th[0] * dthd[0] + th[1] * dthd[1] + th[2] * dthd[2]
    c1 = _cx(th, thd)
    c2 = _cx(th, c1)
    c3 = _cx(thd, c1)
    dc1 = _add(_cx(dth, thd), _cx(th, dthd))
    dc2 = _add(_cx(dth, c1), _cx(th, dc1))
    dc3 = _add(_cx(dthd, c1), _cx(thd, dc1))
    k1, k1d = -(a2 * g * d + a1 * dd), -a1 * d
    k2, k2d = b2 * g * d + b1 * dd, b1 * d
    k3 = b1 * g
    return (k1 * c1[0] + k1d * dc1[0] + k2 * c2[0] + k2d * dc2[0] + k3 * c3[0] + b * dc3[0],
            k1 * c1[1] + k1d * dc1[1] + k2 * c2[1] + k2d * dc2[1] + k3 * c3[1] + b * dc3[1],
            k1 * c1[2] + k1d * dc1[2] + k2 * c2[2] + k2d * dc2[2] + k3 * c3[2] + b * dc3[2])


@njit(**_INL)
def _cross_motion(v, w):
    a = _cx((v[0], v[1], v[2]), (w[0], w[1], w[2]))
    b = _cx((v[0], v[1], v[2]), (w[3], w[4], w[5]))
    c = _cx((v[3], v[4], v[5]), (w[0], w[1], w[2]))
    return a[0], a[1], a[2], b[0] + c[0], b[1] + c[1], b[2] + c[2]


@njit(cache=True)
def node_tangent(fi, fnode, ws_r, ws_p, k, p, q, ei, V, dV, dphi):
    """Return the tangent of link k's node bias (6-tuple, k's axes) along (eta_i of the
    parent's body, dV_p); where ei >= 0 write dPhi_k^T (6 x nb_p, row-major) into dphi.
    ws_r, ws_p: link k's placement W_R (9) and W_P (3) tuples (flex_kinematics' WR, WP)."""
    return node_tangent_at(fi, fnode, fi[k, FL.NODE], ws_r, ws_p, p, q, ei, V, dV, dphi)


@njit(cache=True)
def node_tangent_at(fi, fnode, a, ws_r, ws_p, p, q, ei, V, dV, dphi):
    """``node_tangent`` of what is placed at (ws_r, ws_p) in p's axes on the node record a:
    a link hanging from the node, or (at the node's undeformed R0, p0) the node's own frame,
    whose B_N = [X(N<-p) | Psi_N] changes by dphi and whose acceleration's node bias by the
    returned tangent (kernels/flex_constrained_derivatives.py)."""
    nbp = fi[p, FL.NB]
    nm, qm, vp = nbp - 6, fi[p, FL.QM], fi[p, FL.VOFF]
    E, th, dt = node_deformation(fnode, a, nm, q, qm)
    R0 = (fnode[a], fnode[a + 1], fnode[a + 2], fnode[a + 3], fnode[a + 4], fnode[a + 5],
          fnode[a + 6], fnode[a + 7], fnode[a + 8])
    p0 = (fnode[a + 9], fnode[a + 10], fnode[a + 11])
    dpos = (ws_p[0] - p0[0], ws_p[1] - p0[1], ws_p[2] - p0[2])
    RNc = (R0[0] * ws_r[0] + R0[3] * ws_r[3] + R0[6] * ws_r[6], R0[0] * ws_r[1] + R0[3] * ws_r[4] + R0[6] * ws_r[7],
           R0[0] * ws_r[2] + R0[3] * ws_r[5] + R0[6] * ws_r[8], R0[1] * ws_r[0] + R0[4] * ws_r[3] + R0[7] * ws_r[6],
           R0[1] * ws_r[1] + R0[4] * ws_r[4] + R0[7] * ws_r[7], R0[1] * ws_r[2] + R0[4] * ws_r[5] + R0[7] * ws_r[8],
           R0[2] * ws_r[0] + R0[5] * ws_r[3] + R0[8] * ws_r[6], R0[2] * ws_r[1] + R0[5] * ws_r[4] + R0[8] * ws_r[7],
           R0[2] * ws_r[2] + R0[5] * ws_r[5] + R0[8] * ws_r[8])
    pNc = _matT_vec(R0, dpos[0], dpos[1], dpos[2])
    RN = (E[0] * R0[0] + E[1] * R0[3] + E[2] * R0[6], E[0] * R0[1] + E[1] * R0[4] + E[2] * R0[7],
          E[0] * R0[2] + E[1] * R0[5] + E[2] * R0[8], E[3] * R0[0] + E[4] * R0[3] + E[5] * R0[6],
          E[3] * R0[1] + E[4] * R0[4] + E[5] * R0[7], E[3] * R0[2] + E[4] * R0[5] + E[5] * R0[8],
          E[6] * R0[0] + E[7] * R0[3] + E[8] * R0[6], E[6] * R0[1] + E[7] * R0[4] + E[8] * R0[7],
          E[6] * R0[2] + E[7] * R0[5] + E[8] * R0[8])
    pN = (p0[0] + dt[0], p0[1] + dt[1], p0[2] + dt[2])
    pi = a + FL.N_PI
    dth = (0.0, 0.0, 0.0)
    psi_i = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if ei >= 0:
        dth = (fnode[pi + ei], fnode[pi + nm + ei], fnode[pi + 2 * nm + ei])
        psi_i = psi_column(fnode, a, nm, ei, th, R0, RN)
    w = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    dw = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    thd = (0.0, 0.0, 0.0)
    dthd = (0.0, 0.0, 0.0)
    for l in range(nm):
        col = psi_column(fnode, a, nm, l, th, R0, RN)
        dcol = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        if ei >= 0:
            pr = (fnode[pi + l], fnode[pi + nm + l], fnode[pi + 2 * nm + l])
            jt = jr_tangent(th, dth, pr)
            r = _matT_vec(R0, jt[0], jt[1], jt[2])
            tr = _cx((psi_i[0], psi_i[1], psi_i[2]), (col[3], col[4], col[5]))
            dcol = (r[0], r[1], r[2], -tr[0], -tr[1], -tr[2])
            x = motion_in_child(RNc, pNc, dcol[0], dcol[1], dcol[2], dcol[3], dcol[4], dcol[5])
            for r6 in range(6):
                dphi[r6 * nbp + 6 + l] = x[r6]
        e, de = V[vp + 6 + l], dV[vp + 6 + l]
        for r6 in range(6):
            w = _set(w, r6, w[r6] + col[r6] * e)
            dw = _set(dw, r6, dw[r6] + col[r6] * de + dcol[r6] * e)
        thd = (thd[0] + fnode[pi + l] * e, thd[1] + fnode[pi + nm + l] * e, thd[2] + fnode[pi + 2 * nm + l] * e)
        dthd = (dthd[0] + fnode[pi + l] * de, dthd[1] + fnode[pi + nm + l] * de, dthd[2] + fnode[pi + 2 * nm + l] * de)
    xv = motion_in_child(RN, pN, V[vp], V[vp + 1], V[vp + 2], V[vp + 3], V[vp + 4], V[vp + 5])
    xdv = motion_in_child(RN, pN, dV[vp], dV[vp + 1], dV[vp + 2], dV[vp + 3], dV[vp + 4], dV[vp + 5])
    turn = _cross_motion(psi_i, xv)  # (zero without ei)
    vn = (xv[0] + w[0], xv[1] + w[1], xv[2] + w[2], xv[3] + w[3], xv[4] + w[4], xv[5] + w[5])
    dvn = (xdv[0] - turn[0] + dw[0], xdv[1] - turn[1] + dw[1], xdv[2] - turn[2] + dw[2],
           xdv[3] - turn[3] + dw[3], xdv[4] - turn[4] + dw[4], xdv[5] - turn[5] + dw[5])
    jd = jr_rate_tangent(th, thd, dth, dthd)
    jdN = _matT_vec(R0, jd[0], jd[1], jd[2])
    c1 = _cross_motion(dvn, w)
    c2 = _cross_motion(vn, dw)
    l1 = _cx((dw[0], dw[1], dw[2]), (w[3], w[4], w[5]))
    l2 = _cx((w[0], w[1], w[2]), (dw[3], dw[4], dw[5]))
    da = (jdN[0] + c1[0] + c2[0], jdN[1] + c1[1] + c2[1], jdN[2] + c1[2] + c2[2],
          c1[3] + c2[3] - l1[0] - l2[0], c1[4] + c2[4] - l1[1] - l2[1], c1[5] + c2[5] - l1[2] - l2[2])
    if ei >= 0:  # dPhi^T's rigid columns: -(s' x) X(k<-p), s' = X(k<-N) psi_i
        s = motion_in_child(RNc, pNc, psi_i[0], psi_i[1], psi_i[2], psi_i[3], psi_i[4], psi_i[5])
        R = _mul(E, ws_r)
        Ed = _mat_vec(E, dpos[0], dpos[1], dpos[2])
        t = (p0[0] + dt[0] + Ed[0], p0[1] + dt[1] + Ed[1], p0[2] + dt[2] + Ed[2])
        for c in range(6):
            x = motion_in_child(R, t, 1.0 if c == 0 else 0.0, 1.0 if c == 1 else 0.0, 1.0 if c == 2 else 0.0,
                                1.0 if c == 3 else 0.0, 1.0 if c == 4 else 0.0, 1.0 if c == 5 else 0.0)
            y = _cross_motion(s, x)
            for r6 in range(6):
                dphi[r6 * nbp + c] = -y[r6]
    return motion_in_child(RNc, pNc, da[0], da[1], da[2], da[3], da[4], da[5])


@njit(**_INL)
def _set(t, i, x):
    """The 6-tuple t with entry i replaced by x."""
    return (x if i == 0 else t[0], x if i == 1 else t[1], x if i == 2 else t[2], x if i == 3 else t[3],
            x if i == 4 else t[4], x if i == 5 else t[5])


@njit(**_INL)
def _mul(A, B):
    """A B of 3x3 row-major 9-tuples."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8], A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
            A[3] * B[1] + A[4] * B[4] + A[5] * B[7], A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])
