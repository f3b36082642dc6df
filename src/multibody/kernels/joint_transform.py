"""Placement of each link in its parent link frame, and world placements.

For link j, the joint o-frame sits at (R_TREE, P_TREE) in the parent link frame
and the subhinge moves the link frame relative to the o-frame by (R_J(q), p_J(q)).
The link's placement in its parent is their composition:
R = R_tree R_J, p = p_tree + R_tree p_J.
"""
from numba import njit

from .layout import (
    AXIS, CHART, FREE, FREE_QUAT, KIND, P_TREE, PARENT, PIN, PITCH, QOFF, R_TREE, SCREW,
    SLIDER, SPHERICAL, SPHERICAL_QUAT, TRANSLATIONAL, W_P, W_PW, W_R, W_RW,
)
from .spatial_inline import mat33_mul, mat33_vec, rot_from_axis_angle, rot_from_quat, rot_from_rotvec


@njit(cache=True)
def link_placement(mi, mf, ws, q, j):
    """Write R_parent_link (W_R) and p_parent_link (W_P) of link j into ws."""
    kind = mi[j, KIND]
    i0 = mi[j, QOFF]
    RJ = ws[j, W_RW:W_RW + 9]  # scratch: the world rotation is written later
    tmp = ws[j, W_R:W_R + 9]
    pj0 = 0.0
    pj1 = 0.0
    pj2 = 0.0
    if kind == PIN:
        rot_from_axis_angle(mf[j, AXIS], mf[j, AXIS + 1], mf[j, AXIS + 2], q[i0], RJ)
    elif kind == SLIDER:
        for k in range(9):
            RJ[k] = 0.0
        RJ[0] = RJ[4] = RJ[8] = 1.0
        pj0 = mf[j, AXIS] * q[i0]
        pj1 = mf[j, AXIS + 1] * q[i0]
        pj2 = mf[j, AXIS + 2] * q[i0]
    elif kind == SCREW:
        rot_from_axis_angle(mf[j, AXIS], mf[j, AXIS + 1], mf[j, AXIS + 2], q[i0], RJ)
        d = mf[j, PITCH] * q[i0]
        pj0 = mf[j, AXIS] * d
        pj1 = mf[j, AXIS + 1] * d
        pj2 = mf[j, AXIS + 2] * d
    elif kind == SPHERICAL or kind == FREE:
        _chart_times_exp_into(mf, j, q[i0], q[i0 + 1], q[i0 + 2], RJ, tmp)
        if kind == FREE:
            pj0 = q[i0 + 3]
            pj1 = q[i0 + 4]
            pj2 = q[i0 + 5]
    elif kind == SPHERICAL_QUAT or kind == FREE_QUAT:
        rot_from_quat(q[i0], q[i0 + 1], q[i0 + 2], q[i0 + 3], RJ)
        if kind == FREE_QUAT:
            pj0 = q[i0 + 4]
            pj1 = q[i0 + 5]
            pj2 = q[i0 + 6]
    elif kind == TRANSLATIONAL:
        for k in range(9):
            RJ[k] = 0.0
        RJ[0] = RJ[4] = RJ[8] = 1.0
        pj0 = q[i0]
        pj1 = q[i0 + 1]
        pj2 = q[i0 + 2]
    RT = mf[j, R_TREE:R_TREE + 9]
    mat33_mul(RT, RJ, tmp)  # tmp is W_R: R = R_tree R_J
    mat33_vec(RT, pj0, pj1, pj2, ws[j], W_P)
    ws[j, W_P] += mf[j, P_TREE]
    ws[j, W_P + 1] += mf[j, P_TREE + 1]
    ws[j, W_P + 2] += mf[j, P_TREE + 2]


@njit(cache=True)
def _chart_times_exp_into(mf, j, vx, vy, vz, out, scratch9):
    """out = R(chart_j) exp([v]x), using scratch9 (9 entries) as temporary space.

    Computed as exp first (into scratch9), then the chart product row by row,
    so only one 9-entry scratch is needed.
    """
    rot_from_rotvec(vx, vy, vz, scratch9)
    x = mf[j, CHART]
    y = mf[j, CHART + 1]
    z = mf[j, CHART + 2]
    w = mf[j, CHART + 3]
    if x == 0.0 and y == 0.0 and z == 0.0:
        for k in range(9):
            out[k] = scratch9[k]
        return
    rot_from_quat(x, y, z, w, out)
    c00, c01, c02 = out[0], out[1], out[2]
    c10, c11, c12 = out[3], out[4], out[5]
    c20, c21, c22 = out[6], out[7], out[8]
    for col in range(3):
        e0 = scratch9[col]
        e1 = scratch9[3 + col]
        e2 = scratch9[6 + col]
        out[col] = c00 * e0 + c01 * e1 + c02 * e2
        out[3 + col] = c10 * e0 + c11 * e1 + c12 * e2
        out[6 + col] = c20 * e0 + c21 * e1 + c22 * e2


@njit(cache=True)
def forward_kinematics_pass(mi, mf, ws, q):
    """Placements of every link in its parent (W_R, W_P) and in the world (W_RW, W_PW)."""
    n = mi.shape[0]
    for j in range(n):
        link_placement(mi, mf, ws, q, j)
        p = mi[j, PARENT]
        if p < 0:
            for k in range(9):
                ws[j, W_RW + k] = ws[j, W_R + k]
            for k in range(3):
                ws[j, W_PW + k] = ws[j, W_P + k]
        else:
            mat33_mul(ws[p, W_RW:W_RW + 9], ws[j, W_R:W_R + 9], ws[j, W_RW:W_RW + 9])
            mat33_vec(ws[p, W_RW:W_RW + 9], ws[j, W_P], ws[j, W_P + 1], ws[j, W_P + 2], ws[j], W_PW)
            for k in range(3):
                ws[j, W_PW + k] += ws[p, W_PW + k]
