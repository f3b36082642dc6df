"""Batched kernels of models with modal (flexible) bodies: ``batch``'s scheme and arguments
(``batch.batch_kernel``: worker t of a ``prange`` owns data buffer ``dbufs[t]`` and evaluates
the t-th block of samples) around the flex entry kernels (kernels/flex_entry.py), which take
the rigid ones' arguments: each an ``entry_batch_kernel``, which calls the single call's
compiled entry kernel through its address (``entry_pointer``; linked in, each batch kernel
compiled the whole flex code again, 10-20 s on its first use). Each worker's data buffer
holds its own flex work region by construction (a ``BatchData`` row is a Data's buffer), so every sample gets exactly a single
call's arithmetic: the same checks (lengths, finite values, unit quaternions), the same
kernels on the same numbers, the same status (a non-finite result of a finite state is
OVERFLOW). ``PEERS``: each by the rigid batch kernel it stands in for.
"""
from numba import njit, types

from . import batch as K
from .batch import F1, F2, F3, I1, SAMPLE, entry_batch_kernel
from .flex_constrained_derivatives import flex_constrained_dynamics_derivatives
from .flex_derivatives_entry import forward_dynamics_derivatives_flex, inverse_dynamics_derivatives_flex
from .flex_entry import (
    constrained_forward_dynamics_flex, forward_dynamics_flex, frame_jacobian_flex, frame_pose_flex,
    inverse_dynamics_flex, inverse_mass_matrix_flex, kinetic_energy_flex, mass_and_com_flex, mass_matrix_flex,
    strain_energy_flex,
)


@njit(**SAMPLE)
def _forward_dynamics(entry, dbuf, t, b, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b])."""
    return entry(dbuf, Q[b], U[b], TAU[b], OUT[b])


@njit(**SAMPLE)
def _constrained_forward_dynamics(entry, dbuf, t, b, works, Q, U, TAU, OUT, status):
    """OUT[b] = constrained forward dynamics at (Q[b], U[b], TAU[b]) on worker t's constraint
    work array."""
    return entry(dbuf, Q[b], U[b], TAU[b], works[t], OUT[b])


@njit(**SAMPLE)
def _inverse_dynamics(entry, dbuf, t, b, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b])."""
    return entry(dbuf, Q[b], U[b], UDOT[b], OUT[b])


@njit(**SAMPLE)
def _mass_matrix(entry, dbuf, t, b, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu)."""
    return entry(dbuf, Q[b], OUT[b])


@njit(**SAMPLE)
def _inverse_mass_matrix(entry, dbuf, t, b, works, Q, OUT, status):
    """OUT[b] = M(Q[b])^-1; works[t] is worker t's W (work_shapes.minv_work_shape)."""
    return entry(dbuf, Q[b], works[t], OUT[b])


@njit(**SAMPLE)
def _frame_pose(entry, dbuf, t, b, Q, f, OUT, status):
    """OUT[b] = T_world_frame (4, 4) of frame row f at Q[b]."""
    return entry(dbuf, Q[b], f, OUT[b])


@njit(**SAMPLE)
def _frame_jacobian(entry, dbuf, t, b, Q, f, POSES, OUT, status):
    """OUT[b] = body Jacobian (6, nu) of frame row f at Q[b] (zero on entry); POSES[b] its pose."""
    return entry(dbuf, Q[b], f, POSES[b], OUT[b])


@njit(**SAMPLE)
def _kinetic_energy(entry, dbuf, t, b, Q, U, OUT, status):
    """OUT[b] = kinetic energy at (Q[b], U[b])."""
    return entry(dbuf, Q[b], U[b], OUT[b:b + 1])


@njit(**SAMPLE)
def _mass_and_com(entry, dbuf, t, b, Q, OUT, status):
    """OUT[b] = [total mass, centre of mass (3)] at Q[b]."""
    return entry(dbuf, Q[b], OUT[b])


@njit(**SAMPLE)
def _strain_energy(entry, dbuf, t, b, Q, OUT, status):
    """OUT[b] = strain energy at Q[b]."""
    return entry(dbuf, Q[b], OUT[b:b + 1])


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


flex_forward_dynamics_batch = entry_batch_kernel("flex_forward_dynamics_batch", _forward_dynamics,
                                                 forward_dynamics_flex, (F2, F1, F1, F1, F1))
flex_constrained_forward_dynamics_batch = entry_batch_kernel(
    "flex_constrained_forward_dynamics_batch", _constrained_forward_dynamics, constrained_forward_dynamics_flex,
    (F2, F1, F1, F1, F2, F1))
flex_inverse_dynamics_batch = entry_batch_kernel("flex_inverse_dynamics_batch", _inverse_dynamics,
                                                 inverse_dynamics_flex, (F2, F1, F1, F1, F1))
flex_mass_matrix_batch = entry_batch_kernel("flex_mass_matrix_batch", _mass_matrix, mass_matrix_flex, (F2, F1, F2))
flex_inverse_mass_matrix_batch = entry_batch_kernel("flex_inverse_mass_matrix_batch", _inverse_mass_matrix,
                                                    inverse_mass_matrix_flex, (F2, F1, F2, F2))
flex_frame_pose_batch = entry_batch_kernel("flex_frame_pose_batch", _frame_pose, frame_pose_flex,
                                           (F2, F1, types.int64, F2))
flex_frame_jacobian_batch = entry_batch_kernel("flex_frame_jacobian_batch", _frame_jacobian, frame_jacobian_flex,
                                               (F2, F1, types.int64, F2, F2))
flex_kinetic_energy_batch = entry_batch_kernel("flex_kinetic_energy_batch", _kinetic_energy, kinetic_energy_flex,
                                               (F2, F1, F1, F1))
flex_mass_and_com_batch = entry_batch_kernel("flex_mass_and_com_batch", _mass_and_com, mass_and_com_flex,
                                             (F2, F1, F1))
flex_strain_energy_batch = entry_batch_kernel("flex_strain_energy_batch", _strain_energy, strain_energy_flex,
                                              (F2, F1, F1))
#: (not in PEERS: they take the flex derivatives' scratch, which the rigid kernels do not)
flex_inverse_dynamics_derivatives_batch = entry_batch_kernel(
    "flex_inverse_dynamics_derivatives_batch", _inverse_dynamics_derivatives, inverse_dynamics_derivatives_flex,
    (F2, F1, F1, F1, I1, F2, F1, F2, F2, F2))
flex_forward_dynamics_derivatives_batch = entry_batch_kernel(
    "flex_forward_dynamics_derivatives_batch", _forward_dynamics_derivatives, forward_dynamics_derivatives_flex,
    (F2, F1, F1, F1, I1, F2, F1, F2, F1, F2, F2, F2))
flex_constrained_forward_dynamics_derivatives_batch = entry_batch_kernel(
    "flex_constrained_forward_dynamics_derivatives_batch", _constrained_forward_dynamics_derivatives,
    flex_constrained_dynamics_derivatives, (F2, F1, F1, F1, F2, I1, F2, F1, F1, F3, F2, F2, F2, F2))

#: the batched flex kernels, by the rigid batch kernel they stand in for (the strain energy
#: has none: rigid models store no elastic energy)
PEERS = {K.forward_dynamics_batch: flex_forward_dynamics_batch,
         K.constrained_forward_dynamics_batch: flex_constrained_forward_dynamics_batch,
         K.inverse_dynamics_batch: flex_inverse_dynamics_batch,
         K.mass_matrix_batch: flex_mass_matrix_batch,
         K.inverse_mass_matrix_batch: flex_inverse_mass_matrix_batch,
         K.frame_pose_batch: flex_frame_pose_batch,
         K.frame_jacobian_batch: flex_frame_jacobian_batch,
         K.kinetic_energy_batch: flex_kinetic_energy_batch,
         K.mass_and_com_batch: flex_mass_and_com_batch}
