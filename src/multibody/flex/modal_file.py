"""Modal data files: ``.npz`` (always) and ``.h5``/``.hdf5`` (with h5py).

Both formats hold the same entries (n modes, k nodes; frames and units as in
``multibody.flex.modal_data``), all float64 unless said otherwise:

==================  ==========  ==========================================================
key                 shape       content
==================  ==========  ==========================================================
format              ()          the string ``"multibody.modal_data"``
version             ()          int64, 1
modal_mass          (n, n)      generalized mass, symmetric positive definite
stiffness           (n,)        modal stiffness, >= 0
damping             (n,)        modal damping, >= 0
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
"""
import json
import os
import tempfile

import numpy as np

from .modal_data import ModalData

FORMAT = "multibody.modal_data"
VERSION = 1
_OPTIONAL = ("damping", "Kg_centrifugal", "M1", "M2")
_REQUIRED = tuple(k for k in ModalData._ARRAYS if k not in _OPTIONAL)


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
    """Write ``data`` (a ModalData) to ``path`` (.npz, or .h5/.hdf5 with h5py).

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


def _from_entries(entries, header, path):
    fmt, version = header
    if fmt != FORMAT:
        raise ValueError(f"format: {path!r} is not a modal data file (format {fmt!r})")
    if version != VERSION:
        raise ValueError(f"version: {path!r} has version {version}, this reader reads {VERSION}")
    missing = [k for k in _REQUIRED if k not in entries]
    if missing:
        raise ValueError(f"{missing[0]}: missing from {path!r}")
    try:
        meta = json.loads(entries.pop("meta", "{}"))
    except ValueError as exc:
        raise ValueError(f"meta: not valid JSON in {path!r} ({exc})") from None
    known = {k: entries[k] for k in ModalData._ARRAYS if k in entries}
    return ModalData(meta=meta, **known)


def load_modal_data(path):
    """Read a ModalData from ``path`` (.npz, or .h5/.hdf5 with h5py), validated as on
    construction: a ValueError names the bad field."""
    kind = _kind(path)
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"path: no such file {path!r}")
    if kind == "npz":
        with np.load(path, allow_pickle=False) as z:
            entries = {k: z[k] for k in z.files}
        if "format" not in entries or "version" not in entries:
            raise ValueError(f"format: {path!r} is not a modal data file (no format/version)")
        header = (str(entries.pop("format")), int(entries.pop("version")))
        if "meta" in entries:
            entries["meta"] = str(entries["meta"])
    else:
        h5py = _h5py()
        with h5py.File(path, "r") as f:
            attrs = dict(f.attrs)
            entries = {k: f[k][()] for k in f.keys()}
        if "format" not in attrs or "version" not in attrs:
            raise ValueError(f"format: {path!r} is not a modal data file (no format/version)")
        fmt = attrs["format"]
        header = (fmt.decode() if isinstance(fmt, bytes) else str(fmt), int(attrs["version"]))
        meta = attrs.get("meta", "{}")
        entries["meta"] = meta.decode() if isinstance(meta, bytes) else str(meta)
    return _from_entries(entries, header, path)
