"""Narrow phase: a plane (the half-space z <= 0 of its frame) against each other shape.

Each function returns the number of manifold points written (``manifold.put_point``), with
the normal from the plane to the shape (the plane's +z), the point midway between the
shape's surface point and its projection on the plane, and the signed distance; points
farther than ``margin`` are not reported.
"""
import math

from numba import njit

from ..spatial_inline import mul33T_vec, mul33_vec
from .manifold import put_candidate, put_point, reduce_candidates
from .hull_walk import hull_below, hull_support
from .separation import SEP_START_B
from .support import support
from .layout import ELLIPSOID
from .vec import axpy, column, cross, dot, perpendicular, scale, sub

#: [m] A mesh's vertices count as one flat face on the plane when their heights are within this
#: of the lowest (``plane_mesh``): a face resting flat gives its corners, a curved hull one point.
MESH_FLATNESS = 1e-5
#: [m] The slack of ``plane_mesh``'s first pass, whose heights in the mesh's frame differ from
#: the world's by rounding (1e-16 of the mesh's distance from the plane's point): far more than
#: that, so the vertices it passes on include every one the world heights keep.
_SIEVE = 1e-7


@njit(cache=True)
def _height(n, pp, x):
    """Signed height of x over the plane through pp with unit normal n."""
    return dot(n, sub(x, pp))


@njit(cache=True)
def _midway(n, x, h):
    """The point midway between x (at height h) and its projection on the plane."""
    return axpy(-0.5 * h, n, x)


@njit(cache=True)
def plane_sphere(Rp, pp, ps, r, margin, man, mfeat):
    """Plane (pose Rp, pp) against a sphere of radius r centred at ps: one point."""
    n = column(Rp, 2)
    low = axpy(-r, n, ps)  # the sphere's deepest point
    h = _height(n, pp, low)
    if h > margin:
        return 0
    return put_point(man, mfeat, 0, _midway(n, low, h), n, h, 0)


@njit(cache=True)
def plane_capsule(Rp, pp, Rc, pc, r, half, margin, man, mfeat):
    """Plane against a capsule (radius r, cap centres at +-half along its z): the deepest
    point of each cap's sphere within the margin (features 0: -z cap, 1: +z cap)."""
    n = column(Rp, 2)
    a = column(Rc, 2)
    k = 0
    for end in range(2):
        low = axpy(-r, n, axpy(half * (2.0 * end - 1.0), a, pc))
        h = _height(n, pp, low)
        if h <= margin:
            k = put_point(man, mfeat, k, _midway(n, low, h), n, h, end)
    return k


@njit(cache=True)
def plane_box(Rp, pp, Rb, pb, half, margin, cand, cfeat, man, mfeat):
    """Plane against a box (half extents ``half``): its corners within the margin, at most
    four (the deepest, then the most spread); feature: the corner's index, bit k set for
    +half[k]."""
    n = column(Rp, 2)
    count = 0
    for c in range(8):
        xl = (half[0] if c & 1 else -half[0], half[1] if c & 2 else -half[1],
              half[2] if c & 4 else -half[2])
        x = mul33_vec(Rb, xl[0], xl[1], xl[2])
        x = (x[0] + pb[0], x[1] + pb[1], x[2] + pb[2])
        h = _height(n, pp, x)
        if h <= margin:
            count = put_candidate(cand, cfeat, count, _midway(n, x, h), h, c)
    return reduce_candidates(cand, cfeat, count, n, man, mfeat)


@njit(cache=True)
def plane_cylinder(Rp, pp, Rc, pc, r, half, margin, cand, cfeat, man, mfeat):
    """Plane against a cylinder: on each cap's rim the deepest point and the points a
    quarter and a half turn from it (a cap flat on the plane gives four, a cylinder on its
    side two); at most four, the deepest first. Feature: 4 cap + the rim point's index."""
    n = column(Rp, 2)
    a = column(Rc, 2)
    s = sub(n, scale(a, dot(n, a)))  # n's part across the axis: the rim's deepest direction
    ls = math.sqrt(dot(s, s))
    d = scale(s, 1.0 / ls) if ls > 1e-9 else perpendicular(a)  # flat cap: any fixed one
    e = cross(a, d)
    count = 0
    for end in range(2):
        c = axpy(half * (2.0 * end - 1.0), a, pc)
        for i in range(4):
            u = d if i == 0 else (e if i == 1 else (scale(d, -1.0) if i == 2 else scale(e, -1.0)))
            x = axpy(-r, u, c)
            h = _height(n, pp, x)
            if h <= margin:
                count = put_candidate(cand, cfeat, count, _midway(n, x, h), h, 4 * end + i)
    return reduce_candidates(cand, cfeat, count, n, man, mfeat)


@njit(cache=True)
def plane_ellipsoid(Rp, pp, Re, pe, radii, margin, verts, man, mfeat):
    """Plane against an ellipsoid: its support point along -n, one point."""
    n = column(Rp, 2)
    x = support(ELLIPSOID, Re, pe, radii, verts, 0, 0, scale(n, -1.0))
    h = _height(n, pp, x)
    if h > margin:
        return 0
    return put_point(man, mfeat, 0, _midway(n, x, h), n, h, 0)


@njit(cache=True)
def plane_mesh(Rp, pp, Rm, pm, verts, vadr, vnum, margin, cand, cfeat, man, mfeat, adj_start, adj, cache):
    """Plane against a convex mesh: its hull vertices within the margin and within
    MESH_FLATNESS of the deepest, at most four (the deepest, then the most spread); feature:
    the vertex's index in the hull. (A tessellated curved hull, a robot's rounded foot, has
    several vertices within the margin around the lowest one: their rows are nearly the same,
    which makes W nearly singular and the solve slow, for no support a flat face would give.)
    The lowest vertex is found by a walk along the hull's edges (adj_start, adj:
    ``hull_walk.py``) from the last one, cache[SEP_START_B] (set to the new one), and the
    vertices near it by a walk around it."""
    n = column(Rp, 2)
    # heights in the mesh's frame (3 products a vertex, not 12): h = nl.x + h0 up to rounding;
    # the vertices within _SIEVE + MESH_FLATNESS of the lowest are listed (in cfeat, in vertex
    # order), a superset of those kept, which are then measured in the world
    nl = mul33T_vec(Rm, n[0], n[1], n[2])
    low_row, top = hull_support(verts, adj_start, adj, vadr, vnum, int(cache[SEP_START_B]), (-nl[0], -nl[1], -nl[2]))
    cache[SEP_START_B] = low_row
    low_local = -top
    if low_local + _height(n, pp, pm) > margin + _SIEVE:
        return 0
    listed = hull_below(verts, adj_start, adj, vadr, vnum, low_row, nl, low_local + MESH_FLATNESS + _SIEVE, cfeat)
    low = math.inf
    for j in range(listed):
        low = min(low, _height(n, pp, _mesh_vertex(Rm, pm, verts, cfeat[j])))
    reach = min(margin, low + MESH_FLATNESS)
    count = 0
    for j in range(listed):  # (count <= j: a candidate's feature never overwrites one still to read)
        v = cfeat[j] - vadr
        x = _mesh_vertex(Rm, pm, verts, vadr + v)
        h = _height(n, pp, x)
        if h <= reach:
            count = put_candidate(cand, cfeat, count, _midway(n, x, h), h, v)
    return reduce_candidates(cand, cfeat, count, n, man, mfeat)


@njit(cache=True, inline="always")
def _mesh_vertex(Rm, pm, verts, row):
    """Hull vertex ``row`` of verts in world coordinates."""
    x = mul33_vec(Rm, verts[row, 0], verts[row, 1], verts[row, 2])
    return (x[0] + pm[0], x[1] + pm[1], x[2] + pm[2])
