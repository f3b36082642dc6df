"""Inverse dynamics, mass matrix and articulated-body forward dynamics of trees with modal
(flexible) bodies, with (6 + n_modes) blocks, O(N) (the mass matrix O(N d)).

Per link k (see kernels/flex_kinematics.py for Phi^T and abias): generalized velocity
[V_k; eta_k'], mass matrix M_k(eta) (link frame), H_k^T = blockdiag(S_k, I) mapping the
link's speeds (hinge u, then eta') into it, body bias force b_k (both from
kernels/flex_body_inertia.py), elastic and damping forces -K eta - C eta' on the modal rates (K, C
the body's symmetric NM x NM blocks, ``modal_force``). Only the rigid rows of a child's
quantities reach its parent: Phi_k^T has zero modal rows.
"""
from numba import njit

from . import flex_layout as FL
from .common import joint_motion
from .flex_body_inertia import bias_force, body_masses
from .flex_kinematics import flex_kinematics
from .layout import ARMATURE, GRAVITY, NU, PARENT, S_COLS, UOFF, W_C

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def inertia_times(B, ba, nb, x, xo, out, oo):
    """out[oo:oo+nb] += B x[xo:xo+nb], B the (nb x nb) block at B[ba:]."""
    for r in range(nb):
        s = 0.0
        for c in range(nb):
            s += B[ba + r * nb + c] * x[xo + c]
        out[oo + r] += s


@njit(**_INL)
def modal_force(fi, K, C, k, q, u, i):
    """Row i of link k's elastic and damping force K eta + C eta' (its body's blocks at
    STIFF and DAMP, NM x NM row-major; a diagonal block gives k_i eta_i + c_i eta_i' exactly)."""
    nm, qm, um = fi[k, FL.NM], fi[k, FL.QM], fi[k, FL.UM]
    ka, ca = fi[k, FL.STIFF] + i * nm, fi[k, FL.DAMP] + i * nm
    s = 0.0
    for j in range(nm):
        s += K[ka + j] * q[qm + j] + C[ca + j] * u[um + j]
    return s


@njit(**_INL)
def _parent_acceleration(mf, n, fi, phi, A, k, p, out, oo):
    """out[oo:oo+6] = Phi_k^T A_p (the world's acceleration [0; -g] for a root)."""
    o = fi[k, FL.PHI]
    if p >= 0:
        nbp = fi[p, FL.NB]
        vp = fi[p, FL.VOFF]
        for r in range(6):
            s = 0.0
            for c in range(nbp):
                s += phi[o + r * nbp + c] * A[vp + c]
            out[oo + r] = s
    else:
        for r in range(6):
            s = 0.0
            for c in range(3):
                s -= phi[o + r * 6 + 3 + c] * mf[n, GRAVITY + c]
            out[oo + r] = s


@njit(**_INL)
def force_to_parent(fi, phi, F, k, p, src, so):
    """F_p += Phi_k^T' src[so:so+6] (the rigid rows of a child's force)."""
    o = fi[k, FL.PHI]
    nbp = fi[p, FL.NB]
    vp = fi[p, FL.VOFF]
    for c in range(nbp):
        s = 0.0
        for r in range(6):
            s += phi[o + r * nbp + c] * src[so + r]
        F[vp + c] += s


@njit(**_INL)
def hinge_force(mf, k, i, F, fo):
    """Column i of S_k dotted with F[fo:fo+6]."""
    s = 0.0
    for r in range(6):
        s += mf[k, S_COLS + 6 * i + r] * F[fo + r]
    return s


@njit(cache=True)
def flex_inverse_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, K, C, q, u, udot, w_phi, w_V, w_A, w_F, w_ab,
                          w_pose, w_VN, tau):
    """tau = M(q) udot + b(q, u) + K eta + C eta' (the modal rows: the modal force needed)."""
    n = mi.shape[0]
    flex_kinematics(mi, mf, ws, fi, fnode, q, u, w_phi, w_V, w_ab, w_pose, w_VN)
    body_masses(fi, fmass, fm1, fm2, q, Mq)
    for k in range(n):
        p = mi[k, PARENT]
        vo = fi[k, FL.VOFF]
        _parent_acceleration(mf, n, fi, w_phi, w_A, k, p, w_A, vo)
        joint_motion(mi, mf, k, udot, ws, k, W_C)
        for r in range(6):
            w_A[vo + r] += ws[k, W_C + r] + w_ab[vo + r]
        um = fi[k, FL.UM]
        for i in range(fi[k, FL.NM]):
            w_A[vo + 6 + i] = udot[um + i]
        bias_force(fi, Mq, fi[k, FL.MADR], fm1, fm2, k, q, w_V, w_F, vo)  # F = b + M A
        inertia_times(Mq, fi[k, FL.MADR], fi[k, FL.NB], w_A, vo, w_F, vo)
    for k in range(n - 1, -1, -1):
        vo = fi[k, FL.VOFF]
        u0 = mi[k, UOFF]
        for i in range(mi[k, NU]):
            tau[u0 + i] = hinge_force(mf, k, i, w_F, vo) + mf[k, ARMATURE + i] * udot[u0 + i]
        um = fi[k, FL.UM]
        for i in range(fi[k, FL.NM]):
            tau[um + i] = w_F[vo + 6 + i] + modal_force(fi, K, C, k, q, u, i)
        p = mi[k, PARENT]
        if p >= 0:
            force_to_parent(fi, w_phi, w_F, k, p, w_F, vo)
