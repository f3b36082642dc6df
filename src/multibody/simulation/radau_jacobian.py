"""Radau's Jacobian at a step's start, one compiled function per loop variant.

``radau_loop._prepare`` forms the Jacobian (M, C, K) where the last step asked for it
(``radau_loop`` module docstring, point 2): for a tree the inverse dynamics' derivatives less
the force models' (``galpha_step.iteration_matrix``), with enabled constraints the
tree-augmented dynamics' (``radau_step.ta_jacobian``), for modal bodies their analytic
counterparts (``flex_implicit``), then its tangent form (``radau_step.tangent_jacobian``).

Each variant is compiled out of line under its own name, as the variant's ``rate`` and
``newton`` are (``radau_newton``): written inline in ``_prepare``, the helper Numba inlines
at its call site carried every variant's Jacobian, inlined into it, until the branches on
the loop's constants were pruned, and copying that code (Numba copies an inlined function's
IR at each call site) took a sixth of a Radau loop's compile time. Called once per Jacobian
formed, the call costs nothing measurable.
"""
from numba import njit

from ..kernels.variants import variant
from .flex_implicit import flex_iteration_matrix, flex_ta_jacobian
from .galpha_step import iteration_matrix
from .radau_step import ta_jacobian, tangent_jacobian

__all__ = ["jacobian"]


def jacobian_variant(flex, links, ta):
    """The compiled ``jacobian(model, t, q, u, src, rw)`` of the variant: (M, C, K) in rw at
    (t, q, u) with the joint forces ``src``, and their tangent form (D, Cp, Kp). False where
    an inertia is singular or the derivatives fail."""

    @variant(f"radau_jacobian_flex{int(flex)}_links{int(links)}_ta{int(ta)}")
    def form(model, t, q, u, src, rw):
        mi, mf, ws, z, fr, cr, dbuf, worldf, fmi, fmf = model
        f0, M, C, K, phi, tau, kq, D, Cp, Kp = rw[5], rw[8], rw[9], rw[10], rw[19], rw[20], rw[21], rw[24], rw[25], \
            rw[26]
        nu = u.shape[0]
        if flex and ta:  # (I, -du_dot/du, -du_dot/dq) of the modal bodies' constrained dynamics
            if not flex_ta_jacobian(mi, mf, ws, dbuf, fmi, fmf, t, q, u, src, tau, rw[27], rw[28], M, C, K):
                return False
        elif flex:  # (M, C, K): the flex inverse dynamics' analytic derivatives less the force models'
            if not flex_iteration_matrix(mi, mf, ws, dbuf, rw[28], fmi, fmf, t, q, u, f0[nu:], src, tau, 0.0, 0.0, K,
                                         C, M):
                return False
        elif ta:  # (I, -du_dot/du, -du_dot/dq) of the constrained dynamics
            if not ta_jacobian(mi, mf, fr, cr, ws, z, fmi, fmf, links, t, q, u, src, tau, rw[27], M, C, K):
                return False
        else:  # (M, C, K): the inverse dynamics' derivatives less the force models'
            iteration_matrix(mi, mf, ws, fmi, fmf, links, t, q, u, f0[nu:], src, tau, 0.0, 0.0, K, C, M)
        tangent_jacobian(mi, u, phi, kq, M, C, K, D, Cp, Kp)
        return True

    return form


radau_jacobian_flex0_links0_ta0 = jacobian_variant(0, 0, 0)
radau_jacobian_flex0_links1_ta0 = jacobian_variant(0, 1, 0)
radau_jacobian_flex1_links0_ta0 = jacobian_variant(1, 0, 0)
radau_jacobian_flex1_links0_ta1 = jacobian_variant(1, 0, 1)
radau_jacobian_flex0_links0_ta1 = jacobian_variant(0, 0, 1)
radau_jacobian_flex0_links1_ta1 = jacobian_variant(0, 1, 1)


@njit(cache=True, inline="always")
def jacobian(flex, links, ta, model, t, q, u, src, rw):
    """The variant's ``jacobian`` (``flex``, ``links``, ``ta``: constants whose branches are
    pruned)."""
    if flex:
        if ta:
            return radau_jacobian_flex1_links0_ta1(model, t, q, u, src, rw)
        return radau_jacobian_flex1_links0_ta0(model, t, q, u, src, rw)
    if ta:
        if links:
            return radau_jacobian_flex0_links1_ta1(model, t, q, u, src, rw)
        return radau_jacobian_flex0_links0_ta1(model, t, q, u, src, rw)
    if links:
        return radau_jacobian_flex0_links1_ta0(model, t, q, u, src, rw)
    return radau_jacobian_flex0_links0_ta0(model, t, q, u, src, rw)
