"""TRANSLATIONAL: 3-dof translation, q = the position of the link origin in the o-frame,
u = q_dot; coordinate maps Euclidean (``euclidean``)."""
import numpy as np
from numba import njit

from .group_maps import IDENTITY_ROTATION


def motion_subspace():
    """S (6, 3) = [0; I]."""
    return np.vstack([np.zeros((3, 3)), np.eye(3)])


def u_from_qdot(qj, chart):
    """N+ (nu, nq) with u = N+ q_dot: the identity (q_dot = u)."""
    return np.eye(3)


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i:i+3]."""
    return IDENTITY_ROTATION, (q[i], q[i + 1], q[i + 2])
