"""radau against dopri5 on a stiff flexible pendulum (issue 23): a 1 m beam_modes beam, 3
clamped modes at 1.1, 7.0 and 19.6 kHz (EI = 2e6 N m^2, rho A = 0.5 kg/m), on a pin,
released horizontal, 1 s at rtol 1e-8, atol 1e-10; with 2 % modal damping (the modes decay,
radau's steps follow the swing) and without (the modes ring above the tolerance: every
method must follow them). Prints steps, rejected steps, wall time (best of 3; the
undamped runs once) and the ratios, both measured in this run.

    python bench/bench_radau.py
"""
import sys
from pathlib import Path

import numpy as np

import multibody as mb
from multibody.flex import beam_modes

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best_of  # noqa: E402


def beam_pendulum(damping_ratio):
    data = beam_modes(1.0, 2e6, 0.5, n_elements=40, n_modes=3, damping_ratio=damping_ratio)
    m = mb.Multibody("beam pendulum")
    beam = m.add_modal_body("beam", modal_data=data)
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return m


def main():
    for zeta in (0.02, 0.0):
        m = beam_pendulum(zeta)
        q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
        rows = {}
        for name in ("radau", "dopri5"):
            run = lambda: mb.simulate(m, q0, u0, 1.0, dt=1.0, integrator=name, rtol=1e-8, atol=1e-10)  # noqa: E731
            run() if zeta else None  # (compiled or loaded here)
            rows[name] = best_of(run, 3 if zeta else 1)
        (tr, rr), (td, rd) = rows["radau"], rows["dopri5"]
        print(f"modal damping {zeta:.0%}: radau {rr.n_steps} steps ({rr.n_rejected} rejected) {tr:.3f} s; "
              f"dopri5 {rd.n_steps} steps ({rd.n_rejected} rejected) {td:.3f} s; dopri5 / radau: "
              f"steps {rd.n_steps / rr.n_steps:.1f}x, wall {td / tr:.1f}x; theta(1) {rr.q[-1, 0]:.9f} vs "
              f"{rd.q[-1, 0]:.9f}")


if __name__ == "__main__":
    main()
