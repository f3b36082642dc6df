"""Writing results files: ``ResultWriter``, the sink a run streams its samples through, and
``save_result``, which writes finished arrays. Both write ``.npz`` and ``.csv`` files
atomically (a temporary file renamed onto the target) under a lock against a second
writer; see ``result_journal`` for the files a run writes on the way.

CSV: one header line ``t [s],q:<name> [<unit>],...,u:<name> [<unit>],...`` (fields quoted
by the ``csv`` module where they need it) then one row per sample (shortest round-trip
float text). NPZ (uncompressed, ``np.load``-able): arrays ``t`` (N,), ``q`` (N, nq),
``u`` (N, nu), the strings ``status`` and ``message``, and ``q_names``, ``q_units``,
``u_names``, ``u_units``; with events that fired (``event_arrays``): ``event_t`` (k,),
``event_name``, ``event_kind`` (strings), ``event_index`` (int), ``event_stop`` (bool),
``event_q_before``, ``event_q_after`` (k, nq), ``event_u_before``, ``event_u_after`` (k, nu).
A CSV file has no place for them (their samples, before and after, are rows at their time).
"""
import csv
import io
import os
import re
import zipfile
from pathlib import Path

import numpy as np
from numpy.lib import format as npformat

from .result_journal import (AppendOnlyFile, OutputLock, block_record, end_record, iter_journal,
                             journal_header, partial_path)

__all__ = ["ResultWriter", "save_result", "check_output_path", "column_labels", "default_labels",
           "RESULT_SUFFIXES", "BLOCK_SAMPLES", "BLOCK_SECONDS"]

RESULT_SUFFIXES = (".npz", ".csv")
#: a run hands its samples to its results file in blocks of at most this many samples
#: and (``simulate`` sizes them) about this much wall time [s]: a sample is written at
#: most one block after it is computed.
BLOCK_SAMPLES = 8192
BLOCK_SECONDS = 1.0


def label(name, unit):
    """``name [unit]``, or ``name`` for an empty unit."""
    return f"{name} [{unit}]" if unit else name


def _field(name, unit):
    """A header field; an empty unit is written ``[]`` where the name itself ends like one."""
    return f"{name} [{unit}]" if unit or re.search(r" \[[^\]]*\]$", name) else name


def column_labels(q_names, q_units, u_names, u_units):
    """The CSV header fields: ``t [s]``, ``q:<name> [<unit>]`` ..., ``u:<name> [<unit>]`` ..."""
    return (["t [s]"] + [_field(f"q:{n}", s) for n, s in zip(q_names, q_units)]
            + [_field(f"u:{n}", s) for n, s in zip(u_names, u_units)])


def default_labels(nq, nu):
    """The labels of columns nobody named: ``(q0.., "".., u0.., ""..)``."""
    return [f"q{i}" for i in range(nq)], [""] * nq, [f"u{i}" for i in range(nu)], [""] * nu


def check_output_path(path, what="output", suffixes=RESULT_SUFFIXES):
    """Check before a run that ``path`` can be written: its suffix is one of ``suffixes``
    (None: any), its folder exists and is writable. Returns the Path; raises ValueError
    naming ``what`` (the argument or option) otherwise."""
    p = Path(path)
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise ValueError(f"{what} {str(path)!r}: unknown file type {p.suffix!r}; use {' or '.join(suffixes)}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{what} {str(path)!r}: the folder {str(folder)!r} does not exist")
    if p.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder, not a file")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"{what} {str(path)!r}: no permission to write there")
    return p


def _csv_header(labels):
    """The header line (fields quoted by the ``csv`` module where they need it)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(column_labels(*labels))
    return buf.getvalue().encode("utf-8")


def _csv_rows(T, Q, U):
    """Rows of numbers (shortest round-trip text; numbers never need quoting)."""
    rows = np.column_stack([T, Q, U]).tolist()
    return "".join(",".join(map(repr, r)) + "\n" for r in rows).encode("ascii")


#: the fields of an event record (``results.EventRecord``), each an array ``event_<field>``
EVENT_FIELDS = ("t", "name", "index", "kind", "q_before", "u_before", "q_after", "u_after", "stop")


def event_arrays(events):
    """The NPZ arrays of the event records ``events`` ({} without events)."""
    if not events:
        return {}
    dtypes = dict(t=np.float64, name=str, index=np.int64, kind=str, stop=bool)
    return {f"event_{k}": np.array([getattr(e, k) for e in events], dtype=dtypes.get(k, np.float64))
            for k in EVENT_FIELDS}


def _small_arrays(labels, status, message, events=()):
    qn, qu, un, uu = labels
    return dict(status=np.array(status), message=np.array(message), q_names=np.array(qn, dtype=str),
                q_units=np.array(qu, dtype=str), u_names=np.array(un, dtype=str), u_units=np.array(uu, dtype=str),
                **event_arrays(events))


def _sync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _replace_atomically(path, write):
    """Run ``write(file)`` on a temporary file beside ``path``, fsync it and rename it onto
    ``path``; on any failure the temporary file is removed and the error raised."""
    tmp = Path(f"{path}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent if str(path.parent) else Path("."))


def _write_npz(f, big, small):
    """An uncompressed .npz (as ``np.savez``) into the open file ``f``. ``big`` maps a key
    to ``(shape, chunks)``: ``chunks()`` yields the array's rows in order, a chunk at a
    time (memory stays bounded however long they are)."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for key, (shape, chunks) in big.items():
            with zf.open(f"{key}.npy", "w", force_zip64=True) as out:
                npformat.write_array_header_2_0(out, dict(descr=npformat.dtype_to_descr(np.dtype(np.float64)),
                                                          fortran_order=False, shape=shape))
                rows = 0
                for a in chunks():
                    out.write(np.ascontiguousarray(a, dtype=np.float64).tobytes())
                    rows += a.shape[0]
                if rows != shape[0]:
                    raise OSError(f"{key}: {rows} rows written, {shape[0]} expected (the journal changed?)")
        for key, a in small.items():
            with zf.open(f"{key}.npy", "w") as out:
                npformat.write_array(out, a, allow_pickle=False)


def save_result(path, t, q, u, labels, status="finished", message="", what="path", events=()):
    """Write finished samples t (N,), q (N, nq), u (N, nu) with ``labels`` (q_names,
    q_units, u_names, u_units) and the records of the ``events`` that fired (NPZ only) to
    ``path`` (.npz or .csv) atomically, under the lock against a second writer. Returns the
    Path."""
    p = check_output_path(path, what).absolute()
    lock = OutputLock(p, what)
    try:
        if p.suffix.lower() == ".csv":
            _replace_atomically(p, lambda f: f.write(_csv_header(labels) + _csv_rows(t, q, u)))
        else:
            big = {k: (a.shape, lambda a=a: [a]) for k, a in (("t", t), ("q", q), ("u", u))}
            _replace_atomically(p, lambda f: _write_npz(f, big, _small_arrays(labels, status, message, events)))
    finally:
        lock.release()
    return p


class ResultWriter:
    """A result sink that streams samples durably to ``path`` (.npz or .csv) while a run
    goes on (memory bounded by one block of samples).

    ``labels`` is ``(q_names, q_units, u_names, u_units)`` (default q0.., u0..). At
    construction (before a run) the path is checked, ``<path>.lock`` taken (a second
    writer gets a ``ValueError`` naming the file), a previous file at ``path`` removed and
    ``<path>.partial`` created (``ValueError`` if it cannot be). Each block is appended to
    it whole, at once (``result_journal``); a write that fails raises ``OSError`` then and
    there (``error`` keeps it). ``close(status, message)`` makes the file: the CSV is
    renamed onto ``path``, the NPZ archive assembled from the journal and renamed onto
    ``path``; if that fails the partial file stays, ``load_result(path)`` recovers it.
    """

    def __init__(self, path, nq, nu, labels=None, what="output"):
        self.path = check_output_path(path, what).absolute()  # (the run's cwd may change)
        self.nq, self.nu = nq, nu
        self.labels = labels or default_labels(nq, nu)
        self.n, self.t_last, self.error, self.saved = 0, None, None, None
        self.csv = self.path.suffix.lower() == ".csv"
        self.partial = partial_path(self.path)
        self.lock = OutputLock(self.path, what)
        self.file = None
        try:
            self.file = AppendOnlyFile(self.partial)
            self.file.append(_csv_header(self.labels) if self.csv else journal_header(nq, nu, self.labels))
            self.path.unlink(missing_ok=True)  # an older file must not pass for this run's
        except OSError as e:
            self._release()
            self.partial.unlink(missing_ok=True)
            raise ValueError(f"{what} {str(path)!r}: cannot write: {e.strerror or e}") from None

    def initialize(self, t, q, u):
        self.process_block(np.array([t]), np.asarray(q)[None], np.asarray(u)[None])

    def process(self, t, q, u):
        self.initialize(t, q, u)

    def process_block(self, T, Q, U):
        """Append samples T (n,), Q (n, nq), U (n, nu); ``OSError`` if they cannot be."""
        k = T.shape[0]
        if k == 0:
            return
        if self.error is not None:
            raise OSError(f"{str(self.path)!r}: no more samples after a write error: {self.error}")
        data = _csv_rows(T, Q, U) if self.csv else block_record(T, Q, U)
        try:
            self.file.append(data)
        except OSError as e:
            self.error = e
            raise
        self.n += k
        self.t_last = float(T[-1])

    def close(self, status="finished", message="", events=()):
        """Finish the file (an NPZ with the records of the ``events`` that fired) and release
        the lock. Returns the Path written; raises ``OSError`` (naming where the samples are)
        if the file cannot be finished."""
        if self.file is None:
            return self.saved
        try:
            self.file.check()
            if not self.csv:
                try:
                    self.file.append(end_record(status, message))
                except OSError:
                    pass  # (a full disk: the journal holds the samples, the status is lost)
            self.file.sync()
            if self.csv:
                os.replace(self.partial, self.path)
                _sync_folder(self.file.folder)
            else:
                _replace_atomically(self.path, self._assemble(status, message, events))
                self.partial.unlink()
            self.saved = self.path
        except OSError as e:
            raise OSError(e.errno, self._lost(e)) from e
        finally:
            self._release()
        return self.saved

    def _assemble(self, status, message, events):
        """The writer of the NPZ archive: it reads the journal once per array, a block at a time."""
        def rows(cols):
            return lambda: (x[:, cols] for kind, x in iter_journal(self.partial) if kind == "B")
        n, nq = self.n, self.nq
        big = dict(t=((n,), rows(0)), q=((n, nq), rows(slice(1, 1 + nq))),
                   u=((n, self.nu), rows(slice(1 + nq, None))))
        return lambda f: _write_npz(f, big, _small_arrays(self.labels, status, message, events))

    def _lost(self, e):
        """What went wrong finishing the file and where the samples are now."""
        what = e.strerror or str(e)
        if self.partial.is_file():
            upto = "" if self.t_last is None else f" (t up to {self.t_last:.6g} s)"
            return (f"{what}; the {self.n} samples written{upto} are in "
                    f"{str(self.partial)!r}: load_result({str(self.path)!r}) recovers them")
        return f"{what}; the file is lost"

    def _release(self):
        if self.file is not None:
            self.file.close()
            self.file = None
        self.lock.release()
