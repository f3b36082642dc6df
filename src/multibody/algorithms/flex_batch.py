"""Stacked states (B, ...) of models with modal (flexible) bodies: ``batch``'s functions
hand over here after their argument checks, and return exactly what a loop of single
calls returns.

* forward and inverse dynamics, the mass matrix: one compiled call, ``prange`` over
  Numba's threads (kernels/flex_batch.py), each worker with its own data buffer (the
  rigid batch's ``BatchData``) and its own flex work row (``flex_work``);
* integrate: the rigid batch kernel (the coordinate map knows the modal coordinates);
* the inverse mass matrix, energies, centre of mass, poses, Jacobians and pose gradients
  of frames: a Python loop of the single calls (``per_sample``). Their flex kernels take
  work arrays sized by the facade (``flex_operators``) or finish in Python
  (``flex.kinetic_energy``, ``flex.mass_and_com``): a batched kernel would copy them, and
  they are not the hot path (per sample they cost tens of microseconds, a few of them the
  loop's own).
"""
import numpy as np

from ..kernels import batch as K
from ..kernels import flex_batch as FK
from ..simulation.flex_stepping import pack

#: the batched flex kernels, by the rigid batch kernel they stand in for
KERNELS = {K.forward_dynamics_batch: FK.flex_forward_dynamics_batch,
           K.inverse_dynamics_batch: FK.flex_inverse_dynamics_batch,
           K.mass_matrix_batch: FK.flex_mass_matrix_batch}


def flex_work(c, b):
    """(fi, ff, FW, fo) for BatchData ``b`` of compiled model ``c``: ``pack(c)``'s tables
    with its work array repeated once per worker (FW (workers, size)), made on first use
    and kept in ``b.flex_tables`` (a BatchData is made again when the worker count or the
    model changes)."""
    if b.flex_tables is None:
        fi, ff, fw, fo = pack(c)
        b.flex_tables = (fi, ff, np.repeat(fw[None], b.workers, axis=0), fo)
    return b.flex_tables


def per_sample(single, m, arrays, out, *rest):
    """out[i] = ``single(m, *(a[i] for a in arrays), *rest)`` for each sample i, called in
    turn on the thread's default Data (so with its charts, as single calls); returns out.
    An error names its sample."""
    for i in range(out.shape[0]):
        try:
            out[i] = single(m, *(a[i] for a in arrays), *rest)
        except ValueError as e:
            raise ValueError(f"sample {i}: {e}") from None
    return out
