"""``MujocoLayout``: our (q, u, udot, tau, M) <-> MuJoCo's (qpos, qvel, qacc, qfrc, M) for a
model loaded from the same file, and ``mujoco_from_urdf``, the loader whose dynamics match."""
import numpy as np

from ._common import RotationMaps, inverse, match, matrix, rotation_matrix, speed_permutation, vector
from ._mujoco_geoms import add_collision_geoms

_MJ_KIND = {0: "free", 1: "ball", 2: "prismatic", 3: "revolute"}  # mjtJoint
_WXYZ, _XYZW = np.r_[3, 0:3], np.r_[1:4, 0]


def mujoco_from_urdf(path, floating_base=True, root_joint="root_joint", rigid_only=True, collisions=None,
                     actuators=None):
    """Load a URDF into a ``mujoco.MjModel`` whose rigid-body dynamics are ours.

    What is done, and why:

    * geometry is dropped (meshes and geoms): MuJoCo cannot resolve ``package://`` mesh
      paths, and with ``inertiafromgeom`` off (set here) no inertia comes from a geom:
      the URDF ``<inertial>`` elements are used as given (a link without one is massless);
    * fixed joints are merged (``fusestatic``, MuJoCo's URDF default): the joint names
      are kept, the merged links' body names are not;
    * ``floating_base``: a free joint named ``root_joint`` (as ``mb.load_urdf`` names its
      free hinge) is added to the root link;
    * ``rigid_only``: contacts, constraints (joint limits, friction loss), springs and
      dampers that MuJoCo reads from ``<limit>`` and ``<dynamics>`` are disabled, since
      our dynamics apply none of them;
    * ``collisions``: a Multibody loaded from the same file (with a floor added, say): its
      collision shapes and body exclusions become MuJoCo's geoms and ``<exclude>``s
      (``_mujoco_geoms``), and contacts stay on (``rigid_only`` then disables the joint
      limits, friction loss, springs and dampers only), so both collide the same geometry;
    * ``actuators``: our ``Actuator`` list (``m.actuators``) become MuJoCo's general
      actuators on the same joints, in the same order (``d.ctrl[k]`` drives ours k), with the
      same gear, fixed gain, affine bias (b0, b1, b2) and control and force ranges: the same
      compiled force law on both sides (a position servo: MuJoCo's ``<position>``).

    Gravity stays MuJoCo's default (0, 0, -9.81) m/s^2, as ours. Returns the MjModel.
    """
    import mujoco
    spec = mujoco.MjSpec.from_file(str(path))
    for g in list(spec.geoms):
        spec.delete(g)
    for mesh in list(spec.meshes):
        spec.delete(mesh)
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    if floating_base:
        spec.worldbody.first_body().add_freejoint().name = root_joint
    d = mujoco.mjtDisableBit
    if collisions is not None:
        add_collision_geoms(spec, collisions)
    for a in actuators or ():
        _add_actuator(spec, a, mujoco)
    if rigid_only:
        off = d.mjDSBL_CONTACT | d.mjDSBL_CONSTRAINT if collisions is None else d.mjDSBL_LIMIT | d.mjDSBL_FRICTIONLOSS
        spec.option.disableflags |= int(off | d.mjDSBL_SPRING | d.mjDSBL_DAMPER)
    return spec.compile()


def _add_actuator(spec, a, mujoco):
    """Our affine actuator ``a`` (``simulation.actuators.Actuator``) as a MuJoCo general
    actuator of ``spec`` on its hinge (a one-coordinate joint of the same name)."""
    if a.coordinate != 0:
        raise ValueError(f"actuator {a.name!r}: MuJoCo's joint transmission drives a joint's one coordinate; "
                         f"coordinate {a.coordinate} has none")
    act = spec.add_actuator()
    act.name = a.name
    act.target = a.hinge
    act.trntype = mujoco.mjtTrn.mjTRN_JOINT
    act.gear[0] = a.gear
    act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
    act.gainprm[0] = a.gain
    act.biastype = mujoco.mjtBias.mjBIAS_AFFINE
    act.biasprm[:3] = a.bias
    for limited, rng, what in (("ctrllimited", a.ctrl_range, "ctrlrange"),
                               ("forcelimited", a.force_range, "forcerange")):
        bounded = np.isfinite(rng).all()
        setattr(act, limited, mujoco.mjtLimited.mjLIMITED_TRUE if bounded else mujoco.mjtLimited.mjLIMITED_FALSE)
        if bounded:
            setattr(act, what, list(rng))
        elif np.isfinite(rng).any():
            raise ValueError(f"actuator {a.name!r}: MuJoCo's ranges are bounded on both sides or not at all, "
                             f"got {what[:-5]}_range {rng}")


class MujocoLayout:
    """Convert states and results between a Multibody ``m`` and a ``mujoco.MjModel``.

    Layouts (per joint, matched by name; the coordinate order may differ):

    * free hinge: ours q = [rotation (rotation vector, or quaternion x, y, z, w);
      position (3) in the world, m], u = [w; v] in the body frame (rad/s, m/s);
      MuJoCo's free joint qpos = [position (3); quaternion (w, x, y, z)], qvel =
      [v_world = R v; w] (linear velocity in WORLD axes, angular in the body frame).
      So qvel = B u with B = [[0, R], [I, 0]] (R the body's orientation), and, by power
      (tau . u = qfrc . qvel), qfrc = B^-T tau = B tau = [R f; n]: the force in world
      axes, the moment in the body frame. qacc = d/dt qvel = B udot + [R (w x v); 0]:
      the linear part is the classical acceleration of the body origin in world axes.
      Mass matrix: M_mj = B M B^T.
    * spherical hinge <-> ball joint: quaternion (w, x, y, z), w in the child frame.
    * pin <-> hinge (rad), slider <-> slide (m). Screw and translational hinges have no
      MuJoCo joint (ValueError).

    Rotation vectors go through the chart offsets of ``data`` (default: the calling
    thread's Data of ``m``). Quaternions are copied as given (qpos round trips bit for
    bit); R is made from the normalised quaternion. Maps that rotate by R (free-joint
    qvel, qacc, qfrc, M) round-trip to about 1e-16 relative.

    Raises ValueError (naming ``mj_model``) when the joint names differ from
    ``m.hinge_names`` or a hinge has no counterpart.
    """

    def __init__(self, m, mj_model, data=None):
        mm = mj_model
        nq_of, nv_of = {0: 7, 1: 4, 2: 1, 3: 1}, {0: 6, 1: 3, 2: 1, 3: 1}
        peer = [(mm.joint(i).name, _MJ_KIND.get(t), nq_of.get(t), nv_of.get(t), mm.jnt_qposadr[i], mm.jnt_dofadr[i])
                for i, t in enumerate(int(t) for t in mm.jnt_type)]
        self.m, self.nq, self.nv = m, int(mm.nq), int(mm.nv)
        if self.nv != m.nu:
            raise ValueError(f"mj_model: nv = {self.nv}, but m has nu = {m.nu}")
        self.joints = match(m, peer, "MuJoCo", "mj_model")
        self.P = speed_permutation(self.joints, m.nu)   # qvel = (u[P], then rotated)
        self.Pinv = inverse(self.P)
        self._rot = RotationMaps(m, data)
        self._free = [j for j in self.joints if j.peer_kind == "free"]
        pairs = [(j.q.start, j.pq) for j in self.joints if j.rot == 0]
        self._scalar_ours, self._scalar_mj = np.array(pairs, dtype=np.int64).reshape(-1, 2).T

    # ------------------------------------------------------------------ configuration
    def q_to(self, q):
        """Our q (m.nq,) -> MuJoCo's qpos (model.nq,)."""
        q = vector(q, self.m.nq, "q")
        out = np.zeros(self.nq)
        out[self._scalar_mj] = q[self._scalar_ours]
        offsets = self._rot.offsets()
        for j in self.joints:
            if j.rot:
                k = j.pq + 3 if j.peer_kind == "free" else j.pq
                out[k:k + 4] = self._rot.quat_of(j, q, offsets)[_WXYZ]
                if j.peer_kind == "free":
                    out[j.pq:j.pq + 3] = q[j.q.start + j.rot:j.q.stop]
        return out

    def q_from(self, qpos):
        """MuJoCo's qpos (model.nq,) -> our q (m.nq,)."""
        qpos = vector(qpos, self.nq, "qpos")
        out = np.zeros(self.m.nq)
        out[self._scalar_ours] = qpos[self._scalar_mj]
        offsets = self._rot.offsets()
        for j in self.joints:
            if j.rot:
                k = j.pq + 3 if j.peer_kind == "free" else j.pq
                out[j.q.start:j.q.start + j.rot] = self._rot.rot_of(j, qpos[k:k + 4][_XYZW], offsets)
                if j.peer_kind == "free":
                    out[j.q.start + j.rot:j.q.stop] = qpos[j.pq:j.pq + 3]
        return out

    def _rotations(self, q=None, qpos=None):
        """Body orientation R (3x3) of each free joint, from our q or from MuJoCo's qpos."""
        if qpos is not None:
            qpos = vector(qpos, self.nq, "qpos")
            return [rotation_matrix(qpos[j.pq + 3:j.pq + 7][_XYZW]) for j in self._free]
        q, offsets = vector(q, self.m.nq, "q"), self._rot.offsets()
        return [rotation_matrix(self._rot.quat_of(j, q, offsets)) for j in self._free]

    def _apply_B(self, x, Rs):
        """B x for x (nu, ...) of ours: permute, then rotate each free joint's linear rows."""
        y = x[self.P]
        for j, R in zip(self._free, Rs):
            y[j.pv:j.pv + 3] = np.tensordot(R, y[j.pv:j.pv + 3], axes=1)
        return y

    def _apply_B_inv(self, y, Rs):
        """B^-1 y for y (nv, ...) of MuJoCo's (B^-1 = B^T)."""
        y = y.copy()
        for j, R in zip(self._free, Rs):
            y[j.pv:j.pv + 3] = np.tensordot(R.T, y[j.pv:j.pv + 3], axes=1)
        return y[self.Pinv]

    # ------------------------------------------------------------------ speeds and duals
    def v_to(self, q, u):
        """Our u (m.nu,) -> MuJoCo's qvel (model.nv,) at our configuration q."""
        return self._apply_B(vector(u, self.m.nu, "u"), self._rotations(q=q))

    def v_from(self, qpos, qvel):
        """MuJoCo's qvel (model.nv,) -> our u (m.nu,) at MuJoCo's configuration qpos."""
        return self._apply_B_inv(vector(qvel, self.nv, "qvel"), self._rotations(qpos=qpos))

    def a_to(self, q, u, udot):
        """Our udot (m.nu,) -> MuJoCo's qacc (model.nv,) at (q, u)."""
        u = vector(u, self.m.nu, "u")
        Rs = self._rotations(q=q)
        out = self._apply_B(vector(udot, self.m.nu, "udot"), Rs)
        for j, R in zip(self._free, Rs):
            w, v = u[j.u.start:j.u.start + 3], u[j.u.start + 3:j.u.start + 6]
            out[j.pv:j.pv + 3] += R @ np.cross(w, v)
        return out

    def a_from(self, qpos, qvel, qacc):
        """MuJoCo's qacc (model.nv,) -> our udot (m.nu,) at (qpos, qvel)."""
        qvel = vector(qvel, self.nv, "qvel")
        Rs = self._rotations(qpos=qpos)
        x = vector(qacc, self.nv, "qacc").copy()
        for j, R in zip(self._free, Rs):
            w, v_world = qvel[j.pv + 3:j.pv + 6], qvel[j.pv:j.pv + 3]
            x[j.pv:j.pv + 3] -= np.cross(R @ w, v_world)  # R (w x v) = (R w) x (R v)
        return self._apply_B_inv(x, Rs)

    def tau_to(self, q, tau):
        """Our generalized forces tau (m.nu,) -> MuJoCo's qfrc (model.nv,) (e.g. qfrc_applied)."""
        return self._apply_B(vector(tau, self.m.nu, "tau"), self._rotations(q=q))

    def tau_from(self, qpos, qfrc):
        """MuJoCo's qfrc (model.nv,) (qfrc_bias, qfrc_inverse, ...) -> our tau (m.nu,)."""
        return self._apply_B_inv(vector(qfrc, self.nv, "qfrc"), self._rotations(qpos=qpos))

    # ------------------------------------------------------------------ matrices
    def mass_matrix_to(self, q, M):
        """Our mass matrix (nu, nu) -> MuJoCo's (``mj_fullM``): B M B^T."""
        Rs = self._rotations(q=q)
        BM = self._apply_B(matrix(M, (self.m.nu, self.m.nu), "M"), Rs)
        return self._apply_B(BM.T.copy(), Rs).T.copy()

    def mass_matrix_from(self, qpos, M):
        """MuJoCo's full mass matrix (nv, nv) -> ours: B^T M B."""
        Rs = self._rotations(qpos=qpos)
        BM = self._apply_B_inv(matrix(M, (self.nv, self.nv), "M"), Rs)
        return self._apply_B_inv(BM.T.copy(), Rs).T.copy()
