"""Mass matrix (composite inertias) and articulated-body forward dynamics of trees with
modal bodies, (6 + n_modes) blocks (see kernels/flex_dynamics.py for the model; M_k is
M_k(eta), written by body_masses).

CRBA: R_k = M_k + sum_c Phi_c R_c[:6, :6] Phi_c^T; M_kk = H_k R_k H_k^T, and the column
block F = R_k H_k^T carried to each ancestor j by F <- Phi_j F[:6] gives M_jk = H_j F.
ABA, inward: P_k = M_k + sum_c Phi_c P+_c[:6, :6] Phi_c^T, z_k = sum_c Phi_c z+_c[:6] +
P_k abias_k + b_k, D = H P H^T (+ armature), G = P H^T D^-1, eps = tau - [0; K eta +
C eta'] - H z (K, C the modal body's blocks), P+ = P - G H P, z+ = z + G eps, nu = D^-1 eps
(the inertia step is flex_articulated_inertia.py's, shared with the inverse mass matrix).
Outward: a' = Phi^T a_p, udot = nu - G^T a', a = a' + H^T udot + abias.
"""
from numba import njit

from . import flex_layout as FL
from .flex_articulated_inertia import articulated_step, child_inertia_to_parent, inertia_to_parent
from .flex_body_inertia import bias_force, body_mass, body_masses
from .flex_dynamics import _parent_acceleration, force_to_parent, hinge_force, inertia_times, modal_force
from .flex_kinematics import flex_kinematics
from .layout import ARMATURE, NU, PARENT, S_COLS, SUBTREE_END, UOFF

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def _h_entry(mf, k, nu, r, c):
    """Entry (r, c) of H_k (NUALL x nb): S_k^T over the hinge rows, identity on the modes."""
    if r < nu:
        return mf[k, S_COLS + 6 * r + c] if c < 6 else 0.0
    return 1.0 if c == 6 + r - nu else 0.0


@njit(cache=True)
def flex_mass_matrix(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, q, u0, w_phi, w_V, w_ab, w_pose, w_VN, w_P, scratch,
                     Mout):
    """M(q) (nu x nu); u0 is a zero vector of nu (only the placements are needed)."""
    n = mi.shape[0]
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, w_phi, w_V, w_ab, w_pose, w_VN)
    body_masses(fi, fmass, fm1, fm2, q, Mq)
    for k in range(n):
        nb = fi[k, FL.NB]
        for i in range(nb * nb):
            w_P[fi[k, FL.PADR] + i] = Mq[fi[k, FL.MADR] + i]
    for k in range(n - 1, -1, -1):
        p = mi[k, PARENT]
        if p >= 0:
            inertia_to_parent(fi, w_phi, w_P, k, p, scratch)
    for i in range(Mout.shape[0]):  # unrelated links: zero
        for j in range(Mout.shape[1]):
            Mout[i, j] = 0.0
    half = scratch.shape[0] // 2
    for k in range(n):
        nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
        uk = mi[k, UOFF]
        pa = fi[k, FL.PADR]
        for r in range(nb):  # F = P_k H_k^T (nb x nk) in scratch[0:]
            for c in range(nk):
                s = 0.0
                for m in range(nb):
                    s += w_P[pa + r * nb + m] * _h_entry(mf, k, nu, c, m)
                scratch[r * nk + c] = s
        for r in range(nk):  # the diagonal block H_k F (+ armature)
            for c in range(nk):
                s = 0.0
                for m in range(nb):
                    s += _h_entry(mf, k, nu, r, m) * scratch[m * nk + c]
                Mout[uk + r, uk + c] = s + (mf[k, ARMATURE + r] if r == c and r < nu else 0.0)
        src = 0
        ch = k
        j = mi[k, PARENT]
        while j >= 0:  # carry F to the ancestors: F <- Phi_ch F[:6], M_jk = H_j F
            nbj = fi[j, FL.NB]
            o = fi[ch, FL.PHI]
            dst = half - src
            for a in range(nbj):
                for c in range(nk):
                    s = 0.0
                    for r in range(6):
                        s += w_phi[o + r * nbj + a] * scratch[src + r * nk + c]
                    scratch[dst + a * nk + c] = s
            src = dst
            nj, uj = fi[j, FL.NUALL], mi[j, UOFF]
            for r in range(nj):
                for c in range(nk):
                    s = 0.0
                    for m in range(nbj):
                        s += _h_entry(mf, j, mi[j, NU], r, m) * scratch[src + m * nk + c]
                    Mout[uj + r, uk + c] = s
                    Mout[uk + c, uj + r] = s
            ch = j
            j = mi[j, PARENT]


@njit(cache=True)
def flex_forward_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, K, C, q, u, tau, w_phi, w_V, w_A, w_F, w_ab,
                          w_pose, w_VN, w_P, w_G, w_Dinv, w_eps, scratch, udot):
    """udot from (q, u, tau) by the articulated-body recursion; False if some D is singular.

    The inward pass pulls: at link k, M_k(eta), P_k, D^-1 and G are made in the scratch the
    links share (SCR, kernels/flex_layout.py), P_k taking its children's P+ and z+ (rigid
    rows) as it is made. Per link only what a later step reads is written: P+[:6, :6] at
    PADR (row stride 6) for the parent, nu = D^-1 eps at EADR and G's rigid rows at GADR for
    the outward pass. Writing whole blocks per link cost a chain of 1000 ten-mode bodies
    9-12 % more per link than one of 100 (the blocks fall out of the L2 cache between the
    passes and each write fetches its line again); now 3-6 % (bench_flex's ratio 1000/100
    9.6-11.3 in fourteen runs, median 10.4; 10.3-12.1 before), and 8 % faster at 100 bodies."""
    n = mi.shape[0]
    flex_kinematics(mi, mf, ws, fi, fnode, q, u, w_phi, w_V, w_ab, w_pose, w_VN)
    ok = True
    for k in range(n - 1, -1, -1):
        nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
        vo, pa, ga, ea = fi[k, FL.VOFF], fi[k, FL.PADR], fi[k, FL.GADR], fi[k, FL.EADR]
        y, nb2 = fi[k, FL.SCR], nb * nb
        sm, sp, sd, sg = y + FL.SCR_M * nb2, y + FL.SCR_P * nb2, y + FL.SCR_D * nb2, y + FL.SCR_G * nb2
        body_mass(fi, fmass, fm1, fm2, k, q, Mq, sm)
        for i in range(nb * nb):
            Mq[sp + i] = Mq[sm + i]
        bias_force(fi, Mq, sm, fm1, fm2, k, q, w_V, w_F, vo)  # z = b ...
        c = k + 1
        while c < mi[k, SUBTREE_END]:  # ... + the children's z+, P += their P+
            child_inertia_to_parent(fi, w_phi, w_P, fi[c, FL.PADR], 6, c, Mq, sp, nb, scratch)
            force_to_parent(fi, w_phi, w_F, c, k, w_F, fi[c, FL.VOFF])
            c = mi[c, SUBTREE_END]
        inertia_times(Mq, sp, nb, w_ab, vo, w_F, vo)  # ... + P abias
        if not articulated_step(mf, fi, k, nu, Mq, sp, Mq, sg, Mq, sd, scratch):  # U, D^-1, G, P+
            ok = False
        u0 = mi[k, UOFF]
        for r in range(nk):  # eps = tau - elastic - H z
            e = tau[u0 + r]
            if r >= nu:
                e -= modal_force(fi, K, C, k, q, u, r - nu)
                e -= w_F[vo + 6 + r - nu]
            else:
                e -= hinge_force(mf, k, r, w_F, vo)
            scratch[r] = e
        for r in range(nb):  # z+ = z + G eps
            s = 0.0
            for m in range(nk):
                s += Mq[sg + r * nk + m] * scratch[m]
            w_F[vo + r] += s
        for r in range(nk):  # what waits for the outward pass: nu = D^-1 eps, G's rigid rows
            s = 0.0
            for m in range(nk):
                s += Mq[sd + r * nk + m] * scratch[m]
            w_eps[ea + r] = s
        for i in range(6 * nk):
            w_G[ga + i] = Mq[sg + i]
        for r in range(6):  # and what waits for the parent: P+[:6, :6] (row stride 6)
            for c in range(6):
                w_P[pa + 6 * r + c] = Mq[sp + r * nb + c]
    for k in range(n):
        nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
        vo, ga, ea = fi[k, FL.VOFF], fi[k, FL.GADR], fi[k, FL.EADR]
        _parent_acceleration(mf, n, fi, w_phi, w_A, k, mi[k, PARENT], w_A, vo)
        for i in range(6, nb):
            w_A[vo + i] = 0.0
        u0 = mi[k, UOFF]
        for r in range(nk):  # udot = nu - G^T a'
            s = w_eps[ea + r]
            for m in range(6):
                s -= w_G[ga + m * nk + r] * w_A[vo + m]
            udot[u0 + r] = s
        for r in range(nb):  # a = a' + H^T udot + abias
            s = 0.0
            for m in range(nk):
                s += _h_entry(mf, k, nu, m, r) * udot[u0 + m]
            w_A[vo + r] += s + w_ab[vo + r]
    return ok
