"""The multibody model file: a ``Multibody`` as YAML or JSON, and back, exactly.

``save_model`` (``Multibody.save``) writes ``.yaml``/``.yml`` or ``.json``; ``load_model`` reads
them (and ``.urdf``). Schema: ``docs/model_format.md``. Floats are written as ``repr`` (read back
to the same float) and the model is stored as it holds itself, so a re-loaded model compiles to
the same model buffer bit for bit.

Reading is bounded (issue 19): a file of at most ``max_bytes`` (256 MiB) that is a regular
file, YAML without anchors and aliases (``_yaml``: a few hundred bytes of nested aliases
would describe billions of nodes), nesting deeper than Python's recursion refused by name.
Mesh ``filename``s are kept as written; ``m.file_roots`` (the file's folder and
``mesh_dirs``, None with ``allow_outside=True``) are the folders the viewer reads meshes
from, and one warning names those outside.
"""
import json
from pathlib import Path

import numpy as np

from ..model import HINGE_KINDS, Multibody
from ..model import subhinge as sh
from . import _yaml
from ._files import MAX_BYTES, read_bounded
from ._model_fields import (
    MAT4, REQUIRED, VEC3, VEC4, as_float, as_limit, as_list, as_mapping, as_str, built, get_field, limit_out,
    shaped,
)
from ._uri import mesh_files_outside, model_roots, warn_outside

__all__ = ["FORMAT", "FORMAT_VERSION", "load_model", "save_model", "model_to_dict", "model_from_dict", "dumps_model",
           "loads_model"]

#: The value of the ``format`` field of every model file.
FORMAT = "multibody-model"
#: The schema version this library writes and the newest it reads.
FORMAT_VERSION = 1

_SUBHINGES = {c.kind: c for c in (
    sh.PinSubhinge, sh.SliderSubhinge, sh.ScrewSubhinge, sh.SphericalSubhinge,
    sh.SphericalQuaternionSubhinge, sh.FreeSubhinge, sh.FreeQuaternionSubhinge,
    sh.TranslationalSubhinge, sh.LockedSubhinge)}
#: Subhinge kinds a hinge kind is made of (``custom``: any list).
_HINGE_PARTS = {k: [k] for k in _SUBHINGES}
_HINGE_PARTS.update(universal=["pin"] * 2, gimbal=["pin"] * 3, planar=["slider", "slider", "pin"],
                    cylindrical=["slider", "pin"])
_IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
_DEFAULT_CHART_ANGLE = np.pi / 2
_TOP = ("format", "format_version", "name", "gravity", "source", "world", "bodies", "hinges", "nodes",
        "constraints", "modal_bodies")
_BODY = ("name", "mass", "com", "inertia", "rod_length", "visuals", "collisions")
_HINGE = ("name", "parent", "child", "kind", "subhinges", "axis", "axes", "pitch", "T_parent_joint",
          "T_child_joint", "lower", "upper", "effort", "velocity", "damping", "friction", "mimic", "urdf_type",
          "armature")
_META = ("lower", "upper", "effort", "velocity")
_CHART = ("chart_offset", "max_chart_angle")
_SUB_PARAMS = {"pin": ("axis",), "slider": ("axis",), "screw": ("axis", "pitch"), "spherical": _CHART, "free": _CHART}


# ---------------------------------------------------------------------------- writing
def _plain(v):
    """Metadata as JSON/YAML values: arrays to (nested) lists, NumPy scalars to Python ones."""
    if isinstance(v, (np.ndarray, np.generic)):
        return v.tolist()
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _transform(key, T):
    """``{key: T as rows}``, or ``{}`` for the identity (the default)."""
    return {} if np.array_equal(T, np.eye(4)) else {key: T.tolist()}


def _subhinge_dict(s):
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


def _hinge_dict(h):
    d = {"name": h.name, "parent": h.parent.name, "child": h.child.name, "kind": h.kind,
         "subhinges": [_subhinge_dict(s) for s in h.subhinges],
         **_transform("T_parent_joint", h.T_parent_joint), **_transform("T_child_joint", h.T_child_joint)}
    d.update({k: limit_out(getattr(h, k)) for k in _META if getattr(h, k) is not None})
    d.update({k: float(getattr(h, k)) for k in ("damping", "friction") if getattr(h, k) != 0.0})
    if np.any(h.armature != 0.0):
        d["armature"] = h.armature.tolist()
    if h.mimic is not None:
        d["mimic"] = _plain(h.mimic)
    if hasattr(h, "urdf_type"):
        d["urdf_type"] = h.urdf_type
    return d


def _body_dict(b):
    d = {"name": b.name, "mass": float(b.mass), "com": b.com.tolist(),
         "inertia": b.inertia[np.triu_indices(3)].tolist()}  # ixx, ixy, ixz, iyy, iyz, izz
    if b.rod_length is not None:
        d["rod_length"] = float(b.rod_length)
    for key in ("visuals", "collisions"):
        if hasattr(b, key):
            d[key] = _plain(getattr(b, key))
    return d


def model_to_dict(m):
    """The model file content of Multibody ``m`` as plain Python data (dicts, lists, floats).

    Bodies and hinges come in topological order (which preserves every body's order of
    child hinges, hence the coordinate order); nodes in the order they were added.
    Raises ValueError if ``m`` is not a tree connected to the world.
    """
    d = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": m.name, "gravity": m.gravity.tolist()}
    if getattr(m, "source", None) is not None:
        d["source"] = str(m.source)
    world = {k: _plain(getattr(m.world, k)) for k in ("visuals", "collisions") if hasattr(m.world, k)}
    if world:
        d["world"] = world
    hinges = m.hinges
    d["bodies"] = [_body_dict(h.child) for h in hinges]
    d["hinges"] = [_hinge_dict(h) for h in hinges]
    d["nodes"] = [{"name": nd.name, "body": nd.body.name, **_transform("T_body_node", nd.T_body_node)}
                  for nd in m.nodes.values()]
    return d


def _format_of(path, fmt):
    """The format of ``path``: ``fmt`` if given, else from its extension."""
    if fmt is None:
        fmt = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".urdf": "urdf", ".xml": "mjcf"}.get(
            Path(path).suffix.lower())
        if fmt is None:
            raise ValueError(f"{path}: unknown extension {Path(path).suffix!r}; expected .yaml, .yml, .json, .urdf, "
                             f".xml (MJCF)")
    return fmt


def dumps_model(m, format="yaml"):
    """The model file text (str) of Multibody ``m``; ``format`` is "yaml" or "json"."""
    d = model_to_dict(m)
    if format == "json":
        return json.dumps(d, indent=1) + "\n"
    if format == "yaml":
        return _yaml.dump(d, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
    raise ValueError(f"format must be 'yaml' or 'json', got {format!r}")


def save_model(m, path, format=None):
    """Write Multibody ``m`` to the model file ``path`` (.yaml/.yml or .json, or ``format``)."""
    fmt = _format_of(path, format)
    if fmt == "urdf":
        raise ValueError(f"{path}: use Multibody.to_urdf to write URDF")
    Path(path).write_text(dumps_model(m, fmt), encoding="utf-8")


# ---------------------------------------------------------------------------- reading
def _metadata(v):
    """Geometry metadata back from JSON/YAML: lists of numbers become float arrays."""
    if isinstance(v, dict):
        return {k: _metadata(x) for k, x in v.items()}
    if isinstance(v, list):
        flat = np.array(v, dtype=object).ravel() if v else []
        if len(flat) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in flat):
            return np.array(v, dtype=float)
        return [_metadata(x) for x in v]
    return v


def _check_version(d):
    if d.get("format") != FORMAT:
        raise ValueError(f"not a multibody model file (expected format: {FORMAT}, got {d.get('format')!r})")
    v = get_field(d, "format_version", "", lambda v, _: v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"format_version must be a positive integer, got {v!r}")
    if v > FORMAT_VERSION:
        raise ValueError(f"format_version {v} is newer than this multibody reads "
                         f"(up to {FORMAT_VERSION}); upgrade multibody to load it")
    for key in ("constraints", "modal_bodies"):
        if d.get(key):
            raise ValueError(f"{key}: reserved for a later format; this multibody cannot build them")


def _add_body(m, e, where):
    as_mapping(e, where, _BODY)
    args = (get_field(e, "name", where, as_str), get_field(e, "mass", where, as_float),
            get_field(e, "com", where, VEC3, (0.0, 0.0, 0.0)), get_field(e, "inertia", where, shaped((6,), (3, 3)), None))
    b = built(where, m.add_body, *args)
    b.rod_length = get_field(e, "rod_length", where, as_float, None)
    for key in ("visuals", "collisions"):
        if key in e:
            setattr(b, key, _metadata(as_list(e[key], f"{where}.{key}")))


def _kind(v, where, kinds):
    if not isinstance(v, str) or v not in kinds:
        raise ValueError(f"{where}: unknown kind {v!r}; expected one of {sorted(kinds)}")
    return v


def _subhinge(e, where):
    kind = get_field(as_mapping(e, where, None), "kind", where, lambda v, w: _kind(v, w, _SUBHINGES))
    as_mapping(e, where, ("kind", "name", *_SUB_PARAMS.get(kind, ())))
    cls, name = _SUBHINGES[kind], e.get("name")
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
        return {"kind": kind, "pitch": get_field(e, "pitch", where, as_float, 0.0), "axis": get_field(e, "axis", where, VEC3, None),
                "axes": get_field(e, "axes", where, shaped((2, 3), (3, 3)), None)}, None
    for key in ("axis", "axes", "pitch"):
        if key in e:
            raise ValueError(f"{where}.{key}: give either kind parameters or subhinges, not both")
    kind = get_field(e, "kind", where, lambda v, w: _kind(v, w, [*_HINGE_PARTS, "custom"]), "custom")
    subs = [_subhinge(s, f"{where}.subhinges[{i}]") for i, s in enumerate(as_list(e["subhinges"], f"{where}.subhinges"))]
    if kind != "custom" and [s.kind for s in subs] != _HINGE_PARTS[kind]:
        raise ValueError(f"{where}.subhinges: a {kind} hinge is made of {_HINGE_PARTS[kind]}, "
                         f"got {[s.kind for s in subs]}")
    return {"subhinges": subs}, kind


def _add_hinge(m, e, where):
    as_mapping(e, where, _HINGE)
    args, kind = _hinge_args(e, where)
    h = built(where, m.add_hinge, get_field(e, "parent", where, as_str), get_field(e, "child", where, as_str),
               name=get_field(e, "name", where, as_str), T_parent_joint=get_field(e, "T_parent_joint", where, MAT4, None),
               T_child_joint=get_field(e, "T_child_joint", where, MAT4, None), **args)
    built(where, setattr, h, "armature", get_field(e, "armature", where, shaped((h.nu,), ()), 0.0))
    if kind is not None:
        h.kind = kind
    for key in (*_META, "damping", "friction"):
        setattr(h, key, get_field(e, key, where, as_limit if key in ("lower", "upper") else as_float,
                             None if key in _META else 0.0))
    if e.get("mimic") is not None:
        mim = as_mapping(e["mimic"], f"{where}.mimic", ("joint", "multiplier", "offset"))
        h.mimic = {"joint": get_field(mim, "joint", f"{where}.mimic", as_str),
                   "multiplier": get_field(mim, "multiplier", f"{where}.mimic", as_float, 1.0),
                   "offset": get_field(mim, "offset", f"{where}.mimic", as_float, 0.0)}
    if "urdf_type" in e:
        h.urdf_type = e["urdf_type"]


def model_from_dict(d, source="<model>"):
    """A new ``Multibody`` from model file content ``d`` (as ``model_to_dict`` makes it).

    ``source`` prefixes the error messages. Raises ValueError naming the field path
    (e.g. ``bodies[3].mass``) on a missing field, unknown field or kind, wrong shape, a
    newer ``format_version``, or a model the builder refuses.
    """
    if not isinstance(d, dict):
        raise ValueError(f"{source}: expected a mapping at the top level, got {type(d).__name__}")
    try:
        _check_version(d)
        as_mapping(d, "", _TOP)
        m = Multibody(name=get_field(d, "name", "", as_str, "multibody"))
        m.gravity = get_field(d, "gravity", "", VEC3, m.gravity)
        if "source" in d:
            m.source = get_field(d, "source", "", as_str)
        for key, v in as_mapping(d.get("world", {}), "world", ("visuals", "collisions")).items():
            setattr(m.world, key, _metadata(as_list(v, f"world.{key}")))
        for i, e in enumerate(get_field(d, "bodies", "", as_list)):
            _add_body(m, e, f"bodies[{i}]")
        for i, e in enumerate(get_field(d, "hinges", "", as_list)):
            _add_hinge(m, e, f"hinges[{i}]")
        for i, e in enumerate(get_field(d, "nodes", "", as_list, [])):
            where = f"nodes[{i}]"
            as_mapping(e, where, ("name", "body", "T_body_node"))
            built(where, m.add_node, get_field(e, "name", where, as_str), get_field(e, "body", where, as_str),
                   get_field(e, "T_body_node", where, MAT4, None))
        m.finalize()
    except ValueError as err:
        raise ValueError(f"{source}: {str(err).lstrip(': ')}") from None
    return m


def loads_model(text, format="yaml", source="<string>", *, base_dir=None, mesh_dirs=None, allow_outside=False):
    """A new ``Multibody`` from model file text (str); ``format`` is "yaml" or "json".

    ``base_dir`` (the file's folder) and ``mesh_dirs`` are the folders the model's mesh files
    may come from (``m.file_roots``; ``allow_outside=True``: anywhere); YAML anchors and
    aliases are refused. Raises ValueError naming ``source`` (and the line, for YAML).
    """
    if format not in ("json", "yaml"):
        raise ValueError(f"format must be 'yaml' or 'json', got {format!r}")
    errors = (json.JSONDecodeError,) if format == "json" else _yaml.error_types()
    try:
        try:
            d = json.loads(text) if format == "json" else _yaml.load(text)
        except errors as e:
            raise ValueError(f"{source}: invalid {format.upper()}: {' '.join(str(e).split())}") from None
        m = model_from_dict(d, source)
    except RecursionError:
        raise ValueError(f"{source}: nested too deeply to read") from None
    m.file_roots = model_roots(base_dir, mesh_dirs, allow_outside)
    warn_outside(source, mesh_files_outside(m, m.file_roots))
    return m


def load_model(path, format=None, *, mesh_dirs=None, allow_outside=False, max_bytes=MAX_BYTES, **urdf_options):
    """Load a model file into a new ``Multibody``.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.yaml``/``.yml`` or ``.json`` model file (see docs/model_format.md), a ``.urdf``
        file (read by ``load_urdf``, which takes ``urdf_options`` such as ``floating_base``)
        or a ``.xml`` MJCF file (read by ``load_mjcf``).
    format : str, optional
        "yaml", "json", "urdf" or "mjcf", overriding the extension.
    mesh_dirs : list of folders, optional
        Folders besides the file's own that a YAML/JSON model's mesh files may lie in (a
        URDF's are ``package_dirs``; an MJCF's ``mesh_dirs`` of ``load_mjcf``).
    allow_outside : bool
        Mesh (and MJCF include) files anywhere (default False: inside the model's folder,
        the package roots and the folders given).
    max_bytes : int
        The largest model file read (default 256 MiB).

    Raises
    ------
    ValueError
        Naming the file, and the field path on bad content; a file that is not a regular
        file or is larger than ``max_bytes``; YAML anchors and aliases.
    """
    fmt = _format_of(path, format)
    if fmt == "urdf":
        from .urdf import load_urdf
        if mesh_dirs is not None:
            raise TypeError("mesh_dirs applies to YAML/JSON and MJCF model files; a URDF's are package_dirs")
        return load_urdf(path, allow_outside=allow_outside, max_bytes=max_bytes, **urdf_options)
    if fmt == "mjcf":
        from .mjcf import load_mjcf
        return load_mjcf(path, mesh_dirs=mesh_dirs, allow_outside=allow_outside, max_bytes=max_bytes, **urdf_options)
    if urdf_options:
        raise TypeError(f"options {sorted(urdf_options)} apply to URDF files only")
    data = read_bounded(path, max_bytes)  # FileNotFoundError names the path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not valid UTF-8 text ({e.reason} at byte {e.start})") from None
    return loads_model(text, fmt, source=str(path), base_dir=Path(path).resolve().parent, mesh_dirs=mesh_dirs,
                       allow_outside=allow_outside)
