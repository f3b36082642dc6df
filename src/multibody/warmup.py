"""Compile kernels ahead of their first use: ``multibody warmup`` and the CLI's prefetch.

Numba compiles a kernel on its first call (seconds) and caches it on disk (see
``_kernel_cache``); later processes load it in milliseconds. This module compiles named
targets into that cache:

* ``warm_up(names, jobs)`` (``multibody warmup [--jobs N] [--all]``): every facade kernel
  (and the PIN-only variants of those that have one), the stepping loop's common variants
  for models of any kind, of PIN links only and with constraints (``--all``: the batched
  and rollout kernels too, and those of modal bodies), split over ``jobs`` processes (the cache is shared, so a
  kernel one of them has written the others load).
* ``prefetch(names)``: one background process compiling ``run_side(m)``, the kernels a
  simulation of ``m`` needs besides the stepping loop's critical chain (placements, ABA,
  the loop itself), while the calling process compiles that chain. ``multibody demo`` and
  ``multibody simulate`` use it on an empty cache when another CPU is idle, so the two
  cores of a small machine compile at once; a kernel the helper has not finished in time
  is compiled by the caller as usual (the result is the same either way).
  ``finish(helper)`` ends it.

``python -m multibody.warmup NAME ...`` compiles the named targets in this process.
"""
import contextlib
import io
import os
import subprocess
import sys
import time

import numpy as np
from numba import types as nt

from .algorithms.entry import kernel_names

__all__ = ["TARGETS", "RUN_SIDE", "RUN_SIDE_PINS", "run_side", "warm_up", "prefetch", "finish", "cache_holds",
           "idle_cpus", "spare_cpu"]

_I2 = nt.Array(nt.int64, 2, "C")
_F2 = nt.Array(nt.float64, 2, "C")
_F1 = nt.Array(nt.float64, 1, "C")


def _leaf(module, name, sig):
    """A target compiling ``module.name`` for ``sig``, the types the stepping loop calls it with."""
    def compile_leaf():
        import importlib
        getattr(importlib.import_module(module), name).compile(sig)
    return compile_leaf


def _kernel(name, pins=False):
    """A target compiling the facade kernel ``name`` (``algorithms.entry``; ``pins``: its
    PIN-only variant)."""
    def compile_kernel():
        from .algorithms.entry import KERNELS, PIN_KERNELS
        getattr(PIN_KERNELS if pins else KERNELS, name)
    return compile_kernel


def _model(kind="general"):
    """A small model (the kernels' types do not depend on it, only the variant does):
    "general": a tree with pin links and a spherical one; "pins": two pin links (the
    PIN-only variants); "constrained": the general tree with a coordinate constraint
    between its pins (the loop's tree-augmented variant)."""
    from .model import Multibody
    m = Multibody()
    m.add_serial_chain("l", 2)
    if kind == "pins":
        return m
    b = m.add_body("b", mass=1.0, com=(0.0, 0.0, -0.1), inertia=np.eye(3) * 1e-2)
    m.add_hinge("l1", b, kind="spherical")
    if kind == "constrained":
        m.add_coordinate_constraint("gear", "l0_hinge", "l1_hinge", ratio=1.0)
    return m


def _loop(model="general", **kw):
    """A target running ``simulate`` of ``_model(model)`` for two steps with ``kw``: it
    compiles that loop variant."""
    def compile_loop():
        from .simulation import simulate
        m = _model(model)
        kw2 = dict(kw)
        if callable(kw2.get("forces")):
            kw2["forces"] = kw2["forces"]()
        simulate(m, m.neutral_q(), np.zeros(m.nu), 2e-3, dt=1e-3, limits=False, **kw2)
    return compile_loop


def _external_force():
    from .simulation import ExternalForce
    return [ExternalForce("b", (0.0, 0.0, 0.0, 0.0, 0.0, 1.0), axes="world")]


def _batched():
    """The parallel batch kernels (stacked states) and rollouts, on two samples."""
    from .simulation import rollout
    m = _model()
    Q = np.array([m.neutral_q()] * 2)
    U = np.zeros((2, m.nu))
    m.forward_dynamics(Q, U, U), m.inverse_dynamics(Q, U, U), m.mass_matrix(Q), m.inverse_mass_matrix(Q)
    m.kinetic_energy(Q, U), m.potential_energy(Q)
    rollout(m, Q, U, 2e-3, limits=False, progress=False)


def _flex(constrained=False):
    """A target compiling what models with modal (flexible) bodies use: a pinned two-mode
    beam's forward and inverse dynamics, mass matrix and its inverse, its tip node's pose,
    Jacobian, velocity and compliance, its energies and ``simulate`` (RK4, dopri5);
    ``constrained``: the beam's tip held on a world node by a spherical loop, its
    constrained dynamics, their derivatives and ``simulate`` (the flex constraint kernel
    through the stages)."""
    def compile_flex():
        from .simulation import simulate
        m = _beam()
        q, u = m.neutral_q(), np.zeros(m.nu)
        if constrained:
            m.add_node("anchor", None, m.frame_pose(q, "b0_tip"))
            m.add_loop_constraint("hold", "b0_tip", "anchor", "spherical")
            m.constrained_dynamics(q, u, u), m.forward_dynamics_derivatives(q, u, u)
            simulate(m, q, u, 2e-3, dt=1e-3, limits=False, integrator="dopri5")
            return
        m.forward_dynamics(q, u, u), m.inverse_dynamics(q, u, u), m.mass_matrix(q), m.inverse_mass_matrix(q)
        m.body_pose(q, "b0_tip"), m.body_jacobian(q, "b0_tip"), m.body_velocity(q, u, "b0_tip")
        m.kinetic_energy(q, u), m.potential_energy(q), m.operational_space_compliance(q, "b0_tip")
        for integrator in ("rk4", "dopri5"):
            simulate(m, q, u, 2e-3, dt=1e-3, limits=False, integrator=integrator)
    return compile_flex


def _beam():
    """A pinned beam of two modes (the kernels' types do not depend on its sizes)."""
    from .flex import beam_modes
    from .model import Multibody
    m = Multibody()
    m.add_serial_chain("b", 1, modal_data=beam_modes(1.0, EI=10.0, rhoA=1.0, n_elements=4, n_modes=2))
    return m


def _flex_derivatives():
    """The derivatives of a flexible model's dynamics and its implicit loops (the pinned
    beam's: generalized_alpha and radau take their Newton matrices from them)."""
    from .simulation import simulate
    m = _beam()
    q, u = m.neutral_q(), np.zeros(m.nu)
    m.inverse_dynamics_derivatives(q, u, u), m.forward_dynamics_derivatives(q, u, u)
    for integrator in ("generalized_alpha", "radau"):
        simulate(m, q, u, 2e-3, dt=1e-3, limits=False, integrator=integrator)


#: the stepping loop's callees (as the loop calls them) and the energies of a result:
#: what ``prefetch`` compiles beside a first simulation (``run_side``)
RUN_SIDE = ("general_inertia_step", "qdot_from_u", "sanitize_charts", "first_bad",
            "normalize_quaternions", "to_start_charts", "trajectory_energies")
#: the same for a model of PIN links only (its loop calls none of the coordinate maps)
RUN_SIDE_PINS = ("first_bad", "trajectory_energies:pins")


def run_side(m):
    """``RUN_SIDE`` or, for a model of PIN links only, ``RUN_SIDE_PINS``."""
    return RUN_SIDE_PINS if m.compiled.all_pins else RUN_SIDE


#: name -> function compiling it (or loading it from the cache), in a sensible order
TARGETS = {
    "general_inertia_step": _leaf("multibody.kernels.articulated_inertia", "general_inertia_step",
                                  (_I2, _F2, _F2, _F1, nt.int64)),
    "first_bad": _leaf("multibody.simulation.stages", "first_bad", (_F1, _F1)),
    "normalize_quaternions": _leaf("multibody.simulation.stages", "normalize_quaternions", (_I2, _F1)),
    "to_start_charts": _leaf("multibody.simulation.lie", "to_start_charts", (_I2, _F2, _F2, _F1, _F1)),
}
for _name in kernel_names():  # every facade kernel, for the signature the facade calls it with
    TARGETS[_name] = _kernel(_name)
for _name in kernel_names(pins=True):  # and the PIN-only variants
    TARGETS[_name + ":pins"] = _kernel(_name, pins=True)
TARGETS.update({
    "loop:rk4": _loop(),
    "loop:rk4:pins": _loop("pins"),
    "loop:dopri5": _loop(integrator="dopri5"),
    "loop:dopri5:pins": _loop("pins", integrator="dopri5"),
    "loop:munthe_kaas": _loop(integrator="munthe_kaas"),
    "loop:munthe_kaas:pins": _loop("pins", integrator="munthe_kaas"),
    "loop:control": _loop(control=lambda t, q, u, tau: None),
    "loop:control:pins": _loop("pins", control=lambda t, q, u, tau: None),
    "loop:link_forces": _loop(forces=_external_force),
    "loop:constrained": _loop("constrained"),
    "loop:constrained:dopri5": _loop("constrained", integrator="dopri5"),
    "loop:constrained:control": _loop("constrained", control=lambda t, q, u, tau: None),
})
#: compiled by ``warm_up(everything=True)`` (``multibody warmup --all``) only
EXTRA = {"batch_and_rollout": _batched, "flex": _flex(), "flex:constrained": _flex(constrained=True),
         "loop:generalized_alpha": _loop(integrator="generalized_alpha"), "loop:radau": _loop(integrator="radau"),
         "loop:constrained:generalized_alpha": _loop("constrained", integrator="generalized_alpha"),
         "loop:constrained:radau": _loop("constrained", integrator="radau"),
         "flex:derivatives": _flex_derivatives}


def compile_targets(names, quiet=True):
    """Compile the named targets in this process, in order; returns {name: seconds}. The
    "compiling ... (first run only)" notices are not shown (``quiet``: nor the times)."""
    times = {}
    for name in names:
        t0 = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):
            (TARGETS.get(name) or EXTRA[name])()
        times[name] = time.perf_counter() - t0
        if not quiet:
            print(f"  {name}: {times[name]:.1f} s", flush=True)
    return times


def _command(names, quiet=True):
    return [sys.executable, "-m", "multibody.warmup"] + (["--quiet"] if quiet else []) + list(names)


def warm_up(names=None, jobs=None, everything=False, quiet=False):
    """Compile ``names`` (default: every target; ``everything``: also the batched kernels)
    in ``jobs`` processes (default: the CPU count, at most 4). Returns the wall time [s]."""
    names = list(TARGETS) if names is None else list(names)
    unknown = [n for n in names if n not in TARGETS and n not in EXTRA]
    if unknown:
        raise ValueError(f"unknown warm-up targets {unknown}; known: {sorted(TARGETS) + sorted(EXTRA)}")
    if everything:
        names += [n for n in EXTRA if n not in names]
    jobs = max(1, min(jobs or min(os.cpu_count() or 1, 4), len(names)))
    t0 = time.perf_counter()
    if jobs == 1:
        compile_targets(names, quiet)
    else:  # interleaved, so each process starts with a different heavy target
        procs = [subprocess.Popen(_command(names[k::jobs], quiet)) for k in range(jobs)]
        failed = [p.args for p in procs if p.wait() != 0]
        if failed:
            raise RuntimeError(f"warm-up processes failed: {failed}")
    return time.perf_counter() - t0


def cache_holds(name):
    """True if Numba's on-disk cache holds a current entry of the facade kernel ``name``
    (``NAME:pins``: its PIN-only variant), read from the cache's index: nothing is loaded.
    False when it cannot tell."""
    try:
        from .algorithms.entry import kernel_dispatcher
        base, _, variant = name.partition(":")
        index = kernel_dispatcher(base, pins=variant == "pins")._cache._cache_file._load_index()  # Numba's own check
        return bool(index)
    except Exception:  # noqa: BLE001 (Numba's internals moved: prefetch, which is harmless)
        return False


def idle_cpus(interval=0.05):
    """CPUs idle over the next ``interval`` s (this process sleeps meanwhile, so its own CPU
    counts), from /proc/stat; None where that cannot be read."""
    def snapshot():
        with open("/proc/stat", encoding="ascii") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        return v[3] + v[4], sum(v)  # idle + iowait, all
    try:
        i0, t0 = snapshot()
        time.sleep(interval)
        i1, t1 = snapshot()
    except (OSError, ValueError, IndexError):
        return None
    return (os.cpu_count() or 1) * (i1 - i0) / max(t1 - t0, 1)


def spare_cpu():
    """True if fewer tasks are running than there are CPUs (this process counts; read from
    /proc/loadavg at once, no waiting) and helper processes are allowed (not
    ``MULTIBODY_NO_PREFETCH``); False where that cannot be read."""
    if os.environ.get("MULTIBODY_NO_PREFETCH"):
        return False
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            running = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return False
    return running < (os.cpu_count() or 1)


def prefetch(names=RUN_SIDE):
    """Start a background process compiling ``names`` into the cache when it does not hold
    them yet (judged by the last of them) and another CPU is free (a helper competing with
    the caller for one CPU made the caller slower); returns the process, or None."""
    if cache_holds(names[-1]) or os.environ.get("MULTIBODY_NO_PREFETCH"):
        return None
    idle = idle_cpus()
    if (os.cpu_count() or 1) < 2 or (idle is not None and idle < 1.5):
        return None
    try:
        return subprocess.Popen(_command(names), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def finish(helper):
    """End a ``prefetch`` process (what it has written stays in the cache)."""
    if helper is not None and helper.poll() is None:
        helper.terminate()
        helper.wait()


def main(argv=None):
    """``python -m multibody.warmup [--quiet] NAME ...``: compile the named targets here."""
    argv = list(sys.argv[1:] if argv is None else argv)
    quiet = "--quiet" in argv
    names = [a for a in argv if a != "--quiet"]
    compile_targets(names or list(TARGETS), quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
