"""The algorithms, as free functions of a Multibody: ``f(m, ...)``.

Each is also a method of ``Multibody`` (``m.forward_dynamics(q, u, tau)`` is
``forward_dynamics(m, q, u, tau)``). They read the model's compiled constants
(``m.compiled``) and write a Data object: ``data=`` one from ``m.create_data()``,
or by default the calling thread's own.
"""
from .constraint_kinematics import ConstraintError, ConstraintKinematicsSolver, constraint_kinematics
from .constraints import (
    acceleration_error, baumgarte_gains, constrained_dynamics, constrained_inverse_dynamics, constraint_bias,
    constraint_jacobian, constraint_nodes, constraint_q_matrix, error_map, pose_error, pose_error_gradient,
    velocity_error,
)
from .coordinates import chart_offsets, global_q, integrate, neutral_q, qdot, random_q, reset_charts, sanitize
from .detection import Contacts, contacts
from .derivatives import forward_dynamics_derivatives, inverse_dynamics_derivatives, linearize, modal_analysis
from .dynamics import bias_forces, forward_dynamics, gravity_forces, inverse_dynamics, inverse_mass_matrix, mass_matrix
from .energy import center_of_mass, kinetic_energy, potential_energy, strain_energy
from .kinematics import body_acceleration, body_jacobian, body_pose, body_velocity, pose_gradient, u_from_qdot_matrix
from .operational_space import operational_space_compliance

__all__ = [
    "chart_offsets", "global_q", "integrate", "neutral_q", "qdot", "random_q", "reset_charts", "sanitize",
    "bias_forces", "forward_dynamics", "gravity_forces", "inverse_dynamics", "inverse_mass_matrix", "mass_matrix",
    "center_of_mass", "kinetic_energy", "potential_energy", "strain_energy",
    "forward_dynamics_derivatives", "inverse_dynamics_derivatives", "linearize", "modal_analysis",
    "body_acceleration", "body_jacobian", "body_pose", "body_velocity", "pose_gradient", "u_from_qdot_matrix",
    "operational_space_compliance",
    "Contacts", "contacts",
    "ConstraintError", "ConstraintKinematicsSolver", "constraint_kinematics",
    "acceleration_error", "baumgarte_gains", "constrained_dynamics", "constrained_inverse_dynamics", "constraint_bias",
    "constraint_jacobian", "constraint_nodes", "constraint_q_matrix", "error_map", "pose_error", "pose_error_gradient",
    "velocity_error",
]
