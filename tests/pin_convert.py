"""Test helper: build the Pinocchio model of a multibody Multibody, and map states.

Pinocchio is an independent peer: its joints are [linear; angular] in v, free
flyers store q = [position; quaternion]; ours are [angular; linear] with
q = [rotation; position]. The permutations live here, in the tests.
"""
import numpy as np
import pinocchio as pin
from scipy.spatial.transform import Rotation

from multibody.kernels import layout as L


def _se3(T):
    return pin.SE3(np.array(T[:3, :3]), np.array(T[:3, 3]))


def to_pinocchio(m):
    """Pinocchio Model with one joint per link of ``m`` (same tree, same inertias)."""
    c = m.compiled
    model = pin.Model()
    model.gravity.linear = np.array(m.gravity)
    ids = []
    for j, s in enumerate(c.link_subhinges):
        parent = 0 if c.mi[j, L.PARENT] < 0 else ids[c.mi[j, L.PARENT]]
        T = np.eye(4)
        T[:3, :3] = c.mf[j, L.R_TREE:L.R_TREE + 9].reshape(3, 3)
        T[:3, 3] = c.mf[j, L.P_TREE:L.P_TREE + 3]
        k = s.kind
        axis = c.mf[j, L.AXIS:L.AXIS + 3]  # in the compiled link frame
        if k == "pin":
            jm = pin.JointModelRevoluteUnaligned(*axis)
        elif k == "slider":
            jm = pin.JointModelPrismaticUnaligned(*axis)
        elif k == "screw":
            jm = pin.JointModelHelicalUnaligned(np.array(axis), s.pitch)
        elif k in ("spherical", "spherical_quat"):
            jm = pin.JointModelSpherical()
        elif k in ("free", "free_quat"):
            jm = pin.JointModelFreeFlyer()
        elif k == "translational":
            jm = pin.JointModelTranslation()
        else:
            raise ValueError(k)
        jid = model.addJoint(parent, jm, _se3(T), f"j{j}")
        I6 = c.mf[j, L.INERTIA:L.INERTIA + 36].reshape(6, 6)
        mass = I6[5, 5]
        if mass > 0:
            mc = np.array([I6[4, 2], I6[5, 0], I6[3, 1]])
            com = mc / mass
            C = np.array([[0, -com[2], com[1]], [com[2], 0, -com[0]], [-com[1], com[0], 0]])
            Ic = I6[:3, :3] + mass * C @ C
            model.appendBodyToJoint(jid, pin.Inertia(mass, com, Ic), pin.SE3.Identity())
        ids.append(jid)
    armature = np.zeros(model.nv)  # our per-speed armature, in Pinocchio's v order
    armature[u_perm(m)] = np.concatenate([h.armature for h in m.hinges] or [np.zeros(0)])
    model.armature = armature
    return model


def _chart_rotation(c, j, v):
    x, y, z, w = c.thread_data().chart_offsets[j]
    return Rotation.from_quat([x, y, z, w]) * Rotation.from_rotvec(v)


def q_to_pin(m, q):
    """Our q -> Pinocchio q for the model of ``to_pinocchio``."""
    c = m.compiled
    out = []
    for j, s in enumerate(c.link_subhinges):
        i = c.mi[j, L.QOFF]
        k = s.kind
        if k == "spherical":
            out.append(_chart_rotation(c, j, q[i:i + 3]).as_quat())
        elif k == "free":
            out += [q[i + 3:i + 6], _chart_rotation(c, j, q[i:i + 3]).as_quat()]
        elif k == "spherical_quat":
            out.append(q[i:i + 4] / np.linalg.norm(q[i:i + 4]))
        elif k == "free_quat":
            out += [q[i + 4:i + 7], q[i:i + 4] / np.linalg.norm(q[i:i + 4])]
        else:
            out.append(q[i:i + s.nq])
    return np.concatenate(out)


def u_perm(m):
    """Index array P with u_pin = u[P] (free joints: [v; w] <- [w; v])."""
    c = m.compiled
    P = np.arange(c.nu)
    for j, s in enumerate(c.link_subhinges):
        if s.kind in ("free", "free_quat"):
            k = c.mi[j, L.UOFF]
            P[k:k + 6] = np.r_[k + 3:k + 6, k:k + 3]
    return P


def spatial_perm():
    """Index array for [angular; linear] <-> [linear; angular] of a 6-vector."""
    return np.r_[3:6, 0:3]


def point_constraints(m, model):
    """Our enabled ball and pin loops of Multibody m as Pinocchio CONTACT_3D constraints on the
    Pinocchio ``model`` built by ``to_pinocchio(m)`` (a pin loop: its origin and a point on
    its axis), as a StdVec_RigidConstraintModel."""
    c = m.compiled
    out = []
    for con in m.enabled_constraints:
        assert con.kind in ("spherical", "pin")
        offsets = [np.zeros(3)]
        if con.kind == "pin":
            offsets.append(0.1 * np.asarray(con.axis) / np.linalg.norm(con.axis))
        for off in offsets:
            ends = []
            for node in (con.node_a, con.node_b):
                link, T = c.frames[node.name]
                ends += [link + 1, pin.SE3(T[:3, :3].copy(), T[:3, 3] + T[:3, :3] @ off)]
            out.append(pin.RigidConstraintModel(pin.ContactType.CONTACT_3D, model, *ends, pin.ReferenceFrame.LOCAL))
    return pin.StdVec_RigidConstraintModel(out)
