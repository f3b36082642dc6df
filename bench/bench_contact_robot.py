"""Solo12 standing on the floor: our contact stepping against MuJoCo's ``mj_step``, same run.

The scene of ``examples/solo12_drop.py`` (Solo12's 17 collision meshes, a floor, PD at every
joint called once per 1 ms step): each simulator first runs the 0.3 m drop for 2 s, then is
timed on 2 s more from that standing state (ours: ``mb.simulate`` with its Python control;
MuJoCo: ``mj_step`` in a Python loop writing the same PD into ``qfrc_applied``, at its
defaults with elliptic cones). Reported: steps per second of each, the ratio ours / MuJoCo
(above 1: we are faster), and the contacts each had at the end.

Run:  python bench/bench_contact_robot.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import solo12_drop as solo  # noqa: E402
from _timing import best_of  # noqa: E402


def main():
    import mujoco
    import multibody as mb
    m, q0 = solo.solo12_scene()
    landed = mb.simulate(m, q0, np.zeros(m.nu), 2.0, dt=1e-3, control=solo.pd)
    qs, us = landed.q[-1], landed.u[-1]
    steps = 2000
    t_ours, res = best_of(lambda: mb.simulate(m, qs, us, steps * 1e-3, dt=1e-3, control=solo.pd,
                                              contact_output=True))
    mm, d, layout, qadr, vadr = solo.mujoco_scene(m)
    d.qpos[:] = layout.q_to(q0)
    for _ in range(2000):  # its own landing
        d.qfrc_applied[vadr] = solo.KP * (solo.POSE - d.qpos[qadr]) - solo.KD * d.qvel[vadr]
        mujoco.mj_step(mm, d)
    start = (d.qpos.copy(), d.qvel.copy())

    def theirs():
        d.qpos[:], d.qvel[:] = start
        for _ in range(steps):
            d.qfrc_applied[vadr] = solo.KP * (solo.POSE - d.qpos[qadr]) - solo.KD * d.qvel[vadr]
            mujoco.mj_step(mm, d)
    t_mj, _ = best_of(theirs)
    print(f"Solo12 standing, {steps} steps of 1 ms, PD in Python at each step")
    print(f"ours   {steps / t_ours:10,.0f} steps/s  ({res.contacts.count[-1]} contacts)")
    print(f"MuJoCo {steps / t_mj:10,.0f} steps/s  ({d.ncon} contacts)")
    print(f"ratio ours / MuJoCo (steps per second): {t_mj / t_ours:.3f}")


if __name__ == "__main__":
    main()
