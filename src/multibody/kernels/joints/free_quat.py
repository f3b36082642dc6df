"""FREE_QUAT (6-dof): q = [unit quaternion (x, y, z, w) (as ``spherical_quat``); position p of
the link origin in the o-frame], u = [w; v_lin] of the link in its own frame.

* q_dot = [1/2 q (x) [w; 0]; R v_lin]; the step is the exact SE(3) motion, its rotation
  ``spherical_quat``'s, its position p' = p + R Jl(w dt) v_lin dt;
* Munthe-Kaas: dexp^-1 on SE(3) (as ``free``);
* the quaternion's check and normalisation as ``spherical_quat``'s.
"""
import numpy as np
from numba import njit

from ...spatial import quat_to_matrix
from ..spatial_inline import mul33_vec, rot_quat
from . import free, spherical_quat
from .group_maps import quat_mul, quat_step, se3_translation

unit_quaternion = spherical_quat.unit_quaternion
normalize = spherical_quat.normalize


def motion_subspace():
    """S (6, 6) = I."""
    return np.eye(6)


def u_from_qdot(qj, chart):
    """N+ (6, 7) = diag(spherical_quat's, R^T), R of the normalised quaternion (NumPy)."""
    N = np.zeros((6, 7))
    N[:3, :4] = spherical_quat.u_from_qdot(qj[:4], chart)
    N[3:, 4:] = quat_to_matrix(qj[:4] / np.linalg.norm(qj[:4])).T
    return N


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i:i+7]."""
    return rot_quat(q[i], q[i + 1], q[i + 2], q[i + 3]), (q[i + 4], q[i + 5], q[i + 6])


@njit(cache=True, _nrt=False)
def qdot(ws, q, u, out, i, k, j):
    """out[i:i+7] = [1/2 q (x) [w; 0]; R v_lin]."""
    d4 = quat_mul(q[i], q[i + 1], q[i + 2], q[i + 3], u[k], u[k + 1], u[k + 2], 0.0)
    R = rot_quat(q[i], q[i + 1], q[i + 2], q[i + 3])
    p = mul33_vec(R, u[k + 3], u[k + 4], u[k + 5])
    for r in range(4):
        out[i + r] = 0.5 * d4[r]
    for r in range(3):
        out[i + 4 + r] = p[r]


@njit(cache=True, _nrt=False)
def integrate(ws, q, u, dt, out, i, k, j):
    """out[i:i+7] = q (+) u dt on SE(3) (out may alias q: R and p are read first)."""
    R = rot_quat(q[i], q[i + 1], q[i + 2], q[i + 3])
    t = se3_translation(R, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5], dt)
    p = (q[i + 4] + t[0], q[i + 5] + t[1], q[i + 6] + t[2])
    c = quat_step(q[i], q[i + 1], q[i + 2], q[i + 3], u[k], u[k + 1], u[k + 2], dt)
    for r in range(4):
        out[i + r] = c[r]
    for r in range(3):
        out[i + 4 + r] = p[r]


dexp_inv = free.dexp_inv  # SE(3)'s, as FREE's
