"""Small helpers shared by the recursions: joint-space products and input checks."""
import math

import numpy as np
from numba import njit

from .layout import GRAVITY, NQ, NU, QOFF, S_COLS, UOFF, W_R

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def split_buffer(buf):
    """(mi, mf, ws) views of the model buffer (see ``layout``)."""
    n = (buf.shape[0] - 1) // 3
    return buf[:n].view(np.int64), buf[n:2 * n + 1], buf[2 * n + 1:]


@njit(**_INL)
def coordinate_sizes(mi):
    """(nq, nu) of the model: the last link's offsets plus its sizes (offsets increase)."""
    n = mi.shape[0]
    if n == 0:
        return 0, 0
    return mi[n - 1, QOFF] + mi[n - 1, NQ], mi[n - 1, UOFF] + mi[n - 1, NU]


@njit(**_INL)
def check_state(mi, a, b, c, nb, nc):
    """Status of a kernel's three state arguments: 0 ok; 5/6/7 wrong length of the
    first/second/third (a has nq entries, b nb and c nc, each nq or nu); 1/2/3 non-finite."""
    nq, nu = coordinate_sizes(mi)
    if a.shape[0] != nq:
        return 5
    if nb >= 0 and b.shape[0] != (nq if nb == 0 else nu):
        return 6
    if nc >= 0 and c.shape[0] != (nq if nc == 0 else nu):
        return 7
    if first_nonfinite(a) >= 0:
        return 1
    if nb >= 0 and first_nonfinite(b) >= 0:
        return 2
    if nc >= 0 and first_nonfinite(c) >= 0:
        return 3
    return 0


@njit(**_INL)
def first_nonfinite(x):
    """Index of the first NaN/inf entry of x, or -1."""
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return i
    return -1


@njit(**_INL)
def joint_motion(mi, mf, j, u, out, r, o):
    """out[r, o:o+6] = S_j u_j: the joint's spatial velocity contribution (link frame)."""
    n = mi[j, NU]
    i0 = mi[j, UOFF]
    if n == 1:
        u0 = u[i0]
        for k in range(6):
            out[r, o + k] = mf[j, S_COLS + k] * u0
        return
    for k in range(6):
        s = 0.0
        for c in range(n):
            s += mf[j, S_COLS + 6 * c + k] * u[i0 + c]
        out[r, o + k] = s


@njit(**_INL)
def joint_motion_add(mi, mf, j, u, out, r, o):
    """out[r, o:o+6] += S_j u_j."""
    n = mi[j, NU]
    i0 = mi[j, UOFF]
    for c in range(n):
        uc = u[i0 + c]
        for k in range(6):
            out[r, o + k] += mf[j, S_COLS + 6 * c + k] * uc


@njit(**_INL)
def world_acceleration_in_link(mf, n_links, ws, j, out, r, o):
    """Apparent acceleration of the world (-gravity) in the frame of root link j.

    Featherstone's trick: accelerating the base by -g adds gravity to every body.
    """
    gx = -mf[n_links, GRAVITY]
    gy = -mf[n_links, GRAVITY + 1]
    gz = -mf[n_links, GRAVITY + 2]
    for k in range(3):
        out[r, o + k] = 0.0
        out[r, o + 3 + k] = ws[j, W_R + k] * gx + ws[j, W_R + 3 + k] * gy + ws[j, W_R + 6 + k] * gz


@njit(**_INL)
def joint_force(mi, mf, j, f, r, o, out):
    """out[u slice of j] = S_j^T f[r, o:o+6]."""
    i0 = mi[j, UOFF]
    for c in range(mi[j, NU]):
        s = 0.0
        for k in range(6):
            s += mf[j, S_COLS + 6 * c + k] * f[r, o + k]
        out[i0 + c] = s
