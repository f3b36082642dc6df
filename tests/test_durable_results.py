"""Results files survive what ends a run (issue 19): signals, SIGKILL, a raising control, a
full disk, a deleted or read-only folder and a second writer. Each run is a subprocess
(``durable_run.py``: the double pendulum, dt = 10 ms, a Python control) with bounded time;
the checks read the file back and the subprocess's JSON report (its exception, in-memory
result and the last time its control saw)."""
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.cli import _demo_model_path
from multibody.result_writer import BLOCK_SAMPLES
from multibody.results import RecoveredResultWarning

DRIVER = Path(__file__).with_name("durable_run.py")
SRC = Path(mb.__file__).parents[1]
DT = 0.01


class Run:
    """``durable_run.py`` in a subprocess writing ``out``; ``report()`` its JSON record."""

    def __init__(self, out, *args, t_final=1e5):
        self.out, self.report_path = Path(out), Path(out).parent.parent / f"{Path(out).name}.report.json"
        env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
        self.p = subprocess.Popen([sys.executable, str(DRIVER), str(out), str(self.report_path), "--dt", str(DT),
                                   "--t-final", str(t_final), *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env)
        line = self.p.stdout.readline()  # "running": the control's first call (imports and caches done)
        assert line.strip() == "running", self.p.stderr.read()

    def wait(self, timeout=60):
        try:
            _, self.stderr = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise
        return self.p.returncode

    def report(self):
        return json.loads(self.report_path.read_text())


def load_quietly(path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a finished file loads without recovery warnings
        return mb.load_result(path)


def assert_contiguous(res):
    assert res.t[0] == 0.0
    np.testing.assert_allclose(np.diff(res.t), DT, rtol=1e-9)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    return d


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_ends_the_run_with_a_complete_file(folder, suffix, sig):
    run = Run(folder / f"r{suffix}")
    time.sleep(3.0)
    run.p.send_signal(sig)
    code = run.wait()
    rep = run.report()
    assert code == (143 if sig == signal.SIGTERM else -signal.SIGINT), run.stderr
    assert rep["error"] == ("SimulationTerminated" if sig == signal.SIGTERM else "KeyboardInterrupt")
    said = rep["text"] if sig == signal.SIGTERM else rep["notes"][0]
    assert f"by signal {int(sig)}" in said or "by SIGINT" in said
    assert f"up to t = {rep['t']:.6g} s are in" in said
    res = load_quietly(run.out)
    assert sorted(p.name for p in folder.iterdir()) == [f"r{suffix}"]  # no partial file, no lock left
    assert_contiguous(res)
    assert len(res) == rep["result_len"] and res.t[-1] == rep["result_t"] == rep["t"]
    print(f"{sig!r} {suffix}: {len(res)} samples, file ends at t = {res.t[-1]:.6g} s, the control saw "
          f"t = {rep['control_t']:.6g} s, exit {code}")
    assert rep["control_t"] - 0.05 <= res.t[-1] <= rep["control_t"]  # every sample up to the signal
    assert res.t[-1] > 10.0  # (the run went on for seconds)
    if suffix == ".npz":
        assert res.status == "interrupted" and f"at t = {rep['t']:.6g} s" in res.message


def test_sigkill_leaves_a_recoverable_journal(folder):
    run = Run(folder / "r.npz")
    time.sleep(2.0)
    run.p.kill()
    run.wait()
    with pytest.warns(RecoveredResultWarning, match=r"r\.npz\.partial.*did not finish"):
        res = mb.load_result(folder / "r.npz")
    print(f"SIGKILL after 2 s: {len(res)} samples recovered, t = 0..{res.t[-1]:.6g} s")
    assert res.status == "interrupted" and len(res) > 100
    assert_contiguous(res)
    again = Run(folder / "r.npz")  # the dead run's lock does not block the next one
    again.p.send_signal(signal.SIGTERM)
    assert again.wait() == 143 and load_quietly(folder / "r.npz").status == "interrupted"


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_raising_control_keeps_every_sample_in_file_and_error(folder, suffix):
    run = Run(folder / f"r{suffix}", "--raise-at", "2.0", t_final=10.0)
    assert run.wait() == 1
    rep = run.report()
    assert rep["error"] == "SimulationError" and "RuntimeError raised in the stepping loop" in rep["text"]
    assert "control failure at t = 2" in rep["text"]
    res = load_quietly(run.out)
    print(f"raising control {suffix}: file and .result end at t = {res.t[-1]:.6g} s ({len(res)} samples)")
    assert_contiguous(res)
    assert 1.99 <= res.t[-1] == rep["result_t"] < 2.0 and len(res) == rep["result_len"]
    if suffix == ".npz":
        assert res.status == "failed" and "control failure" in res.message


@pytest.fixture
def tiny_disk(tmp_path):
    d = tmp_path / "tiny"
    d.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(d)],
                                           capture_output=True).returncode:
        pytest.skip("cannot mount a 1 MB tmpfs (needs root); test_result_files covers ENOSPC by monkeypatch")
    yield d
    subprocess.run(["umount", str(d)], check=True)


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_full_disk_fails_at_once_and_keeps_what_fit(tiny_disk, suffix):
    run = Run(tiny_disk / f"r{suffix}")
    assert run.wait(timeout=30) == 1
    rep = run.report()
    assert rep["error"] == "SimulationError" and "No space left on device" in rep["text"]
    assert rep["result_t"] < 1e4  # raised when the disk filled, not at the end of the run
    if suffix == ".npz":  # the archive cannot be assembled on a full disk: the journal is the file
        with pytest.warns(RecoveredResultWarning, match="did not finish") as w:
            res = mb.load_result(run.out)
        assert "load_result" in rep["text"] and "r.npz.partial" in rep["text"] and res.status == "failed"
        assert not any("torn" in str(x.message) for x in w)  # the failed block was cut off whole
    else:
        res = load_quietly(run.out)
    print(f"1 MB tmpfs {suffix}: error at t = {rep['result_t']:.6g} s; in memory {rep['result_len']} samples, "
          f"in the file {len(res)}")
    assert_contiguous(res)
    assert 0 < rep["result_len"] - len(res) <= BLOCK_SAMPLES  # all but the block that did not fit
    assert len(res) > 1000


@pytest.mark.parametrize("suffix, memory", [(".npz", True), (".csv", True), (".csv", False)])
def test_deleted_folder_fails_at_once(folder, suffix, memory):
    run = Run(folder / f"r{suffix}", "--delete-at", "1.0", *(() if memory else ("--no-memory",)))
    assert run.wait() == 1
    rep = run.report()
    assert rep["error"] == "SimulationError" and "was deleted, or its folder removed" in rep["text"]
    print(f"folder deleted at t = 1 s {suffix} (memory {memory}): error {rep['after_event_s']:.3f} s (wall) later, "
          f"at t = {rep['result_t']:.6g} s; {rep['result_len']} samples in memory")
    assert rep["after_event_s"] < 1.5 and rep["result_t"] < 1e4  # within a block's wall time of it
    assert rep["result_len"] >= (101 if memory else 1) and not folder.exists()


def test_read_only_folder_fails_at_once_and_keeps_a_recoverable_file(folder):
    probe = folder / "probe"
    probe.mkdir()
    if subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode:
        pytest.skip("chattr +i is refused here; test_result_files covers EACCES by monkeypatch")
    subprocess.run(["chattr", "-i", str(probe)], check=True)
    probe.rmdir()
    run = Run(folder / "r.npz", "--immutable-at", "1.0")
    try:
        assert run.wait() == 1
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    rep = run.report()
    assert rep["error"] == "SimulationError" and "no longer writable" in rep["text"]
    print(f"folder made immutable at t = 1 s: error {rep['after_event_s']:.3f} s (wall) later, at "
          f"t = {rep['result_t']:.6g} s; {rep['result_len']} samples in memory")
    assert rep["after_event_s"] < 1.5 and rep["result_t"] < 1e4 and rep["result_len"] >= 101
    with pytest.warns(RecoveredResultWarning):
        res = mb.load_result(folder / "r.npz")
    assert_contiguous(res)
    assert 0 < rep["result_len"] - len(res) <= BLOCK_SAMPLES


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_second_writer_gets_a_clear_error(folder, suffix):
    run = Run(folder / f"r{suffix}")
    try:
        m = mb.load_urdf(str(_demo_model_path()))
        with pytest.raises(ValueError, match=rf"output '.*r\{suffix}': another run is writing this results file "
                                             rf"\(lock .* held by process {run.p.pid} "):
            mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, output=folder / f"r{suffix}")
    finally:
        run.p.send_signal(signal.SIGTERM)
        assert run.wait() == 143
    res = load_quietly(folder / f"r{suffix}")
    assert_contiguous(res)  # only the first run's samples
    assert len(res) == run.report()["result_len"]
