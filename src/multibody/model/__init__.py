"""Model objects: Multibody, bodies, hinges, subhinges, nodes."""
from .body import Node, RigidBody
from .hinge import HINGE_KINDS, Hinge, make_subhinges
from .multibody import Multibody
from .subhinge import (
    FreeQuaternionSubhinge, FreeSubhinge, LockedSubhinge, PinSubhinge, ScrewSubhinge, SliderSubhinge,
    SphericalQuaternionSubhinge, SphericalSubhinge, Subhinge, TranslationalSubhinge,
)

__all__ = [
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
