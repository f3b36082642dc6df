"""Contacts of a model's collision shapes at a configuration (issue 21): ``m.contacts(q)``.

The kinematics pass and the compiled detection (``kernels/collision``), as the stepping
loop runs them, with the result named: shapes and bodies by name, points, normals,
signed distances and the contact frames.
"""
import numpy as np

from ..kernels.collision import layout as CL
from ..kernels.collision.entry import contacts_at
from ..kernels.collision.work import contact_work
from ..kernels.flex_contact import PLACEMENT_COLS, flex_contacts_at
from .checks import data_object, raise_status, run_kernel
from .entry import check_vector


class Contacts:
    """The contacts at one configuration, one row per contact point (k of them).

    ``points`` (k, 3): world point midway between the two surfaces [m]; ``normals`` (k, 3):
    unit normal from shape a to shape b; ``distances`` (k,): signed distance [m] (< 0:
    penetration); ``tangents`` (k, 2, 3): t1, t2 of the right-handed frame (n, t1, t2), a
    function of n alone; ``shape_index`` (k, 2): rows a < b of ``m.collision_shapes``;
    ``shapes`` and ``bodies``: k (a, b) name pairs; ``features`` (k,): the point's id in its
    pair's manifold; ``friction``, ``restitution`` (k,): the pair's (the larger of the two)."""

    def __init__(self, contact_model, ci, cf):
        self.shape_index = ci[:, [CL.CI_A, CL.CI_B]].copy()
        self.features = ci[:, CL.CI_FEATURE].copy()
        self.points = cf[:, CL.CF_P:CL.CF_P + 3].copy()
        self.normals = cf[:, CL.CF_N:CL.CF_N + 3].copy()
        self.distances = cf[:, CL.CF_DIST].copy()
        self.tangents = np.stack([cf[:, CL.CF_T1:CL.CF_T1 + 3], cf[:, CL.CF_T2:CL.CF_T2 + 3]], axis=1)
        self.friction = cf[:, CL.CF_MU].copy()
        self.restitution = cf[:, CL.CF_REST].copy()
        names = contact_model.shape_names if contact_model is not None else ()
        bodies = contact_model.body_names if contact_model is not None else ()
        self.shapes = [(names[a], names[b]) for a, b in self.shape_index]
        self.bodies = [(bodies[a], bodies[b]) for a, b in self.shape_index]

    def __len__(self):
        return len(self.distances)

    def __repr__(self):
        if not len(self):
            return "Contacts(none)"
        lines = [f"Contacts({len(self)}):"]
        for (a, b), p, d in zip(self.shapes, self.points, self.distances):
            lines.append(f"  {a} - {b}: at {np.round(p, 6).tolist()}, distance {d:.6g} m")
        return "\n".join(lines)


_EMPTY_I = np.zeros((0, CL.CI_COLS), dtype=np.int64)
_EMPTY_F = np.zeros((0, CL.CF_COLS))


def contacts(m, q, data=None):
    """The contacts of the collision shapes of Multibody ``m`` at configuration q (nq,), as
    ``Contacts`` (none when the model has no shapes): the kinematics pass and the compiled
    detection (shapes within the sum of their margins count; ``kernels/collision``). With
    modal bodies the shapes are placed through their frames, deformed at q (a shape pinned
    to a node follows it: ``kernels/flex_contact``)."""
    c = m.compiled
    cm = c.contact
    dbuf = data_object(c, data).buf
    q = check_vector(q, c.nq, "q", c)
    if cm is None:
        return Contacts(None, _EMPTY_I, _EMPTY_F)
    rows = max(16, 4 * cm.n_shapes)
    while True:
        work, ci, cf = contact_work(cm, rows)
        out = np.zeros(1, dtype=np.int64)
        if c.flex is None:
            st = run_kernel(c, q, contacts_at, dbuf, q, cm.si, cm.sf, cm.verts, cm.allow, work, ci, cf, out)
        else:
            st = run_kernel(c, q, flex_contacts_at, dbuf, q, cm.si_frame, cm.sf_frame, cm.verts, cm.allow,
                            cm.frames, np.zeros((cm.n_shapes, PLACEMENT_COLS)), np.zeros((4, 4)), work, ci, cf, out)
        if st:
            raise_status(c, st, ("q",), (q,))
        nc = int(out[0])
        if nc >= 0:
            return Contacts(cm, ci[:nc], cf[:nc])
        rows = -nc  # more contacts than rows: detect again with room for all
