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

from .common import check_state, split_buffer, joint_motion, world_acceleration_in_link
from .joint_transform import place_links
from .layout import INERTIA, KIND, NU, PIN, USE_FEXT, PARENT, S_COLS, UOFF, W_A, W_C, W_DINV, W_F, W_FEXT, W_IA, W_RES, W_U, W_V
from .spatial_inline import (
    cross_force_add, cross_motion_add, force_to_parent, inertia_to_parent_add, mat66_vec, motion_to_child,
)


@njit(cache=True, inline="always")
def spd_inverse(A, row, off, n):
    """Invert the n x n symmetric positive-definite row-major block A[row, off:] in place.

    Gauss-Jordan without pivoting, which is stable for SPD matrices.
    Returns False when a pivot is not positive (singular joint-space inertia).
    """
    for k in range(n):
        piv = A[row, off + n * k + k]
        if not piv > 0.0:
            return False
        inv = 1.0 / piv
        A[row, off + n * k + k] = 1.0
        for c in range(n):
            A[row, off + n * k + c] *= inv
        for r in range(n):
            if r != k:
                fac = A[row, off + n * r + k]
                if fac != 0.0:
                    A[row, off + n * r + k] = 0.0
                    for c in range(n):
                        A[row, off + n * r + c] -= fac * A[row, off + n * k + c]
    return True


@njit(cache=True)
def aba_core(mi, mf, ws, q, u, tau, use_fext, udot):
    """udot = M^-1 (tau - b + J^T f_ext), with f_ext in ws[:, W_FEXT] (link frames) when
    use_fext is non-zero. Returns False when some D_j is singular."""
    n = mi.shape[0]
    place_links(mi, mf, ws, q)
    for j in range(n):
        p = mi[j, PARENT]
        if p < 0:
            for k in range(6):
                ws[j, W_V + k] = 0.0
        else:
            motion_to_child(ws, j, ws, p, W_V, ws, j, W_V)
        joint_motion(mi, mf, j, u, ws, j, W_A)  # vJ, in W_A until pass 3
        for k in range(6):
            ws[j, W_V + k] += ws[j, W_A + k]
            ws[j, W_C + k] = 0.0
        cross_motion_add(ws, j, W_V, ws, j, W_A, ws, j, W_C)
        for k in range(36):
            ws[j, W_IA + k] = mf[j, INERTIA + k]
        mat66_vec(mf, j, INERTIA, ws, j, W_V, ws, j, W_RES)  # I v, in W_RES until pass 2
        for k in range(6):
            ws[j, W_F + k] = -ws[j, W_FEXT + k] if use_fext else 0.0
        cross_force_add(ws, j, W_V, ws, j, W_RES, ws, j, W_F)

    for j in range(n - 1, -1, -1):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        if mi[j, KIND] == PIN:  # S = e_z: U is column 2 of IA, D = IA[2, 2]
            for r in range(6):
                ws[j, W_U + r] = ws[j, W_IA + 6 * r + 2]
            ws[j, W_RES] = tau[uj] - ws[j, W_F + 2]
            d = ws[j, W_U + 2]
            if not d > 0.0:
                return False
            ws[j, W_DINV] = 1.0 / d
        else:
            for k in range(nj):
                for r in range(6):
                    s = 0.0
                    for c in range(6):
                        s += ws[j, W_IA + 6 * r + c] * mf[j, S_COLS + 6 * k + c]
                    ws[j, W_U + 6 * k + r] = s
                s = 0.0
                for r in range(6):
                    s += mf[j, S_COLS + 6 * k + r] * ws[j, W_F + r]
                ws[j, W_RES + k] = tau[uj + k] - s
            for a in range(nj):
                for b in range(nj):
                    s = 0.0
                    for r in range(6):
                        s += mf[j, S_COLS + 6 * a + r] * ws[j, W_U + 6 * b + r]
                    ws[j, W_DINV + nj * a + b] = s
            if not spd_inverse(ws, j, W_DINV, nj):
                return False
        p = mi[j, PARENT]
        if p < 0:
            continue
        # Ia = IA - U Dinv U^T and pa = pA + Ia c + U Dinv res, in place
        if nj == 1:
            dinv = ws[j, W_DINV]
            for r in range(6):
                ur = ws[j, W_U + r] * dinv
                for c in range(r, 6):
                    ws[j, W_IA + 6 * r + c] -= ur * ws[j, W_U + c]
                    ws[j, W_IA + 6 * c + r] = ws[j, W_IA + 6 * r + c]
            g = dinv * ws[j, W_RES]
            for r in range(6):
                ws[j, W_F + r] += ws[j, W_U + r] * g
        else:
            for r in range(6):
                for c in range(r, 6):
                    s = 0.0
                    for a in range(nj):
                        ua = ws[j, W_U + 6 * a + r]
                        for b in range(nj):
                            s += ua * ws[j, W_DINV + nj * a + b] * ws[j, W_U + 6 * b + c]
                    ws[j, W_IA + 6 * r + c] -= s
                    ws[j, W_IA + 6 * c + r] = ws[j, W_IA + 6 * r + c]
            for a in range(nj):
                t = 0.0
                for b in range(nj):
                    t += ws[j, W_DINV + nj * a + b] * ws[j, W_RES + b]
                for r in range(6):
                    ws[j, W_F + r] += ws[j, W_U + 6 * a + r] * t
        for r in range(6):
            s = 0.0
            for c in range(6):
                s += ws[j, W_IA + 6 * r + c] * ws[j, W_C + c]
            ws[j, W_F + r] += s
        inertia_to_parent_add(ws, j, ws, j, W_IA, ws, p, W_IA)
        f = force_to_parent(ws, j, ws, j, W_F)
        for k in range(6):
            ws[p, W_F + k] += f[k]

    for j in range(n):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        p = mi[j, PARENT]
        if p < 0:
            world_acceleration_in_link(mf, n, ws, j, ws, j, W_A)
        else:
            motion_to_child(ws, j, ws, p, W_A, ws, j, W_A)
        for k in range(6):
            ws[j, W_A + k] += ws[j, W_C + k]
        for k in range(nj):
            s = 0.0
            for r in range(6):
                s += ws[j, W_U + 6 * k + r] * ws[j, W_A + r]
            ws[j, W_RES + k] -= s
        for k in range(nj):
            s = 0.0
            for b in range(nj):
                s += ws[j, W_DINV + nj * k + b] * ws[j, W_RES + b]
            udot[uj + k] = s
        for k in range(nj):
            ud = udot[uj + k]
            for r in range(6):
                ws[j, W_A + r] += mf[j, S_COLS + 6 * k + r] * ud
    return True


@njit(cache=True)
def forward_dynamics(buf, q, u, tau, udot):
    """Checked entry point on the model buffer: 0 ok, 4 singular joint inertia, else a
    ``check_state`` status."""
    mi, mf, ws = split_buffer(buf)
    st = check_state(mi, q, u, tau, 1, 1)
    if st == 0 and not aba_core(mi, mf, ws, q, u, tau, mf[mi.shape[0], USE_FEXT] != 0.0, udot):
        return 4
    return st
