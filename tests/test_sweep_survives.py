"""``mb.sweep`` survives its cases (issue 19): a case that hangs past ``timeout=``, a
worker that dies, Ctrl-C or a killed parent, a case with the wrong shape.

The process-pool and Dask sweeps run in a process of their own
(``tests/sweep_scenarios.py``) under a time limit, so a sweep that hangs fails the test
instead of blocking it; the serial cases run here.
"""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.sweep import SweepError

SCENARIOS = Path(__file__).resolve().parent / "sweep_scenarios.py"
LINUX = sys.platform.startswith("linux")


def scenario(name, workdir, limit=60):
    """Run a scenario of sweep_scenarios.py; its JSON lines by label."""
    done = subprocess.run([sys.executable, str(SCENARIOS), name, str(workdir)], capture_output=True,
                          text=True, timeout=limit)
    assert done.returncode == 0, done.stderr[-3000:]
    records = {r["label"]: r for r in map(json.loads, done.stdout.splitlines())}
    print("; ".join(f"{label}: {r['wall']} s" for label, r in records.items()))  # shown with -s
    return records


def test_a_hanging_case_times_out_alone(tmp_path):
    t0 = time.perf_counter()
    r = scenario("pool_hang", tmp_path)["hang"]  # processes=2, timeout=5, case 3 of 8 sleeps 60 s
    assert time.perf_counter() - t0 < 60
    assert r["error"] == "SweepError" and list(r["failures"]) == ["3"]
    assert r["failures"]["3"].startswith("TimeoutError: case 3 ran longer than timeout=5 s")
    assert r["completed"] == [0, 1, 2, 4, 5, 6, 7] and r["rows"] == [0, 1, 2, 4, 5, 6, 7]
    assert 5 < r["wall"] < 30, r["wall"]


def test_a_dying_worker_fails_only_its_case(tmp_path):
    """Case 3 calls os._exit every time, case 5 the first time only."""
    res = scenario("pool_die", tmp_path)
    once = res["die retries=0"]
    assert sorted(once["failures"]) == ["3", "5"] and once["completed"] == [0, 1, 2, 4, 6, 7]
    assert "exited with code 7 while it ran case 3 (workers lost by this case: 1; retries=0)" in once["failures"]["3"]
    again = res["die retries=1"]  # chunks of 4: the cases after the dead one run elsewhere
    assert list(again["failures"]) == ["3"] and again["completed"] == [0, 1, 2, 4, 5, 6, 7]
    assert "(workers lost by this case: 2; retries=1)" in again["failures"]["3"]
    pids = (tmp_path / "retries1" / "died_3").read_text().split()
    assert len(pids) == 2 and pids[0] != pids[1]  # run twice, in two workers
    assert len((tmp_path / "retries1" / "died_5").read_text().split()) == 2  # died once, then ran


def _descendants(pid):
    """The pids of every process below ``pid`` (from /proc)."""
    children = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_parent_signal_stops_the_workers(tmp_path, sig):
    """Cases 0-3 end at once, 4-7 hang; the parent alone gets the signal once 0-3 are done."""
    proc = subprocess.Popen([sys.executable, str(SCENARIOS), "pool_signal", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 40
        while len(list(tmp_path.glob("done_*"))) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        time.sleep(1.0)  # the parent has read the four rows
        workers = _descendants(proc.pid)
        assert len(workers) >= 2, workers  # two workers (and multiprocessing's resource tracker)
        t0 = time.monotonic()
        proc.send_signal(sig)
        while [p for p in workers if _alive(p)] and time.monotonic() - t0 < 5.0:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)], "workers still alive 5 s after the parent's signal"
        gone = time.monotonic() - t0
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    print(f"signal {sig!r}: every worker gone {gone:.2f} s after it")
    if sig != signal.SIGINT:  # the parent died at once: only its workers' end is checked
        return
    r = [json.loads(line) for line in out.splitlines()][-1]
    assert r["error"] == "SweepError" and r["interrupted"] and r["cause"] == "KeyboardInterrupt", err[-2000:]
    assert r["completed"] == [0, 1, 2, 3] and r["not_run"] == [4, 5, 6, 7] and r["failures"] == {}
    assert r["message"].startswith("sweep interrupted (KeyboardInterrupt): 4 of 8 cases done, 4 not run")
    with np.load(tmp_path / "out.npz") as f:
        assert f["case_index"].tolist() == [0, 1, 2, 3] and f["result"][:, 0].tolist() == [0, 1, 2, 3]


def test_dask_timeout_and_lost_worker(tmp_path):
    pytest.importorskip("dask.distributed")
    # two LocalClusters, a worker restarted through its nanny and two lost: about 30 s on an idle
    # 2-core machine, past 60 s on a loaded one (the bound guards against a hang, it is no timing)
    res = scenario("dask_hang_and_die", tmp_path, limit=240)
    hang = res["dask hang"]  # timeout=2: the stuck worker is restarted through its nanny
    assert list(hang["failures"]) == ["3"] and hang["completed"] == [0, 1, 2, 4, 5, 6, 7]
    assert hang["failures"]["3"].startswith("TimeoutError: case 3 ran longer than timeout=2 s on the Dask worker")
    assert "restarted" in hang["failures"]["3"]
    die = res["dask die"]  # chunks of 4, retries=0: Dask's rerun of a chunk tells which case lost its worker
    assert sorted(die["failures"]) == ["3", "5"] and die["completed"] == [0, 1, 2, 4, 6, 7]
    assert all(t.startswith("WorkerLost: the Dask worker") for t in die["failures"].values()), die["failures"]
    # Dask gives up on a task at its first lost worker (KilledWorker) before the client hears of a rerun,
    # and on the tasks queued on that worker: the same two cases fail, the queued ones run again
    killed = res["dask killed"]
    assert sorted(killed["failures"]) == ["3", "5"] and killed["completed"] == [0, 1, 2, 4, 6, 7], killed
    for t in killed["failures"].values():
        assert t.startswith("WorkerLost: the Dask worker") and "Dask gave up on its task" in t, t


def ragged_first(k):
    """Case 0 (or ``k == 7``) has the odd shape."""
    return np.zeros(4 if k in (0, 7) else 3)


def interrupt_at_3(k):
    if k == 3:
        raise KeyboardInterrupt
    return np.array([k, -k])


def test_a_wrong_first_shape_fails_alone(tmp_path):
    with pytest.raises(SweepError) as e:
        mb.sweep(ragged_first, range(10), progress=False, output=tmp_path / "r.npz")
    assert sorted(e.value.failures) == [0, 7] and e.value.completed.tolist() == list(range(1, 7)) + [8, 9]
    assert e.value.results.shape == (8, 3)
    assert ("case 0 returned an array of shape (4,), but 8 of 10 successful cases returned an array of shape (3,) "
            "(the most common; case 1 first)") in e.value.failures[0]
    with np.load(tmp_path / "r.npz") as f:
        assert f["result"].shape == (8, 3)
    with pytest.raises(SweepError) as e:  # a tie goes to the shape of the lowest case index
        mb.sweep(ragged_first, [0, 1], progress=False)
    assert list(e.value.failures) == [1] and e.value.results.shape == (1, 4)


def test_serial_ctrl_c_keeps_the_cases_done(tmp_path):
    with pytest.raises(SweepError) as e:
        mb.sweep(interrupt_at_3, range(6), progress=False, output=tmp_path / "i.npz")
    err = e.value
    assert err.interrupted and isinstance(err.__cause__, KeyboardInterrupt)
    assert err.completed.tolist() == [0, 1, 2] and err.not_run == [3, 4, 5] and err.failures == {}
    with np.load(tmp_path / "i.npz") as f:
        assert f["case_index"].tolist() == [0, 1, 2] and f["result"][:, 0].tolist() == [0, 1, 2]


def test_timeout_and_retries_need_workers():
    with pytest.raises(ValueError, match=r"timeout= \(a serial sweep cannot stop a case.*processes=1"):
        mb.sweep(np.square, [1.0], timeout=5)
    with pytest.raises(ValueError, match="retries= .* needs processes= or client="):
        mb.sweep(np.square, [1.0], retries=1)
    for bad in (0, -1.0, float("inf"), float("nan"), True, "5"):
        with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
            mb.sweep(np.square, [1.0], processes=1, timeout=bad)
    for bad in (-1, 0.5, True):
        with pytest.raises(ValueError, match="retries must be a non-negative integer"):
            mb.sweep(np.square, [1.0], processes=1, retries=bad)
