"""Time integration of multibody dynamics: Butcher tableaus, Runge-Kutta and Munthe-Kaas
(Lie-group) integrators with fixed or adaptive steps, result sinks, ready-made force
models, and the ``simulate`` entry point. The stepping loop runs compiled (Numba)."""
from .actuators import Actuator
from .contact_warm_start import ContactWarmStart
from .events import Event, EventRecord
from .forces import ExternalForce, JointLimits, JointLimitWarning, JointSpringDamper, LinearSpringDamper
from .joint_dynamics import EffortLimitWarning, JointDynamics
from .failures import SimulationTerminated
from .integrators import MuntheKaasIntegrator, RungeKuttaIntegrator, SimulationError, integrate, step
from .rollout import RolloutResult, rollout
from .sample_runs import SampleFailure
from .simulate import INTEGRATORS, SimulationResult, simulate
from .sinks import ExpandingStorage, OdeResultsSink, RingBufferStorage
from .tableaus import TABLEAUS, ButcherTableau, get_tableau, runge_kutta_4

__all__ = [
    "ButcherTableau", "TABLEAUS", "get_tableau", "runge_kutta_4",
    "RungeKuttaIntegrator", "MuntheKaasIntegrator", "SimulationError", "SimulationTerminated", "step",
    "integrate",
    "simulate", "SimulationResult", "Event", "EventRecord", "INTEGRATORS", "rollout", "RolloutResult",
    "OdeResultsSink", "ExpandingStorage", "RingBufferStorage",
    "JointSpringDamper", "ExternalForce", "LinearSpringDamper", "JointLimits", "JointLimitWarning",
    "JointDynamics", "EffortLimitWarning", "Actuator", "SampleFailure", "ContactWarmStart",
]
