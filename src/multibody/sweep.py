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
* ``processes=N``: N worker processes of this package's own small pool
  (``_sweep_pool``), started with the "spawn" method (no fork of a process whose
  Numba threads are running), each with one chunk of cases in flight.
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
raised (with ``case_index``). Every case should return the same structure and
shapes; the one most cases returned wins (a tie: the one of the lowest case index),
and a case that returned another fails alone, with a message saying so: a wrong
first case does not sink the others.

Sweeps that survive
-------------------
* ``timeout=`` seconds per case (with ``processes=`` or ``client=``; a serial sweep
  cannot stop a case running in its own process, so it refuses one with a
  ``ValueError``, rather than warn and then hang): a case that runs longer fails with
  ``TimeoutError``. Its worker process is killed and a new one started; on Dask its
  task is cancelled and its worker restarted through its nanny (Dask cannot stop a
  running call otherwise). The clock starts when a worker takes the case, so a
  worker's first case includes loading (or compiling) its kernels.
* A worker that dies under a case (``os._exit``, a segfault, the OOM killer) fails
  that case alone (``WorkerLost``); the rest of its chunk runs elsewhere.
  ``retries=k`` runs such a case again, on another worker, until it has lost ``k + 1``
  workers. On Dask the scheduler reruns the task itself and the sweep, which hears of
  every case's start, stops it once the case has lost ``k + 1`` workers (a case that
  kills its worker at once may take one more down first). A case that raises or
  times out is not run again.
* Ctrl-C (``KeyboardInterrupt``) stops the sweep at once: the workers are stopped,
  ``output=`` is written with the cases done and ``SweepError`` is raised with
  ``interrupted=True``, those cases in ``results``/``completed``, the others in
  ``not_run``, and the ``KeyboardInterrupt`` as its ``__cause__``.
* The workers of ``processes=N`` ignore SIGINT (a Ctrl-C in a terminal is the
  parent's to handle) and end within a second of their parent however it ends
  (SIGTERM, SIGKILL, a crash). They are not daemonic, so ``run`` may start processes
  of its own.
"""
import math
import numbers
import pickle
from collections.abc import Mapping

from ._sweep_outputs import SweepError, assemble, check_output, run_case
from .progress import ProgressBar

__all__ = ["sweep", "SweepError"]


def _chunks(items, size):
    return [items[s:s + size] for s in range(0, len(items), size)]


def _positive_int(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or int(value) != value or value < minimum:
        kind = "a positive" if minimum == 1 else "a non-negative"
        raise ValueError(f"{name} must be {kind} integer, got {value!r}")


def _check_args(run, cases, client, processes, chunksize, timeout, retries):
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
    for name, value, minimum in (("processes", processes, 1), ("chunksize", chunksize, 1), ("retries", retries, 0)):
        if value is not None:
            _positive_int(name, value, minimum)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)
                                or not 0 < timeout < math.inf):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if client is None and processes is None and (timeout is not None or retries):
        what = "timeout= (a serial sweep cannot stop a case running in this process)" if timeout is not None \
            else "retries= (it reruns the case of a lost worker process; a serial sweep has none)"
        raise ValueError(f"{what} needs processes= or client=: processes=1 runs the cases one at a time "
                         "in a worker process")
    if processes is not None:
        try:
            pickle.dumps(run)
        except Exception as e:  # noqa: BLE001
            raise TypeError(f"with processes=, run must be picklable: define it at the top level of an "
                            f"importable module (not a lambda or a nested function); pickling it "
                            f"failed: {e}") from None
    return items


def _run_cases(run, items, client, processes, chunksize, timeout, retries, collect):
    """Run every case serially, in local processes or on Dask; ``collect`` gets the rows."""
    if client is None and processes is None:
        for i, case in items:
            collect([(i, *run_case(run, case))])
        return
    workers = int(processes) if processes is not None else max(1, len(client.scheduler_info()["workers"]))
    size = int(chunksize) if chunksize is not None else max(1, math.ceil(len(items) / (4 * workers)))
    chunks = _chunks(items, size)
    if processes is not None:
        from ._sweep_pool import run_in_pool
        run_in_pool(run, chunks, processes, collect, timeout, retries)
    else:
        from ._sweep_dask import run_on_dask
        run_on_dask(run, chunks, client, collect, timeout, retries)


def sweep(run, cases, client=None, processes=None, progress=True, output=None, *,
          chunksize=None, timeout=None, retries=0):
    """Run ``run(case)`` for every case and return the outputs stacked in case order.

    Parameters
    ----------
    run : ``run(case)`` -> an array (or a number), a dict of arrays or a tuple of
        arrays; every case should give the same keys and shapes (the most common
        wins, see Raises). With ``processes=`` it must be picklable (defined at the
        top level of an importable module).
    cases : a sequence (list, tuple, array: one case per row, generator) of cases.
    client : a ``dask.distributed.Client``: run the cases on its cluster (a
        ``LocalCluster``, dask-jobqueue's ``SLURMCluster``/``PBSCluster``,
        dask-kubernetes' ``KubeCluster``, ... see the module docstring).
    processes : run on this many local worker processes ("spawn" start method; a
        worker that dies or hangs costs only its case). None with ``client=None``:
        serially in this process.
    progress : show a progress bar on stderr (cases done, failed, eta) once the
        sweep has lasted half a second; it ends with a newline.
    output : optional ".npz" path (or ".zarr", needs zarr) the stacked outputs are
        written to, with ``case_index`` (the case of each row); an array output is
        stored as ``result``, a tuple as ``result_0``, ``result_1``, ...; checked
        before any case runs, written also when cases fail or Ctrl-C stops the sweep.
    chunksize : cases sent to a worker at a time (default: about four chunks per
        worker); outputs, failures and timeouts are still per case.
    timeout : seconds one case may run, counted from its start on a worker (a
        worker's first case includes loading or compiling its kernels); a case that
        runs longer fails with ``TimeoutError``: its worker process is killed and
        replaced (``processes=``), or its Dask task cancelled and its worker
        restarted through its nanny (``client=``: Dask cannot stop a running call
        otherwise). Needs ``processes=`` or ``client=``: a ``ValueError`` otherwise.
    retries : how many more times a case is run after its worker died under it
        (``os._exit``, a crash, the OOM killer); 0: it fails at once with
        ``WorkerLost``. A case that raises or times out is not run again. With
        ``client=``, Dask's scheduler reruns the task and the sweep stops it once
        the case has lost ``retries + 1`` workers.

    Returns
    -------
    An array of shape (len(cases), ...), a dict of such arrays or a tuple of them,
    following what ``run`` returns.

    Raises
    ------
    SweepError
        Once every case has run, if some failed: ``failures`` maps their indices to
        the traceback text (or a one-line reason), ``results``/``completed`` hold the
        others. The cases whose output has another structure or shape than the most
        common one (ties: the one of the lowest case index) fail too, alone. On
        Ctrl-C the workers are stopped and ``SweepError`` is raised at once with
        ``interrupted=True``, the cases done so far in ``results``/``completed`` and
        the others in ``not_run``. ``output=`` is written first.
    TypeError, ValueError
        Bad arguments, before any case runs.
    """
    items = _check_args(run, cases, client, processes, chunksize, timeout, retries)
    path = check_output(output)
    n = len(items)
    done, failures = {}, {}
    bar = ProgressBar(after=0.5) if progress else None

    def collect(rows):
        for i, ok, value in rows:
            (done if ok else failures)[i] = value
        if bar is not None:
            finished, failed = len(done) + len(failures), len(failures)
            bar.update(finished / n, f"{finished}/{n} cases" + (f", {failed} failed" if failed else ""))

    interrupted = None
    try:
        _run_cases(run, items, client, processes, chunksize, timeout, retries, collect)
    except KeyboardInterrupt as e:  # the workers are stopped by now; keep what is done
        interrupted = e
    finally:
        if bar is not None:
            bar.close()
    return assemble(done, failures, n, path, interrupted)


#: ``mb.sweep.SweepError`` (``multibody.sweep`` names the function once imported from the package).
sweep.SweepError = SweepError
