"""256 Solo12 drops: ``mb.rollout`` (contact, across cores) against ``mujoco.rollout`` on the
same threads, same run.

The scene of ``examples/solo12_drop.py`` with its PD as compiled position actuators on both
sides (ours: ``solo12_scene(actuators=True)``, ctrl = the pose; MuJoCo: the same gains as its
general actuators, ``mujoco_from_urdf(actuators=)``, the same ctrl at every step): 256 drops
from base heights 0.25-0.40 m with small random tilts, 1 s at dt = 1 ms (landing, then
standing). MuJoCo at its defaults with elliptic cones, one MjData per thread. Threads: Numba's
(``numba.get_num_threads()``) for both. Reported: steps per second of all samples together
and the ratio ours / MuJoCo (above 1: we are faster), and how many samples of each end
standing (base between 0.1 and 0.4 m).

Run:  python bench/bench_contact_rollout.py [--samples 256] [--t-final 1.0]
"""
import argparse
import os
import sys

import numba
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import solo12_drop as solo  # noqa: E402
from _timing import best_of  # noqa: E402


def drops(m, q0, B):
    """(Q0, U0): B drops, heights 0.25-0.40 m, tilts of up to about 0.1 rad, at rest."""
    rng = np.random.default_rng(0)
    Q0 = np.repeat(q0[None], B, axis=0)
    Q0[:, 6] = rng.uniform(0.25, 0.40, B)
    Q0[:, 0:3] = rng.uniform(-0.05, 0.05, (B, 3))
    Q0[:, 0:4] /= np.linalg.norm(Q0[:, 0:4], axis=1)[:, None]
    return Q0, np.zeros((B, m.nu))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=256)
    ap.add_argument("--t-final", type=float, default=1.0)
    args = ap.parse_args()
    import mujoco
    from mujoco import rollout
    import multibody as mb
    B, threads = args.samples, numba.get_num_threads()
    steps = int(round(args.t_final / 1e-3))
    m, q0 = solo.solo12_scene(actuators=True)
    Q0, U0 = drops(m, q0, B)
    mb.rollout(m, Q0[:2], U0[:2], 0.01, dt=1e-3, ctrl=solo.POSE, progress=False)  # (compiled)
    t_ours, out = best_of(lambda: mb.rollout(m, Q0, U0, args.t_final, dt=1e-3, ctrl=solo.POSE, save_every=steps,
                                             progress=False), repeats=2)
    mm, d, layout, qadr, vadr = solo.mujoco_scene(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    states = np.zeros((B, mujoco.mj_stateSize(mm, spec)))
    for b in range(B):
        mujoco.mj_resetData(mm, d)
        d.qpos[:] = layout.q_to(Q0[b])
        mujoco.mj_getState(mm, d, states[b], spec)
    ctrl = np.tile(solo.POSE, (B, steps, 1))
    datas = [mujoco.MjData(mm) for _ in range(threads)]
    with rollout.Rollout(nthread=threads) as r:
        r.rollout(mm, datas, states[:2], ctrl[:2, :10])
        t_mj, (mj_state, _) = best_of(lambda: r.rollout(mm, datas, states, ctrl), repeats=2)
    z_ours = out.q[:, -1, 6]
    z_mj = mj_state[:, -1, 1 + 2]  # (state: time, then qpos: the free joint's position first)
    stand = lambda z: int(np.sum((z > 0.1) & (z < 0.4)))  # noqa: E731
    print(f"{B} Solo12 drops, {steps} steps of 1 ms each, {threads} threads (steps per second, all samples)")
    print(f"ours   mb.rollout       {B * steps / t_ours:12,.0f}   ({stand(z_ours)} of {B} standing at the end)")
    print(f"MuJoCo mujoco.rollout   {B * steps / t_mj:12,.0f}   ({stand(z_mj)} of {B} standing at the end)")
    print(f"ratio ours / MuJoCo (steps per second): {t_mj / t_ours:.3f}")


if __name__ == "__main__":
    main()
