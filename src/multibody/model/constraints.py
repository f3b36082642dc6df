"""Bilateral constraints of a sub-graph: hinge loops, constant-velocity (convel) and coordinate constraints.

Every constraint is a list of scalar **residual rows**; the kernels evaluate them row by
row (kernels/constraint_rows.py). A row is one of

* ``ALIGN``   r = (R_a e) . (R_b b): a unit vector e fixed in frame a stays perpendicular to
  a unit vector b fixed in frame b (locks the rotation about e x b);
* ``TRANS``   r = (R_a c) . (p_b - p_a): frame b's origin does not move along c (fixed in a);
* ``SCREW``   r = (R_a a) . (p_b - p_a) - pitch * theta: the axial slide of a screw follows
  its turn theta about a (measured between the e1 axes of the two frames);
* ``CONVEL``  velocity level only: n . (relative spatial velocity of b in a) = 0, with the
  6-vector n = [n_w; n_v] fixed in a (no position-level residual);
* ``COORD``   r = q_a - ratio q_b - offset between two one-dof hinges.

A hinge loop constraint of kind k is the cut joint of that kind between node a (its
o-frame side) and node b (its p-frame side): when the loop is closed at the joint's zero
displacement the two node frames coincide. Its rows lock what the joint does not free:
6 - nu(k) rows (pin 5, slider 5, screw 5, cylindrical 4, universal 4, spherical 3,
planar 3, translational 3, locked 6). Its **error form** is 6 numbers, E r with the
constant 6 x rows map E: [rotation error; translation error] of b relative to a in a's
axes, to first order, with the components the joint frees left at zero (seed 000 packs
errors 6 per hinge loop and residuals 6 - nu per hinge loop).
"""
import numpy as np

from .hinge import HINGE_KINDS, other_axes

ALIGN, TRANS, SCREW, CONVEL, COORD = 1, 2, 3, 4, 5
_X, _Y, _Z = np.eye(3)

#: hinge kinds a loop constraint accepts (free has no loop meaning: it constrains nothing)
LOOP_KINDS = ("pin", "slider", "screw", "cylindrical", "universal", "spherical", "gimbal",
              "planar", "translational", "locked")


def _unit(v, what):
    v = np.asarray(v, dtype=float)
    if v.shape != (3,) or not np.all(np.isfinite(v)) or np.linalg.norm(v) < 1e-12:
        raise ValueError(f"{what} must be a finite non-zero 3-vector, got {v!r}")
    return v / np.linalg.norm(v)


class Row:
    """One scalar residual row (see the module docstring); vectors in their frame's axes."""

    __slots__ = ("type", "e", "b", "e2", "scalar", "offset", "slot")

    def __init__(self, type, e=(0, 0, 0), b=(0, 0, 0), e2=(0, 0, 0), scalar=0.0, offset=0.0, slot=(0.0,) * 6):
        self.type = type
        self.e = np.asarray(e, dtype=float)
        self.b = np.asarray(b, dtype=float)
        self.e2 = np.asarray(e2, dtype=float)
        self.scalar = float(scalar)
        self.offset = float(offset)
        self.slot = np.asarray(slot, dtype=float)  # column of the error map E (6,)


def _align(e, b):
    return Row(ALIGN, e, b, slot=np.concatenate([-np.cross(e, b), np.zeros(3)]))


def _trans(c):
    return Row(TRANS, c, slot=np.concatenate([np.zeros(3), c]))


def _weld_rotation():
    return [_align(_Y, _Z), _align(_Z, _X), _align(_X, _Y)]


def _axis_rotation(a):
    e1, e2 = other_axes(a)
    return [_align(e1, a), _align(e2, a)]


def loop_rows(kind, axis=None, axes=None, pitch=0.0, name="loop"):
    """The residual rows of a hinge loop of ``kind`` (see ``LOOP_KINDS``)."""
    if kind not in HINGE_KINDS:
        raise ValueError(f"loop constraint {name!r}: unknown kind {kind!r}; expected one of {LOOP_KINDS}")
    k = HINGE_KINDS[kind]
    if k not in LOOP_KINDS:
        raise ValueError(f"loop constraint {name!r}: kind {kind!r} has no loop meaning (it would "
                         f"constrain nothing); expected one of {LOOP_KINDS}")
    a = _unit(_Z if axis is None else axis, f"loop constraint {name!r}: axis")
    t3 = [_trans(_X), _trans(_Y), _trans(_Z)]
    if k == "locked":
        return _weld_rotation() + t3
    if k == "pin":
        return _axis_rotation(a) + t3
    if k in ("spherical", "spherical_quat", "gimbal"):
        return t3
    if k == "translational":
        return _weld_rotation()
    e1, e2 = other_axes(a)
    if k == "slider":
        return _weld_rotation() + [_trans(e1), _trans(e2)]
    if k == "cylindrical":
        return _axis_rotation(a) + [_trans(e1), _trans(e2)]
    if k == "planar":
        return _axis_rotation(a) + [_trans(a)]
    if k == "screw":
        if not np.isfinite(pitch):
            raise ValueError(f"loop constraint {name!r}: pitch must be finite, got {pitch!r}")
        screw = Row(SCREW, a, e1, e2, scalar=pitch, slot=np.concatenate([np.zeros(3), a]))
        return _axis_rotation(a) + [_trans(e1), _trans(e2), screw]
    if k == "universal":
        u1, u2 = (_X, _Y) if axes is None else axes
        u1 = _unit(u1, f"loop constraint {name!r}: axes[0]")
        u2 = _unit(u2, f"loop constraint {name!r}: axes[1]")
        if abs(u1 @ u2) > 1e-9:
            raise ValueError(f"loop constraint {name!r}: universal axes must be perpendicular, got {axes!r}")
        return [_align(u1, u2)] + t3
    raise AssertionError(k)


class Constraint:
    """Base class: a named bilateral constraint; ``rows`` are its residual rows."""

    category = "abstract"

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"constraint name must be a non-empty string, got {name!r}")
        self.name = name
        self.rows = []

    @property
    def n_rows(self):
        """Number of residual rows (scalar equations)."""
        return len(self.rows)

    @property
    def n_error(self):
        """Number of entries in the error form (6 for a hinge loop, else n_rows)."""
        return self.n_rows

    def error_map(self):
        """E (n_error, n_rows): error form = E @ residual."""
        return np.eye(self.n_rows)

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class LoopConstraint(Constraint):
    """A cut hinge of ``kind`` closing a loop between node ``node_a`` and node ``node_b``
    (Node objects; their frames coincide at the joint's zero displacement)."""

    category = "loop"

    def __init__(self, name, node_a, node_b, kind="pin", axis=None, axes=None, pitch=0.0):
        super().__init__(name)
        self.node_a, self.node_b = node_a, node_b
        self.kind = HINGE_KINDS.get(kind, kind)
        self.axis, self.axes, self.pitch = axis, axes, pitch
        self.rows = loop_rows(kind, axis, axes, pitch, name)

    @property
    def nu(self):
        """Degrees of freedom the cut joint leaves free (6 - n_rows)."""
        return 6 - self.n_rows

    @property
    def n_error(self):
        return 6

    def error_map(self):
        return np.column_stack([r.slot for r in self.rows])


class ConvelConstraint(Constraint):
    """n . V_rel = 0: the relative spatial velocity of node b in node a's frame has no
    component along the spatial axis ``axis`` = [n_w; n_v] (6,), fixed in node a."""

    category = "convel"

    def __init__(self, name, node_a, node_b, axis):
        super().__init__(name)
        n = np.asarray(axis, dtype=float)
        if n.shape != (6,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) < 1e-12:
            raise ValueError(f"convel constraint {name!r}: axis must be a finite non-zero "
                             f"6-vector [angular; linear], got {axis!r}")
        self.node_a, self.node_b = node_a, node_b
        self.axis = n
        self.rows = [Row(CONVEL, e=n[:3], e2=n[3:])]


class CoordinateConstraint(Constraint):
    """q_a = ratio * q_b + offset between one-dof hinges ``hinge_a`` and ``hinge_b``
    (gears, differentials, URDF ``<mimic>``)."""

    category = "coordinate"

    def __init__(self, name, hinge_a, hinge_b, ratio=1.0, offset=0.0):
        super().__init__(name)
        for h, what in ((hinge_a, "hinge_a"), (hinge_b, "hinge_b")):
            if h.nq != 1 or h.nu != 1:
                raise ValueError(f"coordinate constraint {name!r}: {what} {h.name!r} has nq={h.nq}, "
                                 f"nu={h.nu}; a coordinate constraint joins one-dof hinges")
        if hinge_a is hinge_b:
            raise ValueError(f"coordinate constraint {name!r}: hinge_a and hinge_b are the same "
                             f"hinge {hinge_a.name!r}")
        for v, what in ((ratio, "ratio"), (offset, "offset")):
            if not np.isfinite(v):
                raise ValueError(f"coordinate constraint {name!r}: {what} must be finite, got {v!r}")
        self.hinge_a, self.hinge_b = hinge_a, hinge_b
        self.ratio, self.offset = float(ratio), float(offset)
        self.rows = [Row(COORD, scalar=ratio, offset=offset)]
