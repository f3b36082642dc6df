"""Solo12 dropped onto the floor under PD joint control, and the same scene in MuJoCo.

example-robot-data's Solo12 URDF with its collision meshes (17 convex hulls) and a floor
(friction 1) added, dropped from a base height of 0.3 m with the legs bent (0, 0.8, -1.6 rad
per leg); PD at every joint (kp = 6 N m/rad, kd = 0.3 N m s/rad) holds that pose, the
control called once per 1 ms step. Four base/upper-leg pairs whose hulls overlap at rest are
excluded (MuJoCo finds the same 3-4 mm overlaps). Prints the steady base height, the force
on each foot and the total normal force against the weight, for ours and for MuJoCo's
``mj_step`` on the same geometry (``mb.interop.mujoco_from_urdf(collisions=m)``: MuJoCo's
defaults with elliptic cones, its soft contacts), and both run times.

    python examples/solo12_drop.py [--t-final 5] [--no-mujoco]
"""
import argparse
import importlib.metadata
import time

import numpy as np

import multibody as mb

LEGS = ("FL", "FR", "HL", "HR")
POSE = np.array([0.0, 0.8, -1.6] * 4)  # hip abduction, hip flexion, knee per leg [rad]
KP, KD = 6.0, 0.3
DROP = 0.3  # [m] the base's starting height


def solo12_urdf():
    """The path of example-robot-data's Solo12 URDF (FileNotFoundError when not installed)."""
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    path = next((f.locate() for f in files if str(f).endswith("solo_description/robots/solo12.urdf")), None)
    if path is None:
        raise FileNotFoundError("example-robot-data's solo12.urdf is not installed (pip install example-robot-data)")
    return str(path)


def solo12_scene(path=None, actuators=False):
    """(model, q0): Solo12 on a quaternion free base, a floor, the overlapping base/upper-leg
    pairs excluded, the base at DROP with the legs at POSE. ``actuators``: the PD as compiled
    position servos on every joint (``m.actuators``; run with ``ctrl=POSE``), not a callback."""
    m = mb.load_urdf(path or solo12_urdf(), floating_base="quaternion")
    if actuators:
        m.actuators = [mb.Actuator.position(n, n, KP, KD) for n in m.hinge_names if n != "root_joint"]
    m.add_collision("world", mb.Plane(), name="floor", friction=1.0)
    for leg in LEGS:
        m.exclude_collision("base_link", f"{leg}_UPPER_LEG")
    q0 = m.neutral_q()
    q0[6] = DROP
    q0[7:] = POSE
    return m, q0


def pd(t, q, u, tau):
    """The joint PD (the control callback of ``mb.simulate``)."""
    tau[6:] = KP * (POSE - q[7:]) - KD * u[6:]


def run_ours(m, q0, t_final):
    """Our run (contacts on by default): (result, wall time [s])."""
    t = time.perf_counter()
    res = mb.simulate(m, q0, np.zeros(m.nu), t_final, dt=1e-3, control=pd, contact_output=True)
    return res, time.perf_counter() - t


def foot_forces(m, res):
    """{leg: world force on the foot [N]} at the last sample, and the total normal force."""
    rec = res.contacts.at(len(res.contacts.count) - 1)
    names = res.contacts.shape_names
    out = {leg: np.zeros(3) for leg in LEGS}
    for (a, b), f in zip(rec["shapes"], rec["forces"]):
        # (the force on b; the floor is one of the pair: the foot gets the force on its side)
        foot, sign = (names[b], 1.0) if names[a] == "floor" else (names[a], -1.0)
        out[foot.split("_")[0]] += sign * f
    return out, sum(f[2] for f in out.values())


def mujoco_scene(m, path=None):
    """(MjModel, MjData, qpos/dof addresses of our joints in our order) of the same scene,
    with m's actuators as MuJoCo's (d.ctrl in the order of m.actuators)."""
    import mujoco
    from multibody.interop import MujocoLayout, mujoco_from_urdf
    mm = mujoco_from_urdf(path or solo12_urdf(), collisions=m, actuators=m.actuators)
    mm.opt.timestep = 1e-3
    mm.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    layout = MujocoLayout(m, mm)
    d = mujoco.MjData(mm)
    names = [n for n in m.hinge_names if n != "root_joint"]
    qadr = np.array([mm.joint(n).qposadr[0] for n in names])
    vadr = np.array([mm.joint(n).dofadr[0] for n in names])
    return mm, d, layout, qadr, vadr


def run_mujoco(m, q0, t_final, path=None):
    """MuJoCo's run of the same scene, PD in qfrc_applied at every step: (MjModel, MjData,
    base heights per step, wall time [s])."""
    import mujoco
    mm, d, layout, qadr, vadr = mujoco_scene(m, path)
    d.qpos[:] = layout.q_to(q0)
    steps = int(round(t_final / mm.opt.timestep))
    z = np.empty(steps)
    t = time.perf_counter()
    for k in range(steps):
        d.qfrc_applied[vadr] = KP * (POSE - d.qpos[qadr]) - KD * d.qvel[vadr]
        mujoco.mj_step(mm, d)
        z[k] = d.qpos[2]
    return mm, d, z, time.perf_counter() - t


def mujoco_foot_forces(mm, d):
    """{leg: world force on the foot [N]} from MuJoCo's contacts, and the total normal force."""
    import mujoco
    out = {leg: np.zeros(3) for leg in LEGS}
    f6 = np.zeros(6)
    for i in range(d.ncon):
        con = d.contact[i]
        mujoco.mj_contactForce(mm, d, i, f6)
        frame = con.frame.reshape(3, 3)  # rows: normal (geom1 to geom2), tangents
        f = frame.T @ f6[:3]  # the force on geom2, world axes
        for g, sign in ((con.geom2, 1.0), (con.geom1, -1.0)):
            leg = mm.body(mm.geom_bodyid[g]).name.split("_")[0]  # (feet are merged into the lower legs)
            if leg in out:
                out[leg] += sign * f
    return out, sum(f[2] for f in out.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-final", type=float, default=5.0)
    ap.add_argument("--no-mujoco", action="store_true")
    args = ap.parse_args()
    m, q0 = solo12_scene()
    weight = m.total_mass * 9.81
    run_ours(m, q0, 0.01)  # (compiled)
    res, wall = run_ours(m, q0, args.t_final)
    feet, total = foot_forces(m, res)
    print(f"Solo12: {m.total_mass:.4f} kg, weight {weight:.6f} N; {args.t_final:g} s at dt = 1 ms")
    print(f"ours:   base height {res.q[-1, 6]:.6f} m, total normal force {total:.9f} N "
          f"(relative to the weight {total / weight - 1:+.1e}), {res.contacts.count[-1]} contacts, "
          f"{len(res.t) - 1} steps in {wall:.2f} s ({(len(res.t) - 1) / wall:,.0f} steps/s)")
    print("        feet [N]: " + ", ".join(f"{k} {v[2]:.4f}" for k, v in feet.items()))
    if args.no_mujoco:
        return
    mm, d, z, wall_mj = run_mujoco(m, q0, args.t_final)
    feet_mj, total_mj = mujoco_foot_forces(mm, d)
    print(f"MuJoCo: base height {z[-1]:.6f} m, total normal force {total_mj:.9f} N "
          f"(relative to the weight {total_mj / weight - 1:+.1e}), {d.ncon} contacts, "
          f"{len(z)} steps in {wall_mj:.2f} s ({len(z) / wall_mj:,.0f} steps/s)")
    print("        feet [N]: " + ", ".join(f"{k} {v[2]:.4f}" for k, v in feet_mj.items()))


if __name__ == "__main__":
    main()
