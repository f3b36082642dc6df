"""``sweep``: one function over many cases, serially, in local processes or on a Dask cluster.

A *case* is anything that describes one run (a mass, a pair of gains, an initial
state, a dict of parameters); ``run(case)`` builds or changes a model from it, runs
it and returns an array, a dict of arrays or a tuple of arrays. ``sweep`` calls
``run`` on every case and gives back the outputs stacked in case order::

    def run(case):                          # at the top level of an importable module
        m = mb.Multibody(); m.add_serial_chain("l", 3, mass=case["mass"])
        res = mb.simulate(m, case["q0"], np.zeros(3), 1.0, dt=1e-3)
        return {"q_end": res.q[-1], "u_end": res.u[-1]}

    out = mb.sweep(run, cases)                               # serial
    out = mb.sweep(run, cases, processes=8)                  # a local process pool
    out = mb.sweep(run, cases, client=Client(cluster))       # a Dask cluster
    out["q_end"]                                             # (len(cases), 3)

Where the cases run
-------------------
* serially in this process (``client=None, processes=None``, the default);
* ``processes=N``: a ``concurrent.futures.ProcessPoolExecutor`` of N workers started
  with the "spawn" method (no fork of a process whose Numba threads are running).
  ``run`` and the cases are pickled: ``run`` must be importable, i.e. defined at the
  top level of a module (a lambda, a nested function or a function typed into an
  interactive session is refused with a ``TypeError`` before anything starts), and a
  script that calls ``sweep`` must do so under ``if __name__ == "__main__":``
  (each worker imports the script);
* ``client=``: a ``dask.distributed.Client``. Dask serializes ``run`` with
  cloudpickle, so a function defined in a script or notebook travels by value; the
  modules it imports (multibody, numpy) must be installed on the workers.

Each worker compiles (or loads from Numba's on-disk cache) the kernels ``run`` uses
once, on its first case. A ``Multibody`` pickles, so ``run`` may close over a model;
for a large model, loading it inside ``run`` (from a URDF reachable by the workers)
keeps the messages small.

On a real cluster
-----------------
Any Dask cluster works; ``sweep`` needs only its client (none of these packages is a
dependency of multibody)::

    from dask.distributed import Client
    from dask_jobqueue import SLURMCluster          # or PBSCluster, SGECluster, ...
    cluster = SLURMCluster(cores=16, processes=16, memory="32GB", walltime="02:00:00")
    cluster.scale(jobs=8)                           # 8 batch jobs of 16 workers
    out = mb.sweep(run, cases, client=Client(cluster))

    from dask_kubernetes.operator import KubeCluster
    cluster = KubeCluster(name="sweep", image="my-registry/multibody:latest", n_workers=50)
    out = mb.sweep(run, cases, client=Client(cluster))

    out = mb.sweep(run, cases, client=Client("tcp://scheduler-host:8786"))   # running scheduler

Set ``NUMBA_NUM_THREADS=1`` on workers that share a node's cores (one Dask worker
per core) if ``run`` calls the batched algorithms, so threads do not oversubscribe.

Failures
--------
A case that raises does not stop the sweep. When all cases have run, ``sweep``
raises ``SweepError`` if any failed: ``failures`` maps each failed case index to its
traceback text, ``results`` holds the stacked outputs of the other cases (case
order) and ``completed`` their indices; ``output=`` is written before the error is
raised (with ``case_index``). A case whose output has another structure or shape
than the first successful case's counts as failed, with a message saying so.
"""
import concurrent.futures as cf
import math
import multiprocessing
import pickle
import traceback
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .progress import ProgressBar

__all__ = ["sweep", "SweepError"]


class SweepError(RuntimeError):
    """Some cases of a sweep raised; the others' outputs are kept.

    Attributes
    ----------
    failures : {case index: traceback text} of the failed cases.
    results : the stacked outputs of the other cases, in case order (an array, a dict
        or a tuple of arrays, as ``sweep`` returns); None if every case failed.
    completed : (n_ok,) int array, the case index of each row of ``results``.
    """

    def __init__(self, failures, results, completed, n_cases):
        self.failures, self.results, self.completed = dict(failures), results, completed
        idx = sorted(self.failures)
        lines = [f"{len(idx)} of {n_cases} cases failed: indices {idx}"]
        lines += [f"  case {i}: {_last_line(self.failures[i])}" for i in idx[:10]]
        if len(idx) > 10:
            lines.append(f"  ... and {len(idx) - 10} more (see SweepError.failures)")
        super().__init__("\n".join(lines))


def _last_line(text):
    """The last non-empty line of a traceback text (``ExceptionType: message``)."""
    rows = [r for r in str(text).strip().splitlines() if r.strip()]
    return rows[-1].strip() if rows else ""


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


def _run_chunk(run, chunk):
    """[(index, True, (kind, payload)) or (index, False, traceback text)] of a chunk of (index, case)."""
    out = []
    for i, case in chunk:
        try:
            out.append((i, True, _canonical(run(case))))
        except Exception:  # noqa: BLE001 (every failure is reported by index)
            out.append((i, False, traceback.format_exc()))
    return out


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


def _check_output(output):
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


def _chunks(items, size):
    return [items[s:s + size] for s in range(0, len(items), size)]


def _check_args(run, cases, client, processes, chunksize):
    if not callable(run):
        raise TypeError(f"run must be callable (run(case) -> array, dict or tuple), got {type(run).__name__}")
    if isinstance(cases, (str, bytes, Mapping)) or not hasattr(cases, "__iter__"):
        raise TypeError(f"cases must be a sequence of cases (a list, a 2-D array, ...), got {type(cases).__name__}")
    items = list(enumerate(cases))
    if not items:
        raise ValueError("cases is empty: nothing to sweep")
    if client is not None and processes is not None:
        raise ValueError("give client= (a Dask cluster) or processes= (a local pool), not both")
    if client is not None and not (hasattr(client, "submit") and hasattr(client, "scheduler_info")):
        raise TypeError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
    if processes is not None and (isinstance(processes, bool) or int(processes) != processes or processes < 1):
        raise ValueError(f"processes must be a positive integer, got {processes!r}")
    if chunksize is not None and (isinstance(chunksize, bool) or int(chunksize) != chunksize or chunksize < 1):
        raise ValueError(f"chunksize must be a positive integer, got {chunksize!r}")
    if processes is not None:
        try:
            pickle.dumps(run)
        except Exception as e:  # noqa: BLE001
            raise TypeError(f"with processes=, run must be picklable: define it at the top level of an "
                            f"importable module (not a lambda or a nested function); pickling it "
                            f"failed: {e}") from None
    return items


def _in_pool(run, chunks, processes, collect):
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=int(processes), mp_context=ctx) as ex:
        futures = {ex.submit(_run_chunk, run, c): c for c in chunks}
        try:
            for f in cf.as_completed(futures):
                try:
                    collect(f.result())
                except Exception:  # noqa: BLE001 (a worker died or a case did not pickle)
                    tb = traceback.format_exc()
                    collect([(i, False, tb) for i, _ in futures[f]])
        except BaseException:
            ex.shutdown(wait=False, cancel_futures=True)
            raise


def _on_dask(run, chunks, client, collect):
    from dask.distributed import as_completed

    futures = [client.submit(_run_chunk, run, c, pure=False) for c in chunks]
    chunk_of = {f.key: c for f, c in zip(futures, chunks)}
    try:
        for f in as_completed(futures):
            try:
                collect(f.result())
            except Exception:  # noqa: BLE001 (a worker was lost or a case did not serialize)
                tb = traceback.format_exc()
                collect([(i, False, tb) for i, _ in chunk_of[f.key]])
            f.release()
    except BaseException:
        client.cancel(futures)
        raise


def sweep(run, cases, client=None, processes=None, progress=True, output=None, *, chunksize=None):
    """Run ``run(case)`` for every case and return the outputs stacked in case order.

    Parameters
    ----------
    run : ``run(case)`` -> an array (or a number), a dict of arrays or a tuple of
        arrays; every case must give the same keys and shapes. With ``processes=``
        it must be picklable (defined at the top level of an importable module).
    cases : a sequence (list, tuple, array: one case per row, generator) of cases.
    client : a ``dask.distributed.Client``: run the cases on its cluster (a
        ``LocalCluster``, dask-jobqueue's ``SLURMCluster``/``PBSCluster``,
        dask-kubernetes' ``KubeCluster``, ... see the module docstring).
    processes : run on a local pool of this many worker processes
        (``concurrent.futures.ProcessPoolExecutor``, "spawn" start method).
        None with ``client=None``: serially in this process.
    progress : show a progress bar on stderr (cases done, failed, eta) once the
        sweep has lasted half a second; it ends with a newline.
    output : optional ".npz" path (or ".zarr", needs zarr) the stacked outputs are
        written to, with ``case_index`` (the case of each row); an array output is
        stored as ``result``, a tuple as ``result_0``, ``result_1``, ...; checked
        before any case runs.
    chunksize : cases sent to a worker at a time (default: about four chunks per
        worker); outputs and failures are still per case.

    Returns
    -------
    An array of shape (len(cases), ...), a dict of such arrays or a tuple of them,
    following what ``run`` returns.

    Raises ``SweepError`` once every case has run if some raised: its ``failures``
    maps their indices to the traceback text, ``results``/``completed`` hold the
    others. Bad arguments raise ``TypeError``/``ValueError`` before any case runs.
    """
    items = _check_args(run, cases, client, processes, chunksize)
    path = _check_output(output)
    n = len(items)
    done, failures = {}, {}
    bar = ProgressBar(after=0.5) if progress else None

    def collect(rows):
        for i, ok, value in rows:
            (done if ok else failures)[i] = value
        if bar is not None:
            finished, failed = len(done) + len(failures), len(failures)
            bar.update(finished / n, f"{finished}/{n} cases" + (f", {failed} failed" if failed else ""))

    try:
        if client is None and processes is None:
            for item in items:
                collect(_run_chunk(run, [item]))
        else:
            workers = int(processes) if processes is not None else max(1, len(client.scheduler_info()["workers"]))
            size = int(chunksize) if chunksize is not None else max(1, math.ceil(n / (4 * workers)))
            if processes is not None:
                _in_pool(run, _chunks(items, size), processes, collect)
            else:
                _on_dask(run, _chunks(items, size), client, collect)
    finally:
        if bar is not None:
            bar.close()
    return _assemble(done, failures, n, path)


def _assemble(done, failures, n, path):
    """Stack the outputs in case order, check their shapes agree, write ``path``, raise on failures."""
    order = sorted(done)
    if order:
        ref = _signature(*done[order[0]])
        for i in order[1:]:
            sig = _signature(*done[i])
            if sig != ref:
                failures[i] = (f"ValueError: case {i} returned {_describe(sig)}, but case {order[0]} "
                               f"returned {_describe(ref)}")
        order = [i for i in order if i not in failures]
    results = _stack([done[i] for i in order]) if order else None
    completed = np.array(order, dtype=np.int64)
    if path is not None:
        _write(path, results, completed)
    if failures:
        raise SweepError(failures, results, completed, n)
    return results


#: ``mb.sweep.SweepError`` (``multibody.sweep`` names the function once imported from the package).
sweep.SweepError = SweepError
