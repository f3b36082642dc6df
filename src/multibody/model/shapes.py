"""Collision shapes: the geometry a body touches others with (issue 21).

Each shape lives in its own frame (the ``pose`` of its ``CollisionShape`` places that frame
in the body frame). Sizes are in metres and follow URDF/SDF: ``Capsule`` and ``Cylinder``
lie along their frame's z with ``length`` the distance between the cap centres (the
cylinder's full height), ``Box`` takes full edge lengths. Each shape knows its type code
(``kernels/collision/layout.py``), the three numbers of its ``SF_SIZE`` columns and the
radius of a sphere about its origin that bounds it.
"""
import functools
import os
import threading

import numpy as np

from ..kernels.collision import layout as CL
from .mesh_vertices import mesh_vertices


def _positive(value, what, shape):
    """``value`` as a finite float > 0, or ValueError naming the shape and the argument."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{shape}: {what} must be a number, got {value!r}") from None
    if not np.isfinite(v) or v <= 0.0:
        raise ValueError(f"{shape}: {what} must be finite and > 0, got {value!r}")
    return v


def _positive3(values, what, shape):
    """``values`` as a (3,) float array of finite entries > 0, or ValueError naming them."""
    try:
        v = np.array(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{shape}: {what} must be 3 numbers, got {values!r}") from None
    if v.shape != (3,) or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
        raise ValueError(f"{shape}: {what} must be 3 finite numbers > 0, got {values!r}")
    return v


class Shape:
    """Base of the collision shapes: ``type_code`` (``layout.SPHERE`` ...), ``size``
    (the (3,) ``SF_SIZE`` columns) and ``bounding_radius`` [m] about the shape origin."""

    type_code = -1

    @property
    def type_name(self):
        """The shape type's name ("sphere", "box", ...)."""
        return CL.TYPE_NAMES[self.type_code]

    @property
    def size(self):
        """The (3,) numbers of the ``SF_SIZE`` columns."""
        return np.zeros(3)

    @property
    def bounding_radius(self):
        """Radius [m] of a sphere about the shape origin that holds the shape."""
        raise NotImplementedError

    def __eq__(self, other):
        return type(self) is type(other) and np.array_equal(self._key(), other._key())

    def __hash__(self):
        return hash((type(self).__name__, self._key().tobytes()))

    def _key(self):
        return self.size


class Sphere(Shape):
    """A sphere of ``radius`` [m] about its frame's origin."""

    type_code = CL.SPHERE

    def __init__(self, radius):
        self.radius = _positive(radius, "radius", "Sphere")

    @property
    def size(self):
        return np.array([self.radius, 0.0, 0.0])

    @property
    def bounding_radius(self):
        return self.radius

    def __repr__(self):
        return f"Sphere(radius={self.radius:g})"


class Capsule(Shape):
    """A capsule: the points within ``radius`` [m] of the segment of ``length`` [m] along z,
    centred on the origin (``length`` is the distance between the cap centres)."""

    type_code = CL.CAPSULE

    def __init__(self, radius, length):
        self.radius = _positive(radius, "radius", "Capsule")
        self.length = _positive(length, "length", "Capsule")

    @property
    def size(self):
        return np.array([self.radius, 0.5 * self.length, 0.0])

    @property
    def bounding_radius(self):
        return self.radius + 0.5 * self.length

    def __repr__(self):
        return f"Capsule(radius={self.radius:g}, length={self.length:g})"


class Cylinder(Shape):
    """A solid cylinder of ``radius`` [m] and height ``length`` [m] along z, centred on the origin."""

    type_code = CL.CYLINDER

    def __init__(self, radius, length):
        self.radius = _positive(radius, "radius", "Cylinder")
        self.length = _positive(length, "length", "Cylinder")

    @property
    def size(self):
        return np.array([self.radius, 0.5 * self.length, 0.0])

    @property
    def bounding_radius(self):
        return float(np.hypot(self.radius, 0.5 * self.length))

    def __repr__(self):
        return f"Cylinder(radius={self.radius:g}, length={self.length:g})"


class Box(Shape):
    """A box of full edge lengths ``size`` (3,) [m] along the frame's axes, centred on the origin."""

    type_code = CL.BOX

    def __init__(self, size):
        self.edges = _positive3(size, "size", "Box")

    @property
    def size(self):
        return 0.5 * self.edges

    @property
    def bounding_radius(self):
        return float(np.linalg.norm(0.5 * self.edges))

    def __repr__(self):
        return f"Box(size={tuple(float(e) for e in self.edges)})"


class Ellipsoid(Shape):
    """An ellipsoid of semi-axes ``radii`` (3,) [m] along the frame's axes."""

    type_code = CL.ELLIPSOID

    def __init__(self, radii):
        self.radii = _positive3(radii, "radii", "Ellipsoid")

    @property
    def size(self):
        return self.radii.copy()

    @property
    def bounding_radius(self):
        return float(self.radii.max())

    def __repr__(self):
        return f"Ellipsoid(radii={tuple(float(r) for r in self.radii)})"


class Plane(Shape):
    """The half-space z <= 0 of its frame (outward normal +z); unbounded."""

    type_code = CL.PLANE

    @property
    def bounding_radius(self):
        return np.inf

    def _key(self):
        return np.zeros(0)

    def __repr__(self):
        return "Plane()"


class ConvexMesh(Shape):
    """The convex hull of ``vertices`` (n, 3) [m] in the shape frame.

    ``vertices`` keeps the hull's vertices only (the interior points are dropped);
    ``source`` names where they came from (a file), for messages. A hull with no volume
    (fewer than 4 points, or all on one plane) is a ValueError naming the source.
    """

    type_code = CL.MESH

    def __init__(self, vertices, source=None):
        self.source = source
        self._file = None
        self._vertices = _hull_vertices(vertices, source or "ConvexMesh")

    @classmethod
    def from_file(cls, path, scale=1.0):
        """The convex hull of the mesh in file ``path`` (any format trimesh reads: STL, OBJ,
        DAE, ...), its coordinates multiplied by ``scale`` (a number or 3 numbers). A file
        read before (same path, size and modification time) is not read again.

        The file is read and checked here (unreadable, or flat: ValueError naming it); the
        hull itself (Qhull, through scipy.spatial, whose import alone is about 0.3-1 s) is
        made when ``vertices`` is first read: a robot loaded for its dynamics never pays it."""
        scale = np.broadcast_to(np.asarray(scale, dtype=float), (3,))
        if not np.all(np.isfinite(scale)) or np.any(scale == 0.0):
            raise ValueError(f"ConvexMesh.from_file({str(path)!r}): scale must be finite and "
                             f"non-zero, got {scale!r}")
        try:
            st = os.stat(path)
        except OSError as e:
            raise ValueError(f"ConvexMesh.from_file: cannot read mesh file {str(path)!r}: {e}") from None
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size, tuple(scale))
        mesh = cls.__new__(cls)
        mesh.source = str(path)
        mesh._file = (key, _file_points(*key))  # read and checked now: its errors are the loader's
        mesh._vertices = None
        return mesh

    def __getstate__(self):
        """A pickled mesh carries its hull (made now if not yet): the process that loads it (a
        Dask worker on another machine) need not see the file."""
        return {"source": self.source, "_file": None, "_vertices": self.vertices}

    @property
    def vertices(self):
        """The hull's vertices (k, 3), sorted lexicographically (made on first use for a mesh
        read from a file)."""
        if self._vertices is None:  # (a copy: the cached hull is shared by every load of the file)
            self._vertices = _file_hull(*self._file).copy()
            self._file = None
        return self._vertices

    @property
    def bounding_radius(self):
        return float(np.linalg.norm(self.vertices, axis=1).max())

    def _key(self):
        return self.vertices

    def __repr__(self):
        src = f", source={self.source!r}" if self.source else ""
        return f"ConvexMesh({len(self.vertices)} hull vertices{src})"


def _checked_points(vertices, source):
    """``vertices`` as an (n, 3) float array of n >= 4 finite points, or ValueError naming
    ``source``."""
    try:
        v = np.array(vertices, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{source}: vertices must be an (n, 3) array of numbers") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise ValueError(f"{source}: vertices must be an (n, 3) array, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{source}: vertices hold non-finite values")
    if len(v) < 4:
        raise ValueError(f"{source}: a convex mesh needs at least 4 vertices not on one plane, got {len(v)}")
    return v


def _hull_vertices(vertices, source):
    """The distinct vertices (k, 3) of the convex hull of ``vertices``, sorted lexicographically."""
    from scipy.spatial import ConvexHull, QhullError
    v = _checked_points(vertices, source)
    try:
        hull = ConvexHull(v)
    except QhullError:
        raise ValueError(f"{source}: degenerate mesh: its convex hull has no volume (all "
                         f"vertices on one plane or line)") from None
    extent = np.ptp(v, axis=0).max()
    if hull.volume <= 1e-12 * extent ** 3:
        raise ValueError(f"{source}: degenerate mesh: its convex hull has no volume "
                         f"({hull.volume:.3g} m^3)")
    return np.unique(v[hull.vertices], axis=0)  # (copies of a vertex: one kept)


_MAX_FILES = 256  # mesh files whose points and hulls are kept (robots load the same ones again)
_HULLS = {}  # the hulls of _file_points' keys, at most _MAX_FILES (the oldest dropped first)
_HULLS_LOCK = threading.Lock()


@functools.lru_cache(maxsize=_MAX_FILES)
def _file_points(path, mtime_ns, size, scale):
    """The distinct vertices of the mesh file ``path`` scaled by ``scale`` (3,) (read-only;
    cached per path, modification time and size: robots load the same meshes again and
    again), checked to span a volume; ValueError naming the file otherwise."""
    try:
        v = mesh_vertices(path)  # STL and OBJ without trimesh (its import alone is about 1 s)
    except OSError as e:
        raise ValueError(f"ConvexMesh.from_file: cannot read mesh file {path!r}: {e}") from e
    if v is None:
        import trimesh  # the viewer's mesh library: imported only for the other formats
        try:
            mesh = trimesh.load(path, force="mesh", process=False)
        except Exception as e:  # trimesh raises many types on unreadable files
            raise ValueError(f"ConvexMesh.from_file: cannot read mesh file {path!r}: {e}") from e
        v = np.asarray(getattr(mesh, "vertices", np.zeros((0, 3))), dtype=float)
        if len(v):  # mesh files repeat a vertex per face: hash the rows, faster than sorting them
            v = v[trimesh.grouping.unique_rows(v)[0]]
    v = _checked_points(v * np.asarray(scale), path)  # (at least 4 points)
    sv = np.linalg.svd(v - v.mean(axis=0), compute_uv=False)  # all on one plane or line (no volume),
    if not sv[2] > 1e-12 * sv[0]:  # without the hull: the thinnest spread against the widest
        raise ValueError(f"{path}: degenerate mesh: its convex hull has no volume (all "
                         f"vertices on one plane or line)")
    v.flags.writeable = False
    return v


def _file_hull(key, points):
    """The hull vertices (read-only, cached per key) of ``points``, the file's points read at
    load (``_file_points(*key)``): a mesh's hull is of the points it was checked with."""
    with _HULLS_LOCK:
        hull = _HULLS.get(key)
    if hull is None:
        hull = _hull_vertices(points, key[0])
        hull.flags.writeable = False
        with _HULLS_LOCK:
            if len(_HULLS) >= _MAX_FILES:
                _HULLS.pop(next(iter(_HULLS)))
            _HULLS[key] = hull
    return hull
