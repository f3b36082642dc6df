"""LOCKED: no motion, 0 coordinates. A link only for a welded modal body, which owns
coordinates (its eta, Euclidean: ``euclidean``); compile merges the rigid bodies it welds."""
import numpy as np
from numba import njit

from .group_maps import IDENTITY_ROTATION


def motion_subspace():
    """S (6, 0)."""
    return np.zeros((6, 0))


def u_from_qdot(qj, chart):
    """N+ (0, 0): no coordinates."""
    return np.zeros((0, 0))


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) = the identity."""
    return IDENTITY_ROTATION, (0.0, 0.0, 0.0)
