"""First derivatives of the constrained forward dynamics of trees with modal (flexible)
bodies (kernels/flex_constrained.py) in one compiled call, the KKT system's as the rigid
kernel's (kernels/constrained_dynamics_derivatives.py):
    dudot/dx = -Mc^-1 H - Y^T dC/dx,  dudot/dtau = Mc^-1 = M^-1 - (Gc M^-1)^T Y,
Y = Gamma^+ Gc M^-1 (the flex TA's own LDL^T factors of Gamma, zero on the dropped rows),
C = Gc udot + kappa + kd r_dot + kp r the rows' acceleration differentiated at fixed udot,
H = the flex inverse dynamics derivatives at the constrained udot with the constraint forces
Gc^T lambda = sum_F J_F^T w_F held as applied forces (w_F = sum_i QR[i, F] lambda_i, the
wrench of the rows on their moving frame F, in F's axes).

Both come from one tangent pass per column (kernels/flex_dynamics_derivatives.py: a hinge or
modal coordinate along ``integrate``, or a speed), modal coordinates included, whose outward
half's link tangents also give the frames':

- H: the flex inverse dynamics tangents (``flex_derivatives_entry.held_base_pass``, then per
  column flex_dynamics_derivatives' outward and inward passes) with the wrenches w_F held
  fixed in their frames (J_F^T's change; at a deforming node N of link L only the part X(N<-L)^T w_F held
  in L), plus -J_F^T dw_F, the wrenches' own change in F's axes,
  dw_F = R_F^T dc_F - dtheta_F x w_F, from the change dc_F of the rows' world coefficients
  (alpha, beta on frame a; gamma, delta on b, weighted by lambda; row_tangent's), and at a
  node along its body's modal coordinate the map's change, -Jbar_L^T dB_F^T w_F.
- Each moving frame's kinematic tangent (constraint_row_tangents' layout, world axes), from
  the pass's link tangents dV_L, dA_L (link axes; V_F = B_F V_L, B_F = [X(F<-L) | 0] on a
  link, [X(N<-L) | Psi_N] at a deforming node, whose A_F adds the node bias):
  dtheta = R J_F[:3, k], dp = R J_F[3:, k] (a coordinate column; zero for a speed), the body
  tangents dV_F = B_F dV_L, dA_F = B_F dA_L (+ at a node: the bias' tangent and, along the
  body's modal coordinate, dB_F V_L, dB_F A_L: flex_node_tangent.node_tangent_at), and a
  world vector x = R y's tangent R dy + dtheta x x; the classical acceleration of the origin
  is R (A_F[3:] + w x v), whose tangent is R dA_F[3:] + R dw x v + w x R dv + dtheta x
  (a - g) (A_L carries -g: a constant world offset).
  The rows' tangents are then constraint_row_tangents.row_tangent's.

The frames' K (flex_constrained's FK) hold the accelerations at udot = 0 (kappa); the rows'
acceleration needs those of the constrained motion: FK's w_dot and a get R (J_F udot) added.
Cost: the flex constrained dynamics, the flex inverse dynamics derivatives' passes (O(N nu))
with O(rows + frames nu) per column for the frames, rows and forces, M^-1 and the dense
products O(nu^2 rows + nu^3).
"""
from numba import njit

from . import flex_layout as FL
from .common import check_state_modal_ok, result_status
from .constrained_dynamics_derivatives import kkt_solution
from .constraint_row_tangents import row_tangent
from .constraint_rows import COORD, K_AD, K_P, K_V, K_W, K_WD
from .constraint_work import K_COLS, WC_KD, WC_KP, row_offset
from .flex_body_inertia import body_masses
from .flex_constrained import (
    F_A, F_FK, F_G, F_J, F_QR, F_RV, FK_COLS, N_RV, R_LAMBDA, T_FRAMES, T_MOVING, T_NFR, T_NK, T_ROWS, piece,
)
from .flex_derivatives_entry import held_base_pass, nb_max
from .flex_dynamics_derivatives import inward_tangent, outward_tangent
from .flex_entry import flex_constrained_udot
from .flex_inverse_mass import flex_inverse_mass_matrix
from .flex_jacobian import frame_map
from .flex_views import flex_arrays
from .flex_node_tangent import node_tangent_at
from .layout import CR_TYPE, FR_LINK, GRAVITY, NU, SUBTREE_END, UOFF
from .status import OK, SINGULAR

_INL = dict(cache=True, inline="always")


def scratch_size(nu, nk, nbm):
    """The length of the scratch S for nu speeds, nk moving constraint frames and links' blocks
    of at most nbm: udot, then per frame its tangent (K_COLS), the change of its rows' world
    coefficients (6), B_F (6 nbm), dB^T w and w' (nbm + 6), its index among the frames (1),
    then two frames' K and T and row_tangent's out."""
    return nu + nk * (K_COLS + 13 + 7 * nbm) + 4 * K_COLS + 16


@njit(**_INL)
def _cr(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(**_INL)
def _rot(FK, a, x, y):
    """R (x + y) for frame a's world rotation R (FK, row-major after K)."""
    o = K_COLS
    s = (x[0] + y[0], x[1] + y[1], x[2] + y[2])
    return (FK[a, o] * s[0] + FK[a, o + 1] * s[1] + FK[a, o + 2] * s[2],
            FK[a, o + 3] * s[0] + FK[a, o + 4] * s[1] + FK[a, o + 5] * s[2],
            FK[a, o + 6] * s[0] + FK[a, o + 7] * s[1] + FK[a, o + 8] * s[2])


@njit(**_INL)
def _bx(XB, m, nb, X, vo):
    """B_F X[vo:vo + nb] (B_F: XB[m], 6 x nb row-major)."""
    return (_brow(XB, m, nb, 0, X, vo), _brow(XB, m, nb, 1, X, vo), _brow(XB, m, nb, 2, X, vo),
            _brow(XB, m, nb, 3, X, vo), _brow(XB, m, nb, 4, X, vo), _brow(XB, m, nb, 5, X, vo))


@njit(**_INL)
def _brow(XB, m, nb, r, X, vo):
    s = 0.0
    for c in range(nb):
        s += XB[m, r * nb + c] * X[vo + c]
    return s


@njit(**_INL)
def _add6(x, y):
    return (x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5])


@njit(**_INL)
def _jrow(J, r, x):
    """Row r of J times x."""
    s = 0.0
    for c in range(x.shape[0]):
        s += J[r, c] * x[c]
    return s


@njit(cache=True)
def _frame_maps(mi, fi, fnode, frame_node, fr, q, ti, B, XB, FKI):
    """XB[m] = B_F (6 x nb_L row-major; [X(F<-L) | Psi] at a deforming node) of moving frame m
    (on link L), FKI[m] its index among the frames (FK's row)."""
    for m in range(ti[T_NK]):
        f = ti[ti[T_MOVING] + m]
        for a in range(ti[T_NFR]):
            if ti[ti[T_FRAMES] + a] == f:
                FKI[m] = a
        L = frame_map(mi, fi, fnode, frame_node, fr, q, f, B)[0]
        for r in range(6 * fi[L, FL.NB]):
            XB[m, r] = B[r]


@njit(cache=True)
def _full_accelerations(FK, Jall, FKI, udot):
    """FK's w_dot and a of the moving frames (at udot = 0) += R (J_F udot): the motion's."""
    for m in range(FKI.shape[0]):
        a = int(FKI[m])
        zero = (0.0, 0.0, 0.0)
        wd = _rot(FK, a, (_jrow(Jall, 6 * m, udot), _jrow(Jall, 6 * m + 1, udot), _jrow(Jall, 6 * m + 2, udot)),
                  zero)
        ad = _rot(FK, a, (_jrow(Jall, 6 * m + 3, udot), _jrow(Jall, 6 * m + 4, udot), _jrow(Jall, 6 * m + 5, udot)),
                  zero)
        for r in range(3):
            FK[a, K_WD + r] += wd[r]
            FK[a, K_AD + r] += ad[r]


@njit(cache=True)
def _node_terms(fi, fnode, an, L, q, ei, V, A, dV, dphi, XB, NX, m, nb, wrenches, w0):
    """(dV_F, dA_F) extra of a frame at deforming node record an of link L's body: the node
    bias' tangent, and for L's modal coordinate ei (>= 0) dB V_L, dB A_L, with NX[m] = dB^T w_F
    (the held wrench's change, ``_force_column``)."""
    R0 = (fnode[an], fnode[an + 1], fnode[an + 2], fnode[an + 3], fnode[an + 4], fnode[an + 5], fnode[an + 6],
          fnode[an + 7], fnode[an + 8])
    p0 = (fnode[an + FL.N_P0], fnode[an + FL.N_P0 + 1], fnode[an + FL.N_P0 + 2])
    dn = node_tangent_at(fi, fnode, an, R0, p0, L, q, ei, V, dV, dphi)
    if ei < 0:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0), dn
    vo = fi[L, FL.VOFF]
    for c in range(nb):
        s = 0.0
        for r in range(6):
            s += dphi[r * nb + c] * wrenches[w0 + m, r]
        NX[m, c] = s
    return _bx(dphi.reshape((1, dphi.shape[0])), 0, nb, V, vo), _add6(dn, _bx(dphi.reshape((1, dphi.shape[0])), 0,
                                                                             nb, A, vo))


@njit(cache=True)
def _frame_tangents(mi, fi, fnode, frame_node, fr, ti, q, FK, Jall, XB, FKI, V, A, dV, dA, j, k, ei, along_q, gvec,
                    dphi, wrenches, w0, NX, FT):
    """FT[m] = moving frame m's kinematic tangent (world axes, row_tangent's layout) along
    column k of link j (coordinate k if ``along_q``, else speed k; ei: the modal index of a
    modal coordinate column, else -1), from the pass's dV, dA over j's subtree (a frame off it
    does not move): body tangents B dV_L, B dA_L (+ a node's terms), turned into the world
    with the frame's world values in FK (A_L's -g is a constant world offset: a_w - g)."""
    for m in range(ti[T_NK]):
        for r in range(K_COLS):
            FT[m, r] = 0.0
        f = ti[ti[T_MOVING] + m]
        L = int(fr[f, FR_LINK])
        if L < j or L >= mi[j, SUBTREE_END]:
            continue
        vo, nb, a, o = fi[L, FL.VOFF], fi[L, FL.NB], int(FKI[m]), 6 * m
        dvb, dab = _bx(XB, m, nb, dV, vo), _bx(XB, m, nb, dA, vo)
        if frame_node[f] >= 0:
            xv, xa = _node_terms(fi, fnode, frame_node[f], L, q, ei if L == j else -1, V, A, dV, dphi, XB, NX, m,
                                 nb, wrenches, w0)
            dvb, dab = _add6(dvb, xv), _add6(dab, xa)
        zero = (0.0, 0.0, 0.0)
        th = _rot(FK, a, (Jall[o, k], Jall[o + 1, k], Jall[o + 2, k]), zero) if along_q else zero
        dp = _rot(FK, a, (Jall[o + 3, k], Jall[o + 4, k], Jall[o + 5, k]), zero) if along_q else zero
        w, v, wd, acc = _v3(FK, a, K_W), _v3(FK, a, K_V), _v3(FK, a, K_WD), _v3(FK, a, K_AD)
        dw, dv = _rot(FK, a, (dvb[0], dvb[1], dvb[2]), zero), _rot(FK, a, (dvb[3], dvb[4], dvb[5]), zero)
        dwd, dal = _rot(FK, a, (dab[0], dab[1], dab[2]), zero), _rot(FK, a, (dab[3], dab[4], dab[5]), zero)
        t2, t3, t4 = _cr(th, w), _cr(th, v), _cr(th, wd)
        t5 = _cr(th, (acc[0] - gvec[0], acc[1] - gvec[1], acc[2] - gvec[2]))
        c1, c2 = _cr(dw, v), _cr(w, dv)
        for r in range(3):
            FT[m, r] = th[r]
            FT[m, K_P + r] = dp[r]
            FT[m, K_W + r] = dw[r] + t2[r]
            FT[m, K_V + r] = dv[r] + t3[r]
            FT[m, K_WD + r] = dwd[r] + t4[r]
            FT[m, K_AD + r] = dal[r] + c1[r] + c2[r] + t5[r]


@njit(**_INL)
def _v3(FK, a, o):
    return (FK[a, o], FK[a, o + 1], FK[a, o + 2])


@njit(cache=True)
def _rows_column(cr, ti, FK, FT, gains, lam, Gc, K2, T2, out, k, along_q, dCq, dCu, DW):
    """Column k of dC/dq (``along_q``) or dC/du from the frames' tangents FT; along q, DW[m]
    += the change of the lambda-weighted world coefficients of the rows on moving frame m."""
    ro = ti[T_ROWS]
    for i in range(cr.shape[0]):
        if int(cr[i, CR_TYPE]) == COORD:  # constant Gc row: C's change is the gains' terms only
            x = Gc[i, k] * (gains[i, 0] if along_q else gains[i, 1])
            if along_q:
                dCq[i, k] = x
            else:
                dCu[i, k] = x
            continue
        fa, fb, ka, kb = ti[ro + 4 * i], ti[ro + 4 * i + 1], ti[ro + 4 * i + 2], ti[ro + 4 * i + 3]
        for c in range(K_COLS):
            K2[c] = FK[fa, c]
            K2[K_COLS + c] = FK[fb, c]
            T2[c] = FT[ka, c] if ka >= 0 else 0.0
            T2[K_COLS + c] = FT[kb, c] if kb >= 0 else 0.0
        row_tangent(cr, i, K2, T2, out)
        dc = out[14] + gains[i, 1] * out[13] + gains[i, 0] * out[0]
        if not along_q:
            dCu[i, k] = dc
            continue
        dCq[i, k] = dc
        for e in range(6):
            if ka >= 0:
                DW[ka, e] += lam[i] * out[1 + e]
            if kb >= 0:
                DW[kb, e] += lam[i] * out[7 + e]


@njit(cache=True)
def _force_column(fi, frame_node, fr, ti, FK, FKI, Jall, XB, NX, wrenches, w0, DW, j, k, ei, Hq):
    """Hq[:, k] -= sum_F J_F^T dw_F, dw_F = R^T DW[F] - dtheta_b x w_F: the constraint wrenches'
    change in their frames' axes (their turning with the frame is in Hq already); DW zeroed.
    A frame at a deforming node of link j's body, along its modal coordinate ei: also
    -Jbar_L^T (dB^T w_F) (``_node_force``)."""
    nu = Hq.shape[0]
    for m in range(FKI.shape[0]):
        a, o = int(FKI[m]), 6 * m
        th = (Jall[o, k], Jall[o + 1, k], Jall[o + 2, k])
        for h in range(2):
            w = (wrenches[w0 + m, 3 * h], wrenches[w0 + m, 3 * h + 1], wrenches[w0 + m, 3 * h + 2])
            t = _cr(th, w)
            d = (DW[m, 3 * h], DW[m, 3 * h + 1], DW[m, 3 * h + 2])
            for c in range(3):
                DW[m, 3 * h + c] = (FK[a, K_COLS + c] * d[0] + FK[a, K_COLS + 3 + c] * d[1]
                                    + FK[a, K_COLS + 6 + c] * d[2] - t[c])
        f = ti[ti[T_MOVING] + m]
        if ei >= 0 and frame_node[f] >= 0 and int(fr[f, FR_LINK]) == j:
            _node_force(fi, j, XB, NX, m, DW)
        for col in range(nu):
            s = 0.0
            for e in range(6):
                s += Jall[o + e, col] * DW[m, e]
            Hq[col, k] -= s
        if ei >= 0 and frame_node[f] >= 0 and int(fr[f, FR_LINK]) == j:
            _node_modal_rows(fi, j, XB, NX, m, DW, k, Hq)
        for e in range(6):
            DW[m, e] = 0.0


@njit(cache=True)
def _node_force(fi, L, XB, NX, m, DW):
    """DW[m] += w' = X*(N<-L) x (x = NX[m, :6], the rigid part of dB^T w at L, as a wrench at
    the node: J_F^T w' = Jbar_L^T [x; Psi^T w']; X* = [[E, BL], [0, E]] from B's X(N<-L) =
    [[E, 0], [BL, E]]), its modal rows' rest in ``_node_modal_rows``."""
    nb = fi[L, FL.NB]
    for r in range(3):
        sm = sf = 0.0
        for c in range(3):
            E = XB[m, r * nb + c]
            sm += E * NX[m, c] + XB[m, (3 + r) * nb + c] * NX[m, 3 + c]
            sf += E * NX[m, 3 + c]
        NX[m, nb + r] = sm
        NX[m, nb + 3 + r] = sf
    for e in range(6):
        DW[m, e] += NX[m, nb + e]


@njit(cache=True)
def _node_modal_rows(fi, L, XB, NX, m, DW, k, Hq):
    """Hq[eta_L rows, k] -= dB^T w's modal part less Psi^T w' (w' = NX[m, nb:nb + 6])."""
    nb, um = fi[L, FL.NB], fi[L, FL.UM]
    for i in range(nb - 6):
        s = 0.0
        for r in range(6):
            s += XB[m, r * nb + 6 + i] * NX[m, nb + r]
        Hq[um + i, k] -= NX[m, 6 + i] - s


@njit(cache=True)
def _tangent_columns(mi, mf, ws, fi, fm1, fm2, Mq, fnode, frame_node, fr, cr, stiff, damp, q, u, udot, phi, V, A, F,
                     ab, ti, FK, Jall, XB, FKI, NX, gvec, gains, lam, Gc, wrenches, w0, T, nbm, FT, DW, K2, T2, out,
                     Hq, Hu, dCq, dCu):
    """Every column's tangent pass (flex_dynamics_derivatives' outward_tangent and
    inward_tangent: H's column with the wrenches held, ``held_base_pass`` having run) and from
    its link tangents the frames' tangents, dC/dq, dC/du and the rest of H (the module
    docstring)."""
    nv, nu = V.shape[0], u.shape[0]
    dV, dA, db = T[:nv], T[nv:2 * nv], T[2 * nv:3 * nv]
    o2 = 3 * nv + nu + 2 * nu * nu
    dM, dphi = T[o2:o2 + nbm * nbm], T[o2 + nbm * nbm:]
    for j in range(mi.shape[0]):
        for modal in (False, True):
            ncol = fi[j, FL.NM] if modal else mi[j, NU]
            base = fi[j, FL.UM] if modal else mi[j, UOFF]
            for col in range(ncol):
                k = base + col
                for wrt_u in (False, True):
                    for i in range(nv):
                        db[i] = 0.0
                    outward_tangent(mi, mf, ws, fi, fm1, fm2, Mq, fnode, q, u, udot, phi, V, A, ab, j, col, modal,
                                    wrt_u, dV, dA, dM, dphi, db)
                    inward_tangent(mi, mf, ws, fi, fnode, q, stiff, damp, phi, V, F, j, col, modal, wrt_u, dV, dphi,
                                   db, Hu if wrt_u else Hq, k)
                    ei = col if modal and not wrt_u else -1
                    _frame_tangents(mi, fi, fnode, frame_node, fr, ti, q, FK, Jall, XB, FKI, V, A, dV, dA, j, k, ei,
                                    not wrt_u, gvec, dphi, wrenches, w0, NX, FT)
                    _rows_column(cr, ti, FK, FT, gains, lam, Gc, K2, T2, out, k, not wrt_u, dCq, dCu, DW)
                    if not wrt_u:
                        _force_column(fi, frame_node, fr, ti, FK, FKI, Jall, XB, NX, wrenches, w0, DW, j, k, ei, Hq)


@njit(cache=True)
def _held_wrenches(QR, lam, ti, frames, wrenches, w0):
    """frames[w0:], wrenches[w0:] = the moving frames and their wrenches w_F = sum_i QR[i, F]
    lambda_i (F's axes)."""
    for m in range(ti[T_NK]):
        frames[w0 + m] = ti[ti[T_MOVING] + m]
        for e in range(6):
            s = 0.0
            for i in range(QR.shape[0]):
                s += QR[i, 6 * m + e] * lam[i]
            wrenches[w0 + m, e] = s


@njit(cache=True, _nrt=False)
def flex_constrained_dynamics_derivatives(dbuf, q, u, tau, W, frames, wrenches, T, S, E, Wm, dq, du, Minv):
    """Checked derivatives (dq = dudot/dq, du = dudot/du, Minv = Mc^-1) of the flex constrained
    udot at (q, u, tau) with the Baumgarte gains of W (the constraint work array): a status,
    SINGULAR or OVERFLOW. frames, wrenches (k + nk,), (k + nk, 6): f_ext's k wrenches at frames
    rigid on their links (tau carries their generalized force), the last nk filled here; T:
    ``derivatives_work_size``; S: ``scratch_size``; E (4, nc, nu); Wm: M^-1's work."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, u, tau, 1, 1)
    if st != OK:
        return st
    nu, nc, ti, fw = u.shape[0], a.cr.shape[0], a.con_table, a.con_work
    nk, nv, nbm = ti[T_NK], a.V.shape[0], nb_max(a.fi)
    udot = S[:nu]
    if flex_constrained_udot(dbuf, q, u, tau, W, udot) != OK:
        return SINGULAR
    w0 = frames.shape[0] - nk
    lam = piece(fw, ti, F_RV, N_RV, nc)[R_LAMBDA]
    _held_wrenches(piece(fw, ti, F_QR, nc, 6 * nk), lam, ti, frames, wrenches, w0)
    o = 3 * nv + nu
    Tq, Tu = T[o:o + nu * nu].reshape((nu, nu)), T[o + nu * nu:o + 2 * nu * nu].reshape((nu, nu))
    held_base_pass(dbuf, q, u, udot, frames, wrenches, T)
    FK, Jall = piece(fw, ti, F_FK, ti[T_NFR], FK_COLS), piece(fw, ti, F_J, 6 * nk, nu)
    s0 = nu + nk * (K_COLS + 6)
    FT, DW = S[nu:nu + nk * K_COLS].reshape((nk, K_COLS)), S[nu + nk * K_COLS:s0].reshape((nk, 6))
    s1 = s0 + nk * 6 * nbm
    s2 = s1 + nk * (nbm + 6)
    XB, NX, FKI = S[s0:s1].reshape((nk, 6 * nbm)), S[s1:s2].reshape((nk, nbm + 6)), S[s2:s2 + nk]
    s3 = s2 + nk
    K2, T2, out = S[s3:s3 + 2 * K_COLS], S[s3 + 2 * K_COLS:s3 + 4 * K_COLS], S[s3 + 4 * K_COLS:s3 + 4 * K_COLS + 16]
    for m in range(nk):
        for e in range(6):
            DW[m, e] = 0.0
    _frame_maps(a.mi, a.fi, a.fnode, a.frame_node, a.fr, q, ti, T[o + 2 * nu * nu + nbm * nbm:], XB, FKI)
    _full_accelerations(FK, Jall, FKI, udot)
    c0 = row_offset(nu, nc)
    Gc = piece(fw, ti, F_G, nc, nu)
    n = a.mi.shape[0]
    gvec = (a.mf[n, GRAVITY], a.mf[n, GRAVITY + 1], a.mf[n, GRAVITY + 2])
    _tangent_columns(a.mi, a.mf, a.ws, a.fi, a.fm1, a.fm2, a.M, a.fnode, a.frame_node, a.fr, a.cr, a.stiffness,
                     a.damping, q, u, udot, a.phi, a.V, a.A, a.F, a.abias, ti, FK, Jall, XB, FKI, NX, gvec,
                     W[:, c0 + WC_KP:c0 + WC_KD + 1], lam, Gc, wrenches, w0, T, nbm, FT, DW, K2, T2, out, Tq, Tu, E[0],
                     E[1])
    body_masses(a.fi, a.fmass, a.fm1, a.fm2, q, a.M)
    if not flex_inverse_mass_matrix(a.mi, a.mf, a.ws, a.fi, a.M, a.fnode, q, a.zero, a.phi, a.V, a.abias, a.pose,
                                    a.VN, a.P, a.G, a.Dinv, a.scratch, Wm, Minv):
        return SINGULAR
    kkt_solution(piece(fw, ti, F_A, nc, nc + 1), 0, nc, Gc, E[0], E[1], E[2], E[3], Tq, Tu, dq, du, Minv)
    return result_status(result_status(result_status(st, dq), du), Minv)
