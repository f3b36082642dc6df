"""Hinges and their subhinges in the model file (``model_file.py``): the entries of the
``hinges`` list, and back. Schema: ``docs/model_format.md``."""
import numpy as np

from ..model import HINGE_KINDS
from ..model import subhinge as sh
from ._model_fields import (
    MAT4, VEC3, VEC4, as_float, as_limit, as_list, as_mapping, as_optional_str, as_str, built, get_field, limit_out,
    plain, shaped,
)

SUBHINGES = {c.kind: c for c in (
    sh.PinSubhinge, sh.SliderSubhinge, sh.ScrewSubhinge, sh.SphericalSubhinge,
    sh.SphericalQuaternionSubhinge, sh.FreeSubhinge, sh.FreeQuaternionSubhinge,
    sh.TranslationalSubhinge, sh.LockedSubhinge)}
#: Subhinge kinds a hinge kind is made of (``custom``: any list).
HINGE_PARTS = {k: [k] for k in SUBHINGES}
HINGE_PARTS.update(universal=["pin"] * 2, gimbal=["pin"] * 3, planar=["slider", "slider", "pin"],
                   cylindrical=["slider", "pin"])
#: the fields of a hinge entry
HINGE = ("name", "parent", "child", "kind", "subhinges", "axis", "axes", "pitch", "T_parent_joint",
         "T_child_joint", "parent_node", "lower", "upper", "effort", "velocity", "damping", "friction",
         "spring_stiffness", "spring_reference", "mimic", "urdf_type", "sdf_type", "armature")
_IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
_DEFAULT_CHART_ANGLE = np.pi / 2
_META = ("lower", "upper", "effort", "velocity")
_SCALARS = ("damping", "friction", "spring_stiffness", "spring_reference")  # metadata, 0 by default
_CHART = ("chart_offset", "max_chart_angle")
_SUB_PARAMS = {"pin": ("axis",), "slider": ("axis",), "screw": ("axis", "pitch"), "spherical": _CHART, "free": _CHART}


def transform_field(key, T):
    """``{key: T as rows}``, or ``{}`` for the identity (the default)."""
    return {} if np.array_equal(T, np.eye(4)) else {key: T.tolist()}


def _subhinge_dict(s, h):
    if SUBHINGES.get(s.kind) is not type(s):
        raise ValueError(f"hinge {h.name!r}: subhinge {type(s).__name__} (kind {s.kind!r}) is not one the model "
                         f"file holds ({', '.join(SUBHINGES)})")
    d = {"kind": s.kind} if s.name is None else {"kind": s.kind, "name": s.name}
    if hasattr(s, "axis"):
        d["axis"] = s.axis.tolist()
    if s.kind == "screw":
        d["pitch"] = float(s.pitch)
    if s.kind_info.chart:
        if not np.array_equal(s.chart_offset, _IDENTITY_Q):
            d["chart_offset"] = np.asarray(s.chart_offset, dtype=float).tolist()
        if s.max_chart_angle != _DEFAULT_CHART_ANGLE:
            d["max_chart_angle"] = s.max_chart_angle
    return d


def hinge_dict(h):
    """The file entry of hinge ``h`` (explicit form: its subhinges listed)."""
    d = {"name": h.name, "parent": h.parent.name, "child": h.child.name, "kind": h.kind,
         "subhinges": [_subhinge_dict(s, h) for s in h.subhinges],
         **transform_field("T_parent_joint", h.T_parent_joint), **transform_field("T_child_joint", h.T_child_joint)}
    if getattr(h, "parent_node", None) is not None:
        d["parent_node"] = h.parent_node.name
    d.update({k: limit_out(getattr(h, k)) for k in _META if getattr(h, k) is not None})
    d.update({k: plain(getattr(h, k)) for k in _SCALARS if np.any(np.asarray(getattr(h, k, 0.0)) != 0.0)})
    if np.any(h.armature != 0.0):
        d["armature"] = h.armature.tolist()
    if h.mimic is not None:
        d["mimic"] = plain(h.mimic)
    for key in ("urdf_type", "sdf_type"):
        if hasattr(h, key):
            d[key] = getattr(h, key)
    return d


def _kind(v, where, kinds):
    if not isinstance(v, str) or v not in kinds:
        raise ValueError(f"{where}: unknown kind {v!r}; expected one of {sorted(kinds)}")
    return v


def _subhinge(e, where):
    kind = get_field(as_mapping(e, where, None), "kind", where, lambda v, w: _kind(v, w, SUBHINGES))
    as_mapping(e, where, ("kind", "name", *_SUB_PARAMS.get(kind, ())))
    cls, name = SUBHINGES[kind], e.get("name")
    if kind in ("pin", "slider", "screw"):
        s = cls(name=name)
        a = get_field(e, "axis", where, VEC3, s.axis)
        n = np.linalg.norm(a)
        if not (np.isfinite(n) and n >= 1e-12):
            raise ValueError(f"{where}.axis: expected a finite non-zero axis, got {a.tolist()}")
        s.axis = a if abs(n - 1.0) <= 1e-12 else a / n  # a stored unit axis is kept bit for bit
        if kind == "screw":
            s.pitch = get_field(e, "pitch", where, as_float, 0.0)
            if not np.isfinite(s.pitch):
                raise ValueError(f"{where}.pitch: must be finite, got {s.pitch!r}")
        return s
    if kind in ("spherical", "free"):
        try:
            s = cls(max_chart_angle=get_field(e, "max_chart_angle", where, as_float, _DEFAULT_CHART_ANGLE), name=name)
        except ValueError as err:
            raise ValueError(f"{where}.max_chart_angle: {err}") from None
        q = get_field(e, "chart_offset", where, VEC4, np.array(_IDENTITY_Q))
        if not abs(np.linalg.norm(q) - 1.0) <= 1e-9:
            raise ValueError(f"{where}.chart_offset: expected a unit quaternion (x, y, z, w), got {q.tolist()}")
        s.chart_offset = q
        return s
    return cls(name=name)


def _hinge_args(e, where):
    """``add_hinge`` keyword arguments for the kind/subhinges of hinge entry ``e``, and its kind."""
    if "subhinges" not in e:
        kind = get_field(e, "kind", where, lambda v, w: _kind(v, w, HINGE_KINDS))
        return {"kind": kind, "pitch": get_field(e, "pitch", where, as_float, 0.0),
                "axis": get_field(e, "axis", where, VEC3, None),
                "axes": get_field(e, "axes", where, shaped((2, 3), (3, 3)), None)}, None
    for key in ("axis", "axes", "pitch"):
        if key in e:
            raise ValueError(f"{where}.{key}: give either kind parameters or subhinges, not both")
    kind = get_field(e, "kind", where, lambda v, w: _kind(v, w, [*HINGE_PARTS, "custom"]), "custom")
    subs = [_subhinge(s, f"{where}.subhinges[{i}]")
            for i, s in enumerate(as_list(e["subhinges"], f"{where}.subhinges"))]
    if kind != "custom" and [s.kind for s in subs] != HINGE_PARTS[kind]:
        raise ValueError(f"{where}.subhinges: a {kind} hinge is made of {HINGE_PARTS[kind]}, "
                         f"got {[s.kind for s in subs]}")
    return {"subhinges": subs}, kind


def add_hinge(m, e, where):
    """Add the hinge of file entry ``e`` (at field path ``where``) to Multibody ``m``; its
    ``parent_node`` is set by ``attach_parent_nodes`` once the nodes exist."""
    as_mapping(e, where, HINGE)
    args, kind = _hinge_args(e, where)
    h = built(where, m.add_hinge, get_field(e, "parent", where, as_str), get_field(e, "child", where, as_str),
              name=get_field(e, "name", where, as_str),
              T_parent_joint=get_field(e, "T_parent_joint", where, MAT4, None),
              T_child_joint=get_field(e, "T_child_joint", where, MAT4, None), **args)
    built(where, setattr, h, "armature", get_field(e, "armature", where, shaped((h.nu,), ()), 0.0))
    if kind is not None:
        h.kind = kind
    for key in _META:
        setattr(h, key, get_field(e, key, where, as_limit if key in ("lower", "upper") else as_float, None))
    for key in _SCALARS:
        setattr(h, key, get_field(e, key, where, as_limit, 0.0))  # a number, or one per speed
    if e.get("mimic") is not None:
        mim = as_mapping(e["mimic"], f"{where}.mimic", ("joint", "multiplier", "offset"))
        h.mimic = {"joint": get_field(mim, "joint", f"{where}.mimic", as_str),
                   "multiplier": get_field(mim, "multiplier", f"{where}.mimic", as_float, 1.0),
                   "offset": get_field(mim, "offset", f"{where}.mimic", as_float, 0.0)}
    for key in ("urdf_type", "sdf_type"):
        if key in e:
            setattr(h, key, get_field(e, key, where, as_optional_str))
    return h


def attach_parent_nodes(m, entries):
    """Set each hinge's ``parent_node`` (the node on its parent body it hangs from: on a modal
    body, the hinge follows that node's deformation) from the hinge entries ``entries``."""
    for i, e in enumerate(entries):
        if "parent_node" in e:
            where = f"hinges[{i}]"
            h = m.hinge(e["name"])
            name = get_field(e, "parent_node", where, as_str)
            node = m.nodes.get(name)
            if node is None or node.body is not h.parent:
                raise ValueError(f"{where}.parent_node: {name!r} is not a node of the hinge's parent body "
                                 f"{h.parent.name!r}")
            h.parent_node = node
