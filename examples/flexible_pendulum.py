"""A flexible pendulum: a beam from ``multibody.flex.beam_modes`` on a pin, under gravity.

A 1 m aluminium-like strip (EI = 20 N m^2, rho A = 0.5 kg/m; its first three cantilever
modes) is clamped at its root in a pin about the y axis. Released horizontal and at rest,
it falls, swings through the bottom and back; the modes are excited by gravity and by
the swing. The run uses dopri5 with tight tolerances, so the total energy (kinetic +
gravity + strain, no damping) is conserved to the integrator's error: the printed drift
shows it. The tip deflection is the tip node's displacement across the beam in the
beam's own frame (Pi_t eta).

    python examples/flexible_pendulum.py                      # 3 s, plot if matplotlib is there
    python examples/flexible_pendulum.py --t-final 0.5 --plot tip.png
    python examples/flexible_pendulum.py --damping 0.02       # 2 % modal damping: the ringing decays
"""
import argparse
import time

import numpy as np

import multibody as mb
from multibody.algorithms.energy import strain_energy
from multibody.flex import beam_modes
from multibody.plotting import figure


def flexible_pendulum(EI=20.0, rhoA=0.5, length=1.0, n_modes=3, damping_ratio=0.0):
    """(model, modal data): the beam on a pin ``pivot`` about y, along x, bending along z
    (in the plane of the swing); its tip node is ``tip``."""
    data = beam_modes(length, EI, rhoA, n_elements=40, n_modes=n_modes, damping_ratio=damping_ratio)
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": data.node_positions.shape[0] - 1})
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return m, data


def tip_deflection(m, data, Q):
    """Deflection [m] of the tip across the beam (along the beam frame's z) at samples Q (N, nq)."""
    eta = Q[:, m.modal_slice("beam")]
    return eta @ data.mode_shapes[-1][5]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-final", type=float, default=3.0, help="simulated time [s]")
    ap.add_argument("--damping", type=float, default=0.0, help="modal damping ratio")
    ap.add_argument("--plot", default="flexible_pendulum.png",
                    help="figure of the tip deflection and the swing (needs matplotlib; '' for none)")
    args = ap.parse_args(argv)

    m, data = flexible_pendulum(damping_ratio=args.damping)
    print(f"beam: {data.n_modes} modes, {', '.join(f'{w / (2 * np.pi):.1f}' for w in data.frequencies)} Hz "
          f"(clamped); mass {data.mass:.2f} kg")
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)  # horizontal, at rest, undeformed
    wall = time.perf_counter()
    res = mb.simulate(m, q0, u0, args.t_final, dt=1e-3, integrator="dopri5", rtol=1e-10, atol=1e-12)
    wall = time.perf_counter() - wall
    ke, pe = res.energy(m)  # pe: gravity (deformed centre of mass) + strain energy
    E = ke + pe
    w = tip_deflection(m, data, res.q)
    strain = strain_energy(m, res.q)
    print(f"{len(res)} samples, {res.n_steps} steps in {wall:.2f} s (first run includes compiling)")
    print(f"swing: {np.degrees(res.q[:, 0].min()):.1f} .. {np.degrees(res.q[:, 0].max()):.1f} deg")
    print(f"tip deflection: {1e3 * w.min():.2f} .. {1e3 * w.max():.2f} mm; strain energy up to {strain.max():.4f} J")
    print(f"total energy {E[0]:.6f} J, drift {np.abs(E - E[0]).max():.2e} J "
          f"({'damped: ' + format(E[-1] - E[0], '.3e') + ' J lost' if args.damping else 'no damping'})")
    made = figure(2, 1, sharex=True, figsize=(7, 5)) if args.plot else None
    if made:
        fig, ax = made
        ax[0].plot(res.t, np.degrees(res.q[:, 0]))
        ax[0].set_ylabel("pin angle [deg]")
        ax[1].plot(res.t, 1e3 * w)
        ax[1].set_ylabel("tip deflection [mm]")
        ax[1].set_xlabel("t [s]")
        ax[0].set_title("flexible pendulum: beam_modes beam on a pin, released horizontal")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")
    return res


if __name__ == "__main__":
    main()
