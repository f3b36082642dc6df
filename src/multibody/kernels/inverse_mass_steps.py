"""The steps of ``inverse_mass_matrix.py``'s recursion (see its docstring): placements,
rigid inertias and S in each tree's root frame (step 1, ``root_frames``), and the
out-of-line steps of a link of any number of speeds (``general_first``: step 2 of the first
block of columns, factoring the link; ``general_columns``: step 2 on a block's columns;
``general_outward``: step 3), which links with nj != 1 speeds take in every block and all
links in the blocks after the first, with the small inline helpers both modules use. Kept
in the data between the passes and the blocks: S (ws ``S_ROOT``), D^-1 (ws ``DINV``), U
and G (z at U_ADR, G_ADR), for a one-speed link as for the others.
"""

from numba import njit

from .articulated_inertia import spd_inverse
from .joint_transform import general_link_placement
from .joints import pin
from .layout import (
    ARMATURE, G_ADR, KIND, NU, P_TREE, PARENT, PIN, QOFF, RB_H, RB_I, RB_MASS, S_COLS, SUBTREE_END,
    U_ADR, UOFF, W_IA, W_PPLUS, W_PW, W_RW, W_SW, W_TMP,
)
from .placements import forget_placement
from .spatial_inline import load9, mul33, mul33_vec, rotate_sym33, store9

INL = dict(cache=True, inline="always")
# The entry kernel and its out-of-line steps run without Numba's reference counting (NRT):
# they allocate nothing, and the atomic increments and decrements NRT puts around array
# arguments and views (its pruning pass leaves them here) cost about as much as the whole
# recursion of a 6-link arm; the dispatcher also unboxes the arguments faster.
NO_NRT = dict(cache=True, _nrt=False)
_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
_R_REF = W_RW    # 9, this kernel's scratch: each link's placement in its root's frame
_P_REF = W_PW    # 3
DINV = W_PPLUS   # nj x nj, D^-1 of the link
S_ROOT = W_SW    # 6 nj, S of the link in its root's frame, column k at S_ROOT + 6k


@njit(**INL)
def load6(W, row, o):
    return W[row, o], W[row, o + 1], W[row, o + 2], W[row, o + 3], W[row, o + 4], W[row, o + 5]


@njit(**INL)
def z6(z, a):
    return z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5]


@njit(**INL)
def dot(s, t):
    return s[0] * t[0] + s[1] * t[1] + s[2] * t[2] + s[3] * t[3] + s[4] * t[4] + s[5] * t[5]


@njit(**INL)
def dot6(t, W, row, o):
    return (t[0] * W[row, o] + t[1] * W[row, o + 1] + t[2] * W[row, o + 2]
            + t[3] * W[row, o + 3] + t[4] * W[row, o + 4] + t[5] * W[row, o + 5])


@njit(**INL)
def _sym(r, c):
    """Column of entry (r, c) of a symmetric 6x6 kept as its 21 upper entries, row by row."""
    a, b = min(r, c), max(r, c)
    return W_IA + a * (11 - a) // 2 + b


@njit(**INL)
def sym_mul(ws, j, s):
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


@njit(**INL)
def pass_inertia(ws, j, p, g, u):
    """IA_p += IA_j - g u^T (packed; g u^T is symmetric as g = u D^-1)."""
    k = W_IA
    for r in range(6):
        for c in range(r, 6):
            ws[p, k] += ws[j, k] - g[r] * u[c]
            k += 1


@njit(**INL)
def _rigid_inertia(mf, ws, j, R, px, py, pz):
    """IA_j (packed) = link j's rigid inertia (RB_*: m, h = m c, I about its origin, link
    axes) at placement (R, p): [[I_O, [h_O]x], [-[h_O]x, m 1]] with h' = R h, h_O = h' + m p
    and I_O = R I R^T + (p.h' + p.h_O) 1 - p h_O^T - h' p^T."""
    m = mf[j, RB_MASS]
    h = mul33_vec(R, mf[j, RB_H], mf[j, RB_H + 1], mf[j, RB_H + 2])
    i = RB_I
    Ir = rotate_sym33(R, mf[j, i], mf[j, i + 1], mf[j, i + 2], mf[j, i + 3], mf[j, i + 4], mf[j, i + 5])  # R I R^T
    hx = h[0] + m * px
    hy = h[1] + m * py
    hz = h[2] + m * pz
    s = px * (h[0] + hx) + py * (h[1] + hy) + pz * (h[2] + hz)
    ws[j, W_IA] = Ir[0] + s - px * hx - h[0] * px
    ws[j, W_IA + 1] = Ir[1] - px * hy - h[0] * py
    ws[j, W_IA + 2] = Ir[2] - px * hz - h[0] * pz
    ws[j, W_IA + 6] = Ir[3] + s - py * hy - h[1] * py
    ws[j, W_IA + 7] = Ir[4] - py * hz - h[1] * pz
    ws[j, W_IA + 11] = Ir[5] + s - pz * hz - h[2] * pz
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


@njit(**NO_NRT)
def _general_subspace(mi, mf, ws, j, R, px, py, pz):
    """ws[j, S_ROOT + 6k:] = S column k of link j (any kind) in its root's frame for each of
    its speeds k, with (R, p) the link's placement there."""
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        a = mul33_vec(R, mf[j, s], mf[j, s + 1], mf[j, s + 2])
        b = mul33_vec(R, mf[j, s + 3], mf[j, s + 4], mf[j, s + 5])
        v = (a[0], a[1], a[2], b[0] + py * a[2] - pz * a[1], b[1] + pz * a[0] - px * a[2], b[2] + px * a[1] - py * a[0])
        for r in range(6):
            ws[j, S_ROOT + 6 * k + r] = v[r]


@njit(**INL)
def general_factor(mi, mf, ws, z, Minv, j, free_root):
    """Step 2 for a link with nj != 1 speeds, its columns aside: U = IA S (z at U_ADR; a
    free root's is IA), D^-1 (ws DINV) and M^-1's own block, and for a link with a parent
    G = U D^-1 (z at G_ADR) and IA_p. False when D is not positive definite."""
    nj = mi[j, NU]
    u0 = mi[j, UOFF]
    p = mi[j, PARENT]
    ua = mi[j, U_ADR]
    if not free_root:
        for k in range(nj):
            for r in range(6):
                s = 0.0
                for c in range(6):
                    s += ws[j, _sym(r, c)] * ws[j, S_ROOT + 6 * k + c]
                z[ua + 6 * k + r] = s
    D = ws[j]
    for a in range(nj):
        for b in range(nj):
            if free_root:
                D[DINV + nj * a + b] = ws[j, _sym(a, b)]
            else:
                D[DINV + nj * a + b] = dot(load6(ws, j, S_ROOT + 6 * a), z6(z, ua + 6 * b))
        D[DINV + nj * a + a] += mf[j, ARMATURE + a]
    ok = spd_inverse(D, DINV, nj)
    for a in range(nj):
        for b in range(nj):
            Minv[u0 + a, u0 + b] = D[DINV + nj * a + b]
    if p >= 0:
        ga = mi[j, G_ADR]
        for k in range(nj):
            for r in range(6):
                s = 0.0
                for b in range(nj):
                    s += z[ua + 6 * b + r] * D[DINV + nj * b + k]
                z[ga + 6 * k + r] = s
        for r in range(6):
            for c in range(r, 6):
                s = ws[j, _sym(r, c)]
                for k in range(nj):
                    s -= z[ga + 6 * k + r] * z[ua + 6 * k + c]
                ws[p, _sym(r, c)] += s
    return ok


@njit(**NO_NRT)
def general_columns(mi, ws, z, W, Minv, j, free_root, c0, c1):
    """Step 2 on the block's columns c0 <= c < c1 for link j: M^-1[j, c] for c in its
    subtree past its own speeds (a free root: -D^-1 F_0[:, c]), then F_p."""
    nj = mi[j, NU]
    u0 = mi[j, UOFF]
    p = mi[j, PARENT]
    le = mi[j, SUBTREE_END] - 1
    ue = mi[le, UOFF] + mi[le, NU]
    D = ws[j]
    if free_root:  # S = I
        Di = (load6(ws, j, DINV), load6(ws, j, DINV + 6), load6(ws, j, DINV + 12),
              load6(ws, j, DINV + 18), load6(ws, j, DINV + 24), load6(ws, j, DINV + 30))
        for c in range(max(6, c0), min(ue, c1)):
            for a in range(6):
                Minv[a, c] = -dot6(Di[a], W, 0, 6 * (c - c0))
        return
    for c in range(max(u0 + nj, c0), min(ue, c1)):
        for b in range(nj):
            ws[j, W_TMP + b] = dot6(load6(ws, j, S_ROOT + 6 * b), W, j, 6 * (c - c0))
        for a in range(nj):
            x = 0.0
            for b in range(nj):
                x += D[DINV + nj * a + b] * ws[j, W_TMP + b]
            Minv[u0 + a, c] = -x
    if p >= 0:
        ua = mi[j, U_ADR]
        for c in range(max(u0, c0), min(ue, c1)):
            o = 6 * (c - c0)
            for r in range(6):
                x = W[j, o + r] if c >= u0 + nj else 0.0
                for a in range(nj):
                    x += z[ua + 6 * a + r] * Minv[u0 + a, c]
                W[p, o + r] = x


@njit(**NO_NRT)
def general_first(mi, mf, ws, z, W, Minv, j, free_root, c1):
    """Step 2 of the first block (columns 0 <= c < c1) for a link with nj != 1 speeds: its
    factors (``general_factor``), then its columns. False when D is not positive definite."""
    ok = general_factor(mi, mf, ws, z, Minv, j, free_root)
    general_columns(mi, ws, z, W, Minv, j, free_root, int(0), c1)  # int(): no literal, one compiled version
    return ok


@njit(**NO_NRT)
def general_outward(mi, ws, z, W, Minv, j, free_root, c0, c1):
    """Step 3 on the block's columns c0 <= c < c1 for link j (a free root: A_0 = M^-1[0:6, :]);
    its own block's lower triangle mirrored once the block is complete."""
    nj = mi[j, NU]
    u0 = mi[j, UOFF]
    p = mi[j, PARENT]
    le = mi[j, SUBTREE_END] - 1
    ue = mi[le, UOFF] + mi[le, NU]
    if free_root:
        for c in range(c0, c1):
            for a in range(6):
                x = Minv[a, c] if c < ue else 0.0
                W[0, 6 * (c - c0) + a] = x
                if c >= 6:
                    Minv[a, c] = x
                    Minv[c, a] = x
    else:
        ga = mi[j, G_ADR]
        for c in range(max(u0, c0), c1):
            o = 6 * (c - c0)
            for a in range(nj):
                x = Minv[u0 + a, c] if c < ue else 0.0
                if p >= 0:
                    x -= dot6(z6(z, ga + 6 * a), W, p, o)
                Minv[u0 + a, c] = x
                if c >= u0 + nj:
                    Minv[c, u0 + a] = x
            if mi[j, SUBTREE_END] > j + 1:  # leaves keep no A
                for r in range(6):
                    x = W[p, o + r] if p >= 0 else 0.0
                    for a in range(nj):
                        x += ws[j, S_ROOT + 6 * a + r] * Minv[u0 + a, c]
                    W[j, o + r] = x
    if c0 < u0 + nj <= c1:
        for a in range(nj):
            for b in range(a):
                Minv[u0 + a, u0 + b] = Minv[u0 + b, u0 + a]


@njit(**INL)
def root_frames(mi, mf, ws, q, general):
    """Step 1: each link's placement in its root's frame, its rigid inertia and S there.
    ``general`` (a constant of the caller's variant): links of any kind; False: PIN links
    only, the other kinds' out-of-line steps pruned before typing (not compiled)."""
    for j in range(mi.shape[0]):
        p = mi[j, PARENT]
        if p >= 0:
            if general and mi[j, KIND] != PIN:
                RL, pl = general_link_placement(mi, mf, ws, q, j)
            else:  # PIN: R_tree Rz(q), a planar rotation of two columns
                RL = pin.link_rotation(mf, j, q[mi[j, QOFF]])
                pl = (mf[j, P_TREE], mf[j, P_TREE + 1], mf[j, P_TREE + 2])
            Rp = load9(ws, p, _R_REF)
            R = mul33(Rp, RL)
            t = mul33_vec(Rp, pl[0], pl[1], pl[2])
            t = (ws[p, _P_REF] + t[0], ws[p, _P_REF + 1] + t[1], ws[p, _P_REF + 2] + t[2])
        else:  # a root: each tree in its root's frame (trees do not interact)
            R = _IDENTITY
            t = (0.0, 0.0, 0.0)
        px, py, pz = t
        forget_placement(ws, j)  # W_RW/W_PW now hold root-frame placements (kernels/placements.py)
        store9(ws, j, _R_REF, R)
        for k in range(3):
            ws[j, _P_REF + k] = t[k]
        _rigid_inertia(mf, ws, j, R, px, py, pz)
        if general and mi[j, KIND] != PIN:
            _general_subspace(mi, mf, ws, j, R, px, py, pz)
        else:  # PIN: S = e_z (compile frames PIN links so)
            sw = (R[2], R[5], R[8], py * R[8] - pz * R[5], pz * R[2] - px * R[8], px * R[5] - py * R[2])
            for r in range(6):
                ws[j, S_ROOT + r] = sw[r]
