"""Loop, convel and coordinate constraints on models with modal (flexible) bodies.

A constraint's frames may be nodes of modal bodies, which deform: a row (kernels/
constraint_rows.py) is then a function of the *deformed* node poses, and its rate and
velocity-product term come from the flex frame Jacobians (which carry the body's modal
columns) and the flex frame accelerations at udot = 0 (kernels/flex_jacobian.py). The rows'
formulas are the rigid ones (``constraint_rows.row_coefficients``), evaluated on each
frame's world kinematics K (constraint_rows' K_* layout), all in one compiled call
(kernels/flex_constrained.py, passes 1-2, which the constrained dynamics shares).

``rows`` fills the constraint work array of a Data as the rigid rows kernel does (Gc in
W[:, :nu], the coefficients at WC_ROW), so every error/Jacobian function of
algorithms/constraints.py serves flex models unchanged. ``work`` lends the kernels their
tables and work (made once per Data: the model's distinct constraint frames, which rows
use which, its coordinate rows). (Constrained dynamics: algorithms/flex_constrained_dynamics.py.)

The constraint kinematics solver (constraint_kinematics.py) runs on these rows unchanged. Its
choice for modal coordinates: they are free like any coordinate (a loop closed at a
deforming node may need the deformation, and Newton's minimum-norm steps weigh eta' like
every other speed, not by stiffness); to close a loop with the hinges alone, hold them by
passing their u indices (``m.modal_u_slice(body)``) in ``frozen``.
"""
from types import SimpleNamespace

import numpy as np

from ..kernels.constraint_work import WC_ROW, row_offset
from ..kernels.flex_constrained import (
    F_C, F_G, F_RV, F_VEC, N_RV, N_VEC, R_LAMBDA, V_FORCE, V_UDOT, _piece, flex_constraint_rows, tables,
)
from .checks import check_vector, data_object, raise_status, run_kernel

_row_offset = row_offset.py_func
_piece_view = _piece.py_func  # the kernels' own view of a piece of fw, from Python


def work(c, d):
    """The flex constraint kernels' tables and work arrays of Data d, made on first use (the
    tables depend on the compiled model alone, which a Data belongs to): a namespace with
    the kernels' leading and trailing arguments (``model``, ``flex`` for the constrained
    dynamics; ``rows_model``, ``rows_flex`` for the rows) and views of its work array: ``C``
    (rows, 16) the rows' coefficients, ``G`` = Gc (rows, nu), ``udot``, ``force`` = Gc^T
    lambda (nu,) and ``lam`` (rows,), valid until the Data's next constraint call."""
    w = d.flex_constraint_work
    if w is not None:
        return w
    f, fwk = c.flex, d.flex_work
    ti, fw = tables(c.fr, c.cr, f.fi, c.n_links, c.nu, fwk.P.size)

    def piece(col, rows, cols):
        return _piece_view(fw, ti, col, rows, cols)

    vec, rv = piece(F_VEC, N_VEC, c.nu), piece(F_RV, N_RV, c.nc)
    flex = (fwk.phi, fwk.V, fwk.A, fwk.F, fwk.abias, fwk.pose, fwk.VN, fwk.P, fwk.G, fwk.Dinv, fwk.eps, fwk.scratch,
            ti, fw)
    w = d.flex_constraint_work = SimpleNamespace(
        model=(c.mi, c.mf, d.ws, f.fi, f.fmass, f.fm1, f.fm2, fwk.M, f.fnode, f.frame_node, c.fr, c.cr,
               f.stiffness, f.damping),
        flex=flex,
        rows_model=(c.mi, c.mf, d.ws, f.fi, f.fnode, f.frame_node, c.fr, c.cr),
        rows_flex=(fwk.phi, fwk.V, fwk.A, fwk.abias, fwk.pose, fwk.VN, ti, fw),
        C=piece(F_C, c.nc, 16), G=piece(F_G, c.nc, c.nu), udot=vec[V_UDOT], force=vec[V_FORCE], lam=rv[R_LAMBDA])
    return w


def rows(m, q, u, W, data=None):
    """Evaluate every enabled constraint row of a flex model at (q, u) into the constraint
    work array W (the rigid rows kernel's layout: Gc in W[:, :nu], the coefficients (r,
    alpha, beta, gamma, delta, r_dot, kappa) at WC_ROW). Returns W."""
    c = m.compiled
    d = data_object(c, data)
    q = check_vector(q, c.nq, "q", c)
    u = np.zeros(c.nu) if u is None else check_vector(u, c.nu, "u", c)
    w = work(c, d)
    st = run_kernel(c, q, flex_constraint_rows, *w.rows_model, q, u, *w.rows_flex)
    if st:
        raise_status(c, st, ("q", "u"), (q, u))
    c0 = _row_offset(c.nu, c.nc)
    W[:, :c.nu] = w.G
    W[:, c0 + WC_ROW:c0 + WC_ROW + 16] = w.C
    return W
