"""What the Pinocchio and MuJoCo layouts share: joints matched by name, argument checks,
the free hinge's rotation, and the permutation of speeds.

A matched joint (``Joint``) pairs one hinge of ours (one subhinge, its q and u slices)
with one joint of the peer (its first q and v index). ``peer_kind`` is one of
``free``, ``ball``, ``revolute``, ``continuous``, ``prismatic``, ``helical``,
``translation``; ours must be the matching hinge kind (``COUNTERPART``).
"""
from dataclasses import dataclass

import numpy as np

from .. import spatial

#: our subhinge kind -> the peer joint kinds it can be paired with
COUNTERPART = {
    "free": ("free",), "free_quat": ("free",),
    "spherical": ("ball",), "spherical_quat": ("ball",),
    "pin": ("revolute", "continuous"), "slider": ("prismatic",),
    "screw": ("helical",), "translational": ("translation",),
}

#: our [angular; linear] <-> the peers' [linear; angular] (its own inverse)
SWAP = np.r_[3:6, 0:3]


@dataclass
class Joint:
    """One hinge of ours paired with one peer joint of the same name."""
    name: str
    kind: str          # our subhinge kind
    peer_kind: str
    q: slice           # ours
    u: slice           # ours
    pq: int            # the peer's first q index
    pv: int            # the peer's first v index
    rot: int = 0       # rotation coordinates of ours: 3 (rotation vector), 4 (quaternion), 0


def vector(x, n, name):
    """x as a float64 (n,) array, or a ValueError naming the argument."""
    a = np.asarray(x, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    return a


def matrix(x, shape, name):
    """x as a float64 array of ``shape``, or a ValueError naming the argument."""
    a = np.asarray(x, dtype=float)
    if a.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {a.shape}")
    return a


def match(m, peer_joints, peer, arg):
    """Pair the hinges of ``m`` that own coordinates with ``peer_joints``.

    peer_joints: list of (name, peer kind or None, nq, nv, q index, v index).
    Raises a ValueError naming ``arg`` for names that do not match both ways and for a
    hinge whose kind has no counterpart in the peer's joint of that name.
    """
    ours = m.hinge_names
    names = [p[0] for p in peer_joints]
    missing = [n for n in names if n not in ours]
    extra = [n for n in ours if n not in names]
    if missing or extra:
        raise ValueError(f"{arg}: joint names differ from the hinges of m (load both from the same "
                         f"file): {peer} joints without a hinge {missing}, hinges without a {peer} joint {extra}")
    joints = []
    for name, pkind, nq, nv, iq, iv in peer_joints:
        h = m.hinge(name)
        kind = h.subhinges[0].kind if len(h.subhinges) == 1 else h.kind
        if pkind not in COUNTERPART.get(kind, ()):
            raise ValueError(f"{arg}: hinge {name!r} of kind {kind!r} has no counterpart in the {peer} "
                             f"joint {name!r} ({pkind or 'unsupported type'}, nq={nq}, nv={nv})")
        qs, us = m.q_slice(name), m.u_slice(name)
        if pkind in ("free", "ball") and not np.allclose(h.T_child_joint, np.eye(4), rtol=0, atol=1e-15):
            raise ValueError(f"{arg}: hinge {name!r} is not at its child body's frame; the {peer} joint is")
        info = h.subhinges[0].kind_info
        rot = 3 if info.chart else 4 if info.quaternion else 0
        joints.append(Joint(name, kind, pkind, qs, us, int(iq), int(iv), rot))
    return joints


def speed_permutation(joints, nu):
    """P with peer_v = u[P] (free joints: [linear; angular] <- our [angular; linear])."""
    P = np.empty(nu, dtype=np.int64)
    for j in joints:
        idx = np.arange(j.u.start, j.u.stop)
        P[j.pv:j.pv + len(idx)] = idx[SWAP] if j.peer_kind == "free" else idx
    return P


def inverse(P):
    """The inverse permutation: x[inverse(P)][P] == x."""
    out = np.empty_like(P)
    out[P] = np.arange(len(P))
    return out


class RotationMaps:
    """Rotation coordinates of ours <-> a unit quaternion (x, y, z, w), per joint.

    Quaternion hinges are copied as given (not normalised: the round trip is bit for bit);
    rotation-vector hinges go through their chart offset (of ``data``, default the
    calling thread's Data): R = R(offset) exp([v]x).
    """

    def __init__(self, m, data):
        self.m, self.data = m, data

    def offsets(self):
        return self.m.chart_offsets(self.data)

    def quat_of(self, j, q, offsets):
        """Our rotation coordinates of joint j in q -> quaternion (x, y, z, w)."""
        r = q[j.q.start:j.q.start + j.rot]
        if j.rot == 4:
            return r.copy()
        return spatial.quat_multiply(offsets[j.name], spatial.quat_from_rotvec(r))

    def rot_of(self, j, quat, offsets):
        """Quaternion (x, y, z, w) -> our rotation coordinates of joint j."""
        if j.rot == 4:
            return quat
        return spatial.quat_to_rotvec(spatial.quat_multiply(spatial.quat_conjugate(offsets[j.name]), quat))


def rotation_matrix(quat_xyzw):
    """3x3 rotation of a nonzero quaternion (x, y, z, w), normalised first."""
    return spatial.quat_to_matrix(np.asarray(quat_xyzw) / np.linalg.norm(quat_xyzw))
