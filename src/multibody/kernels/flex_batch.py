"""Batched derivatives of models with modal (flexible) bodies.

The other stacked calls of such models are ``batch``'s kernels with the model's flex entry
kernels (``c.kernels``: kernels/flex_entry.py, the rigid ones' arguments). The flex
derivatives take more arguments than the rigid ones (f_ext's frame and wrench rows, the
tangent scratch), so their samples are their own. Each is an ``entry_batch_kernel``: the
single call's compiled entry kernel, called through its address (``entry_pointer``), on
worker t's data buffer, which holds its own flex work region (a ``BatchData`` row is a
Data's buffer): every sample gets exactly a single call's arithmetic and status.
"""
from numba import njit

from .batch import F1, F2, F3, I1, SAMPLE, entry_batch_kernel
from .flex_constrained_derivatives import flex_constrained_dynamics_derivatives
from .flex_derivatives_entry import forward_dynamics_derivatives_flex, inverse_dynamics_derivatives_flex


@njit(**SAMPLE)
def _inverse_dynamics_derivatives(entry, dbuf, t, b, frames, wrenches, scratch, Q, U, UDOT, DQ, DU, M, status):
    """DQ[b], DU[b], M[b] = the inverse dynamics derivatives at (Q[b], U[b], UDOT[b]), f_ext
    (frames, wrenches) as the single call's; scratch[t] is worker t's tangent scratch
    (``flex_derivatives_entry.derivatives_work_size``)."""
    return entry(dbuf, Q[b], U[b], UDOT[b], frames, wrenches, scratch[t], DQ[b], DU[b], M[b])


@njit(**SAMPLE)
def _forward_dynamics_derivatives(entry, dbuf, t, b, works, frames, wrenches, scratch, udots, Q, U, TAU, DQ, DU, MINV,
                                  status):
    """DQ[b], DU[b], MINV[b] = the forward dynamics derivatives at (Q[b], U[b], TAU[b]);
    works[t] (M^-1's work), scratch[t] and udots[t] (nu,) are worker t's."""
    return entry(dbuf, Q[b], U[b], TAU[b], frames, wrenches, scratch[t], works[t], udots[t], DQ[b], DU[b], MINV[b])


@njit(**SAMPLE)
def _constrained_forward_dynamics_derivatives(entry, dbuf, t, b, works, frames, helds, scratch, tangents, rows, minvs,
                                              Q, U, TAU, DQ, DU, MINV, status):
    """DQ[b], DU[b], MINV[b] = the derivatives of the flex tree-augmented constrained dynamics at
    (Q[b], U[b], TAU[b]), the single call's entry kernel (flex_constrained_derivatives) on worker
    t's constraint work array (its Baumgarte gains), frame and wrench rows, scratch and M^-1 work."""
    return entry(dbuf, Q[b], U[b], TAU[b], works[t], frames[t], helds[t], scratch[t], tangents[t], rows[t], minvs[t],
                 DQ[b], DU[b], MINV[b])


flex_inverse_dynamics_derivatives_batch = entry_batch_kernel(
    "flex_inverse_dynamics_derivatives_batch", _inverse_dynamics_derivatives,
    (inverse_dynamics_derivatives_flex, (F2, F1, F1, F1, I1, F2, F1, F2, F2, F2)))
flex_forward_dynamics_derivatives_batch = entry_batch_kernel(
    "flex_forward_dynamics_derivatives_batch", _forward_dynamics_derivatives,
    (forward_dynamics_derivatives_flex, (F2, F1, F1, F1, I1, F2, F1, F2, F1, F2, F2, F2)))
flex_constrained_forward_dynamics_derivatives_batch = entry_batch_kernel(
    "flex_constrained_forward_dynamics_derivatives_batch", _constrained_forward_dynamics_derivatives,
    (flex_constrained_dynamics_derivatives, (F2, F1, F1, F1, F2, I1, F2, F1, F1, F3, F2, F2, F2, F2)))
