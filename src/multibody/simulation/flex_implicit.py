"""The implicit methods' equations of motion on models with modal (flexible) bodies: the
generalized-alpha residual and the Newton matrix (M, C_t, K_t) that generalized_alpha's
``galpha_loop`` (its ``flex`` variants) and radau's Jacobian (``radau_loop``) take, from the
analytic flex derivatives (``kernels/flex_derivatives_entry.inverse_dynamics_derivatives_flex``:
tangent conventions as the rigid derivatives', hinge coordinates along ``integrate``, the modal
coordinates eta plain vector coordinates).

    r(x) = ID_flex(q, u, x) - tau(t, q, u),     ID_flex = M x + b + K_s eta + D_s eta'

(``kernels/flex_entry.flex_tau``: the modal stiffness and damping inside), tau the held input
plus the joint-level force models (``apply_forces`` without link-level entries: those are
refused on modal bodies). Its derivatives: M, C_t = dID/du - dtau/du, K_t = dID/dq - dtau/dq
(``galpha_step.force_jacobian`` for the force models' share), the rigid ``iteration_matrix``'s
terms with the flex derivatives in place of ``rnea_derivatives_core``.
"""
import numpy as np
from numba import njit

from ..kernels.flex_derivatives_entry import derivatives_work_size, inverse_dynamics_derivatives_flex
from ..kernels.flex_entry import flex_tau
from ..kernels.status import OK
from .force_kernels import apply_forces
from .galpha_step import force_jacobian

__all__ = ["flex_work", "flex_residual", "flex_iteration_matrix"]


def flex_work(dbuf=None):
    """The flex derivatives' work for a run on data buffer ``dbuf``: (T, frames, wrenches), T of
    ``derivatives_work_size`` numbers, no frame wrenches (link-level forces on modal bodies are
    refused); with dbuf None (a rigid model) arrays of the same kinds, unread."""
    size = 1 if dbuf is None else derivatives_work_size(dbuf)
    return np.zeros(size), np.zeros(0, dtype=np.int64), np.zeros((0, 6))


@njit(cache=True, inline="always")
def flex_residual(mi, mf, ws, dbuf, fmi, fmf, t, q1, u1, x, src, tau, r):
    """r = ID_flex(q1, u1, x) - tau at t (module docstring)."""
    apply_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, False)
    flex_tau(dbuf, q1, u1, x, r)
    for i in range(r.shape[0]):
        r[i] -= tau[i]


@njit(cache=True, inline="always")
def flex_iteration_matrix(mi, mf, ws, dbuf, fw, fmi, fmf, t, q1, u1, x, src, tau, gq, gu, K, C, S):
    """S = M + gu C + gq K at (t, q1, u1, x), K = dr/dq (tangent) and C = dr/du of
    ``flex_residual``, kept in K and C; fw from ``flex_work``. False where the derivatives
    are not finite (the state's, or an overflow)."""
    T, frames, wrenches = fw
    apply_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, False)
    if inverse_dynamics_derivatives_flex(dbuf, q1, u1, x, frames, wrenches, T, K, C, S) != OK:
        return False
    force_jacobian(fmi, fmf, q1, u1, K, C)
    n = S.shape[0]
    for r in range(n):
        for c in range(n):
            S[r, c] += gu * C[r, c] + gq * K[r, c]
    return True
