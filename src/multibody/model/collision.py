"""Collision shapes on bodies and the filters that decide which pairs may touch (issue 21).

A ``CollisionShape`` attaches a shape (``model/shapes.py``) to a body at a pose in the body
frame, with its contact parameters. ``Multibody.add_collision`` makes them (the readers of
URDF, SDF and MJCF call it too); ``m.collision_shapes`` lists them in order. They compile
into ``m.compiled.contact`` (``model/collision_compile.py``). ``body.collisions`` (the
model files' metadata dicts, read by the viewer and the URDF export) is a separate thing.
"""
import numpy as np

from .body import check_transform
from .modal_body import ModalBody
from .shapes import Shape


def _bits(value, what, name):
    """``value`` as an int in [0, 2^31), or ValueError naming the shape and argument."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"collision shape {name!r}: {what} must be an integer bitmask, got {value!r}")
    if not 0 <= int(value) < 2 ** 31:
        raise ValueError(f"collision shape {name!r}: {what} must be in [0, 2^31), got {value!r}")
    return int(value)


def _number(value, what, name, lo, hi=np.inf):
    """``value`` as a finite float in [lo, hi], or ValueError naming the shape and argument."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"collision shape {name!r}: {what} must be a number, got {value!r}") from None
    if not np.isfinite(v) or v < lo or v > hi:
        bound = f">= {lo:g}" if hi == np.inf else f"in [{lo:g}, {hi:g}]"
        raise ValueError(f"collision shape {name!r}: {what} must be finite and {bound}, got {value!r}")
    return v


def _shape(shape, name):
    if not isinstance(shape, Shape):
        raise TypeError(f"collision shape {name!r}: shape must be a Sphere, Capsule, Cylinder, "
                        f"Box, Ellipsoid, Plane, ConvexMesh or Heightfield, got {type(shape).__name__}")
    return shape


def _stiffness(value, name):
    """None (a hard contact) or a finite stiffness > 0 [N/m]."""
    if value is None:
        return None
    v = _number(value, "stiffness", name, 0.0)
    if v == 0.0:
        raise ValueError(f"collision shape {name!r}: stiffness must be > 0 [N/m] (None: a hard contact), got {value!r}")
    return v


def _numbers(value, what, name, n):
    """``value`` as a tuple of n finite floats, or ValueError naming the shape and argument."""
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        v = None
    if v is None or v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ValueError(f"collision shape {name!r}: {what} must be {n} finite numbers, got {value!r}")
    return tuple(float(x) for x in v)


def _solref(value, name):
    """None or MuJoCo's solref: (timeconst > 0, dampratio > 0) or (-stiffness < 0, -damping <= 0)."""
    if value is None:
        return None
    a, b = _numbers(value, "solref", name, 2)
    if not ((a > 0.0 and b > 0.0) or (a < 0.0 and b <= 0.0)):
        raise ValueError(f"collision shape {name!r}: solref must be (timeconst > 0, dampratio > 0) or "
                         f"(-stiffness < 0, -damping <= 0), got {value!r}")
    return a, b


def _solimp(value, name):
    """MuJoCo's solimp (dmin, dmax, width, midpoint, power); the impedance is clamped to
    [1e-4, 0.9999] when used, as MuJoCo does."""
    v = _numbers(value, "solimp", name, 5)
    dmin, dmax, width, mid, power = v
    if not (0.0 <= dmin <= 1.0 and 0.0 <= dmax <= 1.0 and width >= 0.0 and 0.0 < mid < 1.0 and power >= 1.0):
        raise ValueError(f"collision shape {name!r}: solimp must be (dmin, dmax in [0, 1], width >= 0, "
                         f"midpoint in (0, 1), power >= 1), got {value!r}")
    return v


#: MuJoCo's default solimp, taken with a solref given alone.
SOLIMP_DEFAULT = (0.9, 0.95, 0.001, 0.5, 2.0)

_CHECKS = {
    "shape": _shape,
    "pose": lambda v, name: check_transform(v, f"collision shape {name!r}: pose"),
    "friction": lambda v, name: _number(v, "friction", name, 0.0),
    "restitution": lambda v, name: _number(v, "restitution", name, 0.0, 1.0),
    "margin": lambda v, name: _number(v, "margin", name, 0.0),
    "contype": lambda v, name: _bits(v, "contype", name),
    "conaffinity": lambda v, name: _bits(v, "conaffinity", name),
    "stiffness": _stiffness,
    "damping": lambda v, name: _number(v, "damping", name, 0.0),
    "solref": _solref,
    "solimp": _solimp,
}


class CollisionShape:
    """A shape fixed on ``body`` at ``pose`` (4x4, the shape frame in the body frame), or,
    with ``node`` (a ``Node`` of ``body``), pinned to that node at ``pose`` in the node frame:
    on a modal body it then moves with the node's deformed frame (translation and small
    rotation from the node's mode shapes), and its contact forces reach the modal coordinates.

    ``friction`` (>= 0, Coulomb's mu; a pair takes the larger of its two), ``restitution``
    (in [0, 1]; a pair takes the larger), ``margin`` [m] (>= 0; contacts are reported up to
    the sum of a pair's margins), ``contype``/``conaffinity`` (bitmasks: a and b may touch
    when ``contype_a & conaffinity_b or contype_b & conaffinity_a``, MuJoCo's rule). These,
    ``shape`` and ``pose`` may be changed later: they are checked, and the model recompiles;
    ``body`` and ``name`` are fixed.

    Contacts are hard by default (no penetration beyond the solver's regularisation). A soft
    surface is either
    * ``stiffness`` [N/m] (> 0) with ``damping`` [N s/m] (>= 0): a spring-damper in the normal
      of each contact point (as ODE's, SDF's ``<ode><kp>``/``<kd>``), taken implicitly in the
      step: a point under a load F rests at depth F / stiffness (a box face on four corner
      points: its weight over 4 stiffness). A pair's combine in series (1/k = 1/k_a + 1/k_b); or
    * ``solref`` (and ``solimp``, MuJoCo's default if None): MuJoCo's soft constraint, whose
      stiffness scales with the contact's effective mass (MJCF geoms that set them); a pair
      takes the mean of its two shapes'.
    Friction stays hard on a soft surface (no creep under static friction).
    """

    def __init__(self, body, shape, pose=None, name="collision", friction=1.0, restitution=0.0,
                 margin=0.0, contype=1, conaffinity=1, node=None, stiffness=None, damping=0.0,
                 solref=None, solimp=None):
        self.name = name
        self.body = body
        self.node = node
        self.shape = shape
        self.pose = pose
        self.friction = friction
        self.restitution = restitution
        self.margin = margin
        self.contype = contype
        self.conaffinity = conaffinity
        self.stiffness = stiffness
        self.damping = damping
        self.solref = solref
        self.solimp = SOLIMP_DEFAULT if solimp is None else solimp

    def __setattr__(self, key, value):
        """Parameters are checked when set, and a change marks the model for recompiling."""
        if key in ("body", "name", "node") and key in self.__dict__:
            raise AttributeError(f"collision shape {self.name!r}: its {key} is fixed (remove_collision, "
                                 f"then add_collision)")
        check = _CHECKS.get(key)
        if check is not None:
            value = check(value, self.name)
        object.__setattr__(self, key, value)
        mb = getattr(self.body, "multibody", None) if key in _CHECKS else None
        if mb is not None:
            mb.invalidate()

    @property
    def frame_name(self):
        """The frame the shape is fixed in: its node's name, or its body's."""
        return self.body.name if self.node is None else self.node.name

    def __repr__(self):
        where = self.body.name if self.node is None else f"{self.body.name!r} node {self.node.name!r}"
        return f"CollisionShape({self.name!r}: {self.shape!r} on {where!s})"


class CollisionMixin:
    """Collision part of ``Multibody``: shapes on bodies, pair exclusions."""

    @property
    def collision_shapes(self):
        """The collision shapes (``CollisionShape``), in the order they were added."""
        return tuple(self.__dict__.get("_collision_shapes", ()))

    @property
    def collision_excludes(self):
        """The excluded pairs: a tuple of frozensets of two body or shape names."""
        return tuple(self.__dict__.get("_collision_excludes", ()))

    def add_collision(self, body, shape, pose=None, *, name=None, friction=1.0, restitution=0.0,
                      margin=0.0, contype=1, conaffinity=1, node=None, stiffness=None, damping=0.0,
                      solref=None, solimp=None):
        """Attach collision ``shape`` to ``body`` (a body, its name, or ``m.world``/"world" for
        fixed scenery) at ``pose`` (4x4, the shape frame in the body frame; identity if None)
        and return the ``CollisionShape``. ``name`` defaults to "<body>/collision<k>"; see
        ``CollisionShape`` for friction, restitution, margin [m], contype, conaffinity and a
        soft surface (stiffness [N/m] and damping [N s/m], or MuJoCo's solref and solimp).

        ``node`` (a ``Node`` of ``body`` or its name) pins the shape to that node instead,
        ``pose`` then in the node frame: on a modal (flexible) body the shape moves with the
        node's deformed frame and its contact forces excite the modes (a modal body takes as
        many such shapes as it has nodes to pin them to). Without ``node``, a shape on a modal
        body moves with the body frame (the undeformed body), not with its deformation."""
        body = self.as_body(body, "add_collision: body")
        if node is not None:
            node = self._collision_node(body, node)
        shapes = self.__dict__.setdefault("_collision_shapes", [])
        if name is None:
            k = sum(1 for s in shapes if s.body is body)
            name = f"{body.name}/collision{k}"
            while any(s.name == name for s in shapes):
                k += 1
                name = f"{body.name}/collision{k}"
        if not isinstance(name, str) or not name:
            raise ValueError(f"add_collision: name must be a non-empty string, got {name!r}")
        if any(s.name == name for s in shapes):
            raise ValueError(f"add_collision: a collision shape named {name!r} already exists")
        cs = CollisionShape(body, shape, pose, name, friction, restitution, margin, contype, conaffinity, node,
                            stiffness, damping, solref, solimp)
        shapes.append(cs)
        self.invalidate()
        return cs

    def _collision_node(self, body, node):
        """The Node ``node`` (a Node or a node name) of ``body``, or a ValueError naming
        add_collision's ``node``."""
        found = self._nodes.get(node if isinstance(node, str) else getattr(node, "name", None))
        if found is None or (not isinstance(node, str) and found is not node):
            raise ValueError(f"add_collision: node={node!r} is not a node of this multibody "
                             f"(nodes: {sorted(self._nodes)})")
        if found.body is not body:
            raise ValueError(f"add_collision: node {found.name!r} is on body {found.body.name!r}, not on "
                             f"body {body.name!r}")
        return found

    def collision_shape(self, name):
        """The CollisionShape called ``name`` (KeyError if none)."""
        for s in self.collision_shapes:
            if s.name == name:
                return s
        names = [s.name for s in self.collision_shapes]
        raise KeyError(f"no collision shape named {name!r}; there are {names}")

    def remove_collision(self, name):
        """Remove the collision shape called ``name`` (and the exclusions that name it)."""
        cs = self.collision_shape(name)
        self._collision_shapes.remove(cs)
        self._collision_excludes = [p for p in self.collision_excludes if name not in p]
        self.invalidate()

    def clear_collisions(self):
        """Remove every collision shape and pair exclusion, and turn self-collision off."""
        self._collision_shapes = []
        self._collision_excludes = []
        self._self_collision = []
        self.invalidate()

    @property
    def self_collision_bodies(self):
        """The names of the modal bodies whose own shapes touch (``enable_self_collision``)."""
        return tuple(self.__dict__.get("_self_collision", ()))

    def enable_self_collision(self, body, enabled=True):
        """Let the collision shapes of modal (flexible) body ``body`` touch each other
        (``enabled=False``: no longer), a pair when its two shapes are fixed in different
        frames of the body (two nodes, or a node and the body frame): they move apart or
        together only as the body deforms, and a contact between them loads its modes from
        both sides. Off by default, as the shapes of one link are parted: shapes pinned along
        a body often overlap at rest (spheres along a beam); part such pairs with
        ``exclude_collision``. A rigid body's shapes move together and never touch each
        other: ValueError naming it."""
        body = self.as_body(body, "enable_self_collision: body")
        if not isinstance(body, ModalBody):
            raise ValueError(f"enable_self_collision: body {body.name!r} is rigid: its shapes move together "
                             "and never touch each other (only a modal body's shapes on different nodes do)")
        names = self.__dict__.setdefault("_self_collision", [])
        if bool(enabled) != (body.name in names):
            if enabled:
                names.append(body.name)
            else:
                names.remove(body.name)
            self.invalidate()

    def exclude_collision(self, a, b):
        """Turn off contact between ``a`` and ``b``: each a body (object or name) or a collision
        shape name; a body stands for all its shapes. Names are checked now."""
        pair = frozenset((self._collision_key(a, "a"), self._collision_key(b, "b")))
        if len(pair) < 2:
            raise ValueError(f"exclude_collision: a and b are the same ({a!r})")
        excludes = self.__dict__.setdefault("_collision_excludes", [])
        if pair not in excludes:
            excludes.append(pair)
            self.invalidate()

    def _collision_key(self, x, what):
        """The name that ``x`` (a body, a body name or a shape name) is excluded by."""
        if isinstance(x, str):
            if x in self._bodies or any(s.name == x for s in self.collision_shapes):
                return x
            raise ValueError(f"exclude_collision: {what}={x!r} is neither a body nor a collision shape")
        return self.as_body(x, f"exclude_collision: {what}").name
