"""What the viewer draws of contact (issue 21): collision shapes as visuals, and the contacts
of a replayed run (points and force arrows). NumPy only, no viser."""
import numpy as np

#: colours of contact points and force arrows, and the opacity of drawn collision shapes
POINT_RGB = (255, 70, 50)
FORCE_RGB = (255, 200, 40)
SHAPE_OPACITY = 0.6
#: the longest force arrow of a replay, as a fraction of the scene's size
ARROW_FRACTION = 0.25


def shape_visual(shape, pose):
    """A visual dict (``_geometry``'s format) of a collision shape at ``pose`` in its body's
    frame, or None for a shape with no finite drawing (a plane: the grid shows the floor)."""
    kind = shape.type_name
    vis = {"origin": np.asarray(pose, dtype=float), "rgba": np.array([0.55, 0.62, 0.7, SHAPE_OPACITY])}
    if kind == "box":
        vis.update(type="box", size=np.asarray(shape.edges, dtype=float))
    elif kind == "sphere":
        vis.update(type="sphere", radius=float(shape.radius))
    elif kind in ("capsule", "cylinder"):
        vis.update(type=kind, radius=float(shape.radius), length=float(shape.length))
    elif kind == "ellipsoid":
        import trimesh
        ball = trimesh.creation.icosphere(subdivisions=3, radius=1.0)
        vis.update(type="trimesh", vertices=ball.vertices * np.asarray(shape.radii, dtype=float), faces=ball.faces)
    elif kind == "heightfield":
        vis.update(type="trimesh", vertices=shape.vertices, faces=heightfield_faces(*shape.grid_shape))
    elif kind == "mesh":
        from scipy.spatial import ConvexHull
        v = np.asarray(shape.vertices, dtype=float)
        vis.update(type="trimesh", vertices=v, faces=ConvexHull(v).simplices)
    else:
        return None
    return vis


def heightfield_faces(nrow, ncol):
    """(2 (nrow - 1) (ncol - 1), 3) int64: the triangles of a height field's surface over its
    grid points (``Heightfield.vertices``' rows), split as the collision splits each cell."""
    r, c = np.meshgrid(np.arange(nrow - 1), np.arange(ncol - 1), indexing="ij")
    i0 = (r * ncol + c).ravel()
    lower = np.column_stack([i0, i0 + 1, i0 + ncol + 1])
    upper = np.column_stack([i0, i0 + ncol + 1, i0 + ncol])
    return np.concatenate([lower, upper]).astype(np.int64)


def collision_visuals(m, body_names, drawn):
    """{body: [visual dicts]} of the collision shapes of the bodies in ``body_names`` for which
    ``drawn(body)`` is true (bodies built in code have shapes but no visuals)."""
    out = {}
    for s in getattr(m, "collision_shapes", ()):
        name = s.body.name
        if name in body_names and drawn(name):
            pose = s.pose if getattr(s, "node", None) is None else s.node.T_body_node @ s.pose  # (undeformed)
            vis = shape_visual(s.shape, pose)
            if vis is not None:
                out.setdefault(name, []).append(vis)
    return out


class ContactFrames:
    """Per sample of a replay (times ``t``), the contact points (k, 3) and force arrows
    (k, 2, 3) to draw, from a run's ``result.contacts`` (``ContactRecords``: per stored
    sample the contacts of the step that ended on it; the initial sample has none). Arrows
    start at the point and show the force on the pair's second shape, or on its first where
    the second is fixed in the world (``on_world`` (ns,) bool: a floor's contacts show the
    force that holds the body up); they are scaled so the largest force of the run is
    ``ARROW_FRACTION`` of ``size``; ``scale`` [m/N] is that factor."""

    def __init__(self, records, t, size, on_world):
        rt = np.asarray(records.t, dtype=float)
        self._k = np.full(len(t), -1, dtype=np.int64)  # the record of each sample, -1: none
        if rt.size:
            j = np.clip(np.searchsorted(rt, t), 0, rt.size - 1)
            hit = np.abs(rt[j] - t) <= 1e-12 * np.maximum(1.0, np.abs(t))
            self._k[hit] = j[hit]
        self._at = [records.at(k) for k in range(len(rt))]
        for a in self._at:  # the force on the body that moves
            flip = np.asarray(on_world, dtype=bool)[a["shapes"][:, 1]]
            a["forces"] = np.where(flip[:, None], -a["forces"], a["forces"])
        largest = max((float(np.linalg.norm(a["forces"], axis=1).max()) for a in self._at if len(a["forces"])),
                      default=0.0)
        self.scale = ARROW_FRACTION * size / largest if largest > 0 else 0.0

    def points(self, i):
        """(k, 3) float32 contact points of sample i (k may be 0)."""
        k = self._k[i]
        return np.zeros((0, 3), np.float32) if k < 0 else self._at[k]["points"].astype(np.float32)

    def arrows(self, i):
        """(k, 2, 3) float32 force arrows of sample i: from each point along the force on b."""
        k = self._k[i]
        if k < 0:
            return np.zeros((0, 2, 3), np.float32)
        a = self._at[k]
        return np.stack([a["points"], a["points"] + self.scale * a["forces"]], axis=1).astype(np.float32)
