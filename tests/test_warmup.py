"""Compiling ahead of first use (``multibody.warmup``, ``multibody warmup``): targets land in
Numba's cache, and the prefetch targets are the signatures the stepping loop calls."""
import os
import subprocess
import sys

import pytest

from multibody import warmup
from multibody.cli import main


def _python(code, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), MULTIBODY_NO_PREFETCH="1")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_warm_up_fills_the_cache(tmp_path):
    probe = "from multibody.warmup import cache_holds; print(cache_holds('sanitize_charts'))"
    assert _python(probe, tmp_path).split()[-1] == "False"
    _python("from multibody.warmup import warm_up; warm_up(['sanitize_charts', 'first_bad'], jobs=2, quiet=True)",
            tmp_path)
    assert _python(probe, tmp_path).split()[-1] == "True"


def test_prefetch_targets_are_what_the_loop_compiles(tmp_path):
    """Each RUN_SIDE leaf compiles the signature a first simulation asks for (else the
    prefetch would compile something nobody loads); a model of PIN links compiles none of
    the general ones, and its RUN_SIDE_PINS leaf is the one its loop calls."""
    code = """
import numpy as np, multibody as mb
from multibody import warmup
from multibody.kernels.articulated_inertia import general_inertia_step
from multibody.simulation.stages import first_bad, normalize_quaternions
from multibody.simulation.lie import to_start_charts
leaves = (general_inertia_step, first_bad, normalize_quaternions, to_start_charts)
pins = warmup._model('pins')
mb.simulate(pins, pins.neutral_q(), np.zeros(pins.nu), 0.01)
print([len(d.signatures) for d in leaves])
m = warmup._model()
mb.simulate(m, m.neutral_q(), np.zeros(m.nu), 0.01)
seen = {d: set(d.signatures) for d in leaves}
from numba.core.caching import NullCache
for d in seen:
    d._cache = NullCache()  # no disk cache: compile() below adds a signature only if it is new
for name in ('general_inertia_step', 'first_bad', 'normalize_quaternions', 'to_start_charts'):
    warmup.TARGETS[name]()
print(all(set(d.signatures) == s for d, s in seen.items()))
"""
    out = _python(code, tmp_path).splitlines()
    assert out[-2] == "[0, 1, 0, 0]" and out[-1] == "True"


def test_run_side_of_a_model():
    pins, general = warmup._model("pins"), warmup._model()
    assert warmup.run_side(pins) == warmup.RUN_SIDE_PINS and warmup.run_side(general) == warmup.RUN_SIDE
    assert "trajectory_energies:pins" in warmup.RUN_SIDE_PINS


def test_warm_up_covers_the_common_loop_variants(monkeypatch):
    """The loop targets compile the variants that plain, PIN-only and constrained models'
    runs take (rk4, dopri5, Munthe-Kaas, a control; constrained: rk4, dopri5, a control):
    each target is run up to the loop's entry point, whose key is recorded."""
    import numpy as np
    from multibody.simulation import kernels as K
    from multibody.simulation import simulate
    from multibody.simulation.failures import SimulationError
    keys = []

    class Stop(Exception):
        pass

    def record(*args, **kw):
        keys.append((args, tuple(sorted(kw.items()))))
        raise Stop
    monkeypatch.setattr(K, "entry_point", record)

    def key_of(run):
        try:
            run()
        except Stop:
            return keys.pop()
        except SimulationError as e:  # simulate wraps what its loop raised (results kept)
            if isinstance(e.__cause__, Stop):
                return keys.pop()
            raise
        raise AssertionError("the run did not reach the loop")
    targets = {key_of(f) for name, f in warmup.TARGETS.items() if name.startswith("loop:")}
    for model in ("general", "pins", "constrained"):
        m = warmup._model(model)
        runs = [dict(), dict(integrator="dopri5"), dict(control=lambda t, q, u, tau: None)]
        if model != "constrained":
            runs.append(dict(integrator="munthe_kaas"))
        for kw in runs:
            key = key_of(lambda: simulate(m, m.neutral_q(), np.zeros(m.nu), 0.01, **kw))
            assert key in targets, (model, kw)


def test_idle_cpus_is_a_count():
    idle = warmup.idle_cpus(0.02)
    assert idle is None or 0.0 <= idle <= (os.cpu_count() or 1) + 1e-9


def test_run_side_and_targets_are_known():
    assert set(warmup.RUN_SIDE) <= set(warmup.TARGETS) and set(warmup.RUN_SIDE_PINS) <= set(warmup.TARGETS)
    with pytest.raises(ValueError, match="unknown warm-up targets"):
        warmup.warm_up(["no_such_kernel"])
    warmup.finish(None)  # nothing to end


def test_cli_warmup_arguments(capsys):
    with pytest.raises(SystemExit, match="--jobs must be at least 1"):
        main(["warmup", "--jobs", "0"])
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "warmup" in capsys.readouterr().out


def test_plot_worker_draws_what_draw_draws(tmp_path):
    """The CLI's plot worker (a process that imported matplotlib meanwhile) writes the same
    file as ``plotting.draw`` in this process; a worker that cannot draw says so."""
    pytest.importorskip("matplotlib")
    import numpy as np
    from multibody.plotting import PlotWorker, draw
    t = np.linspace(0.0, 1.0, 50)
    kw = dict(t=t, q=np.c_[np.sin(t), t], u=np.c_[np.cos(t), np.ones_like(t)], q_legend=["a [rad]", "b [m]"],
              u_legend=["a [rad/s]", "b [m/s]"], energies=(t, -t), title="run")
    draw(**kw, path=tmp_path / "here.png")
    worker = PlotWorker()
    assert worker.draw(**kw, path=tmp_path / "there.png")
    assert (tmp_path / "there.png").read_bytes() == (tmp_path / "here.png").read_bytes()
    worker = PlotWorker()
    assert not worker.draw(**kw, path=tmp_path / "no_such_folder" / "x.png")
    PlotWorker().close()  # started, never asked: ended


def test_flex_targets_run_and_compile_the_flex_kernels():
    """``multibody warmup --all`` covers modal bodies: its flex targets run (a pinned beam,
    and the same held by a loop) and leave the flex dynamics and the flex constraint kernel
    compiled. (Measured in fresh processes: after them the flexible four-bar example's first
    run takes 2.7 s instead of 61 s.)"""
    from multibody.kernels.flex_constrained_derivatives import flex_constrained_dynamics_derivatives
    from multibody.kernels.flex_entry import constrained_forward_dynamics_flex, forward_dynamics_flex
    assert {"flex", "flex:constrained"} <= set(warmup.EXTRA)
    warmup.compile_targets(["flex", "flex:constrained"])
    # the entry kernels the facade calls (compiled here, or loaded from a cache that holds
    # them: a callee such as flex_forward_dynamics is then never loaded, so it is not asked)
    assert forward_dynamics_flex.signatures and constrained_forward_dynamics_flex.signatures
    assert flex_constrained_dynamics_derivatives.signatures


def test_figure_for_scripts_and_without_matplotlib(tmp_path, monkeypatch, capsys):
    """``plotting.figure`` (the examples' figures): plt.subplots' (fig, axes) without pyplot,
    written by savefig; None and a line saying so when matplotlib cannot be imported."""
    pytest.importorskip("matplotlib")
    import builtins
    from multibody.plotting import figure
    fig, ax = figure(2, 1, sharex=True, figsize=(4, 3))
    assert ax.shape == (2,) and ax[0].get_shared_x_axes().joined(ax[0], ax[1])
    assert tuple(fig.get_size_inches()) == (4.0, 3.0)
    fig.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _, single = figure()
    assert single.__class__.__name__ == "Axes"
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kw):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kw)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert figure(1, 2) is None
    assert "matplotlib is not installed: no plot" in capsys.readouterr().out


def test_console_entry_exits_fast_with_the_right_status(tmp_path):
    """``multibody`` / ``python -m multibody`` (``cli.run``) skip the interpreter's teardown
    but keep the exit status and the messages."""
    ok = subprocess.run([sys.executable, "-m", "multibody", "--version"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("multibody ")
    bad = subprocess.run([sys.executable, "-m", "multibody", "info", str(tmp_path / "none.urdf")],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.strip() == f"multibody: no such model file: {tmp_path / 'none.urdf'}"
