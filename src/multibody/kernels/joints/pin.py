"""PIN (revolute): rotation by q [rad] about a unit axis; nq = nu = 1, coordinate maps
Euclidean (``euclidean``). Compile frames the link so that the axis is its z axis
(``layout.AXIS``), which ``link_placement`` and the kernels' PIN fast paths rely on.
"""
import math

import numpy as np
from numba import njit

from ..layout import AXIS, P_TREE, QOFF, R_TREE, W_P, W_R
from ..spatial_inline import rot_axis_angle


def motion_subspace(axis):
    """S (6, 1) = [axis; 0]: angular velocity along the axis per unit u."""
    return np.concatenate([axis, np.zeros(3)])[:, None]


def u_from_qdot(qj, chart):
    """N+ (nu, nq) with u = N+ q_dot: the identity (q_dot = u)."""
    return np.eye(1)


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i]: the link frame in its joint o-frame."""
    return rot_axis_angle(mf[j, AXIS], mf[j, AXIS + 1], mf[j, AXIS + 2], q[i]), (0.0, 0.0, 0.0)


@njit(cache=True, inline="always")
def link_placement(mi, mf, ws, q, j):
    """W_R, W_P of a PIN link about z (see layout.AXIS): R = R_tree Rz(q), p = p_tree.

    Rz(q) mixes only the first two columns of R_tree: the common case's short path.
    """
    th = q[mi[j, QOFF]]
    c = math.cos(th)
    s = math.sin(th)
    for r in range(3):
        a = mf[j, R_TREE + 3 * r]
        b = mf[j, R_TREE + 3 * r + 1]
        ws[j, W_R + 3 * r] = c * a + s * b
        ws[j, W_R + 3 * r + 1] = c * b - s * a
        ws[j, W_R + 3 * r + 2] = mf[j, R_TREE + 3 * r + 2]
        ws[j, W_P + r] = mf[j, P_TREE + r]
