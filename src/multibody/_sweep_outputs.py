"""The outputs of ``sweep``: one case run and checked, the shape rule, stacking,
``output=`` files and ``SweepError``.

Every way of running cases (serial, ``_sweep_pool``, ``_sweep_dask``) reports rows
``(case index, ok, value)``: ``value`` is the case's output in canonical form
``(kind, payload)`` when ``ok``, else the failure's text (a traceback, or one line
saying the case timed out or lost its worker). ``assemble`` turns the rows collected
into what ``sweep`` returns or raises.
"""
import traceback
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = ["SweepError", "run_case", "assemble", "check_output"]


class SweepError(RuntimeError):
    """Some cases of a sweep failed, or the sweep was interrupted; the other outputs are kept.

    Attributes
    ----------
    failures : dict
        {case index: text} of the failed cases: the traceback of a case that
        raised, or one line for a case that timed out (``TimeoutError: ...``), lost
        its worker (``WorkerLost: ...``) or returned another shape than the others.
    results : ndarray, dict or tuple, or None
        The stacked outputs of the cases that succeeded, in case order (as ``sweep``
        returns them); None if none did.
    completed : ndarray of int
        (n_ok,) the case index of each row of ``results``.
    interrupted : bool
        True when Ctrl-C (``KeyboardInterrupt``) stopped the sweep; it is then the
        ``__cause__`` of this error.
    not_run : list of int
        The cases that had not finished when the sweep was interrupted (empty
        otherwise); they are in neither ``failures`` nor ``completed``.
    """

    def __init__(self, failures, results, completed, n_cases, not_run=None):
        self.failures, self.results, self.completed = dict(failures), results, completed
        self.interrupted = not_run is not None
        self.not_run = sorted(not_run or ())
        idx = sorted(self.failures)
        lines = []
        if self.interrupted:
            lines.append(f"sweep interrupted (KeyboardInterrupt): {len(completed)} of {n_cases} cases done, "
                         f"{len(self.not_run)} not run")
        if idx:
            lines.append(f"{len(idx)} of {n_cases} cases failed: indices {idx}")
            lines += [f"  case {i}: {_last_line(self.failures[i])}" for i in idx[:10]]
            if len(idx) > 10:
                lines.append(f"  ... and {len(idx) - 10} more (see SweepError.failures)")
        super().__init__("\n".join(lines))


def _last_line(text):
    """The last non-empty line of a traceback text (``ExceptionType: message``)."""
    rows = [r for r in str(text).strip().splitlines() if r.strip()]
    return rows[-1].strip() if rows else ""


def run_case(run, case):
    """(True, (kind, payload)) of ``run(case)``, or (False, traceback text) if it raised.

    Only ``Exception`` is caught: Ctrl-C (``KeyboardInterrupt``) and ``SystemExit`` go on.
    """
    try:
        return True, _canonical(run(case))
    except Exception:  # noqa: BLE001 (every failure is reported by index)
        return False, traceback.format_exc()


def _canonical(value):
    """(kind, payload) of one case's output: "array", "dict" or "tuple" of ndarrays."""
    if isinstance(value, Mapping):
        return "dict", {str(k): _as_array(v, f"[{k!r}]") for k, v in value.items()}
    if isinstance(value, tuple):
        return "tuple", tuple(_as_array(v, f"[{k}]") for k, v in enumerate(value))
    return "array", _as_array(value, "")


def _as_array(v, where):
    a = np.asarray(v)
    if a.dtype == object:
        raise TypeError(f"run must return an array, a dict of arrays or a tuple of arrays; "
                        f"its output{where} is a {type(v).__name__}")
    return a


def _signature(kind, payload):
    """What must agree between cases: the kind, the keys and the shapes."""
    if kind == "dict":
        return kind, tuple((k, v.shape) for k, v in payload.items())
    if kind == "tuple":
        return kind, tuple(v.shape for v in payload)
    return kind, payload.shape


def _describe(sig):
    kind, shapes = sig
    if kind == "dict":
        return "a dict " + ", ".join(f"{k!r}: {s}" for k, s in shapes)
    return f"a tuple of shapes {list(shapes)}" if kind == "tuple" else f"an array of shape {shapes}"


def _stack(outputs):
    """Stack a list of (kind, payload) of one signature along a new first axis."""
    kind = outputs[0][0]
    if kind == "dict":
        return {k: np.stack([p[k] for _, p in outputs]) for k in outputs[0][1]}
    if kind == "tuple":
        return tuple(np.stack([p[j] for _, p in outputs]) for j in range(len(outputs[0][1])))
    return np.stack([p for _, p in outputs])


def _odd_shapes(done):
    """{case index: failure text} of the successful cases whose output disagrees with the rule.

    The rule: the signature (kind, keys, shapes) returned by the most cases wins; a tie
    goes to the one the lowest case index returned. Whichever case comes first, one
    wrong-shaped case thus fails alone.
    """
    sigs = {i: _signature(*done[i]) for i in sorted(done)}
    counts = Counter(sigs.values())
    ref = max(counts, key=lambda s: counts[s])  # the first one met among the most common
    first = next(i for i, s in sigs.items() if s == ref)
    return {i: (f"ValueError: case {i} returned {_describe(s)}, but {counts[ref]} of {len(sigs)} "
                f"successful cases returned {_describe(ref)} (the most common; case {first} first)")
            for i, s in sigs.items() if s != ref}


def check_output(output):
    """The output path as a Path (".npz", or ".zarr" when zarr is installed), checked before the run."""
    if output is None:
        return None
    p = Path(output)
    suffix = p.suffix.lower()
    if suffix not in (".npz", ".zarr"):
        raise ValueError(f"output must end in .npz or .zarr, got {str(output)!r}")
    if not p.parent.is_dir():
        raise ValueError(f"output: folder {str(p.parent)!r} does not exist")
    if suffix == ".zarr":
        try:
            import zarr  # noqa: F401
        except ImportError:
            raise ValueError("output='*.zarr' needs the zarr package (pip install zarr); "
                             "use a .npz path otherwise") from None
    return p


def _write(path, results, completed):
    """Write the stacked results and their case indices to a .npz file or a Zarr group."""
    if isinstance(results, dict):
        arrays = dict(results)
    elif isinstance(results, tuple):
        arrays = {f"result_{j}": a for j, a in enumerate(results)}
    else:
        arrays = {} if results is None else {"result": results}
    arrays["case_index" if "case_index" not in arrays else "sweep_case_index"] = completed
    if path.suffix.lower() == ".npz":
        np.savez(path, **arrays)
        return
    import zarr
    group = zarr.open_group(str(path), mode="w")
    for k, a in arrays.items():
        group[k] = a


def assemble(done, failures, n, path, interrupted=None):
    """Stack the outputs in case order, fail the odd shapes, write ``path``, raise on failures.

    Parameters
    ----------
    done : {case index: (kind, payload)} of the cases that succeeded.
    failures : {case index: text} of the cases that failed (the odd shapes are added).
    n : the number of cases.
    path : the ``output=`` Path, or None.
    interrupted : the ``KeyboardInterrupt`` that stopped the sweep, or None.
    """
    failures = {**failures, **_odd_shapes(done)} if done else dict(failures)
    order = [i for i in sorted(done) if i not in failures]
    results = _stack([done[i] for i in order]) if order else None
    completed = np.array(order, dtype=np.int64)
    if path is not None:
        _write(path, results, completed)
    if interrupted is not None:
        not_run = [i for i in range(n) if i not in done and i not in failures]
        raise SweepError(failures, results, completed, n, not_run) from interrupted
    if failures:
        raise SweepError(failures, results, completed, n)
    return results
