"""Spatial algebra in NumPy: SO(3), SE(3), quaternions, spatial vectors and inertias.

The user-facing, pure-NumPy layer of :mod:`multibody` (kernels use their own
Numba scalar helpers). Conventions, binding for the whole library:

* spatial vectors are ``[angular; linear]`` (6,): velocity ``[ω; v]`` with ``v`` the
  velocity of the frame origin, force ``[moment; force]`` about the frame origin;
* ``T_AB`` (4, 4) maps coordinates in B to A: ``p_A = R_AB p_B + p_AB``;
* quaternions are scalar-last ``(x, y, z, w)`` with the Hamilton product;
* a rotation vector ``v`` is ``R = exp([v]x)`` with angle ``|v|``;
* Jacobians: ``exp(x + dx) ≈ exp(x) exp(Jr(x) dx) ≈ exp(Jl(x) dx) exp(x)``.

Every function validates its inputs and raises ``ValueError`` naming the argument and
the expected shape for a wrong shape or non-finite values, then runs the same formula
as its namesake in :mod:`multibody.spatial.fast`. SI units throughout.

:mod:`multibody.spatial.fast` (``from multibody.spatial import fast``): the unchecked
helpers, for hot loops; inputs must be valid float64 arrays of the right shape.
Same names and conventions (``fast.so3_exp``, ``fast.so3_log``, the SO(3) and SE(3)
Jacobians and their inverses, ``fast.se3_exp`` / ``se3_log`` / ``se3_integrate``,
quaternion operations, motion / force transforms) plus ``quat_canonical`` and the
planar group SE(2) (``se2_exp``, ``se2_log``, ``se2_adjoint``, ``se2_right_jacobian``,
``se2_right_jacobian_inv``). Each formula and its small-angle series cut-offs live
only there.
"""

from . import fast
from .charts import rotvec_change_chart, rotvec_recenter
from .inertia import inertia_from_spatial, spatial_inertia, transform_spatial_inertia
from .quaternion import (
    matrix_to_quat,
    quat_conjugate,
    quat_from_rotvec,
    quat_identity,
    quat_inverse,
    quat_multiply,
    quat_normalize,
    quat_rotate,
    quat_to_matrix,
    quat_to_rotvec,
)
from .rpy import matrix_to_rpy, rpy_to_matrix
from .se3 import (
    se3_difference,
    se3_exp,
    se3_hat,
    se3_integrate,
    se3_left_jacobian,
    se3_left_jacobian_inv,
    se3_log,
    se3_right_jacobian,
    se3_right_jacobian_inv,
    se3_vee,
    transform,
    transform_from_rotvec,
    transform_inverse,
    transform_point,
)
from .so3 import (
    matrix_to_rotvec,
    rotvec_to_matrix,
    skew,
    so3_difference,
    so3_exp,
    so3_integrate,
    so3_left_jacobian,
    so3_left_jacobian_inv,
    so3_log,
    so3_right_jacobian,
    so3_right_jacobian_inv,
    unskew,
)
from .spatial_vectors import (
    crf,
    crm,
    force_transform,
    force_transform_inverse,
    motion_transform,
    motion_transform_inverse,
    spatial_cross_force,
    spatial_cross_motion,
)

__all__ = [
    # unchecked helpers (module)
    "fast",
    # so3
    "skew", "unskew", "so3_exp", "so3_log", "rotvec_to_matrix", "matrix_to_rotvec",
    "so3_right_jacobian", "so3_right_jacobian_inv", "so3_left_jacobian",
    "so3_left_jacobian_inv", "so3_integrate", "so3_difference",
    # quaternion
    "quat_identity", "quat_multiply", "quat_conjugate", "quat_inverse", "quat_normalize",
    "quat_to_matrix", "matrix_to_quat", "quat_from_rotvec", "quat_to_rotvec", "quat_rotate",
    # rpy
    "rpy_to_matrix", "matrix_to_rpy",
    # charts
    "rotvec_change_chart", "rotvec_recenter",
    # se3
    "transform", "transform_inverse", "transform_from_rotvec", "transform_point",
    "se3_hat", "se3_vee", "se3_exp", "se3_log", "se3_left_jacobian",
    "se3_left_jacobian_inv", "se3_right_jacobian", "se3_right_jacobian_inv",
    "se3_integrate", "se3_difference",
    # spatial vectors
    "motion_transform", "motion_transform_inverse", "force_transform",
    "force_transform_inverse", "spatial_cross_motion", "spatial_cross_force", "crm", "crf",
    # inertia
    "spatial_inertia", "inertia_from_spatial", "transform_spatial_inertia",
]
