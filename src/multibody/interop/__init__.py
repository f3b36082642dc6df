"""Interop: our states and results <-> Pinocchio's and MuJoCo's, for a model loaded from
the same file (joints matched by name; the peers' coordinate order may differ).

* ``PinocchioLayout(m, pin_model)``: q, v, a, tau, mass matrix, LOCAL frame Jacobian.
* ``MujocoLayout(m, mj_model)``: qpos, qvel, qacc, qfrc, full mass matrix.
* ``mujoco_from_urdf(path, collisions=m)``: a MuJoCo model of a URDF whose rigid-body dynamics
  are ours (and, given ``collisions``, whose collision geometry is ``m``'s).

Both layouts have ``q_to(q)``, ``q_from(qp)``, ``v_to(q, u)``, ``v_from(qp, v)``,
``a_to(q, u, udot)``, ``a_from(qp, v, a)``, ``tau_to(q, tau)``, ``tau_from(qp, tau)``,
``mass_matrix_to(q, M)``, ``mass_matrix_from(qp, M)``: ``*_to`` takes our arrays (and our
q, u where the map depends on the state), ``*_from`` the peer's. The difference in one
line: our free hinge is q = [rotation; position], u = [w; v] (body frame), tau =
[moment; force]; Pinocchio's free flyer is q = [position; quaternion x, y, z, w], v = [v; w]
(body frame); MuJoCo's free joint is qpos = [position; quaternion w, x, y, z], qvel =
[v in world axes; w in the body frame]. Neither peer library is imported until used.
"""
from ._mujoco import MujocoLayout, mujoco_from_urdf
from ._pinocchio import PinocchioLayout

__all__ = ["MujocoLayout", "PinocchioLayout", "mujoco_from_urdf"]
