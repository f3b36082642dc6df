"""RK4 steps per second on a flexible pendulum (a beam from beam_modes on a pin, under
gravity): multibody.simulate (the compiled loop's flex variant) vs a Python loop of RK4
over m.forward_dynamics (the facade, which calls the same flex kernels), same model,
steps and states; the ratio is what to compare. Also the same for a longer chain of
flexible links.

Run: PYTHONPATH=src python bench/bench_flex_simulation.py [--steps N] [--modes N]
"""
import argparse
import os
import sys

import numpy as np

import multibody as mb
from multibody.flex import beam_modes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import best_of  # noqa: E402


def flexible_pendulum(n_modes, links=1):
    """``links`` beams (1 m, EI = 20 N m^2, rho A = 0.5 kg/m, ``n_modes`` cantilever modes
    each) in a chain of pins, each hanging from the tip node of the previous one."""
    data = beam_modes(1.0, 20.0, 0.5, n_elements=20, n_modes=n_modes)
    m = mb.Multibody()
    parent = None
    for k in range(links):
        beam = m.add_modal_body(f"beam{k}", modal_data=data, nodes={f"tip{k}": data.node_positions.shape[0] - 1})
        m.add_hinge(parent, beam, "pin", axis=(0, 1, 0))
        parent = f"tip{k}"
    return m


def python_rk4(m, q, u, dt, n):
    """Classic RK4 on q' = u (pins and modal coordinates), u' = m.forward_dynamics."""
    tau = np.zeros(m.nu)
    k = [np.empty(m.nu) for _ in range(4)]
    for _ in range(n):
        m.forward_dynamics(q, u, tau, out=k[0])
        u1 = u + 0.5 * dt * k[0]
        m.forward_dynamics(q + 0.5 * dt * u, u1, tau, out=k[1])
        u2 = u + 0.5 * dt * k[1]
        m.forward_dynamics(q + 0.5 * dt * u1, u2, tau, out=k[2])
        u3 = u + dt * k[2]
        m.forward_dynamics(q + dt * u2, u3, tau, out=k[3])
        q = q + dt / 6.0 * (u + 2.0 * u1 + 2.0 * u2 + u3)
        u = u + dt / 6.0 * (k[0] + 2.0 * k[1] + 2.0 * k[2] + k[3])
    return q, u


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--modes", type=int, default=3)
    args = ap.parse_args()
    dt = 1e-4
    for links in (1, 10):
        n = args.steps if links == 1 else args.steps // 10  # (a short run: the chain stays mildly bent)
        m = flexible_pendulum(args.modes, links)
        q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
        q0[0] = 0.3
        mb.simulate(m, q0, u0, 10 * dt, dt=dt, limits=False)  # compile / load the loop
        python_rk4(m, q0, u0, dt, 2)
        t_sim, r = best_of(lambda: mb.simulate(m, q0, u0, n * dt, dt=dt, limits=False, output_every=100 * dt))
        n_py = max(n // 10, 100)
        t_py, (q, u) = best_of(lambda: python_rk4(m, q0, u0, dt, n_py))
        # the same trajectory: the compiled loop's state after n_py steps equals the Python loop's
        s = mb.simulate(m, q0, u0, n_py * dt, dt=dt, limits=False, output_every=n_py * dt)
        agree = max(np.abs(s.q[-1] - q).max(), np.abs(s.u[-1] - u).max())
        us_sim, us_py = 1e6 * t_sim / n, 1e6 * t_py / n_py
        print(f"{links:2d} beam(s) x {args.modes} modes (nu = {m.nu:2d}): simulate {us_sim:7.2f} us/step, "
              f"Python RK4 over m.forward_dynamics {us_py:7.2f} us/step: ratio {us_py / us_sim:5.1f}x "
              f"(same states to {agree:.1e})")


if __name__ == "__main__":
    main()
