"""Hinges: the joint between a parent body and a child body, made of subhinges.

The hinge's o-frame is fixed on the parent at ``T_parent_joint`` (pose in the
parent body frame); its p-frame is fixed on the child at ``T_child_joint`` (pose
in the child body frame). The subhinges, applied in order, move the p-frame
relative to the o-frame; the hinge's q and u are the subhinges' slices in order.
"""
import numpy as np

from .body import check_transform
from .subhinge import (
    FreeQuaternionSubhinge, FreeSubhinge, LockedSubhinge, PinSubhinge, ScrewSubhinge,
    SliderSubhinge, SphericalQuaternionSubhinge, SphericalSubhinge, TranslationalSubhinge,
)

_X = (1.0, 0.0, 0.0)
_Y = (0.0, 1.0, 0.0)
_Z = (0.0, 0.0, 1.0)

#: Hinge kinds accepted by ``Multibody.add_hinge`` (aliases map to the same kind).
HINGE_KINDS = {
    "pin": "pin", "revolute": "pin", "continuous": "pin",
    "slider": "slider", "prismatic": "slider",
    "screw": "screw", "helical": "screw",
    "spherical": "spherical", "ball": "spherical",
    "spherical_quat": "spherical_quat", "ball_quat": "spherical_quat",
    "free": "free", "floating": "free",
    "free_quat": "free_quat",
    "locked": "locked", "fixed": "locked",
    "universal": "universal",
    "gimbal": "gimbal",
    "planar": "planar",
    "cylindrical": "cylindrical",
    "translational": "translational",
}


def _other_axes(axis):
    """Two unit vectors that complete ``axis`` to a right-handed frame."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    t = np.array(_X) if abs(a[0]) < 0.9 else np.array(_Y)
    b = np.cross(a, t)
    b /= np.linalg.norm(b)
    return b, np.cross(a, b)


def make_subhinges(kind, axis=None, axes=None, pitch=0.0):
    """Build the subhinge list of a hinge kind (see ``HINGE_KINDS``).

    ``axis`` is the joint axis of 1-axis kinds (pin, slider, screw, cylindrical) and
    the plane normal of ``planar``; ``axes`` lists the axes of universal (2) and
    gimbal (3, default x, y, z) hinges.
    """
    if kind not in HINGE_KINDS:
        raise ValueError(f"unknown hinge kind {kind!r}; expected one of {sorted(HINGE_KINDS)}")
    k = HINGE_KINDS[kind]
    ax = _Z if axis is None else axis
    if k == "pin":
        return [PinSubhinge(ax)]
    if k == "slider":
        return [SliderSubhinge(ax)]
    if k == "screw":
        return [ScrewSubhinge(ax, pitch)]
    if k == "spherical":
        return [SphericalSubhinge()]
    if k == "spherical_quat":
        return [SphericalQuaternionSubhinge()]
    if k == "free":
        return [FreeSubhinge()]
    if k == "free_quat":
        return [FreeQuaternionSubhinge()]
    if k == "locked":
        return [LockedSubhinge()]
    if k == "translational":
        return [TranslationalSubhinge()]
    if k == "cylindrical":
        return [SliderSubhinge(ax), PinSubhinge(ax)]
    if k == "planar":
        b, c = _other_axes(ax)
        return [SliderSubhinge(b), SliderSubhinge(c), PinSubhinge(ax)]
    if k == "universal":
        axes = (_X, _Y) if axes is None else axes
        if len(axes) != 2:
            raise ValueError(f"universal hinge needs 2 axes, got {len(axes)}")
        return [PinSubhinge(a) for a in axes]
    if k == "gimbal":
        axes = (_X, _Y, _Z) if axes is None else axes
        if len(axes) != 3:
            raise ValueError(f"gimbal hinge needs 3 axes, got {len(axes)}")
        return [PinSubhinge(a) for a in axes]
    raise AssertionError(k)


class Hinge:
    """The joint connecting ``child`` to ``parent`` (None for the world).

    Attributes: ``name``, ``kind``, ``parent``, ``child``, ``subhinges``,
    ``T_parent_joint``, ``T_child_joint``, ``armature`` and metadata kept from model files:
    ``lower``/``upper`` position limits, ``effort`` and ``velocity`` limits,
    ``damping``/``friction``, and ``mimic`` (dict with joint, multiplier, offset).
    """

    def __init__(self, name, parent, child, kind, subhinges, T_parent_joint=None, T_child_joint=None):
        self.name = name
        self.parent = parent
        self.child = child
        self.kind = kind
        self.subhinges = list(subhinges)
        for s in self.subhinges:
            s.hinge = self
        self.T_parent_joint = check_transform(T_parent_joint, f"hinge {name!r} T_parent_joint")
        self.T_child_joint = check_transform(T_child_joint, f"hinge {name!r} T_child_joint")
        self.lower = None
        self.upper = None
        self.effort = None
        self.velocity = None
        self.damping = 0.0
        self.friction = 0.0
        self.mimic = None
        self._armature = np.zeros(self.nu)

    @property
    def armature(self):
        """Reflected rotor inertia of each speed of the hinge, (nu,) [kg m^2 for rotations,
        kg for translations], default 0: it adds to the mass matrix's diagonal, as a motor
        behind a gear of ratio r adds r^2 times its rotor's inertia. Every algorithm honours
        it (as Pinocchio's ``armature`` and MuJoCo's joint ``armature``). Settable with a
        scalar (every speed) or an (nu,) array of finite values >= 0."""
        return self._armature.copy()

    @armature.setter
    def armature(self, value):
        a = np.broadcast_to(np.asarray(value, dtype=float), (self.nu,)) if np.ndim(value) == 0 \
            else np.asarray(value, dtype=float)
        if a.shape != (self.nu,) or not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ValueError(f"hinge {self.name!r}: armature must be a finite scalar or ({self.nu},) "
                             f"array >= 0, got {value!r}")
        self._armature = np.array(a)
        mb = getattr(self.child, "multibody", None)
        if mb is not None:
            mb.invalidate()

    @property
    def nq(self):
        """Number of configuration coordinates of the hinge (sum over its subhinges)."""
        return sum(s.nq for s in self.subhinges)

    @property
    def nu(self):
        """Number of generalized speeds of the hinge (sum over its subhinges)."""
        return sum(s.nu for s in self.subhinges)

    def neutral_q(self):
        """Neutral coordinates of the hinge, shape (nq,)."""
        parts = [s.neutral_q() for s in self.subhinges]
        return np.concatenate(parts) if parts else np.zeros(0)

    def __repr__(self):
        parent = "world" if self.parent is None else self.parent.name
        return f"Hinge({self.name!r}, {self.kind}, {parent} -> {self.child.name})"
