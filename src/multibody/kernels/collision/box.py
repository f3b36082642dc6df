"""Narrow phase: spheres and capsules against boxes (closed forms; issue 21).

The signed distance from a point to a box, in the box frame: outside, the distance to its
nearest point (the point clamped to the box); inside, minus the distance to the nearest
face. It is convex, so along a capsule's segment its minimum (the capsule's deepest point)
is found by golden-section search. A segment that pierces the box is pushed out by
neither that point's depth nor its nearest face, but by the least translation of the
whole capsule: GJK/EPA's (``convex.py``).
"""
import math

from numba import njit

from ..spatial_inline import mul33_vec, mul33T_vec
from .convex import convex_convex
from .layout import BOX, CAPSULE
from .manifold import put_point
from .vec import add, axpy, column, dot, norm, scale, sub

_GOLDEN = 0.5 * (math.sqrt(5.0) - 1.0)
_SEARCH_STEPS = 80  # 0.618^80 ~ 2e-17 of the segment
_POLISH_STEPS = 8


@njit(cache=True)
def point_box(c, h):
    """(signed distance, unit normal out of the box, nearest surface point) of the point c
    in the frame of a box of half extents h."""
    q = (min(max(c[0], -h[0]), h[0]), min(max(c[1], -h[1]), h[1]), min(max(c[2], -h[2]), h[2]))
    d = sub(c, q)
    L = norm(d)
    if L > 0.0:
        return L, scale(d, 1.0 / L), q
    k = 0  # inside: the nearest face
    depth = h[0] - abs(c[0])
    for i in range(1, 3):
        if h[i] - abs(c[i]) < depth:
            k, depth = i, h[i] - abs(c[i])
    s = 1.0 if c[k] >= 0.0 else -1.0
    n = (s if k == 0 else 0.0, s if k == 1 else 0.0, s if k == 2 else 0.0)
    return -depth, n, axpy(depth, n, c)


@njit(cache=True)
def _sphere_box_point(ps, r, Rb, pb, h, margin, man, mfeat, k, feature):
    """Sphere (ps, r) against the box as manifold point k (normal from sphere to box)."""
    c = mul33T_vec(Rb, ps[0] - pb[0], ps[1] - pb[1], ps[2] - pb[2])
    d, nl, q = point_box(c, h)
    dist = d - r
    if dist > margin:
        return k
    mid = scale(add(q, axpy(-r, nl, c)), 0.5)
    x = mul33_vec(Rb, mid[0], mid[1], mid[2])
    n = mul33_vec(Rb, -nl[0], -nl[1], -nl[2])
    return put_point(man, mfeat, k, add(x, pb), n, dist, feature)


@njit(cache=True)
def sphere_box(ps, r, Rb, pb, h, margin, man, mfeat):
    """Sphere (centre ps, radius r) against a box (pose Rb, pb; half extents h): one point."""
    return _sphere_box_point(ps, r, Rb, pb, h, margin, man, mfeat, 0, 0)


@njit(cache=True)
def _depth_along(cl, al, t, h):
    """Signed distance to the box of the segment's point at t (box frame)."""
    return point_box(axpy(t, al, cl), h)[0]


@njit(cache=True)
def _polish(cl, al, half, h, t):
    """Alternating projections (the segment's point -> its nearest box point -> that point's
    nearest segment point) from the search's t: golden section finds a smooth minimum only
    to sqrt(round-off) in t, and the normal inherits that error; the projections converge
    on the exact pair of closest points. Kept while the distance does not grow."""
    f = _depth_along(cl, al, t, h)
    if f <= 0.0:
        return t
    for _ in range(_POLISH_STEPS):
        q = point_box(axpy(t, al, cl), h)[2]
        s = min(max(dot(sub(q, cl), al), -half), half)
        fs = _depth_along(cl, al, s, h)
        if fs > f:
            break
        t, f = s, fs
    return t


@njit(cache=True)
def capsule_box(Rc, pc, r, half, Rb, pb, h, margin, verts, man, mfeat):
    """Capsule against a box: each cap's sphere within the margin (features 0: -z, 1: +z),
    and the segment's deepest point when it lies between them and is deeper than both
    (feature 2: a capsule across an edge); a segment into the box: EPA's one point."""
    a = column(Rc, 2)
    cl = mul33T_vec(Rb, pc[0] - pb[0], pc[1] - pb[1], pc[2] - pb[2])
    al = mul33T_vec(Rb, a[0], a[1], a[2])
    lo, hi = -half, half
    for _ in range(_SEARCH_STEPS):
        t1 = hi - _GOLDEN * (hi - lo)
        t2 = lo + _GOLDEN * (hi - lo)
        if _depth_along(cl, al, t1, h) <= _depth_along(cl, al, t2, h):
            hi = t2
        else:
            lo = t1
    t = _polish(cl, al, half, h, 0.5 * (lo + hi))
    if _depth_along(cl, al, t, h) < 0.0:
        return convex_convex(CAPSULE, Rc, pc, (r, half, 0.0), 0, 0, BOX, Rb, pb, h, 0, 0, verts, margin, man, mfeat)
    f_end = min(_depth_along(cl, al, -half, h), _depth_along(cl, al, half, h))
    k = 0
    for end in range(2):
        k = _sphere_box_point(axpy(half * (2.0 * end - 1.0), a, pc), r, Rb, pb, h, margin, man, mfeat, k, end)
    tol = 1e-9 * (r + h[0] + h[1] + h[2] + half)
    if abs(t) < half - tol and _depth_along(cl, al, t, h) < f_end - tol:
        k = _sphere_box_point(axpy(t, a, pc), r, Rb, pb, h, margin, man, mfeat, k, 2)
    return k
