"""Frames (bodies and nodes) of trees with modal bodies: their map from the link's
generalized velocity, Jacobians, velocities and accelerations.

A frame F fixed on link L moves with V_F = B_F [V_L; eta_L'] (6 x nb_L, F's axes, the
velocity of F's origin), where for a frame rigid on the link B_F = [X(F<-L) | 0] and for
a node N of L's modal body, at (exp(theta) R0, p0 + Pi_t eta) in L (theta = Pi_r eta),

    B_N = [X(N<-L) | Psi_N],   Psi_N = [R0^T Jr(theta) Pi_r; R_N^T Pi_t]   (N's axes),

the same Psi as a child hanging from the node (flex_kinematics.py). Its acceleration is
B_N A_L + (Psi_N' eta' + V_N x Psi_N eta'), Psi_N' eta' = [R0^T Jr'(theta) theta';
-(w_r x w_t)] with [w_r; w_t] = Psi_N eta'. The Jacobian walks up the tree:
J[:, speeds of L] = B H_L^T, then B <- B[:, :6] Phi_L^T (6 x nb_parent), and so on.
"""
from numba import njit

from . import flex_layout as FL
from .flex_kinematics import flex_kinematics, motion_in_child, node_deformation, node_velocity_product, psi_column
from .layout import FR_LINK, FR_P, FR_R, NU, PARENT, S_COLS, UOFF
from .spatial_inline import mul33

_INL = dict(cache=True, inline="always")


@njit(cache=True)
def frame_placement(fi, fnode, frame_node, fr, q, f):
    """(L, a, R0, R, p, th) of frame row f: its link (-1: the world), its node record (-1:
    rigid on the link), its undeformed rotation R0 and its pose (R 9-tuple, p) in L
    (deformed), and theta = Pi_r eta (zero for a rigid frame)."""
    L = int(fr[f, FR_LINK])
    R = (fr[f, FR_R], fr[f, FR_R + 1], fr[f, FR_R + 2], fr[f, FR_R + 3], fr[f, FR_R + 4], fr[f, FR_R + 5],
         fr[f, FR_R + 6], fr[f, FR_R + 7], fr[f, FR_R + 8])
    p = (fr[f, FR_P], fr[f, FR_P + 1], fr[f, FR_P + 2])
    th = (0.0, 0.0, 0.0)
    R0 = R
    a = frame_node[f]
    if L < 0:
        return L, -1, R0, R, p, th
    if a >= 0:
        E, th, dt = node_deformation(fnode, a, fi[L, FL.NB] - 6, q, fi[L, FL.QM])
        R0 = (fnode[a], fnode[a + 1], fnode[a + 2], fnode[a + 3], fnode[a + 4], fnode[a + 5],
              fnode[a + 6], fnode[a + 7], fnode[a + 8])
        R = mul33(E, R0)
        p = (fnode[a + FL.N_P0] + dt[0], fnode[a + FL.N_P0 + 1] + dt[1], fnode[a + FL.N_P0 + 2] + dt[2])
    return L, a, R0, R, p, th


@njit(cache=True)
def frame_map(mi, fi, fnode, frame_node, fr, q, f, B):
    """Write B_F (6 x nb_L, row-major at B[0:]) of frame row f; return (L, a, R, p, th) of
    ``frame_placement`` (L = -1, the world: B untouched)."""
    L, a, R0, R, p, th = frame_placement(fi, fnode, frame_node, fr, q, f)
    if L < 0:
        return L, a, R, p, th
    nb = fi[L, FL.NB]
    nm = nb - 6
    for c in range(6):  # X(F<-L), then Psi (zero off a node)
        x = motion_in_child(R, p, 1.0 if c == 0 else 0.0, 1.0 if c == 1 else 0.0, 1.0 if c == 2 else 0.0,
                            1.0 if c == 3 else 0.0, 1.0 if c == 4 else 0.0, 1.0 if c == 5 else 0.0)
        for r in range(6):
            B[r * nb + c] = x[r]
    for i in range(nm):
        col = psi_column(fnode, a, nm, i, th, R0, R) if a >= 0 else (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for r in range(6):
            B[r * nb + 6 + i] = col[r]
    return L, a, R, p, th


@njit(**_INL)
def _frame_origin(pose, L, p, col, r):
    """Component r of the origin of a frame at p in link L (L >= 0), its link's origin from
    the pose column ``col`` (FL.POSE_P: in the world; FL.POSE_PT: about its tree's root)."""
    return pose[L, col + r] + pose[L, 3 * r] * p[0] + pose[L, 3 * r + 1] * p[1] + pose[L, 3 * r + 2] * p[2]


@njit(**_INL)
def frame_world_pose(pose, L, R, p, T):
    """T (4x4) = the world pose of a frame at (R, p) in link L (pose: flex_kinematics')."""
    for r in range(3):
        for c in range(3):
            T[r, c] = R[3 * r + c] if L < 0 else (pose[L, 3 * r] * R[c] + pose[L, 3 * r + 1] * R[3 + c]
                                                    + pose[L, 3 * r + 2] * R[6 + c])
        T[r, 3] = p[r] if L < 0 else _frame_origin(pose, L, p, FL.POSE_P, r)
        T[3, r] = 0.0
    T[3, 3] = 1.0


@njit(cache=True)
def flex_frame_pose(mi, mf, ws, fi, fnode, frame_node, fr, q, u0, phi, V, abias, pose, VN, f, T):
    """T (4x4): the world pose of frame row f at q (a node deformed by its mode shapes). u0:
    zeros (nu,)."""
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, phi, V, abias, pose, VN)
    L, _, _, R, p, _ = frame_placement(fi, fnode, frame_node, fr, q, f)
    frame_world_pose(pose, L, R, p, T)


@njit(cache=True)
def flex_frame_jacobian(mi, mf, ws, fi, fnode, frame_node, fr, q, u0, phi, V, abias, pose, VN, f, B, T, J):
    """J (6, nu), zero on entry: u -> [w; v] of frame row f in its own axes (v: its origin's
    velocity); T (4x4): its world pose. u0: zeros (nu,); B: scratch of 12 max(nb). Returns
    the frame's origin about its tree's root origin (world axes; 0 for a frame on the world):
    what a difference of two frames' positions needs, which T's far out has lost."""
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, phi, V, abias, pose, VN)
    L, _, R, p, _ = frame_map(mi, fi, fnode, frame_node, fr, q, f, B)
    frame_world_pose(pose, L, R, p, T)
    if L >= 0:
        origin = (_frame_origin(pose, L, p, FL.POSE_PT, 0), _frame_origin(pose, L, p, FL.POSE_PT, 1),
                  _frame_origin(pose, L, p, FL.POSE_PT, 2))
    else:
        origin = (0.0, 0.0, 0.0)
    half = B.shape[0] // 2
    src = 0
    i = L
    while i >= 0:
        nb, nu = fi[i, FL.NB], mi[i, NU]
        u0i = mi[i, UOFF]
        for r in range(6):  # J[:, speeds of i] = B H_i^T: B[:, :6] S, then B's modal columns
            for k in range(nu):
                s = 0.0
                for m in range(6):
                    s += B[src + r * nb + m] * mf[i, S_COLS + 6 * k + m]
                J[r, u0i + k] = s
            for k in range(nb - 6):
                J[r, u0i + nu + k] = B[src + r * nb + 6 + k]
        p_ = mi[i, PARENT]
        if p_ >= 0:  # B <- B[:, :6] Phi_i^T
            nbp = fi[p_, FL.NB]
            o = fi[i, FL.PHI]
            dst = half - src
            for r in range(6):
                for c in range(nbp):
                    s = 0.0
                    for m in range(6):
                        s += B[src + r * nb + m] * phi[o + m * nbp + c]
                    B[dst + r * nbp + c] = s
            src = dst
        i = p_
    return origin


@njit(cache=True)
def flex_frame_velocity_acceleration(mi, mf, ws, fi, fnode, frame_node, fr, q, u, udot, phi, V, A, abias, pose, VN,
                                     f, B, out):
    """out[0:6] = [w; v] of frame row f, out[6:12] its spatial acceleration (the rate of
    [w; v], gravity not included), both in its own axes; B: scratch of 6 max(nb)."""
    n = mi.shape[0]
    flex_kinematics(mi, mf, ws, fi, fnode, q, u, phi, V, abias, pose, VN)
    for k in range(n):  # A_k = Phi^T A_p + S udot + abias; eta'' on the modal rows
        p = mi[k, PARENT]
        vo = fi[k, FL.VOFF]
        nbp = fi[p, FL.NB] if p >= 0 else 0
        vp = fi[p, FL.VOFF] if p >= 0 else 0
        o = fi[k, FL.PHI]
        u0 = mi[k, UOFF]
        for r in range(6):
            s = abias[vo + r]
            for c in range(nbp):
                s += phi[o + r * nbp + c] * A[vp + c]
            for c in range(mi[k, NU]):
                s += mf[k, S_COLS + 6 * c + r] * udot[u0 + c]
            A[vo + r] = s
        um = fi[k, FL.UM]
        for i in range(fi[k, FL.NM]):
            A[vo + 6 + i] = udot[um + i]
    L, a, R, p, th = frame_map(mi, fi, fnode, frame_node, fr, q, f, B)
    if L < 0:
        for r in range(12):
            out[r] = 0.0
        return
    nb = fi[L, FL.NB]
    vo = fi[L, FL.VOFF]
    for r in range(6):
        s = 0.0
        t = 0.0
        for c in range(nb):
            s += B[r * nb + c] * V[vo + c]
            t += B[r * nb + c] * A[vo + c]
        out[r] = s
        out[6 + r] = t
    if a >= 0:  # the node's own velocity-product acceleration
        nm = nb - 6
        w = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        thd = (0.0, 0.0, 0.0)
        pi = a + FL.N_PI
        for i in range(nm):  # w = Psi eta', theta' = Pi_r eta'
            e = V[vo + 6 + i]
            w = (w[0] + B[6 + i] * e, w[1] + B[nb + 6 + i] * e, w[2] + B[2 * nb + 6 + i] * e,
                 w[3] + B[3 * nb + 6 + i] * e, w[4] + B[4 * nb + 6 + i] * e, w[5] + B[5 * nb + 6 + i] * e)
            thd = (thd[0] + fnode[pi + i] * e, thd[1] + fnode[pi + nm + i] * e, thd[2] + fnode[pi + 2 * nm + i] * e)
        vn = (out[0], out[1], out[2], out[3], out[4], out[5])
        b = node_velocity_product(fnode, a, th, thd, vn, w)
        for r in range(6):
            out[6 + r] += b[r]
