"""PIN (revolute): rotation by q [rad] about a unit axis; nq = nu = 1, coordinate maps
Euclidean (``euclidean``). Compile frames the link so that the axis is its z axis
(``layout.AXIS``), which ``link_placement`` and the kernels' PIN fast paths rely on.
"""
import math

import numpy as np
from numba import njit

from ..layout import AXIS, P_TREE, QOFF, R_TREE, W_P, W_R
from ..spatial_inline import rot_axis_angle, store9


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
def link_rotation(mf, j, th):
    """R = R_tree Rz(th) of PIN link j in its parent link frame (row-major 9-tuple): Rz mixes
    only the first two columns of R_tree, the common case's short path. One home for
    ``link_placement`` and M^-1's root frames (``inverse_mass_steps.root_frames``)."""
    c = math.cos(th)
    s = math.sin(th)
    a0 = mf[j, R_TREE]
    b0 = mf[j, R_TREE + 1]
    a1 = mf[j, R_TREE + 3]
    b1 = mf[j, R_TREE + 4]
    a2 = mf[j, R_TREE + 6]
    b2 = mf[j, R_TREE + 7]
    return (c * a0 + s * b0, c * b0 - s * a0, mf[j, R_TREE + 2],
            c * a1 + s * b1, c * b1 - s * a1, mf[j, R_TREE + 5],
            c * a2 + s * b2, c * b2 - s * a2, mf[j, R_TREE + 8])


@njit(cache=True, inline="always")
def link_placement(mi, mf, ws, q, j):
    """W_R, W_P of a PIN link about z (see layout.AXIS): R = R_tree Rz(q) (``link_rotation``),
    p = p_tree."""
    store9(ws, j, W_R, link_rotation(mf, j, q[mi[j, QOFF]]))
    for r in range(3):
        ws[j, W_P + r] = mf[j, P_TREE + r]
