"""URDF and SDF ``<collision>`` elements as collision shapes (``Multibody.add_collision``).

The readers keep each element's metadata dict (``body.collisions``: ``origin``, ``type``,
sizes, a mesh's resolved ``filename`` and ``scale``); this module turns those dicts into
shapes: box, sphere, cylinder, capsule, and a mesh as the convex hull of its file
(``ConvexMesh.from_file``), and SDF's plane (its ``<normal>`` the shape frame's z). A mesh
that is missing, unreadable or flat is skipped, and the model's reader warns once, naming
each link and file; other shape types (heightmaps ...) are skipped with the same warning.
"""
import numpy as np

from ..model.compile import z_frame
from ..model.shapes import Box, Capsule, ConvexMesh, Cylinder, Plane, Sphere
from . import _xml


def _plane_pose(g):
    """The pose of an SDF plane's shape frame: the element's origin turned so z is its normal."""
    n = np.asarray(g["normal"], dtype=float)
    if not np.linalg.norm(n) > 0.0:
        raise ValueError(f"plane normal {n.tolist()} is not a direction")
    T = np.eye(4)
    T[:3, :3] = z_frame(n / np.linalg.norm(n))
    return g["origin"] @ T


def _shape(g):
    """The Shape of a collision dict ``g``, or raise ValueError saying why there is none."""
    t = g.get("type")
    if g.get("sdf_shape") == "plane":
        return Plane()
    if t == "box":
        return Box(g["size"])
    if t == "sphere":
        return Sphere(g["radius"])
    if t == "cylinder":
        return Cylinder(g["radius"], g["length"])
    if t == "capsule":
        return Capsule(g["radius"], g["length"])
    if t == "mesh":
        if not g.get("resolved", True):
            raise ValueError(f"mesh file {g.get('uri', g.get('filename'))!r} not found")
        return ConvexMesh.from_file(g["filename"], g.get("scale", 1.0))
    raise ValueError(f"shape type {g.get('sdf_shape', t)!r} is not a collision shape here")


class CollisionReader:
    """Adds the collision shapes of a model's links, collecting those it skips for one warning."""

    def __init__(self, m, source):
        self.m = m
        self.source = source
        self.skipped = []

    def add(self, body, collisions, surfaces=None):
        """Add ``collisions`` (a link's metadata dicts) to ``body``; ``surfaces``: one
        ``{"friction": mu, "restitution": e}`` per dict (SDF ``<surface>``), or None."""
        for k, g in enumerate(collisions):
            try:
                shape = _shape(g)
            except ValueError as e:
                self.skipped.append(f"link {body.name!r}: {e}")
                continue
            params = dict(surfaces[k]) if surfaces else {}
            name = f"{body.name}/{g['name']}" if g.get("name") else None
            if name is not None and any(s.name == name for s in self.m.collision_shapes):
                name = None  # a repeated element name: the default "<link>/collision<k>"
            try:
                pose = _plane_pose(g) if g.get("sdf_shape") == "plane" else g["origin"]
                self.m.add_collision(body, shape, pose, name=name, **params)
            except ValueError as e:
                raise ValueError(f"{self.source}: link {body.name!r} <collision>: {e}") from None

    def finish(self):
        """Warn once about the skipped shapes (if any), naming their links and files."""
        if self.skipped:
            shown = "; ".join(self.skipped[:5]) + ("; ..." if len(self.skipped) > 5 else "")
            _xml.warn_user(f"{self.source}: {len(self.skipped)} <collision> shape(s) skipped (no contact "
                           f"geometry for them): {shown}")
