"""Sweeps that go wrong, each run by ``tests/test_sweep_survives.py`` in a process of its own.

    python tests/sweep_scenarios.py SCENARIO WORKDIR

prints one JSON line per sweep it runs (what ``sweep`` returned or raised, and its wall
time). The cases write marker files into WORKDIR (the environment variable
``SWEEP_SCENARIO_DIR``, which the worker processes inherit). ``run`` functions are at
the top level and the sweeps start under ``if __name__ == "__main__":``, as
``processes=`` needs.
"""
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import multibody as mb
from multibody.sweep import SweepError

HANG = 60.0  # s: how long a "hanging" case sleeps, far beyond any timeout here


def _dir():
    return Path(os.environ["SWEEP_SCENARIO_DIR"])


def _output(k):
    return np.array([k, 2.0 * k])


def hang_at_3(k):
    """Case 3 hangs."""
    if k == 3:
        time.sleep(HANG)
    return _output(k)


def die_at_3_and_once_at_5(k):
    """Case 3 kills its worker every time; case 5 the first time only. Both note the worker's pid."""
    if k in (3, 5):
        marker = _dir() / f"died_{k}"
        first = not marker.exists()
        with open(marker, "a") as f:
            f.write(f"{os.getpid()}\n")
        if k == 3 or first:
            os._exit(7)
    return _output(k)


def quick_then_hang(k):
    """Cases 0-3 end at once (leaving a marker); the others hang."""
    if k >= 4:
        time.sleep(HANG)
    (_dir() / f"done_{k}").touch()
    return _output(k)


def report(label, call):
    """Run ``call()`` and print one JSON line: what it returned or the SweepError's content."""
    t0 = time.perf_counter()
    rec = {"label": label}
    try:
        out = call()
        rec.update(error=None, completed=list(range(len(out))))
    except SweepError as e:
        rec.update(error="SweepError", completed=e.completed.tolist(), interrupted=e.interrupted,
                   not_run=e.not_run, failures={str(i): t.strip().splitlines()[-1] for i, t in e.failures.items()},
                   message=str(e), cause=type(e.__cause__).__name__ if e.__cause__ else None,
                   rows=None if e.results is None else e.results[:, 0].tolist())
    rec["wall"] = round(time.perf_counter() - t0, 2)
    print(json.dumps(rec), flush=True)


def pool_hang():
    report("hang", lambda: mb.sweep(hang_at_3, range(8), processes=2, timeout=5, progress=False))


def pool_die():
    base = _dir()
    for retries in (0, 1):
        sub = base / f"retries{retries}"
        sub.mkdir()
        os.environ["SWEEP_SCENARIO_DIR"] = str(sub)  # before the workers start: they inherit it
        report(f"die retries={retries}", lambda: mb.sweep(die_at_3_and_once_at_5, range(8), processes=2,
                                                          retries=retries, chunksize=4 if retries else None,
                                                          progress=False))


def pool_signal():
    print(json.dumps({"label": "started", "pid": os.getpid()}), flush=True)
    report("signal", lambda: mb.sweep(quick_then_hang, range(8), processes=2, progress=False,
                                      output=_dir() / "out.npz"))


def dask_hang_and_die():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        report("dask hang", lambda: mb.sweep(hang_at_3, range(8), client=client, timeout=2, progress=False))
        report("dask die", lambda: mb.sweep(die_at_3_and_once_at_5, range(8), client=client, chunksize=4,
                                            progress=False))
        # the scheduler gives up on a task at its first lost worker (KilledWorker), before the
        # client hears of any rerun: what a loaded machine can make of the default 3 reruns
        client.run_on_scheduler(_no_reruns)
        (_dir() / "died_5").unlink(missing_ok=True)
        report("dask killed", lambda: mb.sweep(die_at_3_and_once_at_5, range(8), client=client, chunksize=4,
                                               progress=False))


def _no_reruns(dask_scheduler):
    dask_scheduler.allowed_failures = 0


if __name__ == "__main__":
    os.environ["SWEEP_SCENARIO_DIR"] = sys.argv[2]
    {"pool_hang": pool_hang, "pool_die": pool_die, "pool_signal": pool_signal,
     "dask_hang_and_die": dask_hang_and_die}[sys.argv[1]]()
