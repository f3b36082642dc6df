"""Batched kernels of models whose links are all PIN (``joint_transform.pin_variant``).

The single calls of such a model take the PIN-only variants of the entry kernels (the
general ones' numbers without the code of the other joint kinds); the batched forward and
inverse dynamics and mass matrix take them too, each sample through the same checked entry
kernel as a single call (``forward_dynamics_pins``, ...), in the one ``prange`` loop of
``batch.batch_kernel``. Before, their batches ran the general cores: UR5's batched forward
dynamics cost 1.08 us per state on one thread against the PIN kernel's single-call
arithmetic. ``PEERS``: each by the general batch kernel it stands in for.
"""
from numba import njit

from . import batch as K
from .batch import SAMPLE, batch_kernel
from .forward_dynamics import forward_dynamics_pins
from .inverse_dynamics import inverse_dynamics_pins
from .mass_matrix import mass_matrix_pins


@njit(**SAMPLE)
def _forward_dynamics(dbuf, t, b, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b])."""
    return forward_dynamics_pins(dbuf, Q[b], U[b], TAU[b], OUT[b])


@njit(**SAMPLE)
def _inverse_dynamics(dbuf, t, b, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b])."""
    return inverse_dynamics_pins(dbuf, Q[b], U[b], UDOT[b], OUT[b])


@njit(**SAMPLE)
def _mass_matrix(dbuf, t, b, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu)."""
    return mass_matrix_pins(dbuf, Q[b], OUT[b])


pin_forward_dynamics_batch = batch_kernel("pin_forward_dynamics_batch", _forward_dynamics)
pin_inverse_dynamics_batch = batch_kernel("pin_inverse_dynamics_batch", _inverse_dynamics)
pin_mass_matrix_batch = batch_kernel("pin_mass_matrix_batch", _mass_matrix)

PEERS = {K.forward_dynamics_batch: pin_forward_dynamics_batch,
         K.inverse_dynamics_batch: pin_inverse_dynamics_batch,
         K.mass_matrix_batch: pin_mass_matrix_batch}
