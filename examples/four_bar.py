"""The planar four-bar of RigidBodyDynamics.jl's tests: closed by the constraint kinematics
solver, swung under gravity by tree-augmented dynamics, with and without Baumgarte
stabilization. Prints the energy drift and the loop's largest separation; with
``--plot path.png`` also plots the crank angle and the separation.

    python examples/four_bar.py [--t-final 5] [--plot four_bar.png]
"""
import argparse
import warnings

import numpy as np

import multibody as mb
from multibody.plotting import figure


def four_bar():
    """Ground pivots 1.10 m apart; crank, coupler, rocker of 0.5, 1.2, 0.75 m; pins about (0, -1, 0)."""
    m = mb.Multibody("four_bar", gravity=(0, 0, -9.81))
    axis = (0.0, -1.0, 0.0)
    for name, mass, com, inertia in (("crank", 0.5, 0.25, 0.333), ("coupler", 1.0, 0.60, 0.537),
                                     ("rocker", 0.75, 0.375, 0.4)):
        m.add_body(name, mass, (com, 0, 0), np.eye(3) * inertia)

    def at(x):
        T = np.eye(4)
        T[0, 3] = x
        return T
    m.add_hinge(None, "crank", "pin", name="crank_joint", axis=axis)
    m.add_hinge("crank", "coupler", "pin", name="coupler_joint", axis=axis, T_parent_joint=at(0.5))
    m.add_hinge(None, "rocker", "pin", name="rocker_joint", axis=axis, T_parent_joint=at(1.10))
    m.add_node("coupler_end", "coupler", at(1.2))
    m.add_node("rocker_end", "rocker", at(0.75))
    m.add_loop_constraint("closure", "coupler_end", "rocker_end", "pin", axis=axis)
    return m


def closed_start(m):
    """(q, u) of ``four_bar()`` model ``m`` at the example's start: the loop closed near the
    crank at 1.67 rad (q [rad]), the crank turning at 2 rad/s and the other speeds those
    the loop then allows (u [rad/s])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop has redundant rows
        cks = m.constraint_kinematics()
        q = cks.solve_q(np.array([1.6707963267948966, -1.4591054166649482, 1.5397303602625536]))
        u = cks.solve_u(q, [2.0, 0.0, 0.0], frozen=["crank_joint"])
    return q, u


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-final", type=float, default=5.0)
    ap.add_argument("--plot", default=None, help="write a PNG plot here")
    args = ap.parse_args(argv)
    m = four_bar()
    q, u = closed_start(m)

    def separation(res):
        return np.array([np.abs(m.pose_error(x, "residual")).max() for x in res.q])

    free = mb.simulate(m, q, u, args.t_final, dt=1e-3, stabilization_gains=None)
    energy = np.array([m.kinetic_energy(x, v) + m.potential_energy(x) for x, v in zip(free.q, free.u)])
    print(f"no stabilization, {args.t_final:g} s at dt = 1e-3: energy drift {np.ptp(energy):.2e} J, "
          f"largest separation {separation(free).max():.2e} m")
    opened = q.copy()
    opened[0] = 1.7
    pulled = mb.simulate(m, opened, np.zeros(3), args.t_final, dt=1e-3)  # default Baumgarte gains
    sep = separation(pulled)
    after = f"{sep[pulled.t >= 1.0][0]:.2e} m after 1 s, " if pulled.t[-1] >= 1.0 else ""  # (shorter runs: none)
    print(f"opened by {sep[0]:.3g} m, default Baumgarte: {after}{sep[-1]:.2e} m at {pulled.t[-1]:g} s")
    made = figure(2, 1, figsize=(7, 5), sharex=True) if args.plot else None
    if made:
        fig, (a, b) = made
        a.plot(free.t, free.q[:, 0], label="crank, closed start")
        a.plot(pulled.t, pulled.q[:, 0], label="crank, opened start")
        a.set_ylabel("crank angle [rad]")
        a.legend()
        b.semilogy(pulled.t, np.maximum(sep, 1e-16))
        b.set_ylabel("separation [m]")
        b.set_xlabel("t [s]")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print("wrote", args.plot)
    return free, pulled


if __name__ == "__main__":
    main()
