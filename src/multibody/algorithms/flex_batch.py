"""Stacked states (B, ...) of models with modal (flexible) bodies: ``batch``'s functions
hand over here after their argument checks, and return exactly what a loop of single
calls returns.

* forward and inverse dynamics, the mass matrix: one compiled call, ``prange`` over
  Numba's threads (kernels/flex_batch.py), each worker with its own data buffer (the
  rigid batch's ``BatchData``), whose flex work region it uses;
* integrate: the rigid batch kernel (the coordinate map knows the modal coordinates);
* the inverse mass matrix, energies, centre of mass, poses, Jacobians and pose gradients
  of frames: a Python loop of the single calls (``per_sample``). Some of their flex
  kernels take work arrays sized by the facade (``flex_operators``) or finish in Python
  (``flex.link_poses``, the strain energy), and they are not the hot path (per sample they
  cost tens of microseconds, a few of them the loop's own).
"""
from ..kernels import batch as K
from ..kernels import flex_batch as FK

#: the batched flex kernels, by the rigid batch kernel they stand in for
KERNELS = {K.forward_dynamics_batch: FK.flex_forward_dynamics_batch,
           K.inverse_dynamics_batch: FK.flex_inverse_dynamics_batch,
           K.mass_matrix_batch: FK.flex_mass_matrix_batch}


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
