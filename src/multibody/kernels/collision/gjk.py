"""GJK: the distance between two convex shapes and their closest points (issue 21).

Gilbert, Johnson and Keerthi's iteration on the Minkowski difference C = B - A: the point
v of C nearest the origin is approached through simplices of support points, each reduced
to the face of it nearest the origin. That face is found by trying every face (at most 15
of a tetrahedron) and keeping the nearest whose projection of the origin lies inside it
(barycentric weights >= 0): the closest point of a simplex is the projection on the
affine hull of the face it lies inside. The closest points of A and B are the same
weights of the support points that made each vertex.

Simplex arrays (written in place): W (4, 3) the vertices w = x_b - x_a, A and B (4, 3) the
x_a and x_b, lam (4,) the weights.
"""
import numpy as np
from numba import njit

from .support import minkowski_support
from .vec import cross, dot, norm, sub

_MAX_ITER = 128
_REL_TOL = 1e-12  # stop when |v|^2 - v.w <= this |v|^2: |v| within 1e-12 relative of the distance
_PROGRESS = 1e-13  # a step that shortens |v|^2 by less than this fraction ends the iteration
_TOUCH = 1e-24     # |v|^2 (m^2) below which the shapes overlap


@njit(cache=True)
def _det3(a, b, c):
    """det [a b c] (columns)."""
    return dot(a, cross(b, c))


@njit(cache=True)
def _affine_weights(W, i0, i1, i2, i3, m):
    """Weights (l0, l1, l2, l3) of the point of the affine hull of the rows i0.. (m of them)
    of W nearest the origin, and whether it was solvable (the face is not degenerate)."""
    w0 = (W[i0, 0], W[i0, 1], W[i0, 2])
    if m == 1:
        return (1.0, 0.0, 0.0, 0.0), True
    e0 = sub((W[i1, 0], W[i1, 1], W[i1, 2]), w0)
    if m == 2:
        g = dot(e0, e0)
        if g <= 0.0:
            return (1.0, 0.0, 0.0, 0.0), False
        mu = -dot(e0, w0) / g
        return (1.0 - mu, mu, 0.0, 0.0), True
    e1 = sub((W[i2, 0], W[i2, 1], W[i2, 2]), w0)
    if m == 3:  # the normal equations of min |w0 + m0 e0 + m1 e1|
        g00, g01, g11 = dot(e0, e0), dot(e0, e1), dot(e1, e1)
        r0, r1 = -dot(e0, w0), -dot(e1, w0)
        det = g00 * g11 - g01 * g01
        if det <= 1e-14 * g00 * g11:
            return (1.0, 0.0, 0.0, 0.0), False
        m0 = (r0 * g11 - r1 * g01) / det
        m1 = (g00 * r1 - g01 * r0) / det
        return (1.0 - m0 - m1, m0, m1, 0.0), True
    # a tetrahedron: the origin's barycentric coordinates, w0 + E mu = 0 (Cramer's rule)
    e2 = sub((W[i3, 0], W[i3, 1], W[i3, 2]), w0)
    det = _det3(e0, e1, e2)
    if abs(det) <= 1e-14 * norm(e0) * norm(e1) * norm(e2):
        return (1.0, 0.0, 0.0, 0.0), False
    r = (-w0[0], -w0[1], -w0[2])
    m0 = _det3(r, e1, e2) / det
    m1 = _det3(e0, r, e2) / det
    m2 = _det3(e0, e1, r) / det
    return (1.0 - m0 - m1 - m2, m0, m1, m2), True


@njit(cache=True)
def reduce_simplex(W, A, B, lam, count):
    """Reduce the simplex (rows :count) to the face nearest the origin, in place; returns
    (its number of vertices, the nearest point v)."""
    best_mask, best_d = 1, -1.0
    best_l = (1.0, 0.0, 0.0, 0.0)
    for mask in range(1, 1 << count):  # every face (only those with the new point would do in
        # exact arithmetic, Johnson's; near convergence round-off breaks that)
        i0, i1, i2, i3 = 0, 0, 0, 0
        m = 0
        for k in range(count):
            if mask & (1 << k):
                if m == 0:
                    i0 = k
                elif m == 1:
                    i1 = k
                elif m == 2:
                    i2 = k
                else:
                    i3 = k
                m += 1
        l, ok = _affine_weights(W, i0, i1, i2, i3, m)
        if not ok or min(min(l[0], l[1]), min(l[2], l[3])) < 0.0:
            continue
        v = (0.0, 0.0, 0.0)
        for j in range(m):
            k = i0 if j == 0 else (i1 if j == 1 else (i2 if j == 2 else i3))
            v = (v[0] + l[j] * W[k, 0], v[1] + l[j] * W[k, 1], v[2] + l[j] * W[k, 2])
        d = dot(v, v)
        if best_d < 0.0 or d < best_d:
            best_mask, best_d, best_l = mask, d, l
    m = 0
    for k in range(count):  # compact the rows of the face kept (k >= m: no overwrite ahead)
        if best_mask & (1 << k):
            for c in range(3):
                W[m, c], A[m, c], B[m, c] = W[k, c], A[k, c], B[k, c]
            lam[m] = best_l[m]
            m += 1
    v = (0.0, 0.0, 0.0)
    for k in range(m):
        v = (v[0] + lam[k] * W[k, 0], v[1] + lam[k] * W[k, 1], v[2] + lam[k] * W[k, 2])
    return m, v


@njit(cache=True)
def gjk(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, core, W, A, B, lam):
    """Distance from shape a to shape b (their cores when core is True: ``support``).

    Returns (overlap, count, v): v = x_b - x_a, the difference of the closest points
    (x_a = sum lam A, x_b = sum lam B over the count rows); overlap is True when the
    shapes intersect (then the simplex rows hold the last simplex)."""
    v = sub(pb, pa)
    if dot(v, v) == 0.0:
        v = (1.0, 0.0, 0.0)
    count = 0
    prev = np.inf  # |v|^2 of the last simplex
    for _ in range(_MAX_ITER):
        w, xa, xb = minkowski_support(ka, Ra, pa, sa, kb, Rb, pb, sb, verts, va, na, vb, nb,
                                      (-v[0], -v[1], -v[2]), core)
        vv = dot(v, v)
        if count > 0 and vv - dot(v, w) <= _REL_TOL * vv:
            return False, count, v
        duplicate = False
        for k in range(count):
            duplicate = duplicate or (W[k, 0] == w[0] and W[k, 1] == w[1] and W[k, 2] == w[2])
        if duplicate:
            return False, count, v
        for c in range(3):
            W[count, c], A[count, c], B[count, c] = w[c], xa[c], xb[c]
        count, v = reduce_simplex(W, A, B, lam, count + 1)
        if count == 4 or dot(v, v) < _TOUCH:
            return True, count, v
        if dot(v, v) >= (1.0 - _PROGRESS) * prev:  # no progress: round-off level on a curved face
            return False, count, v
        prev = dot(v, v)
    return False, count, v
