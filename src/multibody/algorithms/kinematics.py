"""Kinematics of frames (bodies and nodes): poses, Jacobians, velocities, accelerations.

Free functions of a Multibody ``m`` (its methods of the same names are these
functions); ``data`` and the errors for bad input (read-only arrays accepted, overflow
refused) as in ``dynamics``.
"""
import numpy as np

from ..kernels.status import OVERFLOW
from .checks import (
    check_result, check_vector, data_object, frame_row, raise_status, refuse_zero_quaternions, run_kernel,
)


def body_pose(m, q, body, data=None):
    """T_world_body (4, 4): the pose of a body (or node) frame in the world.

    Stacked q (B, nq) gives stacked poses (B, 4, 4), computed in parallel (``batch``)."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.body_pose(m, q, body)
    c = m.compiled
    dbuf = data_object(c, data).buf
    q = check_vector(q, c.nq, "q", c)
    out = np.empty((4, 4))
    st = run_kernel(c, q, c.kernels.frame_pose, dbuf, q, frame_row(c, body), out)
    if st:  # (a model with modal bodies: its c.kernels are the flex ones, a node deformed)
        raise_status(c, st, ("q",), (q,))
    return out


def body_jacobian(m, q, body, frame="body", data=None):
    """J (6, nu) mapping u to the spatial velocity [w; v] of a body (or node) frame.

    frame="body": w and v (velocity of the frame origin) in the frame's own axes;
    "world_aligned": the same vectors in world axes; "world": the spatial velocity
    in world coordinates (v is the velocity of the world-origin point moving with the body).
    Stacked q (B, nq) with frame="body" gives stacked Jacobians (B, 6, nu) (``batch``).
    A node on a modal body moves with its mode shapes: its columns of the body's modal
    rates are nonzero (``kernels/flex_jacobian.py``).
    """
    if getattr(q, "ndim", 1) == 2 and data is None and frame == "body":
        from . import batch
        return batch.body_jacobian(m, q, body)
    c = m.compiled
    dbuf = data_object(c, data).buf
    q = check_vector(q, c.nq, "q", c)
    f = frame_row(c, body)
    if frame not in ("body", "world_aligned", "world"):
        raise ValueError(f"frame must be 'body', 'world_aligned' or 'world', got {frame!r}")
    J = np.zeros((6, c.nu))
    T_wf = np.empty((4, 4))
    st = run_kernel(c, q, c.kernels.frame_jacobian, dbuf, q, f, T_wf, J)
    if st:
        raise_status(c, st, ("q",), (q,))
    if frame == "body":
        return J
    R = T_wf[:3, :3]
    Jw = np.vstack([R @ J[:3], R @ J[3:]])
    if frame == "world":
        Jw[3:] += np.cross(T_wf[:3, 3], Jw[:3], axis=0)
    return check_result(c, Jw, ("q",), (q,))


def _velocity_acceleration(m, q, u, udot, body, data):
    """[velocity; acceleration] (12,) of a frame; udot None: ``body_velocity``'s call (udot = 0,
    and the velocity alone is the result: only its overflow is an error)."""
    c = m.compiled
    dbuf = data_object(c, data).buf
    q, u = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c)
    if udot is None:
        names, args, udot = ("q", "u"), (q, u), np.zeros(c.nu)
    else:
        udot = check_vector(udot, c.nu, "udot", c)
        names, args = ("q", "u", "udot"), (q, u, udot)
    out = np.empty(12)
    st = run_kernel(c, q, c.kernels.frame_velocity_acceleration, dbuf, q, u, udot, frame_row(c, body), out)
    if st and st != OVERFLOW:
        raise_status(c, st, ("q", "u", "udot"), (q, u, udot))
    check_result(c, out if len(names) == 3 else out[:6], names, args)
    return out


def body_velocity(m, q, u, body, data=None):
    """[w; v] (6,) of a body (or node) frame, in its own axes (v: its origin's velocity)."""
    return _velocity_acceleration(m, q, u, None, body, data)[:6].copy()


def body_acceleration(m, q, u, udot, body, kind="spatial", data=None):
    """Acceleration (6,) of a body (or node) frame, in its own axes (gravity not included).

    kind="spatial": [dw/dt; dv/dt], the rate of change of the frame's spatial velocity
    [w; v] (v: velocity of the point at the frame origin); kind="classical": [dw/dt; a]
    with a = dv/dt + w x v the acceleration of the frame origin itself.
    """
    if kind not in ("spatial", "classical"):
        raise ValueError(f"kind must be 'spatial' or 'classical', got {kind!r}")
    out = _velocity_acceleration(m, q, u, udot, body, data)
    acc = out[6:].copy()
    if kind == "classical":
        acc[3:] += np.cross(out[:3], out[3:6])
        check_result(m.compiled, acc, ("q", "u", "udot"), (q, u, udot))
    return acc


def u_from_qdot_matrix(m, q, data=None):
    """The (nu, nq) matrix N+ with u = N+(q) q_dot (exact for q_dot tangent to the
    quaternion constraint). Identity for scalar and translational coordinates. q's
    quaternions are normalised here; a zero one (no rotation) raises ValueError naming it."""
    from .coordinate_maps import u_from_qdot_matrix as n_plus
    c = m.compiled
    q = check_vector(q, c.nq, "q", c)
    refuse_zero_quaternions(c, q)  # (normalised here; a zero one is no rotation)
    return n_plus(c, data_object(c, data), q)


def pose_gradient(m, q, body, data=None):
    """G (6, nq): derivative of the frame pose with respect to the coordinates q.

    For a small change dq, G dq = [d_theta; d_p] where d_theta (3,) is the rotation
    vector of R(q + dq) R(q)^T (world axes) and d_p (3,) the change of the frame
    origin in the world. It is the coordinate-space counterpart of the Jacobian:
    G = J_world_aligned(q) N+(q).
    Stacked q (B, nq) gives stacked gradients (B, 6, nq) (``batch``), each equal bit for bit
    to its single call's.
    """
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.pose_gradient(m, q, body, single=pose_gradient)
    return body_jacobian(m, q, body, "world_aligned", data) @ u_from_qdot_matrix(m, q, data)
