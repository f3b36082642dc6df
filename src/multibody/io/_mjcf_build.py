"""The joints of one MuJoCo body as hinges of ours (used by ``load_mjcf``).

MuJoCo moves a body with joints j1 .. jk (in its compiled ``body_pos``/``body_quat``
frame, expressed at ``qpos0``) by the product, in the body frame, of

* hinge:  Trans(a) Rot(n, q - ref) Trans(-a)   (a = ``jnt_pos``, n = ``jnt_axis``)
* slide:  Trans(n (q - ref))
* ball:   Trans(a) Rot(quat) Trans(-a)

Each factor is ``A X(q) B`` with constant A, B and a subhinge motion X (pin, slider,
quaternion spherical). A hinge of ours is ``T_parent_joint X1 X2 .. Xk inv(T_child_joint)``,
so the constants between the X's are pushed to the right: K X(q) = X'(q) K holds for a
pin when K's translation lies on the rotated axis (X' turns about K's rotation of n),
for any K and a slider (axis K n), and for K = identity and a ball. Where it does not
hold the run is closed and a new hinge starts on a massless intermediate body
(``<body>__<joint>``), so every joint keeps MuJoCo's qpos number as its coordinate.
"""
import numpy as np

from .. import spatial
from ..model import PinSubhinge, SliderSubhinge, SphericalQuaternionSubhinge

HINGE, SLIDE, BALL, FREE = 3, 2, 1, 0   # mjtJoint
_TOL = 1e-12


def transform(R=None, p=None):
    """4x4 rigid transform from a rotation (3x3) and a translation (3,)."""
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    if p is not None:
        T[:3, 3] = p
    return T


def quat_wxyz_to_matrix(q):
    """3x3 rotation of a MuJoCo quaternion (w, x, y, z), normalised first."""
    q = np.asarray(q, dtype=float)
    return spatial.quat_to_matrix(q[[1, 2, 3, 0]] / np.linalg.norm(q))


def axis_rotation(n, angle):
    """3x3 rotation by ``angle`` about the unit axis n."""
    return spatial.rotvec_to_matrix(np.asarray(n, dtype=float) * angle)


def _scale(T):
    return _TOL * max(1.0, float(np.abs(T[:3, 3]).max()))


def _commutes(K, kind, n):
    """Can the constant K be pushed to the right of a subhinge of ``kind`` with axis n?"""
    R, p = K[:3, :3], K[:3, 3]
    if kind == SLIDE:
        return True
    if kind == HINGE:
        return np.linalg.norm(np.cross(p, R @ n)) <= _scale(K)
    return np.allclose(K, np.eye(4), rtol=0, atol=_scale(K))


class Joint:
    """One MuJoCo joint: ``kind`` (mjtJoint), ``name``, anchor ``a`` and axis ``n`` in the
    body frame, ``ref`` (its qpos0 for hinge and slide), and its MuJoCo index ``index``."""

    def __init__(self, index, name, kind, a, n, ref):
        self.index, self.name, self.kind = index, name, kind
        self.a, self.n, self.ref = np.asarray(a, float), np.asarray(n, float), float(ref)

    def factors(self):
        """(A, B) of the factor A X(q) B, and the subhinge kind of X."""
        if self.kind == SLIDE:
            return np.eye(4), transform(p=-self.n * self.ref)
        B = transform(p=-self.a)
        if self.kind == HINGE:
            B = transform(R=axis_rotation(self.n, -self.ref)) @ B
        return transform(p=self.a), B

    def subhinge(self, K):
        """The subhinge X' with K X = X' K (axis rotated by K), named after the joint."""
        if self.kind == BALL:
            return SphericalQuaternionSubhinge(name=self.name)
        axis = K[:3, :3] @ self.n
        cls = PinSubhinge if self.kind == HINGE else SliderSubhinge
        return cls(axis, name=self.name)


class Run:
    """Joints that become one hinge: T_parent_joint = ``pre``, T_child_joint = inv(``K``)."""

    def __init__(self):
        self.joints, self.subhinges = [], []
        self.pre, self.K = np.eye(4), np.eye(4)

    def try_add(self, joint):
        """Add ``joint`` if its constants can be pushed through; False if they cannot."""
        A, B = joint.factors()
        if not self.joints:
            self.pre, L = A, np.eye(4)
        else:
            L = self.K @ A
            if not _commutes(L, joint.kind, joint.n):
                return False
        self.subhinges.append(joint.subhinge(L))
        self.joints.append(joint)
        self.K = L @ B
        return True

    @property
    def T_child_joint(self):
        return spatial.transform_inverse(self.K)


def split_runs(joints):
    """Group the joints of one body, in order, into runs (hinges); at least one joint."""
    runs = [Run()]
    for j in joints:
        if not runs[-1].try_add(j):
            runs.append(Run())
            runs[-1].try_add(j)
    return runs
