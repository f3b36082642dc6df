"""``mb.rollout`` under generalized_alpha and radau: samples on threads against one after
the other (issue 23).

B = 8 samples of a 6-link pin chain (random starts), 2 s at dt = 1 ms (radau adaptive, rtol
1e-8, its output every dt), each sample its own implicit run. Threaded: the rollout as it
runs (``numba.get_num_threads()`` workers, ``simulation.sample_runs``); serial: the same with
one worker (the samples one after the other, each the same run). Reported per method: both
wall times (the best of --repeats runs, after a warm-up that compiles or loads the loops),
their ratio serial / threaded (the speedup), the process's CPU seconds per wall second
serial -> threaded (near the thread count when the threads ran at once: on a machine shared
with other work the speedup is bounded by the cores left over), and whether the results are equal bit for bit.

Run:  python bench/bench_rollout_implicit.py [--samples 8] [--threads 2] [--t-final 2]
"""
import argparse
import os
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import multibody as mb  # noqa: E402
from _timing import best_of  # noqa: E402


def chain(n=6):
    m = mb.Multibody("chain")
    m.add_serial_chain("l", n, kind="pin")
    return m


def run(m, Q0, U0, t_final, integrator, workers):
    """The rollout on ``workers`` threads (get_num_threads as the rollout reads it)."""
    threads = numba.get_num_threads
    numba.get_num_threads = lambda: workers
    try:
        return mb.rollout(m, Q0, U0, t_final, dt=1e-3, integrator=integrator, progress=False,
                          **(dict(rtol=1e-8, atol=1e-10) if integrator == "radau" else {}))
    finally:
        numba.get_num_threads = threads


def cpu_per_wall(f):
    """The process's CPU seconds per wall second over one call of f (all its threads)."""
    cpu, wall = time.process_time(), time.perf_counter()
    f()
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--threads", type=int, default=numba.get_num_threads())
    ap.add_argument("--t-final", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    m = chain()
    rng = np.random.default_rng(0)
    Q0, U0 = rng.uniform(-1, 1, (args.samples, m.nq)), rng.uniform(-1, 1, (args.samples, m.nu))
    print(f"{args.samples} samples of a 6-link chain, {args.t_final} s at dt = 1 ms, {args.threads} threads "
          f"({os.cpu_count()} CPUs)")
    for integrator in ("generalized_alpha", "radau"):
        run(m, Q0[:2], U0[:2], 0.01, integrator, 1)  # (compile or load the loop)
        serial, one = best_of(lambda: run(m, Q0, U0, args.t_final, integrator, 1), args.repeats)
        threaded, out = best_of(lambda: run(m, Q0, U0, args.t_final, integrator, args.threads), args.repeats)
        busy = [cpu_per_wall(lambda: run(m, Q0, U0, args.t_final, integrator, w)) for w in (1, args.threads)]
        same = np.array_equal(one.q, out.q) and np.array_equal(one.u, out.u)
        print(f"{integrator:18s} serial {serial:7.3f} s  threaded {threaded:7.3f} s  speedup {serial / threaded:5.2f}x"
              f"  CPU/wall {busy[0]:4.2f} -> {busy[1]:4.2f}  bit-identical: {same}")


if __name__ == "__main__":
    main()
