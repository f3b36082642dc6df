"""The subhinge kind table: one vocabulary for kernels and Python.

Kernels switch on the integer codes (module-level constants, folded by Numba) in
``joints/dispatch.py``, which calls the kind's own module of ``joints/`` (its placement,
coordinate maps, Lie-group step and chart or quaternion upkeep); Python looks a kind up by
code or name in ``KINDS`` and asks its properties instead of comparing strings (sizes,
neutral coordinates, whether position limits apply, units). ``LOCKED`` owns no coordinates
and becomes a link only for a welded modal body, which owns coordinates (compile merges the
rigid bodies it welds). Adding a kind: docs/architecture.md, "Adding a joint kind".
"""
from typing import NamedTuple

PIN = 0            # rotation by q about a unit axis
SLIDER = 1         # translation by q along a unit axis
SCREW = 2          # rotation q about the axis and translation pitch*q along it
SPHERICAL = 3      # rotation vector in a re-centred chart: R = R(chart) exp(q)
SPHERICAL_QUAT = 4  # unit quaternion (x, y, z, w)
FREE = 5           # [rotation vector (chart as SPHERICAL); position]
FREE_QUAT = 6      # [quaternion (x, y, z, w); position]
TRANSLATIONAL = 7  # 3-dof translation, q = position, u = q_dot
LOCKED = 8         # no motion (welds two bodies)


class Kind(NamedTuple):
    """One row of the kind table.

    ``rotation``: how the kind parametrises a rotation ("none", "axis" for a scalar
    angle, "rotvec" for a rotation vector in a re-centred chart, "quat" for a unit
    quaternion); ``translation``: "none", "axis" (scalar) or "vector" (3 coordinates,
    after the rotation ones); ``axis``: the kind has a joint axis (compile frames its
    link with z along it).
    """

    code: int
    name: str
    nq: int
    nu: int
    rotation: str
    translation: str

    @property
    def axis(self):
        return self.rotation == "axis" or self.translation == "axis"

    @property
    def chart(self):
        """True for kinds whose rotation vector lives in a re-centred chart."""
        return self.rotation == "rotvec"

    @property
    def quaternion(self):
        return self.rotation == "quat"

    @property
    def free(self):
        """True for the 6-dof kinds (a rotation and a position vector)."""
        return self.rotation in ("rotvec", "quat") and self.translation == "vector"

    @property
    def neutral_q(self):
        """Coordinates of the zero displacement (a tuple of nq floats): the identity
        quaternion (0, 0, 0, 1) first for the quaternion kinds, zeros elsewhere."""
        head = (0.0, 0.0, 0.0, 1.0) if self.quaternion else ()
        return head + (0.0,) * (self.nq - len(head))

    @property
    def position_limits(self):
        """True when position limits may bound the kind's coordinates: scalar coordinates
        only (not rotation vectors in a chart nor quaternions)."""
        return not (self.chart or self.quaternion)


KINDS = (
    Kind(PIN, "pin", 1, 1, "axis", "none"),
    Kind(SLIDER, "slider", 1, 1, "none", "axis"),
    Kind(SCREW, "screw", 1, 1, "axis", "axis"),
    Kind(SPHERICAL, "spherical", 3, 3, "rotvec", "none"),
    Kind(SPHERICAL_QUAT, "spherical_quat", 4, 3, "quat", "none"),
    Kind(FREE, "free", 6, 6, "rotvec", "vector"),
    Kind(FREE_QUAT, "free_quat", 7, 6, "quat", "vector"),
    Kind(TRANSLATIONAL, "translational", 3, 3, "none", "vector"),
    Kind(LOCKED, "locked", 0, 0, "none", "none"),
)
KIND_BY_NAME = {k.name: k for k in KINDS}
assert all(k.code == i for i, k in enumerate(KINDS))
