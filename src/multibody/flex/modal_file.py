"""Modal data files: ``.npz`` (always) and ``.h5``/``.hdf5`` (with h5py).

Both formats hold the same entries (n modes, k nodes; frames and units as in
``multibody.flex.modal_data``), all float64 unless said otherwise:

==================  ==========  ==========================================================
key                 shape       content
==================  ==========  ==========================================================
format              ()          the string ``"multibody.modal_data"``
version             ()          int64, 1
modal_mass          (n, n)      generalized mass, symmetric positive definite
stiffness           (n,)        modal stiffness, >= 0; or (n, n) symmetric positive semi-definite
damping             (n,)        modal damping, >= 0; or (n, n) symmetric positive semi-definite
node_positions      (k, 3)      undeformed node positions in the body frame [m]
mode_shapes         (k, 6, n)   [rotation; translation] of each node per unit modal coordinate
mass                ()          total mass [kg]
com                 (3,)        centre of mass [m]
inertia             (3, 3)      rotational inertia about com [kg m^2]
S                   (3, n)      first moments of the modes
S_rot               (3, n)      angular momentum coupling about the origin
Kg_centrifugal      (n, n)      optional: geometric stiffness per Omega^2
M1                  (n,6,6+n)   optional: the mass matrix's first-order change per unit eta
M2                  (n,n,s,s)   optional: its second-order change (with M1), s = 6 or 6 + n
meta                ()          a JSON string (provenance)
==================  ==========  ==========================================================

``M2`` is the rigid block only (s = 6, linear kinematics; every file of earlier versions)
or the whole (6 + n) matrix, whose angular/modal and modal/modal blocks the foreshortening
of geometric stiffening fills (``multibody.flex.modal_integrals``); both read the same way.

In an ``.npz`` every entry is an array (strings as 0-d unicode arrays; read with
``allow_pickle=False``). In HDF5 the arrays are datasets of the root group and
``format``, ``version`` and ``meta`` are attributes of the root group. The arrays are
written as they are, so a file read back is bit-for-bit the object written.

Reading validates (issue 19), every error naming the file: a regular file of at most
``max_bytes`` (1 GiB by default; for an ``.npz`` also the arrays' total size as the archive
declares it, before any is inflated), an archive NumPy can read (an empty, truncated or
non-zip file is refused by name, not left to ``EOFError``/``BadZipFile``), only the names
above, a string ``format`` and ``meta`` and an integer ``version``, then the fields as
``ModalData`` checks them (shapes, finite real numbers: complex data is refused, never cast).
"""
import json
import os
import tempfile

import numpy as np

from .modal_data import ModalData

FORMAT = "multibody.modal_data"
VERSION = 1
#: Default bound on the size of a modal data file (and of an .npz's arrays), 1 GiB.
MAX_BYTES = 2**30
_OPTIONAL = ("damping", "Kg_centrifugal", "M1", "M2")
_REQUIRED = tuple(k for k in ModalData.ARRAYS if k not in _OPTIONAL)
_HEADER = ("format", "version", "meta")


def _kind(path):
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix == ".npz":
        return "npz"
    if suffix in (".h5", ".hdf5"):
        return "h5"
    raise ValueError(f"path: expected a .npz, .h5 or .hdf5 file, got {os.fspath(path)!r}")


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("HDF5 modal data files need h5py: pip install h5py "
                          "(or save to .npz, which needs nothing else)") from None
    return h5py


def save_modal_data(data, path):
    """Write ``data`` (a ModalData) to ``path`` (.npz, or .h5/.hdf5 with h5py; the keys are
    listed in ``docs/modal_data.md``); read it back with ``load_modal_data``. Also the
    method ``ModalData.save(path)`` (attached by the package ``multibody.flex``).

    The file is written to a temporary name beside ``path`` and renamed over it, so a
    failed write leaves no partial file.
    """
    if not isinstance(data, ModalData):
        raise ValueError(f"data: expected a ModalData, got {type(data).__name__}")
    kind = _kind(path)
    path = os.fspath(path)
    arrays = data.arrays()
    meta = json.dumps(data.meta, sort_keys=True)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".modal-", suffix=".part", dir=folder)
    os.close(fd)
    try:
        if kind == "npz":
            with open(tmp, "wb") as f:
                np.savez(f, format=np.array(FORMAT), version=np.array(VERSION, dtype=np.int64),
                         meta=np.array(meta), **arrays)
        else:
            h5py = _h5py()
            with h5py.File(tmp, "w") as f:
                f.attrs["format"] = FORMAT
                f.attrs["version"] = VERSION
                f.attrs["meta"] = meta
                for name, a in arrays.items():
                    f.create_dataset(name, data=a)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _text(value, what):
    """A 0-d string entry as str (bytes decoded), or ValueError naming ``what``."""
    a = np.asarray(value)
    if a.shape != () or a.dtype.kind not in "USO":
        raise ValueError(f"{what}: expected a string, got an array of {a.dtype} with shape {a.shape}")
    v = a.item()
    return v.decode() if isinstance(v, bytes) else str(v)


def _from_entries(entries, header):
    """The ModalData of a file's entries; ValueError naming the field (``load_modal_data``
    adds the file)."""
    unknown = sorted(set(entries) - set(ModalData.ARRAYS) - set(_HEADER))
    if unknown:
        raise ValueError(f"{unknown[0]}: not a modal data entry (expected some of "
                         f"{', '.join(ModalData.ARRAYS + _HEADER)})")
    fmt, version = header
    if fmt != FORMAT:
        raise ValueError(f"format: not a modal data file (format {fmt!r})")
    if version != VERSION:
        raise ValueError(f"version: version {version}, this reader reads {VERSION}")
    missing = [k for k in _REQUIRED if k not in entries]
    if missing:
        raise ValueError(f"{missing[0]}: missing")
    try:
        meta = json.loads(_text(entries.pop("meta", "{}"), "meta"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"meta: not valid JSON ({exc})") from None
    known = {k: entries[k] for k in ModalData.ARRAYS if k in entries}
    return ModalData(meta=meta, **known)


def _header(values):
    """(format, version) from the ``format``/``version`` values of a file."""
    if "format" not in values or "version" not in values:
        raise ValueError("format: not a modal data file (no format/version)")
    v = np.asarray(values["version"])
    if v.shape != () or v.dtype.kind not in "iu":
        raise ValueError(f"version: expected an integer, got an array of {v.dtype} with shape {v.shape}")
    return _text(values["format"], "format"), int(v)


def _read_npz(path, max_bytes):
    """(entries, header) of an .npz file, its arrays' declared size bounded first."""
    from ..io._files import read_npz  # (multibody.io imports the model, which imports flex)
    entries = read_npz(path, max_bytes)
    return entries, _header(entries)


def _read_h5(path, max_bytes):
    """(entries, header) of an HDF5 file (format, version and meta from the root's
    attributes), its datasets' declared size bounded first."""
    h5py = _h5py()
    try:
        with h5py.File(path, "r") as f:
            attrs = dict(f.attrs)
            items = dict(f.items())
            bad = [k for k, d in items.items() if not isinstance(d, h5py.Dataset)]
            if bad:
                raise ValueError(f"{bad[0]}: not a dataset")
            size = sum(d.size * d.dtype.itemsize for d in items.values())
            if size > max_bytes:
                raise ValueError(f"its arrays take {size} bytes, more than the limit of {max_bytes} "
                                 "(max_bytes= raises it)")
            entries = {k: d[()] for k, d in items.items()}
    except (OSError, TypeError) as exc:
        raise ValueError(f"not a readable HDF5 file ({type(exc).__name__}: {exc})") from None
    entries["meta"] = attrs.get("meta", "{}")
    return entries, _header(attrs)


def load_modal_data(path, max_bytes=MAX_BYTES):
    """Read a ModalData from ``path`` (.npz, or .h5/.hdf5 with h5py), validated on load (see
    the module docstring) and as on construction.

    Raises FileNotFoundError for a missing file and ValueError naming the file and the bad
    field (or entry) otherwise.
    """
    from ..io._files import check_file  # (multibody.io imports the model, which imports flex)
    kind = _kind(path)
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"path: no such file {path!r}")
    check_file(path, max_bytes)
    try:
        entries, header = _read_npz(path, max_bytes) if kind == "npz" else _read_h5(path, max_bytes)
        for key in ("format", "version"):
            entries.pop(key, None)
        return _from_entries(entries, header)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
