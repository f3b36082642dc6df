"""Reduced finite-element models from the files FE tools export: Matrix Market and NumPy.

* ``read_fe_matrix(path)``: one matrix, from a Matrix Market ``.mtx`` file (read with
  ``scipy.io.mmread``: a ``coordinate`` file gives a ``scipy.sparse`` CSR array, an
  ``array`` file a dense one) or an ``.npz`` archive (one written by
  ``scipy.sparse.save_npz``: CSR; or an archive of a single array: that array).
* ``load_reduced_model(files)``: a ``ModalData`` (``modal_data_from_nodes``) from the named
  fields of a reduced model, in one ``.npz`` of named arrays or in one file per field.

Fields (k nodes, n modes; the shapes ``modal_data_from_nodes`` takes, and the FE layouts):

==================  ===========================  =============================================
field               shape                        meaning
==================  ===========================  =============================================
positions           (k, 3)                       the nodes in the body frame [m]
mode_shapes         (k, 3, n), (k, 6, n),        the modes at the nodes; the FE layouts (3k, n)
                    (3k, n) or (6k, n)           (x, y, z of node 0, node 1, ...) and (6k, n)
                                                 (ux, uy, uz, rx, ry, rz per node) are
                                                 reordered to [rotation; translation] per node
stiffness           (n,) or (n, n)               the reduced stiffness K_red (diagonal or full)
mass_matrix         (3k, 3k), often sparse       the nodes' translational mass matrix
masses              (k,)                         or lumped masses (one of the two)
damping             (n,) or (n, n)               optional: the reduced damping matrix
rotary_inertia      (k, 3, 3)                    optional: node inertias, with (k, 6, n) shapes
==================  ===========================  =============================================

Reading is bounded (issue 19; ``multibody.io._files``): each file must be a regular file of
at most ``max_bytes``; an ``.npz``'s arrays as it declares them too, before any is inflated
(no pickles); a ``.mtx`` file's header is read first and a matrix whose declared size cannot
be in the file, or whose rows would not fit ``max_bytes``, is refused before ``mmread``
allocates it. Every error is a ValueError naming the file (FileNotFoundError for a missing
one). SciPy is needed for ``.mtx`` files and sparse matrices only, and imported there.
"""
import io
import os

import numpy as np

from .modal_integrals import modal_data_from_nodes, sparse_matrix

#: Default bound on the size of each file read (and of an .npz's arrays), 1 GiB.
MAX_BYTES = 2**30
FIELDS = ("positions", "mode_shapes", "stiffness", "mass_matrix", "masses", "damping", "rotary_inertia")
_SPARSE_NPZ = {"format", "shape", "data", "indices", "indptr", "row", "col", "coords", "offsets", "blocksize",
               "_is_array"}
#: the fewest characters an entry of a Matrix Market file of each format takes ("1\n", "1 1 1\n")
_MIN_ENTRY = {"array": 2, "coordinate": 6}


def _scipy(what):
    try:
        import scipy.io
        import scipy.sparse
    except ImportError:
        raise ImportError(f"{what} needs SciPy: pip install scipy") from None
    return scipy


def read_fe_matrix(path, max_bytes=MAX_BYTES):
    """One matrix of a finite-element export.

    Parameters
    ----------
    path : str or os.PathLike
        A Matrix Market ``.mtx`` file (real or integer, any symmetry; read with
        ``scipy.io.mmread``), or an ``.npz`` archive written by ``scipy.sparse.save_npz`` or
        holding a single array.
    max_bytes : int
        The most bytes the file (and an ``.npz``'s arrays) may take.

    Returns
    -------
    scipy.sparse.csr_array or numpy.ndarray
        CSR for a sparse matrix (a ``coordinate`` file, a sparse archive), else a float array.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Naming the file: another suffix, a file too large, a malformed or complex matrix.
    """
    from ..io._files import check_file, read_bounded  # (multibody.io imports the model, which imports flex)
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix not in (".mtx", ".npz"):
        raise ValueError(f"path: expected a .mtx or .npz file, got {name!r}")
    check_file(name, max_bytes)
    try:
        if suffix == ".mtx":
            return _read_mtx(read_bounded(name, max_bytes), max_bytes)
        return _read_npz(name, max_bytes)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _read_mtx(data, max_bytes):
    """The matrix of a Matrix Market file's bytes, its header checked before ``mmread``."""
    scipy = _scipy("reading a .mtx file")
    try:
        rows, cols, entries, fmt, field, _ = scipy.io.mminfo(io.BytesIO(data))
    except (ValueError, IndexError, TypeError) as exc:
        raise ValueError(f"not a Matrix Market file ({exc})") from None
    if field not in ("real", "integer"):
        raise ValueError(f"a {field} matrix; a real (or integer) one is needed")
    if entries * _MIN_ENTRY.get(fmt, 2) > len(data) or max(rows, cols) > max_bytes // 8:
        raise ValueError(f"its header declares a {rows} x {cols} {fmt} matrix of {entries} entries, "
                         f"more than its {len(data)} bytes can hold (or rows beyond max_bytes)")
    try:
        a = scipy.io.mmread(io.BytesIO(data))
    except (ValueError, IndexError, TypeError, OverflowError) as exc:
        raise ValueError(f"cannot be read as a Matrix Market matrix ({exc})") from None
    return scipy.sparse.csr_array(a, dtype=np.float64) if sparse_matrix(a) else np.asarray(a, dtype=np.float64)


def _read_npz(name, max_bytes):
    """The matrix of an .npz: a ``save_npz`` archive as CSR, or its one array."""
    from ..io._files import read_npz
    entries = read_npz(name, max_bytes)
    if "format" in entries and set(entries) <= _SPARSE_NPZ:
        scipy = _scipy("reading a sparse .npz")
        try:
            a = scipy.sparse.load_npz(name)
        except (ValueError, OSError, KeyError) as exc:
            raise ValueError(f"not a readable scipy.sparse archive ({exc})") from None
        if np.iscomplexobj(a.data):
            raise ValueError("a complex matrix; a real one is needed")
        return scipy.sparse.csr_array(a, dtype=np.float64)
    if len(entries) != 1:
        raise ValueError(f"expected one matrix (a scipy.sparse.save_npz archive or a single array), got the "
                         f"entries {', '.join(sorted(entries))}")
    a = next(iter(entries.values()))
    if a.dtype.kind not in "iuf":
        raise ValueError(f"expected an array of real numbers, got {a.dtype}")
    return a.astype(np.float64)


def load_reduced_model(files, max_bytes=MAX_BYTES, meta=None):
    """A ``ModalData`` from a reduced finite-element model's files.

    Parameters
    ----------
    files : str, os.PathLike or dict
        An ``.npz`` of named arrays (the fields of the module docstring, dense), or a mapping
        {field: path} with one file per field, each read by ``read_fe_matrix`` (so a sparse
        ``mass_matrix`` may come from a ``.mtx`` or ``save_npz`` file).
    max_bytes : int
        The most bytes each file may take.
    meta : dict, optional
        Provenance; by default the reader and the files.

    Returns
    -------
    ModalData
        ``modal_data_from_nodes`` of the fields (stiffness and damping matrices kept whole).

    Raises
    ------
    ValueError
        Naming the file (and the field): an unknown or missing field, a file that cannot be
        read, or a field that ``modal_data_from_nodes`` refuses.
    """
    if isinstance(files, dict):
        unknown = sorted(set(files) - set(FIELDS))
        if unknown:
            raise ValueError(f"files: {unknown[0]!r} is not a field of a reduced model (expected some of "
                             f"{', '.join(FIELDS)})")
        sources = {k: os.fspath(p) for k, p in files.items()}
        fields = {k: read_fe_matrix(p, max_bytes) for k, p in sources.items()}
    else:
        from ..io._files import read_npz
        name = os.fspath(files)
        try:
            fields = read_npz(name, max_bytes)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        unknown = sorted(set(fields) - set(FIELDS))
        if unknown:
            raise ValueError(f"{name}: {unknown[0]}: not a field of a reduced model (expected some of "
                             f"{', '.join(FIELDS)})")
        sources = dict.fromkeys(fields, name)
    meta = dict(generator="multibody.flex.load_reduced_model", files=sources) if meta is None else meta
    try:
        return modal_data_from_nodes(**_arguments(fields), meta=meta)
    except (ValueError, TypeError) as exc:
        field = str(exc).split(":")[0]
        where = sources.get(field, ", ".join(sorted(set(sources.values()))))
        raise ValueError(f"{where}: {exc}") from None


def _arguments(fields):
    """``modal_data_from_nodes``'s arguments of the fields read: small sparse ones made dense,
    column vectors flattened, FE-ordered mode shapes reshaped; ValueError naming a field."""
    missing = [k for k in ("positions", "mode_shapes", "stiffness") if k not in fields]
    if missing:
        raise ValueError(f"{missing[0]}: missing (a reduced model needs positions, mode_shapes, stiffness and "
                         f"mass_matrix or masses)")
    out = {k: (v if k == "mass_matrix" or not sparse_matrix(v) else v.toarray()) for k, v in fields.items()}
    for key in ("stiffness", "damping", "masses"):  # a column or row (.mtx has no vectors) is a vector
        shape = np.shape(out.get(key))
        if len(shape) == 2 and 1 in shape and (key == "masses" or shape != (1, 1)):
            out[key] = np.ravel(out[key])
    shapes, k = np.asarray(out["mode_shapes"]), (np.shape(out["positions"]) or (0,))[0]
    if shapes.ndim == 2 and shapes.shape[0] in (3 * k, 6 * k):
        per_node = shapes.reshape(k, -1, shapes.shape[1])
        out["mode_shapes"] = per_node if per_node.shape[1] == 3 else per_node[:, [3, 4, 5, 0, 1, 2]]
    return out
