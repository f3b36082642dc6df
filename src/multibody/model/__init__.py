"""Model objects: Multibody, bodies, hinges, subhinges, nodes, collision shapes."""
from .body import Node, RigidBody
from .collision import CollisionShape
from .collision_compile import ContactModel
from .hinge import HINGE_KINDS, Hinge, make_subhinges
from .multibody import Multibody
from .heightfield import Heightfield
from .shapes import Box, Capsule, ConvexMesh, Cylinder, Ellipsoid, Plane, Shape, Sphere
from .subhinge import (
    FreeQuaternionSubhinge, FreeSubhinge, LockedSubhinge, PinSubhinge, ScrewSubhinge, SliderSubhinge,
    SphericalQuaternionSubhinge, SphericalSubhinge, Subhinge, TranslationalSubhinge,
)

__all__ = [
    "Box",
    "Capsule",
    "CollisionShape",
    "ConvexMesh",
    "ContactModel",
    "Cylinder",
    "Ellipsoid",
    "Heightfield",
    "Plane",
    "Shape",
    "Sphere",
    "Node",
    "RigidBody",
    "HINGE_KINDS",
    "Hinge",
    "make_subhinges",
    "Multibody",
    "FreeQuaternionSubhinge",
    "FreeSubhinge",
    "LockedSubhinge",
    "PinSubhinge",
    "ScrewSubhinge",
    "SliderSubhinge",
    "SphericalQuaternionSubhinge",
    "SphericalSubhinge",
    "Subhinge",
    "TranslationalSubhinge",
]
