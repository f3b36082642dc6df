"""Spatial algebra, unchecked: for hot loops; inputs must be valid float64 arrays of the right shape.

These are the formulas every checked function of :mod:`multibody.spatial` runs after
validating its inputs (each formula and each small-angle series cut-off has this one
home). They skip the validation, which costs several times the arithmetic for
3-vectors: call them in inner loops where the inputs are already known to be good.

Contract (nothing is checked; a violation gives wrong numbers or an exception from
deep inside, not a ``ValueError`` naming the argument):

* every array argument is a ``numpy.ndarray`` of dtype float64 with the stated shape
  (rotation vectors (3,), quaternions (4,), rotation matrices (3, 3), transforms
  (4, 4), twists / motion vectors (6,), SE(2) twists (3,)), finite;
* rotation matrices and transforms are rigid (orthonormal, det +1, last row
  ``[0, 0, 0, 1]``); quaternions are nonzero (normalised where stated).

Conventions are those of :mod:`multibody.spatial`: spatial vectors ``[angular;
linear]``, quaternions scalar-last ``(x, y, z, w)`` with the Hamilton product,
``exp(x + dx) ≈ exp(x) exp(Jr(x) dx) ≈ exp(Jl(x) dx) exp(x)``, radians and metres.
Functions return new arrays and never modify their arguments.

Beyond the checked API this module has ``quat_canonical`` (unit, ``w >= 0``),
``transform(R, p)`` without checks, the SO(3) series coefficients ``coef_a`` ..
``coef_d`` and the planar group SE(2): an element is ``(angle, p (2,))``, a twist
``[ω; vx; vy]`` (body frame): ``se2_exp``, ``se2_log``, ``se2_adjoint``,
``se2_right_jacobian``, ``se2_right_jacobian_inv``.

Example::

    from multibody.spatial import fast
    T = np.eye(4)
    for xi in twists:                      # float64 (6,) body twists [ω; v]
        T = fast.se3_integrate(T, xi * dt)
"""

from ._fast_rigid import (force_transform, force_transform_inverse, motion_transform,
                          motion_transform_inverse, se2_adjoint, se2_exp, se2_log,
                          se2_right_jacobian, se2_right_jacobian_inv, se3_difference, se3_exp,
                          se3_integrate, se3_left_jacobian, se3_left_jacobian_inv, se3_log,
                          se3_right_jacobian, se3_right_jacobian_inv, spatial_cross_force,
                          spatial_cross_motion, transform, transform_inverse)
from ._fast_rot import (CANCEL_ANGLE, SERIES_ANGLE, coef_a, coef_b, coef_c, coef_d,
                        matrix_to_quat, quat_canonical, quat_conjugate, quat_from_rotvec,
                        quat_inverse, quat_multiply, quat_normalize, quat_rotate,
                        quat_to_matrix, quat_to_rotvec, skew, so3_difference, so3_exp,
                        so3_integrate, so3_left_jacobian, so3_left_jacobian_inv, so3_log,
                        so3_right_jacobian, so3_right_jacobian_inv, unskew)

__all__ = [
    # SO(3)
    "skew", "unskew", "so3_exp", "so3_log", "so3_left_jacobian", "so3_left_jacobian_inv",
    "so3_right_jacobian", "so3_right_jacobian_inv", "so3_integrate", "so3_difference",
    # quaternions
    "quat_multiply", "quat_conjugate", "quat_inverse", "quat_normalize", "quat_canonical",
    "quat_to_matrix", "matrix_to_quat", "quat_from_rotvec", "quat_to_rotvec", "quat_rotate",
    # SE(3) and spatial vectors
    "transform", "transform_inverse", "se3_exp", "se3_log", "se3_integrate", "se3_difference",
    "se3_left_jacobian", "se3_left_jacobian_inv", "se3_right_jacobian",
    "se3_right_jacobian_inv", "motion_transform", "motion_transform_inverse",
    "force_transform", "force_transform_inverse", "spatial_cross_motion",
    "spatial_cross_force",
    # SE(2)
    "se2_exp", "se2_log", "se2_adjoint", "se2_right_jacobian", "se2_right_jacobian_inv",
    # series coefficients and their cut-offs (rad)
    "coef_a", "coef_b", "coef_c", "coef_d", "SERIES_ANGLE", "CANCEL_ANGLE",
]
