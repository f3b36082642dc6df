"""Inverse mass matrix and operational-space compliance, measured in one run.

1. ``m.inverse_mass_matrix(q)`` (O(N nu) articulated-body recursion) against
   Pinocchio's ``computeMinverse`` on UR5, Panda, Solo12 and Talos (free-flyer roots
   on the legged robots), time per call from Python and the ratio ours / Pinocchio.
2. ``m.operational_space_compliance(q, frames)`` (Upsilon = J M^-1 J^T by recursion)
   against forming it densely from our own M and J (mass matrix, body Jacobians,
   Cholesky solve), on a 200-link chain for 1-4 frames, and on Talos (feet and hands).

Run:  python bench/bench_inverse_mass.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bench_core import best_time, robots  # noqa: E402


def interleaved(ours, theirs, n):
    """Best times [us] of two calls, measured alternately to share the machine's noise."""
    a, b = [], []
    for _ in range(3):
        a.append(best_time(ours, n=n, repeats=3))
        b.append(best_time(theirs, n=n, repeats=3))
    return min(a), min(b)


def bench_inverse_mass_matrix():
    import pinocchio as pin

    import multibody as mb
    for name, path, floating in robots():
        m = mb.load_urdf(path, floating_base="quaternion" if floating else False)
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
        data = model.createData()
        q = m.random_q(np.random.default_rng(0))
        qp = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        out = np.empty((m.nu, m.nu))
        m.inverse_mass_matrix(q)
        for label, ours in (("inverse_mass_matrix", lambda: m.inverse_mass_matrix(q)),
                            ("inverse_mass_matrix(out=)", lambda: m.inverse_mass_matrix(q, out=out))):
            a, b = interleaved(ours, lambda: pin.computeMinverse(model, data, qp), 20000)
            print(f"{name:7s} nu={m.nu:3d} {label:26s} ours {a:7.2f} us  computeMinverse {b:7.2f} us  "
                  f"ratio {a / b:5.2f}", flush=True)


def dense_compliance(m, q, frames):
    M = m.mass_matrix(q)
    J = np.vstack([m.body_jacobian(q, f) for f in frames])
    L = np.linalg.cholesky(M)
    X = np.linalg.solve(L, J.T)
    return X.T @ X


def bench_compliance():
    import multibody as mb
    from robots import robot_urdf
    m = mb.Multibody()
    m.add_serial_chain("l", 200, kind="pin")
    cases = [("chain200", m, [["l199"], ["l199", "l150"], ["l199", "l150", "l100"],
                              ["l199", "l150", "l100", "l50"]])]
    talos = mb.load_urdf(robot_urdf("talos"), floating_base="quaternion")
    cases.append(("Talos", talos, [["left_sole_link", "right_sole_link"],
                                   ["left_sole_link", "right_sole_link", "gripper_left_base_link",
                                    "gripper_right_base_link"]]))
    for label, mm, frame_sets in cases:
        q = mm.random_q(np.random.default_rng(1))
        for frames in frame_sets:
            Y = mm.operational_space_compliance(q, frames)
            err = np.abs(Y - dense_compliance(mm, q, frames)).max() / np.abs(Y).max()
            n = 200 if label == "chain200" else 5000
            a, b = interleaved(lambda: mm.operational_space_compliance(q, frames),
                               lambda: dense_compliance(mm, q, frames), n)
            print(f"{label:8s} k={len(frames)} operational_space_compliance {a:9.2f} us  dense J M^-1 J^T "
                  f"{b:9.2f} us  ratio {a / b:5.2f}  (relative difference {err:.1e})", flush=True)


if __name__ == "__main__":
    bench_inverse_mass_matrix()
    bench_compliance()
