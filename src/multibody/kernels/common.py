"""Small helpers shared by the recursions: joint-space products and input checks."""
import math

from numba import njit

from .layout import GRAVITY, INERTIA, NU, S_COLS, UOFF, W_C, W_R, W_P
from .spatial_inline import mat33T_vec

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def first_nonfinite(x):
    """Index of the first NaN/inf entry of x, or -1."""
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return i
    return -1


@njit(**_INL)
def joint_motion(mi, mf, j, u, out):
    """out = S_j u_j: the joint's spatial velocity contribution (link frame)."""
    n = mi[j, NU]
    i0 = mi[j, UOFF]
    for r in range(6):
        s = 0.0
        for k in range(n):
            s += mf[j, S_COLS + 6 * k + r] * u[i0 + k]
        out[r] = s


@njit(**_INL)
def joint_motion_add(mi, mf, j, u, out):
    """out += S_j u_j."""
    n = mi[j, NU]
    i0 = mi[j, UOFF]
    for k in range(n):
        uk = u[i0 + k]
        for r in range(6):
            out[r] += mf[j, S_COLS + 6 * k + r] * uk


@njit(**_INL)
def world_acceleration_in_link(mf, n_links, ws, j, out):
    """Apparent acceleration of the world (-gravity) in the frame of root link j.

    Featherstone's trick: accelerating the base by -g adds gravity to every body.
    """
    mat33T_vec(ws[j, W_R:W_R + 9], -mf[n_links, GRAVITY], -mf[n_links, GRAVITY + 1],
               -mf[n_links, GRAVITY + 2], out, 3)
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0


@njit(**_INL)
def rigid_inertia_times(mf, j, x, y):
    """y = I_j x with the link's 6x6 spatial inertia."""
    for r in range(6):
        s = 0.0
        for c in range(6):
            s += mf[j, INERTIA + 6 * r + c] * x[c]
        y[r] = s
