"""Collision detection (issue 21): our compiled ``detect`` against MuJoCo's ``mj_collision``
on the same scenes, measured in one run and printed as ratios.

Scenes: 200 spheres on a grid resting on a plane (mostly sphere-plane and neighbours just
apart), and a heap of 60 boxes, capsules, spheres, cylinders and ellipsoids on a plane,
overlapping. Each shape is a free body in MuJoCo (its geoms: contype/conaffinity 1,
margin 0); ours are the same shapes with every pair allowed. Times are per call: ours from
a compiled loop calling ``detect`` and from Python, one call at a time; MuJoCo's from
Python, one ``mj_collision`` at a time (its geom poses computed once before, by
``mj_kinematics``; ours computes the shape poses inside ``detect``).

Run:  python bench/bench_collision.py
"""
import os
import sys
import time

import numpy as np
from numba import njit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from collision_rows import Scene, rot  # noqa: E402
from multibody.kernels.collision import layout as CL  # noqa: E402
from multibody.kernels.collision.detect import detect  # noqa: E402
from multibody.kernels.collision.work import STATS, contact_work  # noqa: E402

_MJ = {CL.SPHERE: "sphere", CL.CAPSULE: "capsule", CL.CYLINDER: "cylinder", CL.BOX: "box", CL.ELLIPSOID: "ellipsoid"}
_MJ_SIZES = {CL.SPHERE: 1, CL.CAPSULE: 2, CL.CYLINDER: 2}


def grid_scene():
    rng = np.random.default_rng(0)
    return [(CL.SPHERE, (0.1, 0, 0), np.eye(3), np.array([0.21 * i, 0.21 * j, 0.099]) + rng.uniform(-0.01, 0.01, 3))
            for i in range(10) for j in range(20)]


def heap_scene():
    rng = np.random.default_rng(1)
    shapes = []
    for k in range(60):
        kind = int(rng.choice(list(_MJ)))
        size = {CL.SPHERE: (0.05, 0, 0), CL.CAPSULE: (0.03, 0.06, 0), CL.CYLINDER: (0.04, 0.05, 0),
                CL.BOX: (0.05, 0.04, 0.03), CL.ELLIPSOID: (0.05, 0.04, 0.03)}[kind]
        shapes.append((kind, size, rot(rng.normal(size=3), rng.uniform(0, np.pi)),
                       np.array([rng.uniform(0, 0.6), rng.uniform(0, 0.6), rng.uniform(0.0, 0.25)])))
    return shapes


def ours(shapes):
    s = Scene()
    s.add(CL.PLANE)
    for kind, size, R, p in shapes:
        s.add(kind, size, R=R, p=p)
    cm = s.model()
    work, ci, cf = contact_work(cm, 4000)
    ws = np.zeros((1, 200))
    return cm, work, ci, cf, ws


def mujoco_model(shapes):
    import mujoco
    bodies = []
    for kind, size, R, p in shapes:
        q = np.zeros(4)
        mujoco.mju_mat2Quat(q, R.reshape(-1))
        sz = " ".join(str(x) for x in size[:_MJ_SIZES.get(kind, 3)])
        bodies.append(f'<body pos="{p[0]} {p[1]} {p[2]}" quat="{q[0]} {q[1]} {q[2]} {q[3]}"><freejoint/>'
                      f'<geom type="{_MJ[kind]}" size="{sz}"/></body>')
    xml = (f'<mujoco><size nconmax="4000"/><worldbody><geom type="plane" size="0 0 1"/>{"".join(bodies)}'
           f'</worldbody></mujoco>')
    try:
        m = mujoco.MjModel.from_xml_string(xml)
    except ValueError:  # newer MuJoCo: no nconmax
        m = mujoco.MjModel.from_xml_string(xml.replace('<size nconmax="4000"/>', ""))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    return mujoco, m, d


@njit  # not cached: Numba's cache would keep a detect changed since (it tracks no callee)
def repeat_detect(n, si, sf, verts, allow, ws, work, ci, cf):
    nc = 0
    for _ in range(n):
        nc = detect(si, sf, verts, allow, ws, work, ci, cf)
    return nc


def best(f, repeats=7):
    t_best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def main(n=2000):
    os.chdir(os.environ.get("TMPDIR", "/tmp"))  # MUJOCO_LOG.TXT
    for name, shapes in (("200 spheres on a grid", grid_scene()), ("heap of 60 mixed shapes", heap_scene())):
        cm, work, ci, cf, ws = ours(shapes)
        args = (cm.si, cm.sf, cm.verts, cm.allow, ws, work, ci, cf)
        nc = repeat_detect(1, *args)
        mujoco, m, d = mujoco_model(shapes)
        mujoco.mj_collision(m, d)
        t_loop = best(lambda: repeat_detect(n, *args)) / n
        t_call = best(lambda: [detect(*args) for _ in range(n)]) / n
        t_mj = best(lambda: [mujoco.mj_collision(m, d) for _ in range(n)]) / n
        pairs = work[STATS][0]
        print(f"{name}: ours {nc} contacts ({pairs} narrow-phase pairs), MuJoCo {d.ncon} contacts")
        print(f"  detect, compiled loop  {t_loop * 1e6:8.1f} us   MuJoCo/ours {t_mj / t_loop:5.2f}")
        print(f"  detect, Python call    {t_call * 1e6:8.1f} us   MuJoCo/ours {t_mj / t_call:5.2f}")
        print(f"  mj_collision           {t_mj * 1e6:8.1f} us")


if __name__ == "__main__":
    main()
