"""SPHERICAL (ball): 3-dof rotation in minimal rotation-vector coordinates v = q[i:i+3] in a
re-centred chart: R = R(chart offset) exp([v]x), the offset a unit quaternion kept with the
state (``layout.W_CHART``); u = the angular velocity in the link frame.

* q_dot = Jr(v)^-1 w; the step v' = log(exp(v) exp(w dt)) within the same chart;
* Munthe-Kaas: phi_dot = Jr(phi)^-1 w;
* the chart is re-centred past an angle (offset <- offset exp(v), v <- 0: R unchanged),
  keeping v away from the 2 pi singularity of the rotation-vector map; a run's controls see
  v in the charts it started with (``to_start_chart``).

FREE (``free``) uses these for its rotation.
"""
import math

import numpy as np
from numba import njit

from ..layout import W_CHART
from ...spatial import so3_right_jacobian
from ..spatial_inline import mul33, rot_quat, rot_rotvec
from .group_maps import chart_change, chart_recentred, jr_inv_times, so3_rotvec_step


def motion_subspace():
    """S (6, 3) = [I; 0]."""
    return np.vstack([np.eye(3), np.zeros((3, 3))])


def u_from_qdot(qj, chart):
    """N+ (3, 3) = Jr(v) for v = qj (NumPy; ``chart`` unused: Jr depends on v alone)."""
    return so3_right_jacobian(qj)


@njit(cache=True, _nrt=False)
def chart_rotation(ws, j, vx, vy, vz):
    """R(chart offset of link j, a data state) exp([v]x) as a 9-tuple."""
    E = rot_rotvec(vx, vy, vz)
    x = ws[j, W_CHART]
    y = ws[j, W_CHART + 1]
    z = ws[j, W_CHART + 2]
    if x == 0.0 and y == 0.0 and z == 0.0:
        return E
    return mul33(rot_quat(x, y, z, ws[j, W_CHART + 3]), E)


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i:i+3]."""
    return chart_rotation(ws, j, q[i], q[i + 1], q[i + 2]), (0.0, 0.0, 0.0)


@njit(cache=True, _nrt=False)
def qdot(ws, q, u, out, i, k, j):
    """out[i:i+3] = Jr(v)^-1 u[k:k+3]."""
    d = jr_inv_times(q[i], q[i + 1], q[i + 2], u[k], u[k + 1], u[k + 2])
    out[i] = d[0]
    out[i + 1] = d[1]
    out[i + 2] = d[2]


@njit(cache=True, _nrt=False)
def integrate(ws, q, u, dt, out, i, k, j):
    """out[i:i+3] = log(exp(v) exp(w dt)), w = u[k:k+3] (out may alias q)."""
    v = so3_rotvec_step(q[i], q[i + 1], q[i + 2], u[k], u[k + 1], u[k + 2], dt)
    out[i] = v[0]
    out[i + 1] = v[1]
    out[i + 2] = v[2]


@njit(cache=True, _nrt=False)
def dexp_inv(phi, u, out, k):
    """out[k:k+3] = Jr(phi)^-1 u: the Munthe-Kaas rate on SO(3)."""
    d = jr_inv_times(phi[k], phi[k + 1], phi[k + 2], u[k], u[k + 1], u[k + 2])
    out[k] = d[0]
    out[k + 1] = d[1]
    out[k + 2] = d[2]


@njit(cache=True, _nrt=False)
def chart_angle(q, i):
    """|v|: the angle the chart is re-centred past."""
    return math.sqrt(q[i] * q[i] + q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2])


@njit(cache=True, _nrt=False)
def recentre_chart(ws, q, i, j):
    """offset <- offset (x) exp(v) (normalised), v <- 0: the rotation is unchanged."""
    c = chart_recentred(ws[j, W_CHART], ws[j, W_CHART + 1], ws[j, W_CHART + 2], ws[j, W_CHART + 3],
                        q[i], q[i + 1], q[i + 2])
    for r in range(4):
        ws[j, W_CHART + r] = c[r]
    q[i] = 0.0
    q[i + 1] = 0.0
    q[i + 2] = 0.0


@njit(cache=True, _nrt=False)
def to_start_chart(ws, chart0, q, out, i, j):
    """out[i:i+3] = v (in link j's current chart) re-expressed in the chart chart0[j] of the
    start of the run; out[i:i+3] is q's already (copied by the caller), kept where the
    chart has not moved."""
    same = True
    for r in range(4):
        if ws[j, W_CHART + r] != chart0[j, r]:
            same = False
    if not same:
        v = chart_change(ws[j, W_CHART], ws[j, W_CHART + 1], ws[j, W_CHART + 2], ws[j, W_CHART + 3],
                         chart0[j, 0], chart0[j, 1], chart0[j, 2], chart0[j, 3], q[i], q[i + 1], q[i + 2])
        out[i] = v[0]
        out[i + 1] = v[1]
        out[i + 2] = v[2]
