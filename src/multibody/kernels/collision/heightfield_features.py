"""The contact points of a flat-faced shape (a box, cylinder or mesh) on a height field, one
per touching pair of features (issue 21; ``heightfield.py`` calls them).

A polyhedral terrain touches a polyhedron where a vertex of one meets a face of the other,
or an edge crosses an edge; each such pair within the margin gives one point, found
exactly and followed continuously as the shape moves:

* ``vertex_points``: a vertex of the shape (a box's corners, a cylinder's rim points, eight
  per cap, a mesh's hull vertices) over the triangle under it, its distance along that
  triangle's normal;
* ``grid_points``: a grid point of the field (a peak) on a face of the shape;
* ``box_edge_points``: an edge of the field (along x, along y, the cells' diagonals)
  crossing an edge of a box: a ridge across the box. (A cylinder's rim and a mesh's hull
  edges are not tested against the field's edges: a ridge across them between grid points
  goes unfound until a grid point or vertex meets a face.)

Grid points take their distance and normal from GJK/EPA (``convex.convex_pair``, the grid
point a sphere of radius 0); an edge crossing, from the two segments' closest points and
the normal across both. A normal that is not among the normals of the faces that meet
there (``in_cone``; for a box edge, its two faces') is dropped: another feature pair holds
the shape there. Each point goes to the pair's candidates through
``keep``: points that coincide (features meeting at one place) are one point, the deeper.
"""
import math

from numba import njit

from ..spatial_inline import mul33_vec, mul33T_vec
from .convex import convex_pair
from .layout import BOX, CYLINDER, SPHERE
from .manifold import CAND_DIST, CAND_N, CAND_P, MAN_DIST, MAN_N, MAN_P
from .spheres import segments_closest
from .vec import cross, dot, norm, scale, sub

RIM = 8          # rim points per cylinder cap
WALL = 1e-6      # a prism point whose normal falls into the field less than this (its sine) is dropped
CONE_TOL = 1e-6  # ``in_cone``'s slack in the cosines (a flat stretch: 1.4e-3 rad)


@njit(cache=True)
def keep(cand, cfeat, count, p, n, dist, feature, same):
    """Add a candidate point with its own normal; returns the new count. A point within
    ``same`` of a kept one is that point (two feature pairs meeting there: two rows would make
    the contact problem degenerate): the deeper stays. When the rows are full, it replaces
    the shallowest where it is deeper."""
    k = count
    for i in range(count):
        d2 = (cand[i, CAND_P] - p[0]) ** 2 + (cand[i, CAND_P + 1] - p[1]) ** 2 + (cand[i, CAND_P + 2] - p[2]) ** 2
        if d2 <= same * same:
            if dist >= cand[i, CAND_DIST]:
                return count
            k = i
            break
    if k == count and count >= cand.shape[0]:
        k = 0
        for i in range(1, count):
            if cand[i, CAND_DIST] > cand[k, CAND_DIST]:
                k = i
        if cand[k, CAND_DIST] <= dist:
            return count
    for i in range(3):
        cand[k, CAND_P + i] = p[i]
        cand[k, CAND_N + i] = n[i]
    cand[k, CAND_DIST] = dist
    cfeat[k] = feature
    return max(count, k + 1)


@njit(cache=True, inline="always")
def triangle(vadr, ncol, r, c, tri):
    """Rows of verts of cell (r, c)'s triangle tri: 0, the one under the diagonal
    ((r, c), (r, c + 1), (r + 1, c + 1)); 1, the other ((r, c), (r + 1, c + 1), (r + 1, c))."""
    i0 = vadr + r * ncol + c
    if tri == 0:
        return i0, i0 + 1, i0 + ncol + 1
    return i0, i0 + ncol + 1, i0 + ncol


@njit(cache=True, inline="always")
def row(verts, i):
    return (verts[i, 0], verts[i, 1], verts[i, 2])


@njit(cache=True, inline="always")
def n_vertices(ks, ns):
    """The number of ``shape_vertex`` points of a box, cylinder or mesh (ns: its hull's)."""
    return 8 if ks == BOX else (2 * RIM if ks == CYLINDER else ns)


@njit(cache=True)
def shape_vertex(ks, zs, verts, vs, i):
    """Vertex i of a box (corner: bit k set for +half[k]), of a cylinder (rim point i % RIM
    of cap i // RIM) or a mesh (hull vertex i), in its own frame."""
    if ks == BOX:
        return (zs[0] if i & 1 else -zs[0], zs[1] if i & 2 else -zs[1], zs[2] if i & 4 else -zs[2])
    if ks == CYLINDER:
        angle = 2.0 * math.pi * (i % RIM) / RIM
        return (zs[0] * math.cos(angle), zs[0] * math.sin(angle), zs[1] if i >= RIM else -zs[1])
    return row(verts, vs + i)


@njit(cache=True)
def _up(verts, vadr, ncol, r, c, tri):
    """The unit upward normal of cell (r, c)'s triangle tri, in the field's frame."""
    a, b, d = triangle(vadr, ncol, r, c, tri)
    xa = row(verts, a)
    nt = cross(sub(row(verts, b), xa), sub(row(verts, d), xa))
    return scale(nt, 1.0 / norm(nt))


@njit(cache=True)
def vertex_points(field, Rl, pl, ks, zs, vs, ns, margin, verts, cand, cfeat, count, first):
    """A point for each vertex of the shape (at Rl, pl in the field's frame) over the field
    within the margin of the triangle under it; feature ``first`` + the vertex's index.
    field: (Rh, ph, vadr, nrow, ncol, hx, hy, dx, dy, bottom, same)."""
    Rh, ph, vadr, nrow, ncol, hx, hy, dx, dy, bottom, same = field
    for i in range(n_vertices(ks, ns)):
        v = shape_vertex(ks, zs, verts, vs, i)
        x = mul33_vec(Rl, v[0], v[1], v[2])
        x = (x[0] + pl[0], x[1] + pl[1], x[2] + pl[2])
        fx = (x[0] + hx) / dx
        fy = (x[1] + hy) / dy
        if not (0.0 <= fx <= ncol - 1 and 0.0 <= fy <= nrow - 1) or x[2] < bottom:
            continue
        c = min(int(fx), ncol - 2)
        r = min(int(fy), nrow - 2)
        tri = 0 if fx - c >= fy - r else 1
        xa = row(verts, triangle(vadr, ncol, r, c, tri)[0])
        nt = _up(verts, vadr, ncol, r, c, tri)
        dist = dot(nt, sub(x, xa))
        if dist > margin:
            continue
        mid = mul33_vec(Rh, x[0] - 0.5 * dist * nt[0], x[1] - 0.5 * dist * nt[1], x[2] - 0.5 * dist * nt[2])
        n = mul33_vec(Rh, -nt[0], -nt[1], -nt[2])  # (from the shape to the field)
        count = keep(cand, cfeat, count, (ph[0] + mid[0], ph[1] + mid[1], ph[2] + mid[2]), n, dist, first + i, same)
    return count


#: (row, column, triangle) offsets from a grid point of the triangles that share it, and from
#: an edge's first point of the triangles on either side (along x, along y, the diagonal)
AROUND_POINT = ((0, 0, 0), (0, 0, 1), (-1, 0, 1), (-1, -1, 0), (-1, -1, 1), (0, -1, 0))
BESIDE_EDGE = (((-1, 0, 1), (0, 0, 0)), ((0, -1, 0), (0, 0, 1)), ((0, 0, 0), (0, 0, 1)))


@njit(cache=True)
def in_cone(field, verts, r, c, offsets, m):
    """Whether the unit direction m (out of the field, in its frame) lies among the upward
    normals of the triangles at offsets from (r, c) (those of the grid): no farther from each
    than they are from one another. A grid point or edge on a flat stretch takes only its
    faces' normal; EPA's normal there is level or tilted where a face of the shape lines up
    with it (an edge of the shape over the grid line), and another feature pair holds it."""
    vadr, nrow, ncol = field[2], field[3], field[4]
    spread = 1.0
    worst = 1.0
    for o in offsets:
        r1, c1 = r + o[0], c + o[1]
        if r1 < 0 or c1 < 0 or r1 > nrow - 2 or c1 > ncol - 2:
            continue
        n1 = _up(verts, vadr, ncol, r1, c1, o[2])
        worst = min(worst, dot(m, n1))
        for o2 in offsets:
            r2, c2 = r + o2[0], c + o2[1]
            if r2 >= 0 and c2 >= 0 and r2 <= nrow - 2 and c2 <= ncol - 2:
                spread = min(spread, dot(n1, _up(verts, vadr, ncol, r2, c2, o2[2])))
    return worst >= spread - CONE_TOL


@njit(cache=True)
def _gjk_point(field, kind, R, x, size, ks, Rs, ps, zs, vs, ns, margin, verts, man, mfeat, sep, cand, cfeat, count,
               feature, r, c, offsets):
    """The point of the grid point or edge at (r, c) (type kind at R, x, size) against the
    shape, kept when within the margin and its normal is among its faces' (``in_cone``;
    offsets: theirs)."""
    Rh, same = field[0], field[10]
    if convex_pair(kind, R, x, size, 0, 0, ks, Rs, ps, zs, vs, ns, verts, margin, man, mfeat, sep) == 0:
        return count
    n = (-man[0, MAN_N], -man[0, MAN_N + 1], -man[0, MAN_N + 2])  # (from the shape to the field)
    if not in_cone(field, verts, r, c, offsets, scale(mul33T_vec(Rh, n[0], n[1], n[2]), -1.0)):
        return count
    return keep(cand, cfeat, count, (man[0, MAN_P], man[0, MAN_P + 1], man[0, MAN_P + 2]), n, man[0, MAN_DIST],
                feature, same)


@njit(cache=True)
def grid_points(field, cells, lo_z, hi_z, ks, Rs, ps, zs, vs, ns, margin, verts, man, mfeat, sep, cand, cfeat, count,
                first):
    """A point for each grid point of the cells (r0, r1, c0, c1) within the margin of the
    shape (its box spans lo_z..hi_z in the field's frame); feature ``first`` + its index."""
    Rh, ph, vadr, ncol = field[0], field[1], field[2], field[4]
    r0, r1, c0, c1 = cells
    for r in range(r0, r1 + 2):
        for c in range(c0, c1 + 2):
            i = vadr + r * ncol + c
            if verts[i, 2] < lo_z - margin or verts[i, 2] > hi_z + margin:
                continue
            o = mul33_vec(Rh, verts[i, 0], verts[i, 1], verts[i, 2])
            count = _gjk_point(field, SPHERE, Rs, (ph[0] + o[0], ph[1] + o[1], ph[2] + o[2]), (0.0, 0.0, 0.0), ks,
                               Rs, ps, zs, vs, ns, margin, verts, man, mfeat, sep, cand, cfeat, count,
                               first + r * ncol + c, r, c, AROUND_POINT)
    return count


@njit(cache=True)
def _crossing(field, verts, r, c, kind, ct, et, ht, cb, ab, hb, out_i, out_j, margin):
    """(dist, n_up, midpoint) of terrain edge (centre ct, unit et, half length ht, the field
    frame) crossing box edge (cb, ab, hb; its faces' outward normals out_i, out_j), or
    dist = inf where they do not touch as two edges: parallel, closest points at an end of
    either (a vertex on a face: another feature pair), or the normal not in both edges'
    cones."""
    none = (math.inf, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    w = cross(et, ab)
    lw = norm(w)
    if lw < 1e-6:
        return none
    s, t = segments_closest(ct, et, ht, cb, ab, hb)
    if abs(s) >= ht or abs(t) >= hb:
        return none
    n = scale(w, (1.0 if w[2] >= 0.0 else -1.0) / lw)  # (up, out of the field)
    xt = (ct[0] + s * et[0], ct[1] + s * et[1], ct[2] + s * et[2])
    xb = (cb[0] + t * ab[0], cb[1] + t * ab[1], cb[2] + t * ab[2])
    dist = dot(n, sub(xb, xt))
    if dist > margin or -dot(n, out_i) < -CONE_TOL or -dot(n, out_j) < -CONE_TOL:
        return none
    if not in_cone(field, verts, r, c, BESIDE_EDGE[kind], n):
        return none
    return dist, n, scale((xt[0] + xb[0], xt[1] + xb[1], xt[2] + xb[2]), 0.5)


@njit(cache=True)
def box_edge_points(field, cells, lo_z, hi_z, Rl, pl, zs, margin, verts, cand, cfeat, count, first):
    """A point where an edge of the cells (r0, r1, c0, c1) (along x, along y, the diagonal)
    crosses an edge of the box (at Rl, pl in the field's frame, half extents zs) within the
    margin: a ridge of the field across the box's edge; feature ``first`` + 12 (3 (the edge's
    first grid point's index) + its kind) + the box edge's index."""
    Rh, ph, vadr, ncol, same = field[0], field[1], field[2], field[4], field[10]
    r0, r1, c0, c1 = cells
    for r in range(r0, r1 + 2):
        for c in range(c0, c1 + 2):
            i = vadr + r * ncol + c
            for kind in range(3):
                if (kind != 1 and c > c1) or (kind != 0 and r > r1):
                    continue  # (past the cells' last corner)
                j = i + 1 if kind == 0 else (i + ncol if kind == 1 else i + ncol + 1)
                if max(verts[i, 2], verts[j, 2]) < lo_z - margin or min(verts[i, 2], verts[j, 2]) > hi_z + margin:
                    continue
                e = sub(row(verts, j), row(verts, i))
                ht = 0.5 * norm(e)
                et = scale(e, 0.5 / ht)
                ct = (verts[i, 0] + 0.5 * e[0], verts[i, 1] + 0.5 * e[1], verts[i, 2] + 0.5 * e[2])
                for b in range(12):  # box edge b: along axis k = b // 4, at signs (bit 0, bit 1) of the others
                    k = b // 4
                    ki, kj = (k + 1) % 3, (k + 2) % 3
                    si = 1.0 if b & 1 else -1.0
                    sj = 1.0 if b & 2 else -1.0
                    ai = (Rl[ki], Rl[3 + ki], Rl[6 + ki])
                    aj = (Rl[kj], Rl[3 + kj], Rl[6 + kj])
                    cb = (pl[0] + si * zs[ki] * ai[0] + sj * zs[kj] * aj[0],
                          pl[1] + si * zs[ki] * ai[1] + sj * zs[kj] * aj[1],
                          pl[2] + si * zs[ki] * ai[2] + sj * zs[kj] * aj[2])
                    dist, n, x = _crossing(field, verts, r, c, kind, ct, et, ht, cb, (Rl[k], Rl[3 + k], Rl[6 + k]),
                                           zs[k], scale(ai, si), scale(aj, sj), margin)
                    if dist == math.inf:
                        continue
                    xw = mul33_vec(Rh, x[0], x[1], x[2])
                    nw = mul33_vec(Rh, -n[0], -n[1], -n[2])  # (from the box to the field)
                    count = keep(cand, cfeat, count, (ph[0] + xw[0], ph[1] + xw[1], ph[2] + xw[2]), nw, dist,
                                 first + 12 * (3 * (r * ncol + c) + kind) + b, same)
    return count
