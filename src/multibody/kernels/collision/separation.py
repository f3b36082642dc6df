"""A pair's last separating direction, tried before GJK (issue 21).

Two convex shapes that were apart at the last detection are nearly always apart along the
same direction now (bodies move little in a step). With n the unit direction from a to b
that GJK found last (v = x_b - x_a of the closest points), the slab test

    min over b of n.x  -  max over a of n.x  >  margin

proves the shapes farther apart than the margin (their distance is at least that gap), so
the pair gives no contact, which is what GJK would conclude: the test only skips GJK where
its answer is known. It costs one support point of each shape (a hull's: a pass over its
vertices in its own frame), against GJK's several. Directions are kept per ordered pair in
``sep`` (ns, ns, 3) of the detection work (``work.py``): zero where GJK has not run, or the
cores overlapped.
"""
from numba import njit

from .support import support
from .vec import dot, norm, scale


@njit(cache=True)
def apart_along(ka, Ra, sa, va, na, kb, Rb, pb_a, sb, vb, nb, verts, d, margin):
    """Whether shape a (type ka, rotation Ra, at the origin) and shape b (Rb, at pb_a relative
    to a) are more than ``margin`` apart along the direction d (a 3-array; not normalised;
    zero: unknown, False)."""
    s = norm((d[0], d[1], d[2]))
    if s == 0.0:
        return False
    n = scale((d[0], d[1], d[2]), 1.0 / s)
    xa = support(ka, Ra, (0.0, 0.0, 0.0), sa, verts, va, na, n)
    xb = support(kb, Rb, pb_a, sb, verts, vb, nb, (-n[0], -n[1], -n[2]))
    return dot(n, xb) - dot(n, xa) > margin
