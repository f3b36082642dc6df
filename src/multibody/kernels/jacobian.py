"""Frame Jacobians and frame kinematics.

For a frame F (a row of the model's frame table) fixed on link L at (R_LF, p_LF), the column of dof k of an
ancestor link i (or L itself) is the motion vector S_i[:, k] carried from
link i to F: with (R, p) the pose of link i in F,
    J[:, k] = [R w_k ; R v_k + p x (R w_k)].
"""
from numba import njit

from .common import check_state, data_start, frame_table, link_rows, model_arrays, result_status
from .joint_transform import forward_kinematics_pass, forward_kinematics_pin_pass
from .spatial_inline import world_subspace_column
from .layout import FR_LINK, FR_P, FR_R, NU, PARENT, UOFF, W_PR, W_PW, W_RW
from .variants import variant


@njit(cache=True, inline="always")
def frame_world_pose(ws, fr, f, out, at=W_PW):
    """out (4x4) = T_world_link T_link_frame for frame row f (its link -1 is the world);
    ``at`` = W_PR: the position from its link's tree root origin instead (world axes)."""
    link = int(fr[f, FR_LINK])
    for r in range(3):
        for c in range(3):
            if link < 0:
                out[r, c] = fr[f, FR_R + 3 * r + c]
            else:
                out[r, c] = (ws[link, W_RW + 3 * r] * fr[f, FR_R + c] + ws[link, W_RW + 3 * r + 1] * fr[f, FR_R + 3 + c]
                             + ws[link, W_RW + 3 * r + 2] * fr[f, FR_R + 6 + c])
        if link < 0:
            out[r, 3] = fr[f, FR_P + r]
        else:
            out[r, 3] = (ws[link, at + r] + ws[link, W_RW + 3 * r] * fr[f, FR_P]
                         + ws[link, W_RW + 3 * r + 1] * fr[f, FR_P + 1] + ws[link, W_RW + 3 * r + 2] * fr[f, FR_P + 2])
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@njit(cache=True, inline="always")
def _placed_at(dbuf, q, general):
    """(check_state's status of q, mi, mf, fr, ws), every link placed at q (the kinematics pass;
    ``general``: of any kind, else PIN links only) when q is good."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    fr = frame_table(dbuf, n)
    ws = link_rows(dbuf, data_start(dbuf, n), n)
    st = check_state(mi, q, q, q, -1, -1)
    if st == 0:
        if general:  # (a constant of the caller's variant)
            forward_kinematics_pass(mi, mf, ws, q)
        else:
            forward_kinematics_pin_pass(mi, mf, ws, q)
    return st, mi, mf, fr, ws


def _make_frame_kernels(general):
    """The checked entry points ``frame_pose`` and ``frame_jacobian`` for links of any kind
    (``general``) or their PIN-only variants (the kinematics pass of PIN links: the other
    kinds' placements are not compiled)."""

    @variant("frame_pose" if general else "frame_pose_pins")
    def frame_pose(dbuf, q, f, T_wf):
        """T_wf (4x4) = pose in the world of frame row f at q: a ``check_state`` status for q,
        or OVERFLOW."""
        st, mi, mf, fr, ws = _placed_at(dbuf, q, general)
        if st == 0:
            frame_world_pose(ws, fr, f, T_wf)
        return result_status(st, T_wf)

    @variant("frame_jacobian" if general else "frame_jacobian_pins")
    def frame_jacobian(dbuf, q, f, T_wf, J):
        """``frame_jacobian_core`` at q: a ``check_state`` status for q, or OVERFLOW."""
        st, mi, mf, fr, ws = _placed_at(dbuf, q, general)
        if st == 0:
            frame_jacobian_core(mi, mf, fr, ws, f, T_wf, J)
        return result_status(result_status(st, T_wf), J)

    return frame_pose, frame_jacobian


@njit(cache=True)
def frame_jacobian_core(mi, mf, fr, ws, f, T_wf, J):
    """J (6, nu): u -> [w; v] of frame row f (origin velocity), in the frame's axes, from the
    world placements of the links (W_RW, W_PR: the kinematics pass).

    Also writes the frame's world pose into T_wf. J must be zero on entry.
    """
    i = int(fr[f, FR_LINK])
    frame_world_pose(ws, fr, f, T_wf, W_PR)  # the lever arms below from the tree's root (W_PR) ...
    f0, f1, f2 = T_wf[0, 3], T_wf[1, 3], T_wf[2, 3]
    frame_world_pose(ws, fr, f, T_wf)  # ... never as differences of positions in the world
    while i >= 0:
        # pose of link i in the frame: R = R_wf^T R_wi, p = R_wf^T (p_wi - p_wf)
        e0 = ws[i, W_PR] - f0
        e1 = ws[i, W_PR + 1] - f1
        e2 = ws[i, W_PR + 2] - f2
        p0 = T_wf[0, 0] * e0 + T_wf[1, 0] * e1 + T_wf[2, 0] * e2
        p1 = T_wf[0, 1] * e0 + T_wf[1, 1] * e1 + T_wf[2, 1] * e2
        p2 = T_wf[0, 2] * e0 + T_wf[1, 2] * e1 + T_wf[2, 2] * e2
        u0 = mi[i, UOFF]
        for k in range(mi[i, NU]):
            # world-frame components of the column, then into frame axes
            w_w0, w_w1, w_w2, v_w0, v_w1, v_w2 = world_subspace_column(mf, ws, i, k)
            w0 = T_wf[0, 0] * w_w0 + T_wf[1, 0] * w_w1 + T_wf[2, 0] * w_w2
            w1 = T_wf[0, 1] * w_w0 + T_wf[1, 1] * w_w1 + T_wf[2, 1] * w_w2
            w2 = T_wf[0, 2] * w_w0 + T_wf[1, 2] * w_w1 + T_wf[2, 2] * w_w2
            v0 = T_wf[0, 0] * v_w0 + T_wf[1, 0] * v_w1 + T_wf[2, 0] * v_w2
            v1 = T_wf[0, 1] * v_w0 + T_wf[1, 1] * v_w1 + T_wf[2, 1] * v_w2
            v2 = T_wf[0, 2] * v_w0 + T_wf[1, 2] * v_w1 + T_wf[2, 2] * v_w2
            J[0, u0 + k] = w0
            J[1, u0 + k] = w1
            J[2, u0 + k] = w2
            J[3, u0 + k] = v0 + p1 * w2 - p2 * w1
            J[4, u0 + k] = v1 + p2 * w0 - p0 * w2
            J[5, u0 + k] = v2 + p0 * w1 - p1 * w0
        i = mi[i, PARENT]
    return 0


frame_pose, frame_jacobian = _make_frame_kernels(True)
frame_pose_pins, frame_jacobian_pins = _make_frame_kernels(False)  # PIN links only
