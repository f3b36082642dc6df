"""Loop, convel and coordinate constraints on models with modal (flexible) bodies.

A constraint's frames may be nodes of modal bodies, which deform: a row (kernels/
constraint_rows.py) is then a function of the *deformed* node poses, and its rate and
velocity-product term come from the flex frame Jacobians (which carry the body's modal
columns) and the flex frame accelerations at udot = 0 (kernels/flex_jacobian.py). The rows'
formulas are the rigid ones (``constraint_rows.row_coefficients``), evaluated on each
frame's world kinematics K (constraint_rows' K_* layout). The vectors of a row are stored
in the axes of the link its frame is fixed on, rotated by the node's undeformed rotation
R0 (model/compile.constraint_table); so K's rotation is R_world_node(eta) R0^T, which turns
them with the node's deformation.

``rows`` fills the constraint work array of a Data as the rigid rows kernel does (Gc in
W[:, :nu], the coefficients at WC_ROW), so every error/Jacobian function of
algorithms/constraints.py serves flex models unchanged.
(Constrained dynamics: algorithms/flex_constrained_dynamics.py.)

The constraint kinematics solver (constraint_kinematics.py) runs on these rows unchanged. Its
choice for modal coordinates: they are free like any coordinate (a loop closed at a
deforming node may need the deformation, and Newton's minimum-norm steps weigh eta' like
every other speed, not by stiffness); to close a loop with the hinges alone, hold them by
passing their u indices (``m.modal_u_slice(body)``) in ``frozen``.
"""
import numpy as np

from ..kernels.constraint_rows import (
    COORD, K_AD, K_P, K_R, K_V, K_W, K_WD, row_coefficients,
)
from ..kernels.constraint_work import K_COLS, WC_ROW, row_offset
from ..kernels.layout import CR_FA, CR_FB, CR_SCALAR, CR_TYPE, CR_UA, CR_UB, FR_R
from . import flex_operators
from .checks import check_vector, data_object

_row_offset = row_offset.py_func


def frame_kinematics(m, q, u, f, data=None):
    """(K (24,), Jw (6, nu)) of frame row f at (q, u): K in constraint_rows' layout (rotation
    R_world_node(eta) R0^T, origin, w, v, w_dot and the origin's classical acceleration at
    udot = 0, all world axes, gravity not included); Jw maps u to [w; v of the origin] in
    world axes (a deforming node's includes its body's modal columns)."""
    J, T = flex_operators.frame_jacobian(m, q, f, data)
    va = flex_operators.frame_velocity_acceleration(m, q, u, None, f, data)
    c = m.compiled
    R = T[:3, :3]
    R0 = c.fr[f, FR_R:FR_R + 9].reshape(3, 3)
    w, v, wd, vd = va[0:3], va[3:6], va[6:9], va[9:12]
    K = np.empty(K_COLS)
    K[K_R:K_R + 9] = (R @ R0.T).ravel()
    K[K_P:K_P + 3] = T[:3, 3]
    K[K_W:K_W + 3] = R @ w
    K[K_V:K_V + 3] = R @ v
    K[K_WD:K_WD + 3] = R @ wd
    # va's linear part is the rate of the origin velocity's components in the rotating
    # frame axes: the classical acceleration is R (v' + w x v)
    K[K_AD:K_AD + 3] = R @ (vd + np.cross(w, v))
    Jw = np.vstack([R @ J[:3], R @ J[3:]])
    return K, Jw


def rows(m, q, u, W, data=None):
    """Evaluate every enabled constraint row of a flex model at (q, u) into the constraint
    work array W (the rigid rows kernel's layout: Gc in W[:, :nu], the coefficients (r,
    alpha, beta, gamma, delta, r_dot, kappa) at WC_ROW). Returns W."""
    c = m.compiled
    d = data_object(c, data)
    q = check_vector(q, c.nq, "q")
    u = np.zeros(c.nu) if u is None else check_vector(u, c.nu, "u")
    cr = c.cr
    C = np.zeros((c.nc, 16))
    G = np.zeros((c.nc, c.nu))
    frames = {}
    K = np.empty(2 * K_COLS)
    for i in range(c.nc):
        if int(cr[i, CR_TYPE]) == COORD:
            row_coefficients(cr, i, K, q, u, C)
            G[i, int(cr[i, CR_UA])] += 1.0
            G[i, int(cr[i, CR_UB])] -= cr[i, CR_SCALAR]
            continue
        J = []
        for side, col in enumerate((CR_FA, CR_FB)):
            f = int(cr[i, col])
            if f not in frames:
                frames[f] = frame_kinematics(m, q, u, f, d)
            K[side * K_COLS:(side + 1) * K_COLS] = frames[f][0]
            J.append(frames[f][1])
        row_coefficients(cr, i, K, q, u, C)
        G[i] = C[i, 1:4] @ J[0][:3] + C[i, 4:7] @ J[0][3:] + C[i, 7:10] @ J[1][:3] + C[i, 10:13] @ J[1][3:]
    c0 = _row_offset(c.nu, c.nc)
    W[:, :c.nu] = G
    W[:, c0 + WC_ROW:c0 + WC_ROW + 16] = C
    return W

