"""Batched algorithms: many states in one compiled call, parallel across cores.

Each kernel takes a stack of data buffers ``dbufs`` (T, rows, cols), one per worker
(a data buffer begins with the model rows, see ``layout``), and stacked states (B, ...).
Worker t (a ``prange`` iteration) owns ``dbufs[t]`` and evaluates samples t, t + T,
t + 2T, ... with the same cores as the single-state entry kernels, so every sample gets
exactly the arithmetic of a single call. ``status[b]`` receives sample b's status
(kernels/status.py; OVERFLOW where its finite state gave a non-finite result, as the
single calls); a failing sample does not stop the others.
"""
from numba import njit, prange

from .common import (
    check_state, check_state_modal_ok, data_start, frame_table, link_rows, model_arrays, ragged, result_status,
)
from .coordinates import integrate_q
from .energy import kinetic_energy_core, mass_and_com_core
from .forward_dynamics import aba_core
from .inverse_dynamics import rnea_core
from .inverse_mass_matrix import minv_core
from .jacobian import frame_jacobian_core, frame_pose_core
from .layout import D_USE_FEXT
from .mass_matrix import crba_core
from .status import OK, SINGULAR


@njit(cache=True, parallel=True)
def forward_dynamics_batch(dbufs, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b])."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        z = ragged(dbuf, d0, n)
        use_fext = dbuf[d0, D_USE_FEXT] != 0.0
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], U[b], TAU[b], 1, 1)
            if st == OK and not aba_core(mi, mf, ws, z, Q[b], U[b], TAU[b], use_fext, OUT[b]):
                st = SINGULAR
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def inverse_dynamics_batch(dbufs, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b])."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        use_fext = dbuf[d0, D_USE_FEXT] != 0.0
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], U[b], UDOT[b], 1, 1)
            if st == OK:
                rnea_core(mi, mf, ws, Q[b], U[b], UDOT[b], use_fext, OUT[b])
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def mass_matrix_batch(dbufs, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu)."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
            if st == OK:
                crba_core(mi, mf, ws, Q[b], OUT[b])
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def inverse_mass_matrix_batch(dbufs, works, Q, OUT, status):
    """OUT[b] = M(Q[b])^-1; works[t] is worker t's scratch (see inverse_mass_matrix)."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        z = ragged(dbuf, d0, n)
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
            if st == OK and not minv_core(mi, mf, ws, z, Q[b], works[t], OUT[b]):
                st = SINGULAR
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def frame_pose_batch(dbufs, Q, f, OUT, status):
    """OUT[b] = T_world_frame (4, 4) of frame row f at Q[b]."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        fr = frame_table(dbuf, n)
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
            if st == OK:
                frame_pose_core(mi, mf, fr, ws, Q[b], f, OUT[b])
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def frame_jacobian_batch(dbufs, Q, f, POSES, OUT, status):
    """OUT[b] = body Jacobian (6, nu) of frame row f at Q[b] (OUT must be zero on entry);
    POSES[b] receives the frame's world pose."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        fr = frame_table(dbuf, n)
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
            if st == OK:
                frame_jacobian_core(mi, mf, fr, ws, Q[b], f, POSES[b], OUT[b])
            status[b] = result_status(result_status(st, POSES[b]), OUT[b])


@njit(cache=True, parallel=True)
def kinetic_energy_batch(dbufs, Q, U, OUT, status):
    """OUT[b] = kinetic energy at (Q[b], U[b])."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], U[b], U[b], 1, -1)
            if st == OK:
                OUT[b] = kinetic_energy_core(mi, mf, ws, Q[b], U[b])
            status[b] = result_status(st, OUT[b:b + 1])


@njit(cache=True, parallel=True)
def mass_and_com_batch(dbufs, Q, OUT, status):
    """OUT[b] = [total mass, centre of mass (3)] at Q[b]."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(t, Q.shape[0], T):
            st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
            if st == OK:
                mass_and_com_core(mi, mf, ws, Q[b], OUT[b])
            status[b] = result_status(st, OUT[b])


@njit(cache=True, parallel=True)
def integrate_batch(dbufs, Q, U, dt, OUT, status):
    """OUT[b] = Q[b] (+) U[b] dt on each hinge's manifold (charts of worker t's data); models
    with modal bodies too (eta + eta' dt, as a single call)."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(t, Q.shape[0], T):
            st = check_state_modal_ok(mi, Q[b], U[b], U[b], 1, -1)  # (integrate_q knows modal coordinates)
            if st == OK:
                integrate_q(mi, ws, Q[b], U[b], dt, OUT[b])
            status[b] = result_status(st, OUT[b])
