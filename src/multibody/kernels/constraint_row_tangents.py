"""Tangents of the constraint rows: the first-order change of each row's residual r, its
coefficients (alpha, beta, gamma, delta), its rate r_dot and its acceleration r_ddot when the
kinematics of its two frames change, for the constrained dynamics' derivatives.

A row (constraint_rows.py) is a function of its frames' kinematics K (world axes: rotation R,
origin p, w, v, w_dot and the classical origin acceleration a). Their tangent T has K's layout
with, in the rotation's place, the frame's small world rotation dtheta (R -> exp([dtheta]x) R,
so a vector e fixed in the frame changes by dtheta x e), then dp, dw, dv, dw_dot, da.
Each function below is the chain rule of the matching formula of constraint_rows.py, written
term by term (product rule), with r_ddot in the place of kappa: fed with a whole motion's
accelerations, constraint_rows' kappa *is* r_ddot.
"""
from numba import njit

from .collision.vec import add, cross, dot, scale, sub
from .constraint_rows import ALIGN, CONVEL, K_AD, K_P, K_V, K_W, K_WD, SCREW, TRANS, frame_offset, link_vec
from .constraint_work import K_COLS, NO_NRT
from .layout import CR_B, CR_E, CR_E2, CR_E3, CR_SCALAR, CR_TYPE

ZERO3 = (0.0, 0.0, 0.0)


@njit(cache=True, inline="always")
def _v(K, o):
    return (K[o], K[o + 1], K[o + 2])


@njit(cache=True, inline="always")
def _fixed(cr, i, col, K, T, o):
    """(e, de): the row's vector cr[i, col:col+3], fixed in the frame whose K begins at o, in
    the world, and its tangent dtheta x e."""
    e = link_vec(cr, i, col, K, o)
    return e, cross(_v(T, o), e)


@njit(cache=True, inline="always")
def _align_tangent(K, T, e, de, b, db):
    """Values and tangents of r = e . b (constraint_rows._align): (r, dr, w, dw, r_dot, dr_dot,
    r_ddot, dr_ddot), w = e x b."""
    wa, wb = _v(K, K_W), _v(K, K_COLS + K_W)
    dwa, dwb = _v(T, K_W), _v(T, K_COLS + K_W)
    w = cross(e, b)
    dw = add(cross(de, b), cross(e, db))
    ed, bd = cross(wa, e), cross(wb, b)
    ded = add(cross(dwa, e), cross(wa, de))
    dbd = add(cross(dwb, b), cross(wb, db))
    wdot = add(cross(ed, b), cross(e, bd))
    dwdot = add(add(cross(ded, b), cross(ed, db)), add(cross(de, bd), cross(e, dbd)))
    rel, drel = sub(wa, wb), sub(dwa, dwb)
    acc = sub(_v(K, K_WD), _v(K, K_COLS + K_WD))
    dacc = sub(_v(T, K_WD), _v(T, K_COLS + K_WD))
    kap = dot(acc, w) + dot(rel, wdot)
    dkap = dot(dacc, w) + dot(acc, dw) + dot(drel, wdot) + dot(rel, dwdot)
    return (dot(e, b), dot(de, b) + dot(e, db), w, dw, dot(rel, w), dot(drel, w) + dot(rel, dw), kap, dkap)


@njit(cache=True, inline="always")
def _trans_tangent(K, T, c, dc):
    """Tangents of r = c . d, c fixed in frame a (constraint_rows._trans): (dr, dalpha, dr_dot,
    dr_ddot), alpha = c x d."""
    wa, dwa = _v(K, K_W), _v(T, K_W)
    wda, dwda = _v(K, K_WD), _v(T, K_WD)
    d = frame_offset(K, 0, K_COLS)
    dd = sub(_v(T, K_COLS + K_P), _v(T, K_P))
    ddot = sub(_v(K, K_COLS + K_V), _v(K, K_V))
    dddot = sub(_v(T, K_COLS + K_V), _v(T, K_V))
    dacc = sub(_v(K, K_COLS + K_AD), _v(K, K_AD))
    ddacc = sub(_v(T, K_COLS + K_AD), _v(T, K_AD))
    rel = sub(ddot, cross(wa, d))
    drel = sub(dddot, add(cross(dwa, d), cross(wa, dd)))
    cd = cross(wa, c)
    dcd = add(cross(dwa, c), cross(wa, dc))
    rel_d = sub(sub(dacc, cross(wda, d)), cross(wa, ddot))
    drel_d = sub(sub(ddacc, add(cross(dwda, d), cross(wda, dd))), add(cross(dwa, ddot), cross(wa, dddot)))
    return (dot(dc, d) + dot(c, dd), add(cross(dc, d), cross(c, dd)), dot(dc, rel) + dot(c, drel),
            dot(dcd, rel) + dot(cd, drel) + dot(dc, rel_d) + dot(c, drel_d))


@njit(cache=True, inline="always")
def _screw_angle_tangent(K, T, cr, i):
    """Tangents of theta = atan2(y, x) (x = e3_A . e1_B, y = e2_A . e1_B): (dtheta, dg_over_den,
    dtheta_dot, dtheta_ddot) with g / den = d theta_dot / d(w_a - w_b) (constraint_rows' SCREW)."""
    e1b, de1b = _fixed(cr, i, CR_B, K, T, K_COLS)
    e3, de3 = _fixed(cr, i, CR_E3, K, T, 0)
    e2, de2 = _fixed(cr, i, CR_E2, K, T, 0)
    x, dx, wx, dwx, xd, dxd, xdd, dxdd = _align_tangent(K, T, e3, de3, e1b, de1b)
    y, dy, wy, dwy, yd, dyd, ydd, dydd = _align_tangent(K, T, e2, de2, e1b, de1b)
    den = x * x + y * y
    dden = 2.0 * (x * dx + y * dy)
    g = sub(scale(wy, x), scale(wx, y))
    dg = add(sub(scale(wy, dx), scale(wx, dy)), sub(scale(dwy, x), scale(dwx, y)))
    dg_den = sub(scale(dg, 1.0 / den), scale(g, dden / (den * den)))
    num = x * yd - y * xd
    dnum = dx * yd + x * dyd - dy * xd - y * dxd
    s = x * xd + y * yd
    ds = dx * xd + x * dxd + dy * yd + y * dyd
    top = x * ydd - y * xdd
    dtop = dx * ydd + x * dydd - dy * xdd - y * dxdd
    dthdd = (dtop / den - top * dden / (den * den)
             - 2.0 * ((dnum * s + num * ds) / (den * den) - 2.0 * num * s * dden / (den * den * den)))
    return (x * dy - y * dx) / den, dg_den, dnum / den - num * dden / (den * den), dthdd


@njit(**NO_NRT)
def row_tangent(cr, i, K, T, out):
    """out[0:15] = (dr, dalpha, dbeta, dgamma, ddelta, dr_dot, dr_ddot) of row i (not a
    coordinate row) for the frames' kinematics K and their tangent T (the module docstring)."""
    t = int(cr[i, CR_TYPE])
    dbeta, dgamma, ddelta = ZERO3, ZERO3, ZERO3
    if t == ALIGN:
        e, de = _fixed(cr, i, CR_E, K, T, 0)
        b, db = _fixed(cr, i, CR_B, K, T, K_COLS)
        _, dr, _, dalpha, _, drd, _, dkap = _align_tangent(K, T, e, de, b, db)
        dgamma = scale(dalpha, -1.0)
    elif t == TRANS or t == SCREW:
        c, dc = _fixed(cr, i, CR_E, K, T, 0)
        dr, dalpha, drd, dkap = _trans_tangent(K, T, c, dc)
        dbeta, ddelta = scale(dc, -1.0), dc
        if t == SCREW:
            pitch = cr[i, CR_SCALAR]
            dth, dg_den, dthd, dthdd = _screw_angle_tangent(K, T, cr, i)
            dr -= pitch * dth
            dalpha = sub(dalpha, scale(dg_den, pitch))
            dgamma = scale(dg_den, pitch)
            drd -= pitch * dthd
            dkap -= pitch * dthdd
    else:  # CONVEL: n_w . (w_b - w_a) + n_v . (d_dot - w_a x d), no position level
        nw, dnw = _fixed(cr, i, CR_E, K, T, 0)
        nv, dnv = _fixed(cr, i, CR_E2, K, T, 0)
        _, dalpha, drd, dkap = _trans_tangent(K, T, nv, dnv)
        dr = 0.0
        dalpha = sub(dalpha, dnw)
        dbeta, dgamma, ddelta = scale(dnv, -1.0), dnw, dnv
        wa, dwa = _v(K, K_W), _v(T, K_W)
        rel = sub(_v(K, K_COLS + K_W), wa)
        drel = sub(_v(T, K_COLS + K_W), dwa)
        acc = sub(_v(K, K_COLS + K_WD), _v(K, K_WD))
        dacc = sub(_v(T, K_COLS + K_WD), _v(T, K_WD))
        drd += dot(dnw, rel) + dot(nw, drel)
        wn = cross(wa, nw)
        dkap += (dot(add(cross(dwa, nw), cross(wa, dnw)), rel) + dot(wn, drel) + dot(dnw, acc)
                 + dot(nw, dacc))
    out[0] = dr
    for k in range(3):
        out[1 + k] = dalpha[k]
        out[4 + k] = dbeta[k]
        out[7 + k] = dgamma[k]
        out[10 + k] = ddelta[k]
    out[13] = drd
    out[14] = dkap
