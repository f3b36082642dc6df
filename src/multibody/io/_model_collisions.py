"""Collision shapes and pair exclusions in the model file (``model_file.py``; version 2).

``collision_shapes``: one entry per shape, in order: ``name``, ``body``, ``node`` (the node
it is pinned to, omitted for none; ``pose`` is then in the node frame), ``shape`` (its
``type`` and sizes as the constructor takes them: ``radius``, ``length``, ``size`` (full
edges), ``radii``; a mesh's hull ``vertices`` inline and its ``source``; a height field's
``heights`` (rows of numbers), ``size`` (Lx, Ly) and ``bottom``), ``pose`` (4x4,
omitted for the identity), and ``friction``, ``restitution``, ``margin``, ``contype``,
``conaffinity``, and a soft surface's ``stiffness`` and ``damping`` or ``solref`` and
``solimp`` (omitted for a hard one). ``collision_excludes``: pairs of body or shape names. Floats are written
as they are held, so a re-loaded model compiles to the same contact constants.
"""
import numpy as np

from ..model.heightfield import Heightfield
from ..model.shapes import Box, Capsule, ConvexMesh, Cylinder, Ellipsoid, Plane, Sphere
from ._model_fields import MAT4, VEC3, as_float, as_list, as_mapping, as_str, built, get_field, shaped

_ENTRY = ("name", "body", "node", "shape", "pose", "friction", "restitution", "margin", "contype", "conaffinity",
          "stiffness", "damping", "solref", "solimp")
_SHAPE = ("type", "radius", "length", "size", "radii", "vertices", "source", "heights", "bottom")


def _shape_dict(s):
    t = s.type_name
    if t == "sphere":
        return {"type": t, "radius": s.radius}
    if t in ("capsule", "cylinder"):
        return {"type": t, "radius": s.radius, "length": s.length}
    if t == "box":
        return {"type": t, "size": s.edges.tolist()}
    if t == "ellipsoid":
        return {"type": t, "radii": s.radii.tolist()}
    if t == "plane":
        return {"type": t}
    if t == "heightfield":
        return {"type": t, "heights": s.heights.tolist(), "size": s.lengths.tolist(), "bottom": s.bottom}
    d = {"type": t, "vertices": s.vertices.tolist()}
    return {**d, "source": s.source} if s.source else d


def collision_dicts(m):
    """The ``collision_shapes`` entries of Multibody ``m``."""
    out = []
    for s in m.collision_shapes:
        d = {"name": s.name, "body": s.body.name}
        if s.node is not None:
            d["node"] = s.node.name
        d["shape"] = _shape_dict(s.shape)
        if not np.array_equal(s.pose, np.eye(4)):
            d["pose"] = s.pose.tolist()
        d.update(friction=s.friction, restitution=s.restitution, margin=s.margin, contype=s.contype,
                 conaffinity=s.conaffinity)
        if s.stiffness is not None:
            d.update(stiffness=s.stiffness, damping=s.damping)
        if s.solref is not None:
            d.update(solref=list(s.solref), solimp=list(s.solimp))
        out.append(d)
    return out


def exclude_lists(m):
    """The ``collision_excludes`` entries of Multibody ``m``: sorted name pairs."""
    return [sorted(p) for p in m.collision_excludes]


def _vertices(v, where):
    try:
        a = None if isinstance(v, (str, bool)) else np.array(v, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"{where}: expected a list of [x, y, z] vertices")
    return a


VEC2 = shaped((2,))


def _grid(v, where):
    try:
        a = None if isinstance(v, (str, bool)) else np.array(v, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.ndim != 2:
        raise ValueError(f"{where}: expected a list of rows of heights")
    return a


def _as_int(v, where):
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise ValueError(f"{where}: expected an integer, got {v!r}")


def _read_shape(e, where):
    as_mapping(e, where, _SHAPE)
    t = get_field(e, "type", where, as_str)
    if t == "sphere":
        return built(where, Sphere, get_field(e, "radius", where, as_float))
    if t in ("capsule", "cylinder"):
        cls = Capsule if t == "capsule" else Cylinder
        return built(where, cls, get_field(e, "radius", where, as_float), get_field(e, "length", where, as_float))
    if t == "box":
        return built(where, Box, get_field(e, "size", where, VEC3))
    if t == "ellipsoid":
        return built(where, Ellipsoid, get_field(e, "radii", where, VEC3))
    if t == "plane":
        return Plane()
    if t == "mesh":
        source = get_field(e, "source", where, as_str, None)
        return built(where, ConvexMesh, get_field(e, "vertices", where, _vertices), source)
    if t == "heightfield":
        return built(where, Heightfield, get_field(e, "heights", where, _grid), get_field(e, "size", where, VEC2),
                     get_field(e, "bottom", where, as_float))
    raise ValueError(f"{where}.type: unknown shape type {t!r} (expected sphere, capsule, cylinder, box, "
                     f"ellipsoid, plane, mesh or heightfield)")


def add_collisions(m, shapes, excludes, self_collision=()):
    """Add the ``collision_shapes`` entries and the ``collision_excludes`` pairs to ``m``, and
    turn on the self-collision of the modal bodies named in ``self_collision``."""
    for i, e in enumerate(shapes):
        where = f"collision_shapes[{i}]"
        as_mapping(e, where, _ENTRY)
        shape = _read_shape(get_field(e, "shape", where, lambda v, _: v), f"{where}.shape")
        kw = {k: get_field(e, k, where, as_float) for k in ("friction", "restitution", "margin", "stiffness",
                                                             "damping") if k in e}
        kw.update({k: [as_float(x, f"{where}.{k}[{j}]") for j, x in enumerate(get_field(e, k, where, as_list))]
                   for k in ("solref", "solimp") if k in e})
        kw.update({k: get_field(e, k, where, _as_int) for k in ("contype", "conaffinity") if k in e})
        if "node" in e:
            kw["node"] = get_field(e, "node", where, as_str)
        built(where, m.add_collision, get_field(e, "body", where, as_str), shape,
              get_field(e, "pose", where, MAT4, None), name=get_field(e, "name", where, as_str), **kw)
    for i, pair in enumerate(excludes):
        where = f"collision_excludes[{i}]"
        pair = as_list(pair, where)
        if len(pair) != 2:
            raise ValueError(f"{where}: expected two body or shape names, got {pair!r}")
        built(where, m.exclude_collision, as_str(pair[0], f"{where}[0]"), as_str(pair[1], f"{where}[1]"))
    for i, name in enumerate(self_collision):
        where = f"self_collision[{i}]"
        built(where, m.enable_self_collision, as_str(name, where))
