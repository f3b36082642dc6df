"""Parallel rollouts: ``mb.rollout`` against ``mujoco.rollout``, measured in one run.

B = 256 initial states, 1 s at dt = 1 ms with RK4, on UR5 and Talos (free-flyer root):
the same model in both (MuJoCo's built from our compiled arrays, contacts and limits off),
the same thread count (Numba's), throughput in simulated steps per second, and the
largest difference between the two trajectories.

Run:  python bench/bench_rollout.py
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bench_simulation import mj_qpos, mj_qvel, mjcf_of, talos, ur5  # noqa: E402


def main(B=256, t_final=1.0, dt=1e-3):
    import mujoco
    import numba
    from mujoco import rollout as mj_rollout

    import multibody as mb
    threads = numba.get_num_threads()
    steps = int(round(t_final / dt))
    print(f"B = {B}, {steps} RK4 steps of {dt} s, {threads} threads", flush=True)
    for name, m in (("UR5", ur5()), ("Talos", talos())):
        rng = np.random.default_rng(0)
        Q0 = np.array([m.random_q(rng, scale=1.0) for _ in range(B)])
        U0 = 0.1 * rng.normal(size=(B, m.nu))
        mb.rollout(m, Q0[:2], U0[:2], 10 * dt, dt=dt, limits=False)  # compile / load the cache
        best = np.inf
        for _ in range(3):
            t = time.perf_counter()
            r = mb.rollout(m, Q0, U0, t_final, dt=dt, limits=False)
            best = min(best, time.perf_counter() - t)
        ours = B * steps / best
        mm = mujoco.MjModel.from_xml_string(mjcf_of(m, dt))
        datas = [mujoco.MjData(mm) for _ in range(threads)]
        spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        state0 = np.empty((B, mujoco.mj_stateSize(mm, spec)))
        for b in range(B):
            d = datas[0]
            mujoco.mj_resetData(mm, d)
            d.qpos[:] = mj_qpos(m, Q0[b])
            d.qvel[:] = mj_qvel(m, Q0[b], U0[b])
            mujoco.mj_getState(mm, d, state0[b], spec)
        best_mj = np.inf
        with mj_rollout.Rollout(nthread=threads) as ro:
            for _ in range(3):
                t = time.perf_counter()
                states, _ = ro.rollout(mm, datas, state0, nstep=steps)
                best_mj = min(best_mj, time.perf_counter() - t)
        theirs = B * steps / best_mj
        nq = mm.nq
        q_mj_end = states[:, -1, 1:1 + nq]  # FULLPHYSICS state: [time, qpos, qvel, ...]
        err = max(np.abs(q_mj_end[b] - mj_qpos(m, r.q[b, -1])).max() for b in range(B))
        print(f"{name:6s} nu={m.nu:3d} mb.rollout {ours:12,.0f} steps/s | mujoco.rollout {theirs:12,.0f} steps/s "
              f"| ratio {ours / theirs:5.2f}x | max |q_mj - q_mb| after {t_final:g} s: {err:.1e} "
              f"| failed samples: {r.failed.size}", flush=True)


def memory(B=1000, steps=1000, dt=1e-3):
    """Peak memory allocated during a B x steps UR5 rollout (tracemalloc, which sees NumPy's
    arrays; the kernels allocate nothing), against the size of its output arrays."""
    import tracemalloc

    import multibody as mb
    m = ur5()
    rng = np.random.default_rng(0)
    Q0 = np.array([m.random_q(rng, scale=1.0) for _ in range(B)])
    U0 = np.zeros((B, m.nu))
    mb.rollout(m, Q0[:2], U0[:2], 10 * dt, dt=dt, limits=False)  # kernels loaded first
    tracemalloc.start()
    r = mb.rollout(m, Q0, U0, steps * dt, dt=dt, limits=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out = r.t.nbytes + r.q.nbytes + r.u.nbytes
    print(f"memory, UR5 B = {B} x {steps} steps: peak allocation during the rollout {peak / 2**20:.1f} MiB "
          f"for {out / 2**20:.1f} MiB of output arrays", flush=True)


if __name__ == "__main__":
    main()
    memory()
