"""First derivatives of the tree-augmented constrained forward dynamics, in one compiled call.

udot = FD_c(q, u, tau) (constrained_dynamics.ta_core) solves the KKT system
    M udot + b(q, u) - tau - Gc^T lambda = 0,    C := Gc udot + kappa + kd r_dot + kp r = 0
on the kept rows (a row the TA drops as redundant keeps lambda = 0 and is left out here too;
kp, kd: the Baumgarte gains in the work array, zero in ``forward_dynamics``). Differentiating
both at fixed (udot, lambda) (Carpentier and Mansard's constrained-dynamics derivatives):
    [[M, Gc^T], [Gc, 0]] [dudot; -dlambda] = -[H dx; dC/dx dx],
H = d(ID)/dx with the constraint forces Gc^T lambda held as applied forces, so
    dudot/dx = -Mc^-1 H - Y^T dC/dx,  dudot/dtau = Mc^-1 = M^-1 - (Gc M^-1)^T Y,
with Y = Gamma^+ Gc M^-1 (Gamma = Gc M^-1 Gc^T through the TA's own LDL^T factors, zero on the
dropped rows). H is the tree's inverse dynamics derivatives (inverse_dynamics_derivatives) at
the constrained udot, less d(Gc^T lambda)/dq.

The rows' terms are analytic, from the kinematics of their frames: a change of coordinate k
(tangent, along ``integrate``) moves every link it supports by its world column S_k (about the
tree's root link origin), so for a frame on link L supported by k (link l, parent p):
    dtheta = w_k,  dp = v_k + w_k x p,  dV_L = S_k x (V_L - V_p),
    dA_L = S_k x (A_L - A_p) - (S_k x V_p) x (V_L - V_p),
and a change of speed k gives dV_L = S_k, dA_L = V_l x S_k + S_k x (V_L - V_p) (V, A: spatial
velocities and gravity-free accelerations of the constrained motion, world axes); a column j
supported by k turns with it, dS_j = S_k x S_j. The rows' formulas then take these through
constraint_row_tangents.row_tangent. O(rows x support^2) beside the tree's derivatives and the
dense O(nu^2 rows + nu^3) products.
"""
from numba import njit

from .collision.vec import add, cross, dot, scale
from .common import check_state, result_status
from .constrained_dynamics import COORD, constraint_views, ldl_solve, ta_core
from .constraint_row_tangents import row_tangent
from .constraint_rows import K_AD, K_P, K_V, K_W, K_WD, frame_kinematics, row_coefficients
from .constraint_work import (
    K_COLS, NO_NRT, ROW_COLS, WC_COLS, WC_DRHS, WC_GEND, WC_KD, WC_KP, WC_LA, WC_LAMBDA, WC_LB, WC_NA, WC_NB,
    WC_NSUP, WC_ROW, row_offset,
)
from .forward_dynamics_derivatives import minus_products
from .inverse_dynamics_derivatives import rnea_derivatives_core
from .inverse_mass_matrix import minv_core
from .layout import (
    CR_FA, CR_FB, CR_SCALAR, CR_TYPE, CR_UA, CR_UB, D_USE_FEXT, NU, PARENT, UOFF, W_A, W_PR, W_RW, W_SW, W_V,
)
from .spatial_inline import cross_motion_t, load9, mul33T_vec
from .status import OK, SINGULAR

ZERO3 = (0.0, 0.0, 0.0)
ZERO6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True, inline="always")
def _six(A, j, o):
    return (A[j, o], A[j, o + 1], A[j, o + 2], A[j, o + 3], A[j, o + 4], A[j, o + 5])


@njit(cache=True, inline="always")
def _crm(a, b):
    """a x b, spatial motion vectors as 6-tuples."""
    return cross_motion_t(a[0], a[1], a[2], a[3], a[4], a[5], b[0], b[1], b[2], b[3], b[4], b[5])


@njit(cache=True, inline="always")
def _sub6(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4], a[5] - b[5])


@njit(cache=True, inline="always")
def _add6(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


@njit(cache=True, inline="always")
def _scale6(a, s):
    return (a[0] * s, a[1] * s, a[2] * s, a[3] * s, a[4] * s, a[5] * s)


@njit(cache=True, inline="always")
def _at_point(S, p):
    """The linear velocity of point p (about the same origin as S) in motion S."""
    return (S[3] + S[1] * p[2] - S[2] * p[1], S[4] + S[2] * p[0] - S[0] * p[2], S[5] + S[0] * p[1] - S[1] * p[0])


@njit(cache=True, inline="always")
def _v(K, o):
    return (K[o], K[o + 1], K[o + 2])


@njit(**NO_NRT)
def link_motion(mi, ws, u, udot, VA):
    """VA[j, :6], VA[j, 6:] = link j's spatial velocity and gravity-free acceleration in the
    motion (u, udot), world axes about its tree's root link origin (A_j = A_p + S udot + V_p x
    S u), and the same in ws W_V, W_A (link axes, about the link origin) for
    ``frame_kinematics``. Needs W_SW in tree coordinates, W_RW and W_PR."""
    for j in range(mi.shape[0]):
        p = mi[j, PARENT]
        vp = _six(VA, p, 0) if p >= 0 else ZERO6
        ap = _six(VA, p, 6) if p >= 0 else ZERO6
        s = ZERO6
        for r in range(6):
            VA[j, 6 + r] = ap[r]
        for k in range(mi[j, NU]):
            x, y = u[mi[j, UOFF] + k], udot[mi[j, UOFF] + k]
            s = _add6(s, _scale6(_six(ws, j, W_SW + 6 * k), x))
            for r in range(6):
                VA[j, 6 + r] += ws[j, W_SW + 6 * k + r] * y
        c = _crm(vp, s)
        for r in range(6):
            VA[j, r] = vp[r] + s[r]
            VA[j, 6 + r] += c[r]
        _to_link_axes(ws, j, VA, 0, W_V)
        _to_link_axes(ws, j, VA, 6, W_A)


@njit(cache=True, inline="always")
def _to_link_axes(ws, j, VA, src, dst):
    """ws[j, dst:dst+6] = VA[j, src:src+6] in link j's axes, about its origin (W_RW, W_PR)."""
    R = load9(ws, j, W_RW)
    w = mul33T_vec(R, VA[j, src], VA[j, src + 1], VA[j, src + 2])
    v = _at_point(_six(VA, j, src), (ws[j, W_PR], ws[j, W_PR + 1], ws[j, W_PR + 2]))
    v = mul33T_vec(R, v[0], v[1], v[2])
    for r in range(3):
        ws[j, dst + r] = w[r]
        ws[j, dst + 3 + r] = v[r]


@njit(cache=True, inline="always")
def _frame_tangent(K, T, o, S, VA, link, Vp, Ap, Vl, along_q):
    """T[o:o + 27] = the tangent of the frame kinematics K[o:] (the frame on ``link``) for a unit
    change of the coordinate (``along_q``) or of the speed of column S of a link supporting it
    (Vp, Ap: that link's parent's velocity and acceleration; Vl its own velocity)."""
    P, w, v, wd = _v(K, o + K_P), _v(K, o + K_W), _v(K, o + K_V), _v(K, o + K_WD)
    rel = _sub6(_six(VA, link, 0), Vp)
    if along_q:
        dth = (S[0], S[1], S[2])
        dp = _at_point(S, P)
        dV = _crm(S, rel)
        dA = _sub6(_crm(S, _sub6(_six(VA, link, 6), Ap)), _crm(_crm(S, Vp), rel))
    else:
        dth = dp = (0.0, 0.0, 0.0)
        dV = S
        dA = _add6(_crm(Vl, S), _crm(S, rel))
    dw = (dV[0], dV[1], dV[2])
    dv = add(_at_point(dV, P), cross(w, dp))
    dad = add(add(_at_point(dA, P), cross(wd, dp)), add(cross(dw, v), cross(w, dv)))
    for r in range(3):
        T[o + r] = dth[r]
        T[o + K_P + r] = dp[r]
        T[o + K_W + r] = dw[r]
        T[o + K_V + r] = dv[r]
        T[o + K_WD + r] = dA[r]
        T[o + K_AD + r] = dad[r]


@njit(cache=True, inline="always")
def _chain_positions(W, i, c0, idx):
    """Position of support entry idx in frame a's and b's ancestor chains (-1: not in it); a
    link is an ancestor of another in the same chain when its position is larger."""
    na, nb = int(W[i, c0 + WC_NA]), int(W[i, c0 + WC_NB])
    pa = idx if idx < na else (idx - nb if idx >= na + nb else -1)
    pb = idx - na if idx >= na else -1
    return pa, pb


@njit(cache=True, inline="always")
def _side_rate(al, be, S, P):
    """A row's rate on one frame (coefficients al on its w, be on the velocity of its origin P)
    in motion S."""
    return dot(al, (S[0], S[1], S[2])) + dot(be, _at_point(S, P))


@njit(cache=True, inline="always")
def _side_tangent(al, be, dal, dbe, Sj, P, dP, Sk, turned):
    """d/dq_k of one frame's part of Gc_ij, al . w_j + be . (v_j + w_j x P): the coefficients'
    change (dal, dbe), the frame's origin moving by dP, and column j turned by S_k (``turned``)."""
    val = _side_rate(dal, dbe, Sj, P) + dot(be, cross((Sj[0], Sj[1], Sj[2]), dP))
    if turned:
        val += _side_rate(al, be, _crm(Sk, Sj), P)
    return val


@njit(cache=True, inline="always")
def _coefficients(W, i, o):
    """(alpha, beta, gamma, delta) of row i, its coefficients at W[i, o:]."""
    return ((W[i, o + 1], W[i, o + 2], W[i, o + 3]), (W[i, o + 4], W[i, o + 5], W[i, o + 6]),
            (W[i, o + 7], W[i, o + 8], W[i, o + 9]), (W[i, o + 10], W[i, o + 11], W[i, o + 12]))


@njit(cache=True, inline="always")
def _weighted(W, i0, i1, o, lam0):
    """(alpha, beta, gamma, delta) of rows i0..i1 (coefficients at W[i, o:]) weighted by their
    multipliers W[i, lam0] and summed: the constraint's force on its two frames."""
    al, be, ga, de = ZERO3, ZERO3, ZERO3, ZERO3
    for i in range(i0, i1):
        lam = W[i, lam0]
        a, b, g, d = _coefficients(W, i, o)
        al, be, ga, de = add(al, scale(a, lam)), add(be, scale(b, lam)), add(ga, scale(g, lam)), add(de, scale(d, lam))
    return al, be, ga, de


@njit(**NO_NRT)
def _force_tangent(mi, ws, W, i, c0, l0, K, T, coef, dcoef, Sk, pak, pbk, k, dGl):
    """dGl[:, k] += d(Gc^T lambda)/dq_k of one constraint (its rows' support at row i):
    ``coef`` its multiplier-weighted (alpha, beta, gamma, delta), ``dcoef`` their change along
    coordinate k (from ``row_tangent``), the frames' tangent in T; pak, pbk: coordinate k's
    positions in the two chains."""
    al, be, ga, de = coef
    dal, dbe, dga, dde = dcoef
    Pa, Pb = _v(K, K_P), _v(K, K_COLS + K_P)
    dPa, dPb = _v(T, K_P), _v(T, K_COLS + K_P)
    for jdx in range(int(W[i, c0 + WC_NSUP])):
        lj = int(W[i, l0 + jdx])
        paj, pbj = _chain_positions(W, i, c0, jdx)
        for cj in range(mi[lj, NU]):
            Sj = _six(ws, lj, W_SW + 6 * cj)
            val = 0.0
            if paj >= 0:
                val += _side_tangent(al, be, dal, dbe, Sj, Pa, dPa, Sk, pak >= paj)
            if pbj >= 0:
                val += _side_tangent(ga, de, dga, dde, Sj, Pb, dPb, Sk, pbk >= pbj)
            dGl[mi[lj, UOFF] + cj, k] += val


@njit(**NO_NRT)
def _constraint_derivatives(mi, cr, ws, W, VA, KT, i0, i1, c0, l0, G, dCq, dCu, dGl):
    """The rows i0..i1 of one constraint (not a coordinate one: its coefficients in W, its
    frames' kinematics in KT[0]): their rows of Gc, dC/dq and dC/du, and their multipliers'
    part of d(Gc^T lambda)/dq (dGl). The frames' tangent is made once per coordinate for all
    the rows, and the force's tangent once for their weighted sum."""
    K, T, out = KT[0], KT[1], KT[2]
    la, lb = int(W[i0, c0 + WC_LA]), int(W[i0, c0 + WC_LB])
    o = c0 + WC_ROW
    Pa, Pb = _v(K, K_P), _v(K, K_COLS + K_P)
    coef = _weighted(W, i0, i1, o, c0 + WC_LAMBDA)
    loaded = False
    for i in range(i0, i1):
        loaded = loaded or W[i, c0 + WC_LAMBDA] != 0.0
    for idx in range(int(W[i0, c0 + WC_NSUP])):
        lk = int(W[i0, l0 + idx])
        pak, pbk = _chain_positions(W, i0, c0, idx)
        p = mi[lk, PARENT]
        Vp = _six(VA, p, 0) if p >= 0 else ZERO6
        Ap = _six(VA, p, 6) if p >= 0 else ZERO6
        Vl = _six(VA, lk, 0)
        for ck in range(mi[lk, NU]):
            k = mi[lk, UOFF] + ck
            Sk = _six(ws, lk, W_SW + 6 * ck)
            for i in range(i0, i1):
                al, be, ga, de = _coefficients(W, i, o)
                G[i, k] = ((_side_rate(al, be, Sk, Pa) if pak >= 0 else 0.0)
                           + (_side_rate(ga, de, Sk, Pb) if pbk >= 0 else 0.0))
            for along_q in (True, False):
                for r in range(2 * K_COLS):
                    T[r] = 0.0
                if pak >= 0:
                    _frame_tangent(K, T, 0, Sk, VA, la, Vp, Ap, Vl, along_q)
                if pbk >= 0:
                    _frame_tangent(K, T, K_COLS, Sk, VA, lb, Vp, Ap, Vl, along_q)
                dal, dbe, dga, dde = ZERO3, ZERO3, ZERO3, ZERO3
                for i in range(i0, i1):
                    row_tangent(cr, i, K, T, out)
                    dc = out[14] + W[i, c0 + WC_KD] * out[13] + W[i, c0 + WC_KP] * out[0]
                    if not along_q:
                        dCu[i, k] = dc
                        continue
                    dCq[i, k] = dc
                    lam = W[i, c0 + WC_LAMBDA]
                    dal, dbe = add(dal, scale(_v(out, 1), lam)), add(dbe, scale(_v(out, 4), lam))
                    dga, dde = add(dga, scale(_v(out, 7), lam)), add(dde, scale(_v(out, 10), lam))
                if along_q and loaded:
                    _force_tangent(mi, ws, W, i0, c0, l0, K, T, coef, (dal, dbe, dga, dde), Sk, pak, pbk, k, dGl)


@njit(**NO_NRT)
def _rows_pass(mi, fr, cr, ws, q, u, W, VA, KT, E, dGl):
    """E[0], E[1], E[2] = Gc, dC/dq, dC/du of every row in the constrained motion (VA), and
    dGl = d(Gc^T lambda)/dq."""
    nu = dGl.shape[0]
    nc = cr.shape[0]
    c0 = row_offset(nu, nc)
    l0 = c0 + WC_COLS
    G, dCq, dCu = E[0], E[1], E[2]
    for i in range(nc):
        for k in range(nu):
            G[i, k] = 0.0
            dCq[i, k] = 0.0
            dCu[i, k] = 0.0
    for r in range(nu):
        for k in range(nu):
            dGl[r, k] = 0.0
    C = W[:, c0 + WC_ROW:c0 + WC_ROW + ROW_COLS]
    for i in range(nc):
        if int(cr[i, CR_TYPE]) == COORD:  # r = q_a - ratio q_b - offset: Gc, dr/dq and dr_dot/du alike
            ua, ub = int(cr[i, CR_UA]), int(cr[i, CR_UB])
            G[i, ua] += 1.0
            G[i, ub] -= cr[i, CR_SCALAR]
            for k in range(nu):
                dCq[i, k] = W[i, c0 + WC_KP] * G[i, k]
                dCu[i, k] = W[i, c0 + WC_KD] * G[i, k]
            continue
        if i > 0 and int(W[i - 1, c0 + WC_GEND]) == int(W[i, c0 + WC_GEND]):
            continue  # (a later row of a constraint done below)
        i1 = int(W[i, c0 + WC_GEND])
        frame_kinematics(mi, fr, ws, int(cr[i, CR_FA]), KT[0], 0, (0.0, 0.0, 0.0))
        frame_kinematics(mi, fr, ws, int(cr[i, CR_FB]), KT[0], K_COLS, (0.0, 0.0, 0.0))
        for r in range(i, i1):
            row_coefficients(cr, r, KT[0], q, u, C)
        _constraint_derivatives(mi, cr, ws, W, VA, KT, i, i1, c0, l0, G, dCq, dCu, dGl)


@njit(**NO_NRT)
def kkt_solution(Ag, fo, col, G, dCq, dCu, GM, Y, Tq, Tu, dq, du, Minv):
    """From M^-1 (in Minv), Gc (G), dC/dq, dC/du and H (Tq, Tu): Minv = Mc^-1, dq = -Mc^-1 Tq
    - Y^T dC/dq, du likewise (the module docstring); GM = Gc M^-1, Y = Gamma^+ GM by the LDL^T
    factors of Gamma in Ag (``ldl_solve(Ag, fo, nc, col)``, column ``col`` the right-hand
    side's): the rigid constraint work's, or the flex kernels' (flex_constrained_derivatives)."""
    nc, nu = G.shape[0], Minv.shape[0]
    for i in range(nc):  # Gc M^-1 by rows of M^-1 (contiguous), over the row's support only
        for c in range(nu):
            GM[i, c] = 0.0
        for k in range(nu):
            g = G[i, k]
            if g != 0.0:
                for c in range(nu):
                    GM[i, c] += g * Minv[k, c]
    for c in range(nu):
        for i in range(nc):
            Ag[i, col] = GM[i, c]
        ldl_solve(Ag, fo, nc, col)
        for i in range(nc):
            Y[i, c] = Ag[i, col]
    for i in range(nc):
        for r in range(nu):
            g = GM[i, r]
            for c in range(nu):
                Minv[r, c] -= g * Y[i, c]
    minus_products(Minv, Tq, Tu, dq, du)
    for i in range(nc):
        for r in range(nu):
            y = Y[i, r]
            for c in range(nu):
                dq[r, c] -= y * dCq[i, c]
                du[r, c] -= y * dCu[i, c]


@njit(**NO_NRT)
def constrained_derivatives_core(mi, mf, fr, cr, ws, z, q, u, tau, use_fext, W, Wm, T, E, VA, KT, dq, du, Minv):
    """dq = dudot/dq (tangent), du = dudot/du, Minv = dudot/dtau of the TA constrained dynamics
    at (q, u, tau); False where the tree's D is singular. The constrained udot stays in du's
    first row until the tree's derivatives are taken."""
    nu = Minv.shape[0]
    nc = cr.shape[0]
    udot = du[0]
    if not ta_core(mi, mf, fr, cr, ws, z, q, u, tau, use_fext, W, udot):
        return False
    link_motion(mi, ws, u, udot, VA)
    _rows_pass(mi, fr, cr, ws, q, u, W, VA, KT, E, dq)
    rnea_derivatives_core(mi, mf, ws, q, u, udot, use_fext, T[0], T[1], T[2])
    for r in range(nu):  # H_q: the constraint forces held as applied forces
        for c in range(nu):
            T[0, r, c] -= dq[r, c]
    if not minv_core(mi, mf, ws, z, q, Wm, Minv):
        return False
    kkt_solution(W, nu, row_offset(nu, nc) + WC_DRHS, E[0], E[1], E[2], E[3], E[4], T[0], T[1], dq, du, Minv)
    return True


@njit(**NO_NRT)
def constrained_dynamics_derivatives(dbuf, q, u, tau, W, Wm, T, E, VA, KT, dq, du, Minv):
    """Checked entry point: a status for (q, u, tau), SINGULAR or OVERFLOW. W: the constraint
    work array (its Baumgarte gains are used), Wm: M^-1's work, T (3, nu, nu), E (5, nc, nu),
    VA (n_links, 12), KT (3, 2 K_COLS) scratch; dq, du, Minv (nu, nu) the results."""
    mi, mf, fr, cr, ws, z, d0 = constraint_views(dbuf)
    st = check_state(mi, q, u, tau, 1, 1)
    if st == OK and not constrained_derivatives_core(mi, mf, fr, cr, ws, z, q, u, tau, dbuf[d0, D_USE_FEXT] != 0.0,
                                                     W, Wm, T, E, VA, KT, dq, du, Minv):
        return SINGULAR
    return result_status(result_status(result_status(st, dq), du), Minv)
