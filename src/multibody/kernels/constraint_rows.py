"""Constraint residual rows: residual r, the coefficients of its rate and bias kappa = Gc_dot u, O(rows).

Each row (layout CR_*, model/constraints.py) is a scalar function of the poses of two
frames a and b. Its rate is linear in their world-axes angular velocities and origin
velocities,
    r_dot = alpha . w_a + beta . v_a + gamma . w_b + delta . v_b,
so a row of Gc is that combination of the two frames' Jacobian columns, and the bias
kappa (r_ddot at udot = 0) is the same combination of the frames' velocity-product
accelerations plus the rates of the coefficient vectors. With d = p_b - p_a:
    ALIGN  r = e_A . b_B     alpha = -gamma = e_A x b_B
    TRANS  r = c_A . d       alpha = c_A x d, beta = -c_A, delta = c_A
    SCREW  r = a_A . d - pitch theta, theta = atan2(e2_A . e1_B, e1_A . e1_B)
    CONVEL r_dot = n_w . (w_b - w_a) + n_v . (d_dot - w_a x d), no position level (r = 0)
    COORD  r = q_a - ratio q_b - offset, r_dot = u_a - ratio u_b, kappa = 0
(_A, _B: fixed in frame a, b, rotated into the world). The coefficients stay in C
(alpha, beta, gamma, delta: 12 columns per row): they are the rows of seed 000's Q matrix.
Moved to the root origin of each frame's tree (tree coordinates, layout.py) they are the
row's wrenches w_a, w_b on the two frames, and Gc's row is J_a^T w_a + J_b^T w_b:
constraint_gamma.group_jacobian, on the row's support.

Positions never go through the world origin: a frame's K holds its origin relative to a
reference point (K_P; its tree's root origin, or the frame itself on the world) and that
point (K_O), and d = (o_b - o_a) + (p_b - p_a). Two frames of one tree share o (d is then
exact however far the tree is); two reference points far out but close together subtract
exactly (Sterbenz). World origins of the frames, 1e11 m out, would leave d 3e-5 m of
rounding.
"""
import math

from numba import njit

from .common import joint_motion
from .constraint_work import K_COLS, NO_NRT, R_WA, R_WB
from .joint_transform import tree_root, world_placement
from .mass_matrix import world_motion_columns
from .layout import (
    CR_B, CR_E, CR_E2, CR_E3, CR_FA, CR_FB, CR_OFFSET, CR_QA, CR_QB, CR_SCALAR, CR_TYPE, CR_UA, CR_UB,
    FR_LINK, FR_P, PARENT, W_A, W_C, W_PR, W_PW, W_RW, W_V,
)
from .spatial_inline import cross_motion_add, motion_to_child

ALIGN, TRANS, SCREW, CONVEL, COORD = 1, 2, 3, 4, 5
# per-frame kinematics, world axes: R_world_link (9), origin p relative to the reference point o,
# w, v, w_dot, a (origin, classical), o in the world (the module docstring)
K_R, K_P, K_W, K_V, K_WD, K_AD, K_O = 0, 9, 12, 15, 18, 21, 24  # K_COLS = 27 (constraint_work)


@njit(**NO_NRT)
def bias_motion_pass(mi, mf, ws, u, after_aba):
    """World and tree placements and the motion columns W_SW (tree coordinates); unless
    ``after_aba``, also the link velocities W_V, W_C = v x (S u) and the velocity-product
    accelerations W_A (udot = 0, no gravity). The link placements W_R/W_P must be there;
    ``after_aba``: W_V and W_A are the ABA's (its accelerations, with the base accelerated
    by -g: see ``frame_kinematics``)."""
    for j in range(mi.shape[0]):
        world_placement(mi, ws, j)
        world_motion_columns(mi, mf, ws, j, W_PR)
        if after_aba:
            continue
        p = mi[j, PARENT]
        if p < 0:
            for k in range(6):
                ws[j, W_V + k] = 0.0
        else:
            motion_to_child(ws, j, ws, p, W_V, ws, j, W_V)
        joint_motion(mi, mf, j, u, ws, j, W_A)
        for k in range(6):
            ws[j, W_V + k] += ws[j, W_A + k]
            ws[j, W_C + k] = 0.0
        cross_motion_add(ws, j, W_V, ws, j, W_A, ws, j, W_C)
        if p < 0:
            for k in range(6):
                ws[j, W_A + k] = ws[j, W_C + k]
        else:
            motion_to_child(ws, j, ws, p, W_A, ws, j, W_A)
            for k in range(6):
                ws[j, W_A + k] += ws[j, W_C + k]


@njit(cache=True, inline="always")
def _rot(K, o, x0, x1, x2):
    """R x for the rotation K[o + K_R : o + K_R + 9]."""
    return (K[o] * x0 + K[o + 1] * x1 + K[o + 2] * x2, K[o + 3] * x0 + K[o + 4] * x1 + K[o + 5] * x2,
            K[o + 6] * x0 + K[o + 7] * x1 + K[o + 8] * x2)


@njit(**NO_NRT)
def frame_kinematics(mi, fr, ws, f, K, o, base):
    """K[o:o+27] = world R of frame f's link, the frame origin relative to its reference point
    (its tree's root origin, W_PR), its w, v, w_dot, a in world axes, from the links' W_V and
    W_A (velocity-product accelerations, or those of a whole motion with the base
    accelerated by ``base``: a frame on the world then moves so), and the reference point in
    the world (a frame on the world is its own)."""
    link = int(fr[f, FR_LINK])
    px, py, pz = fr[f, FR_P], fr[f, FR_P + 1], fr[f, FR_P + 2]
    if link < 0:
        for k in range(K_COLS):
            K[o + k] = 0.0
        K[o], K[o + 4], K[o + 8] = 1.0, 1.0, 1.0
        K[o + K_O], K[o + K_O + 1], K[o + K_O + 2] = px, py, pz
        _put(K, o + K_AD, base)
        return
    for k in range(9):
        K[o + k] = ws[link, W_RW + k]
    r = _rot(K, o, px, py, pz)
    root = tree_root(mi, link)
    for k in range(3):
        K[o + K_P + k] = ws[link, W_PR + k] + r[k]
        K[o + K_O + k] = ws[root, W_PW + k]
    wx, wy, wz = ws[link, W_V], ws[link, W_V + 1], ws[link, W_V + 2]
    vx = ws[link, W_V + 3] + wy * pz - wz * py  # frame origin velocity, link axes
    vy = ws[link, W_V + 4] + wz * px - wx * pz
    vz = ws[link, W_V + 5] + wx * py - wy * px
    ax, ay, az = ws[link, W_A], ws[link, W_A + 1], ws[link, W_A + 2]
    # classical acceleration of the origin: A_v + A_w x p + w x (v_link + w x p)
    cx = ws[link, W_A + 3] + ay * pz - az * py + wy * vz - wz * vy
    cy = ws[link, W_A + 4] + az * px - ax * pz + wz * vx - wx * vz
    cz = ws[link, W_A + 5] + ax * py - ay * px + wx * vy - wy * vx
    _put(K, o + K_W, _rot(K, o, wx, wy, wz))
    _put(K, o + K_V, _rot(K, o, vx, vy, vz))
    _put(K, o + K_WD, _rot(K, o, ax, ay, az))
    _put(K, o + K_AD, _rot(K, o, cx, cy, cz))


@njit(cache=True, inline="always")
def _put(K, o, t):
    K[o], K[o + 1], K[o + 2] = t[0], t[1], t[2]


@njit(cache=True, inline="always")
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def _vec(K, o):
    return (K[o], K[o + 1], K[o + 2])


@njit(cache=True, inline="always")
def _add(a, b, s):
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@njit(cache=True, inline="always")
def frame_offset(K, a, b):
    """p_b - p_a (world axes) of the frames whose K begin at K[a], K[b]: (o_b - o_a) + (p_b - p_a),
    the reference points first (0 in one tree; exact when close, however far out)."""
    return _add(_add(_vec(K, b + K_O), _vec(K, a + K_O), -1.0), _add(_vec(K, b + K_P), _vec(K, a + K_P), -1.0), 1.0)


@njit(cache=True, inline="always")
def _align(K, e, b):
    """(r, w, r_ddot bias) of r = e . b for e fixed in frame a (K[0:27]), b in frame b (K[27:54]):
    r_dot = (w_a - w_b) . w with w = e x b."""
    wa, wb = _vec(K, K_W), _vec(K, K_COLS + K_W)
    w = _cross(e, b)
    ed, bd = _cross(wa, e), _cross(wb, b)
    wdot = _add(_cross(ed, b), _cross(e, bd), 1.0)
    rel = _add(wa, wb, -1.0)
    kap = _dot(_add(_vec(K, K_WD), _vec(K, K_COLS + K_WD), -1.0), w) + _dot(rel, wdot)
    return _dot(e, b), w, _dot(rel, w), kap


@njit(cache=True, inline="always")
def _trans(K, c):
    """(r, alpha, r_dot, r_ddot bias) of r = c . d for c fixed in frame a: r_dot = c . (d_dot - w_a x d)."""
    wa = _vec(K, K_W)
    d = frame_offset(K, 0, K_COLS)
    dd = _add(_vec(K, K_COLS + K_V), _vec(K, K_V), -1.0)
    ddd = _add(_vec(K, K_COLS + K_AD), _vec(K, K_AD), -1.0)
    rel = _add(dd, _cross(wa, d), -1.0)
    cd = _cross(wa, c)
    rel_d = _add(_add(ddd, _cross(_vec(K, K_WD), d), -1.0), _cross(wa, dd), -1.0)
    return _dot(c, d), _cross(c, d), _dot(c, rel), _dot(cd, rel) + _dot(c, rel_d)


@njit(cache=True, inline="always")
def link_vec(cr, i, col, K, o):
    return _rot(K, o, cr[i, col], cr[i, col + 1], cr[i, col + 2])


@njit(**NO_NRT)
def row_coefficients(cr, i, K, q, u, C):
    """C[i] = (r, alpha, beta, gamma, delta, r_dot, kappa) of row i, frames' kinematics in K."""
    t = int(cr[i, CR_TYPE])
    for k in range(16):
        C[i, k] = 0.0
    if t == COORD:
        qa, qb = int(cr[i, CR_QA]), int(cr[i, CR_QB])
        ua, ub = int(cr[i, CR_UA]), int(cr[i, CR_UB])
        C[i, 0] = q[qa] - cr[i, CR_SCALAR] * q[qb] - cr[i, CR_OFFSET]
        C[i, 13] = u[ua] - cr[i, CR_SCALAR] * u[ub]
        return
    if t == ALIGN:
        r, w, rd, kap = _align(K, link_vec(cr, i, CR_E, K, 0), link_vec(cr, i, CR_B, K, K_COLS))
        alpha, beta, delta = w, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        gamma = (-w[0], -w[1], -w[2])
    elif t == TRANS:
        c = link_vec(cr, i, CR_E, K, 0)
        r, alpha, rd, kap = _trans(K, c)
        beta, gamma, delta = (-c[0], -c[1], -c[2]), (0.0, 0.0, 0.0), c
    elif t == SCREW:
        a = link_vec(cr, i, CR_E, K, 0)
        e1b = link_vec(cr, i, CR_B, K, K_COLS)
        r, alpha, rd, kap = _trans(K, a)
        beta, delta = (-a[0], -a[1], -a[2]), a
        x, wx, xd, xdd = _align(K, link_vec(cr, i, CR_E3, K, 0), e1b)
        y, wy, yd, ydd = _align(K, link_vec(cr, i, CR_E2, K, 0), e1b)
        pitch = cr[i, CR_SCALAR]
        den = x * x + y * y
        num = x * yd - y * xd
        r -= pitch * math.atan2(y, x)
        g = _add((x * wy[0], x * wy[1], x * wy[2]), wx, -y)  # theta_dot = g . (w_a - w_b) / den
        alpha = _add(alpha, g, -pitch / den)
        gamma = (pitch * g[0] / den, pitch * g[1] / den, pitch * g[2] / den)
        rd -= pitch * num / den
        thdd = (x * ydd - y * xdd) / den - num * 2.0 * (x * xd + y * yd) / (den * den)
        kap -= pitch * thdd
    else:  # CONVEL: n_w . (w_b - w_a) + n_v . (d_dot - w_a x d)
        nw = link_vec(cr, i, CR_E, K, 0)
        nv = link_vec(cr, i, CR_E2, K, 0)
        _, alpha, rd, kap = _trans(K, nv)
        r = 0.0
        alpha = _add(alpha, nw, -1.0)
        beta, gamma, delta = (-nv[0], -nv[1], -nv[2]), nw, nv
        wa, wb = _vec(K, K_W), _vec(K, K_COLS + K_W)
        rel = _add(wb, wa, -1.0)
        rd += _dot(nw, rel)
        kap += _dot(_cross(wa, nw), rel) + _dot(nw, _add(_vec(K, K_COLS + K_WD), _vec(K, K_WD), -1.0))
    C[i, 0] = r
    for k in range(3):
        C[i, 1 + k] = alpha[k]
        C[i, 4 + k] = beta[k]
        C[i, 7 + k] = gamma[k]
        C[i, 10 + k] = delta[k]
    C[i, 13] = rd
    C[i, 14] = kap


@njit(cache=True, inline="always")
def _wrench(C, i, o, p, w):
    """C[i, w:w+6] = the wrench of the row's coefficients (alpha = C[i, o:o+3] on the frame's w,
    beta = C[i, o+3:o+6] on the velocity of its origin p) about its tree's root origin (p
    relative to it, K_P): a motion vector (w, v_O) in tree coordinates moves p at
    v_O + w x p, so the row's rate is (alpha + p x beta) . w + beta . v_O."""
    b0, b1, b2 = C[i, o + 3], C[i, o + 4], C[i, o + 5]
    C[i, w] = C[i, o] + p[1] * b2 - p[2] * b1
    C[i, w + 1] = C[i, o + 1] + p[2] * b0 - p[0] * b2
    C[i, w + 2] = C[i, o + 2] + p[0] * b1 - p[1] * b0
    C[i, w + 3], C[i, w + 4], C[i, w + 5] = b0, b1, b2


@njit(**NO_NRT)
def constraint_rows_core(mi, mf, fr, cr, ws, q, u, K, C, G, base):
    """Coefficients of every row at (q, u): C[i] = (r, alpha, beta, gamma, delta, r_dot, kappa, -,
    w_a, w_b) (the wrenches: ``_wrench``), and a coordinate row's two entries of Gc in G[i]
    (the rest of Gc is ``constraint_gamma.group_jacobian``'s, on the supports; G is zero
    elsewhere from the start: nobody writes there). Needs bias_motion_pass first: kappa is
    then the rows' velocity-product acceleration (``base`` = 0); after an ABA (``base`` =
    -gravity) it is their acceleration in the ABA's motion, but a coordinate row's (0).
    Consecutive rows on the same two frames (one constraint's) share their frames' kinematics."""
    fa0 = fb0 = -2
    for i in range(cr.shape[0]):
        t = int(cr[i, CR_TYPE])
        if t == COORD:
            row_coefficients(cr, i, K, q, u, C)
            ua, ub = int(cr[i, CR_UA]), int(cr[i, CR_UB])
            G[i, ua] = 0.0
            G[i, ub] = 0.0
            G[i, ua] += 1.0
            G[i, ub] -= cr[i, CR_SCALAR]
            continue
        fa, fb = int(cr[i, CR_FA]), int(cr[i, CR_FB])
        if fa != fa0 or fb != fb0:
            frame_kinematics(mi, fr, ws, fa, K, 0, base)
            frame_kinematics(mi, fr, ws, fb, K, K_COLS, base)
            fa0, fb0 = fa, fb
        row_coefficients(cr, i, K, q, u, C)
        _wrench(C, i, 1, _vec(K, K_P), R_WA)
        _wrench(C, i, 7, _vec(K, K_COLS + K_P), R_WB)
