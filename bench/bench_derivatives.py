"""Dynamics derivatives: our facade vs Pinocchio's Python binding, measured in one run.

Prints, per robot (UR5 fixed, Talos on a free flyer: a quaternion free hinge here), the time
per call of ``inverse_dynamics_derivatives`` against ``pin.computeRNEADerivatives`` and of
``forward_dynamics_derivatives`` against ``pin.computeABADerivatives``, and the ratio
ours/Pinocchio; then chains of N = 10, 50, 200 pins (rods about y, ``add_serial_chain`` and
the same chain built in Pinocchio, checked equal by one RNEA): time per call and ratio.

Like with like, nearly: our calls return three new (nu, nu) arrays; Pinocchio's Python
calls fill its preallocated ``data`` (computeRNEADerivatives returns its three matrices as
references to it; M is its upper triangle only, ours whole; computeABADerivatives returns
references too, M^-1 likewise its upper triangle). Our allocation of 3 nu^2 doubles is in
our times.

Timing: ours and Pinocchio's calls in interleaved blocks, the best block of each
(``_timing.paired_best``): timed one after the other, a stretch of contention on the shared
cores could fall on one side only (UR5's forward ratio read 0.83-1.66 that way in one hour).

Run:  python bench/bench_derivatives.py [robots] [chains]   (no argument: both)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _timing import paired_best  # noqa: E402  (sys.path first)
from bench_core import robot_pair  # noqa: E402


def _pin_state(m, model, q, u, tau):
    """Pinocchio's (q, v, x) for our state (the free flyer's speeds permuted: [v; w])."""
    import pinocchio as pin
    if model.joints[1].nv == 6:
        qp = np.r_[q[4:7], q[:4], q[7:]]
        P = np.r_[3:6, 0:3, 6:m.nu]
    else:
        qp, P = q.copy(), np.arange(m.nu)
    assert np.isfinite(pin.rnea(model, model.createData(), qp, u[P], tau[P])).all()
    return qp, u[P], tau[P]


def _pair_times(m, model, data, q, u, tau, n):
    import pinocchio as pin
    qp, vp, tp = _pin_state(m, model, q, u, tau)
    m.inverse_dynamics_derivatives(q, u, tau), m.forward_dynamics_derivatives(q, u, tau)
    pairs = {
        "inverse_dynamics_derivatives": (lambda: m.inverse_dynamics_derivatives(q, u, tau),
                                         lambda: pin.computeRNEADerivatives(model, data, qp, vp, tp)),
        "forward_dynamics_derivatives": (lambda: m.forward_dynamics_derivatives(q, u, tau),
                                         lambda: pin.computeABADerivatives(model, data, qp, vp, tp)),
    }
    return {k: paired_best(ours, theirs, max(1, n // 10)) for k, (ours, theirs) in pairs.items()}


def bench_robots():
    from robots import robot_urdf
    print("robot  function                       ours [us]  pinocchio [us]  ratio")
    for name, path, floating in [("UR5", robot_urdf("ur5"), False), ("Talos", robot_urdf("talos"), True)]:
        m, model, data, rng, q, u, tau = robot_pair(path, floating)
        for k, (a, b) in _pair_times(m, model, data, q, u, tau, 2000).items():
            print(f"{name:6s} {k:30s} {a:9.2f} {b:14.2f} {a / b:6.2f}")


def pin_chain(n):
    """Pinocchio's model of add_serial_chain's pin chain: unit rods along x (unit mass, centre
    at x = 0.5, thin-rod inertia), joints about y at the previous rod's tip."""
    import pinocchio as pin
    model = pin.Model()
    parent = 0
    rod = pin.Inertia(1.0, np.array([0.5, 0.0, 0.0]), np.diag([0.0, 1 / 12, 1 / 12]))
    for k in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.0 if k == 0 else 1.0, 0.0, 0.0]))
        parent = model.addJoint(parent, pin.JointModelRY(), placement, f"c{k}_hinge")
        model.appendBodyToJoint(parent, rod, pin.SE3.Identity())
    return model


def bench_chains():
    import pinocchio as pin

    import multibody as mb
    print("chain  function                       ours [us]  pinocchio [us]  ratio")
    for n in (10, 50, 200):
        m = mb.Multibody("chain")
        m.add_serial_chain("c", n)
        model = pin_chain(n)
        rng = np.random.default_rng(0)
        q, u, tau = rng.normal(size=(3, n))
        ours, theirs = m.inverse_dynamics(q, u, tau), pin.rnea(model, model.createData(), q, u, tau)
        assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-9), "not the same chain"
        times = _pair_times(m, model, model.createData(), q, u, tau, max(20, 20000 // n ** 2))
        for k, (a, b) in times.items():
            print(f"N={n:<4d} {k:30s} {a:9.2f} {b:14.2f} {a / b:6.2f}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    what = sys.argv[1:] or ["robots", "chains"]
    if "robots" in what:
        bench_robots()
    if "chains" in what:
        bench_chains()
