"""The multibody model file: a ``Multibody`` as YAML or JSON, and back, exactly.

``save_model`` (``Multibody.save``) writes ``.yaml``/``.yml`` or ``.json``; ``load_model`` reads
them (and ``.urdf``, ``.xml`` MJCF). Schema: ``docs/model_format.md``. Floats are written as
``repr`` (read back to the same float) and the model is stored as it holds itself, so a
re-loaded model compiles to the same model buffer bit for bit: bodies, hinges
(``_model_hinges``), nodes, loop, convel and coordinate constraints with their enabled state
(``_model_constraints``), modal bodies (``_model_modal``: their modal data in files beside
the model file, or inline) and collision shapes with their pair exclusions
(``_model_collisions``). What the file cannot hold raises ValueError naming it, never a
silent drop. Version 1 files (no constraints, no modal bodies) are read as before.

Reading is bounded (issue 19): a file of at most ``max_bytes`` (256 MiB) that is a regular
file, YAML without anchors and aliases (``_yaml``: a few hundred bytes of nested aliases
would describe billions of nodes), nesting deeper than Python's recursion refused by name.
Mesh ``filename``s are kept as written; ``m.file_roots`` (the file's folder and
``mesh_dirs``, None with ``allow_outside=True``) are the folders the viewer reads meshes
from, and one warning names those outside. Modal data files are read only from inside the
model file's folder (``allow_outside=True``: anywhere), each bounded and validated by
``flex.load_modal_data``.
"""
import json
from pathlib import Path

import numpy as np

from ..model import Multibody, RigidBody
from ..model.modal_body import ModalBody
from . import _yaml
from ._files import MAX_BYTES, read_bounded
from ._model_collisions import add_collisions, collision_dicts, exclude_lists
from ._model_constraints import add_constraint, constraint_dict
from ._model_fields import (
    MAT4, VEC3, as_float, as_list, as_mapping, as_str, built, get_field, metadata, plain, shaped,
)
from ._model_hinges import add_hinge, attach_parent_nodes, hinge_dict, transform_field
from ._model_modal import ModalFiles, ModalReader, inline, modal_body_dict
from ._uri import mesh_files_outside, model_roots, warn_outside

__all__ = ["FORMAT", "FORMAT_VERSION", "load_model", "save_model", "model_to_dict", "model_from_dict", "dumps_model",
           "loads_model"]

#: The value of the ``format`` field of every model file.
FORMAT = "multibody-model"
#: The schema version this library writes and the newest it reads (it reads 1 too).
FORMAT_VERSION = 2
#: top-level fields (``constraints``, ``modal_bodies``, ``collision_shapes``, ``collision_excludes`` and
#: ``self_collision`` since version 2)
_TOP = ("format", "format_version", "name", "gravity", "source", "world", "bodies", "modal_bodies", "hinges",
        "nodes", "constraints", "collision_shapes", "collision_excludes", "self_collision")
_BODY = ("name", "mass", "com", "inertia", "rod_length", "visuals", "collisions")
_GEOMETRY = ("visuals", "collisions")
_NODE = ("name", "body", "T_body_node")
_MODAL_DATA = ("file", "inline")


# ---------------------------------------------------------------------------- writing
def _geometry(b):
    return {k: plain(getattr(b, k)) for k in _GEOMETRY if hasattr(b, k)}


def _body_dict(b):
    if type(b) is not RigidBody:
        raise ValueError(f"body {b.name!r} is a {type(b).__name__}, which the model file cannot hold")
    d = {"name": b.name, "mass": float(b.mass), "com": b.com.tolist(),
         "inertia": b.inertia[np.triu_indices(3)].tolist()}  # ixx, ixy, ixz, iyy, iyz, izz
    if b.rod_length is not None:
        d["rod_length"] = float(b.rod_length)
    return {**d, **_geometry(b)}


def _to_dict(m, store):
    """The file content of ``m``; ``store(body, data)`` gives a modal body's ``modal_data`` value."""
    d = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": m.name, "gravity": m.gravity.tolist()}
    if getattr(m, "source", None) is not None:
        d["source"] = str(m.source)
    world = _geometry(m.world)
    if world:
        d["world"] = world
    hinges = m.hinges
    d["bodies"] = [_body_dict(h.child) for h in hinges if not isinstance(h.child, ModalBody)]
    if m.modal_bodies:
        d["modal_bodies"] = [{**modal_body_dict(b, store), **_geometry(b)} for b in m.modal_bodies]
    d["hinges"] = [hinge_dict(h) for h in hinges]
    d["nodes"] = [{"name": nd.name, "body": nd.body.name, **transform_field("T_body_node", nd.T_body_node)}
                  for nd in m.nodes.values()]
    if m.constraints:
        d["constraints"] = [constraint_dict(c) for c in m.constraints.values()]
    if m.collision_shapes:
        d["collision_shapes"] = collision_dicts(m)
    if m.collision_excludes:
        d["collision_excludes"] = exclude_lists(m)
    if m.self_collision_bodies:
        d["self_collision"] = list(m.self_collision_bodies)
    return d


def model_to_dict(m):
    """The model file content of Multibody ``m`` as plain Python data (dicts, lists, floats).

    Bodies and hinges come in topological order (which preserves every body's order of
    child hinges, hence the coordinate order); modal bodies, nodes and constraints in the
    order they were added; modal data inline. Raises ValueError if ``m`` is not a tree
    connected to the world, or naming what the file cannot hold.
    """
    return _to_dict(m, inline)


def _format_of(path, fmt):
    """The format of ``path``: ``fmt`` if given, else from its extension."""
    if fmt is None:
        fmt = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".urdf": "urdf", ".xml": "mjcf"}.get(
            Path(path).suffix.lower())
        if fmt is None:
            raise ValueError(f"{path}: unknown extension {Path(path).suffix!r}; expected .yaml, .yml, .json, .urdf, "
                             f".xml (MJCF)")
    return fmt


def _text(d, format):
    if format == "json":
        return json.dumps(d, indent=1) + "\n"
    if format == "yaml":
        return _yaml.dump(d, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
    raise ValueError(f"format must be 'yaml' or 'json', got {format!r}")


def dumps_model(m, format="yaml"):
    """The model file text (str) of Multibody ``m``; ``format`` is "yaml" or "json". Modal
    data is written inline (a text has no folder to put files in)."""
    return _text(model_to_dict(m), format)


def save_model(m, path, format=None, modal_data="file"):
    """Write Multibody ``m`` to the model file ``path`` (.yaml/.yml or .json, or ``format``).

    ``modal_data``: "file" (default) writes each modal body's data to an ``.npz`` beside
    ``path`` (``<file name>.<body>.modal.npz``; bodies with equal data share one), referenced by
    name; "inline" keeps it in the model file. Returns the modal data files written (a list
    of paths). Raises ValueError naming what the file cannot hold, before writing anything.
    """
    fmt = _format_of(path, format)
    if fmt == "urdf":
        raise ValueError(f"{path}: use Multibody.to_urdf to write URDF")
    if modal_data not in _MODAL_DATA:
        raise ValueError(f"modal_data must be one of {_MODAL_DATA}, got {modal_data!r}")
    files = ModalFiles(path) if modal_data == "file" else None
    text = _text(_to_dict(m, inline if files is None else files), fmt)
    written = [] if files is None else files.write()
    Path(path).write_text(text, encoding="utf-8")
    return written


# ---------------------------------------------------------------------------- reading
def _check_version(d):
    """The file's format version (1 or 2), checked."""
    if d.get("format") != FORMAT:
        raise ValueError(f"not a multibody model file (expected format: {FORMAT}, got {d.get('format')!r})")
    v = get_field(d, "format_version", "", lambda v, _: v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"format_version must be a positive integer, got {v!r}")
    if v > FORMAT_VERSION:
        raise ValueError(f"format_version {v} is newer than this multibody reads "
                         f"(up to {FORMAT_VERSION}); upgrade multibody to load it")
    for key in ("constraints", "modal_bodies", "collision_shapes", "collision_excludes", "self_collision"):
        if v < 2 and d.get(key):
            raise ValueError(f"{key}: needs format_version 2 (this file is version {v}, where {key} "
                             f"must be empty or absent)")
    return v


def _read_geometry(b, e, where):
    for key in _GEOMETRY:
        if key in e:
            setattr(b, key, metadata(as_list(e[key], f"{where}.{key}")))


def _add_body(m, e, where):
    as_mapping(e, where, _BODY)
    args = (get_field(e, "name", where, as_str), get_field(e, "mass", where, as_float),
            get_field(e, "com", where, VEC3, (0.0, 0.0, 0.0)), get_field(e, "inertia", where, shaped((6,), (3, 3)), None))
    b = built(where, m.add_body, *args)
    b.rod_length = get_field(e, "rod_length", where, as_float, None)
    _read_geometry(b, e, where)


def _add_node(m, e, where, modal):
    as_mapping(e, where, _NODE)
    name, body = get_field(e, "name", where, as_str), get_field(e, "body", where, as_str)
    built(where, m.add_node, name, body, get_field(e, "T_body_node", where, MAT4, None), modal.mode_shapes(name, body))


def model_from_dict(d, source="<model>", *, base_dir=None, allow_outside=False):
    """A new ``Multibody`` from model file content ``d`` (as ``model_to_dict`` makes it).

    ``source`` prefixes the error messages; ``base_dir`` is the folder modal data files are
    named relative to (and must lie in, unless ``allow_outside``). Raises ValueError naming
    the field path (e.g. ``bodies[3].mass``) on a missing field, unknown field or kind, wrong
    shape, a newer ``format_version``, a modal data file outside ``base_dir`` or invalid, or
    a model the builder refuses.
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
        _read_geometry(m.world, as_mapping(d.get("world", {}), "world", _GEOMETRY), "world")
        for i, e in enumerate(get_field(d, "bodies", "", as_list)):
            _add_body(m, e, f"bodies[{i}]")
        modal = ModalReader(base_dir, allow_outside)
        for e, where, b in modal.add_bodies(m, get_field(d, "modal_bodies", "", as_list, [])):
            _read_geometry(b, e, where)
        hinges = get_field(d, "hinges", "", as_list)
        for i, e in enumerate(hinges):
            add_hinge(m, e, f"hinges[{i}]")
        for i, e in enumerate(get_field(d, "nodes", "", as_list, [])):
            _add_node(m, e, f"nodes[{i}]", modal)
        attach_parent_nodes(m, hinges)
        modal.finish(m)
        for i, e in enumerate(get_field(d, "constraints", "", as_list, [])):
            add_constraint(m, e, f"constraints[{i}]")
        add_collisions(m, get_field(d, "collision_shapes", "", as_list, []),
                       get_field(d, "collision_excludes", "", as_list, []),
                       get_field(d, "self_collision", "", as_list, []))
        m.finalize()
    except ValueError as err:
        raise ValueError(f"{source}: {str(err).lstrip(': ')}") from None
    return m


def loads_model(text, format="yaml", source="<string>", *, base_dir=None, mesh_dirs=None, allow_outside=False):
    """A new ``Multibody`` from model file text (str); ``format`` is "yaml" or "json".

    ``base_dir`` (the file's folder) and ``mesh_dirs`` are the folders the model's mesh files
    may come from (``m.file_roots``; ``allow_outside=True``: anywhere); modal data files are
    named relative to ``base_dir`` and read from inside it only (without it, only inline modal
    data is read). YAML anchors and aliases are refused. Raises ValueError naming ``source`` (and the line, for YAML).
    """
    if format not in ("json", "yaml"):
        raise ValueError(f"format must be 'yaml' or 'json', got {format!r}")
    errors = (json.JSONDecodeError,) if format == "json" else _yaml.error_types()
    try:
        try:
            d = json.loads(text) if format == "json" else _yaml.load(text)
        except errors as e:
            raise ValueError(f"{source}: invalid {format.upper()}: {' '.join(str(e).split())}") from None
        m = model_from_dict(d, source, base_dir=base_dir, allow_outside=allow_outside)
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
        Mesh, modal data (and MJCF include) files anywhere (default False: inside the
        model's folder, the package roots and the folders given; modal data files inside
        the model's folder).
    max_bytes : int
        The largest model file read (default 256 MiB).

    Raises
    ------
    ValueError
        Naming the file, and the field path on bad content; a file that is not a regular
        file or is larger than ``max_bytes``; YAML anchors and aliases; a modal data file
        outside the model's folder, missing or invalid (naming it).
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
