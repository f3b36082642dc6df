"""Batched dynamics of models with modal (flexible) bodies: ``batch``'s scheme (worker t of
a ``prange`` owns data buffer ``dbufs[t]`` and evaluates samples t, t + T, ...) with the
flex kernels, each worker with its own flex work row ``FW[t]`` of the packed tables
``fx = (fi, ff, fw, fo)`` (``simulation.flex_stepping.pack``: the link table ``fi``, the
constants ``ff`` and the offsets ``fo`` are shared and only read).

Forward dynamics goes through ``flex_stepping.flex_udot`` (the simulation's one entry to
the flex articulated-body recursion), inverse dynamics and the mass matrix through the
packed entries below: the same kernels as the single calls (algorithms/flex.py) on the
same numbers, so every sample gets exactly a single call's arithmetic. The state checks
are the rigid kernels' (``check_state``: lengths, finite values, unit quaternions), whose
MODAL answer means "checked" here; a non-finite result of a finite state is OVERFLOW.
"""
import numpy as np
from numba import njit, prange

from ..simulation.flex_stepping import CONSTANTS, WORK, flex_udot
from . import flex_layout as FL
from .common import check_state_modal_ok, coordinate_sizes, data_start, link_rows, model_arrays, result_status
from .flex_articulated import flex_mass_matrix
from .flex_dynamics import flex_inverse_dynamics
from .status import OK, SINGULAR


def _piece(name):
    """Index in ``fo`` of the start of the packed piece ``name``; the next entry is its end
    (``pack``: the constants' starts then their end, then the work arrays' starts and end)."""
    if name in CONSTANTS:
        return CONSTANTS.index(name)
    return len(CONSTANTS) + 1 + WORK.index(name)


# fo entries of the pieces these entries read (module constants: Numba folds them)
_MASS, _M1, _M2, _NODE, _K, _C = (_piece(x) for x in ("fmass", "fm1", "fm2", "fnode", "stiffness", "damping"))
_MQ, _PHI, _V, _A, _F, _AB, _P, _SCR, _POSE, _VN = (
    _piece(x) for x in ("M", "phi", "V", "A", "F", "abias", "P", "scratch", "pose", "VN"))


@njit(cache=True, _nrt=False)
def flex_tau(mi, mf, ws, fx, q, u, udot, tau):
    """Inverse dynamics of a model with modal bodies on the packed tables ``fx`` (link rows
    ws: placements and charts). Without reference counting, as ``flex_udot``: views only."""
    fi, ff, fw, fo = fx
    n = mi.shape[0]
    flex_inverse_dynamics(
        mi, mf, ws, fi, ff[fo[_MASS]:fo[_MASS + 1]], ff[fo[_M1]:fo[_M1 + 1]], ff[fo[_M2]:fo[_M2 + 1]],
        fw[fo[_MQ]:fo[_MQ + 1]], ff[fo[_NODE]:fo[_NODE + 1]], ff[fo[_K]:fo[_K + 1]], ff[fo[_C]:fo[_C + 1]],
        q, u, udot, fw[fo[_PHI]:fo[_PHI + 1]], fw[fo[_V]:fo[_V + 1]], fw[fo[_A]:fo[_A + 1]],
        fw[fo[_F]:fo[_F + 1]], fw[fo[_AB]:fo[_AB + 1]], fw[fo[_POSE]:fo[_POSE + 1]].reshape((n, FL.POSE_COLS)),
        fw[fo[_VN]:fo[_VN + 1]].reshape((n, 6)), tau)


@njit(cache=True, _nrt=False)
def flex_mass(mi, mf, ws, fx, q, u0, M):
    """M(q) (nu, nu) of a model with modal bodies on the packed tables ``fx``; u0: zeros (nu,)."""
    fi, ff, fw, fo = fx
    n = mi.shape[0]
    flex_mass_matrix(
        mi, mf, ws, fi, ff[fo[_MASS]:fo[_MASS + 1]], ff[fo[_M1]:fo[_M1 + 1]], ff[fo[_M2]:fo[_M2 + 1]],
        fw[fo[_MQ]:fo[_MQ + 1]], ff[fo[_NODE]:fo[_NODE + 1]], q, u0, fw[fo[_PHI]:fo[_PHI + 1]],
        fw[fo[_V]:fo[_V + 1]], fw[fo[_AB]:fo[_AB + 1]], fw[fo[_POSE]:fo[_POSE + 1]].reshape((n, FL.POSE_COLS)),
        fw[fo[_VN]:fo[_VN + 1]].reshape((n, 6)), fw[fo[_P]:fo[_P + 1]], fw[fo[_SCR]:fo[_SCR + 1]], M)


@njit(cache=True, inline="always")
def _worker(dbufs, t, fi, ff, FW, fo):
    """(mi, mf, ws, fx) of worker t: the model and link rows of its data buffer, and the flex
    tables with its own work row."""
    dbuf = dbufs[t]
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    return mi, mf, link_rows(dbuf, data_start(dbuf, n), n), (fi, ff, FW[t], fo)


@njit(cache=True, inline="always")
def _dynamics(inverse, dbufs, fi, ff, FW, fo, Q, U, X, OUT, status):
    """OUT[b] = inverse dynamics (``inverse``: X = udot) or forward dynamics (X = tau) at
    (Q[b], U[b], X[b])."""
    T = dbufs.shape[0]
    for t in prange(T):
        mi, mf, ws, fx = _worker(dbufs, t, fi, ff, FW, fo)
        for b in range(t, Q.shape[0], T):
            st = check_state_modal_ok(mi, Q[b], U[b], X[b], 1, 1)
            if st == OK:
                if inverse:
                    flex_tau(mi, mf, ws, fx, Q[b], U[b], X[b], OUT[b])
                elif not flex_udot(mi, mf, ws, fx, Q[b], U[b], X[b], OUT[b]):
                    st = SINGULAR
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def flex_forward_dynamics_batch(dbufs, fi, ff, FW, fo, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b]); FW[t] is worker t's flex work."""
    _dynamics(False, dbufs, fi, ff, FW, fo, Q, U, TAU, OUT, status)


@njit(cache=True, parallel=True)
def flex_inverse_dynamics_batch(dbufs, fi, ff, FW, fo, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b]); FW[t] is worker t's flex work."""
    _dynamics(True, dbufs, fi, ff, FW, fo, Q, U, UDOT, OUT, status)


@njit(cache=True, parallel=True)
def flex_mass_matrix_batch(dbufs, fi, ff, FW, fo, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu); FW[t] is worker t's flex work."""
    T = dbufs.shape[0]
    for t in prange(T):
        mi, mf, ws, fx = _worker(dbufs, t, fi, ff, FW, fo)
        u0 = np.zeros(coordinate_sizes(mi)[1])
        for b in range(t, Q.shape[0], T):
            st = check_state_modal_ok(mi, Q[b], Q[b], Q[b], -1, -1)
            if st == OK:
                flex_mass(mi, mf, ws, fx, Q[b], u0, OUT[b])
            status[b] = result_status(st, OUT[b])
