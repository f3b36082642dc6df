"""The methods of ``Multibody`` that live in the layers above ``model``.

``model`` builds and compiles and runs no algorithm, and imports nothing above it; the
algorithms (``multibody.algorithms``), constraint embedding, the sub-tree views
(``multibody.views``), file export (``multibody.io``) and the configuration space
(``multibody.planning``) are nevertheless methods of a Multibody: the package attaches them
here, once, when ``multibody`` is imported (its ``__init__`` imports this module after the
layers). Each method *is* its free function: ``Multibody.forward_dynamics is
algorithms.forward_dynamics``, so ``m.forward_dynamics(q, u, tau)`` makes no delegating call.
"""
from .algorithms import constraint_embedding, constraints, coordinates, derivatives, dynamics, energy, kinematics
from .algorithms import detection, operational_space
from .algorithms.constraint_kinematics import constraint_kinematics
from .io.model_file import save_model
from .io.to_urdf import to_urdf
from .model import Multibody
from .planning.multibody_space import configuration_space
from .views import sub_graph, sub_tree

#: method name -> the function that is the method (its first argument the Multibody)
METHODS = {
    "forward_dynamics": dynamics.forward_dynamics,
    "inverse_dynamics": dynamics.inverse_dynamics,
    "mass_matrix": dynamics.mass_matrix,
    "inverse_mass_matrix": dynamics.inverse_mass_matrix,
    "bias_forces": dynamics.bias_forces,
    "gravity_forces": dynamics.gravity_forces,
    "inverse_dynamics_derivatives": derivatives.inverse_dynamics_derivatives,
    "forward_dynamics_derivatives": derivatives.forward_dynamics_derivatives,
    "linearize": derivatives.linearize,
    "modal_analysis": derivatives.modal_analysis,
    "operational_space_compliance": operational_space.operational_space_compliance,
    "body_pose": kinematics.body_pose,
    "frame_pose": kinematics.body_pose,
    "body_jacobian": kinematics.body_jacobian,
    "frame_jacobian": kinematics.body_jacobian,
    "body_velocity": kinematics.body_velocity,
    "body_acceleration": kinematics.body_acceleration,
    "u_from_qdot_matrix": kinematics.u_from_qdot_matrix,
    "pose_gradient": kinematics.pose_gradient,
    "neutral_q": coordinates.neutral_q,
    "random_q": coordinates.random_q,
    "q_limits": coordinates.q_limits,
    "qdot": coordinates.qdot,
    "integrate": coordinates.integrate,
    "sanitize": coordinates.sanitize,
    "chart_offsets": coordinates.chart_offsets,
    "global_q": coordinates.global_q,
    "reset_charts": coordinates.reset_charts,
    "kinetic_energy": energy.kinetic_energy,
    "potential_energy": energy.potential_energy,
    "center_of_mass": energy.center_of_mass,
    "pose_error": constraints.pose_error,
    "velocity_error": constraints.velocity_error,
    "acceleration_error": constraints.acceleration_error,
    "constraint_jacobian": constraints.constraint_jacobian,
    "constraint_bias": constraints.constraint_bias,
    "pose_error_gradient": constraints.pose_error_gradient,
    "constraint_nodes": constraints.constraint_nodes,
    "constraint_q_matrix": constraints.constraint_q_matrix,
    "constrained_dynamics": constraints.constrained_dynamics,
    "constrained_inverse_dynamics": constraints.constrained_inverse_dynamics,
    "constraint_kinematics": constraint_kinematics,
    "contacts": detection.contacts,
    "aggregation_sub_graph": constraint_embedding.aggregation_sub_graph,
    "embedded_forward_dynamics": constraint_embedding.embedded_forward_dynamics,
    "sub_tree": sub_tree,
    "sub_graph": sub_graph,
    "save": save_model,
    "to_urdf": to_urdf,
    "configuration_space": configuration_space,
}


def attach(cls=Multibody):
    """Make each function of ``METHODS`` a method of ``cls`` under its name; a name the class
    defines itself is an error (a method is defined in one place)."""
    for name, function in METHODS.items():
        if name in vars(cls) and vars(cls)[name] is not function:
            raise RuntimeError(f"{cls.__name__}.{name} is defined twice (in the class and in METHODS)")
        setattr(cls, name, function)


attach()
