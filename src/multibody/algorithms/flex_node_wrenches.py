"""External wrenches at deforming nodes in the flexible derivatives (``flex_derivatives``).

A wrench w = [m; f] at node N of link L's modal body (about N's origin, in N's axes) is the
generalized force J_L^T [W(eta); g(eta)] (``kernels/flex_external_forces.py``): W the same
wrench moved to L's frame (about its origin, in its axes) and g = Psi_N^T w its work on
the modes. With the node at (exp(theta) R0, p0 + Pi_t eta) in L, theta = Pi_r eta
(``kernels/flex_jacobian.py``):

    f_L = R_N f,   m_L = R_N m + p_N x f_L,   g_i = (Jr(theta) r_i) . (R0 m) + t_i . f_L

(r_i, t_i: the columns of Pi_r, Pi_t). Its tangent along q has two parts: J_L's own, with W
held fixed in L, which the derivative kernels give when W is handed to them at a frame rigid
on L (the modal body's frame); and W's and g's change with eta_L, added here as E = d
tau_ext / d eta_L. With w_j = Jl(theta) r_j (d exp(theta) = [Jl(theta) dtheta]x exp(theta)):

    dW/deta_j = [w_j x m_L' + t_j x f_L + p_N x (w_j x f_L);  w_j x f_L],  m_L' = R_N m,
    dg_i/deta_j = (dJr[theta; r_j] r_i) . (R0 m) + t_i . (w_j x f_L),

dJr[theta; d] v the derivative of Jr(theta) v along d (``flex_node_tangent.jr_tangent``).
These terms are O(k nm^2) per call, in Python: for a few wrenches, not for the hot path.
"""
import numpy as np

from ..kernels import flex_layout as FL
from ..kernels import layout as L
from ..kernels.flex_kinematics import jr_apply
from ..kernels.flex_node_tangent import jr_tangent
from ..kernels.spatial_inline import rot_rotvec
from .checks import raise_status, run_kernel


def _node_terms(c, row, q, w):
    """(link, W (6,) about and in L's frame, dW (6, nm), dg (nm, nm)) of wrench w at the
    deforming node of frame row ``row`` at q (module docstring)."""
    flex = c.flex
    link = int(c.fr[row, L.FR_LINK])
    a = int(flex.frame_node[row])
    nm = int(flex.fi[link, FL.NM])
    qm = int(flex.fi[link, FL.QM])
    rec = flex.fnode
    R0 = rec[a + FL.N_R0:a + FL.N_R0 + 9].reshape(3, 3)
    Pi = rec[a + FL.N_PI:a + FL.N_PI + 6 * nm].reshape(6, nm)
    eta = q[qm:qm + nm]
    th = Pi[:3] @ eta
    RN = np.array(rot_rotvec(*th)).reshape(3, 3) @ R0
    pN = rec[a + FL.N_P0:a + FL.N_P0 + 3] + Pi[3:] @ eta
    fL = RN @ w[3:]
    mN = RN @ w[:3]
    W = np.concatenate([mN + np.cross(pN, fL), fL])
    dW = np.empty((6, nm))
    dg = np.empty((nm, nm))
    m0 = R0 @ w[:3]
    for j in range(nm):
        r, t = Pi[:3, j], Pi[3:, j]
        wj = np.array(jr_apply(tuple(-th), tuple(r)))  # Jl(th) r = Jr(-th) r
        dfL = np.cross(wj, fL)
        dW[:, j] = np.concatenate([np.cross(wj, mN) + np.cross(t, fL) + np.cross(pN, dfL), dfL])
        for i in range(nm):
            dg[i, j] = np.array(jr_tangent(tuple(th), tuple(r), tuple(Pi[:3, i]))) @ m0 + Pi[3:, i] @ dfL
    return link, W, dW, dg


def _on_rigid_frame(c, link, W):
    """(row, X^* W): a frame row rigid on ``link`` (its body's frame) and the wrench W (about
    and in the link frame) about that frame's origin, in its axes; W (6,) or (6, k)."""
    rows = np.nonzero((c.fr[:, L.FR_LINK] == link) & (c.flex.frame_node < 0))[0]
    f = int(rows[0])
    R = c.fr[f, L.FR_R:L.FR_R + 9].reshape(3, 3)
    p = c.fr[f, L.FR_P:L.FR_P + 3]
    m, force = W[:3], W[3:]
    return f, np.concatenate([R.T @ (m - np.cross(p, force, axis=0)), R.T @ force])


def node_wrenches(c, d, q, rows, wrenches):
    """(rows, wrenches, E): ``rows``/``wrenches`` (from ``external_wrenches``) with each
    wrench at a deforming node replaced by the same wrench at a frame rigid on its link, held
    fixed there, and E (nu, nu) = the rest of d tau_ext / dq: the node wrenches' change with
    their bodies' eta (module docstring). d: the Data whose buffer the Jacobians use."""
    rows, wrenches = rows.copy(), wrenches.copy()
    E = np.zeros((c.nu, c.nu))
    for k in np.nonzero(c.flex.frame_node[rows] >= 0)[0]:
        link, W, dW, dg = _node_terms(c, rows[k], q, wrenches[k])
        rows[k], wrenches[k] = _on_rigid_frame(c, link, W)
        _, dW = _on_rigid_frame(c, link, dW)
        J = np.zeros((6, c.nu))
        st = run_kernel(c, q, c.kernels.frame_jacobian, d.buf, q, rows[k], np.empty((4, 4)), J)
        if st:
            raise_status(c, st, ("q",), (q,))
        um = int(c.flex.fi[link, FL.UM])
        nm = dg.shape[0]
        E[:, um:um + nm] += J.T @ dW
        E[um:um + nm, um:um + nm] += dg
    return rows, wrenches, E
