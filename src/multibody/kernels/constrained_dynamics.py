"""Tree-augmented (TA) constrained forward dynamics: O(N + rows d + rows^2 d + rows^3).

1. Tree ABA: the unconstrained accelerations udot_f (forward_dynamics.aba_core), which
   leaves the articulated-inertia factors (U, D^-1, G) in the data.
2. The constraint rows (constraint_rows.py): residuals r, Jacobian Gc, bias kappa.
3. Gamma = Gc M^-1 Gc^T (seed 000's Gamma, = Q Upsilon Q^T at the constraint nodes) from
   each row's innovations on its support (constraint_gamma.py: O(d) per row, O(d) per pair).
4. The multipliers: Gamma lambda = -(Gc udot_f + kappa) - kd r_dot - kp r (Baumgarte gains
   per row; zero gains leave pure acceleration-level constraints). Redundant rows (a pivot
   of the LDL^T factorisation below tol of the largest diagonal) get lambda = 0.
5. The correction: udot = udot_f + M^-1 Gc^T lambda, one ``articulated_solve`` (the ABA's
   bias and acceleration passes on the kept factors, no velocity, no gravity); Gc^T lambda
   is the constraint force.

Work array ``W`` (nc rows): Gc in [0, nu), the innovations in [nu, 2 nu), Gamma's factor
in [2 nu, 2 nu + nc), then the WC_* columns below (the caller writes the gains), then
per row its support (2 n link indices), then (row 0) two u-sized vectors.
"""
from numba import njit

from .common import check_state, data_start, frame_table, link_rows, model_arrays, ragged
from .constraint_gamma import gamma_row, row_innovations, row_support
from .constraint_rows import K_COLS, bias_motion_pass, constraint_rows_core
from .forward_dynamics import aba_core
from .joint_transform import place_links
from .layout import D_USE_FEXT, DINV_ADR, G_ADR, NU, PARENT, S_COLS, U_ADR, UOFF, W_A, W_F, W_TMP
from .spatial_inline import force_to_parent, motion_to_child
from .status import OK, SINGULAR

# work columns after Gc, X^T and Gamma (offset 2 nu + nc): per row
WC_KP = 0        # Baumgarte position gain [1/s^2] (written by the caller)
WC_KD = 1        # Baumgarte velocity gain [1/s] (written by the caller)
WC_ROW = 2       # 16, the row's coefficients (constraint_rows.row_coefficients: r, alpha ... kappa)
WC_LAMBDA = 18   # the multiplier
WC_RHS = 19      # right-hand side, then the solve's intermediate
WC_NSUP = 20     # the number of links in the row's support
WC_KIN = 21      # 2 * K_COLS, frame kinematics scratch (used by row 0 only)
WC_COLS = 21 + 2 * K_COLS
PIVOT_TOL = 1e-12


def work_columns(nu, nc, n_links):
    """Width of the work array of a model with nu speeds, nc constraint rows and n links."""
    return 2 * nu + nc + WC_COLS + 2 * n_links + 2 * nu


@njit(cache=True)
def articulated_solve(mi, mf, ws, z, tau, x):
    """x = M^-1 tau, from the articulated-inertia factors already in the data (U, D^-1, G
    of an ABA at the same q): its inward bias pass and outward acceleration pass with
    zero velocity and gravity. Uses ws W_F, W_A and W_TMP as scratch."""
    n = mi.shape[0]
    for j in range(n):
        for k in range(6):
            ws[j, W_F + k] = 0.0
    for j in range(n - 1, -1, -1):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        for k in range(nj):
            s = 0.0
            for r in range(6):
                s += mf[j, S_COLS + 6 * k + r] * ws[j, W_F + r]
            ws[j, W_TMP + k] = tau[uj + k] - s
        p = mi[j, PARENT]
        if p < 0:
            continue
        ga = mi[j, G_ADR]
        for k in range(nj):
            g = ws[j, W_TMP + k]
            for r in range(6):
                ws[j, W_F + r] += z[ga + 6 * k + r] * g
        f = force_to_parent(ws, j, ws, j, W_F)
        for k in range(6):
            ws[p, W_F + k] += f[k]
    for j in range(n):
        nj = mi[j, NU]
        uj = mi[j, UOFF]
        ua = mi[j, U_ADR]
        da = mi[j, DINV_ADR]
        p = mi[j, PARENT]
        if p < 0:
            for k in range(6):
                ws[j, W_A + k] = 0.0
        else:
            motion_to_child(ws, j, ws, p, W_A, ws, j, W_A)
        for k in range(nj):
            s = ws[j, W_TMP + k]
            for r in range(6):
                s -= z[ua + 6 * k + r] * ws[j, W_A + r]
            ws[j, W_F + k] = s  # W_F is free again: the inward pass is done with this link
        for k in range(nj):
            s = 0.0
            for b in range(nj):
                s += z[da + nj * k + b] * ws[j, W_F + b]
            x[uj + k] = s
            for r in range(6):
                ws[j, W_A + r] += mf[j, S_COLS + 6 * k + r] * s


@njit(cache=True)
def solve_multipliers(W, nu, nc):
    """Gamma lambda = rhs by LDL^T of Gamma (in W[:, 2nu:2nu+nc], overwritten), rows whose pivot
    falls below PIVOT_TOL x the largest diagonal dropped (lambda = 0). Returns the number of
    dropped (redundant) rows."""
    g0 = 2 * nu
    c0 = 2 * nu + nc
    big = 0.0
    for i in range(nc):
        big = max(big, W[i, g0 + i])
    dropped = 0
    for k in range(nc):
        for c in range(k):  # L[k, c] D[c] in place of Gamma[k, c]
            s = W[k, g0 + c]
            for m in range(c):
                s -= W[k, g0 + m] * W[m, g0 + m] * W[c, g0 + m]
            W[k, g0 + c] = s / W[c, g0 + c] if W[c, g0 + c] != 0.0 else 0.0
        d = W[k, g0 + k]
        for m in range(k):
            d -= W[k, g0 + m] * W[k, g0 + m] * W[m, g0 + m]
        if not d > PIVOT_TOL * big:
            d = 0.0
            dropped += 1
            for c in range(k):
                W[k, g0 + c] = 0.0
        W[k, g0 + k] = d
    for k in range(nc):  # L y = rhs
        s = W[k, c0 + WC_RHS]
        for m in range(k):
            s -= W[k, g0 + m] * W[m, c0 + WC_RHS]
        W[k, c0 + WC_RHS] = s
    for k in range(nc - 1, -1, -1):  # D L^T lambda = y
        d = W[k, g0 + k]
        s = W[k, c0 + WC_RHS] / d if d != 0.0 else 0.0
        for m in range(k + 1, nc):
            s -= W[m, g0 + k] * W[m, c0 + WC_LAMBDA]
        W[k, c0 + WC_LAMBDA] = s if d != 0.0 else 0.0
    return dropped


@njit(cache=True)
def ta_core(mi, mf, fr, cr, ws, z, q, u, tau, use_fext, W, udot):
    """udot of the constrained system (steps 1-5 of the module docstring); the multipliers
    in W[:, 2nu + nc + WC_LAMBDA]. Returns False when the tree's D_j is singular."""
    nu = udot.shape[0]
    nc = cr.shape[0]
    c0 = 2 * nu + nc
    if not aba_core(mi, mf, ws, z, q, u, tau, use_fext, udot):
        return False
    if nc == 0:
        return True
    bias_motion_pass(mi, mf, ws, u, True)
    K = W[0, c0 + WC_KIN:c0 + WC_KIN + 2 * K_COLS]
    constraint_rows_core(mi, mf, fr, cr, ws, q, u, K, W[:, c0 + WC_ROW:c0 + WC_ROW + 16], W)
    n = mi.shape[0]
    l0 = c0 + WC_COLS
    for i in range(nc):
        links = W[i, l0:l0 + 2 * n]
        cnt = row_support(mi, fr, cr, i, links)
        W[i, c0 + WC_NSUP] = cnt
        eps = W[i, nu:2 * nu]
        for k in range(nu):
            eps[k] = 0.0
        row_innovations(mi, mf, ws, z, W[i], links, cnt, eps)
        gamma_row(mi, ws, z, W, nu, links, cnt, i, W, 2 * nu)
    for i in range(nc):
        s = 0.0
        for k in range(nu):
            s += W[i, k] * udot[k]
        r = W[i, c0 + WC_ROW]
        rd = W[i, c0 + WC_ROW + 13]
        kap = W[i, c0 + WC_ROW + 14]
        W[i, c0 + WC_RHS] = -(s + kap) - W[i, c0 + WC_KD] * rd - W[i, c0 + WC_KP] * r
        for j in range(i):
            W[j, 2 * nu + i] = W[i, 2 * nu + j]
    solve_multipliers(W, nu, nc)
    v0 = l0 + 2 * n
    force = W[0, v0:v0 + nu]
    dx = W[0, v0 + nu:v0 + 2 * nu]
    for k in range(nu):
        s = 0.0
        for i in range(nc):
            s += W[i, k] * W[i, c0 + WC_LAMBDA]
        force[k] = s
    articulated_solve(mi, mf, ws, z, force, dx)
    for k in range(nu):
        udot[k] += dx[k]
    return True


@njit(cache=True, inline="always")
def constraint_views(dbuf):
    """(mi, mf, fr, cr, ws, z, d0): the views of a data buffer the constraint kernels use."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    fr = frame_table(dbuf, n)
    d0 = data_start(dbuf, n)
    return mi, mf, fr, dbuf[2 + 2 * n + fr.shape[0]:d0], link_rows(dbuf, d0, n), ragged(dbuf, d0, n), d0


@njit(cache=True)
def constrained_forward_dynamics(dbuf, q, u, tau, W, udot):
    """Checked entry point of ``ta_core``: a status for (q, u, tau), or SINGULAR."""
    mi, mf, fr, cr, ws, z, d0 = constraint_views(dbuf)
    st = check_state(mi, q, u, tau, 1, 1)
    if st == OK and not ta_core(mi, mf, fr, cr, ws, z, q, u, tau, dbuf[d0, D_USE_FEXT] != 0.0, W, udot):
        return SINGULAR
    return st


@njit(cache=True)
def evaluate_constraint_rows(dbuf, q, u, W):
    """Rows of the enabled constraints at (q, u): Gc in W[:, :nu], each row's coefficients
    (r, alpha, beta, gamma, delta, r_dot, kappa) at W[:, 2 nu + nc + WC_ROW]. Returns a status."""
    mi, mf, fr, cr, ws, _, _ = constraint_views(dbuf)
    st = check_state(mi, q, u, u, 1, -1)
    if st != OK:
        return st
    nu = u.shape[0]
    nc = cr.shape[0]
    c0 = 2 * nu + nc
    if nc == 0:
        return OK
    place_links(mi, mf, ws, q)
    bias_motion_pass(mi, mf, ws, u, False)
    K = W[0, c0 + WC_KIN:c0 + WC_KIN + 2 * K_COLS]
    constraint_rows_core(mi, mf, fr, cr, ws, q, u, K, W[:, c0 + WC_ROW:c0 + WC_ROW + 16], W)
    return OK
