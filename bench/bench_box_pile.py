"""A pile of boxes dropped onto the floor (issue 21's scale check): time per step, and
whether it settles without exploding or sinking.

N boxes of 10 cm and 1 kg (mu 0.5) in columns of 5 on a grid 12 cm apart, 1 cm gaps between
boxes of a column, each turned a little at random (seeded), released at rest at dt = 1 ms
for T s. Reported: time per step, the most contacts of a step, and at the end the deepest
penetration (floor and box pairs), the fastest speed, the boxes at rest (every speed below
1e-6) and the lowest box's height.

Measured 2026-11-29 (2 shared cores, load about 1.2; "before": the code before box_box
left out edge axes near a face normal, run in the same sitting): 50 boxes, 2 s: 16.9-19.4 ms
a step (before: 23.0), at most 200 contacts a step, deepest 0.041 mm at the end (before:
0.063), fastest speed 7.8e-4 (before: 0.16, one column's top box rocking on a single edge
point), 35 of 50 boxes below 1e-6 (before: 28); the rest jitter in a 10-step cycle that moves
no box more than 1.4 um between 2 and 4 s. 10 boxes, 1 s: 6.1 ms a step (before: 13.2), all 10
at rest below 1e-6.

Run:  python bench/bench_box_pile.py [N] [T]      (default 50 boxes, 2 s)
"""
import sys
import time

import numpy as np

import multibody as mb


def pile(n, seed=0):
    """(model, q0) of n free boxes (quaternion coordinates) in columns of 5 over a floor."""
    rng = np.random.default_rng(seed)
    m = mb.Multibody()
    m.add_collision("world", mb.Plane(), name="floor", friction=0.5)
    q0 = []
    cols = int(np.ceil(n / 5))
    side = int(np.ceil(np.sqrt(cols)))
    for k in range(n):
        name = f"box{k}"
        m.add_body(name, mass=1.0, inertia=np.eye(3) / 600)
        m.add_hinge("world", name, kind="free_quat")
        m.add_collision(name, mb.Box((0.1, 0.1, 0.1)), friction=0.5)
        col, level = divmod(k, 5)
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = rng.uniform(0, 0.1)
        quat = np.r_[np.sin(angle / 2) * axis, np.cos(angle / 2)]
        pos = [0.12 * (col % side), 0.12 * (col // side), 0.06 + 0.11 * level]
        q0.append(np.r_[quat, pos])
    return m, np.concatenate(q0)


OPTIONS = None  # (contact_options: the defaults)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    T = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    m, q0 = pile(n)
    mb.simulate(m, q0, np.zeros(m.nu), 0.002, dt=1e-3)  # (compiled)
    t = time.perf_counter()
    res = mb.simulate(m, q0, np.zeros(m.nu), T, dt=1e-3, contact_output=True, contact_options=OPTIONS)
    wall = time.perf_counter() - t
    steps = len(res.t) - 1
    c = m.contacts(res.q[-1])
    depth = -min(0.0, float(np.min(c.distances))) if len(c.distances) else 0.0
    z = res.q[-1].reshape(n, 7)[:, 6]
    resting = int(np.sum(np.abs(res.u[-1].reshape(n, 6)).max(axis=1) < 1e-6))
    print(f"{n} boxes ({m.nu} speeds), {T:g} s at dt = 1 ms: {wall / steps * 1e3:.2f} ms per step, "
          f"at most {res.contacts.count.max()} contacts in a step; at the end: deepest penetration "
          f"{depth * 1e3:.3f} mm, fastest speed {np.abs(res.u[-1]).max():.2e}, {resting} of {n} boxes "
          f"below 1e-6, lowest box centre {z.min():.4f} m "
          f"(0.05 at rest on the floor), status {res.status}")


if __name__ == "__main__":
    main()
