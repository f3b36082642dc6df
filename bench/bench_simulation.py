"""RK4 steps per second: multibody.simulate (compiled loop, and with a Python control
callback) vs a Python loop of Pinocchio aba + RK4, vs MuJoCo's RK4 mj_step.

Run: PYTHONPATH=src python bench/bench_simulation.py [--steps N]
All peers run the same model (UR5 from example-robot-data, converted for MuJoCo from
our compiled arrays) in the same process; ratios are what to compare. Joint limits and contacts are
off in our runs (limits=False), as in the peers' models.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import multibody as mb  # noqa: E402
from multibody.kernels import layout as L  # noqa: E402
from multibody.simulation import simulate  # noqa: E402


def ur5():
    from robots import robot_urdf
    return mb.load_urdf(robot_urdf("ur5"))


def talos():
    from robots import robot_urdf
    return mb.load_urdf(robot_urdf("talos"), floating_base="quaternion")


def mj_qpos(m, q):
    """Our q -> MuJoCo qpos (a free joint stores [position; quaternion w, x, y, z])."""
    c = m.compiled
    out = []
    for j, s in enumerate(c.link_subhinges):
        i = c.mi[j, L.QOFF]
        if s.kind == "free_quat":
            x, y, z, w = q[i:i + 4]
            out += [q[i + 4:i + 7], [w, x, y, z]]
        else:
            out.append(q[i:i + s.nq])
    return np.concatenate(out)


def mj_qvel(m, q, u):
    """Our u -> MuJoCo qvel (a free joint: [linear velocity in world axes; angular velocity in body axes])."""
    c = m.compiled
    out = u.copy()
    for j, s in enumerate(c.link_subhinges):
        if s.kind == "free_quat":
            i, k = c.mi[j, L.QOFF], c.mi[j, L.UOFF]
            R = Rotation.from_quat(q[i:i + 4]).as_matrix()
            out[k:k + 3] = R @ u[k + 3:k + 6]
            out[k + 3:k + 6] = u[k:k + 3]
    return out


def mjcf_of(m, dt):
    """MJCF of a model made of pin/slider links (same tree, inertias, gravity)."""
    c = m.compiled
    children = {}
    for j in range(c.n_links):
        children.setdefault(int(c.mi[j, L.PARENT]), []).append(j)

    def body(j):
        R = c.mf[j, L.R_TREE:L.R_TREE + 9].reshape(3, 3)
        p = c.mf[j, L.P_TREE:L.P_TREE + 3]
        x, y, z, w = Rotation.from_matrix(R).as_quat()
        kind = {L.PIN: "hinge", L.SLIDER: "slide", L.FREE_QUAT: "free"}[int(c.mi[j, L.KIND])]
        ax = c.mf[j, L.AXIS:L.AXIS + 3]
        joint = "<freejoint/>" if kind == "free" else f'<joint type="{kind}" axis="{ax[0]} {ax[1]} {ax[2]}"/>'
        I6 = c.mf[j, L.INERTIA:L.INERTIA + 36].reshape(6, 6)
        mass = max(I6[5, 5], 1e-9)
        com = np.array([I6[4, 2], I6[5, 0], I6[3, 1]]) / mass
        C = np.array([[0, -com[2], com[1]], [com[2], 0, -com[0]], [-com[1], com[0], 0]])
        Ic = I6[:3, :3] + mass * C @ C + np.eye(3) * 1e-9
        fi = " ".join(f"{v:.17g}" for v in (Ic[0, 0], Ic[1, 1], Ic[2, 2], Ic[0, 1], Ic[0, 2], Ic[1, 2]))
        s = (f'<body pos="{p[0]:.17g} {p[1]:.17g} {p[2]:.17g}" quat="{w:.17g} {x:.17g} {y:.17g} {z:.17g}">'
             + joint +
             f'<inertial pos="{com[0]:.17g} {com[1]:.17g} {com[2]:.17g}" mass="{mass:.17g}" fullinertia="{fi}"/>')
        return s + "".join(body(k) for k in children.get(j, [])) + "</body>"

    g = m.gravity
    return (f'<mujoco><option timestep="{dt}" integrator="RK4" gravity="{g[0]} {g[1]} {g[2]}">'
            f'<flag contact="disable"/></option><worldbody>'
            + "".join(body(k) for k in children.get(-1, [])) + "</worldbody></mujoco>")


def bench(m, name, steps, dt=1e-3):
    q0 = m.random_q(0, scale=1.0)
    u0 = np.zeros(m.nu)
    rows = []
    simulate(m, q0, u0, 10 * dt, dt=dt, limits=False, contact=False)  # compile / load cache
    t = time.perf_counter()
    simulate(m, q0, u0, steps * dt, dt=dt, limits=False, contact=False)
    ours = steps / (time.perf_counter() - t)
    rows.append(("multibody simulate (compiled loop)", ours))

    def control(t, q, u, tau):
        tau[:] = 0.0

    n_cb = max(steps // 20, 100)
    simulate(m, q0, u0, 10 * dt, dt=dt, control=control, limits=False, contact=False)
    t = time.perf_counter()
    simulate(m, q0, u0, n_cb * dt, dt=dt, control=control, limits=False, contact=False)
    rows.append(("multibody simulate (Python control callback)", n_cb / (time.perf_counter() - t)))
    try:
        import pinocchio as pin
        from pin_convert import q_to_pin, to_pinocchio
        model = to_pinocchio(m)
        data = model.createData()
        tau = np.zeros(model.nv)
        q, v = q_to_pin(m, q0), u0.copy()
        n_pin = max(steps // 10, 100)
        t = time.perf_counter()
        for _ in range(n_pin):
            k1v = pin.aba(model, data, q, v, tau).copy(); k1q = v
            k2q = v + 0.5 * dt * k1v; k2v = pin.aba(model, data, pin.integrate(model, q, 0.5 * dt * k1q), k2q, tau).copy()
            k3q = v + 0.5 * dt * k2v; k3v = pin.aba(model, data, pin.integrate(model, q, 0.5 * dt * k2q), k3q, tau).copy()
            k4q = v + dt * k3v; k4v = pin.aba(model, data, pin.integrate(model, q, dt * k3q), k4q, tau).copy()
            q = pin.integrate(model, q, dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q))
            v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        rows.append(("Pinocchio aba + RK4, Python loop", n_pin / (time.perf_counter() - t)))
    except ImportError:
        pass
    try:
        import mujoco
        mm = mujoco.MjModel.from_xml_string(mjcf_of(m, dt))
        md = mujoco.MjData(mm)
        md.qpos[:] = mj_qpos(m, q0)
        md.qvel[:] = mj_qvel(m, q0, u0)
        t = time.perf_counter()
        for _ in range(steps):
            mujoco.mj_step(mm, md)
        rows.append(("MuJoCo RK4 mj_step, Python loop", steps / (time.perf_counter() - t)))
        md.qpos[:] = mj_qpos(m, q0)
        md.qvel[:] = mj_qvel(m, q0, u0)
        md.time = 0.0
        for _ in range(500):
            mujoco.mj_step(mm, md)
        mine = simulate(m, q0, u0, 500 * dt, dt=dt, limits=False, contact=False)
        err = np.max(np.abs(md.qpos - mj_qpos(m, mine.q[-1])))
    except ImportError:
        err = None
    print(f"\n{name}: nq={m.nq}, RK4 dt={dt}, {steps} steps")
    for label, rate in rows:
        print(f"  {label:48s} {rate:12,.0f} steps/s   ({ours / rate:6.2f}x slower than compiled)"
              if rate != ours else f"  {label:48s} {rate:12,.0f} steps/s")
    if err is not None:
        print(f"  check: max |q_mujoco - q_multibody| after {500 * dt:g} s: {err:.2e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=20000)
    a = ap.parse_args()
    bench(ur5(), "UR5", a.steps)
    bench(talos(), "Talos, free-flyer root (quaternion)", a.steps // 2)
    m = mb.Multibody()
    m.add_serial_chain("l", 30, kind="pin", axis=(0, 1, 0), mass=1.0, length=0.2, inertia=np.diag([0.01] * 3))
    bench(m, "30-link pin chain", a.steps // 4)


if __name__ == "__main__":
    main()
