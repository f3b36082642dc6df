"""Results do not depend on where a model sits in the world (issue 18).

A free-floating UR5 or Talos 7e6 m from the world origin (an orbit's radius) or 1.5e11 m
(1 AU), and a fixed-base double pendulum whose root joint is 1e8 m away, must have the
mass matrix, its inverse, the forward dynamics, the operational-space compliance, body
Jacobians, velocities and accelerations that they have at the origin, to 1e-9 relative.
Before the kernels worked about each tree's root (W_PR), M was off by 1.3e-2 (UR5, 7e6 m)
and 7e6 (Talos, 1 AU), the compliance by 1.2e-2 and 6e66, the pendulum's M by 26 %.
"""
import numpy as np
import pytest

import multibody as mb

from robots import robot_urdf, robots_dir

TOL = 1e-9
FAR = (7e6, 1.5e11)


def rel(a, b):
    return float(np.abs(np.asarray(a) - b).max() / max(1.0, np.abs(b).max()))


def quantities(m, q, u, udot, tau, frames):
    out = {"mass matrix": m.mass_matrix(q), "inverse mass matrix": m.inverse_mass_matrix(q),
           "forward dynamics": m.forward_dynamics(q, u, tau), "inverse dynamics": m.inverse_dynamics(q, u, udot),
           "compliance": m.operational_space_compliance(q, frames)}
    for f in frames:
        out[f"Jacobian of {f}"] = m.body_jacobian(q, f)
        out[f"world-aligned Jacobian of {f}"] = m.body_jacobian(q, f, frame="world_aligned")
        out[f"velocity of {f}"] = m.body_velocity(q, u, f)
        out[f"acceleration of {f}"] = m.body_acceleration(q, u, udot, f)
    return out


@pytest.mark.skipif(robots_dir() is None, reason="example-robot-data is not installed")
@pytest.mark.parametrize("name", ["ur5", "talos"])
@pytest.mark.parametrize("floating", [True, "quaternion"], ids=["rotation_vector", "quaternion"])
def test_free_floating_robots_far_from_the_origin(name, floating):
    m = mb.load_urdf(robot_urdf(name), floating_base=floating)
    rng = np.random.default_rng(7)
    q = m.random_q(rng, scale=1.0)
    u, udot, tau = rng.normal(size=(3, m.nu))
    qs = m.q_slice("root_joint")
    position = slice(qs.stop - 3, qs.stop)  # [rotation; position]
    q[position] = (0.4, -0.3, 0.8)
    frames = [m.body_names[-1], m.body_names[len(m.body_names) // 2]]
    near = quantities(m, q, u, udot, tau, frames)
    for x in FAR:
        q_far = q.copy()
        q_far[position] += (x, -0.5 * x, 0.25 * x)
        for what, value in quantities(m, q_far, u, udot, tau, frames).items():
            assert rel(value, near[what]) < TOL, f"{name} at {x:.1e} m: {what} off by {rel(value, near[what]):.1e}"


def double_pendulum(offset):
    """Two pin links (unequal, off-axis inertias) whose root joint sits at ``offset``."""
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    T = np.eye(4)
    T[:3, 3] = offset
    for name, parent, axis in (("upper", None, (0, 1, 0)), ("lower", "upper", (0.6, 0.0, 0.8))):
        m.add_body(name, mass=1.3, com=(0.02, 0.01, -0.4), inertia=(0.05, 0.001, 0.002, 0.04, 0.003, 0.01))
        m.add_hinge(parent, name, "pin", axis=axis, T_parent_joint=T)
        T = np.eye(4)
        T[2, 3] = -0.8
    return m


def test_a_double_pendulum_whose_root_is_1e8_m_away():
    rng = np.random.default_rng(8)
    q, u, udot, tau = rng.normal(size=(4, 2))
    near = quantities(double_pendulum((0.0, 0.0, 0.0)), q, u, udot, tau, ["upper", "lower"])
    far = quantities(double_pendulum((1e8, -2e7, 3e7)), q, u, udot, tau, ["upper", "lower"])
    for what, value in far.items():
        assert rel(value, near[what]) < TOL, f"{what} off by {rel(value, near[what]):.1e}"
