"""A flexible beam resting on two supports: its static sag against beam theory (issue 21).

A free-free beam from ``mb.flex.beam_modes`` (1 m, EI = 50 N m^2, 1 kg/m, modal damping
0.7), free in its bending plane (a massless carriage on a translational hinge, the beam on a
pin about y), has a sphere pinned to each end node (``m.add_collision(..., node=)``): the
spheres follow the nodes' deformation, and the floor's contact forces load the modes. It is
set down touching a frictionless floor (rollers, as the simply supported beam of the theory)
and settles under gravity; its midspan sag below its ends is compared with Euler-Bernoulli's
simply supported beam, delta = 5 w L^4 / (384 E I), and with its modal model's own static
sag (the same mode shapes, K^-1 of the gravity and the end reactions): the difference
between those two is the modal truncation, which shrinks as modes are added.

    python examples/beam_on_supports.py
"""
import time

import numpy as np

import multibody as mb
from multibody.flex import beam_modes

L, EI, RHOA, G, RADIUS = 1.0, 50.0, 1.0, 9.81, 0.01


def model(n_modes):
    """The beam with ``n_modes`` free-free modes on its carriage, two end spheres, a floor."""
    data = beam_modes(L, EI, RHOA, n_elements=20, n_modes=n_modes, boundary="free-free", nodes=[0.0, L / 2, L],
                      damping_ratio=0.7)
    m = mb.Multibody()
    beam = m.add_modal_body("beam", modal_data=data, nodes={"left": 0, "mid": 1, "right": 2})
    cart = m.add_body("carriage", mass=0.0, inertia=np.zeros((3, 3)))
    m.add_hinge(None, cart, "translational")
    m.add_hinge(cart, beam, "pin", axis=(0, 1, 0))
    for node in ("left", "right"):
        m.add_collision(beam, mb.Sphere(RADIUS), node=node, friction=0.0)
    m.add_collision(m.world, mb.Plane(), name="floor", friction=0.0)
    return m, data


def modal_static_sag(data):
    """The modal model's static sag: eta = K^-1 (S^T g + the end reactions through Pi_t)."""
    Pi = data.mode_shapes[:, 3:6]
    f = data.S.T @ np.array([0.0, 0.0, -G]) + (Pi[0].T + Pi[2].T) @ np.array([0.0, 0.0, RHOA * G * L / 2])
    z = Pi[:, 2] @ (f / data.stiffness)
    return 0.5 * (z[0] + z[2]) - z[1]


def main():
    theory = 5 * RHOA * G * L ** 4 / (384 * EI)
    print(f"Euler-Bernoulli, simply supported: delta = 5 w L^4 / (384 E I) = {theory * 1e3:.6f} mm")
    print(" modes  dt [s]   sag [mm]    sag/theory - 1  modal static/theory - 1  sag/modal - 1  force/weight - 1"
          "  run [s]")
    for n_modes in (4, 6, 8, 10):
        m, data = model(n_modes)
        q0 = np.zeros(m.nq)
        q0[2] = RADIUS  # touching the floor
        mb.simulate(m, q0, np.zeros(m.nu), 1e-3, dt=1e-4, progress=False)  # (compiles on a first run)
        t0 = time.perf_counter()
        res = mb.simulate(m, q0, np.zeros(m.nu), 1.0, dt=1e-4, save_every=1000, contact_output=True,
                          progress=False)
        took = time.perf_counter() - t0
        q = res.q[-1]
        z = [m.frame_pose(q, node)[2, 3] for node in ("left", "mid", "right")]
        sag = 0.5 * (z[0] + z[2]) - z[1]
        modal = modal_static_sag(data)
        force = -res.contacts.total_force()[-1, 2]  # (the force on the floor is -weight)
        print(f"{n_modes:6d}  {1e-4:.0e}  {sag * 1e3:.6f}  {sag / theory - 1:+15.2e}  {modal / theory - 1:+23.2e}"
              f"  {sag / modal - 1:+13.1e}  {force / (RHOA * L * G) - 1:+16.1e}  {took:7.2f}")


if __name__ == "__main__":
    main()
