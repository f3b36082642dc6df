"""Recursive Newton-Euler inverse dynamics (RNEA), O(N).

Outward pass: link velocities v_j = X_j v_p + S_j u_j and accelerations
a_j = X_j a_p + S_j udot_j + v_j x (S_j u_j), the base accelerated by -g.
Each link's net force f_j = I_j a_j + v_j x* I_j v_j - f_ext_j.
Inward pass: tau_j = S_j^T f_j and f_p += X_j^T f_j.
"""
from numba import njit

from .common import first_nonfinite, joint_motion, joint_motion_add, rigid_inertia_times, world_acceleration_in_link
from .joint_transform import link_placement
from .layout import NU, PARENT, S_COLS, UOFF, W_A, W_C, W_F, W_P, W_R, W_V
from .spatial_inline import cross_force_add, cross_motion_add, force_to_parent_add, motion_to_child


@njit(cache=True)
def rnea_core(mi, mf, ws, q, u, udot, fext, tau):
    """tau = M(q) udot + b(q, u) - J^T f_ext; fext is (n_links, 6) in link frames."""
    n = mi.shape[0]
    for j in range(n):
        link_placement(mi, mf, ws, q, j)
        p = mi[j, PARENT]
        R = ws[j, W_R:W_R + 9]
        P = ws[j, W_P:W_P + 3]
        v = ws[j, W_V:W_V + 6]
        a = ws[j, W_A:W_A + 6]
        vj = ws[j, W_C:W_C + 6]
        if p < 0:
            for k in range(6):
                v[k] = 0.0
            world_acceleration_in_link(mf, n, ws, j, a)
        else:
            motion_to_child(R, P, ws[p, W_V:W_V + 6], v)
            motion_to_child(R, P, ws[p, W_A:W_A + 6], a)
        joint_motion(mi, mf, j, u, vj)
        for k in range(6):
            v[k] += vj[k]
        joint_motion_add(mi, mf, j, udot, a)
        cross_motion_add(v, vj, a)
        f = ws[j, W_F:W_F + 6]
        rigid_inertia_times(mf, j, a, f)
        hv = ws[j, W_C:W_C + 6]  # S u no longer needed: reuse for I v
        rigid_inertia_times(mf, j, v, hv)
        cross_force_add(v, hv, f)
        for k in range(6):
            f[k] -= fext[j, k]
    for j in range(n - 1, -1, -1):
        f = ws[j, W_F:W_F + 6]
        i0 = mi[j, UOFF]
        for k in range(mi[j, NU]):
            s = 0.0
            for r in range(6):
                s += mf[j, S_COLS + 6 * k + r] * f[r]
            tau[i0 + k] = s
        p = mi[j, PARENT]
        if p >= 0:
            force_to_parent_add(ws[j, W_R:W_R + 9], ws[j, W_P:W_P + 3], f, ws[p, W_F:W_F + 6])


@njit(cache=True)
def inverse_dynamics(mi, mf, ws, q, u, udot, fext, tau):
    """Checked entry point: returns 0, or 1/2/3 when q/u/udot holds a non-finite value."""
    if first_nonfinite(q) >= 0:
        return 1
    if first_nonfinite(u) >= 0:
        return 2
    if first_nonfinite(udot) >= 0:
        return 3
    rnea_core(mi, mf, ws, q, u, udot, fext, tau)
    return 0
