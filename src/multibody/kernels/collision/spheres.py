"""Narrow phase: spheres and capsules against each other (closed forms; issue 21).

A capsule is the segment between its cap centres (+-half along its z) swept by its radius,
so each pair is two spheres at the closest points of their cores. Normals point from the
first shape to the second; the point is midway between the two surfaces.
"""
from numba import njit

from .manifold import put_point
from .vec import add, axpy, column, cross, dot, norm, scale, sub, unit_or


@njit(cache=True)
def sphere_pair(c1, r1, c2, r2, margin, man, mfeat, k, feature):
    """Spheres (c1, r1) and (c2, r2) as manifold point k (if within the margin); returns the
    number of points written so far. Coincident centres take the normal +z."""
    d = sub(c2, c1)
    L = norm(d)
    dist = L - r1 - r2
    if dist > margin:
        return k
    n = unit_or(d, (0.0, 0.0, 1.0))
    mid = scale(add(axpy(r1, n, c1), axpy(-r2, n, c2)), 0.5)
    return put_point(man, mfeat, k, mid, n, dist, feature)


@njit(cache=True)
def sphere_sphere(p1, r1, p2, r2, margin, man, mfeat):
    """Two spheres (centres p1, p2; radii r1, r2): one point."""
    return sphere_pair(p1, r1, p2, r2, margin, man, mfeat, 0, 0)


@njit(cache=True)
def _clamp(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


@njit(cache=True)
def point_on_segment(c, a, half, x):
    """The point of the segment c + s a, |s| <= half (a: unit) nearest to x."""
    return axpy(_clamp(dot(sub(x, c), a), -half, half), a, c)


@njit(cache=True)
def sphere_capsule(ps, rs, Rc, pc, rc, half, margin, man, mfeat):
    """Sphere (centre ps, radius rs) against a capsule: one point."""
    q = point_on_segment(pc, column(Rc, 2), half, ps)
    return sphere_pair(ps, rs, q, rc, margin, man, mfeat, 0, 0)


@njit(cache=True)
def segments_closest(c1, a1, h1, c2, a2, h2):
    """Parameters (s, t) of the closest points c1 + s a1, c2 + t a2 of two segments (unit
    axes, half lengths h1, h2; not parallel)."""
    r = sub(c1, c2)
    b = dot(a1, a2)
    c = dot(a1, r)
    f = dot(a2, r)
    s = _clamp((b * f - c) / (1.0 - b * b), -h1, h1)
    t = b * s + f
    if t < -h2 or t > h2:
        t = _clamp(t, -h2, h2)
        s = _clamp(b * t - c, -h1, h1)
    return s, t


@njit(cache=True)
def capsule_capsule(R1, p1, r1, h1, R2, p2, r2, h2, margin, man, mfeat):
    """Two capsules: the closest points of their segments; parallel segments that overlap
    along their axis give two points, at the ends of the overlap (features 0, 1)."""
    a1 = column(R1, 2)
    a2 = column(R2, 2)
    w = cross(a1, a2)
    if dot(w, w) > 1e-12:
        s, t = segments_closest(p1, a1, h1, p2, a2, h2)
        return sphere_pair(axpy(s, a1, p1), r1, axpy(t, a2, p2), r2, margin, man, mfeat, 0, 0)
    # parallel: the overlap of segment 2's projection on axis 1 with [-h1, h1]
    u = dot(sub(p2, p1), a1)
    e = h2 * abs(dot(a1, a2))
    lo = max(-h1, u - e)
    hi = min(h1, u + e)
    if hi - lo <= 1e-9 * (h1 + h2):  # no overlap, or one point: the nearest ends
        s = _clamp(u, -h1, h1)
        q = point_on_segment(p2, a2, h2, axpy(s, a1, p1))
        s = dot(sub(q, p1), a1)
        x = axpy(_clamp(s, -h1, h1), a1, p1)
        return sphere_pair(x, r1, point_on_segment(p2, a2, h2, x), r2, margin, man, mfeat, 0, 0)
    k = 0
    for i in range(2):
        x = axpy(lo if i == 0 else hi, a1, p1)
        k = sphere_pair(x, r1, point_on_segment(p2, a2, h2, x), r2, margin, man, mfeat, k, i)
    return k
