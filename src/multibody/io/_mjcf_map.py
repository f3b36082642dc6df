"""``MjcfMap``: states of a model made by ``load_mjcf`` <-> those of its ``mujoco.MjModel``.

Hinge and slide joints carry the same numbers in both (q = qpos, u = qvel, tau = qfrc),
including joints merged into one hinge of several subhinges. Ball joints: our quaternion
is (x, y, z, w), MuJoCo's (w, x, y, z); both speeds are the angular velocity in the body
frame. Free joints (the layouts of ``multibody.interop.MujocoLayout``): ours q = [quaternion
(x, y, z, w); position], u = [w; v] in the body frame; MuJoCo's qpos = [position;
quaternion (w, x, y, z)], qvel = [v in world axes; w in the body frame]. So qvel = B u with B
a permutation and, per free joint, the body rotation R on the linear rows; B is orthogonal,
hence qfrc = B tau, tau = B^T qfrc and M_mj = B M B^T (``mj_fullM``).
"""
import numpy as np

from ._mjcf_build import BALL, FREE, quat_wxyz_to_matrix

_WXYZ_FROM_XYZW = [3, 0, 1, 2]
_XYZW_FROM_WXYZ = [1, 2, 3, 0]


def _vector(x, n, name):
    a = np.asarray(x, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    return a


class MjcfMap:
    """Map states between a Multibody ``m`` from ``load_mjcf`` and MuJoCo (``m.mjcf_map``).

    ``joints``: per MuJoCo joint (in MuJoCo's order) a tuple (name, mjtJoint type, our first
    q index, our first u index, qposadr, dofadr). ``nq``, ``nv``: MuJoCo's sizes.
    """

    def __init__(self, m, joints, nq, nv):
        self.m, self.joints, self.nq, self.nv = m, list(joints), int(nq), int(nv)

    # ------------------------------------------------------------------ configuration
    def q_to(self, q):
        """Our q (m.nq,) -> MuJoCo's qpos (nq,)."""
        q, out = _vector(q, self.m.nq, "q"), np.zeros(self.nq)
        for _, kind, iq, _, pq, _ in self.joints:
            if kind == FREE:
                out[pq:pq + 3], out[pq + 3:pq + 7] = q[iq + 4:iq + 7], q[iq:iq + 4][_WXYZ_FROM_XYZW]
            elif kind == BALL:
                out[pq:pq + 4] = q[iq:iq + 4][_WXYZ_FROM_XYZW]
            else:
                out[pq] = q[iq]
        return out

    def q_from(self, qpos):
        """MuJoCo's qpos (nq,) -> our q (m.nq,)."""
        qpos, out = _vector(qpos, self.nq, "qpos"), np.zeros(self.m.nq)
        for _, kind, iq, _, pq, _ in self.joints:
            if kind == FREE:
                out[iq:iq + 4], out[iq + 4:iq + 7] = qpos[pq + 3:pq + 7][_XYZW_FROM_WXYZ], qpos[pq:pq + 3]
            elif kind == BALL:
                out[iq:iq + 4] = qpos[pq:pq + 4][_XYZW_FROM_WXYZ]
            else:
                out[iq] = qpos[pq]
        return out

    def B(self, qpos):
        """The (nv, nu) matrix with qvel = B u at MuJoCo's configuration ``qpos``."""
        qpos, B = _vector(qpos, self.nq, "qpos"), np.zeros((self.nv, self.m.nu))
        for _, kind, _, iu, pq, pv in self.joints:
            if kind == FREE:
                B[pv:pv + 3, iu + 3:iu + 6] = quat_wxyz_to_matrix(qpos[pq + 3:pq + 7])
                B[pv + 3:pv + 6, iu:iu + 3] = np.eye(3)
            else:
                k = 3 if kind == BALL else 1
                B[pv:pv + k, iu:iu + k] = np.eye(k)
        return B

    # ------------------------------------------------------------------ speeds, forces, matrices
    def v_to(self, q, u):
        """Our u -> MuJoCo's qvel, at our q."""
        return self.B(self.q_to(q)) @ _vector(u, self.m.nu, "u")

    def v_from(self, qpos, qvel):
        """MuJoCo's qvel -> our u, at MuJoCo's qpos."""
        return self.B(qpos).T @ _vector(qvel, self.nv, "qvel")

    def _velocity_term(self, qpos, qvel):
        """qacc - B udot: per free joint (R w) x v_world on the linear rows."""
        c = np.zeros(self.nv)
        for _, kind, _, _, pq, pv in self.joints:
            if kind == FREE:
                R = quat_wxyz_to_matrix(qpos[pq + 3:pq + 7])
                c[pv:pv + 3] = np.cross(R @ qvel[pv + 3:pv + 6], qvel[pv:pv + 3])
        return c

    def a_to(self, q, u, udot):
        """Our udot -> MuJoCo's qacc, at our (q, u)."""
        qpos = self.q_to(q)
        qvel = self.v_to(q, u)
        return self.B(qpos) @ _vector(udot, self.m.nu, "udot") + self._velocity_term(qpos, qvel)

    def a_from(self, qpos, qvel, qacc):
        """MuJoCo's qacc -> our udot, at MuJoCo's (qpos, qvel)."""
        qvel = _vector(qvel, self.nv, "qvel")
        return self.B(qpos).T @ (_vector(qacc, self.nv, "qacc") - self._velocity_term(qpos, qvel))

    def tau_to(self, q, tau):
        """Our tau -> MuJoCo's qfrc (qfrc_applied, ...), at our q."""
        return self.B(self.q_to(q)) @ _vector(tau, self.m.nu, "tau")

    def tau_from(self, qpos, qfrc):
        """MuJoCo's qfrc (qfrc_bias, qfrc_inverse, ...) -> our tau, at MuJoCo's qpos."""
        return self.B(qpos).T @ _vector(qfrc, self.nv, "qfrc")

    def mass_matrix_to(self, q, M):
        """Our mass matrix (nu, nu) -> MuJoCo's full one (``mj_fullM``): B M B^T."""
        B = self.B(self.q_to(q))
        return B @ np.asarray(M, dtype=float) @ B.T

    def mass_matrix_from(self, qpos, M):
        """MuJoCo's full mass matrix (nv, nv) -> ours: B^T M B."""
        B = self.B(qpos)
        return B.T @ np.asarray(M, dtype=float) @ B
