"""Small helpers shared by the recursions: joint-space products and input checks."""
import math

import numpy as np
from numba import njit

from .layout import BODY_NU, GRAVITY, H_FLEX_ROWS, H_NCONSTRAINTS, H_NFRAMES, H_NLINKS, NQ, NU, QOFF, S_COLS, UOFF, W_R
from .joints.dispatch import joint_unit_quaternion
from .status import (
    BAD_LENGTH_ARG0, BAD_LENGTH_ARG1, BAD_LENGTH_ARG2, BAD_QUATERNION, MODAL, NONFINITE_ARG0, NONFINITE_ARG1, NONFINITE_ARG2, OK,
    OVERFLOW,
)

_INL = dict(cache=True, inline="always")


# Views of a data buffer (see ``layout``; the model views work on the model buffer too).
# Each view costs a few ns per call, so an entry kernel makes only those it uses; the
# flags are read in place (dbuf[d0, D_*]).
@njit(**_INL)
def model_arrays(buf):
    """(mi, mf) views of the model rows of a buffer."""
    n = int(buf[0, H_NLINKS])
    return buf[1:1 + n].view(np.int64), buf[1 + n:2 + 2 * n]


@njit(**_INL)
def frame_table(buf, n):
    """The frame rows ``fr`` of a buffer of a model with n links."""
    return buf[2 + 2 * n:2 + 2 * n + int(buf[0, H_NFRAMES])]


@njit(**_INL)
def constraint_table(buf, n):
    """The constraint rows ``cr`` of a buffer of a model with n links."""
    c0 = 2 + 2 * n + int(buf[0, H_NFRAMES])
    return buf[c0:c0 + int(buf[0, H_NCONSTRAINTS])]


@njit(**_INL)
def data_start(dbuf, n):
    """Row of the flags in a data buffer: the model rows (the flex block last) come first."""
    return 2 + 2 * n + int(dbuf[0, H_NFRAMES]) + int(dbuf[0, H_NCONSTRAINTS]) + int(dbuf[0, H_FLEX_ROWS])


@njit(**_INL)
def link_rows(dbuf, d0, n):
    """The per-link rows ``ws`` of a data buffer whose flags row is d0 (``data_start``)."""
    return dbuf[d0 + 1:d0 + 1 + n]


@njit(**_INL)
def ragged(dbuf, d0, n):
    """The flat ragged region ``z`` of a data buffer (1-D)."""
    return dbuf[d0 + 1 + n:].reshape(-1)


@njit(**_INL)
def coordinate_sizes(mi):
    """(nq, nu) of the model: the last link's offsets plus its sizes (offsets increase)."""
    n = mi.shape[0]
    if n == 0:
        return 0, 0
    m = mi[n - 1, BODY_NU]  # a body's own coordinates end its link's slices
    return mi[n - 1, QOFF] + mi[n - 1, NQ] + m, mi[n - 1, UOFF] + mi[n - 1, NU] + m


@njit(**_INL)
def check_state(mi, a, b, c, nb, nc):
    """Status (kernels/status.py) of a kernel's three state arguments: a (q) has nq entries
    and unit quaternions (to 1e-6), b and c have nq (nb/nc = 0) or nu (1) entries or are
    not used (-1). Once per entry call, so compiled once (``_check_state``), for nb, nc as
    values (literal ones would compile it for each combination), without Numba's reference
    counting (with it, the call's array arguments cost atomic counts: bench/README.md)."""
    return _check_state(mi, a, b, c, np.int64(nb), np.int64(nc))


@njit(cache=True, _nrt=False)
def _check_state(mi, a, b, c, nb, nc):
    """``check_state``."""
    nq, nu = coordinate_sizes(mi)
    if a.shape[0] != nq:
        return BAD_LENGTH_ARG0
    if nb >= 0 and b.shape[0] != (nq if nb == 0 else nu):
        return BAD_LENGTH_ARG1
    if nc >= 0 and c.shape[0] != (nq if nc == 0 else nu):
        return BAD_LENGTH_ARG2
    if not all_finite(a):
        return NONFINITE_ARG0
    if nb >= 0 and not all_finite(b):
        return NONFINITE_ARG1
    if nc >= 0 and not all_finite(c):
        return NONFINITE_ARG2
    modal = False
    for j in range(mi.shape[0]):  # a is q: its quaternions must be unit (none is normalised here)
        if mi[j, BODY_NU] != 0:  # flexible bodies: not these kernels' (after every quaternion's check)
            modal = True
        if not joint_unit_quaternion(mi, a, j):
            return BAD_QUATERNION
    return MODAL if modal else OK


@njit(**_INL)
def check_state_modal_ok(mi, a, b, c, nb, nc):
    """``check_state`` with MODAL read as OK: for kernels that serve models with modal
    bodies too (the coordinate maps, the batched flex kernels)."""
    st = check_state(mi, a, b, c, nb, nc)
    return OK if st == MODAL else st


_EXPONENT = np.int64(0x7FF0000000000000)  # the exponent bits of a float64: all set for NaN and inf


@njit(**_INL)
def result_status(st, out):
    """st, or OVERFLOW where st is OK and the C-contiguous result ``out`` (any shape) holds a
    NaN/inf: finite arguments too large for the result to be represented (1e200 squared).
    Called by entry kernels on their result after the state's ``check_state`` (statuses other
    than OK pass through). It tests the exponent bits with no branch per entry, so that it
    runs in vector lanes (a math.isfinite loop does not: a few times slower on Talos' M,
    bench/README.md)."""
    if st != OK:
        return st
    bits = out.reshape(-1).view(np.int64)
    bad = 0
    for i in range(bits.shape[0]):
        bad |= (bits[i] & _EXPONENT) == _EXPONENT
    return OVERFLOW if bad else OK


@njit(**_INL)
def all_finite(x):
    """True when every entry of the 1-D x is finite: x - x is 0 for a finite entry and NaN
    for NaN/inf, and the comparisons are OR-ed with no branch per entry, so the loop runs in
    vector lanes (a ``first_nonfinite`` loop leaves at the first bad entry, so it cannot)."""
    bad = False
    for i in range(x.shape[0]):
        bad |= not (x[i] - x[i] == 0.0)
    return not bad


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
def world_acceleration_t(mf, n_links, ws, j):
    """Apparent acceleration of the world (-gravity) in the frame of root link j, a 6-tuple.

    Featherstone's trick: accelerating the base by -g adds gravity to every body.
    """
    gx = -mf[n_links, GRAVITY]
    gy = -mf[n_links, GRAVITY + 1]
    gz = -mf[n_links, GRAVITY + 2]
    return (0.0, 0.0, 0.0, ws[j, W_R] * gx + ws[j, W_R + 3] * gy + ws[j, W_R + 6] * gz,
            ws[j, W_R + 1] * gx + ws[j, W_R + 4] * gy + ws[j, W_R + 7] * gz,
            ws[j, W_R + 2] * gx + ws[j, W_R + 5] * gy + ws[j, W_R + 8] * gz)


@njit(**_INL)
def world_acceleration_in_link(mf, n_links, ws, j, out, r, o):
    """out[r, o:o+6] = ``world_acceleration_t``."""
    a = world_acceleration_t(mf, n_links, ws, j)
    for k in range(6):
        out[r, o + k] = a[k]


@njit(**_INL)
def joint_force(mi, mf, j, f, r, o, out):
    """out[u slice of j] = S_j^T f[r, o:o+6]."""
    i0 = mi[j, UOFF]
    for c in range(mi[j, NU]):
        s = 0.0
        for k in range(6):
            s += mf[j, S_COLS + 6 * c + k] * f[r, o + k]
        out[i0 + c] = s
