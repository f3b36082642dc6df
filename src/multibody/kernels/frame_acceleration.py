"""Velocity and acceleration of a frame fixed on a link (no gravity).

Outward pass as in RNEA but without the -g base acceleration:
v_j = X_j v_p + S_j u_j, a_j = X_j a_p + S_j udot_j + v_j x (S_j u_j).
The frame F at (R, p) on link L then has v_F = X_FL v_L and a_F = X_FL a_L
(spatial quantities: a_F is the rate of change of F's spatial velocity).
"""
from numba import njit

from .common import check_state, joint_motion, joint_motion_add, split_buffer
from .joint_transform import place_links
from .layout import PARENT, W_A, W_C, W_V
from .spatial_inline import cross_motion_add, motion_to_child


@njit(cache=True, inline="always")
def _to_frame(ws, link, off, T_lf, out, o):
    """out[o:o+6] = X_FL ws[link, off:off+6] for the frame at T_lf on the link."""
    wx = ws[link, off]
    wy = ws[link, off + 1]
    wz = ws[link, off + 2]
    lx = ws[link, off + 3] + wy * T_lf[2, 3] - wz * T_lf[1, 3]
    ly = ws[link, off + 4] + wz * T_lf[0, 3] - wx * T_lf[2, 3]
    lz = ws[link, off + 5] + wx * T_lf[1, 3] - wy * T_lf[0, 3]
    for k in range(3):
        out[o + k] = T_lf[0, k] * wx + T_lf[1, k] * wy + T_lf[2, k] * wz
        out[o + 3 + k] = T_lf[0, k] * lx + T_lf[1, k] * ly + T_lf[2, k] * lz


@njit(cache=True)
def frame_velocity_acceleration(buf, q, u, udot, link, T_lf, out):
    """out[0:6] = spatial velocity [w; v], out[6:12] = spatial acceleration of the frame,
    both in the frame's axes. Returns 0 or a ``check_state`` status for (q, u, udot)."""
    mi, mf, ws = split_buffer(buf)
    st = check_state(mi, q, u, udot, 1, 1)
    if st:
        return st
    place_links(mi, mf, ws, q)
    for j in range(mi.shape[0]):
        p = mi[j, PARENT]
        if p < 0:
            for k in range(6):
                ws[j, W_V + k] = 0.0
                ws[j, W_A + k] = 0.0
        else:
            motion_to_child(ws, j, ws, p, W_V, ws, j, W_V)
            motion_to_child(ws, j, ws, p, W_A, ws, j, W_A)
        joint_motion(mi, mf, j, u, ws, j, W_C)
        for k in range(6):
            ws[j, W_V + k] += ws[j, W_C + k]
        joint_motion_add(mi, mf, j, udot, ws, j, W_A)
        cross_motion_add(ws, j, W_V, ws, j, W_C, ws, j, W_A)
    if link < 0:
        for k in range(12):
            out[k] = 0.0
        return 0
    _to_frame(ws, link, W_V, T_lf, out, 0)
    _to_frame(ws, link, W_A, T_lf, out, 6)
    return 0
