"""Narrow phase: a height field against a convex shape (issue 21).

A height field (``model/heightfield.py``) is a grid of nrow x ncol heights over the
rectangle [-hx, hx] x [-hy, hy] of its frame's x-y plane (row r at y = -hy + r dy, column c
at x = -hx + c dx), each cell two triangles split along its diagonal from (r, c) to
(r + 1, c + 1), the solid under them reaching down to its bottom. Its grid points, (x, y, z)
in its frame row by row, are rows SI_VADR.. of ``verts``. Only the cells under the shape's
box (in the field's frame, from its support points) are looked at.

* A curved shape (sphere, capsule, ellipsoid) touches the terrain at points: each prism (a
  triangle and the solid under it) that its box reaches gives one point by GJK/EPA
  (``convex.convex_pair``; the prism a hull of six vertices written, about its top's
  middle, to the last rows of ``hverts``, a copy of ``verts`` in the detection work). A
  point whose normal is level is dropped: it is on a prism's wall, inside the terrain,
  where the next prism's top is the surface.
* A flat-faced shape (box, cylinder, mesh) gets a point per touching pair of features, a
  vertex on a face or an edge across an edge (``heightfield_features.py``): one point per
  prism would stand a resting face on whichever point of it is deepest, which jumps as the
  shape rocks, and EPA's normal where a prism overlaps a face only in part is tilted.

Points that coincide are one point. Points that share a normal (a face on a flat stretch)
keep four, as on a plane: the deepest, then the most spread. A pair keeps HFIELD_MANIFOLD
points (a rough terrain holds a face up at more than four); past that, the deepest and
then, one at a time, the farthest from those kept.
"""
import math

import numpy as np
from numba import njit

from ..spatial_inline import load9, mul33_vec, mul33T_vec
from .convex import convex_pair
from .heightfield_features import WALL, box_edge_points, grid_points, keep, n_vertices, triangle, vertex_points
from .layout import BOX, CYLINDER, MESH, SF_CENTRE, SF_SIZE, SI_NCOL, SI_TYPE, SI_VADR, SI_VNUM
from .manifold import CAND_COLS, CAND_DIST, CAND_N, MAN_DIST, MAN_N, MAN_P, deepest, reduce_own_normals, spread_from
from .poses import POSE_P, POSE_R
from .support import support

PRISM_ROWS = 6   # the scratch rows at the end of hverts: the prism being tested
_SAME = 1e-6     # points closer than this times the cell's shorter side are one point
_PATCH = 1e-10   # normals whose cosine is within this of 1 are one flat patch's


@njit(cache=True)
def _local_box(ks, Rl, pl, zs, verts, vs, ns):
    """(lo, hi): the box of a shape at Rl, pl in the field's frame, from its support points."""
    hx = support(ks, Rl, pl, zs, verts, vs, ns, (1.0, 0.0, 0.0))[0]
    hy = support(ks, Rl, pl, zs, verts, vs, ns, (0.0, 1.0, 0.0))[1]
    hz = support(ks, Rl, pl, zs, verts, vs, ns, (0.0, 0.0, 1.0))[2]
    lx = support(ks, Rl, pl, zs, verts, vs, ns, (-1.0, 0.0, 0.0))[0]
    ly = support(ks, Rl, pl, zs, verts, vs, ns, (0.0, -1.0, 0.0))[1]
    lz = support(ks, Rl, pl, zs, verts, vs, ns, (0.0, 0.0, -1.0))[2]
    return (lx, ly, lz), (hx, hy, hz)


@njit(cache=True)
def _prism_points(field, cells, lo_z, ks, Rs, ps, zs, vs, ns, margin, hverts, man, mfeat, sep, cand, cfeat):
    """GJK/EPA's point of each prism of the cells (r0, r1, c0, c1) that the shape's box
    reaches (lo_z: its lowest z in the field's frame); feature 2 (r (ncol - 1) + c) + tri."""
    Rh, ph, vadr, ncol, dx, dy, bottom, same = field[0], field[1], field[2], field[4], field[7], field[8], field[9], \
        field[10]
    r0, r1, c0, c1 = cells
    nv = hverts.shape[0] - PRISM_ROWS
    count = 0
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            for tri in range(2):
                a, b, d = triangle(vadr, ncol, r, c, tri)
                top = max(hverts[a, 2], max(hverts[b, 2], hverts[d, 2]))
                if lo_z - margin > top:
                    continue
                mid = ((hverts[a, 0] + hverts[b, 0] + hverts[d, 0]) / 3.0,
                       (hverts[a, 1] + hverts[b, 1] + hverts[d, 1]) / 3.0, 0.5 * (top + bottom))
                for k, i in enumerate((a, b, d)):
                    for j in range(2):
                        hverts[nv + k, j] = hverts[i, j] - mid[j]
                        hverts[nv + 3 + k, j] = hverts[i, j] - mid[j]
                    hverts[nv + k, 2] = hverts[i, 2] - mid[2]
                    hverts[nv + 3 + k, 2] = bottom - mid[2]
                o = mul33_vec(Rh, mid[0], mid[1], mid[2])
                pm = (ph[0] + o[0], ph[1] + o[1], ph[2] + o[2])
                if convex_pair(ks, Rs, ps, zs, vs, ns, MESH, Rh, pm, (dx, dy, 0.5 * (top - bottom)), nv, PRISM_ROWS,
                               hverts, margin, man, mfeat, sep) == 0:
                    continue
                n = (man[0, MAN_N], man[0, MAN_N + 1], man[0, MAN_N + 2])  # (from the shape into the field)
                if mul33T_vec(Rh, n[0], n[1], n[2])[2] > -WALL:
                    continue  # (on a wall: inside the terrain)
                count = keep(cand, cfeat, count, (man[0, MAN_P], man[0, MAN_P + 1], man[0, MAN_P + 2]), n,
                             man[0, MAN_DIST], 2 * (r * (ncol - 1) + c) + tri, same)
    return count


@njit(cache=True)
def _flat_patches(cand, cfeat, count):
    """Keep at most MAX_MANIFOLD of the candidates that share a normal (a face resting on a
    flat stretch: its corners, the grid points and crossings under it), the deepest and then
    the most spread, as on a plane: more add no support, and make the contact problem
    degenerate (slow to solve). Returns the new count (the rows kept moved to the front)."""
    group = np.empty(count, dtype=np.int64)
    ngroups = 0
    for i in range(count):
        group[i] = -1
        for j in range(i):
            if (cand[i, CAND_N] * cand[j, CAND_N] + cand[i, CAND_N + 1] * cand[j, CAND_N + 1]
                    + cand[i, CAND_N + 2] * cand[j, CAND_N + 2]) > 1.0 - _PATCH:
                group[i] = group[j]
                break
        if group[i] < 0:
            group[i] = ngroups
            ngroups += 1
    keep_row = np.zeros(count, dtype=np.bool_)
    for g in range(ngroups):
        first = -1
        for i in range(count):
            if group[i] == g and (first < 0 or cand[i, CAND_DIST] < cand[first, CAND_DIST]):
                first = i
        chosen, m = spread_from(cand, count, first, group, g)
        for k in range(m):
            keep_row[chosen[k]] = True
    kept = 0
    for i in range(count):
        if keep_row[i]:
            for j in range(CAND_COLS):
                cand[kept, j] = cand[i, j]
            cfeat[kept] = cfeat[i]
            kept += 1
    return kept


@njit(cache=True)
def heightfield_pair(si, sf, poses, s, h, margin, hverts, cand, cfeat, man, mfeat):
    """Shape s (convex: not a plane or height field) against height field h: up to the
    manifold's rows of points, normals from s to the field (module docstring). hverts: the
    detection work's copy of ``verts`` with PRISM_ROWS rows more."""
    Rh, ph = load9(poses, h, POSE_R), (poses[h, POSE_P], poses[h, POSE_P + 1], poses[h, POSE_P + 2])
    Rs, ps = load9(poses, s, POSE_R), (poses[s, POSE_P], poses[s, POSE_P + 1], poses[s, POSE_P + 2])
    ks, vs, ns = si[s, SI_TYPE], si[s, SI_VADR], si[s, SI_VNUM]
    zs = (sf[s, SF_SIZE], sf[s, SF_SIZE + 1], sf[s, SF_SIZE + 2])
    vadr, ncol = si[h, SI_VADR], si[h, SI_NCOL]
    nrow = si[h, SI_VNUM] // ncol
    hx, hy = sf[h, SF_SIZE], sf[h, SF_SIZE + 1]
    dx, dy = 2.0 * hx / (ncol - 1), 2.0 * hy / (nrow - 1)
    field = (Rh, ph, vadr, nrow, ncol, hx, hy, dx, dy, sf[h, SF_CENTRE + 2] - sf[h, SF_SIZE + 2], _SAME * min(dx, dy))
    # the shape in the field's frame: Rl = Rh^T Rs, pl = Rh^T (ps - ph)
    c0 = mul33T_vec(Rh, Rs[0], Rs[3], Rs[6])
    c1 = mul33T_vec(Rh, Rs[1], Rs[4], Rs[7])
    c2 = mul33T_vec(Rh, Rs[2], Rs[5], Rs[8])
    Rl = (c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2])
    pl = mul33T_vec(Rh, ps[0] - ph[0], ps[1] - ph[1], ps[2] - ph[2])
    lo, hi = _local_box(ks, Rl, pl, zs, hverts, vs, ns)
    cells = (max(0, int(math.floor((lo[1] - margin + hy) / dy))),
             min(nrow - 2, int(math.floor((hi[1] + margin + hy) / dy))),
             max(0, int(math.floor((lo[0] - margin + hx) / dx))),
             min(ncol - 2, int(math.floor((hi[0] + margin + hx) / dx))))
    if cells[0] > cells[1] or cells[2] > cells[3]:
        return 0
    sep = np.empty(3)
    if ks == BOX or ks == CYLINDER or ks == MESH:
        first = 2 * (nrow - 1) * (ncol - 1)  # (the prisms' features come first, unused here)
        count = vertex_points(field, Rl, pl, ks, zs, vs, ns, margin, hverts, cand, cfeat, 0, first)
        first += n_vertices(ks, ns)
        count = grid_points(field, cells, lo[2], hi[2], ks, Rs, ps, zs, vs, ns, margin, hverts, man, mfeat, sep, cand,
                            cfeat, count, first)
        if ks == BOX:
            count = box_edge_points(field, cells, lo[2], hi[2], Rl, pl, zs, margin, hverts, cand, cfeat, count,
                                    first + nrow * ncol)
    else:
        count = _prism_points(field, cells, lo[2], ks, Rs, ps, zs, vs, ns, margin, hverts, man, mfeat, sep, cand, cfeat)
    if count == 0:
        return 0
    count = _flat_patches(cand, cfeat, count)
    return reduce_own_normals(cand, cfeat, count, deepest(cand, count), man, mfeat)
