"""Solo12 standing on the floor: our contact stepping against MuJoCo's ``mj_step``, same run.

The scene of ``examples/solo12_drop.py`` (Solo12's 17 collision meshes, a floor, PD at every
joint at 1 ms steps): each simulator first runs the 0.3 m drop for 2 s, then is timed on 2 s
more from that standing state. Two ways of applying the same PD, each the same on both sides:

* PD as compiled position actuators (``solo12_scene(actuators=True)``: ``m.actuators``,
  ``ctrl`` = the pose; MuJoCo: the same gains as its general actuators through
  ``mujoco_from_urdf(actuators=)``, ``d.ctrl`` = the pose). Ours: ``mb.simulate``; MuJoCo:
  ``mj_step`` in a Python loop, and ``mujoco.rollout`` of the one run (no Python per step).
* PD in Python at every step (ours: ``mb.simulate``'s control callback; MuJoCo: the same
  law written into ``qfrc_applied`` before each ``mj_step``).

MuJoCo at its defaults with elliptic cones. Reported: steps per second of each, the ratios
ours / MuJoCo (above 1: we are faster), and the contacts each had at the end. Ours and
``mj_step`` are timed interleaved (``paired_best``: the best of 12 rounds of each, one after
the other), so that a stretch of contention on the shared machine falls on both alike (timed
apart, MuJoCo's own rate swung from 14,000 to 56,000 steps/s between runs minutes apart).

Run:  python bench/bench_contact_robot.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import solo12_drop as solo  # noqa: E402
from _timing import best_of, paired_best  # noqa: E402

STEPS = 2000
ROUNDS = 12


def ours(actuators):
    """(a run of STEPS steps from standing: a function returning its result, the model)."""
    import multibody as mb
    m, q0 = solo.solo12_scene(actuators=actuators)
    kw = dict(ctrl=solo.POSE) if actuators else dict(control=solo.pd)
    landed = mb.simulate(m, q0, np.zeros(m.nu), 2.0, dt=1e-3, **kw)
    qs, us = landed.q[-1], landed.u[-1]
    return lambda: mb.simulate(m, qs, us, STEPS * 1e-3, dt=1e-3, contact_output=True, **kw), m


def theirs(m, actuators):
    """(the mj_step loop of STEPS steps from its standing state: a function, the seconds of
    mujoco.rollout of the same run (None without actuators), a function giving its contacts)."""
    import mujoco
    mm, d, layout, qadr, vadr = solo.mujoco_scene(m)
    _, q0 = solo.solo12_scene()
    d.qpos[:] = layout.q_to(q0)

    def pd():
        if actuators:
            d.ctrl[:] = solo.POSE
        else:
            d.qfrc_applied[vadr] = solo.KP * (solo.POSE - d.qpos[qadr]) - solo.KD * d.qvel[vadr]
    for _ in range(2000):  # its own landing
        pd()
        mujoco.mj_step(mm, d)
    start = (d.qpos.copy(), d.qvel.copy())

    def loop():
        d.qpos[:], d.qvel[:] = start
        for _ in range(STEPS):
            pd()
            mujoco.mj_step(mm, d)
    ncon = lambda: d.ncon  # noqa: E731
    if not actuators:
        return loop, None, ncon
    from mujoco import rollout
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.zeros(mujoco.mj_stateSize(mm, spec))
    d.qpos[:], d.qvel[:] = start
    mujoco.mj_getState(mm, d, state, spec)
    ctrl = np.tile(solo.POSE, (1, STEPS, 1))
    t_roll, _ = best_of(lambda: rollout.rollout(mm, mujoco.MjData(mm), state[None], ctrl))
    return loop, t_roll, ncon


def main():
    print(f"Solo12 standing, {STEPS} steps of 1 ms (steps per second; ratio: ours / MuJoCo)")
    for actuators in (True, False):
        run, m = ours(actuators)
        loop, t_roll, ncon = theirs(m, actuators)
        t_ours, t_mj = (1e-6 * t for t in paired_best(run, loop, 1, rounds=ROUNDS))
        nc, ncon = run().contacts.count[-1], ncon()
        what = "PD as compiled position actuators" if actuators else "PD in Python at each step"
        print(f"{what}:")
        print(f"  ours            {STEPS / t_ours:10,.0f}  ({nc} contacts)")
        print(f"  MuJoCo mj_step  {STEPS / t_mj:10,.0f}  ({ncon} contacts)   ratio {t_mj / t_ours:.3f}")
        if t_roll is not None:
            print(f"  MuJoCo rollout  {STEPS / t_roll:10,.0f}                  ratio {t_roll / t_ours:.3f}")


if __name__ == "__main__":
    main()
