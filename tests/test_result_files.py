"""Results files read back checked and written durably (issue 19), in this process: names
that need quoting, truncated rows, bad .npz files, the lock, write errors made by
monkeypatch (ENOSPC, EACCES), a journal read while its run goes on or after it died, and
SIGINT without a file. The subprocess tests are in test_durable_results.py."""
import errno
import os
import re
import signal
import zipfile

import numpy as np
import pytest

import multibody as mb
from multibody.cli import _demo_model_path
from multibody.result_journal import read_journal
from multibody.result_writer import ResultWriter
from multibody.results import RecoveredResultWarning, SimulationResult, load_result


def pendulum():
    return mb.load_urdf(str(_demo_model_path()))


def odd_names():
    m = mb.Multibody()
    b = m.add_body("b", mass=1.0, com=(0, 0, -0.2), inertia=np.eye(3) * 0.1)
    m.add_hinge(None, b, "pin", axis=(0, 1, 0), name="elbow, left")
    c = m.add_body("c", mass=1.0, com=(0, 0, -0.3), inertia=np.eye(3) * 0.1)
    m.add_hinge(b, c, "pin", axis=(0, 1, 0), name='wrist\n"2"')
    return m


def test_csv_quotes_names_and_reads_back_what_it_wrote(tmp_path):
    res = mb.simulate(odd_names(), [0.3, 0.1], [0.0, 0.0], 0.05, output=tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text().startswith('t [s],"q:elbow, left [rad]","q:wrist\n""2"" [rad]",')
    back = load_result(tmp_path / "r.csv")
    assert back.labels == res.labels == (["elbow, left", 'wrist\n"2"'], ["rad"] * 2, ["elbow, left", 'wrist\n"2"'],
                                         ["rad/s"] * 2)
    np.testing.assert_array_equal(back.q, res.q)
    odd = (["a [b]", "c"], ["", "rad"], ["d", "e [f]"], ["m/s", ""])  # names that end like a unit
    assert load_result(SimulationResult(res.t, res.q, res.u, labels=odd).save(tmp_path / "o.csv")).labels == odd


def test_truncated_last_csv_row_is_skipped_with_a_warning(tmp_path):
    res = mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 0.1, output=tmp_path / "r.csv")
    text = (tmp_path / "r.csv").read_text()
    (tmp_path / "r.csv").write_text(text[:-7])  # a writer stopped mid-row (a full disk, SIGKILL)
    with pytest.warns(RecoveredResultWarning, match=r"r\.csv'.*last row is cut short"):
        back = load_result(tmp_path / "r.csv")
    assert len(back) == len(res) - 1
    np.testing.assert_array_equal(back.u, res.u[:-1])


def _bad_npz_files(d, good):
    ok = dict(np.load(good))
    yield "empty", b""
    yield "truncated", good.read_bytes()[:300]
    yield "not a zip", b"t,q,u\n1,2,3\n"
    for name, change in [("rows", dict(q=ok["q"][:-1])), ("string t", dict(t=np.array(["0", "1"]))),
                         ("names", dict(q_names=np.array(["a"]))), ("no u", dict(u=None)),
                         ("1-D q", dict(q=ok["q"][:, 0])), ("status", dict(status=np.array([1.0])))]:
        arrays = {k: v for k, v in {**ok, **change}.items() if v is not None}
        np.savez(d / "tmp.npz", **arrays)
        yield name, (d / "tmp.npz").read_bytes()


def test_bad_npz_files_raise_errors_naming_them(tmp_path):
    good = mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 0.01).save(tmp_path / "good.npz")
    for i, (what, data) in enumerate(list(_bad_npz_files(tmp_path, good))):
        path = tmp_path / f"bad{i}.npz"
        path.write_bytes(data)
        with pytest.raises(ValueError, match=re.escape(f"path {str(path)!r}")) as ei:
            load_result(path)
        print(what, "->", ei.value)
    assert isinstance(zipfile.ZipFile(good), zipfile.ZipFile) and len(load_result(good)) == 11


def test_a_second_writer_is_refused_naming_the_file_and_holder(tmp_path):
    first = ResultWriter(tmp_path / "r.npz", 2, 2)
    with pytest.raises(ValueError, match=rf"output '.*r\.npz': another run is writing this results file "
                                         rf"\(lock '.*r\.npz\.lock' held by process {os.getpid()} "):
        mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 0.01, output=tmp_path / "r.npz")
    with pytest.raises(ValueError, match="another run is writing"):
        SimulationResult(np.zeros(1), np.zeros((1, 2)), np.zeros((1, 2))).save(tmp_path / "r.npz")
    first.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.npz"]
    assert len(mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 0.01, output=tmp_path / "r.npz")) == 11


def test_journal_read_while_running_and_after_a_torn_block(tmp_path):
    seen = []

    def control(t, q, u, tau):
        if t >= 1.0 and not seen:
            with pytest.warns(RecoveredResultWarning, match="a run holds its lock: it is still going"):
                seen.append(load_result(tmp_path / "r.npz"))

    res = mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 2.0, dt=1e-3, control=control, output=tmp_path / "r.npz")
    assert 1 <= len(seen[0]) < len(res) and seen[0].status == "interrupted"
    np.testing.assert_array_equal(seen[0].q, res.q[:len(seen[0])])
    w = ResultWriter(tmp_path / "k.npz", 2, 2, res.labels)  # a run killed after two blocks and a torn third
    w.process_block(res.t[:10], res.q[:10], res.u[:10])
    w.process_block(res.t[10:20], res.q[10:20], res.u[10:20])
    with open(tmp_path / "k.npz.partial", "ab") as f:
        f.write(b"B\x00\x10\x00\x00\x00\x00\x00\x00garbage")
    w.file.close()
    w.lock.release()
    with pytest.warns(RecoveredResultWarning, match="bytes of a torn last block ignored"):
        back = load_result(tmp_path / "k.npz")
    assert back.labels == res.labels and back.status == "interrupted"
    np.testing.assert_array_equal(back.u, res.u[:20])


def _fail_writes(monkeypatch, budget):
    """Writes to a run's partial file fail with ENOSPC once ``budget`` bytes went in (the
    failing write puts half of its bytes in first, as a full disk does)."""
    real, left = os.write, [budget]

    def write(fd, data):
        if not os.readlink(f"/proc/self/fd/{fd}").endswith(".partial"):
            return real(fd, data)
        if len(data) > left[0]:
            real(fd, bytes(data[:len(data) // 2]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        left[0] -= len(data)
        return real(fd, data)
    monkeypatch.setattr(os, "write", write)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_enospc_by_monkeypatch_fails_at_once_and_keeps_what_fit(tmp_path, monkeypatch, suffix):
    _fail_writes(monkeypatch, 200_000)
    with pytest.raises(mb.SimulationError, match=r"writing the results file .* failed at t = .*No space left") as ei:
        mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 1000.0, dt=1e-3, output=tmp_path / f"r{suffix}",
                    control=lambda t, q, u, tau: None)
    monkeypatch.undo()
    res = ei.value.result
    assert res.t[-1] < 100.0 and res.status == "failed"  # raised when the write failed, not at the end
    back = load_result(tmp_path / f"r{suffix}")  # (here the disk is not really full: the file is made)
    assert 0 < len(res) - len(back) <= 8192 and not (tmp_path / f"r{suffix}.partial").exists()
    np.testing.assert_array_equal(back.q, res.q[:len(back)])


def test_eacces_by_monkeypatch_fails_at_once_and_keeps_a_recoverable_journal(tmp_path, monkeypatch):
    real = os.access

    def control(t, q, u, tau):
        if t >= 1.0:  # the folder turns read-only (as chmod a-w does for a user who is not root)
            monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real(p, mode))

    with pytest.raises(mb.SimulationError, match=r"failed at t = 1\.\d+ s: .*no longer writable.*r\.npz\.partial.*"
                                                 r"load_result\(.*\) recovers them") as ei:
        mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 1000.0, dt=1e-3, control=control, output=tmp_path / "r.npz")
    monkeypatch.undo()
    res = ei.value.result
    assert 1.0 <= res.t[-1] < 100.0
    with pytest.warns(RecoveredResultWarning):
        back = load_result(tmp_path / "r.npz")
    np.testing.assert_array_equal(back.q, res.q[:len(back)])
    meta, data, end, torn = read_journal(tmp_path / "r.npz.partial")
    assert end is None and torn == 0 and meta["q_names"] == ["shoulder", "elbow"]


def test_sigint_without_output_carries_the_result_and_handlers_come_back():
    def control(t, q, u, tau):
        if t >= 1.0:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt) as ei:
        mb.simulate(pendulum(), [1.0, -0.5], [0.0, 0.0], 1000.0, dt=1e-3, control=control)
    res = ei.value.result
    assert 0.99 <= res.t[-1] <= 1.0 and res.status == "interrupted" and ei.value.t == res.t[-1]
    assert "interrupted by SIGINT (Ctrl-C) at t = 0.999 s" in res.message
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_run_signals_wait_for_a_whole_block_and_are_held_while_the_file_is_finished():
    from multibody.simulation.run_signals import RunSignals
    s = RunSignals()
    with s:
        assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL  # (the run's handler)
        with pytest.raises(mb.SimulationTerminated) as ei:
            with s.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                handed = "the whole block"  # (reached: the signal waits for the section's end)
        assert handed == "the whole block" and ei.value.code == 143
        s.hold()
        os.kill(os.getpid(), signal.SIGINT)
        late = s.late(None)
        assert isinstance(late, KeyboardInterrupt) and s.late(None) is None
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
