"""Analytic first derivatives of the inverse dynamics of a rigid tree, O(N d) (d: tree depth).

tau = RNEA(q, u, udot); this kernel gives dtau/dq, dtau/du and dtau/dudot = M, after
Carpentier & Mansard ("Analytical derivatives of rigid body dynamics algorithms", RSS 2018),
in tree coordinates (world axes about each tree's root link origin, W_PR, as the CRBA).

Derivatives in q are tangent: along q (+) dq at dq = 0 (``integrate``), which for every kind
moves link j's frame by exp(S_j dq_j) in that frame, so the whole subtree of j moves rigidly
by the world twist s (a column of S_j in tree coordinates, ``W_SW``): every motion vector,
force and inertia fixed to a subtree link turns with it (d/ddq of m is s x m, of f is
s x* f), and S_i^T F_i is unchanged by a motion of all its terms (<s x m, f> + <m, s x* f> = 0).
What does not move with the subtree are the parent's v_p, a_p (gravity as a_root = -g) that
the subtree's v and a carry. With beta = s x v_p, the force of each subtree link k changes
beyond the rigid motion by  I_k P - B_k beta  where  P = beta x v_p - s x a_p  and B_k, the
linear map  x -> I_k (x x v_k) + v_k x* (I_k x) + x x* (I_k v_k),  is [[B_ww, 0], [-2 [h_f]x, 0]]
(h_f the body's linear momentum). A speed u_c of joint j changes the same forces by
I_k zeta + B_k s with zeta = (v_p + v_j) x s. Sums over a subtree are then the composites
Ic (a rigid-body inertia, 10 numbers, ``W_Y``) and Bc (12 numbers, ``W_BC``), so for a row r
of link i and a column c (link j):
    i in j's subtree:  dtau_r/dq_c = S_r^T (Ic_i P_c - Bc_i beta_c),
                       dtau_r/du_c = S_r^T (Ic_i zeta_c + Bc_i s_c)
    i above j:         dtau_r/dq_c = S_r^T (s_c x* F_j + Ic_j P_c - Bc_j beta_c),
                       dtau_r/du_c = S_r^T (Ic_j zeta_c + Bc_j s_c)
and M[r, c] = S_r^T Ic_i s_c (the CRBA's), F_j the subtree's net force. External wrenches
are fixed in the links (``W_FEXT``), so they move with the subtree: the s x* F term holds them.

1. Outward: placements; per link Y (W_Y), S (W_SW), v, a (W_V, W_A, tree coordinates), its
   net force f (W_F), B (W_BC); per speed P (W_DP), beta's angular part (W_DBETA), zeta (W_DZETA).
2. Inward: per link j, its rows against the columns of j and its ancestors (M's lower
   triangle), then its columns' force columns for its ancestors' rows (over P and zeta); then
   Ic, Bc and F are added into the parent's.
3. Per link, its rows against its descendants' columns: each row written contiguously (the
   column-by-column writes of step 2 cost a cache line per entry on long chains).
"""
from numba import njit

from .common import check_state, data_start, link_rows, model_arrays, result_status
from .inverse_mass_steps import dot6, load6
from .joint_transform import place_links, world_placement
from .layout import (
    ARMATURE, D_USE_FEXT, DENSE_M, GRAVITY, NU, PARENT, SUBTREE_END, UOFF, W_A, W_BC, W_C, W_DBETA, W_DP, W_DZETA,
    W_F, W_FEXT, W_PR, W_SW, W_V, W_Y,
)
from .mass_matrix import world_motion_columns, world_rigid_inertia
from .spatial_inline import cross_force_t, cross_motion_add, cross_motion_t, force_to_world, rigid_inertia_times, store6
from .status import OK

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def _link_motion(mi, mf, ws, j, u, udot):
    """v, a of link j in tree coordinates (W_V, W_A; W_C keeps S u), with the parent's
    (v_p, a_p) returned: a = a_p + S udot + v x (S u), the root's a_p = [0; -g]."""
    p = mi[j, PARENT]
    if p < 0:
        n = mi.shape[0]
        vp = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        ap = (0.0, 0.0, 0.0, -mf[n, GRAVITY], -mf[n, GRAVITY + 1], -mf[n, GRAVITY + 2])
    else:
        vp = load6(ws, p, W_V)
        ap = load6(ws, p, W_A)
    for r in range(6):
        ws[j, W_C + r] = 0.0
        ws[j, W_A + r] = ap[r]
    uj = mi[j, UOFF]
    for k in range(mi[j, NU]):
        o = W_SW + 6 * k
        x = u[uj + k]
        y = udot[uj + k]
        for r in range(6):
            ws[j, W_C + r] += ws[j, o + r] * x
            ws[j, W_A + r] += ws[j, o + r] * y
    for r in range(6):
        ws[j, W_V + r] = vp[r] + ws[j, W_C + r]
    cross_motion_add(ws, j, W_V, ws, j, W_C, ws, j, W_A)
    return vp, ap


@njit(**_INL)
def _speed_columns(mi, ws, j, vp, ap):
    """Per speed k of link j: P_k (W_DP), the angular part of beta_k (W_DBETA), zeta_k (W_DZETA)."""
    v = load6(ws, j, W_V)
    for k in range(mi[j, NU]):
        s = load6(ws, j, W_SW + 6 * k)
        beta = cross_motion_t(s[0], s[1], s[2], s[3], s[4], s[5], vp[0], vp[1], vp[2], vp[3], vp[4], vp[5])
        alpha = cross_motion_t(s[0], s[1], s[2], s[3], s[4], s[5], ap[0], ap[1], ap[2], ap[3], ap[4], ap[5])
        bv = cross_motion_t(beta[0], beta[1], beta[2], beta[3], beta[4], beta[5],
                            vp[0], vp[1], vp[2], vp[3], vp[4], vp[5])
        zeta = cross_motion_t(vp[0] + v[0], vp[1] + v[1], vp[2] + v[2], vp[3] + v[3], vp[4] + v[4], vp[5] + v[5],
                              s[0], s[1], s[2], s[3], s[4], s[5])
        for r in range(6):
            ws[j, W_DP + 6 * k + r] = bv[r] - alpha[r]
            ws[j, W_DZETA + 6 * k + r] = zeta[r]
        for r in range(3):
            ws[j, W_DBETA + 3 * k + r] = beta[r]


@njit(**_INL)
def _link_force(ws, j, use_fext):
    """The link's net force f = Y a + v x* (Y v) - f_ext (W_F) and its B (W_BC), Y the link's
    rigid inertia in tree coordinates (W_Y: m, h, J)."""
    v = load6(ws, j, W_V)
    a = load6(ws, j, W_A)
    hm = rigid_inertia_times(ws, j, W_Y, v[0], v[1], v[2], v[3], v[4], v[5])  # momentum [h_n; h_f]
    f = rigid_inertia_times(ws, j, W_Y, a[0], a[1], a[2], a[3], a[4], a[5])
    x = cross_force_t(v[0], v[1], v[2], v[3], v[4], v[5], hm[0], hm[1], hm[2], hm[3], hm[4], hm[5])
    if use_fext:
        e = force_to_world(ws, j, ws[j, W_FEXT], ws[j, W_FEXT + 1], ws[j, W_FEXT + 2],
                           ws[j, W_FEXT + 3], ws[j, W_FEXT + 4], ws[j, W_FEXT + 5], W_PR)
    else:
        e = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    store6(ws, j, W_F, f[0] + x[0] - e[0], f[1] + x[1] - e[1], f[2] + x[2] - e[2],
           f[3] + x[3] - e[3], f[4] + x[4] - e[4], f[5] + x[5] - e[5])
    # B_ww = [w]x J - J [w]x - (vl h^T + h vl^T) + 2 (h . vl) 1 - [h_n]x; with T = [w]x J,
    # [w]x J - J [w]x = T + T^T (J symmetric)
    w0, w1, w2, l0, l1, l2 = v
    h0 = ws[j, W_Y + 1]
    h1 = ws[j, W_Y + 2]
    h2 = ws[j, W_Y + 3]
    J00 = ws[j, W_Y + 4]
    J01 = ws[j, W_Y + 5]
    J02 = ws[j, W_Y + 6]
    J11 = ws[j, W_Y + 7]
    J12 = ws[j, W_Y + 8]
    J22 = ws[j, W_Y + 9]
    T = (-w2 * J01 + w1 * J02, -w2 * J11 + w1 * J12, -w2 * J12 + w1 * J22,
         w2 * J00 - w0 * J02, w2 * J01 - w0 * J12, w2 * J02 - w0 * J22,
         -w1 * J00 + w0 * J01, -w1 * J01 + w0 * J11, -w1 * J02 + w0 * J12)
    hv = 2.0 * (h0 * l0 + h1 * l1 + h2 * l2)
    hh = (h0, h1, h2)
    ll = (l0, l1, l2)
    for r in range(3):
        for c in range(3):
            b = T[3 * r + c] + T[3 * c + r] - ll[r] * hh[c] - hh[r] * ll[c]
            if r == c:
                b += hv
            ws[j, W_BC + 3 * r + c] = b
    ws[j, W_BC + 1] += hm[2]  # - [h_n]x
    ws[j, W_BC + 2] -= hm[1]
    ws[j, W_BC + 3] -= hm[2]
    ws[j, W_BC + 5] += hm[0]
    ws[j, W_BC + 6] += hm[1]
    ws[j, W_BC + 7] -= hm[0]
    for r in range(3):
        ws[j, W_BC + 9 + r] = hm[3 + r]


@njit(**_INL)
def _bc_times(ws, j, x0, x1, x2):
    """Bc [x; *] as a 6-tuple: [B_ww x; -2 h_f x x] (Bc's linear columns are zero)."""
    o = W_BC
    f0 = ws[j, W_BC + 9]
    f1 = ws[j, W_BC + 10]
    f2 = ws[j, W_BC + 11]
    return (ws[j, o] * x0 + ws[j, o + 1] * x1 + ws[j, o + 2] * x2,
            ws[j, o + 3] * x0 + ws[j, o + 4] * x1 + ws[j, o + 5] * x2,
            ws[j, o + 6] * x0 + ws[j, o + 7] * x1 + ws[j, o + 8] * x2,
            -2.0 * (f1 * x2 - f2 * x1), -2.0 * (f2 * x0 - f0 * x2), -2.0 * (f0 * x1 - f1 * x0))


@njit(**_INL)
def _rows_of_link(mi, mf, ws, j, dq, du, M):
    """Link j's rows against the columns of j and of its ancestors (and M's entries there)."""
    uj = mi[j, UOFF]
    f0 = ws[j, W_BC + 9]
    f1 = ws[j, W_BC + 10]
    f2 = ws[j, W_BC + 11]
    for a in range(mi[j, NU]):
        s = load6(ws, j, W_SW + 6 * a)
        rI = rigid_inertia_times(ws, j, W_Y, s[0], s[1], s[2], s[3], s[4], s[5])  # = (s^T Ic)^T
        # s^T Bc on an angular x: (B_ww^T s_w - 2 s_v x h_f) . x
        b0 = ws[j, W_BC] * s[0] + ws[j, W_BC + 3] * s[1] + ws[j, W_BC + 6] * s[2] - 2.0 * (s[4] * f2 - s[5] * f1)
        b1 = ws[j, W_BC + 1] * s[0] + ws[j, W_BC + 4] * s[1] + ws[j, W_BC + 7] * s[2] - 2.0 * (s[5] * f0 - s[3] * f2)
        b2 = ws[j, W_BC + 2] * s[0] + ws[j, W_BC + 5] * s[1] + ws[j, W_BC + 8] * s[2] - 2.0 * (s[3] * f1 - s[4] * f0)
        r = uj + a
        i = j
        while i >= 0:
            ui = mi[i, UOFF]
            for b in range(mi[i, NU]):
                c = ui + b
                P = W_DP + 6 * b
                Z = W_DZETA + 6 * b
                S = W_SW + 6 * b
                e = W_DBETA + 3 * b
                dq[r, c] = (rI[0] * ws[i, P] + rI[1] * ws[i, P + 1] + rI[2] * ws[i, P + 2] + rI[3] * ws[i, P + 3]
                            + rI[4] * ws[i, P + 4] + rI[5] * ws[i, P + 5]
                            - b0 * ws[i, e] - b1 * ws[i, e + 1] - b2 * ws[i, e + 2])
                du[r, c] = (rI[0] * ws[i, Z] + rI[1] * ws[i, Z + 1] + rI[2] * ws[i, Z + 2] + rI[3] * ws[i, Z + 3]
                            + rI[4] * ws[i, Z + 4] + rI[5] * ws[i, Z + 5]
                            + b0 * ws[i, S] + b1 * ws[i, S + 1] + b2 * ws[i, S + 2])
                if c <= r:  # M's lower triangle (the upper one is mirrored at the end)
                    m = (rI[0] * ws[i, S] + rI[1] * ws[i, S + 1] + rI[2] * ws[i, S + 2] + rI[3] * ws[i, S + 3]
                         + rI[4] * ws[i, S + 4] + rI[5] * ws[i, S + 5])
                    if c == r:
                        m += mf[j, ARMATURE + a]
                    M[r, c] = m
            i = mi[i, PARENT]


@njit(**_INL)
def _columns_above(mi, ws, j):
    """For each column c of link j, the force columns its ancestors' rows take:
    Q_c = s x* F_j + Ic_j P - Bc_j beta and R_c = Ic_j zeta + Bc_j s, written over P_c (W_DP)
    and zeta_c (W_DZETA), which no row needs any more (j's subtree's rows are done, and its
    ancestors' rows take only their own and their ancestors' columns)."""
    F = load6(ws, j, W_F)
    for b in range(mi[j, NU]):
        s = load6(ws, j, W_SW + 6 * b)
        P = load6(ws, j, W_DP + 6 * b)
        Z = load6(ws, j, W_DZETA + 6 * b)
        e = W_DBETA + 3 * b
        x = cross_force_t(s[0], s[1], s[2], s[3], s[4], s[5], F[0], F[1], F[2], F[3], F[4], F[5])
        iP = rigid_inertia_times(ws, j, W_Y, P[0], P[1], P[2], P[3], P[4], P[5])
        bB = _bc_times(ws, j, ws[j, e], ws[j, e + 1], ws[j, e + 2])
        iZ = rigid_inertia_times(ws, j, W_Y, Z[0], Z[1], Z[2], Z[3], Z[4], Z[5])
        bS = _bc_times(ws, j, s[0], s[1], s[2])
        store6(ws, j, W_DP + 6 * b, x[0] + iP[0] - bB[0], x[1] + iP[1] - bB[1], x[2] + iP[2] - bB[2],
               x[3] + iP[3] - bB[3], x[4] + iP[4] - bB[4], x[5] + iP[5] - bB[5])
        store6(ws, j, W_DZETA + 6 * b, iZ[0] + bS[0], iZ[1] + bS[1], iZ[2] + bS[2], iZ[3] + bS[3], iZ[4] + bS[4],
               iZ[5] + bS[5])


@njit(**_INL)
def _rows_above(mi, ws, i, dq, du, M):
    """Link i's rows against the columns of its strict descendants (the range (i, SUBTREE_END)
    in depth-first order), S_r^T Q_c and S_r^T R_c, row by row; M's from its lower triangle."""
    ui = mi[i, UOFF]
    for a in range(mi[i, NU]):
        s = load6(ws, i, W_SW + 6 * a)
        r = ui + a
        for b in range(a + 1, mi[i, NU]):  # the link's own block
            M[r, ui + b] = M[ui + b, r]
        for j in range(i + 1, mi[i, SUBTREE_END]):
            uj = mi[j, UOFF]
            for b in range(mi[j, NU]):
                c = uj + b
                dq[r, c] = dot6(s, ws, j, W_DP + 6 * b)
                du[r, c] = dot6(s, ws, j, W_DZETA + 6 * b)
                M[r, c] = M[c, r]


@njit(cache=True, _nrt=False)
def rnea_derivatives_core(mi, mf, ws, q, u, udot, use_fext, dq, du, M):
    """dq = dtau/dq (tangent), du = dtau/du, M = dtau/dudot (each nu x nu) at (q, u, udot),
    f_ext in ws[:, W_FEXT] (link frames) when use_fext; see the module docstring."""
    n = mi.shape[0]
    if mf[n, DENSE_M] == 0.0:  # unrelated branches leave zeros that must be written
        for r in range(M.shape[0]):
            for c in range(M.shape[1]):
                dq[r, c] = 0.0
                du[r, c] = 0.0
                M[r, c] = 0.0
    place_links(mi, mf, ws, q)
    for j in range(n):
        world_placement(mi, ws, j)
        world_rigid_inertia(mf, ws, j)
        world_motion_columns(mi, mf, ws, j, W_PR)
        vp, ap = _link_motion(mi, mf, ws, j, u, udot)
        _speed_columns(mi, ws, j, vp, ap)
        _link_force(ws, j, use_fext)
    for j in range(n - 1, -1, -1):  # Ic, Bc, F of j's subtree are complete here
        _rows_of_link(mi, mf, ws, j, dq, du, M)
        _columns_above(mi, ws, j)
        p = mi[j, PARENT]
        if p >= 0:
            for k in range(10):
                ws[p, W_Y + k] += ws[j, W_Y + k]
            for k in range(12):
                ws[p, W_BC + k] += ws[j, W_BC + k]
            for k in range(6):
                ws[p, W_F + k] += ws[j, W_F + k]
    for i in range(n):  # the entries above the diagonal, each row contiguous
        _rows_above(mi, ws, i, dq, du, M)


@njit(cache=True, _nrt=False)
def inverse_dynamics_derivatives(dbuf, q, u, udot, dq, du, M):
    """Checked entry point: a status for (q, u, udot) (MODAL for a model with modal bodies,
    which this kernel does not serve), or OVERFLOW; dq, du, M are (nu, nu)."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    st = check_state(mi, q, u, udot, 1, 1)
    if st == OK:
        rnea_derivatives_core(mi, mf, link_rows(dbuf, d0, n), q, u, udot, dbuf[d0, D_USE_FEXT] != 0.0, dq, du, M)
    return result_status(result_status(result_status(st, dq), du), M)
