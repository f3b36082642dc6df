"""Torque-free tumbling of a rigid body (the intermediate-axis 'Dzhanibekov' flip),
integrated with the Munthe-Kaas Lie-group RK4 on a quaternion free joint."""
import numpy as np

import multibody as mb
from multibody.simulation import simulate

m = mb.Multibody(gravity=(0, 0, 0))
body = m.add_body("t_handle", mass=1.0, inertia=np.diag([1.0, 2.0, 3.0]))
m.add_hinge(None, body, kind="free_quat")
q0 = np.array([0, 0, 0, 1.0, 0, 0, 0])            # identity quaternion (x, y, z, w), origin
u0 = np.array([0.01, 2.0, 0.01, 0, 0, 0])          # spin about the intermediate axis
res = simulate(m, q0, u0, t_final=20.0, dt=1e-3, integrator="munthe_kaas")
print(res)
print("max | |quat| - 1 |:", np.max(np.abs(np.linalg.norm(res.q[:, :4], axis=1) - 1)))
flips = np.count_nonzero(np.diff(np.sign(res.u[:, 1])))
print("sign changes of the intermediate-axis rate:", flips)
