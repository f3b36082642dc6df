"""Where one call's time goes: the facade, Numba's dispatcher and the kernel, per robot.

For forward dynamics, inverse dynamics and the mass matrix of UR5, Panda, Solo12 and
Talos, in one run: the facade call (``m.forward_dynamics(q, u, tau)``), the entry
kernel's dispatcher called directly on the thread's prepared data buffer and a given
result array (no facade), the kernel alone (called N times from a compiled loop: no
dispatch), and Pinocchio's Python call. Then the fixed costs: Numba's dispatcher on an
empty function of 5 array arguments with and without reference counting (``_nrt=False``,
as the entry kernels), of 3 arguments, and ``np.empty`` of a small result.
facade - dispatcher = the Python side of the call (attribute reads, argument tests, the
result's allocation); dispatcher - kernel = typing and unboxing the arguments.

Run:  python bench/bench_call_overhead.py [UR5 Panda Solo12 Talos]
"""
import os
import sys
import time

import numpy as np
from numba import njit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bench_core import best_time, robot_pair, robots  # noqa: E402


@njit
def _loop5(kernel, buf, a, b, c, out, n):
    s = 0
    for _ in range(n):
        s += kernel(buf, a, b, c, out)
    return s


@njit
def _loop3(kernel, buf, a, out, n):
    s = 0
    for _ in range(n):
        s += kernel(buf, a, out)
    return s


@njit
def _empty5(buf, a, b, c, out):
    return 0


@njit(_nrt=False)
def _empty5_no_nrt(buf, a, b, c, out):
    return 0


@njit
def _empty3(buf, a, out):
    return 0


def _in_loop(run, n=20000, repeats=5):
    """Best time per call [us] of a compiled loop of n kernel calls."""
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        run(n)
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def main(which):
    import pinocchio as pin

    for name, path, floating in robots():
        if name not in which:
            continue
        m, model, data, rng, q, u, tau = robot_pair(path, floating)
        qp = pin.neutral(model)
        m.forward_dynamics(q, u, tau), m.inverse_dynamics(q, u, tau), m.mass_matrix(q)
        c = m.compiled
        buf = c.thread_local.buf
        out, M = np.empty(m.nu), np.empty((m.nu, m.nu))
        _empty5(buf, q, u, tau, out), _empty5_no_nrt(buf, q, u, tau, out), _empty3(buf, q, M)
        print(f"== {name} nu={m.nu} (PIN-only kernels: {c.all_pins})", flush=True)
        print(f"  fixed: dispatcher of 5 arrays {best_time(lambda: _empty5(buf, q, u, tau, out)):.3f} us, "
              f"without NRT {best_time(lambda: _empty5_no_nrt(buf, q, u, tau, out)):.3f}, of 3 arrays "
              f"{best_time(lambda: _empty3(buf, q, M)):.3f}; np.empty(nu) {best_time(lambda: np.empty(m.nu)):.3f}; "
              f"an empty lambda {best_time(lambda: None):.3f}", flush=True)
        k = c.kernels
        rows = [
            ("forward_dynamics", lambda: m.forward_dynamics(q, u, tau),
             lambda: k.forward_dynamics(buf, q, u, tau, out),
             lambda n: _loop5(k.forward_dynamics, buf, q, u, tau, out, n), lambda: pin.aba(model, data, qp, u, tau)),
            ("inverse_dynamics", lambda: m.inverse_dynamics(q, u, tau),
             lambda: k.inverse_dynamics(buf, q, u, tau, out),
             lambda n: _loop5(k.inverse_dynamics, buf, q, u, tau, out, n), lambda: pin.rnea(model, data, qp, u, tau)),
            ("mass_matrix", lambda: m.mass_matrix(q), lambda: k.mass_matrix(buf, q, M),
             lambda n: _loop3(k.mass_matrix, buf, q, M, n), lambda: pin.crba(model, data, qp)),
        ]
        for alg, facade, dispatcher, loop, theirs in rows:
            loop(10)
            print(f"  {alg:17s} facade {best_time(facade):6.3f} us | dispatcher {best_time(dispatcher):6.3f} | "
                  f"kernel {_in_loop(loop):6.3f} | pinocchio {best_time(theirs):6.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["UR5", "Panda", "Solo12", "Talos"])
