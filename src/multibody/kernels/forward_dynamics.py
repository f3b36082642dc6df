"""Articulated-body-inertia forward dynamics (ABA / ATBI), O(N).

Pass 1 (outward): v_j = X_j v_p + S_j u_j, c_j = v_j x (S_j u_j),
    IA_j = I_j, pA_j = v_j x* I_j v_j - f_ext_j.
Pass 2 (inward): U = IA S, D = S^T U, res = tau_j - S^T pA;
    Ia = IA - U D^-1 U^T, pa = pA + Ia c + U D^-1 res,
    IA_p += X^T Ia X, pA_p += X^T pa.
Pass 3 (outward): a' = X_j a_p + c_j, udot_j = D^-1 (res - U^T a'),
    a_j = a' + S_j udot_j; the base is accelerated by -g.
"""
from numba import njit

from .common import first_nonfinite, joint_motion, rigid_inertia_times, world_acceleration_in_link
from .joint_transform import link_placement
from .layout import INERTIA, NU, PARENT, S_COLS, UOFF, W_A, W_C, W_DINV, W_F, W_IA, W_P, W_R, W_RES, W_U, W_V
from .spatial_inline import cross_force_add, cross_motion_add, force_to_parent_add, inertia_to_parent_add, motion_to_child


@njit(cache=True, inline="always")
def spd_inverse(A, off, n):
    """Invert the n x n symmetric positive-definite row-major block A[off:] in place.

    Gauss-Jordan without pivoting, which is stable for SPD matrices.
    Returns False when a pivot is not positive (singular joint-space inertia).
    """
    for k in range(n):
        piv = A[off + n * k + k]
        if not piv > 0.0:
            return False
        inv = 1.0 / piv
        A[off + n * k + k] = 1.0
        for c in range(n):
            A[off + n * k + c] *= inv
        for r in range(n):
            if r != k:
                fac = A[off + n * r + k]
                if fac != 0.0:
                    A[off + n * r + k] = 0.0
                    for c in range(n):
                        A[off + n * r + c] -= fac * A[off + n * k + c]
    return True


@njit(cache=True)
def aba_core(mi, mf, ws, q, u, tau, fext, udot):
    """udot = M^-1 (tau - b + J^T f_ext). Returns False when some D_j is singular."""
    n = mi.shape[0]
    for j in range(n):
        link_placement(mi, mf, ws, q, j)
        p = mi[j, PARENT]
        v = ws[j, W_V:W_V + 6]
        if p < 0:
            for k in range(6):
                v[k] = 0.0
        else:
            motion_to_child(ws[j, W_R:W_R + 9], ws[j, W_P:W_P + 3], ws[p, W_V:W_V + 6], v)
        vj = ws[j, W_A:W_A + 6]  # scratch: accelerations are written in pass 3
        joint_motion(mi, mf, j, u, vj)
        c = ws[j, W_C:W_C + 6]
        for k in range(6):
            v[k] += vj[k]
            c[k] = 0.0
        cross_motion_add(v, vj, c)
        for k in range(36):
            ws[j, W_IA + k] = mf[j, INERTIA + k]
        pA = ws[j, W_F:W_F + 6]
        hv = ws[j, W_RES:W_RES + 6]
        rigid_inertia_times(mf, j, v, hv)
        for k in range(6):
            pA[k] = -fext[j, k]
        cross_force_add(v, hv, pA)

    for j in range(n - 1, -1, -1):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        IA = ws[j, W_IA:W_IA + 36]
        U = ws[j, W_U:W_U + 36]
        pA = ws[j, W_F:W_F + 6]
        res = ws[j, W_RES:W_RES + 6]
        for k in range(nj):
            for r in range(6):
                s = 0.0
                for cc in range(6):
                    s += IA[6 * r + cc] * mf[j, S_COLS + 6 * k + cc]
                U[6 * k + r] = s
            s = 0.0
            for r in range(6):
                s += mf[j, S_COLS + 6 * k + r] * pA[r]
            res[k] = tau[uj + k] - s
        Dinv = ws[j, W_DINV:W_DINV + 36]
        for a in range(nj):
            for b in range(nj):
                s = 0.0
                for r in range(6):
                    s += mf[j, S_COLS + 6 * a + r] * U[6 * b + r]
                Dinv[nj * a + b] = s
        if not spd_inverse(Dinv, 0, nj):
            return False
        p = mi[j, PARENT]
        if p < 0:
            continue
        # Ia = IA - U Dinv U^T ; pa = pA + Ia c + U Dinv res   (in place)
        for r in range(6):
            for cc in range(r, 6):
                s = 0.0
                for a in range(nj):
                    ua = U[6 * a + r]
                    for b in range(nj):
                        s += ua * Dinv[nj * a + b] * U[6 * b + cc]
                IA[6 * r + cc] -= s
                if cc != r:
                    IA[6 * cc + r] = IA[6 * r + cc]
        c = ws[j, W_C:W_C + 6]
        for r in range(6):
            s = 0.0
            for cc in range(6):
                s += IA[6 * r + cc] * c[cc]
            for a in range(nj):
                t = 0.0
                for b in range(nj):
                    t += Dinv[nj * a + b] * res[b]
                s += U[6 * a + r] * t
            pA[r] += s
        R = ws[j, W_R:W_R + 9]
        P = ws[j, W_P:W_P + 3]
        inertia_to_parent_add(R, P, IA, ws[p, W_IA:W_IA + 36])
        force_to_parent_add(R, P, pA, ws[p, W_F:W_F + 6])

    for j in range(n):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        p = mi[j, PARENT]
        a = ws[j, W_A:W_A + 6]
        if p < 0:
            world_acceleration_in_link(mf, n, ws, j, a)
        else:
            motion_to_child(ws[j, W_R:W_R + 9], ws[j, W_P:W_P + 3], ws[p, W_A:W_A + 6], a)
        for k in range(6):
            a[k] += ws[j, W_C + k]
        U = ws[j, W_U:W_U + 36]
        res = ws[j, W_RES:W_RES + 6]
        for k in range(nj):
            s = 0.0
            for r in range(6):
                s += U[6 * k + r] * a[r]
            res[k] -= s
        Dinv = ws[j, W_DINV:W_DINV + 36]
        for k in range(nj):
            s = 0.0
            for b in range(nj):
                s += Dinv[nj * k + b] * res[b]
            udot[uj + k] = s
        for k in range(nj):
            ud = udot[uj + k]
            for r in range(6):
                a[r] += mf[j, S_COLS + 6 * k + r] * ud
    return True


@njit(cache=True)
def forward_dynamics(mi, mf, ws, q, u, tau, fext, udot):
    """Checked entry point: 0 ok; 1/2/3 non-finite q/u/tau; 4 singular joint inertia."""
    if first_nonfinite(q) >= 0:
        return 1
    if first_nonfinite(u) >= 0:
        return 2
    if first_nonfinite(tau) >= 0:
        return 3
    if not aba_core(mi, mf, ws, q, u, tau, fext, udot):
        return 4
    return 0
