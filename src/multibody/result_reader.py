"""Reading results files back, checked: ``read_result(path)`` gives the arrays, labels and
status of a ``.npz`` or ``.csv`` file (formats in ``result_writer``), or recovers them from
the partial file of a run that did not finish it (``result_journal``). Every error is a
``ValueError`` naming the file."""
import csv
import io
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np

from .result_journal import OutputLock, partial_path, read_journal
from .result_writer import EVENT_FIELDS, RESULT_SUFFIXES

__all__ = ["read_result", "RecoveredResultWarning"]

_HEAD = re.compile(r"^(?P<name>.*?)(?: \[(?P<unit>[^\]]*)\])?$", re.DOTALL)
_LABEL_KEYS = ("q_names", "q_units", "u_names", "u_units")


class RecoveredResultWarning(UserWarning):
    """``load_result`` read the partial file of a run that did not finish its results file
    (killed, out of disk space, or still running)."""


def _fail(path, what):
    return ValueError(f"path {str(path)!r}: {what}")


def _check(path, t, q, u, labels):
    """Check the shapes, dtypes and labels of a results file's arrays; float64 copies."""
    for key, a, ndim in (("t", t, 1), ("q", q, 2), ("u", u, 2)):
        if a.dtype.kind not in "fiu":
            raise _fail(path, f"array {key} holds {a.dtype} values, not numbers")
        if a.ndim != ndim:
            raise _fail(path, f"array {key} has shape {a.shape}, expected {ndim} dimension(s)")
    if not (q.shape[0] == u.shape[0] == t.shape[0]):
        raise _fail(path, f"arrays t, q, u have {t.shape[0]}, {q.shape[0]}, {u.shape[0]} rows; "
                          f"expected one per sample")
    if labels is not None:
        sizes = (q.shape[1], q.shape[1], u.shape[1], u.shape[1])
        for key, names, n in zip(_LABEL_KEYS, labels, sizes):
            if len(names) != n:
                raise _fail(path, f"{key} has {len(names)} entries for {n} columns")
    return t.astype(np.float64), q.astype(np.float64), u.astype(np.float64)


def _string(path, arrays, key, default, ndim):
    if key not in arrays:
        return default
    a = arrays[key]
    if a.dtype.kind != "U" or a.ndim != ndim:
        raise _fail(path, f"{key} must be a {'string' if ndim == 0 else '1-D array of strings'}, "
                          f"got {a.dtype} of shape {a.shape}")
    return str(a) if ndim == 0 else [str(x) for x in a]


def _read_npz(path):
    if not zipfile.is_zipfile(path):
        raise _fail(path, f"is not a readable results file (.npz): not a zip archive ({Path(path).stat().st_size} "
                          f"bytes: empty, truncated or another format)")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as e:  # empty, truncated, not a zip archive: EOFError, BadZipFile, OSError ...
        raise _fail(path, f"is not a readable results file (.npz): {type(e).__name__}: {e}") from None
    missing = [k for k in ("t", "q", "u") if k not in arrays]
    if missing:
        raise _fail(path, f"is not a results file: arrays {', '.join(missing)} missing "
                          f"(it holds {', '.join(arrays) or 'nothing'})")
    labels = None
    if any(k in arrays for k in _LABEL_KEYS):
        labels = tuple(_string(path, arrays, k, None, 1) for k in _LABEL_KEYS)
        if any(x is None for x in labels):
            raise _fail(path, f"needs all of {', '.join(_LABEL_KEYS)} or none")
    return dict(t=arrays["t"], q=arrays["q"], u=arrays["u"], labels=labels,
                status=_string(path, arrays, "status", "unknown", 0),
                message=_string(path, arrays, "message", "", 0), events=_events(path, arrays))


def _events(path, arrays):
    """The event records of an NPZ file as dicts of ``EventRecord``'s fields ([] if none),
    their shapes checked against the samples'."""
    keys = [f"event_{k}" for k in EVENT_FIELDS]
    present = [k for k in keys if k in arrays]
    if not present:
        return []
    if len(present) != len(keys):
        raise _fail(path, f"needs all of {', '.join(keys)} or none")
    k = arrays["event_t"].shape[0] if arrays["event_t"].ndim == 1 else -1
    nq, nu = arrays["q"].shape[-1], arrays["u"].shape[-1]
    shapes = dict(q_before=(k, nq), q_after=(k, nq), u_before=(k, nu), u_after=(k, nu))
    for f in EVENT_FIELDS:
        a = arrays[f"event_{f}"]
        if a.shape != shapes.get(f, (k,)) or (f in ("name", "kind")) != (a.dtype.kind == "U"):
            raise _fail(path, f"event_{f} has shape {a.shape} ({a.dtype}) for {k} events of {nq} q and {nu} u")
    conv = dict(t=float, name=str, index=int, kind=str, stop=bool)
    return [{f: conv[f](arrays[f"event_{f}"][i]) if f in conv else arrays[f"event_{f}"][i].astype(np.float64)
             for f in EVENT_FIELDS} for i in range(k)]


def _csv_header(path, header):
    if not header or _HEAD.match(header[0]).group("name") != "t":
        raise _fail(path, f"is not a results file: its first column is {header[:1]!r}, not 't [s]'")
    qn, qu, un, uu, qcols, ucols = [], [], [], [], [], []
    for j, field in enumerate(header[1:], start=1):
        mt = _HEAD.match(field)
        name, unit = mt.group("name"), mt.group("unit") or ""
        if name.startswith("q:") or re.fullmatch(r"q\d+", name):
            qn.append(name[2:] if name.startswith("q:") else name), qu.append(unit), qcols.append(j)
        elif name.startswith("u:") or re.fullmatch(r"u\d+", name):
            un.append(name[2:] if name.startswith("u:") else name), uu.append(unit), ucols.append(j)
        else:
            raise _fail(path, f"column {field!r} is neither q:<name> nor u:<name>")
    return (qn, qu, un, uu), qcols, ucols


def _read_csv(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = next(csv.reader(f), None)
            lines = f.read().splitlines(keepends=True)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise _fail(path, f"is not a readable results file (.csv): {e}") from None
    labels, qcols, ucols = _csv_header(path, header)
    if lines and not lines[-1].endswith(("\n", "\r")):
        warnings.warn(f"path {str(path)!r}: its last row is cut short (the writer stopped mid-row); "
                      f"skipped it", RecoveredResultWarning, stacklevel=3)
        lines.pop()
    try:
        data = np.loadtxt(io.StringIO("".join(lines)), delimiter=",", ndmin=2) if lines \
            else np.zeros((0, len(header)))
    except ValueError as e:
        raise _fail(path, f"a row is not {len(header)} numbers: {e}") from None
    if data.shape[1] != len(header):
        raise _fail(path, f"its rows have {data.shape[1]} values for {len(header)} columns")
    return dict(t=data[:, 0].copy(), q=data[:, qcols], u=data[:, ucols], labels=labels, status="unknown",
                message="read from a CSV file (the run's status is not stored there)", events=[])


def _recover(path, part):
    """The samples in the partial file ``part`` of the unfinished results file ``path``."""
    if path.suffix.lower() == ".csv":
        out = _read_csv(part)
        status, how = "unknown", ""
    else:
        try:
            meta, data, end, torn = read_journal(part)
        except (OSError, ValueError) as e:
            raise _fail(path, f"no such file; its partial file {str(part)!r} is unreadable: {e}") from None
        nq = meta["nq"]
        labels = tuple(meta.get(k) for k in _LABEL_KEYS)
        out = dict(t=data[:, 0].copy(), q=data[:, 1:1 + nq].copy(), u=data[:, 1 + nq:].copy(),
                   labels=None if None in labels else labels)
        status = end["status"] if end else "interrupted"
        how = f"; {torn} bytes of a torn last block ignored" if torn else ""
        if end:
            how += f"; the run ended {end['status']}: {end['message']}".rstrip(": ")
    span = f", t = {out['t'][0]:.6g}..{out['t'][-1]:.6g} s" if len(out["t"]) else ""
    busy = "; a run holds its lock: it is still going" if OutputLock.held(path) else ""
    out["message"] = (f"recovered from {str(part)!r}: the run writing {str(path)!r} did not finish it "
                      f"(killed, out of disk space, its folder made read-only, or still running){how}{busy}")
    out["status"] = status
    out["events"] = []  # (a journal keeps samples only: the events' states are among them)
    warnings.warn(f"path {str(path)!r}: {out['message']}; {len(out['t'])} samples{span}",
                  RecoveredResultWarning, stacklevel=3)
    return out


def read_result(path):
    """The arrays, labels and status of the results file ``path`` (.npz or .csv), checked:
    a dict with ``t`` (N,), ``q`` (N, nq), ``u`` (N, nu) (float64), ``labels``
    ((q_names, q_units, u_names, u_units) or None), ``status``, ``message`` and ``events``
    (dicts of ``EventRecord``'s fields; an NPZ file's, else []). A
    missing file whose ``<path>.partial`` exists is recovered from it with a
    ``RecoveredResultWarning``. Raises ``ValueError`` naming the file."""
    p = Path(path)
    if p.suffix.lower() not in RESULT_SUFFIXES:
        raise _fail(path, f"unknown results format {p.suffix!r}; use .npz or .csv")
    part = partial_path(p)
    if not p.is_file():
        if part.is_file():
            out = _recover(p, part)
        else:
            raise _fail(path, "no such file")
    else:
        out = _read_csv(p) if p.suffix.lower() == ".csv" else _read_npz(p)
    out["t"], out["q"], out["u"] = _check(path, out["t"], out["q"], out["u"], out["labels"])
    return out
