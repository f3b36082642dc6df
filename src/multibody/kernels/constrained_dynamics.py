"""Tree-augmented (TA) constrained forward dynamics: O(N + rows d + rows^2 d + rows^3).

1. Tree ABA: the unconstrained accelerations udot_f (forward_dynamics.aba_core), which
   leaves the articulated-inertia factors (U, D^-1, G) in the data.
2. The constraint rows (constraint_rows.py): residuals r, their coefficients and bias kappa.
3. On each row's support (constraint_gamma.py, tree coordinates): its row of Gc, its
   innovations eps and Gamma = Gc M^-1 Gc^T (seed 000's Gamma, = Q Upsilon Q^T at the
   constraint nodes): O(d) per row, O(d) per pair.
4. The multipliers: Gamma lambda = -(Gc udot_f + kappa) - kd r_dot - kp r (Baumgarte gains
   per row; zero gains leave pure acceleration-level constraints). Redundant rows (a pivot
   of the LDL^T factorisation below tol of the largest diagonal) get lambda = 0.
5. The correction: udot = udot_f + M^-1 Gc^T lambda, the ABA's inward and outward passes on
   the kept factors (no velocity, no gravity) in tree coordinates, without transforms.
   Gc^T lambda is the constraint force.
6. One step of iterative refinement, taken when a kept row misses its wanted acceleration
   by more than REFINE_TOL of the magnitudes its miss is formed from: the miss (from the
   accelerations the correction made at the row's frames, not from Gamma) is solved for
   with the same factors and corrected by a second sweep of step 5. Why: Gamma = Gc M^-1
   Gc^T squares Gc's conditioning. On the ladders of bench/bench_constrained.py (32-64
   loops near a singular configuration, cond(Gamma) ~ 1e13) the first solve is 4-6e-7 of
   |udot| off an extended-precision solve of the same KKT system, whose answer moves by
   only ~2e-11 when q does by 1e-15 (a dense LU of the KKT system is 1e-7 off); after the
   step, 3-5e-11 (tests/test_loop_ladder.py). Cost: a small part of TA when taken
   (bench/README.md); the bench's Cassie states do not take it (worst miss 6e-15 of its
   magnitudes with the loops, 5e-14 with every constraint).

The work array ``W`` is laid out in constraint_work.py.
"""
from numba import njit

from .common import (
    check_state, constraint_table, data_start, frame_table, link_rows, model_arrays, ragged, result_status,
)
from .constraint_gamma import W_GT, gamma_rows, group_jacobian, row_innovations, supports, tree_factors
from .constraint_rows import bias_motion_pass, constraint_rows_core
from .constraint_work import (
    K_COLS, NO_NRT, R_KAPPA, R_RDOT, R_WA, ROW_COLS, WC_COLS, WC_DRHS, WC_GEND, WC_KD, WC_KIN, WC_KP, WC_LA, WC_LAMBDA,
    WC_RHS, WC_ROW, row_offset,
)
from .forward_dynamics import aba_core
from .joint_transform import place_links
from .layout import CR_TYPE, CR_UA, CR_UB, D_USE_FEXT, GRAVITY, DINV_ADR, NU, PARENT, UOFF, W_A, W_F, W_SW
from .status import BAD_LENGTH_ARG2, OK, SINGULAR

COORD = 5
PIVOT_TOL = 1e-12
REFINE_TOL = 1e-13  # a row's miss above ~500 roundings of what it is formed from


@njit(**NO_NRT)
def tree_solve(mi, ws, z, tau, udot):
    """udot += M^-1 (tau + the generalized force of the wrenches ws[j, W_F:] on the links, tree
    coordinates) by the ABA's inward and outward passes on the kept factors with no velocity
    and no gravity, in tree coordinates (no transforms): eps_j = tau_j + S_j . F_j,
    F_p += F_j - G_j eps_j; x_j = D_j^-1 eps_j - G_j^T a_p, a_j = a_p + S_j x_j (W_A).
    tau is overwritten by eps, W_F by F. Needs W_SW and W_GT."""
    n = mi.shape[0]
    for j in range(n - 1, -1, -1):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        p = mi[j, PARENT]
        if nj == 1:
            e = tau[uj]
            for r in range(6):
                e += ws[j, W_SW + r] * ws[j, W_F + r]
            tau[uj] = e
            if p >= 0:
                for r in range(6):
                    ws[p, W_F + r] += ws[j, W_F + r] - ws[j, W_GT + r] * e
            continue
        for k in range(nj):
            s = tau[uj + k]
            for r in range(6):
                s += ws[j, W_SW + 6 * k + r] * ws[j, W_F + r]
            tau[uj + k] = s
        if p < 0:
            continue
        for r in range(6):
            f = ws[j, W_F + r]
            for k in range(nj):
                f -= ws[j, W_GT + 6 * k + r] * tau[uj + k]
            ws[p, W_F + r] += f
    for j in range(n):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        da = mi[j, DINV_ADR]
        p = mi[j, PARENT]
        if nj == 1:
            x = z[da] * tau[uj]
            if p >= 0:
                for r in range(6):
                    x -= ws[j, W_GT + r] * ws[p, W_A + r]
            udot[uj] += x
            for r in range(6):
                ws[j, W_A + r] = (ws[p, W_A + r] if p >= 0 else 0.0) + ws[j, W_SW + r] * x
            continue
        for r in range(6):
            ws[j, W_A + r] = ws[p, W_A + r] if p >= 0 else 0.0
        for k in range(nj):  # a_p, the parent's, until every x_k of this link is known
            x = 0.0
            for b in range(nj):
                x += z[da + nj * k + b] * tau[uj + b]
            if p >= 0:
                for r in range(6):
                    x -= ws[j, W_GT + 6 * k + r] * ws[p, W_A + r]
            udot[uj + k] += x
            for r in range(6):
                ws[j, W_A + r] += ws[j, W_SW + 6 * k + r] * x


@njit(**NO_NRT)
def factor_gamma(W, nu, nc):
    """LDL^T of Gamma (lower triangle of W[:, 3nu:3nu+nc], both triangles overwritten: L below
    the diagonal, D on it), right-looking, without pivoting; rows whose pivot falls below
    PIVOT_TOL x the largest diagonal dropped (their D, L entries 0: lambda = 0). Returns the
    number of dropped (redundant) rows.

    Why no pivoting or row scaling: Gaussian elimination on a symmetric positive definite
    matrix is stable without pivoting, and a diagonal scaling changes nothing but the rank
    test, which both make worse on the robots we measure (bench/bench_constrained.py, the
    ladders; Cassie's knee-spring slider loops): diagonal pivoting moves the weak directions
    of a long ladder to the last pivots (3e-13 of the largest on 32 loops, which a relative
    test then drops although the rows are independent: the ladder's rows are dependent only
    collectively, each at least 1e-9 of the largest in row order); a per-row test (pivot
    against the row's own diagonal) keeps the rows that the file's rounding (1.5708 for
    pi/2) leaves at 1e-5 of an exactly redundant row, and they then carry the loop with
    multipliers 1e5 times too large."""
    g0 = 3 * nu
    big = 0.0
    for i in range(nc):
        big = max(big, W[i, g0 + i])
    dropped = 0
    for c in range(nc):
        d = W[c, g0 + c]
        if not d > PIVOT_TOL * big:
            d = 0.0
            dropped += 1
            for m in range(c):
                W[c, g0 + m] = 0.0
        W[c, g0 + c] = d
        for m in range(c + 1, nc):  # row c's upper part: the updated column c (L[m, c] d)
            W[c, g0 + m] = W[m, g0 + c] if d != 0.0 else 0.0
            W[m, g0 + c] = W[c, g0 + m] / d if d != 0.0 else 0.0
        if d == 0.0:
            continue
        for k in range(c + 1, nc):  # the trailing lower triangle -= L[k, c] (L[m, c] d)
            lk = W[k, g0 + c]
            for m in range(c + 1, k + 1):
                W[k, g0 + m] -= lk * W[c, g0 + m]
    return dropped


@njit(**NO_NRT)
def ldl_solve(W, nu, nc, col):
    """Gamma x = b in place in column ``col`` of W (b in, x out) with ``factor_gamma``'s factors:
    L y = b forward, then D L^T x = y backward (x = 0 on dropped rows)."""
    g0 = 3 * nu
    for k in range(nc):
        s = W[k, col]
        for m in range(k):
            s -= W[k, g0 + m] * W[m, col]
        W[k, col] = s
    for k in range(nc - 1, -1, -1):
        d = W[k, g0 + k]
        s = W[k, col] / d if d != 0.0 else 0.0
        for m in range(k + 1, nc):
            s -= W[m, g0 + k] * W[m, col]
        W[k, col] = s if d != 0.0 else 0.0


@njit(**NO_NRT)
def apply_multipliers(mi, cr, ws, z, W, nu, c0, l0, col, udot):
    """udot += M^-1 Gc^T x for the multipliers x in column c0 + col of W: the coordinate rows'
    entries of Gc^T x and the other rows' wrenches x w on their links' W_F, then tree_solve.
    Leaves Gc^T x's coordinate part (then its innovations) in row 0 after the support speeds,
    and in W_A the links' accelerations M^-1 Gc^T x makes (tree coordinates)."""
    n = mi.shape[0]
    nc = cr.shape[0]
    force = W[0, l0 + 2 * n + nu:l0 + 2 * n + 2 * nu]
    for k in range(nu):
        force[k] = 0.0
    for j in range(n):
        for r in range(6):
            ws[j, W_F + r] = 0.0
    for i in range(nc):
        lam = W[i, c0 + col]
        if lam == 0.0:
            continue
        if int(cr[i, CR_TYPE]) == COORD:
            ua, ub = int(cr[i, CR_UA]), int(cr[i, CR_UB])
            force[ua] += lam * W[i, ua]
            if ub != ua:
                force[ub] += lam * W[i, ub]
            continue
        for side in range(2):
            link = int(W[i, c0 + WC_LA + side])
            if link >= 0:
                w = c0 + WC_ROW + R_WA + 6 * side
                for r in range(6):
                    ws[link, W_F + r] += lam * W[i, w + r]
    tree_solve(mi, ws, z, force, udot)


@njit(**NO_NRT)
def refinement_rhs(cr, ws, W, udot, c0):
    """What the corrected motion udot still misses of each kept row's wanted acceleration, into
    W[:, c0 + WC_DRHS] (0 on dropped rows): a coordinate row's from udot itself, the others'
    as WC_RHS minus the change the correction made at their frames, w_a . A_a + w_b . A_b
    (the links' W_A from apply_multipliers; Gc_i du = w_a . V_a + w_b . V_b for any du).
    Returns the largest miss relative to the sum of the magnitudes it is formed from (the
    rounding level of a row's miss is a few 1e-16 of that sum)."""
    nc = cr.shape[0]
    g0 = c0 - nc
    worst = 0.0
    for i in range(nc):
        if W[i, g0 + i] == 0.0:
            W[i, c0 + WC_DRHS] = 0.0
            continue
        kd = W[i, c0 + WC_KD] * W[i, c0 + WC_ROW + R_RDOT]
        kp = W[i, c0 + WC_KP] * W[i, c0 + WC_ROW]
        if int(cr[i, CR_TYPE]) == COORD:
            ua, ub = int(cr[i, CR_UA]), int(cr[i, CR_UB])
            ta = W[i, ua] * udot[ua]
            tb = W[i, ub] * udot[ub] if ub != ua else 0.0
            kap = W[i, c0 + WC_ROW + R_KAPPA]
            e = -kap - ta - tb - kd - kp
            size = abs(kap) + abs(ta) + abs(tb) + abs(kd) + abs(kp)
        else:
            e = W[i, c0 + WC_RHS]
            size = abs(e)
            for side in range(2):
                link = int(W[i, c0 + WC_LA + side])
                if link >= 0:
                    w = c0 + WC_ROW + R_WA + 6 * side
                    for r in range(6):
                        t = W[i, w + r] * ws[link, W_A + r]
                        e -= t
                        size += abs(t)
        W[i, c0 + WC_DRHS] = e
        if abs(e) > worst * size:
            worst = abs(e) / size
    return worst


@njit(**NO_NRT)
def ta_core(mi, mf, fr, cr, ws, z, q, u, tau, use_fext, W, udot):
    """udot of the constrained system (steps 1-6 of the module docstring); the multipliers
    in W[:, c0 + WC_LAMBDA]. Returns False when the tree's D_j is singular."""
    nu = udot.shape[0]
    nc = cr.shape[0]
    c0 = row_offset(nu, nc)
    l0 = c0 + WC_COLS
    if not aba_core(mi, mf, ws, z, q, u, tau, use_fext, udot):
        return False
    if nc == 0:
        return True
    bias_motion_pass(mi, mf, ws, u, True)
    K = W[0, c0 + WC_KIN:c0 + WC_KIN + 2 * K_COLS]
    n = mi.shape[0]
    base = (-mf[n, GRAVITY], -mf[n, GRAVITY + 1], -mf[n, GRAVITY + 2])
    constraint_rows_core(mi, mf, fr, cr, ws, q, u, K, W[:, c0 + WC_ROW:c0 + WC_ROW + ROW_COLS], W, base)
    tree_factors(mi, ws, z)
    supports(mi, fr, cr, W, c0, l0)
    i0 = 0
    while i0 < nc:
        i1 = int(W[i0, c0 + WC_GEND])
        for i in range(i0, i1):
            row_innovations(mi, ws, z, W, i, nu, c0, l0, int(cr[i, CR_TYPE]) == COORD)
        gamma_rows(mi, W, i0, i1, nu, c0, l0)
        i0 = i1
    for i in range(nc):  # the rows' acceleration in the unconstrained motion: kappa, Gc udot in it
        acc = W[i, c0 + WC_ROW + R_KAPPA]
        if int(cr[i, CR_TYPE]) == COORD:  # u_a - ratio u_b
            ua, ub = int(cr[i, CR_UA]), int(cr[i, CR_UB])
            acc += W[i, ua] * udot[ua] + (W[i, ub] * udot[ub] if ub != ua else 0.0)
        r = W[i, c0 + WC_ROW]
        rd = W[i, c0 + WC_ROW + R_RDOT]
        W[i, c0 + WC_RHS] = -acc - W[i, c0 + WC_KD] * rd - W[i, c0 + WC_KP] * r
    factor_gamma(W, nu, nc)
    for i in range(nc):
        W[i, c0 + WC_LAMBDA] = W[i, c0 + WC_RHS]
    ldl_solve(W, nu, nc, c0 + WC_LAMBDA)
    apply_multipliers(mi, cr, ws, z, W, nu, c0, l0, WC_LAMBDA, udot)
    if refinement_rhs(cr, ws, W, udot, c0) > REFINE_TOL:  # step 6 of the module docstring
        ldl_solve(W, nu, nc, c0 + WC_DRHS)
        for i in range(nc):
            W[i, c0 + WC_LAMBDA] += W[i, c0 + WC_DRHS]
        apply_multipliers(mi, cr, ws, z, W, nu, c0, l0, WC_DRHS, udot)
    return True


@njit(cache=True, inline="always")
def constraint_views(dbuf):
    """(mi, mf, fr, cr, ws, z, d0): the views of a data buffer the constraint kernels use."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    fr = frame_table(dbuf, n)
    d0 = data_start(dbuf, n)
    return mi, mf, fr, constraint_table(dbuf, n), link_rows(dbuf, d0, n), ragged(dbuf, d0, n), d0


@njit(**NO_NRT)
def constrained_forward_dynamics(dbuf, q, u, tau, W, udot):
    """Checked entry point of ``ta_core``: a status for (q, u, tau) (BAD_LENGTH_ARG2 also when
    udot's length is not nu), SINGULAR, or OVERFLOW."""
    mi, mf, fr, cr, ws, z, d0 = constraint_views(dbuf)
    st = check_state(mi, q, u, tau, 1, 1)
    if st == OK and udot.shape[0] != u.shape[0]:
        return BAD_LENGTH_ARG2
    if st == OK and not ta_core(mi, mf, fr, cr, ws, z, q, u, tau, dbuf[d0, D_USE_FEXT] != 0.0, W, udot):
        return SINGULAR
    return result_status(st, udot)


@njit(**NO_NRT)
def evaluate_constraint_rows(dbuf, q, u, W):
    """Rows of the enabled constraints at (q, u): Gc in W[:, :nu], each row's coefficients
    (r, alpha, beta, gamma, delta, r_dot, kappa) at W[:, c0 + WC_ROW]. Returns a status."""
    mi, mf, fr, cr, ws, z, _ = constraint_views(dbuf)
    st = check_state(mi, q, u, u, 1, -1)
    if st != OK:
        return st
    constraint_rows_at(mi, mf, fr, cr, ws, q, u, W)
    return OK


@njit(**NO_NRT)
def constraint_rows_at(mi, mf, fr, cr, ws, q, u, W):
    """``evaluate_constraint_rows`` on the model rows (mi, mf) and link rows ws, unchecked: the
    link placements (world and tree) at q are left in ws, Gc in W[:, :nu], the rows'
    coefficients at W[:, c0 + WC_ROW] (the contact step's loop rows read them)."""
    nu = u.shape[0]
    nc = cr.shape[0]
    if nc == 0:
        return
    c0 = row_offset(nu, nc)
    l0 = c0 + WC_COLS
    place_links(mi, mf, ws, q)
    bias_motion_pass(mi, mf, ws, u, False)
    K = W[0, c0 + WC_KIN:c0 + WC_KIN + 2 * K_COLS]
    constraint_rows_core(mi, mf, fr, cr, ws, q, u, K, W[:, c0 + WC_ROW:c0 + WC_ROW + ROW_COLS], W,
                         (0.0, 0.0, 0.0))
    supports(mi, fr, cr, W, c0, l0)
    i0 = 0
    while i0 < nc:
        i1 = int(W[i0, c0 + WC_GEND])
        if int(cr[i0, CR_TYPE]) != COORD:
            group_jacobian(mi, ws, W, i0, i1, c0, l0)
        i0 = i1
