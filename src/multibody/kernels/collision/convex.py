"""Narrow phase: any two convex shapes, by GJK and EPA (issue 21).

For the pairs without a closed form (cylinders, ellipsoids and meshes against the
others). GJK runs on the shapes' cores (a sphere's centre, a capsule's segment, the
others whole), in coordinates centred on shape a (so a scene far from the origin loses
no digits): cores apart give the distance less the radii; overlapping cores go to EPA on
the whole shapes. One point, midway between the two surfaces.
"""
import numpy as np
from numba import njit

from .epa import depth_along, epa
from .gjk import gjk
from .manifold import put_point
from .support import core_radius
from .vec import add, axpy, norm, scale, sub

_APART = 1e-9  # core distance (relative to the shapes' sizes) above which the cores are apart


@njit(cache=True)
def _weighted(X, lam, count):
    x = (0.0, 0.0, 0.0)
    for k in range(count):
        x = (x[0] + lam[k] * X[k, 0], x[1] + lam[k] * X[k, 1], x[2] + lam[k] * X[k, 2])
    return x


@njit(cache=True)
def convex_convex(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, margin, man, mfeat):
    """Shape a (type ka, pose Ra, pa, sizes sa, hull rows va:va+na) against shape b: one
    point (feature 0), normal from a to b, when their distance is at most the margin."""
    return convex_pair(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, margin, man, mfeat, np.empty(3))


@njit(cache=True)
def convex_pair(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, margin, man, mfeat, sep):
    """``convex_convex``, and sep (3,) = x_b - x_a of the cores' closest points where the
    cores are apart (the direction ``separation.apart_along`` tries next time), else 0."""
    for i in range(3):
        sep[i] = 0.0
    W = np.empty((4, 3))
    A = np.empty((4, 3))
    B = np.empty((4, 3))
    lam = np.empty(4)
    o = (0.0, 0.0, 0.0)
    pb_a = sub(pb, pa)  # b's origin relative to a's
    ra = core_radius(ka, sa)
    rb = core_radius(kb, sb)
    overlap, count, v = gjk(ka, Ra, o, sa, va, na, kb, Rb, pb_a, sb, vb, nb, verts, True, W, A, B, lam)
    d = norm(v)
    scale_ab = max(max(sa[0], sa[1]), sa[2]) + max(max(sb[0], sb[1]), sb[2])
    if not overlap and d > _APART * scale_ab:
        for i in range(3):
            sep[i] = v[i]
        dist = d - ra - rb
        if dist > margin:
            return 0
        n = scale(v, 1.0 / d)
        xa = axpy(ra, n, _weighted(A, lam, count))
        xb = axpy(-rb, n, _weighted(B, lam, count))
        return put_point(man, mfeat, 0, add(pa, scale(add(xa, xb), 0.5)), n, dist, 0)
    # the cores overlap: the simplex of the whole shapes around the origin, then EPA
    overlap, count, v = gjk(ka, Ra, o, sa, va, na, kb, Rb, pb_a, sb, vb, nb, verts, False, W, A, B, lam)
    if not overlap:  # touching within round-off: distance |v| along v
        d = norm(v)
        if d == 0.0:
            return 0
        n = scale(v, 1.0 / d)
        mid = scale(add(_weighted(A, lam, count), _weighted(B, lam, count)), 0.5)
        return put_point(man, mfeat, 0, add(pa, mid), n, d, 0)
    ok, depth, n, xa, xb = epa(ka, Ra, o, sa, va, na, kb, Rb, pb_a, sb, vb, nb, verts, W, A, B, count)
    if not ok:
        return 0
    depth = depth_along(ka, Ra, o, sa, va, na, kb, Rb, pb_a, sb, vb, nb, verts, n)
    return put_point(man, mfeat, 0, add(pa, scale(add(xa, xb), 0.5)), n, -depth, 0)
