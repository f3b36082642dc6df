"""multibody: dynamics of articulated multibody systems with O(N) spatial-operator algorithms.

Quick start::

    import multibody as mb
    m = mb.load_urdf("robot.urdf")
    q = m.neutral_q(); u = np.zeros(m.nu)
    udot = m.forward_dynamics(q, u, np.zeros(m.nu))
"""
from . import _kernel_cache  # noqa: F401  (first: it stamps the cached kernels, see there)
from .model import (
    Box, Capsule, CollisionShape, ConvexMesh, Cylinder, Ellipsoid, Heightfield, Plane, Sphere,
    HINGE_KINDS, FreeQuaternionSubhinge, FreeSubhinge, Hinge, LockedSubhinge, Multibody, Node,
    PinSubhinge, RigidBody, ScrewSubhinge, SliderSubhinge, SphericalQuaternionSubhinge,
    SphericalSubhinge, Subhinge, TranslationalSubhinge,
)

from . import algorithms, planning, simulation, spatial
from . import interop
from .io.model_file import load_model
from .io.urdf import load_urdf, load_urdf_string
from .io.mjcf import load_mjcf
from .io.sdf import load_sdf
from .planning import ExplicitConstraintSet, LiegroupSpace
from .results import load_result
from .sweep import sweep
from .simulation import (
    Actuator, ContactWarmStart, EffortLimitWarning, Event, JointDynamics, ButcherTableau, ExpandingStorage,
    ExternalForce, JointLimits, JointLimitWarning, JointSpringDamper,
    LinearSpringDamper, MuntheKaasIntegrator, OdeResultsSink,
    RingBufferStorage, RolloutResult, RungeKuttaIntegrator, SimulationError, SimulationResult, rollout, simulate,
    SampleFailure, SimulationTerminated,
)
from . import methods  # noqa: F401  (after the layers: attaches Multibody's methods from above model)

__version__ = "0.1.0"


def view(m, q=None, **kwargs):
    """Show model ``m`` in a browser at ``q``, or replay a ``SimulationResult``: see
    ``multibody.viz.view`` (needs ``pip install "multibody[viewer]"``; viser is imported
    only here, on the first call)."""
    from .viz import view as _view
    return _view(m, q, **kwargs)

__all__ = [
    "Box",
    "Capsule",
    "CollisionShape",
    "ConvexMesh",
    "Cylinder",
    "Ellipsoid",
    "Heightfield",
    "Plane",
    "Sphere",
    "HINGE_KINDS",
    "FreeQuaternionSubhinge",
    "FreeSubhinge",
    "Hinge",
    "LockedSubhinge",
    "Multibody",
    "Node",
    "PinSubhinge",
    "RigidBody",
    "ScrewSubhinge",
    "SliderSubhinge",
    "SphericalQuaternionSubhinge",
    "SphericalSubhinge",
    "Subhinge",
    "TranslationalSubhinge",
    "algorithms",
    "interop",
    "planning",
    "simulation",
    "spatial",
    "load_mjcf",
    "load_sdf",
    "load_model",
    "load_urdf",
    "load_urdf_string",
    "ExplicitConstraintSet",
    "LiegroupSpace",
    "ButcherTableau",
    "ExpandingStorage",
    "ExternalForce",
    "JointLimits",
    "JointLimitWarning",
    "JointDynamics",
    "EffortLimitWarning",
    "Actuator",
    "JointSpringDamper",
    "LinearSpringDamper",
    "ContactWarmStart",
    "MuntheKaasIntegrator",
    "OdeResultsSink",
    "Event",
    "RingBufferStorage",
    "RolloutResult",
    "rollout",
    "RungeKuttaIntegrator",
    "SampleFailure",
    "SimulationError",
    "SimulationTerminated",
    "SimulationResult",
    "load_result",
    "simulate",
    "sweep",
    "view",
]
