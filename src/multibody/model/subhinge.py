"""Subhinges: the elementary joints a hinge is built from.

Each subhinge moves a frame (its p-frame) relative to another (its o-frame) and
owns one contiguous slice of q (``nq`` entries) and of u (``nu`` entries).
Speeds u are expressed in the p-frame; for rotational subhinges with more than
one dof they are quasi-velocities (angular velocity), so q_dot = N(q) u.

A subclass names its kind (``kind``); its sizes ``nq``/``nu`` and neutral coordinates come
from that kind's row of the table (``kernels/kinds.py``), its motion subspace from the
kind's module (``kernels/joints/``), where the kernels' formulas of the kind are too.
"""
import numpy as np

from ..kernels.joints import (
    free, free_quat, locked, pin, screw, slider, spherical, spherical_quat, translational,
)
from ..kernels.kinds import KIND_BY_NAME


def _unit_axis(axis, what):
    a = np.asarray(axis, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: axis must be a finite 3-vector, got {axis!r}")
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ValueError(f"{what}: axis must be non-zero, got {axis!r}")
    return a / n


class Subhinge:
    """Base class. ``kind`` is the subhinge's name, ``nq``/``nu`` its sizes, ``pitch``
    [m/rad] the translation along its axis per unit rotation (0 but for a screw)."""

    kind = "abstract"
    nq = 0
    nu = 0
    pitch = 0.0

    def __init_subclass__(cls, **kwargs):
        """Take the sizes of a subclass's kind from the kind table (one home for them)."""
        super().__init_subclass__(**kwargs)
        row = KIND_BY_NAME.get(cls.kind)
        if row is not None:
            cls.nq, cls.nu = row.nq, row.nu

    def __init__(self, name=None):
        self.name = name
        self.hinge = None

    @property
    def code(self):
        """Kernel kind code (see ``multibody.kernels.kinds``)."""
        return KIND_BY_NAME[self.kind].code

    @property
    def kind_info(self):
        """This subhinge's row of the kind table (``multibody.kernels.kinds.Kind``)."""
        return KIND_BY_NAME[self.kind]

    def neutral_q(self):
        """Coordinates of the zero displacement, shape (nq,) (the kind table's ``neutral_q``)."""
        row = KIND_BY_NAME.get(self.kind)
        return np.zeros(self.nq) if row is None else np.array(row.neutral_q, dtype=float)

    def motion_subspace(self):
        """S (6, nu): joint velocity [w; v] of the p-frame (in the p-frame) per unit u."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self._describe()})"

    def _describe(self):
        return ""


class PinSubhinge(Subhinge):
    """Revolute joint: rotation by q [rad] about a unit ``axis`` (o-frame = p-frame axis)."""

    kind = "pin"

    def __init__(self, axis=(0.0, 0.0, 1.0), name=None):
        super().__init__(name)
        self.axis = _unit_axis(axis, "PinSubhinge")

    def motion_subspace(self):
        return pin.motion_subspace(self.axis)

    def _describe(self):
        return f"axis={np.round(self.axis, 6).tolist()}"


class SliderSubhinge(Subhinge):
    """Prismatic joint: translation by q [m] along a unit ``axis``."""

    kind = "slider"

    def __init__(self, axis=(0.0, 0.0, 1.0), name=None):
        super().__init__(name)
        self.axis = _unit_axis(axis, "SliderSubhinge")

    def motion_subspace(self):
        return slider.motion_subspace(self.axis)

    def _describe(self):
        return f"axis={np.round(self.axis, 6).tolist()}"


class ScrewSubhinge(Subhinge):
    """Helical joint: rotation q [rad] about ``axis`` with translation ``pitch``*q [m] along it."""

    kind = "screw"

    def __init__(self, axis=(0.0, 0.0, 1.0), pitch=0.0, name=None):
        super().__init__(name)
        self.axis = _unit_axis(axis, "ScrewSubhinge")
        if not np.isfinite(pitch):
            raise ValueError(f"ScrewSubhinge: pitch must be finite, got {pitch!r}")
        self.pitch = float(pitch)

    def motion_subspace(self):
        return screw.motion_subspace(self.axis, self.pitch)

    def _describe(self):
        return f"axis={np.round(self.axis, 6).tolist()}, pitch={self.pitch}"


class SphericalSubhinge(Subhinge):
    """3-dof rotation in minimal rotation-vector coordinates with a re-centred chart.

    The p-frame orientation is R = R(chart_offset) exp([q]x); q are chart-relative
    coordinates and u is the angular velocity of the p-frame in the p-frame, so
    q_dot = Jr(q)^-1 u. ``max_chart_angle`` [rad] is the angle |q| past which
    ``Multibody.sanitize`` re-centres the chart (offset <- offset exp(q), q <- 0),
    keeping q away from the 2*pi singularity of the rotation-vector map.
    """

    kind = "spherical"

    def __init__(self, max_chart_angle=np.pi / 2, name=None):
        super().__init__(name)
        self.max_chart_angle = max_chart_angle
        self.chart_offset = np.array([0.0, 0.0, 0.0, 1.0])

    @property
    def max_chart_angle(self):
        """Angle |q| [rad], in (0, pi), past which ``Multibody.sanitize`` re-centres the chart.
        Settable; the compiled model holds it (``max_chart_angles``), so setting it marks the
        model's compiled constants stale, as a changed armature does."""
        return self._max_chart_angle

    @max_chart_angle.setter
    def max_chart_angle(self, value):
        if not (np.isfinite(value) and 0.0 < value < np.pi):
            raise ValueError(f"max_chart_angle must be in (0, pi), got {value!r}")
        self._max_chart_angle = float(value)
        mb = getattr(getattr(self.hinge, "child", None), "multibody", None)
        if mb is not None:  # (else the runs and sanitize went on with the angle compiled before)
            mb.invalidate()

    def motion_subspace(self):
        return spherical.motion_subspace()

    def reset_chart(self):
        """Forget the chart offset (R = exp(q) again); q must be re-expressed by the caller."""
        self.chart_offset = np.array([0.0, 0.0, 0.0, 1.0])


class SphericalQuaternionSubhinge(Subhinge):
    """3-dof rotation with a unit quaternion q = (x, y, z, w); u = angular velocity (p-frame)."""

    kind = "spherical_quat"

    def motion_subspace(self):
        return spherical_quat.motion_subspace()


class FreeSubhinge(SphericalSubhinge):
    """6-dof free joint: q = [rotation vector (chart as SphericalSubhinge); position (3)].

    The position is that of the p-frame origin in the o-frame; u = [w; v] of the
    p-frame relative to the o-frame, expressed in the p-frame (p_dot = R v).
    """

    kind = "free"

    def motion_subspace(self):
        return free.motion_subspace()


class FreeQuaternionSubhinge(Subhinge):
    """6-dof free joint: q = [unit quaternion (x, y, z, w); position (3)], u = [w; v] in the p-frame."""

    kind = "free_quat"

    def motion_subspace(self):
        return free_quat.motion_subspace()


class TranslationalSubhinge(Subhinge):
    """3-dof translation: q = position of the p-frame origin in the o-frame, u = q_dot."""

    kind = "translational"

    def motion_subspace(self):
        return translational.motion_subspace()


class LockedSubhinge(Subhinge):
    """No motion: the p-frame is welded to the o-frame (0 coordinates)."""

    kind = "locked"

    def motion_subspace(self):
        return locked.motion_subspace()
