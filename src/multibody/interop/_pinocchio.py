"""``PinocchioLayout``: our (q, u, udot, tau, M, J) <-> Pinocchio's for a model loaded from
the same file (joints matched by name)."""
import numpy as np

from ._common import SWAP, RotationMaps, inverse, match, matrix, speed_permutation, vector


def _pin_kind(shortname):
    """Pinocchio joint class name -> peer kind (None: no counterpart here)."""
    s = shortname.replace("JointModel", "")
    if s == "FreeFlyer":
        return "free"
    if s == "Spherical":
        return "ball"
    if s.startswith("RUB") or s == "RevoluteUnboundedUnaligned":
        return "continuous"
    if s in ("RX", "RY", "RZ", "RevoluteUnaligned"):
        return "revolute"
    if s in ("PX", "PY", "PZ", "PrismaticUnaligned"):
        return "prismatic"
    if s in ("HX", "HY", "HZ", "HelicalUnaligned"):
        return "helical"
    if s == "Translation":
        return "translation"
    return None  # planar, SphericalZYX, universal, composite, mimic


class PinocchioLayout:
    """Convert states and results between a Multibody ``m`` and a ``pinocchio.Model``.

    Layouts (per joint, matched by name; the coordinate order may differ):

    * free hinge: ours q = [rotation (3: rotation vector, or 4: quaternion x, y, z, w);
      position (3) of the child frame in the parent, m], u = [w; v] (rad/s, m/s) in the
      child frame; Pinocchio's free flyer q = [position (3); quaternion (x, y, z, w)],
      v = [v; w] in the same (LOCAL) frame. Accelerations and forces permute like u:
      Pinocchio's ``a`` is the time derivative of its LOCAL ``v``, as our udot of u, so
      no acceleration term appears; tau = [moment (N m); force (N)] <-> [force; moment].
    * spherical hinge <-> JointModelSpherical (quaternion x, y, z, w; w in the child frame).
    * pin <-> revolute (angle, rad) or unbounded revolute (q = (cos, sin)); slider <->
      prismatic (m); screw <-> helical; translational <-> Translation.

    Rotation vectors go through the chart offsets of ``data`` (default: the calling
    thread's Data of ``m``), read at each call. Quaternions are copied as given (not
    normalised). Exact: every map is a permutation (bit for bit) except rotation vector
    <-> quaternion and angle <-> (cos, sin), which round-trip to about 1e-16 (an angle
    comes back in (-pi, pi]).

    Raises ValueError (naming ``pin_model``) when the joint names differ from
    ``m.hinge_names`` or a hinge has no counterpart (compound hinges, planar joints, ...).
    """

    def __init__(self, m, pin_model, data=None):
        pm = pin_model
        peer = [(pm.names[i], _pin_kind(pm.joints[i].shortname()), pm.joints[i].nq, pm.joints[i].nv,
                 pm.joints[i].idx_q, pm.joints[i].idx_v) for i in range(1, pm.njoints)]
        self.m, self.nq, self.nv = m, int(pm.nq), int(pm.nv)
        if self.nv != m.nu:
            raise ValueError(f"pin_model: nv = {self.nv}, but m has nu = {m.nu}")
        self.joints = match(m, peer, "Pinocchio", "pin_model")
        self.P = speed_permutation(self.joints, m.nu)   # v_pin = u[P]
        self.Pinv = inverse(self.P)                    # u = v_pin[Pinv]
        self._rot = RotationMaps(m, data)
        pairs = [(j.q.start + k, j.pq + k) for j in self.joints if j.rot == 0 and j.peer_kind != "continuous"
                 for k in range(j.q.stop - j.q.start)]  # copied coordinates: angles, offsets
        self._scalar_ours, self._scalar_pin = np.array(pairs, dtype=np.int64).reshape(-1, 2).T

    # ------------------------------------------------------------------ configuration
    def q_to(self, q):
        """Our q (m.nq,) -> Pinocchio's q (model.nq,)."""
        q = vector(q, self.m.nq, "q")
        out = np.zeros(self.nq)
        out[self._scalar_pin] = q[self._scalar_ours]
        offsets = self._rot.offsets()
        for j in self.joints:
            if j.peer_kind == "continuous":
                out[j.pq:j.pq + 2] = np.cos(q[j.q.start]), np.sin(q[j.q.start])
            elif j.peer_kind == "free":
                out[j.pq:j.pq + 3] = q[j.q.start + j.rot:j.q.stop]
                out[j.pq + 3:j.pq + 7] = self._rot.quat_of(j, q, offsets)
            elif j.peer_kind == "ball":
                out[j.pq:j.pq + 4] = self._rot.quat_of(j, q, offsets)
        return out

    def q_from(self, qp):
        """Pinocchio's q (model.nq,) -> our q (m.nq,)."""
        qp = vector(qp, self.nq, "qp")
        out = np.zeros(self.m.nq)
        out[self._scalar_ours] = qp[self._scalar_pin]
        offsets = self._rot.offsets()
        for j in self.joints:
            if j.peer_kind == "continuous":
                out[j.q.start] = np.arctan2(qp[j.pq + 1], qp[j.pq])
            elif j.peer_kind == "free":
                out[j.q.start + j.rot:j.q.stop] = qp[j.pq:j.pq + 3]
                out[j.q.start:j.q.start + j.rot] = self._rot.rot_of(j, qp[j.pq + 3:j.pq + 7], offsets)
            elif j.peer_kind == "ball":
                out[j.q.start:j.q.stop] = self._rot.rot_of(j, qp[j.pq:j.pq + 4], offsets)
        return out

    # ------------------------------------------------------------------ speeds and duals
    def v_to(self, q, u):
        """Our u (m.nu,) -> Pinocchio's v (model.nv,); q is not needed (kept for symmetry)."""
        return vector(u, self.m.nu, "u")[self.P]

    def v_from(self, qp, v):
        """Pinocchio's v (model.nv,) -> our u (m.nu,)."""
        return vector(v, self.nv, "v")[self.Pinv]

    def a_to(self, q, u, udot):
        """Our udot (m.nu,) -> Pinocchio's a (model.nv,) (a permutation, see the class)."""
        return vector(udot, self.m.nu, "udot")[self.P]

    def a_from(self, qp, v, a):
        """Pinocchio's a (model.nv,) -> our udot (m.nu,)."""
        return vector(a, self.nv, "a")[self.Pinv]

    def tau_to(self, q, tau):
        """Our generalized forces tau (m.nu,) -> Pinocchio's tau (model.nv,)."""
        return vector(tau, self.m.nu, "tau")[self.P]

    def tau_from(self, qp, tau):
        """Pinocchio's tau (model.nv,) -> our tau (m.nu,)."""
        return vector(tau, self.nv, "tau")[self.Pinv]

    # ------------------------------------------------------------------ matrices
    def mass_matrix_to(self, q, M):
        """Our mass matrix (nu, nu) -> Pinocchio's (``pin.crba``, symmetrised)."""
        M = matrix(M, (self.m.nu, self.m.nu), "M")
        return M[np.ix_(self.P, self.P)]

    def mass_matrix_from(self, qp, M):
        """Pinocchio's mass matrix (nv, nv), full (not only its upper triangle) -> ours."""
        M = matrix(M, (self.nv, self.nv), "M")
        return M[np.ix_(self.Pinv, self.Pinv)]

    def jacobian_to(self, q, J):
        """Our body Jacobian (6, nu): rows [w; v] in the body frame -> Pinocchio's
        ``getFrameJacobian(..., LOCAL)`` (6, nv): rows [v; w], columns of v."""
        J = matrix(J, (6, self.m.nu), "J")
        return J[np.ix_(SWAP, self.P)]

    def jacobian_from(self, qp, J):
        """Pinocchio's LOCAL frame Jacobian (6, nv) -> our body Jacobian (6, nu)."""
        J = matrix(J, (6, self.nv), "J")
        return J[np.ix_(SWAP, self.Pinv)]
