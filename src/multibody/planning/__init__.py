"""Motion-planning constraints on Lie-group configuration spaces.

- :mod:`.liegroup`: :class:`LiegroupSpace`, products of R^n, SO(2), SO(3), SE(2),
  SE(3) and R^3 x SO(3), with integrate / difference and their Jacobians (re-exported
  from :mod:`.factors`, :mod:`.rigid_factors`, :mod:`.space`, :mod:`.indices` and
  :mod:`.multibody_space`; the group formulas are :mod:`multibody.spatial.fast`);
- :mod:`.functions`: differentiable functions between such spaces and a
  finite-difference Jacobian checker;
- :mod:`.explicit_constraint`: explicit constraints ``q_out = g^-1(f(q_in) ⊕ rhs)``;
- :mod:`.explicit_constraint_set`: :class:`ExplicitConstraintSet`, compatible
  explicit constraints solved in dependency order;
- :mod:`.multibody_constraints`: the configuration space of a ``Multibody`` and
  ready-made constraints (locked hinge, mimic, relative pose).
"""

from .explicit_constraint import (ComparisonType, Equality, EqualToZero, ExplicitConstraint,
                                  ImplicitFunction, index_segments)
from .explicit_constraint_set import ExplicitConstraintSet
from .functions import (AffineFunction, ConstantFunction, DifferentiableFunction,
                        FunctionFromCallables, IdentityFunction, JacobianCheck, check_jacobian,
                        finite_difference_jacobian)
from .liegroup import (SE2, SE3, SO2, SO3, Factor, LiegroupSpace, R3xSO3, VectorSpace,
                       as_index_array, configuration_space)
from .multibody_constraints import (LockedHinge, Mimic, RelativePose, RelativePoseError,
                                    mimic_constraints)

__all__ = [
    "LiegroupSpace", "Factor", "VectorSpace", "SO2", "SO3", "SE2", "SE3", "R3xSO3",
    "as_index_array",
    "configuration_space", "LockedHinge", "Mimic", "RelativePose", "RelativePoseError",
    "mimic_constraints",
    "DifferentiableFunction", "FunctionFromCallables", "AffineFunction", "ConstantFunction",
    "IdentityFunction", "finite_difference_jacobian", "check_jacobian", "JacobianCheck",
    "ComparisonType", "Equality", "EqualToZero", "ExplicitConstraint", "ImplicitFunction",
    "index_segments", "ExplicitConstraintSet",
]
