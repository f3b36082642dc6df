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


def other_axes(axis):
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
        b, c = other_axes(ax)
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


def finite_number(value, what, unbounded=None):
    """float(value), or ValueError naming ``what`` if it is not a finite number (or the
    infinity ``unbounded``, which means no bound)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not (np.isfinite(v) or v == unbounded):
        raise ValueError(f"{what} must be finite{'' if unbounded is None else f' or {unbounded}'}, got {value!r}")
    return v


def _nonnegative(value, what):
    """None, or a finite float >= 0 (ValueError naming ``what``)."""
    if value is None:
        return None
    v = finite_number(value, what)
    if v < 0:
        raise ValueError(f"{what} must be >= 0, got {value!r}")
    return v


def _metadata_limit(attr, what, doc):
    """A property for a limit kept as metadata: None or a finite float >= 0."""
    def fget(self):
        return getattr(self, attr)

    def fset(self, value):
        setattr(self, attr, _nonnegative(value, f"hinge {self.name!r}: {what} limit"))
    return property(fget, fset, doc=doc)


def _coordinate_parameter(attr, what, signed, doc):
    """A property for a joint-dynamics parameter: one finite float for every coordinate of
    the hinge, or a tuple of one per generalized speed; >= 0 unless ``signed``."""
    def fget(self):
        return getattr(self, attr)

    def fset(self, value):
        label = f"hinge {self.name!r}: {what}"
        if np.ndim(value) == 0:
            v = finite_number(value, label)
        else:
            v = tuple(finite_number(x, f"{label}[{i}]") for i, x in enumerate(np.asarray(value, dtype=object).ravel()))
            if len(v) != self.nu:
                raise ValueError(f"{label} must be a scalar or one value per generalized speed ({self.nu}), "
                                 f"got {len(v)} values")
        if not signed and min(np.atleast_1d(v)) < 0:
            raise ValueError(f"{label} must be >= 0, got {value!r}")
        setattr(self, attr, v)
    return property(fget, fset, doc=doc)


def _limit_array(value, n, default):
    """A limit value (None, float, or tuple of floats-or-None) as an (n,) array, ``default``
    (+-inf) where unbounded."""
    if value is None:
        return np.full(n, default)
    if isinstance(value, tuple):
        return np.array([default if v is None else v for v in value], dtype=float)
    return np.full(n, value)


def sample_within_limits(rng, q, lower, upper, scale):
    """Resample in place the entries of q (n,) that have limits: uniform in [lower, upper]
    where both are finite, in [lower, lower + 2 scale] or [upper - 2 scale, upper] where one
    is; other entries are left alone. Draws from ``rng`` only when some entry is limited,
    so unbounded models sample as before."""
    lo_f, hi_f = np.isfinite(lower), np.isfinite(upper)
    lim = lo_f | hi_f
    if not lim.any():
        return q
    a = np.where(lo_f, lower, upper - 2.0 * scale)[lim]
    b = np.where(hi_f, upper, lower + 2.0 * scale)[lim]
    q[lim] = rng.uniform(a, b)
    return q


class Hinge:
    """The joint connecting ``child`` to ``parent`` (None for the world).

    Attributes: ``name``, ``kind``, ``parent``, ``child``, ``subhinges``,
    ``T_parent_joint``, ``T_child_joint``, ``armature``, the position limits ``lower`` /
    ``upper`` (honoured by ``random_q``, the configuration-space sampler and ``simulate``)
    the joint dynamics ``damping``, ``friction``, ``spring_stiffness``/``spring_reference``
    (from URDF ``<dynamics>``, SDFormat and MJCF; 0 when the file has none), which
    ``simulate`` and ``rollout`` apply by default (``simulation.joint_dynamics``), the
    ``effort`` limit that clamps the joint forces a simulation applies, the ``velocity``
    limit (metadata) and ``mimic`` (dict with joint, multiplier, offset).
    """

    def __init__(self, name, parent, child, kind, subhinges, T_parent_joint=None, T_child_joint=None):
        self.name = name
        self.parent = parent
        self.child = child
        self.kind = kind
        self.subhinges = list(subhinges)
        for s in self.subhinges:
            s.hinge = self
        self.parent_node = None  # the node of the parent its o-frame is placed in (add_hinge)
        self.T_parent_joint = check_transform(T_parent_joint, f"hinge {name!r} T_parent_joint")
        self.T_child_joint = check_transform(T_child_joint, f"hinge {name!r} T_child_joint")
        self._lower = self._upper = self._effort = self._velocity = None
        self.damping = 0.0
        self.friction = 0.0
        self.spring_stiffness = 0.0
        self.spring_reference = 0.0
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

    # ------------------------------------------------------------------ limits
    @property
    def lower(self):
        """Lower position limit of the hinge's coordinates [rad for angles, m for offsets], or
        None (unbounded). A float bounds every coordinate (the usual one-coordinate pin or
        slider, as URDF's ``<limit lower>``); a tuple of nq floats-or-None bounds each.
        Settable; checked: finite where given (or -inf, unbounded; +inf for ``upper``), <= ``upper``, and only on hinges whose
        coordinates are scalars (no spherical or free subhinge). Limits are read when they
        are used (no recompilation). ``set_limits`` sets both bounds at once."""
        return self._lower

    @lower.setter
    def lower(self, value):
        self.set_limits(value, self._upper)

    @property
    def upper(self):
        """Upper position limit [rad or m], or None (unbounded); as ``lower``."""
        return self._upper

    @upper.setter
    def upper(self, value):
        self.set_limits(self._lower, value)

    def set_limits(self, lower, upper):
        """Set both position limits (each None, a float, or nq floats-or-None); ValueError
        naming the hinge for a non-finite bound, lower > upper, or rotation coordinates."""
        lo, hi = self._limit_value(lower, "lower"), self._limit_value(upper, "upper")
        a, b = _limit_array(lo, self.nq, -np.inf), _limit_array(hi, self.nq, np.inf)
        bad = np.flatnonzero(a > b)
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"hinge {self.name!r}: lower limit {a[k]:g} > upper limit {b[k]:g} "
                             f"(coordinate {k})")
        self._lower, self._upper = lo, hi

    def _limit_value(self, value, what):
        """``value`` as None, a float or a tuple of nq floats-or-None (checked)."""
        if value is None:
            return None
        if not all(s.kind_info.position_limits for s in self.subhinges):
            raise ValueError(f"hinge {self.name!r} ({self.kind}) has rotation coordinates: position "
                             f"limits ({what}) apply to scalar coordinates only")
        inf = -np.inf if what == "lower" else np.inf
        if np.ndim(value) == 0:
            return finite_number(value, f"hinge {self.name!r}: {what} limit", inf)
        if len(value) != self.nq:
            raise ValueError(f"hinge {self.name!r}: {what} limit needs {self.nq} values (one per "
                             f"coordinate), got {len(value)}")
        return tuple(None if v is None else finite_number(v, f"hinge {self.name!r}: {what} limit", inf)
                     for v in value)

    def q_limits(self):
        """(lower (nq,), upper (nq,)) position limits per coordinate, -inf / +inf where unbounded."""
        return _limit_array(self._lower, self.nq, -np.inf), _limit_array(self._upper, self.nq, np.inf)

    @property
    def has_limits(self):
        """True when some coordinate of the hinge has a position limit."""
        if self._lower is None and self._upper is None:
            return False
        lo, hi = self.q_limits()
        return bool(np.isfinite(lo).any() or np.isfinite(hi).any())

    def limits_text(self):
        """The hinge's limits in one line, e.g. ``[-2.9, 2.9] rad, effort 87 N m, velocity
        2.2 rad/s`` (one bracket per coordinate, ``-inf``/``inf`` where unbounded)."""
        units = [u for s in self.subhinges for u in ["rad" if s.kind_info.rotation != "none" else "m"] * s.nq]
        lo, hi = self.q_limits()
        parts = [f"[{a:.6g}, {b:.6g}] {u}" for a, b, u in zip(lo, hi, units)]
        one = units[0] if len(set(units)) == 1 else None
        for nm, v, unit in (("effort", self._effort, {"rad": "N m", "m": "N"}.get(one, "")),
                            ("velocity", self._velocity, {"rad": "rad/s", "m": "m/s"}.get(one, ""))):
            if v is not None:
                parts.append(f"{nm} {v:.6g} {unit}".rstrip())
        return ", ".join(parts)

    effort = _metadata_limit("_effort", "effort", """Effort limit (URDF ``<limit effort>``)
        [N m or N], None or a finite value >= 0: ``simulate`` and ``rollout`` clamp the
        joint forces they are given (``tau``, a control's) to it on every coordinate of the
        hinge, and say so (``simulation.joint_dynamics``).""")
    damping = _coordinate_parameter("_damping", "damping", False, """Viscous damping c >= 0
        [N m s/rad or N s/m]: tau = -c u, a scalar or one per speed.""")
    friction = _coordinate_parameter("_friction", "friction", False, """Coulomb friction
        F >= 0 [N m or N] (URDF ``friction``, MJCF ``frictionloss``), a scalar or one per
        speed; see ``simulation.joint_dynamics.JointDynamics`` for the law.""")
    spring_stiffness = _coordinate_parameter("_spring_stiffness", "spring_stiffness", False, """Joint
        spring k >= 0 [N m/rad or N/m]: tau = -k (q - spring_reference), a scalar or one per
        speed (scalar coordinates only).""")
    spring_reference = _coordinate_parameter("_spring_reference", "spring_reference", True, """The
        spring's rest position [rad or m], a scalar or one per speed.""")

    def joint_dynamics(self):
        """(damping, friction, spring_stiffness, spring_reference), each (nu,) float arrays."""
        return tuple(np.broadcast_to(np.asarray(getattr(self, k), dtype=float), (self.nu,)).copy()
                     for k in ("damping", "friction", "spring_stiffness", "spring_reference"))
    velocity = _metadata_limit("_velocity", "velocity", """Speed limit (URDF ``<limit
        velocity>``) [rad/s or m/s], None or a finite value >= 0; metadata: no algorithm
        enforces it.""")

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
