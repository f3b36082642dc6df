"""Narrow phase: a cylinder against a box (issue 21).

GJK/EPA give the pair's normal and deepest point (``convex.py``). A cylinder flat on a box
face (its cap, or its side, parallel to the face within ``_FLAT`` rad) rests on a line or
an area, which one point cannot hold: then its cap's rim points at four fixed angles, or
its side's two ends, are the manifold where they are within the margin of that face.
"""
import math

from numba import njit

from .box import face_candidate
from .convex import convex_convex
from .layout import BOX, CYLINDER
from .manifold import MAN_N, reduce_candidates
from .vec import axpy, column, cross, dot, perpendicular, scale, sub

_FLAT = 1e-3  # rad: a cap or side this close to parallel with the face lies flat on it


@njit(cache=True)
def _rim_point(a, e1, e2, pc, r, half, n, cap_flat, i):
    """Candidate i (0-3) of the cylinder's feature facing along n: a rim point of the cap
    (cap_flat), else an end (i < 2) of the side line."""
    if cap_flat:
        end = axpy(half if dot(a, n) > 0.0 else -half, a, pc)
        u = e1 if i == 0 else (e2 if i == 1 else (scale(e1, -1.0) if i == 2 else scale(e2, -1.0)))
        return axpy(r, u, end)
    s = sub(n, scale(a, dot(n, a)))
    s = scale(s, 1.0 / math.sqrt(dot(s, s)))
    return axpy(r, s, axpy(half if i == 0 else -half, a, pc))


@njit(cache=True)
def cylinder_box(Rc, pc, r, half, Rb, pb, h, margin, verts, cand, cfeat, man, mfeat):
    """Cylinder (pose Rc, pc; radius r, half length half) against a box: normals from the
    cylinder to the box; a flat cap gives up to 4 points (features 1-4), a flat side 2."""
    k = convex_convex(CYLINDER, Rc, pc, (r, half, 0.0), 0, 0, BOX, Rb, pb, h, 0, 0, verts, margin, man, mfeat)
    if k == 0:
        return 0
    n = (man[0, MAN_N], man[0, MAN_N + 1], man[0, MAN_N + 2])
    a = column(Rc, 2)
    c = abs(dot(a, n))
    cap_flat = c > math.cos(_FLAT)
    if not cap_flat and c > math.sin(_FLAT):
        return k
    e1 = perpendicular(a)
    e2 = cross(a, e1)
    count = 0
    for i in range(4 if cap_flat else 2):
        x = _rim_point(a, e1, e2, pc, r, half, n, cap_flat, i)
        count = face_candidate(x, Rb, pb, h, n, margin, math.cos(_FLAT), cand, cfeat, count, 1 + i)
    if count < 2:
        return k
    return reduce_candidates(cand, cfeat, count, n, man, mfeat)
