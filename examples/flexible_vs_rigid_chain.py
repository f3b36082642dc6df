"""A flexible pendulum against chains of rigid segments with torsional springs (issue 9).

The flexible pendulum is one modal body: a uniform beam (length L, bending stiffness EI,
mass per length rho A) on a pin about y at its root, its modes the cantilever modes of
``multibody.flex.beam_modes`` clamped at the hinge frame (bending in the plane of the
swing). The chain cuts the same beam into N rigid uniform segments of length h = L / N
joined by pins with torsional springs k = EI / h (``JointSpringDamper``; the root pin has
none). Both are released horizontal, at rest and undeformed, under gravity, and we compare
the tip positions over the first part of the swing.

Why they converge, and only so far. The chain is the exact, fully nonlinear motion of a
discretised inextensible beam: each spring lumps the bending of one segment at a joint,
so the tip's elastic rotation is a quadrature of the curvature (the trapezoid rule at the
joints; the root pin carries no moment), and its error vanishes as h -> 0. The modal
model makes two approximations of its own that do not depend on N: (1) truncation: the
deformation lives in the span of n cantilever modes (themselves from a finite-element
beam), and (2) small deformation: the nodes move linearly with the modal coordinates eta
and the mass matrix M(eta) is kept to second order in eta (the modal integrals M1, M2,
with the foreshortening that makes gravity's axial load and the swing's centrifugal force
stiffen the beam). So |chain_N - modal| falls with N only down to |chain_infinity -
modal|, the modal model's own error, and then flattens. The linear modal model
(``integrals=False``: constant M, no geometric stiffening) flattens much earlier, at a
relative error of order rho A g L^3 / EI. The beam here is stiff (EI = 2000 N m^2 for a
1 m, 1 kg/m beam: rho A g L^3 / EI = 4.9e-3, tip deflection about 0.12 mm) and has 12
modes, so that over N = 4 .. 32 the difference is the chain's discretisation and the
floor lies below it. Measured over 0.25 s (the tip moves 0.44 m):

    N                          4        8        16       32       64
    max |tip_N - tip_modal|    4.0e-6   5.5e-7   7.5e-8   1.3e-8   1.1e-8 m
    / max tip deflection       3.3e-2   4.5e-3   6.2e-4   1.1e-4   8.9e-5
    max |tip_N - tip_N/2|               4.0e-6   5.5e-7   7.1e-8   9.0e-9 m

The difference falls 7.3x, 7.2x, 5.8x per halving of h (between second and third order)
until N = 32; at N = 64 it meets the floor, about 1e-8 m (1e-4 of the deflection), while
the chain itself still converges (its own change from 32 to 64 segments is 9e-9 m). The
floor is the size of second-order effects, deflection^2 / L = 1.5e-8 m, and did not move
with 16 modes and 200 elements (``--modes 16 --elements 200``: 1.1e-8 m at N = 32, 1.0e-8 m
at N = 64); the tip's pull-in by the foreshortening, which the node's linear mode shapes
leave out (up to 1.0e-8 m here), accounts for only 1e-9 m of it. The linear modal model's
floor is 1.4e-7 m, reached between N = 8 and 16.

Numerics: dopri5 in ``mb.simulate`` for both, rtol 1e-8, atol 1e-10 (tightened to 1e-11 /
1e-12, the tips move by less than 5e-13 m: measured on the 8-mode model and the N = 16
chain), the modal model's step bounded by 0.5 / omega_max of its modes: a larger trial step
can throw eta where the second-order M(eta) is no longer positive definite, and the run
stops on the singular pivot instead of rejecting the step.

    python examples/flexible_vs_rigid_chain.py                 # N = 4 .. 64, plot if matplotlib is there
    python examples/flexible_vs_rigid_chain.py --n-max 16 --t-final 0.1 --plot ''   # quick
"""
import argparse
import time

import numpy as np

import multibody as mb
from multibody.flex import beam_modes
from multibody.plotting import figure
from multibody.simulation.forces import JointSpringDamper

LENGTH, RHOA, EI = 1.0, 1.0, 2000.0  # [m], [kg/m], [N m^2]


def modal_pendulum(n_modes=12, EI=EI, rhoA=RHOA, length=LENGTH, n_elements=100, integrals=True):
    """(model, modal data): the beam on a pin about y, along x, bending along z; tip node ``tip``."""
    data = beam_modes(length, EI, rhoA, n_elements=n_elements, n_modes=n_modes, integrals=integrals)
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": data.n_nodes - 1})
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return m, data


def segment_chain(n, EI=EI, rhoA=RHOA, length=LENGTH):
    """(model, force models): n uniform rigid segments on pins about y, springs k = EI / h
    at the n - 1 inner joints; node ``tip`` at the end of the last segment."""
    h = length / n
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    i = rhoA * h ** 3 / 12.0  # a uniform rod about its centre (the beam's mass, cut into pieces)
    m.add_serial_chain("seg", n, axis=(0.0, 1.0, 0.0), mass=rhoA * h, length=h, inertia=np.diag([0.0, i, i]))
    T = np.eye(4)
    T[0, 3] = h
    m.add_node("tip", f"seg{n - 1}", T)
    return m, [JointSpringDamper(f"seg{k}_hinge", EI / h) for k in range(1, n)]


def tip_positions(m, Q):
    """World position (len(Q), 3) of node ``tip`` at the configurations Q."""
    return np.array([m.frame_pose(q, "tip")[:3, 3] for q in Q])


def run_modal(t_final, n_samples=201, **kw):
    """(tip positions (n_samples, 3), tip deflection across the beam (n_samples,)) of the modal pendulum."""
    m, data = modal_pendulum(**kw)
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), t_final, dt=t_final / (n_samples - 1),
                      integrator="dopri5", rtol=1e-8, atol=1e-10, h_max=0.5 / data.frequencies.max())
    w = res.q[:, m.modal_slice("beam")] @ data.mode_shapes[-1][5]
    return tip_positions(m, res.q), w


def run_chain(n, t_final, n_samples=201, **kw):
    """Tip positions (n_samples, 3) of the n-segment chain."""
    m, forces = segment_chain(n, **kw)
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), t_final, dt=t_final / (n_samples - 1),
                      integrator="dopri5", rtol=1e-8, atol=1e-10, forces=forces)
    return tip_positions(m, res.q)


def max_distance(a, b):
    """max over the samples of |a - b| [m] (a, b: (n_samples, 3) positions)."""
    return float(np.linalg.norm(a - b, axis=1).max())


def convergence(ns, t_final, n_modes=12, n_samples=201, n_elements=100):
    """dict: ``modal`` (tips), ``deflection`` (max |tip deflection|), ``chains`` {N: tips},
    ``error`` {N: max |chain_N - modal|}."""
    tips, w = run_modal(t_final, n_samples, n_modes=n_modes, n_elements=n_elements)
    chains = {n: run_chain(n, t_final, n_samples) for n in ns}
    return dict(modal=tips, deflection=float(np.abs(w).max()), chains=chains,
                error={n: max_distance(c, tips) for n, c in chains.items()})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-final", type=float, default=0.25, help="simulated time [s]")
    ap.add_argument("--n-max", type=int, default=64, help="finest chain (N = 4, 8, ... up to this)")
    ap.add_argument("--modes", type=int, default=12, help="modes of the flexible pendulum")
    ap.add_argument("--elements", type=int, default=100, help="finite elements of beam_modes")
    ap.add_argument("--plot", default="flexible_vs_rigid_chain.png", help="figure (needs matplotlib; '' for none)")
    args = ap.parse_args(argv)
    ns = [n for n in (4, 8, 16, 32, 64, 128, 256) if n <= args.n_max]
    wall = time.perf_counter()
    out = convergence(ns, args.t_final, args.modes, n_elements=args.elements)
    d = out["deflection"]
    swing = np.ptp(out["modal"], axis=0).max()
    print(f"beam: L = {LENGTH} m, rho A = {RHOA} kg/m, EI = {EI} N m^2, rho A g L^3 / EI = "
          f"{RHOA * 9.81 * LENGTH ** 3 / EI:.2e}; {args.modes} cantilever modes; released horizontal, "
          f"{args.t_final} s")
    print(f"tip: moves {swing:.3f} m, deflects up to {d * 1e3:.4f} mm across the beam (modal model)")
    print(f"{'N':>4} {'max|tip_N - tip_modal| [m]':>28} {'/ max deflection':>17} {'ratio':>7} "
          f"{'max|tip_N - tip_N/2| [m]':>26}")
    prev = None
    for n in ns:
        e = out["error"][n]
        self_diff = max_distance(out["chains"][n], out["chains"][n // 2]) if n // 2 in out["chains"] else np.nan
        ratio = prev / e if prev else np.nan
        print(f"{n:4d} {e:28.3e} {e / d:17.2e} {ratio:7.2f} {self_diff:26.3e}")
        prev = e
    # the floor: the modal model's own error, N-independent
    finest = out["chains"][ns[-1]]
    fewer, _ = run_modal(args.t_final, n_modes=max(2, (2 * args.modes) // 3), n_elements=args.elements)
    linear, _ = run_modal(args.t_final, n_modes=args.modes, integrals=False, n_elements=args.elements)
    print(f"modal model's own error (the floor), estimates: {args.modes} vs {max(2, (2 * args.modes) // 3)} modes "
          f"{max_distance(fewer, out['modal']):.2e} m; the linear modal model (integrals=False) vs the "
          f"N = {ns[-1]} chain {max_distance(linear, finest):.2e} m "
          f"(vs {out['error'][ns[-1]]:.2e} m with the integrals)")
    print(f"wall time {time.perf_counter() - wall:.0f} s (first run includes compiling)")
    made = figure(1, 2, figsize=(11, 4.2)) if args.plot else None
    if made:
        fig, ax = made
        t = np.linspace(0.0, args.t_final, len(out["modal"]))
        for n in ns:
            ax[0].semilogy(t[1:], np.linalg.norm(out["chains"][n] - out["modal"], axis=1)[1:], label=f"N = {n}")
        ax[0].set_xlabel("t [s]")
        ax[0].set_ylabel("|tip(chain N) - tip(modal)| [m]")
        ax[0].legend(fontsize=8)
        ax[0].set_title("tip distance over time")
        err = np.array([out["error"][n] for n in ns])
        ax[1].loglog(ns, err, "o-", label="max |tip(chain N) - tip(modal)|")
        for p, style in ((2, "k:"), (3, "k-.")):
            ax[1].loglog(ns, err[0] * (ns[0] / np.array(ns, float)) ** p, style, lw=0.8, label=f"slope -{p}")
        ax[1].axhline(max_distance(linear, finest), color="C3", ls="--", label="linear modal model (no integrals)")
        ax[1].axhline(max_distance(fewer, out["modal"]), color="C2", ls="--",
                      label=f"{args.modes} vs {max(2, (2 * args.modes) // 3)} modes")
        ax[1].set_xticks(ns, [str(n) for n in ns])
        ax[1].minorticks_off()
        ax[1].set_xlabel("segments N")
        ax[1].set_ylabel("[m]")
        ax[1].legend(fontsize=8)
        ax[1].set_title(f"convergence (max tip deflection {d * 1e3:.3f} mm)")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")
    return out


if __name__ == "__main__":
    main()
