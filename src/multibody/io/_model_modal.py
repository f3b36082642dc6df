"""Modal (flexible) bodies in the model file (``model_file.py``, format version 2).

A modal body's entry in ``modal_bodies`` names its modal data: a ``multibody.flex.ModalData``
holding the body's mass properties, modal mass, stiffness, damping, ``S``, ``S_rot``, the
integrals ``M1``, ``M2`` and, as its sampled nodes, the body's nodes in the order they were
added (their positions and mode shapes; a body without nodes gets one sampled node at its
origin with zero mode shapes, since a modal data file holds at least one). The data is

* a modal data file (``.npz``, ``.h5``) beside the model file, named by a path relative to
  the model file's folder (``<model file name>.<body>.modal.npz`` as written): written by
  ``flex.save_modal_data``, read by ``flex.load_modal_data`` (validated as on construction),
  only from inside the model's folder (``_uri.FileRefs``: decided from the text first,
  symlinks leading out refused), bodies whose data is equal bit for bit sharing one file; or
* inline: a mapping of the same fields (small data; what ``dumps_model`` writes).

The entry's ``nodes`` maps the names of the body's nodes (the ``nodes`` section places them)
to the sampled node whose mode shapes each carries. Schema: ``docs/model_format.md``.
"""
import hashlib
import inspect
import os
import re
from pathlib import Path

import numpy as np

from ..flex import ModalData, load_modal_data, save_modal_data
from ._model_fields import as_mapping, as_str, get_field
from ._uri import FileRefs

#: the fields of a modal body entry (``visuals``/``collisions`` are read by ``model_file``)
ENTRY = ("name", "modal_data", "nodes", "tip_node", "visuals", "collisions")
_PARAMS = inspect.signature(ModalData).parameters
_REQUIRED = tuple(k for k, p in _PARAMS.items() if p.default is inspect.Parameter.empty)


def body_modal_data(b):
    """The ``ModalData`` of modal body ``b`` (see the module docstring), or ValueError naming
    the body when a modal data file cannot hold it (a mass that is not positive)."""
    if not b.mass > 0.0:
        raise ValueError(f"modal body {b.name!r}: mass {b.mass!r}; the model file stores a modal body as "
                         f"modal data, which needs a positive mass")
    nodes = list(b.nodes.values())
    positions = np.array([nd.T_body_node[:3, 3] for nd in nodes]) if nodes else np.zeros((1, 3))
    shapes = np.array([nd.mode_shapes for nd in nodes]) if nodes else np.zeros((1, 6, b.n_modes))
    try:
        return ModalData(b.modal_mass, b.stiffness, shapes, positions, b.mass, b.com, b.inertia, b.S, b.S_rot,
                         damping=b.damping, M1=b.M1, M2=b.M2)
    except ValueError as e:
        raise ValueError(f"modal body {b.name!r}: its modal data: {e}") from None


def modal_body_dict(b, store):
    """The entry of modal body ``b`` (geometry left to the caller); ``store(b, data)`` gives
    the value of its ``modal_data`` field (a file name, or the inline mapping)."""
    d = {"name": b.name, "modal_data": store(b, body_modal_data(b))}
    if b.nodes:
        d["nodes"] = {name: i for i, name in enumerate(b.nodes)}
    if b.tip_node is not None:
        d["tip_node"] = b.tip_node.name
    return d


def inline(b, data):
    """The inline ``modal_data`` mapping of ``data`` (a ``store`` for ``modal_body_dict``)."""
    d = {k: a.tolist() for k, a in data.arrays().items()}
    if data.meta:
        d["meta"] = data.meta
    return d


def _digest(data):
    h = hashlib.sha256()
    for k, a in sorted(data.arrays().items()):
        h.update(f"{k}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


class ModalFiles:
    """A ``store`` that names one modal data file per distinct data beside the model file
    ``path`` (``<model file name>.<body>.modal.npz``: each model file owns its own, so saving
    another model beside it never changes what it reads); ``write()`` then writes them."""

    def __init__(self, path):
        self.folder, self.stem = Path(path).parent, Path(path).name
        self.names, self.pending = {}, []

    def __call__(self, b, data):
        key = _digest(data)
        if key not in self.names:
            base = f"{self.stem}.{re.sub(r'[^A-Za-z0-9_-]', '_', b.name)[:64]}"
            name, k = f"{base}.modal.npz", 1
            while name in (n for n, _ in self.pending):
                k += 1
                name = f"{base}-{k}.modal.npz"
            self.names[key] = name
            self.pending.append((name, data))
        return self.names[key]

    def write(self):
        """Write the files named; return their paths."""
        for name, data in self.pending:
            save_modal_data(data, self.folder / name)
        return [self.folder / name for name, _ in self.pending]


def _inline_data(v, where):
    as_mapping(v, where, tuple(_PARAMS))
    missing = [k for k in _REQUIRED if k not in v]
    if missing:
        raise ValueError(f"{where}.{missing[0]}: required field missing")
    try:
        return ModalData(**v)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


class ModalReader:
    """Reads the ``modal_bodies`` of one model file: ``add_bodies``, then ``mode_shapes`` for
    each node, then ``finish``. Files are read once each, so bodies that share a file share
    its arrays."""

    def __init__(self, base_dir=None, allow_outside=False):
        self.base, self.allow_outside = base_dir, allow_outside
        self.files, self.bodies = {}, {}  # path -> ModalData; body name -> (entry, where, data)

    def _file(self, ref, where):
        if self.base is None and not (self.allow_outside and os.path.isabs(ref)):
            raise ValueError(f"{where}: {ref!r} is a modal data file, found relative to the model file's folder: "
                             f"read the model with load_model (or give loads_model base_dir=)")
        refs = FileRefs(self.base, None, self.allow_outside)
        path, found = refs.resolve(ref)
        if refs.refused:
            raise ValueError(f"{where}: {ref!r} leads outside the model's folder {str(self.base)!r}; modal data "
                             f"files must lie inside it (allow_outside=True lifts this)")
        if not found:
            raise ValueError(f"{where}: no modal data file {ref!r} in {str(self.base)!r}")
        if path not in self.files:
            try:
                self.files[path] = load_modal_data(path)
            except ValueError as e:
                raise ValueError(f"{where}: {e}") from None
        return self.files[path]

    def add_bodies(self, m, entries):
        """Add the modal bodies of the ``modal_bodies`` list ``entries`` to ``m``; return
        [(entry, where, body)] for the caller's geometry."""
        out = []
        for i, e in enumerate(entries):
            where = f"modal_bodies[{i}]"
            as_mapping(e, where, ENTRY)
            name = get_field(e, "name", where, as_str)
            v = get_field(e, "modal_data", where, lambda v, w: v)
            data = _inline_data(v, f"{where}.modal_data") if isinstance(v, dict) else \
                self._file(as_str(v, f"{where}.modal_data"), f"{where}.modal_data")
            try:
                b = m.add_modal_body(name, modal_data=data)
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
            nodes = as_mapping(e.get("nodes", {}), f"{where}.nodes", None)
            for node, k in nodes.items():
                if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < data.n_nodes:
                    raise ValueError(f"{where}.nodes.{node}: expected the index of one of the modal data's "
                                     f"{data.n_nodes} sampled nodes, got {k!r}")
            self.bodies[name] = (e, where, data)
            out.append((e, where, b))
        return out

    def mode_shapes(self, node, body):
        """The mode shapes (6, n) of node ``node`` on body ``body`` (names), or None."""
        if body not in self.bodies:
            return None
        e, _, data = self.bodies[body]
        k = e.get("nodes", {}).get(node)
        return None if k is None else data.mode_shapes[k]

    def finish(self, m):
        """Check that each body's ``nodes`` are its nodes; set the bodies' ``tip_node``."""
        for name, (e, where, _) in self.bodies.items():
            b = m.body(name)
            tip = get_field(e, "tip_node", where, as_str, None)
            for node in [*e.get("nodes", {}), *([] if tip is None else [tip])]:
                if node not in b.nodes:
                    raise ValueError(f"{where}: {node!r} is not a node of modal body {name!r} (the nodes section "
                                     f"places a body's nodes)")
            if tip is not None:
                b.tip_node = b.nodes[tip]
