"""Velocity and acceleration of a frame fixed on a link (no gravity).

Outward pass as in RNEA but without the -g base acceleration:
v_j = X_j v_p + S_j u_j, a_j = X_j a_p + S_j udot_j + v_j x (S_j u_j).
The frame F at (R, p) on link L then has v_F = X_FL v_L and a_F = X_FL a_L
(spatial quantities: a_F is the rate of change of F's spatial velocity).
"""
from numba import njit

from .common import (
    check_state, data_start, joint_motion, joint_motion_add, frame_table, link_rows, model_arrays, result_status,
)
from .joint_transform import place_links
from .layout import FR_LINK, FR_P, FR_R, PARENT, W_A, W_C, W_V
from .spatial_inline import cross_motion_add, motion_to_child


@njit(cache=True, inline="always")
def _to_frame(ws, link, off, fr, f, out, o):
    """out[o:o+6] = X_FL ws[link, off:off+6] for frame row f on the link."""
    wx = ws[link, off]
    wy = ws[link, off + 1]
    wz = ws[link, off + 2]
    lx = ws[link, off + 3] + wy * fr[f, FR_P + 2] - wz * fr[f, FR_P + 1]
    ly = ws[link, off + 4] + wz * fr[f, FR_P] - wx * fr[f, FR_P + 2]
    lz = ws[link, off + 5] + wx * fr[f, FR_P + 1] - wy * fr[f, FR_P]
    for k in range(3):
        out[o + k] = fr[f, FR_R + k] * wx + fr[f, FR_R + 3 + k] * wy + fr[f, FR_R + 6 + k] * wz
        out[o + 3 + k] = fr[f, FR_R + k] * lx + fr[f, FR_R + 3 + k] * ly + fr[f, FR_R + 6 + k] * lz


@njit(cache=True)
def frame_velocity_acceleration(dbuf, q, u, udot, f, out):
    """out[0:6] = spatial velocity [w; v], out[6:12] = spatial acceleration of frame row f,
    both in the frame's axes. Returns a ``check_state`` status for (q, u, udot), or OVERFLOW."""
    mi, mf = model_arrays(dbuf)
    fr = frame_table(dbuf, mi.shape[0])
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    ws = link_rows(dbuf, d0, n)
    link = int(fr[f, FR_LINK])
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
    _to_frame(ws, link, W_V, fr, f, out, 0)
    _to_frame(ws, link, W_A, fr, f, out, 6)
    return result_status(0, out)
