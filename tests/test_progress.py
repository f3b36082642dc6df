"""Progress on stderr: the compile notice and the bar's estimate."""
import io
import time

from multibody.progress import ProgressBar, compiling_notice


def test_compiling_notice_only_for_slow_blocks():
    out = io.StringIO()
    with compiling_notice("kernels", after=0.05, stream=out):
        time.sleep(0.2)  # stands for a compile
    text = out.getvalue()
    assert text.startswith("multibody: compiling kernels (first run only; cached afterwards) ... done in ")
    assert text.endswith(" s\n")
    quiet = io.StringIO()
    with compiling_notice("kernels", after=5.0, stream=quiet):
        pass  # a load from the cache
    assert quiet.getvalue() == ""


def test_progress_estimate_starts_after_a_slow_first_block():
    out = io.StringIO()
    bar = ProgressBar(after=0.0, stream=out)
    time.sleep(1.0)  # a compile before the first update does not count
    bar.update(0.5, "half")
    time.sleep(0.05)
    bar.update(0.75, "three quarters")
    bar.close()
    eta = float(out.getvalue().rsplit("eta ", 1)[1].split(" s")[0])
    assert eta < 0.2  # 0.05 s per quarter: 0.05 s left; counting the 1 s before would give 0.35 s
    assert out.getvalue().endswith("\n")


def test_no_burst_of_redraws_after_a_slow_first_block():
    # a cold run: the first block carries a compile, the remaining blocks take 0.1 s; the
    # old bar counted from its creation and redrew at every one of them (78 at once)
    out = io.StringIO()
    bar = ProgressBar(after=1.0, stream=out)
    time.sleep(1.2)  # stands for the compile inside the first block
    for k in range(1, 81):
        bar.update(k / 80, f"{k}/80")
        time.sleep(0.001)
    bar.close()
    assert out.getvalue() == ""


def test_bar_redraws_at_most_every_interval_and_ends_its_line():
    out = io.StringIO()
    bar = ProgressBar(after=0.2, stream=out, interval=0.1)
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < 1.0:
        n += 1
        bar.update(min((time.perf_counter() - t0) / 1.0, 0.999), f"block {n}")
        time.sleep(0.002)
    bar.update(1.0, "all done")
    bar.close()
    text = out.getvalue()
    assert n > 100
    assert 3 <= text.count("\r") <= 12  # ~0.8 s shown, one redraw per 0.1 s (loaded machine: fewer)
    assert text.endswith("\n") and text.count("\n") == 1
    assert "all done" in text.rsplit("\r", 1)[1]  # close() draws the latest state
    lines = text.rstrip("\n").split("\r")[1:]
    assert all(len(a) <= len(b) for a, b in zip(lines, lines[1:]))  # a shorter line blanks the longer one


def _slow_first_block(monkeypatch, first, then=0.0):
    """Make the integrator's first compiled call take ``first`` s more (a cold compile)
    and every later one ``then`` s more."""
    from multibody.simulation.integrators import RungeKuttaIntegrator
    real = RungeKuttaIntegrator.advance
    calls = []

    def advance(self, T, Q, U):
        time.sleep(first if not calls else then)
        calls.append(1)
        return real(self, T, Q, U)
    monkeypatch.setattr(RungeKuttaIntegrator, "advance", advance)
    return calls


def _pendulum():
    from multibody import load_urdf
    from multibody.cli import _demo_model_path
    return load_urdf(str(_demo_model_path()))


def test_simulate_after_a_cold_compile_prints_no_bar(monkeypatch, capsys):
    import numpy as np
    from multibody import simulate
    m = _pendulum()
    simulate(m, np.array([2.0, -1.0]), np.zeros(2), 0.05, progress=True)  # the loop compiled (or loaded)
    capsys.readouterr()
    calls = _slow_first_block(monkeypatch, 1.5)
    res = simulate(m, np.array([2.0, -1.0]), np.zeros(2), 5.0, progress=True)
    assert res.status == "finished" and len(calls) > 50  # the run went in blocks
    assert "[" not in capsys.readouterr().err  # the steps after the "compile" took < 1 s: no bar


def test_simulate_long_run_bar_after_a_cold_compile(monkeypatch, capsys):
    import numpy as np
    from multibody import simulate
    m = _pendulum()
    simulate(m, np.array([2.0, -1.0]), np.zeros(2), 0.05, progress=True)
    capsys.readouterr()
    calls = _slow_first_block(monkeypatch, 1.5, then=0.025)  # 79 blocks of ~25 ms: a 2 s run
    simulate(m, np.array([2.0, -1.0]), np.zeros(2), 5.0, progress=True)
    err = capsys.readouterr().err
    assert len(calls) > 50
    draws = err.split("\r")[1:]
    assert 3 <= len(draws) <= 15, err  # throttled: not one redraw per block
    assert err.endswith("\n") and "100.0%" in draws[-1]
    etas = [float(d.rsplit("eta ", 1)[1].split(" s")[0]) for d in draws]
    assert etas[0] < 3.0  # from the rate after the compile (~1 s left of 2), not 1.5 s per 1 %
