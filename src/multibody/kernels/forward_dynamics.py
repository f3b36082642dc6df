"""Articulated-body-inertia forward dynamics (ABA / ATBI), O(N), in three passes.

Pass 1 (outward, velocities and bias forces): v_j = X_j v_p + S_j u_j,
    c_j = v_j x (S_j u_j), pA_j = v_j x* I_j v_j - f_ext_j.
Pass 2 (inward): the articulated-inertia step (articulated_inertia.py: U, D^-1, G,
    P+) and the bias step: res_j = tau_j - S_j^T pA_j,
    pa_j = pA_j + P+_j c_j + G_j res_j, pA_p += X_j^T pa_j.
Pass 3 (outward, accelerations): a'_j = X_j a_p + c_j,
    udot_j = D_j^-1 (res_j - U_j^T a'_j), a_j = a'_j + S_j udot_j; the base is
    accelerated by -g (gravity).
Everything the passes compute stays in the data (ws rows and the ragged blocks of z)
for later passes (the inverse mass matrix and the operational-space compliance reuse
the articulated-inertia step). The passes are three loops written out in one function:
helpers that held a whole pass step made the loops slower (bench/README.md).

A PIN link's steps of passes 1 and 3 keep v, c, pA and a in registers and store only what
a later step reads (S = e_z after compile's re-framing: the general sums without the zero
terms of S, so the same numbers); a link of another kind takes ``_general_velocity_step``,
out of line, which a chain of PIN links never calls.

Two variants of each kernel (``_make_aba_core(general)``): ``aba_core`` for links of any
kind, ``aba_pin_core`` for models whose links are all PIN (``joint_transform.pin_variant``),
which does not compile the general articulated-inertia step and placements; the same
numbers either way.
"""
from numba import njit

from .variants import variant
from .articulated_inertia import general_inertia_step, init_articulated_inertia, pin_inertia_step
from .common import (
    check_state, data_start, joint_motion, link_rows, model_arrays, ragged, result_status, world_acceleration_t,
)
from .inertia_transfer import inertia_to_parent_add, load_sym66, sym66_times
from .joint_transform import place_links, place_pin_links
from .layout import (
    D_USE_FEXT, DINV_ADR, G_ADR, INERTIA, KIND, NU, PARENT, PIN, RB_MASS, RES_ADR, S_COLS, U_ADR, UOFF, W_A, W_C,
    W_F, W_FEXT, W_PPLUS, W_TMP, W_V, W_IA,
)
from .spatial_inline import (
    cross_force_add, cross_force_t, cross_motion_add, force_to_parent_t, mat66_vec, rigid_inertia_times,
    motion_to_child, motion_to_child_t, store6,
)
from .status import OK, SINGULAR


def _make_aba_core(general):
    """``aba_core`` (``general``: links of any kind) or its PIN-only variant; ``general`` is a
    constant of the closure, so the branches on it are pruned before typing."""

    @variant("aba_core" if general else "aba_pin_core", _nrt=False)
    def aba_core(mi, mf, ws, z, q, u, tau, use_fext, udot):
        """udot = M^-1 (tau - b + J^T f_ext), with f_ext in ws[:, W_FEXT] (link frames) when
        use_fext is true. Returns False when some D_j is singular."""
        n = mi.shape[0]
        if general:
            place_links(mi, mf, ws, q)
        else:
            place_pin_links(mi, mf, ws, q)
        # pass 1 (outward): v, c and the rigid bias force pA
        for j in range(n):
            p = mi[j, PARENT]
            if general and mi[j, KIND] != PIN:
                _general_velocity_step(mi, mf, ws, j, p, u, use_fext)
            else:  # S = e_z: v, c and pA in registers (the general sums without S's zeros)
                if p < 0:
                    v0 = v1 = v2 = v3 = v4 = v5 = 0.0
                else:
                    v0, v1, v2, v3, v4, v5 = motion_to_child_t(ws, j, ws, p, W_V)
                w = u[mi[j, UOFF]]
                v2 += w
                store6(ws, j, W_V, v0, v1, v2, v3, v4, v5)
                store6(ws, j, W_C, v1 * w, -(v0 * w), 0.0, v4 * w, -(v3 * w), 0.0)  # v x (S u)
                h = rigid_inertia_times(mf, j, RB_MASS, v0, v1, v2, v3, v4, v5)  # (10 numbers, not 36)
                x = cross_force_t(v0, v1, v2, v3, v4, v5, h[0], h[1], h[2], h[3], h[4], h[5])
                if use_fext:
                    store6(ws, j, W_F, -ws[j, W_FEXT] + x[0], -ws[j, W_FEXT + 1] + x[1], -ws[j, W_FEXT + 2] + x[2],
                           -ws[j, W_FEXT + 3] + x[3], -ws[j, W_FEXT + 4] + x[4], -ws[j, W_FEXT + 5] + x[5])
                else:
                    store6(ws, j, W_F, x[0], x[1], x[2], x[3], x[4], x[5])
            init_articulated_inertia(mf, ws, j)
        # pass 2 (inward): articulated inertias; res = tau - S^T pA; pa to the parent
        for j in range(n - 1, -1, -1):
            nj = mi[j, NU]
            uj = mi[j, UOFF]
            ra = mi[j, RES_ADR]
            if not general or mi[j, KIND] == PIN:
                ok, P, G = pin_inertia_step(mi, mf, ws, z, j)
                res = tau[uj] - ws[j, W_F + 2]
                z[ra] = res
            else:
                ok = general_inertia_step(mi, mf, ws, z, j)
                P = load_sym66(ws, j, W_PPLUS)
                G, res = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0), 0.0  # (unread: G is in z, res in z)
                for k in range(nj):
                    s = 0.0
                    for r in range(6):
                        s += mf[j, S_COLS + 6 * k + r] * ws[j, W_F + r]
                    z[ra + k] = tau[uj + k] - s
            if not ok:
                return False
            p = mi[j, PARENT]
            if p < 0:
                continue
            # pa = pA + G res + P+ c, passed to the parent (a PIN link's in registers)
            pc = sym66_times(P, ws[j, W_C], ws[j, W_C + 1], ws[j, W_C + 2], ws[j, W_C + 3], ws[j, W_C + 4],
                             ws[j, W_C + 5])
            if not general or mi[j, KIND] == PIN:
                a0 = ws[j, W_F] + G[0] * res + pc[0]
                a1 = ws[j, W_F + 1] + G[1] * res + pc[1]
                a2 = ws[j, W_F + 2] + G[2] * res + pc[2]
                a3 = ws[j, W_F + 3] + G[3] * res + pc[3]
                a4 = ws[j, W_F + 4] + G[4] * res + pc[4]
                a5 = ws[j, W_F + 5] + G[5] * res + pc[5]
                store6(ws, j, W_F, a0, a1, a2, a3, a4, a5)
            else:
                ga = mi[j, G_ADR]
                for k in range(nj):
                    g = z[ra + k]
                    for r in range(6):
                        ws[j, W_F + r] += z[ga + 6 * k + r] * g
                for k in range(6):
                    ws[j, W_F + k] += pc[k]
                a0, a1, a2, a3, a4, a5 = (ws[j, W_F], ws[j, W_F + 1], ws[j, W_F + 2], ws[j, W_F + 3], ws[j, W_F + 4],
                                          ws[j, W_F + 5])
            inertia_to_parent_add(ws, j, P, ws, p, W_IA)
            f = force_to_parent_t(ws, j, a0, a1, a2, a3, a4, a5)
            for k in range(6):
                ws[p, W_F + k] += f[k]
        # pass 3 (outward): a' = X a_p + c, udot = D^-1 (res - U^T a'), a = a' + S udot
        for j in range(n):
            nj = mi[j, NU]
            uj = mi[j, UOFF]
            ra = mi[j, RES_ADR]
            ua = mi[j, U_ADR]
            da = mi[j, DINV_ADR]
            p = mi[j, PARENT]
            if p < 0:
                a0, a1, a2, a3, a4, a5 = world_acceleration_t(mf, n, ws, j)
            else:
                a0, a1, a2, a3, a4, a5 = motion_to_child_t(ws, j, ws, p, W_A)
            a0 += ws[j, W_C]
            a1 += ws[j, W_C + 1]
            a2 += ws[j, W_C + 2]
            a3 += ws[j, W_C + 3]
            a4 += ws[j, W_C + 4]
            a5 += ws[j, W_C + 5]
            if not general or nj == 1:  # (PIN-only variant: every link has one speed)
                s = (z[ra] - z[ua] * a0 - z[ua + 1] * a1 - z[ua + 2] * a2 - z[ua + 3] * a3 - z[ua + 4] * a4
                     - z[ua + 5] * a5)
                ud = z[da] * s
                udot[uj] = ud
                if not general or mi[j, KIND] == PIN:  # a += S udot, S = e_z
                    store6(ws, j, W_A, a0, a1, a2 + ud, a3, a4, a5)
                else:
                    store6(ws, j, W_A, a0 + mf[j, S_COLS] * ud, a1 + mf[j, S_COLS + 1] * ud,
                           a2 + mf[j, S_COLS + 2] * ud, a3 + mf[j, S_COLS + 3] * ud, a4 + mf[j, S_COLS + 4] * ud,
                           a5 + mf[j, S_COLS + 5] * ud)
                continue
            store6(ws, j, W_A, a0, a1, a2, a3, a4, a5)
            for k in range(nj):
                s = z[ra + k]
                for r in range(6):
                    s -= z[ua + 6 * k + r] * ws[j, W_A + r]
                ws[j, W_TMP + k] = s
            for k in range(nj):
                s = 0.0
                for b in range(nj):
                    s += z[da + nj * k + b] * ws[j, W_TMP + b]
                udot[uj + k] = s
            for k in range(nj):
                ud = udot[uj + k]
                for r in range(6):
                    ws[j, W_A + r] += mf[j, S_COLS + 6 * k + r] * ud
        return True

    return aba_core


@njit(cache=True, _nrt=False)
def _general_velocity_step(mi, mf, ws, j, p, u, use_fext):
    """Pass 1's step for a link of any kind: v, c = v x (S u) and the rigid bias force pA.
    Out of line: a chain of PIN links never takes it, and then it costs nothing."""
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
    mat66_vec(mf, j, INERTIA, ws, j, W_V, ws, j, W_A)  # I v, in W_A until pass 3
    for k in range(6):
        ws[j, W_F + k] = -ws[j, W_FEXT + k] if use_fext else 0.0
    cross_force_add(ws, j, W_V, ws, j, W_A, ws, j, W_F)


aba_core = _make_aba_core(True)
aba_pin_core = _make_aba_core(False)  # PIN links only (joint_transform.pin_variant)


def _make_forward_dynamics(general):
    @variant("forward_dynamics" if general else "forward_dynamics_pins", _nrt=False)
    def forward_dynamics(dbuf, q, u, tau, udot):
        """Checked entry point: a status (kernels/status.py) for (q, u, tau), SINGULAR, or
        OVERFLOW (a non-finite udot)."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        z = ragged(dbuf, d0, n)
        st = check_state(mi, q, u, tau, 1, 1)
        if st == OK:
            use_fext = dbuf[d0, D_USE_FEXT] != 0.0
            if general:  # (a constant of the variant)
                ok = aba_core(mi, mf, ws, z, q, u, tau, use_fext, udot)
            else:
                ok = aba_pin_core(mi, mf, ws, z, q, u, tau, use_fext, udot)
            if not ok:
                return SINGULAR
        return result_status(st, udot)

    return forward_dynamics


forward_dynamics = _make_forward_dynamics(True)
forward_dynamics_pins = _make_forward_dynamics(False)  # PIN links only (joint_transform.pin_variant)
