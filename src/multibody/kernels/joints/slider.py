"""SLIDER (prismatic): translation by q [m] along a unit axis; nq = nu = 1, coordinate maps
Euclidean (``euclidean``)."""
import numpy as np
from numba import njit

from ..layout import AXIS
from .group_maps import IDENTITY_ROTATION


def motion_subspace(axis):
    """S (6, 1) = [0; axis]."""
    return np.concatenate([np.zeros(3), axis])[:, None]


def u_from_qdot(qj, chart):
    """N+ (nu, nq) with u = N+ q_dot: the identity (q_dot = u)."""
    return np.eye(1)


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i]."""
    d = q[i]
    return IDENTITY_ROTATION, (mf[j, AXIS] * d, mf[j, AXIS + 1] * d, mf[j, AXIS + 2] * d)
