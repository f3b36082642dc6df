"""The ``multibody`` command line.

    multibody demo [--t-final 5] [--output demo.npz] [--plot demo.png]
    multibody info MODEL [--floating-base]
    multibody convert IN OUT [--floating-base [free|quaternion]]
    multibody simulate MODEL.urdf [--t-final T] [--dt DT] [--integrator rk4|dopri5|radau|generalized_alpha|...]
                       [--floating-base [free|quaternion]] [--q0 "0.1,0.2,..."] [--u0 ...]
                       [--output results.npz|.csv] [--output-every SECONDS] [--plot plot.png] [--no-limits]
                       [--no-joint-dynamics] [--view]
    multibody view MODEL [--floating-base ...] [--port 8080] [--host 127.0.0.1]
    multibody warmup [--jobs N] [--all]
    multibody --version

Output paths are checked before a run; user errors end with one line on stderr
(``multibody: ...``) and exit status 1; a failed run exits with 2 after writing what it
computed.

The first run of a command compiles the kernels it needs (seconds; Numba caches them on
disk, later runs load them). ``demo`` and ``simulate`` then compile in two processes at once
(``multibody.warmup.prefetch``); ``warmup`` compiles every common kernel ahead of time.

MODEL and IN may be .urdf, .xml (MJCF), .sdf, .yaml/.yml or .json model files
(``--floating-base`` applies to URDF input); OUT is .yaml/.yml, .json or .urdf. ``convert``
to .yaml/.json keeps constraints and modal bodies (their modal data written beside OUT as
``.npz`` files); to .urdf it refuses them by name. Output
cut short by its reader (``multibody info MODEL | head``) ends quietly with status 141. Plots need matplotlib (``pip install multibody[plot]``), imported only when asked for.
"""
import argparse
import atexit
import importlib.util
import os
import sys
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["main", "run"]

#: the model files the commands read (``io.model_file.load_model``)
MODEL_FORMATS = ".urdf, .xml (MJCF), .sdf, .yaml, .json"
#: the exit status when the reader of our output went away (128 + SIGPIPE, as a tool killed by it)
BROKEN_PIPE = 141


#: the integrators whose --dt is the output interval (their steps are adaptive)
ADAPTIVE = ("dopri5", "bs32", "radau")

def _demo_model_path():
    return Path(str(resources.files("multibody") / "data" / "double_pendulum.urdf"))


def _one_line(e, path):
    """The error's message on one line, without a leading repeat of ``path``."""
    text = " ".join(str(e.args[0] if isinstance(e, KeyError) and e.args else e).split())
    return text[len(str(path)) + 2:] if text.startswith(f"{path}: ") else text


def _load(path, floating_base=False):
    from .io.model_file import load_model
    p = Path(path)
    if not p.is_file():
        raise SystemExit(f"multibody: no such model file: {path}")
    try:
        if p.suffix.lower() == ".urdf":
            return load_model(str(p), floating_base=floating_base)
        if floating_base:
            raise ValueError("--floating-base applies to URDF files only (a model file stores its root hinge)")
        return load_model(str(p))
    except (ValueError, KeyError, OSError, ImportError) as e:
        raise SystemExit(f"multibody: cannot load {path}: {_one_line(e, path)}") from None


def _convert(m, out):
    """Write model ``m`` to ``out`` (.yaml/.yml, .json or .urdf); return the modal data files
    written beside it."""
    try:
        if Path(out).suffix.lower() == ".urdf":
            m.to_urdf(out)
            return []
        return m.save(out)
    except (ValueError, OSError, ImportError) as e:
        raise SystemExit(f"multibody: cannot write {out}: {_one_line(e, out)}") from None


def _plot(res, m, path, title):
    try:
        res.plot(m, path, title)
    except ImportError:
        raise SystemExit("multibody: plotting needs matplotlib; install it with "
                         "`pip install matplotlib` (or `pip install multibody[plot]`), or drop --plot") from None


#: file types the plot can be written as (matplotlib's common savefig formats)
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")


def _check_outputs(args):
    """Fail at once, before the model is loaded and the run starts, on an output or plot
    path that cannot be written (missing folder, unknown file type) or a plot without
    matplotlib."""
    from .results import check_output_path
    try:
        if args.output:
            check_output_path(args.output, "--output")
        if args.plot:
            check_output_path(args.plot, "--plot", PLOT_SUFFIXES)
    except ValueError as e:
        raise SystemExit(f"multibody: {e}") from None
    if args.plot and args.command != "demo" and importlib.util.find_spec("matplotlib") is None:
        raise SystemExit("multibody: --plot needs matplotlib; install it with `pip install matplotlib` "
                         "(or `pip install multibody[plot]`), or drop --plot")


def _parse_vector(text, n, what):
    if text is None:
        return None
    try:
        v = np.array([float(x) for x in text.replace(",", " ").split()])
    except ValueError:
        raise SystemExit(f"multibody: --{what} must be numbers separated by commas, got {text!r}") from None
    if v.shape != (n,):
        raise SystemExit(f"multibody: --{what} needs {n} values, got {v.shape[0]}")
    return v


def _limits_reached(m, res):
    """Names of the hinges whose coordinates passed a position limit in some sample of ``res``."""
    from .algorithms.coordinates import q_limits
    lower, upper = q_limits(m)
    out = (res.q < lower) | (res.q > upper)
    return [h.name for h in m.hinges if h.has_limits and out[:, m.q_slice(h.name)].any()]


def _print_energy_balance(m, res, args, E):
    """What the limits and the joints' damping and friction did to the energy, and what is
    left of the drift: the integration error."""
    from .simulation.energy_balance import force_work
    from .simulation.forces import limit_model
    from .simulation.joint_dynamics import joint_dynamics_model
    dt = None if res.integrator in ADAPTIVE else args.dt
    passed = _limits_reached(m, res) if args.limits else []
    w_lim = force_work(m, res, [limit_model(m, True, dt)]) if passed else np.zeros(len(E))
    joints = joint_dynamics_model(m, args.joint_dynamics, dt)
    w_joint = force_work(m, res, [joints]) if joints is not None else np.zeros(len(E))
    if not passed and joints is None:
        return
    parts = [f"the joints' damping and friction did {w_joint[-1]:.6g} J of work"] if joints is not None else []
    if passed:
        parts.append(f"the limits of {', '.join(passed)} did {w_lim[-1]:.6g} J")
    print(f"  {'; '.join(parts)} (--no-joint-dynamics, --no-limits leave them out)")
    print(f"  energy balance: E - E0 minus that work drifts by at most "
          f"{np.max(np.abs(E - E[0] - w_lim - w_joint)):.3g} J: the integration error, with the work summed over the "
          f"samples (a limit's force jumps on contact, which makes both first order in the step)")


def _plot_title(title, res, args, q0):
    """What was simulated, for the plot: the model, its start, the integrator and step."""
    q0 = np.asarray(q0, dtype=float).ravel()
    q0 = "[" + ", ".join(f"{x:.3g}" for x in q0[:6]) + (", ...]" if len(q0) > 6 else "]")
    step = f"dt = {args.dt:g} s" if res.integrator not in ADAPTIVE else f"rtol = {args.rtol:g}"
    return f"{title}: released from rest at q0 = {q0}, {res.integrator}, {step}" if not np.any(res.u[0]) \
        else f"{title}: from q0 = {q0}, {res.integrator}, {step}"


def _run(m, args, q0, u0, title, worker=None):
    from .simulation import SimulationError, SimulationTerminated, simulate
    try:
        res = simulate(m, q0, u0, args.t_final, dt=args.dt, integrator=args.integrator, rtol=args.rtol,
                       atol=args.atol, output=args.output, progress=True, output_every=args.output_every,
                       limits=args.limits, joint_dynamics=args.joint_dynamics)
        code = 0
    except ValueError as e:
        raise SystemExit(f"multibody: {e}") from None
    except SimulationError as e:
        print(f"multibody: {e}", file=sys.stderr)
        res, code = e.result, 2
    except (KeyboardInterrupt, SimulationTerminated) as e:  # (its result says when, where the samples are)
        res = getattr(e, "result", None)
        print(f"multibody: {'interrupted' if res is None else res.message}", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else e.code
    ke, pe = res.energy(m)
    E = ke + pe
    print(f"{title}: {res.status}, t = {res.t[0]:g}..{res.t[-1]:g} s, {res.n_steps} steps "
          f"({res.integrator}), {res.wall_time:.3g} s wall")
    print(f"  energy: start {E[0]:.6g} J, end {E[-1]:.6g} J, max drift {np.max(np.abs(E - E[0])):.3g} J")
    _print_energy_balance(m, res, args, E)
    print(f"  final q = {np.array2string(res.q[-1], precision=4)}")
    if args.output:
        print(f"  results written to {args.output}")
    if args.plot:
        if args.command == "demo" and importlib.util.find_spec("matplotlib") is None:
            # the demo's plot is a bonus: without matplotlib the run still succeeds
            print("  no plot: matplotlib is not installed (pip install matplotlib, or multibody[plot])")
            return code
        what = _plot_title(title, res, args, q0)
        drawn = worker is not None and worker.draw(
            t=res.t, q=res.q, u=res.u, q_legend=res.q_legend(), u_legend=res.u_legend(), energies=(ke, pe),
            title=what, path=args.plot)
        if not drawn:  # no worker, or it failed: draw here (its errors are reported here)
            _plot(res, m, args.plot, what)
        print(f"  plot written to {args.plot}")
    if getattr(args, "view", False):
        _view(m, res, args)
    return code


def _view(m, what, args):
    """Open the browser viewer (``multibody.viz``) on a configuration or a result; blocks until Ctrl-C."""
    try:
        from .viz import view
    except ImportError as e:
        raise SystemExit(f"multibody: {e}") from None
    print("  viewer: press Ctrl-C to stop", flush=True)
    view(m, what, port=args.port, host=args.host, block=True)


def _add_run_options(p, t_final=5.0):
    p.add_argument("--t-final", type=float, default=t_final, help="end time [s]")
    p.add_argument("--dt", type=float, default=1e-3, help="step [s] (output interval for dopri5/bs32/radau)")
    p.add_argument("--integrator", default="rk4",
                   help="rk4 (default), euler, midpoint, heun, rk38, bs32, dopri5, munthe_kaas, generalized_alpha "
                        "(implicit), radau (implicit, adaptive, order 5: stiff models)")
    p.add_argument("--rtol", type=float, default=1e-8)
    p.add_argument("--atol", type=float, default=1e-10)
    p.add_argument("--output", help="results file (.npz or .csv), columns named after the joints with units")
    p.add_argument("--output-every", type=float, default=None, metavar="SECONDS",
                   help="keep a sample every SECONDS (a multiple of --dt; default: every step)")
    p.add_argument("--plot", help="plot file (.png), needs matplotlib")
    p.add_argument("--no-limits", dest="limits", action="store_false",
                   help="leave the hinges' position limits out (simulate enforces them by default)")
    p.add_argument("--no-joint-dynamics", dest="joint_dynamics", action="store_false",
                   help="leave the hinges' damping, springs and friction out (simulate applies them by default)")


def _add_view_options(p):
    p.add_argument("--port", type=int, default=8080, help="viewer port (default 8080)")
    p.add_argument("--host", default="127.0.0.1", help="viewer address (0.0.0.0: other machines too)")


def main(argv=None):
    """Entry point of the ``multibody`` command; returns the exit status."""
    from . import __version__
    ap = argparse.ArgumentParser(prog="multibody", description="Multibody dynamics from the command line.")
    ap.add_argument("--version", action="version", version=f"multibody {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="simulate the built-in double pendulum, write results and a plot")
    _add_run_options(p)
    p.set_defaults(output="demo_results.npz", plot="demo.png")
    p = sub.add_parser("info", help=f"print the tree, masses and coordinates of a model ({MODEL_FORMATS})")
    p.add_argument("model")
    p.add_argument("--floating-base", nargs="?", const="free", choices=("free", "quaternion"),
                   help="URDF input: attach the root by a free hinge (rotation vector, or quaternion)")
    p = sub.add_parser("convert", help=f"convert a model ({MODEL_FORMATS}) to .yaml/.yml, .json or .urdf")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--floating-base", nargs="?", const="free", choices=("free", "quaternion"),
                   help="URDF input: attach the root by a free hinge (rotation vector, or quaternion)")
    p = sub.add_parser("simulate", help=f"simulate a model ({MODEL_FORMATS}) from rest (or --q0/--u0)")
    p.add_argument("model")
    p.add_argument("--floating-base", nargs="?", const="free", choices=("free", "quaternion"),
                   help="URDF input: attach the root by a free hinge (rotation vector, or quaternion)")
    p.add_argument("--q0", help="initial q, comma separated (default: neutral)")
    p.add_argument("--u0", help="initial u, comma separated (default: zeros)")
    _add_run_options(p)
    p.add_argument("--view", action="store_true", help="replay the run in the browser viewer (needs viser)")
    _add_view_options(p)
    p = sub.add_parser("view", help=f"show a model ({MODEL_FORMATS}) in the browser viewer (needs viser)")
    p.add_argument("model")
    p.add_argument("--floating-base", nargs="?", const="free", choices=("free", "quaternion"),
                   help="URDF input: attach the root by a free hinge (rotation vector, or quaternion)")
    _add_view_options(p)
    p = sub.add_parser("warmup", help="compile the kernels into Numba's on-disk cache now, so that first runs "
                                      "start fast (e.g. after installing)")
    p.add_argument("--jobs", type=int, default=None, help="processes compiling at once (default: CPUs, at most 4)")
    p.add_argument("--all", action="store_true",
                   help="also the batched (stacked states) and rollout kernels, the implicit integrators' loops, "
                        "and those of modal (flexible) bodies")
    args = ap.parse_args(argv)
    try:
        status = _main(args)
        sys.stdout.flush()  # what is still buffered fails here, inside the try, on a closed pipe
        return status
    except BrokenPipeError:  # ``multibody info ... | head``: the reader has what it wanted
        return _stdout_gone()
    except (ValueError, KeyError, OSError) as e:  # a user error the steps above did not word
        raise SystemExit(f"multibody: {_one_line(e, '')}") from None


def _stdout_gone():
    """Point stdout at the null device (so that no later flush fails again) and return
    ``BROKEN_PIPE``."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    return BROKEN_PIPE


def _main(args):
    fb = {None: False, "free": True}.get(getattr(args, "floating_base", None), getattr(args, "floating_base", None))
    if args.command == "warmup":
        return _warmup(args)
    if args.command in ("demo", "simulate"):
        _check_outputs(args)
        m = _load(_demo_model_path() if args.command == "demo" else args.model, floating_base=fb)
        from .warmup import cache_holds, finish, prefetch, run_side
        side = run_side(m)  # the kernels a first run of this model needs beside the loop's chain
        warm = cache_holds(side[-1])
        helper = None if warm else prefetch(side)  # on an empty cache: side kernels in a second process
        try:
            return _simulate_command(args, m, warm)
        finally:
            finish(helper)
    if args.command == "convert":
        m = _load(args.input, floating_base=fb)
        modal_files = _convert(m, args.output)
        k = len(m.constraints)
        extra = f", {k} constraint{'' if k == 1 else 's'}" if k else ""
        print(f"{args.input} -> {args.output}: {len(m.body_names)} bodies{extra}, nq = {m.nq}, nu = {m.nu}")
        for f in modal_files:
            print(f"  modal data: {f}")
        return 0
    m = _load(args.model, floating_base=fb)
    if args.command == "info":
        print(m.dump_tree())
        print(f"total mass: {m.total_mass:.6g} kg; nq = {m.nq}, nu = {m.nu}")
        for h in m.hinge_names:
            qs, us = m.q_slice(h), m.u_slice(h)
            if qs.stop > qs.start or us.stop > us.start:
                print(f"  {h:30s} q[{qs.start}:{qs.stop}]  u[{us.start}:{us.stop}]")
        limited = [h for h in m.hinges if h.has_limits]
        if limited:
            print(f"limits ({len(limited)} hinges; enforced by simulate):")
            for h in limited:
                print(f"  {h.name:30s} {h.limits_text()}")
        return 0
    _view(m, None, args)
    return 0


def _simulate_command(args, m, warm):
    """demo and simulate of the loaded model ``m``. With the kernels cached (``warm``) and a
    CPU free, the plot's worker process imports matplotlib meanwhile (``plotting.PlotWorker``)."""
    from .warmup import spare_cpu
    worker = None
    if args.plot and warm and spare_cpu() and importlib.util.find_spec("matplotlib") is not None:
        from .plotting import PlotWorker
        worker = PlotWorker()
    try:
        if args.command == "demo":
            return _run(m, args, np.array([2.0, -1.0]), np.zeros(2), "double pendulum demo", worker)
        q0 = _parse_vector(args.q0, m.nq, "q0")
        u0 = _parse_vector(args.u0, m.nu, "u0")
        return _run(m, args, m.neutral_q() if q0 is None else q0, np.zeros(m.nu) if u0 is None else u0,
                    Path(args.model).name, worker)
    finally:
        if worker is not None:
            worker.close()


def _warmup(args):
    from .warmup import TARGETS, warm_up
    if args.jobs is not None and args.jobs < 1:
        raise SystemExit(f"multibody: --jobs must be at least 1, got {args.jobs}")
    print(f"compiling {len(TARGETS)}{' + batched' if args.all else ''} kernel targets into Numba's cache "
          f"(first runs load them from there) ...", flush=True)
    try:
        wall = warm_up(jobs=args.jobs, everything=args.all)
    except RuntimeError as e:
        raise SystemExit(f"multibody: {e}") from None
    print(f"done in {wall:.1f} s", flush=True)
    return 0


def run():
    """The ``multibody`` console command (and ``python -m multibody``): ``main()``, then an
    exit that skips the interpreter's teardown (freeing Numba's and LLVM's objects took
    0.15 s of a 1 s warm demo). Output is flushed and the exit handlers run first."""
    try:
        code = main()
    except SystemExit as e:  # argparse's --help / --version, one-line errors
        code = e.code
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # not CPython: the ordinary exit
        sys.exit(code)
    run_exit_handlers()
    os._exit(code or 0)


if __name__ == "__main__":
    run()
