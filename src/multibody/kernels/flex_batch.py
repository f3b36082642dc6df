"""Batched kernels of models with modal (flexible) bodies: ``batch``'s scheme and arguments
(``batch.batch_kernel``: worker t of a ``prange`` owns data buffer ``dbufs[t]`` and evaluates
the t-th block of samples) around the flex entry kernels (kernels/flex_entry.py), which take
the rigid ones' arguments. Each worker's data buffer holds its own flex work region by
construction (a ``BatchData`` row is a Data's buffer), so every sample gets exactly a single
call's arithmetic: the same checks (lengths, finite values, unit quaternions), the same
kernels on the same numbers, the same status (a non-finite result of a finite state is
OVERFLOW). ``PEERS``: each by the rigid batch kernel it stands in for.
"""
from numba import njit

from . import batch as K
from .batch import SAMPLE, batch_kernel
from .flex_constrained_derivatives import flex_constrained_dynamics_derivatives
from .flex_derivatives_entry import forward_dynamics_derivatives_flex, inverse_dynamics_derivatives_flex
from .flex_entry import (
    constrained_forward_dynamics_flex, forward_dynamics_flex, frame_jacobian_flex, frame_pose_flex,
    inverse_dynamics_flex, inverse_mass_matrix_flex, kinetic_energy_flex, mass_and_com_flex, mass_matrix_flex,
    strain_energy_flex,
)


@njit(**SAMPLE)
def _forward_dynamics(dbuf, t, b, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b])."""
    return forward_dynamics_flex(dbuf, Q[b], U[b], TAU[b], OUT[b])


@njit(**SAMPLE)
def _constrained_forward_dynamics(dbuf, t, b, works, Q, U, TAU, OUT, status):
    """OUT[b] = constrained forward dynamics at (Q[b], U[b], TAU[b]) on worker t's constraint
    work array."""
    return constrained_forward_dynamics_flex(dbuf, Q[b], U[b], TAU[b], works[t], OUT[b])


@njit(**SAMPLE)
def _inverse_dynamics(dbuf, t, b, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b])."""
    return inverse_dynamics_flex(dbuf, Q[b], U[b], UDOT[b], OUT[b])


@njit(**SAMPLE)
def _mass_matrix(dbuf, t, b, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu)."""
    return mass_matrix_flex(dbuf, Q[b], OUT[b])


@njit(**SAMPLE)
def _inverse_mass_matrix(dbuf, t, b, works, Q, OUT, status):
    """OUT[b] = M(Q[b])^-1; works[t] is worker t's W (work_shapes.minv_work_shape)."""
    return inverse_mass_matrix_flex(dbuf, Q[b], works[t], OUT[b])


@njit(**SAMPLE)
def _frame_pose(dbuf, t, b, Q, f, OUT, status):
    """OUT[b] = T_world_frame (4, 4) of frame row f at Q[b]."""
    return frame_pose_flex(dbuf, Q[b], f, OUT[b])


@njit(**SAMPLE)
def _frame_jacobian(dbuf, t, b, Q, f, POSES, OUT, status):
    """OUT[b] = body Jacobian (6, nu) of frame row f at Q[b] (zero on entry); POSES[b] its pose."""
    return frame_jacobian_flex(dbuf, Q[b], f, POSES[b], OUT[b])


@njit(**SAMPLE)
def _kinetic_energy(dbuf, t, b, Q, U, OUT, status):
    """OUT[b] = kinetic energy at (Q[b], U[b])."""
    return kinetic_energy_flex(dbuf, Q[b], U[b], OUT[b:b + 1])


@njit(**SAMPLE)
def _mass_and_com(dbuf, t, b, Q, OUT, status):
    """OUT[b] = [total mass, centre of mass (3)] at Q[b]."""
    return mass_and_com_flex(dbuf, Q[b], OUT[b])


@njit(**SAMPLE)
def _strain_energy(dbuf, t, b, Q, OUT, status):
    """OUT[b] = strain energy at Q[b]."""
    return strain_energy_flex(dbuf, Q[b], OUT[b:b + 1])


@njit(**SAMPLE)
def _inverse_dynamics_derivatives(dbuf, t, b, frames, wrenches, scratch, Q, U, UDOT, DQ, DU, M, status):
    """DQ[b], DU[b], M[b] = the inverse dynamics derivatives at (Q[b], U[b], UDOT[b]), f_ext
    (frames, wrenches) as the single call's; scratch[t] is worker t's tangent scratch
    (``flex_derivatives_entry.derivatives_work_size``)."""
    return inverse_dynamics_derivatives_flex(dbuf, Q[b], U[b], UDOT[b], frames, wrenches, scratch[t], DQ[b], DU[b],
                                             M[b])


@njit(**SAMPLE)
def _forward_dynamics_derivatives(dbuf, t, b, works, frames, wrenches, scratch, udots, Q, U, TAU, DQ, DU, MINV,
                                  status):
    """DQ[b], DU[b], MINV[b] = the forward dynamics derivatives at (Q[b], U[b], TAU[b]);
    works[t] (M^-1's work), scratch[t] and udots[t] (nu,) are worker t's."""
    return forward_dynamics_derivatives_flex(dbuf, Q[b], U[b], TAU[b], frames, wrenches, scratch[t], works[t],
                                             udots[t], DQ[b], DU[b], MINV[b])


@njit(**SAMPLE)
def _constrained_forward_dynamics_derivatives(dbuf, t, b, works, frames, helds, scratch, tangents, rows, minvs, Q, U,
                                              TAU, DQ, DU, MINV, status):
    """DQ[b], DU[b], MINV[b] = the derivatives of the flex tree-augmented constrained dynamics at
    (Q[b], U[b], TAU[b]), the single call's entry kernel (flex_constrained_derivatives) on worker
    t's constraint work array (its Baumgarte gains), frame and wrench rows, scratch and M^-1 work."""
    return flex_constrained_dynamics_derivatives(dbuf, Q[b], U[b], TAU[b], works[t], frames[t], helds[t], scratch[t],
                                                 tangents[t], rows[t], minvs[t], DQ[b], DU[b], MINV[b])


flex_forward_dynamics_batch = batch_kernel("flex_forward_dynamics_batch", _forward_dynamics)
flex_constrained_forward_dynamics_batch = batch_kernel("flex_constrained_forward_dynamics_batch",
                                                      _constrained_forward_dynamics)
flex_inverse_dynamics_batch = batch_kernel("flex_inverse_dynamics_batch", _inverse_dynamics)
flex_mass_matrix_batch = batch_kernel("flex_mass_matrix_batch", _mass_matrix)
flex_inverse_mass_matrix_batch = batch_kernel("flex_inverse_mass_matrix_batch", _inverse_mass_matrix)
flex_frame_pose_batch = batch_kernel("flex_frame_pose_batch", _frame_pose)
flex_frame_jacobian_batch = batch_kernel("flex_frame_jacobian_batch", _frame_jacobian)
flex_kinetic_energy_batch = batch_kernel("flex_kinetic_energy_batch", _kinetic_energy)
flex_mass_and_com_batch = batch_kernel("flex_mass_and_com_batch", _mass_and_com)
flex_strain_energy_batch = batch_kernel("flex_strain_energy_batch", _strain_energy)
#: (not in PEERS: they take the flex derivatives' scratch, which the rigid kernels do not)
flex_inverse_dynamics_derivatives_batch = batch_kernel("flex_inverse_dynamics_derivatives_batch",
                                                      _inverse_dynamics_derivatives)
flex_forward_dynamics_derivatives_batch = batch_kernel("flex_forward_dynamics_derivatives_batch",
                                                      _forward_dynamics_derivatives)
flex_constrained_forward_dynamics_derivatives_batch = batch_kernel(
    "flex_constrained_forward_dynamics_derivatives_batch", _constrained_forward_dynamics_derivatives)

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
