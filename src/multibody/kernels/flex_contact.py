"""Contact geometry of models with modal (flexible) bodies (issue 21): where their shapes
are, and the contact rows J of the Moreau-Jean step (``simulation/contact_loop``'s ``flex``
variant) and of ``m.contacts(q)``.

A shape is fixed in a model frame (``ContactModel.frames``): a node of its body (the shape
pinned there, ``m.add_collision(..., node=)``), or the body frame. Its world pose is that
frame's, deformed (``flex_jacobian.frame_placement``: the node at p0 + Pi_t eta, turned by
exp(Pi_r eta)), composed with the shape's pose in the frame. ``flex_shape_placements``
writes the frames' world poses into the rows W_RW, W_PW of a placement array, one row per
shape, so detection (``collision/detect``, unchanged) reads shape k as on "link" k
(``ContactModel.si_frame``, ``sf_frame``).

A contact's rows are those of the velocity of b's material point at the contact point p
minus a's: for a shape in frame F with body Jacobian J_F = [J_w; J_v] (F's axes, F's origin;
``flex_jacobian.flex_frame_jacobian``, the node's modal columns Psi_N included, so the
contact impulses reach the modes), the point moves with v_F + w_F x r (r = R_F^T (p - o_F)),
and a direction e (world) gives the row (R_F^T e) . J_v + (r x R_F^T e) . J_w.
"""
from numba import njit

from .collision.detect import detect
from .collision.layout import CF_N, CF_P, CF_T1, CF_T2, CI_A, CI_B
from .common import check_state_modal_ok
from .flex_jacobian import flex_frame_jacobian, frame_placement, frame_world_pose
from .flex_kinematics import flex_kinematics
from .flex_views import flex_arrays
from .layout import W_PW, W_RW
from .status import OK

__all__ = ["flex_shape_placements", "flex_contact_jacobian", "flex_contacts_at", "PLACEMENT_COLS"]

#: columns of the placement array (rows W_RW, W_PW of each shape's frame)
PLACEMENT_COLS = W_PW + 3


@njit(cache=True)
def flex_shape_placements(dbuf, q, frames, wsx, T):
    """Row k of wsx (W_RW, W_PW): the world pose at q of the frame shape k is fixed in
    (frames[k]; a node deformed by its mode shapes); rows of shapes on the world (-1) are
    left alone. T: (4, 4) scratch."""
    a = flex_arrays(dbuf)
    flex_kinematics(a.mi, a.mf, a.ws, a.fi, a.fnode, q, a.zero, a.phi, a.V, a.abias, a.pose, a.VN)
    for k in range(frames.shape[0]):
        f = frames[k]
        if f < 0:
            continue
        L, _, _, R, p, _ = frame_placement(a.fi, a.fnode, a.frame_node, a.fr, q, f)
        frame_world_pose(a.pose, L, R, p, T)
        for r in range(3):
            for c in range(3):
                wsx[k, W_RW + 3 * r + c] = T[r, c]
            wsx[k, W_PW + r] = T[r, 3]


@njit(cache=True, inline="always")
def _direction_row(T, r0, r1, r2, e0, e1, e2, Jf, sign, J, row):
    """J[row] += sign ((R^T e) . J_v + (r x R^T e) . J_w): the velocity along the world
    direction e of the point at r (frame axes) of the frame at T (world pose) whose body
    Jacobian is Jf = [J_w; J_v]."""
    f0 = T[0, 0] * e0 + T[1, 0] * e1 + T[2, 0] * e2  # e in the frame's axes
    f1 = T[0, 1] * e0 + T[1, 1] * e1 + T[2, 1] * e2
    f2 = T[0, 2] * e0 + T[1, 2] * e1 + T[2, 2] * e2
    m0 = r1 * f2 - r2 * f1
    m1 = r2 * f0 - r0 * f2
    m2 = r0 * f1 - r1 * f0
    for k in range(J.shape[1]):
        J[row, k] += sign * (f0 * Jf[3, k] + f1 * Jf[4, k] + f2 * Jf[5, k]
                             + m0 * Jf[0, k] + m1 * Jf[1, k] + m2 * Jf[2, k])


@njit(cache=True)
def flex_contact_jacobian(dbuf, q, frames, ci, cf, nc, J, Jf, T):
    """J[:3 nc] (3 nc, nu): per contact c, the rows (n, t1, t2) of the velocity of shape b's
    material point minus shape a's at the contact point (module docstring), at q. Jf: (6, nu)
    scratch, T: (4, 4) scratch. A shape on the world adds nothing. One flex frame Jacobian
    (its kinematics pass included) per contact side: O(nc N nu)."""
    a = flex_arrays(dbuf)
    nu = J.shape[1]
    for r in range(3 * nc):
        for k in range(nu):
            J[r, k] = 0.0
    for c in range(nc):
        for side in range(2):
            f = frames[ci[c, CI_A]] if side == 0 else frames[ci[c, CI_B]]
            if f < 0:
                continue
            for r in range(6):
                for k in range(nu):
                    Jf[r, k] = 0.0
            flex_frame_jacobian(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, q, a.zero, a.phi, a.V,
                                a.abias, a.pose, a.VN, f, a.scratch, T, Jf)
            d0 = cf[c, CF_P] - T[0, 3]
            d1 = cf[c, CF_P + 1] - T[1, 3]
            d2 = cf[c, CF_P + 2] - T[2, 3]
            r0 = T[0, 0] * d0 + T[1, 0] * d1 + T[2, 0] * d2  # the lever arm in the frame's axes
            r1 = T[0, 1] * d0 + T[1, 1] * d1 + T[2, 1] * d2
            r2 = T[0, 2] * d0 + T[1, 2] * d1 + T[2, 2] * d2
            sign = -1.0 if side == 0 else 1.0
            for row in range(3):
                col = CF_N if row == 0 else (CF_T1 if row == 1 else CF_T2)
                _direction_row(T, r0, r1, r2, cf[c, col], cf[c, col + 1], cf[c, col + 2], Jf, sign, J, 3 * c + row)


@njit(cache=True)
def flex_contacts_at(dbuf, q, si, sf, verts, allow, frames, wsx, T, work, ci, cf, out):
    """``collision/entry.contacts_at`` for a model with modal bodies: the shapes placed
    through their frames (``flex_shape_placements``; si, sf: ``ContactModel.si_frame``,
    ``sf_frame``), then out[0] = ``detect``'s count. Returns a ``check_state`` status for q."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        flex_shape_placements(dbuf, q, frames, wsx, T)
        out[0] = detect(si, sf, verts, allow, wsx, work, ci, cf)
    return st
