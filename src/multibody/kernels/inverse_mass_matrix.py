"""The inverse mass matrix M^-1 by an articulated-body recursion, O(N nu), no factorisation.

With v = 0 and g = 0, forward dynamics is linear in tau: udot = M^-1 tau; the ABA's passes
on the nu unit vectors at once give M^-1 (Featherstone's and Carpentier's ABA on matrices).
All spatial quantities of a tree are in its root link's frame (Jain's spatial-operator
form): inertias pass to the parent by addition, no 6 x nu block is transformed, lever arms
stay short, and a free root's S is I.
1. Outward: placements in the root's frame, S_j, IA_j = the link's rigid inertia (packed).
2. Inward, with U_j = IA_j S_j, D_j = S_j^T U_j + armature and F_j (6 x nu) the
   articulated bias force of link j per unit tau (zero outside its subtree's columns):
       M^-1[j, j] = D_j^-1,  M^-1[j, c] = -D_j^-1 S_j^T F_j[:, c]  for c in j's subtree,
       F_p += F_j + U_j M^-1[j, :],   IA_p += IA_j - U_j D_j^-1 U_j^T.
3. Outward, with A_j (6 x nu) the acceleration of link j per unit tau, G_j = U_j D_j^-1:
       M^-1[j, c] -= G_j^T A_p[:, c],  A_j = A_p + S_j M^-1[j, :]  for c >= j's first speed,
   each entry mirrored into the lower triangle as it is written.
A free root (S = I) takes closed-form steps: M^-1[0:6, c] = -D^-1 F_0[:, c], A_0 = M^-1[0:6, :].
Links with one speed run inline; others (and the free root) in out-of-line steps.
``world_columns`` serves the operational-space compliance.
"""
import math

from numba import njit

from .articulated_inertia import spd_inverse
from .common import check_state, data_start, link_rows, model_arrays, result_status
from .joint_transform import joint_rotation_translation
from .layout import (
    ARMATURE, FREE, FREE_QUAT, G_ADR, H_NU, KIND, NU, P_TREE, PARENT, PIN, QOFF, R_TREE, RB_H, RB_I, RB_MASS,
    S_COLS, SUBTREE_END, U_ADR, UOFF, W_IA, W_PR, W_PPLUS, W_PW, W_RW, W_TMP,
)
from .spatial_inline import force_to_world, load9, motion_to_world, mul33, mul33_vec, store9
from .status import BAD_LENGTH_ARG1, OK, SINGULAR

_INL = dict(cache=True, inline="always")
# The entry kernel and its out-of-line steps run without Numba's reference counting (NRT):
# they allocate nothing, and the atomic increments and decrements NRT puts around array
# arguments and views (its pruning pass leaves them here) cost about as much as the whole
# recursion of a 6-link arm; the dispatcher also unboxes the arguments faster.
_NO_NRT = dict(cache=True, _nrt=False)
_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
_R_REF = W_RW    # 9, this kernel's scratch: each link's placement in its root's frame
_P_REF = W_PW    # 3
_DINV = W_PPLUS  # nj x nj, D^-1 of a link with nj != 1 speeds


@njit(**_INL)
def world_columns(mi, mf, ws, z, j, W, r0):
    """For each speed c of link j, in world axes about its tree's root link origin (W_PR,
    from ``world_placement``): its S column (motion vector) at W[r0, 6c:6c+6], U's at
    W[r0 + 1, 6c:] and G's at W[r0 + 2, 6c:] (force vectors), from the link-frame U and G
    of ``articulated_inertia_pass``."""
    u0 = mi[j, UOFF]
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        m = motion_to_world(ws, j, mf[j, s], mf[j, s + 1], mf[j, s + 2], mf[j, s + 3], mf[j, s + 4], mf[j, s + 5],
                            W_PR)
        a = mi[j, U_ADR] + 6 * k
        fu = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5], W_PR)
        a = mi[j, G_ADR] + 6 * k
        fg = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5], W_PR)
        o = 6 * (u0 + k)
        for r in range(6):
            W[r0, o + r] = m[r]
            W[r0 + 1, o + r] = fu[r]
            W[r0 + 2, o + r] = fg[r]


@njit(**_INL)
def _load6(W, row, o):
    return W[row, o], W[row, o + 1], W[row, o + 2], W[row, o + 3], W[row, o + 4], W[row, o + 5]


@njit(**_INL)
def _dot6(t, W, row, o):
    return (t[0] * W[row, o] + t[1] * W[row, o + 1] + t[2] * W[row, o + 2]
            + t[3] * W[row, o + 3] + t[4] * W[row, o + 4] + t[5] * W[row, o + 5])


@njit(**_INL)
def _sym(r, c):
    """Column of entry (r, c) of a symmetric 6x6 kept as its 21 upper entries, row by row."""
    a, b = min(r, c), max(r, c)
    return W_IA + a * (11 - a) // 2 + b


@njit(**_INL)
def _sym_mul(ws, j, s):
    """IA_j s for link j's packed symmetric IA_j and a 6-tuple s."""
    I = (ws[j, W_IA], ws[j, W_IA + 1], ws[j, W_IA + 2], ws[j, W_IA + 3], ws[j, W_IA + 4], ws[j, W_IA + 5],
         ws[j, W_IA + 6], ws[j, W_IA + 7], ws[j, W_IA + 8], ws[j, W_IA + 9], ws[j, W_IA + 10], ws[j, W_IA + 11],
         ws[j, W_IA + 12], ws[j, W_IA + 13], ws[j, W_IA + 14], ws[j, W_IA + 15], ws[j, W_IA + 16],
         ws[j, W_IA + 17], ws[j, W_IA + 18], ws[j, W_IA + 19], ws[j, W_IA + 20])
    return (I[0] * s[0] + I[1] * s[1] + I[2] * s[2] + I[3] * s[3] + I[4] * s[4] + I[5] * s[5],
            I[1] * s[0] + I[6] * s[1] + I[7] * s[2] + I[8] * s[3] + I[9] * s[4] + I[10] * s[5],
            I[2] * s[0] + I[7] * s[1] + I[11] * s[2] + I[12] * s[3] + I[13] * s[4] + I[14] * s[5],
            I[3] * s[0] + I[8] * s[1] + I[12] * s[2] + I[15] * s[3] + I[16] * s[4] + I[17] * s[5],
            I[4] * s[0] + I[9] * s[1] + I[13] * s[2] + I[16] * s[3] + I[18] * s[4] + I[19] * s[5],
            I[5] * s[0] + I[10] * s[1] + I[14] * s[2] + I[17] * s[3] + I[19] * s[4] + I[20] * s[5])


@njit(**_INL)
def _pass_inertia(ws, j, p, g, u):
    """IA_p += IA_j - g u^T (packed; g u^T is symmetric as g = u D^-1)."""
    k = W_IA
    for r in range(6):
        for c in range(r, 6):
            ws[p, k] += ws[j, k] - g[r] * u[c]
            k += 1


@njit(**_INL)
def _rigid_inertia(mf, ws, j, R, px, py, pz):
    """IA_j (packed) = link j's rigid inertia (RB_*: m, h = m c, I about its origin, link
    axes) at placement (R, p): [[I_O, [h_O]x], [-[h_O]x, m 1]] with h' = R h, h_O = h' + m p
    and I_O = R I R^T + (p.h' + p.h_O) 1 - p h_O^T - h' p^T."""
    m = mf[j, RB_MASS]
    h = mul33_vec(R, mf[j, RB_H], mf[j, RB_H + 1], mf[j, RB_H + 2])
    i = RB_I
    T = mul33(R, (mf[j, i], mf[j, i + 1], mf[j, i + 2], mf[j, i + 1], mf[j, i + 3], mf[j, i + 4],
                  mf[j, i + 2], mf[j, i + 4], mf[j, i + 5]))
    hx = h[0] + m * px
    hy = h[1] + m * py
    hz = h[2] + m * pz
    s = px * (h[0] + hx) + py * (h[1] + hy) + pz * (h[2] + hz)
    ws[j, W_IA] = T[0] * R[0] + T[1] * R[1] + T[2] * R[2] + s - px * hx - h[0] * px
    ws[j, W_IA + 1] = T[0] * R[3] + T[1] * R[4] + T[2] * R[5] - px * hy - h[0] * py
    ws[j, W_IA + 2] = T[0] * R[6] + T[1] * R[7] + T[2] * R[8] - px * hz - h[0] * pz
    ws[j, W_IA + 6] = T[3] * R[3] + T[4] * R[4] + T[5] * R[5] + s - py * hy - h[1] * py
    ws[j, W_IA + 7] = T[3] * R[6] + T[4] * R[7] + T[5] * R[8] - py * hz - h[1] * pz
    ws[j, W_IA + 11] = T[6] * R[6] + T[7] * R[7] + T[8] * R[8] + s - pz * hz - h[2] * pz
    ws[j, W_IA + 4] = -hz
    ws[j, W_IA + 5] = hy
    ws[j, W_IA + 8] = hz
    ws[j, W_IA + 10] = -hx
    ws[j, W_IA + 12] = -hy
    ws[j, W_IA + 13] = hx
    for k in (3, 9, 14, 16, 17, 19):
        ws[j, W_IA + k] = 0.0
    for k in (15, 18, 20):
        ws[j, W_IA + k] = m


@njit(**_NO_NRT)
def _placement(mi, mf, ws, q, j):
    """(R, p) of link j in its parent's frame, any kind (PIN links are placed inline)."""
    RT = load9(mf, j, R_TREE)
    RJ, pJ = joint_rotation_translation(mi, mf, ws, q, j)
    t = mul33_vec(RT, pJ[0], pJ[1], pJ[2])
    return mul33(RT, RJ), (mf[j, P_TREE] + t[0], mf[j, P_TREE + 1] + t[1], mf[j, P_TREE + 2] + t[2])


@njit(**_NO_NRT)
def _general_subspace(mi, mf, W, j, rs, R, px, py, pz):
    """W[rs, 6c:6c+6] = S column c of link j (any kind) in its root's frame for each of its
    speeds c, with (R, p) the link's placement there."""
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        a = mul33_vec(R, mf[j, s], mf[j, s + 1], mf[j, s + 2])
        b = mul33_vec(R, mf[j, s + 3], mf[j, s + 4], mf[j, s + 5])
        v = (a[0], a[1], a[2], b[0] + py * a[2] - pz * a[1], b[1] + pz * a[0] - px * a[2], b[2] + px * a[1] - py * a[0])
        for r in range(6):
            W[rs, 6 * (mi[j, UOFF] + k) + r] = v[r]


@njit(**_NO_NRT)
def _general_inward(mi, mf, ws, W, Minv, j, S, free_root):
    """Step 2 for a link with nj != 1 speeds: U = IA S (row S + 1 of W; a free root's is
    IA), D^-1 (ws _DINV), M^-1's own block and subtree columns, and for a link with a
    parent G = U D^-1 (row S + 2), IA_p and F_p. False when D is not positive definite."""
    nj = mi[j, NU]
    u0 = mi[j, UOFF]
    p = mi[j, PARENT]
    le = mi[j, SUBTREE_END] - 1
    ue = mi[le, UOFF] + mi[le, NU]
    if not free_root:
        for k in range(nj):
            for r in range(6):
                s = 0.0
                for c in range(6):
                    s += ws[j, _sym(r, c)] * W[S, 6 * (u0 + k) + c]
                W[S + 1, 6 * (u0 + k) + r] = s
    D = ws[j]
    for a in range(nj):
        for b in range(nj):
            D[_DINV + nj * a + b] = ws[j, _sym(a, b)] if free_root else _dot6(
                _load6(W, S, 6 * (u0 + a)), W, S + 1, 6 * (u0 + b))
        D[_DINV + nj * a + a] += mf[j, ARMATURE + a]
    ok = spd_inverse(D, _DINV, nj)
    for a in range(nj):
        for b in range(nj):
            Minv[u0 + a, u0 + b] = D[_DINV + nj * a + b]
    if free_root:  # S = I: M^-1[0:6, c] = -D^-1 F_0[:, c]
        Di = (_load6(ws, j, _DINV), _load6(ws, j, _DINV + 6), _load6(ws, j, _DINV + 12),
              _load6(ws, j, _DINV + 18), _load6(ws, j, _DINV + 24), _load6(ws, j, _DINV + 30))
        for c in range(6, ue):
            for a in range(6):
                Minv[a, c] = -_dot6(Di[a], W, 0, 6 * c)
        return ok
    for c in range(u0 + nj, ue):
        for b in range(nj):
            ws[j, W_TMP + b] = _dot6(_load6(W, S, 6 * (u0 + b)), W, j, 6 * c)
        for a in range(nj):
            x = 0.0
            for b in range(nj):
                x += D[_DINV + nj * a + b] * ws[j, W_TMP + b]
            Minv[u0 + a, c] = -x
    if p >= 0:
        for k in range(nj):
            for r in range(6):
                s = 0.0
                for b in range(nj):
                    s += W[S + 1, 6 * (u0 + b) + r] * D[_DINV + nj * b + k]
                W[S + 2, 6 * (u0 + k) + r] = s
        for r in range(6):
            for c in range(r, 6):
                s = ws[j, _sym(r, c)]
                for k in range(nj):
                    s -= W[S + 2, 6 * (u0 + k) + r] * W[S + 1, 6 * (u0 + k) + c]
                ws[p, _sym(r, c)] += s
        for c in range(u0, ue):
            for r in range(6):
                x = W[j, 6 * c + r] if c >= u0 + nj else 0.0
                for a in range(nj):
                    x += W[S + 1, 6 * (u0 + a) + r] * Minv[u0 + a, c]
                W[p, 6 * c + r] = x
    return ok


@njit(**_NO_NRT)
def _general_outward(mi, W, Minv, j, S, free_root):
    """Step 3 for a link with nj != 1 speeds (a free root: A_0 = M^-1[0:6, :])."""
    nu = Minv.shape[0]
    nj = mi[j, NU]
    u0 = mi[j, UOFF]
    p = mi[j, PARENT]
    le = mi[j, SUBTREE_END] - 1
    ue = mi[le, UOFF] + mi[le, NU]
    if free_root:
        for c in range(nu):
            for a in range(6):
                x = Minv[a, c] if c < ue else 0.0
                W[0, 6 * c + a] = x
                if c >= 6:
                    Minv[a, c] = x
                    Minv[c, a] = x
    for c in range(u0, nu if not free_root else 0):
        o = 6 * c
        for a in range(nj):
            x = Minv[u0 + a, c] if c < ue else 0.0
            if p >= 0:
                x -= _dot6(_load6(W, S + 2, 6 * (u0 + a)), W, p, o)
            Minv[u0 + a, c] = x
            if c >= u0 + nj:
                Minv[c, u0 + a] = x
        if mi[j, SUBTREE_END] > j + 1:  # leaves keep no A
            for r in range(6):
                x = W[p, o + r] if p >= 0 else 0.0
                for a in range(nj):
                    x += W[S, 6 * (u0 + a) + r] * Minv[u0 + a, c]
                W[j, o + r] = x
    for a in range(nj):
        for b in range(a):
            Minv[u0 + a, u0 + b] = Minv[u0 + b, u0 + a]


@njit(**_INL)
def _minv(mi, mf, ws, q, W, Minv):
    """Fill the full symmetric M^-1 (nu, nu); W is scratch of shape (n + 3, 6 nu): row j
    holds F_j (written by j's children), then A_j, column c at W[j, 6c:6c+6]; rows n, n+1,
    n+2 the S, U (nj != 1) and G columns. Nothing needs zeroing: every entry is written
    before it is read. False when some D_j is not positive definite."""
    n = mi.shape[0]
    nu = Minv.shape[0]
    S = n
    G = n + 2
    for j in range(n):  # 1. placements in the root's frame, S, rigid inertias
        p = mi[j, PARENT]
        if p >= 0:
            if mi[j, KIND] == PIN:  # R_tree Rz(q): a planar rotation of two columns
                th = q[mi[j, QOFF]]
                c = math.cos(th)
                s = math.sin(th)
                T = load9(mf, j, R_TREE)
                RL = (c * T[0] + s * T[1], c * T[1] - s * T[0], T[2], c * T[3] + s * T[4], c * T[4] - s * T[3], T[5],
                      c * T[6] + s * T[7], c * T[7] - s * T[6], T[8])
                pl = (mf[j, P_TREE], mf[j, P_TREE + 1], mf[j, P_TREE + 2])
            else:
                RL, pl = _placement(mi, mf, ws, q, j)
            Rp = load9(ws, p, _R_REF)
            R = mul33(Rp, RL)
            t = mul33_vec(Rp, pl[0], pl[1], pl[2])
            t = (ws[p, _P_REF] + t[0], ws[p, _P_REF + 1] + t[1], ws[p, _P_REF + 2] + t[2])
        else:  # a root: each tree in its root's frame (trees do not interact)
            R = _IDENTITY
            t = (0.0, 0.0, 0.0)
        px, py, pz = t
        store9(ws, j, _R_REF, R)
        for k in range(3):
            ws[j, _P_REF + k] = t[k]
        _rigid_inertia(mf, ws, j, R, px, py, pz)
        if mi[j, KIND] == PIN:  # S = e_z (compile frames PIN links so)
            sw = (R[2], R[5], R[8], py * R[8] - pz * R[5], pz * R[2] - px * R[8], px * R[5] - py * R[2])
            for r in range(6):
                W[S, 6 * mi[j, UOFF] + r] = sw[r]
        else:
            _general_subspace(mi, mf, W, j, S, R, px, py, pz)
    free_root = n > 0 and (mi[0, KIND] == FREE or mi[0, KIND] == FREE_QUAT)  # S = I in its frame
    good = True
    for j in range(n - 1, -1, -1):  # 2. inward
        u0 = mi[j, UOFF]
        p = mi[j, PARENT]
        if mi[j, NU] != 1:
            if not _general_inward(mi, mf, ws, W, Minv, j, S, j == 0 and free_root):
                good = False
            continue
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        sj = _load6(W, S, 6 * u0)
        uj = _sym_mul(ws, j, sj)
        d = _dot6(uj, W, S, 6 * u0) + mf[j, ARMATURE]
        dinv = 1.0 / d if d > 0.0 else 0.0
        good = good and d > 0.0
        Minv[u0, u0] = dinv
        if p < 0:
            for c in range(u0 + 1, ue):
                Minv[u0, c] = -dinv * _dot6(sj, W, j, 6 * c)
            continue
        gj = (uj[0] * dinv, uj[1] * dinv, uj[2] * dinv, uj[3] * dinv, uj[4] * dinv, uj[5] * dinv)
        for r in range(6):
            W[G, 6 * u0 + r] = gj[r]
            W[p, 6 * u0 + r] = gj[r]  # F_p's column u0 (F_j is 0 there)
        for c in range(u0 + 1, ue):  # the parent's F over j's subtree: assigned (sibling
            o = 6 * c  # subtrees are disjoint)
            fj = _load6(W, j, o)
            x = -dinv * (sj[0] * fj[0] + sj[1] * fj[1] + sj[2] * fj[2] + sj[3] * fj[3] + sj[4] * fj[4]
                         + sj[5] * fj[5])
            Minv[u0, c] = x
            for r in range(6):
                W[p, o + r] = fj[r] + uj[r] * x
        _pass_inertia(ws, j, p, gj, uj)
    for j in range(n):  # 3. outward (M^-1[j, c] is 0 before for c past j's subtree)
        u0 = mi[j, UOFF]
        p = mi[j, PARENT]
        if mi[j, NU] != 1:
            _general_outward(mi, W, Minv, j, S, j == 0 and free_root)
            continue
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        leaf = mi[j, SUBTREE_END] == j + 1
        sj = _load6(W, S, 6 * u0)
        if p < 0:
            for c in range(u0, nu):
                x = Minv[u0, c] if c < ue else 0.0
                Minv[u0, c] = x
                Minv[c, u0] = x
                if not leaf:
                    for r in range(6):
                        W[j, 6 * c + r] = sj[r] * x
            continue
        gj = _load6(W, G, 6 * u0)
        for c in range(u0, nu):
            o = 6 * c
            a = _load6(W, p, o)
            x = gj[0] * a[0] + gj[1] * a[1] + gj[2] * a[2] + gj[3] * a[3] + gj[4] * a[4] + gj[5] * a[5]
            x = Minv[u0, c] - x if c < ue else -x
            Minv[u0, c] = x
            Minv[c, u0] = x
            if not leaf:  # leaves keep no A
                for r in range(6):
                    W[j, o + r] = a[r] + sj[r] * x
    return good


@njit(cache=True)
def minv_core(mi, mf, ws, z, q, W, Minv):
    """M^-1 into Minv (nu, nu) (see ``_minv``; z is not used): the batched kernel's call."""
    return _minv(mi, mf, ws, q, W, Minv)


@njit(**_NO_NRT)
def inverse_mass_matrix(dbuf, q, W, Minv):
    """Checked entry point: a status for q (BAD_LENGTH_ARG1: Minv is not (nu, nu)), SINGULAR, or
    OVERFLOW."""
    nu = int(dbuf[0, H_NU])
    if Minv.shape[0] != nu or Minv.shape[1] != nu:
        return BAD_LENGTH_ARG1
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    ws = link_rows(dbuf, data_start(dbuf, n), n)
    st = check_state(mi, q, q, q, -1, -1)
    if st == OK and not _minv(mi, mf, ws, q, W, Minv):
        return SINGULAR
    return result_status(st, Minv)
