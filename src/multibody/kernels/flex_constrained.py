"""Constrained forward dynamics of trees with modal (flexible) bodies in one compiled call:
udot = udot_f + M^-1 Gc^T lambda, the multipliers lambda and the constraint force Gc^T
lambda at (q, u, tau, Baumgarte gains); and the constraint rows alone (r, their rate's
coefficients, kappa = Gc_dot u, Gc) for the constraint functions.

A row's frames may be nodes of modal bodies, which deform. The rows' formulas are the rigid
ones (constraint_rows.row_coefficients) on each frame's world kinematics K (its origin
about its tree's root origin, as the rigid rows', so that nothing is lost far from the
world origin), its rotation
R_world_F(eta) R0^T (a row's vectors are stored in link axes through the frame's undeformed
R0, model/compile.constraint_table). The passes:

1. Frames: per distinct frame of the loop and convel rows (``tables``), its Jacobian J_F
   (6 x nu, its own axes: a deforming node's includes its body's modal columns) and world
   pose (flex_jacobian.flex_frame_jacobian), its velocity and acceleration at udot = 0
   (flex_frame_velocity_acceleration), and from them K.
2. Rows: each row's coefficients C[i] = (r, alpha, beta, gamma, delta, r_dot, kappa); QR[i],
   the coefficients moved into each moving frame's axes ([R^T alpha; R^T beta] on frame a,
   [R^T gamma; R^T delta] on b), so that Gc's row is sum_F QR[i, F] J_F (seed 000's Q with
   the frames' rotations); a coordinate row's Gc is e_a - ratio e_b.
3. Gamma = Gc M^-1 Gc^T: QR Upsilon QR^T from the flex operational-space compliance at the
   moving frames (flex_operational_space.py, O(N + k^2 d)); a coordinate row's column is
   Gc M^-1 g^T from one flex forward dynamics at u = 0 under tau = g less the one under 0.
4. Multipliers: Gamma lambda = target - (Gc udot_f + kappa), target = -kd r_dot - kp r, by
   the TA's LDL^T and its rule for redundant rows (constrained_dynamics.factor_gamma:
   lambda = 0); udot_f from the flex articulated-body recursion (flex_articulated.py).
5. Correction udot = ABA(tau + Gc^T lambda); then, when a kept row misses its wanted
   acceleration by more than REFINE_TOL of the magnitudes the miss is formed from, one
   step of iterative refinement with the same factors (as TA: Gamma squares Gc's
   conditioning).

Work: the int table ``ti`` of ``tables`` (the model's frames and rows, and the offsets of
fw's pieces in its header; a constant of the model buffer) and the flat float array ``fw``
(every per-call array; a piece of each data buffer's flex work region, kernels/
flex_layout.py FH_CON_TABLE and FH_CON_WORK), so the kernels allocate nothing. The entry
kernels with the rigid constraint kernels' arguments are in kernels/flex_entry.py.
"""
import numpy as np
from numba import njit

from .constrained_dynamics import REFINE_TOL, factor_gamma, ldl_solve
from . import flex_layout as FL
from .constraint_rows import COORD, K_AD, K_O, K_P, K_R, K_V, K_W, K_WD, row_coefficients
from .constraint_work import K_COLS
from .flex_articulated import flex_forward_dynamics
from .flex_body_inertia import body_masses
from .flex_jacobian import flex_frame_jacobian, flex_frame_velocity_acceleration
from .flex_operational_space import flex_operational_space_compliance, scratch_size
from .joint_transform import tree_root
from .layout import CR_FA, CR_FB, CR_SCALAR, CR_TYPE, CR_UA, CR_UB, FR_LINK, FR_R
from .status import NONFINITE_ARG0, NONFINITE_ARG1, NONFINITE_ARG2, OK, SINGULAR

# ti's header: counts, then where the pieces of ti and of fw begin
T_NFR, T_NK, T_NCO, T_NBM = 0, 1, 2, 3  # frames, moving frames (on a link), coordinate rows, max nb
T_FRAMES, T_MOVING, T_ROWS, T_COORD, T_MARK = 4, 5, 6, 7, 8  # ti: frame rows, moving ones, (nc, 4), rows, (n,)
# fw: (nfr, FK_COLS) K and R; the moving frames' J (6 nk, nu); QR and QR Upsilon (nc, 6 nk);
# Upsilon (6 nk, 6 nk); Gamma (nc, nc + 1), then its factors and the right-hand side
F_FK, F_J, F_QR, F_TM, F_UPS, F_A = 9, 10, 11, 12, 13, 14
# C (nc, 16); Gc (nc, nu); vectors (N_VEC, nu) and (N_RV, nc); a row's two K; one frame's J (6, nu)
F_C, F_G, F_VEC, F_RV, F_K, F_JT = 15, 16, 17, 18, 19, 20
# its pose (4x4) and [w; v; w_dot; v_dot] (12); the frame maps B (12 nbm), Bf (nk, 6 nbm), Bw (24 nbm);
# the compliance's Omega blocks and scratch, whose sizes are T_OM and T_OSS
F_T, F_VA, F_B, F_BF, F_BW, F_OM, F_OSS = 21, 22, 23, 24, 25, 26, 27
T_OM, T_OSS = 28, 29
T_HEADER = 30
# the rows of the (N_VEC, nu) vectors and the (N_RV, nc) ones
V_ZERO, V_UDOT_F, V_TAU, V_BIAS, V_X, V_UDOT, V_FORCE, N_VEC = 0, 1, 2, 3, 4, 5, 6, 7
R_TARGET, R_LAMBDA, R_MISS, N_RV = 0, 1, 2, 3
FK_COLS = K_COLS + 9  # a frame's K, then its world rotation R (row-major)


def tables(fr, cr, fi, n_links, nu, om_size):
    """(ti, size of fw) of a model, made when it is compiled (model/flex_compile.py): ti holds
    its distinct loop/convel frames (in row order), the moving ones (on a link: the world's
    frames do not move), per row (frame a, frame b, moving a, moving b) indices (-1: none),
    its coordinate rows, and where fw's pieces begin; fw holds every per-call array.
    ``om_size``: the flex work's P size (the compliance's Omega blocks are as large)."""
    nc = cr.shape[0]
    frames = []
    for i in range(nc):
        if int(cr[i, CR_TYPE]) != COORD:
            for col in (CR_FA, CR_FB):
                if int(cr[i, col]) not in frames:
                    frames.append(int(cr[i, col]))
    moving = [f for f in frames if int(fr[f, FR_LINK]) >= 0]
    rows = np.full((nc, 4), -1, dtype=np.int64)
    for i in range(nc):
        if int(cr[i, CR_TYPE]) != COORD:
            for s, col in enumerate((CR_FA, CR_FB)):
                f = int(cr[i, col])
                rows[i, s] = frames.index(f)
                rows[i, 2 + s] = moving.index(f) if f in moving else -1
    coord = [i for i in range(nc) if int(cr[i, CR_TYPE]) == COORD]
    nfr, nk = len(frames), len(moving)
    nbm, oss = scratch_size(fi)
    head = np.zeros(T_HEADER, dtype=np.int64)
    head[[T_NFR, T_NK, T_NCO, T_NBM, T_OM, T_OSS]] = nfr, nk, len(coord), nbm, om_size, oss
    ints = [(T_FRAMES, frames), (T_MOVING, moving), (T_ROWS, rows.ravel()), (T_COORD, coord),
            (T_MARK, np.zeros(n_links))]
    at = T_HEADER
    for col, x in ints:
        head[col] = at
        at += len(x)
    ti = np.concatenate([head] + [np.asarray(x, dtype=np.int64) for _, x in ints])
    sizes = [(F_FK, nfr * FK_COLS), (F_J, 6 * nk * nu), (F_QR, 6 * nk * nc), (F_TM, 6 * nk * nc),
             (F_UPS, 36 * nk * nk), (F_A, nc * (nc + 1)), (F_C, 16 * nc), (F_G, nc * nu), (F_VEC, N_VEC * nu),
             (F_RV, N_RV * nc), (F_K, 2 * K_COLS), (F_JT, 6 * nu), (F_T, 16), (F_VA, 12), (F_B, 12 * nbm),
             (F_BF, 6 * nbm * nk), (F_BW, 24 * nbm), (F_OM, om_size), (F_OSS, oss)]
    at = 0
    for col, size in sizes:
        ti[col] = at
        at += size
    return ti, at


@njit(cache=True, inline="always")
def piece(fw, ti, col, rows, cols):
    """The (rows, cols) piece of fw at ti[col] (a view; inlined, so that the entry kernels,
    compiled without reference counting, may take it)."""
    o = ti[col]
    return fw[o:o + rows * cols].reshape((rows, cols))


@njit(cache=True)
def _frame_pass(mi, mf, ws, fi, fnode, frame_node, fr, q, u, phi, V, A, abias, pose, VN, ti, fw):
    """Pass 1: every frame's K and world rotation into FK, the moving ones' J into Jall."""
    nu = u.shape[0]
    nfr, nk = ti[T_NFR], ti[T_NK]
    FK = piece(fw, ti, F_FK, nfr, FK_COLS)
    Jall = piece(fw, ti, F_J, 6 * nk, nu)
    J = piece(fw, ti, F_JT, 6, nu)
    T = piece(fw, ti, F_T, 4, 4)
    zero = piece(fw, ti, F_VEC, N_VEC, nu)[V_ZERO]
    va = fw[ti[F_VA]:ti[F_VA] + 12]
    B = fw[ti[F_B]:ti[F_B] + 12 * ti[T_NBM]]
    k = 0
    for a in range(nfr):
        f = ti[ti[T_FRAMES] + a]
        for r in range(6):
            for c in range(nu):
                J[r, c] = 0.0
        o = flex_frame_jacobian(mi, mf, ws, fi, fnode, frame_node, fr, q, zero, phi, V, abias, pose, VN, f, B, T, J)
        root = tree_root(mi, int(fr[f, FR_LINK]))
        flex_frame_velocity_acceleration(mi, mf, ws, fi, fnode, frame_node, fr, q, u, zero, phi, V, A, abias, pose,
                                         VN, f, B, va)
        if fr[f, FR_LINK] >= 0:
            for r in range(6):
                for c in range(nu):
                    Jall[6 * k + r, c] = J[r, c]
            k += 1
        # va's linear part is the rate of the origin velocity's components in the rotating
        # frame axes: the classical acceleration is R (v' + w x v)
        w0, w1, w2 = va[0], va[1], va[2]
        acc = (va[9] + w1 * va[5] - w2 * va[4], va[10] + w2 * va[3] - w0 * va[5], va[11] + w0 * va[4] - w1 * va[3])
        for r in range(3):
            for c in range(3):
                FK[a, K_COLS + 3 * r + c] = T[r, c]
                FK[a, K_R + 3 * r + c] = (T[r, 0] * fr[f, FR_R + 3 * c] + T[r, 1] * fr[f, FR_R + 3 * c + 1]
                                          + T[r, 2] * fr[f, FR_R + 3 * c + 2])  # R R0^T
            # the origin about its reference point and that point (constraint_rows: d is then
            # exact however far out); a frame on the world is its own reference
            FK[a, K_P + r] = o[r] if root >= 0 else 0.0
            FK[a, K_O + r] = pose[root, FL.POSE_P + r] if root >= 0 else T[r, 3]
            FK[a, K_W + r] = T[r, 0] * w0 + T[r, 1] * w1 + T[r, 2] * w2
            FK[a, K_V + r] = T[r, 0] * va[3] + T[r, 1] * va[4] + T[r, 2] * va[5]
            FK[a, K_WD + r] = T[r, 0] * va[6] + T[r, 1] * va[7] + T[r, 2] * va[8]
            FK[a, K_AD + r] = T[r, 0] * acc[0] + T[r, 1] * acc[1] + T[r, 2] * acc[2]


@njit(cache=True)
def _to_frame(C, i, o, FK, a, QR, qo):
    """QR[i, qo:qo+6] += [R^T C[i, o:o+3]; R^T C[i, o+3:o+6]] (R: frame a's world rotation)."""
    for h in range(2):
        for c in range(3):
            s = 0.0
            for m in range(3):
                s += C[i, o + 3 * h + m] * FK[a, K_COLS + 3 * m + c]
            QR[i, qo + 3 * h + c] += s


@njit(cache=True)
def _row_pass(cr, q, u, ti, fw):
    """Pass 2: C, QR and Gc of every row from the frames' FK and J."""
    nu, nc = u.shape[0], cr.shape[0]
    nfr, nk = ti[T_NFR], ti[T_NK]
    FK = piece(fw, ti, F_FK, nfr, FK_COLS)
    Jall = piece(fw, ti, F_J, 6 * nk, nu)
    QR = piece(fw, ti, F_QR, nc, 6 * nk)
    C = piece(fw, ti, F_C, nc, 16)
    G = piece(fw, ti, F_G, nc, nu)
    K = fw[ti[F_K]:ti[F_K] + 2 * K_COLS]
    ro = ti[T_ROWS]
    for i in range(nc):
        for c in range(6 * nk):
            QR[i, c] = 0.0
        for c in range(nu):
            G[i, c] = 0.0
        if int(cr[i, CR_TYPE]) == COORD:
            row_coefficients(cr, i, K, q, u, C)
            G[i, int(cr[i, CR_UA])] += 1.0
            G[i, int(cr[i, CR_UB])] -= cr[i, CR_SCALAR]
            continue
        fa, fb, ka, kb = ti[ro + 4 * i], ti[ro + 4 * i + 1], ti[ro + 4 * i + 2], ti[ro + 4 * i + 3]
        for c in range(K_COLS):
            K[c] = FK[fa, c]
            K[K_COLS + c] = FK[fb, c]
        row_coefficients(cr, i, K, q, u, C)
        if ka >= 0:
            _to_frame(C, i, 1, FK, fa, QR, 6 * ka)
        if kb >= 0:
            _to_frame(C, i, 7, FK, fb, QR, 6 * kb)
        for side in range(2):
            k = ka if side == 0 else kb
            if k < 0 or (side == 1 and kb == ka):  # a frame's block once (both sides summed in QR)
                continue
            for c in range(nu):
                s = 0.0
                for e in range(6):
                    s += QR[i, 6 * k + e] * Jall[6 * k + e, c]
                G[i, c] += s


@njit(cache=True)
def _finite(x):
    for i in range(x.shape[0]):
        if not np.isfinite(x[i]):
            return False
    return True


@njit(cache=True)
def flex_constraint_rows(mi, mf, ws, fi, fnode, frame_node, fr, cr, q, u, phi, V, A, abias, pose, VN, ti, fw):
    """Passes 1-2 at (q, u): C (nc, 16) and Gc (nc, nu) in fw (``tables``). Returns a status
    (NONFINITE_ARG0/1: q/u)."""
    if not _finite(q):
        return NONFINITE_ARG0
    if not _finite(u):
        return NONFINITE_ARG1
    _frame_pass(mi, mf, ws, fi, fnode, frame_node, fr, q, u, phi, V, A, abias, pose, VN, ti, fw)
    _row_pass(cr, q, u, ti, fw)
    return OK


@njit(cache=True)
def _gamma(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, frame_node, fr, stiff, damp, q, phi, V, A, F, abias, pose,
           VN, P, Gw, Dinv, eps, scratch, nu, nc, ti, fw):
    """Pass 3: Gamma = Gc M^-1 Gc^T into the (nc, nc + 1) piece of fw (both triangles;
    column nc is left to the right-hand side). False when some D is singular."""
    nk = ti[T_NK]
    Ag = piece(fw, ti, F_A, nc, nc + 1)
    QR = piece(fw, ti, F_QR, nc, 6 * nk)
    Gc = piece(fw, ti, F_G, nc, nu)
    vec = piece(fw, ti, F_VEC, N_VEC, nu)
    ok = True
    for i in range(nc):
        for j in range(nc):
            Ag[i, j] = 0.0
    if nk > 0:  # the frames' block: QR Upsilon QR^T
        Ups = piece(fw, ti, F_UPS, 6 * nk, 6 * nk)
        Tm = piece(fw, ti, F_TM, nc, 6 * nk)
        body_masses(fi, fmass, fm1, fm2, q, Mq)
        mo = ti[T_MOVING]
        ok = flex_operational_space_compliance(
            mi, mf, ws, fi, Mq, fnode, frame_node, fr, q, vec[V_ZERO], phi, V, abias, pose, VN, P, Gw, Dinv,
            fw[ti[F_OSS]:ti[F_OSS] + ti[T_OSS]], fw[ti[F_OM]:ti[F_OM] + ti[T_OM]],
            ti[ti[T_MARK]:ti[T_MARK] + mi.shape[0]], ti[mo:mo + nk], piece(fw, ti, F_BF, nk, 6 * ti[T_NBM]),
            fw[ti[F_BW]:ti[F_BW] + 24 * ti[T_NBM]], Ups)
        for i in range(nc):
            for c in range(6 * nk):
                s = 0.0
                for e in range(6 * nk):
                    s += QR[i, e] * Ups[e, c]
                Tm[i, c] = s
        for i in range(nc):
            for j in range(i + 1):
                s = 0.0
                for e in range(6 * nk):
                    s += Tm[i, e] * QR[j, e]
                Ag[i, j] = s
                Ag[j, i] = s
    nco = ti[T_NCO]
    if nco > 0:  # a coordinate row's column (and row): Gc M^-1 g^T, g its row of Gc
        zero, bias, tau_g, x = vec[V_ZERO], vec[V_BIAS], vec[V_TAU], vec[V_X]
        ok &= flex_forward_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, stiff, damp, q, zero, zero, phi, V,
                                    A, F, abias, pose, VN, P, Gw, Dinv, eps, scratch, bias)
        for a in range(nco):
            i = ti[ti[T_COORD] + a]
            for c in range(nu):
                tau_g[c] = Gc[i, c]
            ok &= flex_forward_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, stiff, damp, q, zero, tau_g, phi,
                                        V, A, F, abias, pose, VN, P, Gw, Dinv, eps, scratch, x)
            for c in range(nu):
                x[c] -= bias[c]
            for r in range(nc):
                s = 0.0
                for c in range(nu):
                    s += Gc[r, c] * x[c]
                Ag[r, i] = s
            for r in range(nc):
                Ag[i, r] = Ag[r, i]
    return ok


@njit(cache=True)
def _rows_acceleration(Gc, C, udot, r):
    """Gc[r] udot + kappa_r: row r's acceleration in the motion udot."""
    s = C[r, 14]
    for c in range(udot.shape[0]):
        s += Gc[r, c] * udot[c]
    return s


@njit(cache=True)
def _force(Gc, lam, tau, out):
    """out = tau + Gc^T lam."""
    for c in range(out.shape[0]):
        out[c] = tau[c]
    for r in range(Gc.shape[0]):
        for c in range(out.shape[0]):
            out[c] += Gc[r, c] * lam[r]


@njit(cache=True)
def flex_constrained_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, frame_node, fr, cr, stiff, damp, q, u, tau,
                              gains, phi, V, A, F, abias, pose, VN, P, Gw, Dinv, eps, scratch, ti, fw):
    """Passes 1-5 at (q, u, tau) with Baumgarte gains (nc, 2) [kp, kd]: udot and Gc^T lambda
    in fw's vectors (V_UDOT, V_FORCE), lambda in its row vectors (R_LAMBDA), C and Gc as
    ``flex_constraint_rows``. Returns a status (NONFINITE_ARG0/1/2: q/u/tau; SINGULAR)."""
    nu, nc = u.shape[0], cr.shape[0]
    st = flex_constraint_rows(mi, mf, ws, fi, fnode, frame_node, fr, cr, q, u, phi, V, A, abias, pose, VN, ti, fw)
    if st != OK:
        return st
    if not _finite(tau):
        return NONFINITE_ARG2
    vec = piece(fw, ti, F_VEC, N_VEC, nu)
    rv = piece(fw, ti, F_RV, N_RV, nc)
    Ag = piece(fw, ti, F_A, nc, nc + 1)
    C = piece(fw, ti, F_C, nc, 16)
    Gc = piece(fw, ti, F_G, nc, nu)
    udot_f, udot, tau_c, force = vec[V_UDOT_F], vec[V_UDOT], vec[V_TAU], vec[V_FORCE]
    target, lam, miss = rv[R_TARGET], rv[R_LAMBDA], rv[R_MISS]
    ok = flex_forward_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, stiff, damp, q, u, tau, phi, V, A, F,
                               abias, pose, VN, P, Gw, Dinv, eps, scratch, udot_f)
    ok &= _gamma(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, frame_node, fr, stiff, damp, q, phi, V, A, F, abias,
                 pose, VN, P, Gw, Dinv, eps, scratch, nu, nc, ti, fw)
    if not ok:
        return SINGULAR
    for r in range(nc):  # the rows' wanted acceleration Gc udot + kappa, less what udot_f gives
        target[r] = -gains[r, 1] * C[r, 13] - gains[r, 0] * C[r, 0]
        Ag[r, nc] = target[r] - _rows_acceleration(Gc, C, udot_f, r)
    factor_gamma(Ag, 0, nc)  # Gamma's LDL^T in place, redundant rows dropped (lambda = 0)
    ldl_solve(Ag, 0, nc, nc)
    for r in range(nc):
        lam[r] = Ag[r, nc]
    _force(Gc, lam, tau, tau_c)
    ok = flex_forward_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, stiff, damp, q, u, tau_c, phi, V, A, F,
                               abias, pose, VN, P, Gw, Dinv, eps, scratch, udot)
    refine = False
    for r in range(nc):  # what the corrected motion misses of each kept row's wanted acceleration
        miss[r] = target[r] - _rows_acceleration(Gc, C, udot, r) if Ag[r, r] != 0.0 else 0.0
        size = abs(target[r]) + abs(C[r, 14])
        for c in range(nu):
            size += abs(Gc[r, c]) * abs(udot[c])
        refine |= abs(miss[r]) > REFINE_TOL * max(size, 1e-300)
    if refine:  # one step of iterative refinement with the same factors
        for r in range(nc):
            Ag[r, nc] = miss[r]
        ldl_solve(Ag, 0, nc, nc)
        for r in range(nc):
            lam[r] += Ag[r, nc]
        _force(Gc, lam, tau, tau_c)
        ok = flex_forward_dynamics(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, stiff, damp, q, u, tau_c, phi, V, A,
                                   F, abias, pose, VN, P, Gw, Dinv, eps, scratch, udot)
    _force(Gc, lam, vec[V_ZERO], force)
    return OK if ok else SINGULAR
