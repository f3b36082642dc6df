"""The implicit methods' equations of motion on models with modal (flexible) bodies: the
generalized-alpha residual and the Newton matrix (M, C_t, K_t) that generalized_alpha's
``galpha_loop`` (its ``flex`` variants) and radau's Jacobian (``radau_loop``) take, from the
analytic flex derivatives (``kernels/flex_derivatives_entry.inverse_dynamics_derivatives_flex``:
tangent conventions as the rigid derivatives', hinge coordinates along ``integrate``, the modal
coordinates eta plain vector coordinates).

    r(x) = ID_flex(q, u, x) - tau(t, q, u),     ID_flex = M x + b + K_s eta + D_s eta'

(``kernels/flex_entry.flex_tau``: the modal stiffness and damping inside), tau the held input
plus the force models (``flex_link_forces.flex_forces``: the joint-level ones, and the
wrenches and spring-dampers at frames). Its derivatives: M, C_t = dID/du - dtau/du, K_t =
dID/dq - dtau/dq (``galpha_step.force_jacobian`` for the joint-level force models' share,
``flex_link_forces.frame_force_jacobian`` for the frame entries'), the rigid
``iteration_matrix``'s terms with the flex derivatives in place of ``rnea_derivatives_core``.

With enabled constraints (the loops' ``ta`` variants) the ODE is the tree-augmented
constrained dynamics u_dot = ``flex_entry.flex_constrained_udot`` with the run's Baumgarte
gains (as the explicit methods step it), and its Jacobian (``flex_ta_jacobian``) is (I,
-du_dot/du, -du_dot/dq) from the analytic derivatives of that dynamics
(``kernels/flex_constrained_derivatives``, gains included), the force models' share taken
through Mc^-1 (``radau_step.joint_force_share`` and ``frame_force_jacobian``,
``with_force_models``): the rigid
``radau_step.ta_jacobian``'s equations with the flex constrained derivatives.
"""
import numpy as np
from numba import njit

from ..algorithms.flex_derivatives import constrained_work_sizes
from ..kernels.flex_constrained_derivatives import flex_constrained_dynamics_derivatives
from ..kernels.flex_derivatives_entry import derivatives_work_size, inverse_dynamics_derivatives_flex
from ..kernels.flex_entry import flex_tau
from ..kernels.status import OK
from .flex_link_forces import flex_forces, frame_force_jacobian
from .galpha_step import force_jacobian
from .radau_step import joint_force_share, with_force_models

__all__ = ["flex_work", "flex_residual", "flex_iteration_matrix", "flex_ta_jacobian"]


def flex_work(dbuf=None, c=None):
    """The flex derivatives' work for a run on data buffer ``dbuf``: (T, frames, wrenches, S),
    T of ``derivatives_work_size`` numbers; for a tree (c None) no frame wrenches held in the
    derivatives (the force models' share is ``frame_force_jacobian``'s) and S unread; for
    compiled model ``c`` with enabled constraints (``flex_ta_jacobian``) a row per moving
    constraint frame (the constraint wrenches held there) and S the constrained derivatives'
    scratch. With dbuf None (a rigid model) arrays of the same kinds, unread."""
    size = 1 if dbuf is None else derivatives_work_size(dbuf)
    if c is None:
        return np.zeros(size), np.zeros(0, dtype=np.int64), np.zeros((0, 6)), np.zeros(1)
    nk, tangents, scratch = constrained_work_sizes(c)
    return np.zeros(tangents), np.zeros(nk, dtype=np.int64), np.zeros((nk, 6)), np.zeros(scratch)


@njit(cache=True, inline="always")
def flex_residual(mi, mf, ws, dbuf, fmi, fmf, t, q1, u1, x, src, tau, r):
    """r = ID_flex(q1, u1, x) - tau at t (module docstring)."""
    flex_forces(mi, mf, ws, dbuf, fmi, fmf, q1, u1, t, src, tau)
    flex_tau(dbuf, q1, u1, x, r)
    for i in range(r.shape[0]):
        r[i] -= tau[i]


@njit(cache=True, inline="always")
def flex_iteration_matrix(mi, mf, ws, dbuf, fw, fmi, fmf, t, q1, u1, x, src, tau, gq, gu, K, C, S):
    """S = M + gu C + gq K at (t, q1, u1, x), K = dr/dq (tangent) and C = dr/du of
    ``flex_residual``, kept in K and C; fw from ``flex_work``. False where the derivatives
    are not finite (the state's, or an overflow)."""
    T, frames, wrenches = fw[0], fw[1], fw[2]
    flex_forces(mi, mf, ws, dbuf, fmi, fmf, q1, u1, t, src, tau)
    if inverse_dynamics_derivatives_flex(dbuf, q1, u1, x, frames, wrenches, T, K, C, S) != OK:
        return False
    force_jacobian(fmi, fmf, q1, u1, K, C)
    frame_force_jacobian(mi, ws, dbuf, fmi, fmf, t, q1, u1, K, C)
    n = S.shape[0]
    for r in range(n):
        for c in range(n):
            S[r, c] += gu * C[r, c] + gq * K[r, c]
    return True


@njit(cache=True, inline="always")
def flex_ta_jacobian(mi, mf, ws, dbuf, fmi, fmf, t, q0, u0, src, tau, ta_work, fw, M, C, K):
    """M = I, K = -du_dot/dq (tangent), C = -du_dot/du at (q0, u0) of the tree-augmented
    constrained dynamics of a model with modal bodies, with the run's Baumgarte gains (module
    docstring); ta_work from ``radau_loop.ta_work`` (its Wc, M^-1's work, E, Minv, Kf, Cf), fw
    from ``flex_work(dbuf, c)``. False where the derivatives fail (a singular inertia, an
    overflow)."""
    Wc, Wm, E, Minv, Kf, Cf = ta_work[0], ta_work[1], ta_work[3], ta_work[6], ta_work[7], ta_work[8]
    flex_forces(mi, mf, ws, dbuf, fmi, fmf, q0, u0, t, src, tau)
    if flex_constrained_dynamics_derivatives(dbuf, q0, u0, tau, Wc, fw[1], fw[2], fw[0], fw[3], E, Wm, K, C,
                                             Minv) != OK:
        return False
    joint_force_share(fmi, fmf, q0, u0, Kf, Cf)
    frame_force_jacobian(mi, ws, dbuf, fmi, fmf, t, q0, u0, Kf, Cf)
    with_force_models(Minv, Kf, Cf, M, C, K)
    return True
