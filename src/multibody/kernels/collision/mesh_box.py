"""Narrow phase: a convex mesh against a box (issue 21).

GJK/EPA give the pair's normal and deepest point (``convex.py``). A mesh face flat on a
box face rests on an area, which one point cannot hold: the hull vertices within the
margin of the box face that the normal leaves by (its outward normal within ``_FLAT`` rad
of the pair's) are then the manifold, reduced to four (the deepest, then the most spread).
"""
import math

from numba import njit

from ..spatial_inline import mul33_vec
from .box import face_candidate
from .convex import convex_convex
from .layout import BOX, MESH
from .manifold import MAN_N, reduce_candidates

_FLAT = 1e-3  # rad: a box normal this close to the pair's is the face the contact is on


@njit(cache=True)
def mesh_box(Rm, pm, vadr, vnum, Rb, pb, h, margin, verts, cand, cfeat, man, mfeat):
    """Convex mesh (pose Rm, pm; hull rows vadr:vadr+vnum of verts) against a box: normals
    from the mesh to the box; a face flat on the box gives up to 4 points (feature: the
    vertex index + 1), else EPA's one (feature 0)."""
    k = convex_convex(MESH, Rm, pm, (0.0, 0.0, 0.0), vadr, vnum, BOX, Rb, pb, h, 0, 0, verts, margin, man, mfeat)
    if k == 0:
        return 0
    n = (man[0, MAN_N], man[0, MAN_N + 1], man[0, MAN_N + 2])
    count = 0
    for v in range(vnum):
        x = mul33_vec(Rm, verts[vadr + v, 0], verts[vadr + v, 1], verts[vadr + v, 2])
        x = (x[0] + pm[0], x[1] + pm[1], x[2] + pm[2])
        count = face_candidate(x, Rb, pb, h, n, margin, math.cos(_FLAT), cand, cfeat, count, 1 + v)
    if count < 2:
        return k
    return reduce_candidates(cand, cfeat, count, n, man, mfeat)
