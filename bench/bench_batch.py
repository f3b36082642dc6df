"""Batched forward dynamics throughput, measured in one run.

For B = 1000 random states of UR5 and Talos (free-flyer root): the batched call
``m.forward_dynamics(Q, U, TAU)`` (one compiled call, Numba's threads) against
(a) a Python loop of our single calls, (b) a Python loop of Pinocchio's ``aba``, and
(c) the ideal: the kernel's time per state on one thread (the batch with one worker,
no Python or dispatch per state) divided by the number of threads.

Run:  python bench/bench_batch.py
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bench_core import robots  # noqa: E402


def best(f, repeats=7):
    """Best wall time [s] of f() over repeats."""
    t_best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def main(B=1000):
    import numba
    import pinocchio as pin

    import multibody as mb
    threads = numba.get_num_threads()
    print(f"B = {B} states, {threads} Numba threads", flush=True)
    for name, path, floating in robots():
        if name not in ("UR5", "Talos"):
            continue
        m = mb.load_urdf(path, floating_base="quaternion" if floating else False)
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
        data = model.createData()
        rng = np.random.default_rng(0)
        Q = np.array([m.random_q(rng) for _ in range(B)])
        U, TAU = rng.normal(size=(B, m.nu)), rng.normal(size=(B, m.nu))
        QP = np.array([pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq)) for _ in range(B)])
        out = np.empty((B, m.nu))
        m.forward_dynamics(Q, U, TAU, out=out)
        t_batch = best(lambda: m.forward_dynamics(Q, U, TAU, out=out))
        numba.set_num_threads(1)
        m.forward_dynamics(Q, U, TAU, out=out)
        t_one = best(lambda: m.forward_dynamics(Q, U, TAU, out=out))
        numba.set_num_threads(threads)

        def ours_loop():
            for i in range(B):
                m.forward_dynamics(Q[i], U[i], TAU[i])

        def pin_loop():
            for i in range(B):
                pin.aba(model, data, QP[i], U[i], TAU[i])
        t_loop, t_pin = best(ours_loop, 3), best(pin_loop, 3)
        ideal = t_one / threads
        print(f"{name:6s} nu={m.nu:3d} batched {t_batch / B * 1e6:6.3f} us/state | loop of our calls "
              f"{t_loop / B * 1e6:6.3f} ({t_loop / t_batch:5.2f}x) | loop of pin.aba {t_pin / B * 1e6:6.3f} "
              f"({t_pin / t_batch:5.2f}x) | ideal (1-thread kernel / {threads}) {ideal / B * 1e6:6.3f} "
              f"(batched / ideal = {t_batch / ideal:4.2f})", flush=True)


if __name__ == "__main__":
    main()
