"""The README's quick start, runnable: core dynamics on UR5 and a hand-built model.

Needs example-robot-data for the URDF (pip install example-robot-data).
"""
import sys
from pathlib import Path

import numpy as np

import multibody as mb

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from robots import robot_urdf  # noqa: E402  (finds example-robot-data's files)

m = mb.load_urdf(robot_urdf("ur5"))
print(m.nq, m.nu, m.hinge_names)
q = m.neutral_q()
u = np.zeros(m.nu)
tau = np.zeros(m.nu)
udot = m.forward_dynamics(q, u, tau)
tau = m.inverse_dynamics(q, u, udot)
M = m.mass_matrix(q)
T = m.body_pose(q, "tool0")
J = m.body_jacobian(q, "tool0")
G = m.pose_gradient(q, "tool0")
print("KE, PE, com:", m.kinetic_energy(q, u), m.potential_energy(q), m.center_of_mass(q))
print("udot with a 10 N downward force at the tool:",
      m.forward_dynamics(q, u, tau, f_ext={"tool0": [0, 0, 0, 0, 0, -10.0]}))

m2 = mb.Multibody("arm")
base = m2.add_body("base", mass=2.0, com=(0, 0, 0.1), inertia=np.diag([0.02, 0.02, 0.01]))
m2.add_hinge(None, base, "pin", axis=(0, 0, 1))
ball = m2.add_body("ball", mass=1.0, com=(0, 0, -0.3), inertia=np.eye(3) * 0.01)
T = np.eye(4)
T[2, 3] = 0.2
m2.add_hinge(base, ball, "spherical", T_parent_joint=T)
m2.add_node("tip", ball, T_body_node=np.eye(4))
m2.add_serial_chain("link", 100)
print(m2.nq, m2.nu)

q0, u0 = m.neutral_q(), np.zeros(m.nu)
res = mb.simulate(m, q0, u0, t_final=0.5, dt=1e-3)
res = mb.simulate(m, q0, u0, 0.5, dt=0.01, integrator="dopri5", rtol=1e-10, atol=1e-12)


def control(t, q, u, tau):
    tau[:] = -10.0 * q[:m.nu] - 1.0 * u


res = mb.simulate(m, q0, u0, 0.5, control=control)
print(res.t.shape, res.q.shape, res.u.shape)
