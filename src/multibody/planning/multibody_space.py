"""The configuration space of a ``Multibody`` as a :class:`LiegroupSpace`.

Uses only the multibody's public API: ``hinges`` (in coordinate order, each with
``name``, ``child`` and ``subhinges`` having ``kind_info`` (their row of the kind table)
and, for rotation-vector subhinges, ``chart_offset``) and ``q_limits()``, ``q_slice`` /
``u_slice``, ``nq`` / ``nu``, ``chart_offsets()`` and, for modal bodies, ``modal_bodies``
and ``modal_slice`` / ``modal_u_slice``.
"""

from __future__ import annotations

import numpy as np

from ..kernels.kinds import KIND_BY_NAME
from .factors import SO3, Factor, VectorSpace
from .rigid_factors import SE3
from .space import LiegroupSpace

__all__ = ["configuration_space"]


def _subhinge_factor(subhinge, chart_offset) -> Factor | None:
    """The factor of one subhinge, from its row of the kind table."""
    kind = KIND_BY_NAME.get(subhinge.kind)
    if kind is None:
        raise ValueError(f"subhinge kind {subhinge.kind!r} has no Lie-group factor; expected one of "
                         f"pin, slider, screw, translational, spherical, spherical_quat, free, "
                         f"free_quat, locked")
    if kind.nq == 0:
        return None
    if kind.rotation in ("none", "axis"):
        return VectorSpace(kind.nq)
    group = SE3 if kind.free else SO3
    return group("rotvec", chart_offset) if kind.chart else group("quaternion")


def configuration_space(multibody) -> LiegroupSpace:
    """The :class:`LiegroupSpace` of a multibody's coordinates ``q``, tangent ``u``.

    One factor per hinge in coordinate order (named after the hinge; a hinge whose
    subhinges give several factors has them named ``"hinge[k]"``): consecutive
    pin / slider / screw / translational subhinges of a hinge form one ``R^n``;
    ``spherical`` is ``SO(3)`` in the rotation-vector chart (with the subhinge's
    current chart offset), ``spherical_quat`` ``SO(3)`` with a quaternion,
    ``free`` / ``free_quat`` ``SE(3)`` (exact: ``T' = T exp([omega; v])``, ``u`` in the
    child frame); locked subhinges have no factor. A modal body's coordinates eta follow its
    hinge's as one ``R^n`` named ``"body.modes"``, with sampling bounds [0, 0] (``random``
    draws them undeformed, as ``random_q`` does; pass other ``lower`` / ``upper`` to
    ``LiegroupSpace(space.factors, space.names, ...)`` to sample deflections: how large an
    eta is depends on how the modes are normalised). Then ``space.nq == m.nq``,
    ``space.nv == m.nu`` and ``space.integrate(q, u)`` moves like ``m.integrate(q, u)``.

    The hinges' position limits (``Hinge.lower`` / ``upper``) become the space's sampling
    bounds: ``space.random`` draws limited coordinates within them. Chart offsets and
    limits are read when the space is built: rebuild it after ``Multibody.sanitize``
    moved a chart or a limit changed.
    """
    offsets = multibody.chart_offsets() if hasattr(multibody, "chart_offsets") else {}
    modal = {b.name for b in getattr(multibody, "modal_bodies", ())}
    factors: list[Factor] = []
    names: list[str] = []
    q_at = 0
    v_at = 0
    lower, upper = [], []
    for hinge in multibody.hinges:
        qs = multibody.q_slice(hinge.name)
        us = multibody.u_slice(hinge.name)
        if qs.start != q_at or us.start != v_at:
            raise ValueError(f"hinge {hinge.name!r}: coordinates are not contiguous in hinge "
                             f"order (q starts at {qs.start}, expected {q_at})")
        rot_subhinges = [s for s in hinge.subhinges if s.kind_info.chart]
        hinge_factors: list[Factor] = []
        for s in hinge.subhinges:
            off = None
            if s.kind_info.chart:
                if len(rot_subhinges) == 1 and hinge.name in offsets:
                    off = offsets[hinge.name]
                else:
                    off = getattr(s, "chart_offset", None)
            f = _subhinge_factor(s, off)
            if f is None:
                continue
            if f.is_vector_space and hinge_factors and hinge_factors[-1].is_vector_space:
                hinge_factors[-1] = VectorSpace(hinge_factors[-1].nq + f.nq)
            else:
                hinge_factors.append(f)
        nq = sum(f.nq for f in hinge_factors)
        nv = sum(f.nv for f in hinge_factors)
        if nq != qs.stop - qs.start or nv != us.stop - us.start:
            raise ValueError(f"hinge {hinge.name!r}: factors give nq={nq}, nv={nv} but the "
                             f"multibody has nq={qs.stop - qs.start}, nu={us.stop - us.start}")
        for k, f in enumerate(hinge_factors):
            factors.append(f)
            names.append(hinge.name if len(hinge_factors) == 1 else f"{hinge.name}[{k}]")
        lo, hi = hinge.q_limits()
        lower.append(lo)
        upper.append(hi)
        q_at, v_at = qs.stop, us.stop
        if hinge.child.name in modal:  # the body's modal coordinates follow its hinge's
            mq, mu = multibody.modal_slice(hinge.child), multibody.modal_u_slice(hinge.child)
            if mq.start != q_at or mu.start != v_at:
                raise ValueError(f"modal body {hinge.child.name!r}: its modal coordinates do not follow "
                                 f"hinge {hinge.name!r} (q starts at {mq.start}, expected {q_at})")
            n = mq.stop - mq.start
            factors.append(VectorSpace(n))
            names.append(f"{hinge.child.name}.modes")
            lower.append(np.zeros(n))  # sampled undeformed, as random_q's default
            upper.append(np.zeros(n))
            q_at, v_at = mq.stop, mu.stop
    if q_at != multibody.nq or v_at != multibody.nu:
        raise ValueError(f"hinges cover nq={q_at}, nu={v_at} of the multibody's nq="
                         f"{multibody.nq}, nu={multibody.nu}")
    return LiegroupSpace(factors, names, lower=np.concatenate(lower) if lower else None,
                         upper=np.concatenate(upper) if upper else None)
