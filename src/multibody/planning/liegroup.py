"""Lie-group configuration spaces: products of R^n, SO(2), SO(3), SE(2), SE(3), R^3 x SO(3).

A :class:`LiegroupSpace` is an ordered product of *factors*. A configuration ``q`` is
the concatenation of the factors' coordinates (``nq`` numbers in all), a tangent
vector ``v`` the concatenation of the factors' velocities (``nv`` numbers). The
space offers

- ``integrate(q, v)``  = q ⊕ v, the configuration reached from ``q`` along ``v``
  in unit time (right/body-frame convention: ``R' = R exp(omega)``);
- ``difference(q0, q1)`` = q1 ⊖ q0, the ``v`` with ``q0 ⊕ v == q1``;
- their Jacobians in the same tangent (velocity) coordinates::

      (q ⊕ dq) ⊕ v      ~= (q ⊕ v) ⊕ (d_integrate_dq(q, v) @ dq)
      q ⊕ (v + dv)      ~= (q ⊕ v) ⊕ (d_integrate_dv(q, v) @ dv)
      q1 ⊖ (q0 ⊕ d0)    ~= q1 ⊖ q0 + d_difference_dq0(q0, q1) @ d0
      (q1 ⊕ d1) ⊖ q0    ~= q1 ⊖ q0 + d_difference_dq1(q0, q1) @ d1

Factors and their coordinates (project conventions: rotation first, angular first,
quaternions scalar-last (x, y, z, w))

==============  =====================================  ==================================
factor          q                                      v
==============  =====================================  ==================================
``R^n``         x (n)                                  x_dot (n)
``SO(2)``       (cos t, sin t)                         t_dot (1)
``SO(3)``       quaternion (4) or rotation vector (3)  omega in the body frame (3)
``SE(2)``       (cos t, sin t, x, y)                   [t_dot; v_body] (3), T' = T exp(v)
``SE(3)``       [rotation (4 or 3); position (3)]      [omega; v] body frame, T' = T exp(v)
``R^3xSO(3)``   [rotation (4 or 3); position (3)]      [omega (body); p_dot (parent)]
==============  =====================================  ==================================

``SE(3)`` is the exact group of the free hinge: ``u = [omega; v]`` of the child frame
expressed in the child frame, ``T' = T exp([omega; v])`` (so ``p' = p + R Jl(omega) v``).
``R^3xSO(3)`` is the direct product (``R' = R exp(omega)``, ``p' = p + p_dot``): same
coordinates, different tangent. Rotation-vector charts keep ``|rotvec| <= pi`` after
``integrate``; quaternion charts keep ``|q| = 1``.

The implementation is split into :mod:`.factors` (the :class:`Factor` base class,
R^n, SO(2), SO(3)), :mod:`.rigid_factors` (SE(2), SE(3), R^3 x SO(3)), :mod:`.space`
(:class:`LiegroupSpace`), :mod:`.indices` (:func:`as_index_array`) and
:mod:`.multibody_space` (:func:`configuration_space`); this module re-exports them.
The group formulas are the unchecked helpers of :mod:`multibody.spatial.fast`.
"""

from .factors import SO2, SO3, Factor, VectorSpace
from .indices import as_index_array
from .multibody_space import configuration_space
from .rigid_factors import SE2, SE3, R3xSO3
from .space import LiegroupSpace

__all__ = [
    "LiegroupSpace", "Factor", "VectorSpace", "SO2", "SO3", "SE2", "SE3", "R3xSO3",
    "as_index_array", "configuration_space",
]
