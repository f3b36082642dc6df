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
from numba import njit

from .support import minkowski_support
from .vec import dot, sub

_MAX_ITER = 128
_REL_TOL = 1e-12   # stop when |v|^2 - v.w <= this |v|^2: |v| is within 1e-12 relative of the distance
_TOUCH = 1e-24     # |v|^2 (m^2) below which the shapes overlap


@njit(cache=True)
def _affine_weights(W, idx, m):
    """Weights (l0, l1, l2, l3) of the point of the affine hull of the rows idx[:m] of W
    nearest the origin, and whether it was solvable (the face is not degenerate)."""
    w0 = (W[idx[0], 0], W[idx[0], 1], W[idx[0], 2])
    if m == 1:
        return (1.0, 0.0, 0.0, 0.0), True
    e = [sub((W[idx[k], 0], W[idx[k], 1], W[idx[k], 2]), w0) for k in range(1, m)]
    if m == 2:
        g = dot(e[0], e[0])
        if g <= 0.0:
            return (1.0, 0.0, 0.0, 0.0), False
        mu = -dot(e[0], w0) / g
        return (1.0 - mu, mu, 0.0, 0.0), True
    if m == 3:
        g00, g01, g11 = dot(e[0], e[0]), dot(e[0], e[1]), dot(e[1], e[1])
        r0, r1 = -dot(e[0], w0), -dot(e[1], w0)
        det = g00 * g11 - g01 * g01
        if det <= 1e-14 * g00 * g11:
            return (1.0, 0.0, 0.0, 0.0), False
        m0 = (r0 * g11 - r1 * g01) / det
        m1 = (g00 * r1 - g01 * r0) / det
        return (1.0 - m0 - m1, m0, m1, 0.0), True
    g = [[dot(e[i], e[j]) for j in range(3)] for i in range(3)]
    r = [-dot(e[i], w0) for i in range(3)]
    det = (g[0][0] * (g[1][1] * g[2][2] - g[1][2] * g[2][1]) - g[0][1] * (g[1][0] * g[2][2] - g[1][2] * g[2][0])
           + g[0][2] * (g[1][0] * g[2][1] - g[1][1] * g[2][0]))
    if det <= 1e-14 * g[0][0] * g[1][1] * g[2][2]:
        return (1.0, 0.0, 0.0, 0.0), False
    mu = [0.0, 0.0, 0.0]
    for c in range(3):  # Cramer's rule: column c replaced by r
        h = [[r[i] if j == c else g[i][j] for j in range(3)] for i in range(3)]
        mu[c] = (h[0][0] * (h[1][1] * h[2][2] - h[1][2] * h[2][1]) - h[0][1] * (h[1][0] * h[2][2] - h[1][2] * h[2][0])
                 + h[0][2] * (h[1][0] * h[2][1] - h[1][1] * h[2][0])) / det
    return (1.0 - mu[0] - mu[1] - mu[2], mu[0], mu[1], mu[2]), True


@njit(cache=True)
def reduce_simplex(W, A, B, lam, count):
    """Reduce the simplex (rows :count) to the face nearest the origin, in place; returns
    (its number of vertices, the nearest point v)."""
    best_mask, best_d = 1, -1.0
    best_l = (1.0, 0.0, 0.0, 0.0)
    idx = [0, 0, 0, 0]
    for mask in range(1, 1 << count):
        m = 0
        for k in range(count):
            if mask & (1 << k):
                idx[m] = k
                m += 1
        l, ok = _affine_weights(W, idx, m)
        if not ok or min(min(l[0], l[1]), min(l[2], l[3])) < 0.0:
            continue
        v = [0.0, 0.0, 0.0]
        for k in range(m):
            for c in range(3):
                v[c] += l[k] * W[idx[k], c]
        d = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
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
    return False, count, v
