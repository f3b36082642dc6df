"""FREE (6-dof): q = [rotation vector v in a re-centred chart (as ``spherical``); position p
of the link origin in the o-frame], u = [w; v_lin] of the link in its own frame.

* p_dot = R v_lin; the step is the exact SE(3) motion T' = T exp([w; v_lin] dt), its rotation
  ``spherical``'s, its position p' = p + R Jl(w dt) v_lin dt;
* Munthe-Kaas: dexp^-1 on SE(3) (series, rotation part closed form);
* the chart as ``spherical``'s (its functions serve FREE unchanged).
"""
import numpy as np
from numba import njit

from ...spatial import quat_to_matrix, so3_exp
from . import spherical
from ..spatial_inline import mul33_vec
from .group_maps import jr_inv_times, se3_dexp_inv, se3_translation, so3_rotvec_step

chart_angle = spherical.chart_angle
recentre_chart = spherical.recentre_chart
to_start_chart = spherical.to_start_chart


def motion_subspace():
    """S (6, 6) = I."""
    return np.eye(6)


def u_from_qdot(qj, chart):
    """N+ (6, 6) = diag(Jr(v), R^T), R = R(chart) exp(v) (NumPy; ``chart`` the offset (x, y, z, w))."""
    N = np.zeros((6, 6))
    N[:3, :3] = spherical.u_from_qdot(qj[:3], chart)
    N[3:, 3:] = (quat_to_matrix(chart) @ so3_exp(qj[:3])).T
    return N


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i:i+6]."""
    return spherical.chart_rotation(ws, j, q[i], q[i + 1], q[i + 2]), (q[i + 3], q[i + 4], q[i + 5])


@njit(cache=True, _nrt=False)
def qdot(ws, q, u, out, i, k, j):
    """out[i:i+6] = [Jr(v)^-1 w; R v_lin]."""
    d = jr_inv_times(q[i], q[i + 1], q[i + 2], u[k], u[k + 1], u[k + 2])
    R = spherical.chart_rotation(ws, j, q[i], q[i + 1], q[i + 2])
    p = mul33_vec(R, u[k + 3], u[k + 4], u[k + 5])
    for r in range(3):
        out[i + r] = d[r]
        out[i + 3 + r] = p[r]


@njit(cache=True, _nrt=False)
def integrate(ws, q, u, dt, out, i, k, j):
    """out[i:i+6] = q (+) u dt on SE(3) (out may alias q: R and p are read first)."""
    R = spherical.chart_rotation(ws, j, q[i], q[i + 1], q[i + 2])
    t = se3_translation(R, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5], dt)
    p = (q[i + 3] + t[0], q[i + 4] + t[1], q[i + 5] + t[2])
    v = so3_rotvec_step(q[i], q[i + 1], q[i + 2], u[k], u[k + 1], u[k + 2], dt)
    for r in range(3):
        out[i + r] = v[r]
        out[i + 3 + r] = p[r]


@njit(cache=True, _nrt=False)
def dexp_inv(phi, u, out, k):
    """out[k:k+6] = dexp^-1_{-phi}(u) on SE(3)."""
    d = se3_dexp_inv(phi[k], phi[k + 1], phi[k + 2], phi[k + 3], phi[k + 4], phi[k + 5],
                     u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5])
    for r in range(6):
        out[k + r] = d[r]
