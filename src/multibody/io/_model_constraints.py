"""Constraints in the model file (``model_file.py``, format version 2): loop, convel and
coordinate constraints as entries of the top-level ``constraints`` list, and back.

Each constraint is stored by the arguments it was made from (``Multibody.add_*_constraint``:
its frames or hinges by name, kind, axis, axes, pitch, ratio, offset), so a re-loaded model
makes the same residual rows bit for bit; ``enabled`` is its state. The entries keep the
order the constraints were added in (the row order of the enabled ones follows from it).
Schema: ``docs/model_format.md``.
"""
import numpy as np

from ..model.constraints import ConvelConstraint, CoordinateConstraint, LoopConstraint
from ._model_fields import VEC3, as_bool, as_float, as_mapping, as_optional_str, as_str, built, get_field, shaped

#: the constraint types of the file (a constraint's ``category``) and the classes they make
CLASSES = {"loop": LoopConstraint, "convel": ConvelConstraint, "coordinate": CoordinateConstraint}
TYPES = tuple(CLASSES)
_COMMON = ("name", "type", "enabled", "sdf_type")
#: the fields of a constraint entry, per type
FIELDS = {"loop": (*_COMMON, "node_a", "node_b", "kind", "axis", "axes", "pitch"),
          "convel": (*_COMMON, "node_a", "node_b", "axis"),
          "coordinate": (*_COMMON, "hinge_a", "hinge_b", "ratio", "offset")}
_AXES = shaped((2, 3), (3, 3))
_SPATIAL_AXIS = shaped((6,))


def _floats(v):
    return np.asarray(v, dtype=float).tolist()


def constraint_dict(c):
    """The file entry of constraint ``c`` (a loop, convel or coordinate constraint), or
    ValueError naming it when it is of another type (which the file cannot hold)."""
    if CLASSES.get(c.category) is not type(c):
        raise ValueError(f"constraint {c.name!r} ({type(c).__name__}, category {c.category!r}): the model file "
                         f"holds loop, convel and coordinate constraints only")
    d = {"name": c.name, "type": c.category, "enabled": bool(c.enabled)}
    if c.category == "coordinate":
        d.update(hinge_a=c.hinge_a.name, hinge_b=c.hinge_b.name, ratio=float(c.ratio), offset=float(c.offset))
    else:
        d.update(node_a=c.node_a.name, node_b=c.node_b.name)
    if c.category == "loop":
        d["kind"] = c.kind
        if c.axis is not None:
            d["axis"] = _floats(c.axis)
        if c.axes is not None:
            d["axes"] = _floats(c.axes)
            if np.shape(d["axes"]) not in ((2, 3), (3, 3)):
                raise ValueError(f"constraint {c.name!r}: axes of shape {np.shape(d['axes'])}; the model file "
                                 f"holds 2x3 or 3x3 axes")
        if c.pitch != 0.0:
            d["pitch"] = float(c.pitch)
    elif c.category == "convel":
        d["axis"] = _floats(c.axis)
    if hasattr(c, "sdf_type"):
        d["sdf_type"] = c.sdf_type
    return d


def add_constraint(m, e, where):
    """Add the constraint of file entry ``e`` (at field path ``where``) to Multibody ``m``."""
    kind = get_field(as_mapping(e, where, None), "type", where, as_str)
    if kind not in TYPES:
        raise ValueError(f"{where}.type: unknown constraint type {kind!r}; expected one of {list(TYPES)}")
    as_mapping(e, where, FIELDS[kind])
    name = get_field(e, "name", where, as_str)
    if kind == "coordinate":
        c = built(where, m.add_coordinate_constraint, name, get_field(e, "hinge_a", where, as_str),
                  get_field(e, "hinge_b", where, as_str), ratio=get_field(e, "ratio", where, as_float, 1.0),
                  offset=get_field(e, "offset", where, as_float, 0.0))
    else:
        frames = (get_field(e, "node_a", where, as_str), get_field(e, "node_b", where, as_str))
        if kind == "convel":
            c = built(where, m.add_convel_constraint, name, *frames, get_field(e, "axis", where, _SPATIAL_AXIS))
        else:
            c = built(where, m.add_loop_constraint, name, *frames, get_field(e, "kind", where, as_str, "pin"),
                      axis=get_field(e, "axis", where, VEC3, None), axes=get_field(e, "axes", where, _AXES, None),
                      pitch=get_field(e, "pitch", where, as_float, 0.0))
    if not get_field(e, "enabled", where, as_bool, True):
        m.disable_constraint(c)
    if "sdf_type" in e:
        c.sdf_type = get_field(e, "sdf_type", where, as_optional_str)
    return c
