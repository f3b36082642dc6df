"""Hand-made contact constants for the collision kernels' tests (issue 21): rows filled per
``kernels/collision/layout.py``, shapes on the world (SI_LINK = -1) or on the links of a
hand-made ``ws``."""
import numpy as np

from multibody.kernels import layout as L
from multibody.kernels.collision import layout as CL
from multibody.kernels.collision.detect import detect
from multibody.kernels.collision.work import contact_work


class Scene:
    """Shapes added one at a time; ``run()`` detects and returns the contacts."""

    def __init__(self):
        self.rows = []
        self.verts = np.zeros((0, 3))

    def add(self, kind, size=(0.0, 0.0, 0.0), R=np.eye(3), p=(0.0, 0.0, 0.0), link=-1, mu=0.5, rest=0.0,
            margin=0.0, verts=None):
        si = np.zeros(CL.SI_COLS, dtype=np.int64)
        sf = np.zeros(CL.SF_COLS)
        si[CL.SI_TYPE] = kind
        si[CL.SI_LINK] = link
        si[CL.SI_CONTYPE] = si[CL.SI_CONAFF] = 1
        sf[CL.SF_R:CL.SF_R + 9] = np.asarray(R, float).reshape(9)
        sf[CL.SF_P:CL.SF_P + 3] = p
        sf[CL.SF_SIZE:CL.SF_SIZE + 3] = size
        sf[CL.SF_MU], sf[CL.SF_REST], sf[CL.SF_MARGIN] = mu, rest, margin
        if verts is not None:
            verts = np.asarray(verts, float)
            si[CL.SI_VADR], si[CL.SI_VNUM] = len(self.verts), len(verts)
            self.verts = np.vstack([self.verts, verts])
            sf[CL.SF_RBOUND] = np.linalg.norm(verts, axis=1).max()
            sf[CL.SF_SIZE:CL.SF_SIZE + 3] = np.abs(verts).max(axis=0)  # (its box about the origin, SF_CENTRE = 0)
        elif kind == CL.PLANE:
            sf[CL.SF_RBOUND] = np.inf
        else:  # the bounding sphere about the origin, as model/shapes.py's bounding_radius
            r, h = size[0], size[1]
            sf[CL.SF_RBOUND] = {CL.SPHERE: r, CL.CAPSULE: r + h, CL.CYLINDER: np.hypot(r, h),
                                CL.BOX: np.linalg.norm(size), CL.ELLIPSOID: max(size)}[kind]
        self.rows.append((si, sf))
        return len(self.rows) - 1

    @property
    def si(self):
        return np.array([r[0] for r in self.rows])

    @property
    def sf(self):
        return np.array([r[1] for r in self.rows])

    def model(self, allow=None):
        ns = len(self.rows)
        if allow is None:
            allow = np.ones((ns, ns), dtype=np.uint8) - np.eye(ns, dtype=np.uint8)
        return _Model(self.si, self.sf, self.verts, allow)

    def run(self, ws=None, max_contacts=64, allow=None):
        """(nc, ci, cf, work) of ``detect``; ws: link rows (default: none)."""
        cm = self.model(allow)
        work, ci, cf = contact_work(cm, max_contacts)
        if ws is None:
            ws = np.zeros((1, L.W_PR + 3))
        nc = detect(cm.si, cm.sf, cm.verts, cm.allow, ws, work, ci, cf)
        return nc, ci, cf, work


class _Model:
    def __init__(self, si, sf, verts, allow):
        self.si, self.sf, self.verts, self.allow = si, sf, verts, allow


def link_rows(poses):
    """ws rows with W_RW, W_PW of each (R, p) in poses."""
    ws = np.zeros((len(poses), L.W_PR + 3))
    for j, (R, p) in enumerate(poses):
        ws[j, L.W_RW:L.W_RW + 9] = np.asarray(R, float).reshape(9)
        ws[j, L.W_PW:L.W_PW + 3] = p
    return ws


def rot(axis, angle):
    """Rotation by angle about a unit axis (Rodrigues), 3x3."""
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def contacts(scene, **kw):
    """(ci, cf) of the contacts ``scene.run(**kw)`` found (none dropped)."""
    nc, ci, cf, _ = scene.run(**kw)
    assert nc >= 0
    return ci[:nc], cf[:nc]


def P(cf):
    """The contacts' world points (n, 3)."""
    return cf[:, CL.CF_P:CL.CF_P + 3]


def N(cf):
    """The contacts' unit normals from a to b (n, 3)."""
    return cf[:, CL.CF_N:CL.CF_N + 3]


def D(cf):
    """The contacts' signed distances (n,)."""
    return cf[:, CL.CF_DIST]
