"""Core dynamics timings: our facade vs Pinocchio's Python binding, measured in one run.

Prints, per robot, the time per call of forward dynamics (ABA), inverse dynamics
(RNEA) and the mass matrix (CRBA) and the ratio ours/Pinocchio; then the ratio of
forward-dynamics time on a 1000-body chain to a 100-body chain; then cold start
(import + first call with an empty Numba cache, in a subprocess) and warm start.

Like with like: both calls take the same inputs and return a new array, the whole
symmetric M included (Pinocchio's Python ``crba`` fills the lower triangle from the upper
one before it returns a copy of ``data.M``, as ``rnea``/``aba`` return copies of
``data.tau``/``data.ddq``; checked with Pinocchio 4.1: symmetric, no shared memory).

Run:  python bench/bench_core.py [robots] [chain] [startup]   (no argument: all three)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from _timing import paired_best  # noqa: E402  (sys.path first)


def best_time(f, n=20000, repeats=7):
    """Best-of-repeats mean time per call [us]."""
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def robots():
    from robots import robot_urdf
    return [("UR5", robot_urdf("ur5"), False), ("Panda", robot_urdf("panda"), False),
            ("Solo12", robot_urdf("solo12"), True), ("Talos", robot_urdf("talos"), True)]


def robot_pair(path, floating):
    """(our model, Pinocchio's model and data, rng, q, u, tau) of one robot file, the same
    for every bench that times a robot against Pinocchio."""
    import pinocchio as pin

    import multibody as mb
    m = mb.load_urdf(path, floating_base="quaternion" if floating else False)
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    rng = np.random.default_rng(0)
    q = m.random_q(rng)
    u, tau = rng.normal(size=m.nu), rng.normal(size=m.nu)
    return m, model, model.createData(), rng, q, u, tau


def bench_robots():
    import pinocchio as pin

    rows = []
    for name, path, floating in robots():
        m, model, data, rng, q, u, tau = robot_pair(path, floating)
        qp = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq)) if floating else \
            pin.randomConfiguration(model)
        vp, tp = rng.normal(size=model.nv), rng.normal(size=model.nv)
        m.forward_dynamics(q, u, tau), m.inverse_dynamics(q, u, tau), m.mass_matrix(q)
        a_out, M_out = np.empty(m.nu), np.empty((m.nu, m.nu))
        # Pinocchio writes into its preallocated `data` and returns a view of it; our
        # default call allocates its result, the `out=` call writes into a given array
        pairs = {
            "forward_dynamics": (lambda: m.forward_dynamics(q, u, tau), lambda: pin.aba(model, data, qp, vp, tp)),
            "inverse_dynamics": (lambda: m.inverse_dynamics(q, u, tau), lambda: pin.rnea(model, data, qp, vp, tp)),
            "mass_matrix": (lambda: m.mass_matrix(q), lambda: pin.crba(model, data, qp)),
            "forward_dynamics(out=)": (lambda: m.forward_dynamics(q, u, tau, out=a_out),
                                       lambda: pin.aba(model, data, qp, vp, tp)),
            "inverse_dynamics(out=)": (lambda: m.inverse_dynamics(q, u, tau, out=a_out),
                                       lambda: pin.rnea(model, data, qp, vp, tp)),
            "mass_matrix(out=)": (lambda: m.mass_matrix(q, out=M_out), lambda: pin.crba(model, data, qp)),
        }
        for alg, (ours, theirs) in pairs.items():
            a, b = paired_best(ours, theirs, 2000, rounds=60)  # (interleaved: the noise falls on both)
            rows.append((name, m.nu, alg, a, b, a / b))
            print(f"{name:7s} nu={m.nu:3d} {alg:23s} ours {a:7.2f} us  pinocchio {b:7.2f} us  ratio {a / b:5.2f}",
                  flush=True)
    return rows


def bench_chain():
    import multibody as mb
    times = {}
    for n in (100, 1000):
        m = mb.Multibody()
        m.add_serial_chain("l", n)
        rng = np.random.default_rng(1)
        q, u, tau = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
        m.forward_dynamics(q, u, tau)
        times[n] = best_time(lambda: m.forward_dynamics(q, u, tau), n=20000 // n * 10)
        print(f"chain {n:5d} bodies: forward dynamics {times[n]:9.2f} us", flush=True)
    print(f"chain ratio 1000/100: {times[1000] / times[100]:.2f}  (O(N): 10)", flush=True)
    return times[1000] / times[100]


STARTUP = r"""
import time, sys
t0 = time.perf_counter()
import numpy as np
import multibody as mb
m = mb.load_urdf(sys.argv[1])
q = m.neutral_q(); u = np.zeros(m.nu)
m.forward_dynamics(q, u, u); m.inverse_dynamics(q, u, u); m.mass_matrix(q)
print(time.perf_counter() - t0)
"""


def bench_startup():
    from robots import robot_urdf
    path = robot_urdf("ur5")
    cache = tempfile.mkdtemp(prefix="mb_numba_cache_")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    try:
        cold = float(subprocess.check_output([sys.executable, "-c", STARTUP, path], env=env))
        warm = float(subprocess.check_output([sys.executable, "-c", STARTUP, path], env=env))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"cold start (import + load UR5 + first fd/id/M, empty Numba cache): {cold:.1f} s", flush=True)
    print(f"warm start (same, cache filled): {warm:.2f} s", flush=True)
    return cold, warm


if __name__ == "__main__":
    parts = sys.argv[1:] or ["robots", "chain", "startup"]
    for part in parts:
        {"robots": bench_robots, "chain": bench_chain, "startup": bench_startup}[part]()
