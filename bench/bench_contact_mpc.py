"""Short runs from a contact state, as a model-predictive controller makes them: Solo12 standing
(the scene of ``examples/solo12_drop.py``, PD as position actuators), CALLS runs of HORIZON
steps of 1 ms, each from the end of the one before. Ours: one ``mb.simulate`` call per run,
cold (each run's first contact solve from zero impulses) and warm (``contact_options=
{"warm_start": previous result}``); MuJoCo: HORIZON ``mj_step`` per run on one ``mjData``,
which keeps its warm start between runs. Reported: microseconds per run, and the ratios
MuJoCo / ours (above 1: we are faster), timed in interleaved blocks (``_timing.paired_best``).

Run:  python bench/bench_contact_mpc.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import solo12_drop as solo  # noqa: E402
from _timing import paired_best  # noqa: E402

HORIZON = 20   # steps of 1 ms per run
CALLS = 25     # runs chained, each from the end of the one before


def main():
    import mujoco

    import multibody as mb
    m, q0 = solo.solo12_scene(actuators=True)
    landed = mb.simulate(m, q0, np.zeros(m.nu), 2.0, dt=1e-3, ctrl=solo.POSE)
    run = dict(dt=1e-3, ctrl=solo.POSE)

    def chain(warm):
        res = landed
        for _ in range(CALLS):
            opts = {"warm_start": res} if warm else None
            res = mb.simulate(m, res.q[-1], res.u[-1], HORIZON * 1e-3, contact_options=opts, **run)
        return res
    mm, d, layout, _, _ = solo.mujoco_scene(m)
    d.qpos[:] = layout.q_to(q0)
    d.ctrl[:] = solo.POSE
    for _ in range(2000):  # its own landing
        mujoco.mj_step(mm, d)
    start = (d.qpos.copy(), d.qvel.copy())

    def theirs():
        d.qpos[:], d.qvel[:] = start
        for _ in range(CALLS):
            for _ in range(HORIZON):
                mujoco.mj_step(mm, d)
    chain(True), chain(False)
    cold, mj = paired_best(lambda: chain(False), theirs, 1, 8)
    warm, mj2 = paired_best(lambda: chain(True), theirs, 1, 8)
    mj = min(mj, mj2)
    print(f"Solo12 standing: {CALLS} runs of {HORIZON} steps of 1 ms, each from the end of the one before "
          f"(us per run; ratio MuJoCo / ours, above 1: we are faster)")
    print(f"  ours, cold (no warm start)        {cold / CALLS:9.1f}   ratio {mj / cold:.3f}")
    print(f"  ours, warm (contact_options)      {warm / CALLS:9.1f}   ratio {mj / warm:.3f}")
    print(f"  MuJoCo mj_step (mjData warm)      {mj / CALLS:9.1f}")


if __name__ == "__main__":
    main()
