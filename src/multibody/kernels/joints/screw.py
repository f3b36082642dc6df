"""SCREW (helical): rotation q [rad] about a unit axis with translation pitch*q [m] along
it (``layout.PITCH``); nq = nu = 1, coordinate maps Euclidean (``euclidean``)."""
import numpy as np
from numba import njit

from ..layout import AXIS, PITCH
from ..spatial_inline import rot_axis_angle


def motion_subspace(axis, pitch):
    """S (6, 1) = [axis; pitch axis]."""
    return np.concatenate([axis, pitch * axis])[:, None]


def u_from_qdot(qj, chart):
    """N+ (nu, nq) with u = N+ q_dot: the identity (q_dot = u)."""
    return np.eye(1)


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i]."""
    d = mf[j, PITCH] * q[i]
    return (rot_axis_angle(mf[j, AXIS], mf[j, AXIS + 1], mf[j, AXIS + 2], q[i]),
            (mf[j, AXIS] * d, mf[j, AXIS + 1] * d, mf[j, AXIS + 2] * d))
