"""Recursive Newton-Euler inverse dynamics (RNEA), O(N).

Outward pass: link velocities v_j = X_j v_p + S_j u_j and accelerations
a_j = X_j a_p + S_j udot_j + v_j x (S_j u_j), the base accelerated by -g.
Each link's net force f_j = I_j a_j + v_j x* I_j v_j - f_ext_j.
Inward pass: tau_j = S_j^T f_j + A_j udot_j (A_j: the armature) and f_p += X_j^T f_j.
"""
from numba import njit

from .variants import variant
from .common import (
    check_state, data_start, joint_force, joint_motion, joint_motion_add, link_rows, model_arrays, result_status,
    world_acceleration_in_link, world_acceleration_t,
)
from .joint_transform import place_links, place_pin_links
from .layout import ARMATURE, D_USE_FEXT, INERTIA, KIND, NU, PARENT, PIN, RB_MASS, UOFF, W_A, W_C, W_F, W_FEXT, W_V
from .spatial_inline import (
    cross_force_add, cross_force_t, cross_motion_add, force_to_parent, mat66_vec, motion_to_child,
    motion_to_child_t, rigid_inertia_times, store6,
)


def _make_rnea_core(general):
    """``rnea_core`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("rnea_core" if general else "rnea_pin_core", _nrt=False)
    def rnea_core(mi, mf, ws, q, u, udot, use_fext, tau):
        """tau = M(q) udot + b(q, u) - J^T f_ext, with f_ext in ws[:, W_FEXT] (link frames)
        when use_fext is non-zero.

        A PIN link (S = e_z, compile's re-framing) keeps v, a and f in registers and stores
        only what later steps read (v and a for its children, f for the inward pass): the
        general step's stores and reloads of each partial sum cost a third of the kernel on
        a 6-link arm. Its sums are the general step's with the zero terms of S left out, so
        the results are the same to the bit.
        """
        n = mi.shape[0]
        if general:  # (a constant of the variant)
            place_links(mi, mf, ws, q)
        else:
            place_pin_links(mi, mf, ws, q)
        for j in range(n):
            p = mi[j, PARENT]
            if general and mi[j, KIND] != PIN:
                _general_outward_step(mi, mf, ws, j, p, u, udot)
            else:
                if p < 0:
                    v0 = v1 = v2 = v3 = v4 = v5 = 0.0
                    a0, a1, a2, a3, a4, a5 = world_acceleration_t(mf, n, ws, j)
                else:
                    v0, v1, v2, v3, v4, v5 = motion_to_child_t(ws, j, ws, p, W_V)
                    a0, a1, a2, a3, a4, a5 = motion_to_child_t(ws, j, ws, p, W_A)
                uj = mi[j, UOFF]
                w = u[uj]
                v2 += w  # v += S u
                a2 += udot[uj]  # a += S udot + v x (S u)
                a0 += v1 * w
                a1 -= v0 * w
                a3 += v4 * w
                a4 -= v3 * w
                store6(ws, j, W_V, v0, v1, v2, v3, v4, v5)
                store6(ws, j, W_A, a0, a1, a2, a3, a4, a5)
                f = rigid_inertia_times(mf, j, RB_MASS, a0, a1, a2, a3, a4, a5)  # (10 numbers, not 36)
                h = rigid_inertia_times(mf, j, RB_MASS, v0, v1, v2, v3, v4, v5)
                x = cross_force_t(v0, v1, v2, v3, v4, v5, h[0], h[1], h[2], h[3], h[4], h[5])
                store6(ws, j, W_F, f[0] + x[0], f[1] + x[1], f[2] + x[2], f[3] + x[3], f[4] + x[4], f[5] + x[5])
            if use_fext:
                for k in range(6):
                    ws[j, W_F + k] -= ws[j, W_FEXT + k]
        for j in range(n - 1, -1, -1):
            uj = mi[j, UOFF]
            if general and mi[j, KIND] != PIN:
                joint_force(mi, mf, j, ws, j, W_F, tau)
            else:
                tau[uj] = ws[j, W_F + 2]  # S^T f
            for k in range(mi[j, NU]):  # the armature's torque: a rotor accelerated with its joint
                tau[uj + k] += mf[j, ARMATURE + k] * udot[uj + k]
            p = mi[j, PARENT]
            if p >= 0:
                f = force_to_parent(ws, j, ws, j, W_F)
                for k in range(6):
                    ws[p, W_F + k] += f[k]

    return rnea_core


@njit(cache=True, _nrt=False)
def _general_outward_step(mi, mf, ws, j, p, u, udot):
    """The outward step of a link of any kind: v, a (with the root's -g) and the net force f.
    Out of line: a chain of PIN links never takes it, and then it costs nothing."""
    if p < 0:
        for k in range(6):
            ws[j, W_V + k] = 0.0
        world_acceleration_in_link(mf, mi.shape[0], ws, j, ws, j, W_A)
    else:
        motion_to_child(ws, j, ws, p, W_V, ws, j, W_V)
        motion_to_child(ws, j, ws, p, W_A, ws, j, W_A)
    joint_motion(mi, mf, j, u, ws, j, W_C)  # vJ = S u
    for k in range(6):
        ws[j, W_V + k] += ws[j, W_C + k]
    joint_motion_add(mi, mf, j, udot, ws, j, W_A)
    cross_motion_add(ws, j, W_V, ws, j, W_C, ws, j, W_A)
    mat66_vec(mf, j, INERTIA, ws, j, W_A, ws, j, W_F)
    mat66_vec(mf, j, INERTIA, ws, j, W_V, ws, j, W_C)  # I v (vJ no longer needed)
    cross_force_add(ws, j, W_V, ws, j, W_C, ws, j, W_F)


rnea_core = _make_rnea_core(True)
rnea_pin_core = _make_rnea_core(False)  # PIN links only (joint_transform.pin_variant)


def _make_inverse_dynamics(general):
    """The checked entry point of ``rnea_core`` or of its PIN-only variant."""

    @variant("inverse_dynamics" if general else "inverse_dynamics_pins", _nrt=False)
    def inverse_dynamics(dbuf, q, u, udot, tau):
        """Checked entry point: a status (kernels/status.py) for (q, u, udot), or OVERFLOW."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        st = check_state(mi, q, u, udot, 1, 1)
        if st == 0:
            if general:  # (a constant of the variant)
                rnea_core(mi, mf, ws, q, u, udot, dbuf[d0, D_USE_FEXT] != 0.0, tau)
            else:
                rnea_pin_core(mi, mf, ws, q, u, udot, dbuf[d0, D_USE_FEXT] != 0.0, tau)
        return result_status(st, tau)

    return inverse_dynamics


inverse_dynamics = _make_inverse_dynamics(True)
inverse_dynamics_pins = _make_inverse_dynamics(False)  # PIN links only (joint_transform.pin_variant)
