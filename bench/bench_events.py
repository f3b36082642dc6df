"""What sampled control and event watching cost: RK4 steps per second of multibody.simulate
on UR5 (plain, a PD control sampled at 100 Hz and 1 kHz, the same PD at every stage, a
state event watched that never fires, a bouncing-ball-like reset every 0.1 s) against
MuJoCo's RK4 mj_step in a Python loop with the same PD sampled at 100 Hz (ctrl held in
between), the way a MuJoCo user writes a digital controller.

Run: PYTHONPATH=src python bench/bench_events.py [--seconds S]
Same model (UR5 of example-robot-data, converted for MuJoCo from our compiled arrays), same
process; the ratios are what to compare. Joint limits off (limits=False), as in MuJoCo's model.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import multibody as mb  # noqa: E402
from bench_simulation import mj_qpos, mjcf_of, ur5  # noqa: E402

DT = 1e-3


def _pd(M):
    def control(t, q, u, tau_out):
        tau_out[:] += M @ (100.0 * (0.3 - q) - 20.0 * u)
    return control


def _rate(run, seconds):
    run(10 * DT)  # compile / load the cache
    start = time.perf_counter()
    res = run(seconds)
    return res.n_steps / (time.perf_counter() - start), res


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0)
    seconds = ap.parse_args().seconds
    m = ur5()
    q0, u0 = np.full(m.nq, 0.1), np.zeros(m.nu)
    M = m.mass_matrix(q0)
    pd = _pd(M)
    never = mb.Event(lambda t, q, u: q[0] + 10.0)
    kick = mb.Event(at=np.arange(1, int(seconds * 10)) * 0.1, action=lambda t, q, u: (q, -u))

    def sim(**kw):
        return lambda s: mb.simulate(m, q0, u0, s, dt=DT, limits=False, **kw)

    rows = [("multibody simulate, no control", sim()),
            ("multibody, PD sampled at 100 Hz (control_period)", sim(control=pd, control_period=0.01)),
            ("multibody, PD sampled at 1 kHz (control_period)", sim(control=pd, control_period=0.001)),
            ("multibody, PD at every RK4 stage", sim(control=pd)),
            ("multibody, a state event watched (never fires)", sim(events=[never])),
            ("multibody, 100 Hz PD + timed velocity reset at 10 Hz",
             sim(control=pd, control_period=0.01, events=[kick]))]
    rates = [(label, _rate(run, seconds)[0]) for label, run in rows]

    import mujoco
    parts = mjcf_of(m, DT).split('<joint type="hinge"')  # name the joints (depth-first: our u order)
    xml = parts[0] + "".join(f'<joint name="j{i}" type="hinge"' + p for i, p in enumerate(parts[1:]))
    motors = "".join(f'<motor joint="j{j}" gear="1"/>' for j in range(m.nu))
    mm = mujoco.MjModel.from_xml_string(xml.replace("</worldbody>", f"</worldbody><actuator>{motors}</actuator>"))
    rates.append(("MuJoCo RK4 mj_step + PD at 100 Hz, Python loop", _mujoco_rate(m, mm, q0, M, seconds)))
    peer = rates[-1][1]
    print(f"\nUR5, RK4 dt = {DT} s, {seconds:g} s simulated")
    for label, rate in rates:
        print(f"  {label:56s} {rate:12,.0f} steps/s   {rate / peer:7.2f}x MuJoCo's")


def _mujoco_rate(m, mm, q0, M, seconds):
    """Steps per second of mj_step with the PD evaluated every 10 steps (ctrl held)."""
    import mujoco
    md = mujoco.MjData(mm)
    md.qpos[:] = mj_qpos(m, q0)
    n = int(round(seconds / DT))
    start = time.perf_counter()
    for k in range(n):
        if k % 10 == 0:
            md.ctrl[:] = M @ (100.0 * (0.3 - md.qpos) - 20.0 * md.qvel)
        mujoco.mj_step(mm, md)
    return n / (time.perf_counter() - start)


if __name__ == "__main__":
    main()
