"""A pair's last separating direction, tried before GJK (issue 21).

Two convex shapes that were apart at the last detection are nearly always apart along the
same direction now (bodies move little in a step). With n the unit direction from a to b
that GJK found last (v = x_b - x_a of the closest points), the slab test

    min over b of n.x  -  max over a of n.x  >  margin

proves the shapes farther apart than the margin (their distance is at least that gap), so
the pair gives no contact, which is what GJK would conclude: the test only skips GJK where
its answer is known. It costs one support point of each shape (a hull's by a walk along its
edges from the last one, ``hull_walk.py``). Kept per ordered pair in ``sep`` (ns, ns,
SEP_COLS) of the detection work (``work.py``): the direction (zero where GJK has not run,
or the cores overlapped) and each shape's last support vertex (a plane pair: the mesh's
lowest vertex, ``plane.plane_mesh``).
"""
from numba import njit

from ..spatial_inline import mul33T_vec, mul33_vec
from .hull_walk import hull_support
from .layout import MESH
from .support import support
from .vec import dot, norm, scale

SEP_D = 0      # 3: the last separating direction, from the pair's first shape to its second
SEP_START_A = 3  # the first shape's last support vertex (a row of verts; meshes)
SEP_START_B = 4  # the second's
SEP_COLS = 5


@njit(cache=True)
def walked_support(kind, R, p, size, verts, vadr, vnum, adj_start, adj, cache, col, d):
    """``support.support`` along world direction d, a mesh's by a walk from the vertex in
    cache[col] (which is set to the new one)."""
    if kind != MESH:
        return support(kind, R, p, size, verts, vadr, vnum, d)
    dl = mul33T_vec(R, d[0], d[1], d[2])
    row, _ = hull_support(verts, adj_start, adj, vadr, vnum, int(cache[col]), dl)
    cache[col] = row
    x = mul33_vec(R, verts[row, 0], verts[row, 1], verts[row, 2])
    return (p[0] + x[0], p[1] + x[1], p[2] + x[2])


@njit(cache=True)
def apart_along(ka, Ra, sa, va, na, kb, Rb, pb_a, sb, vb, nb, verts, adj_start, adj, cache, margin):
    """Whether shape a (type ka, rotation Ra, at the origin) and shape b (Rb, at pb_a relative
    to a) are more than ``margin`` apart along the direction cache[SEP_D:SEP_D + 3] (not
    normalised; zero: unknown, False)."""
    d = (cache[SEP_D], cache[SEP_D + 1], cache[SEP_D + 2])
    s = norm(d)
    if s == 0.0:
        return False
    n = scale(d, 1.0 / s)
    xa = walked_support(ka, Ra, (0.0, 0.0, 0.0), sa, verts, va, na, adj_start, adj, cache, SEP_START_A, n)
    xb = walked_support(kb, Rb, pb_a, sb, verts, vb, nb, adj_start, adj, cache, SEP_START_B, (-n[0], -n[1], -n[2]))
    return dot(n, xb) - dot(n, xa) > margin
