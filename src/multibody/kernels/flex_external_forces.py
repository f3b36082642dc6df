"""External wrenches at frames (bodies and nodes) of a tree with modal bodies as generalized
forces, O(N + k): tau_ext = sum_F J_F^T w_F, by one inward pass (the flex dynamics kernels
then take tau + tau_ext, so they need no force input of their own).

A wrench w_F [moment; force] about frame F's origin, in F's axes, is the generalized force
B_F^T w_F on its link's block [V_L; eta_L'] (flex_jacobian.frame_map: at a deforming node
its modal rows are Psi_N^T w_F, the work the wrench does on the modes). Inward, with F_k
the sum of these on link k and its subtree (only the rigid rows of a child's reach the
parent: Phi_k^T has zero modal rows):
    tau_ext[speeds of k] = H_k F_k,   F_p += Phi_k F_k[:6].
"""
from numba import njit

from . import flex_layout as FL
from .flex_dynamics import force_to_parent, hinge_force
from .flex_jacobian import frame_map
from .flex_kinematics import flex_kinematics
from .layout import FR_LINK, NU, PARENT, UOFF


@njit(cache=True)
def flex_external_generalized_forces(mi, mf, ws, fi, fnode, frame_node, fr, q, u0, phi, V, abias, pose, VN,
                                     frames, wrenches, F, B, tau_ext):
    """tau_ext (nu,) = sum over the rows of ``frames`` (frame rows, k) of J_F^T ``wrenches``
    (k, 6); u0: zeros (nu,); F: scratch like V (sum of nb); B: scratch of 6 max(nb)."""
    n = mi.shape[0]
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, phi, V, abias, pose, VN)
    for i in range(F.shape[0]):
        F[i] = 0.0
    for a in range(frames.shape[0]):
        L = int(fr[frames[a], FR_LINK])
        if L < 0:  # a wrench on the world does nothing
            continue
        frame_map(mi, fi, fnode, frame_node, fr, q, frames[a], B)
        nb = fi[L, FL.NB]
        vo = fi[L, FL.VOFF]
        for c in range(nb):
            s = 0.0
            for r in range(6):
                s += B[r * nb + c] * wrenches[a, r]
            F[vo + c] += s
    for k in range(n - 1, -1, -1):
        vo = fi[k, FL.VOFF]
        u0k = mi[k, UOFF]
        nu = mi[k, NU]
        for a in range(nu):
            tau_ext[u0k + a] = hinge_force(mf, k, a, F, vo)
        for i in range(fi[k, FL.NM]):
            tau_ext[u0k + nu + i] = F[vo + 6 + i]
        p = mi[k, PARENT]
        if p >= 0:
            force_to_parent(fi, phi, F, k, p, F, vo)
