"""multibody: dynamics of articulated multibody systems with O(N) spatial-operator algorithms.

Quick start::

    import multibody as mb
    m = mb.load_urdf("robot.urdf")
    q = m.neutral_q(); u = np.zeros(m.nu)
    udot = m.forward_dynamics(q, u, np.zeros(m.nu))
"""
from .model import (
    HINGE_KINDS, FreeQuaternionSubhinge, FreeSubhinge, Hinge, LockedSubhinge, Multibody, Node,
    PinSubhinge, RigidBody, ScrewSubhinge, SliderSubhinge, SphericalQuaternionSubhinge,
    SphericalSubhinge, Subhinge, TranslationalSubhinge,
)

__version__ = "0.1.0"


def load_urdf(path, floating_base=False, package_dirs=None):
    """Load a URDF file into a ready Multibody; see ``multibody.io.urdf.load_urdf``."""
    from .io.urdf import load_urdf as _load
    return _load(path, floating_base=floating_base, package_dirs=package_dirs)
