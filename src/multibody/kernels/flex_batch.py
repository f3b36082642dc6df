"""Batched dynamics of models with modal (flexible) bodies: ``batch``'s scheme and arguments
(worker t of a ``prange`` owns data buffer ``dbufs[t]`` and evaluates samples t, t + T, ...)
with the flex entry kernels (kernels/flex_entry.py). Each worker's data buffer holds its own
flex work region by construction (a ``BatchData`` row is a Data's buffer), so every sample
gets exactly a single call's arithmetic: the same checks (lengths, finite values, unit
quaternions), the same kernels on the same numbers, the same status (a non-finite result
of a finite state is OVERFLOW).
"""
from numba import njit, prange

from .flex_entry import forward_dynamics_flex, inverse_dynamics_flex, mass_matrix_flex


@njit(cache=True, inline="always")
def _dynamics(inverse, dbufs, Q, U, X, OUT, status):
    """OUT[b] = inverse dynamics (``inverse``: X = udot) or forward dynamics (X = tau) at
    (Q[b], U[b], X[b])."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        for b in range(t, Q.shape[0], T):
            if inverse:
                status[b] = inverse_dynamics_flex(dbuf, Q[b], U[b], X[b], OUT[b])
            else:
                status[b] = forward_dynamics_flex(dbuf, Q[b], U[b], X[b], OUT[b])


@njit(cache=True, parallel=True)
def flex_forward_dynamics_batch(dbufs, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b])."""
    _dynamics(False, dbufs, Q, U, TAU, OUT, status)


@njit(cache=True, parallel=True)
def flex_inverse_dynamics_batch(dbufs, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b])."""
    _dynamics(True, dbufs, Q, U, UDOT, OUT, status)


@njit(cache=True, parallel=True)
def flex_mass_matrix_batch(dbufs, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu)."""
    T = dbufs.shape[0]
    for t in prange(T):
        dbuf = dbufs[t]
        for b in range(t, Q.shape[0], T):
            status[b] = mass_matrix_flex(dbuf, Q[b], OUT[b])
