"""Narrow phase: box against box, by the separating axis test and face clipping (issue 21).

Of the 15 axes (3 face normals of each box, 9 edge-edge cross products) the one along
which the boxes are farthest apart (least deep) is the contact normal. A face axis: the
incident face of the other box (its face most opposed to the normal) is clipped to the
reference face's sides, and its corners within the margin are the points (up to four).
An edge axis: one point, midway between the two edges' closest points. Face axes win
ties, so resting boxes do not switch to an edge normal on round-off.

An edge axis within ``_EDGE_FACE_ANGLE`` of a face normal is not tried: two boxes whose
faces are that nearly parallel touch face to face, and the face's clipped manifold holds
them (its points' heights are their own). Near-parallel edges of a resting stack give such
axes (box 1's x edge crossed with box 2's y edge is about the shared face normal), and their
separation differs from the face's by the tilt times the size: in a 50-box pile at dt = 1 ms a
box tilted 1e-4 rad on the one below found an edge axis 2.5e-7 m ahead of the face every few
steps, rested on that single point, and rocked between the two contact sets for ever.
"""
import numpy as np
from numba import njit

from ..spatial_inline import mul33_vec, mul33T_vec
from .manifold import put_candidate, put_point, reduce_candidates
from .spheres import segments_closest
from .vec import add, axpy, column, cross, dot, norm, scale, sub

_EDGE_BIAS = 1e-6  # an edge axis must beat the best face axis by this fraction of the sizes
_EDGE_FACE_ANGLE = 1e-2  # [rad] edge axes nearer than this to a face normal are not tried
_EDGE_FACE_COS = np.cos(_EDGE_FACE_ANGLE)


@njit(cache=True)
def _separation(R1, h1, R2, h2, d, L):
    """Signed separation of the boxes' projections on the unit axis L."""
    r = 0.0
    for i in range(3):
        r += h1[i] * abs(dot(column(R1, i), L)) + h2[i] * abs(dot(column(R2, i), L))
    return abs(dot(d, L)) - r


@njit(cache=True)
def _near_face_normal(R1, R2, L):
    """True where the unit axis L lies within _EDGE_FACE_ANGLE of a face normal of either box."""
    for i in range(3):
        if abs(dot(column(R1, i), L)) > _EDGE_FACE_COS or abs(dot(column(R2, i), L)) > _EDGE_FACE_COS:
            return True
    return False


@njit(cache=True)
def _best_axis(R1, h1, R2, h2, d):
    """(separation, axis code, unit axis): codes 0-2 box 1's faces, 3-5 box 2's, 6 + 3i + j
    the cross product of box 1's axis i with box 2's axis j."""
    best, code, axis = -np.inf, -1, (0.0, 0.0, 1.0)
    for c in range(6):
        L = column(R1, c) if c < 3 else column(R2, c - 3)
        s = _separation(R1, h1, R2, h2, d, L)
        if s > best:
            best, code, axis = s, c, L
    bias = _EDGE_BIAS * (h1[0] + h1[1] + h1[2] + h2[0] + h2[1] + h2[2])
    for i in range(3):
        for j in range(3):
            w = cross(column(R1, i), column(R2, j))
            lw = norm(w)
            if lw < 1e-6:  # parallel edges: a face axis covers them
                continue
            L = scale(w, 1.0 / lw)
            if _near_face_normal(R1, R2, L):
                continue
            s = _separation(R1, h1, R2, h2, d, L)
            if s > best + bias:
                best, code, axis = s, 6 + 3 * i + j, L
    return best, code, axis


@njit(cache=True)
def _clip(src, n_src, dst, axis, limit, sign):
    """Sutherland-Hodgman: the polygon src[:n_src] (rows: points) cut to sign x[axis] <= limit,
    into dst; returns its number of points."""
    m = 0
    for k in range(n_src):
        a = src[k]
        b = src[(k + 1) % n_src]
        fa = sign * a[axis] - limit
        fb = sign * b[axis] - limit
        if fa <= 0.0:
            dst[m] = a
            m += 1
        if (fa < 0.0 and fb > 0.0) or (fa > 0.0 and fb < 0.0):  # a strict crossing: no point twice
            dst[m] = a + (b - a) * (fa / (fa - fb))
            m += 1
    return m


@njit(cache=True)
def _face_contact(Rr, pr, hr, k, Ri, pi_, hi, nr, n, ref_code, margin, cand, cfeat, man, mfeat):
    """Face k of the reference box (Rr, pr, hr) whose outward normal nr faces the incident box
    (Ri, pi_, hi); n: the pair's normal (box 1 to box 2)."""
    sk = 1.0 if dot(column(Rr, k), nr) > 0.0 else -1.0
    j, best = 0, 0.0  # incident face: the most opposed to nr
    for m in range(3):
        c = dot(column(Ri, m), nr)
        if abs(c) > best:
            j, best = m, abs(c)
    sj = -1.0 if dot(column(Ri, j), nr) > 0.0 else 1.0
    u, v = (j + 1) % 3, (j + 2) % 3
    fc = axpy(sj * hi[j], column(Ri, j), pi_)
    poly = np.empty((8, 3))
    tmp = np.empty((8, 3))
    for c in range(4):
        su = 1.0 if c == 0 or c == 3 else -1.0  # corners in cyclic order
        sv = 1.0 if c < 2 else -1.0
        x = axpy(sv * hi[v], column(Ri, v), axpy(su * hi[u], column(Ri, u), fc))
        xl = mul33T_vec(Rr, x[0] - pr[0], x[1] - pr[1], x[2] - pr[2])  # reference frame
        poly[c, 0], poly[c, 1], poly[c, 2] = xl[0], xl[1], xl[2]
    count = 4
    a1, a2 = (k + 1) % 3, (k + 2) % 3
    count = _clip(poly, count, tmp, a1, hr[a1], 1.0)
    count = _clip(tmp, count, poly, a1, hr[a1], -1.0)
    count = _clip(poly, count, tmp, a2, hr[a2], 1.0)
    count = _clip(tmp, count, poly, a2, hr[a2], -1.0)
    c1 = 0.0
    c2 = 0.0
    for m in range(count):
        c1 += poly[m, a1] / count
        c2 += poly[m, a2] / count
    kept = 0
    for m in range(count):
        h = sk * poly[m, k] - hr[k]  # height over the reference face
        if h > margin:
            continue
        xl = (poly[m, 0], poly[m, 1], poly[m, 2])
        mid = mul33_vec(Rr, xl[0], xl[1], xl[2])
        mid = axpy(-0.5 * h, nr, add(mid, pr))
        quadrant = int(poly[m, a1] > c1) + 2 * int(poly[m, a2] > c2)
        kept = put_candidate(cand, cfeat, kept, mid, h, 4 * ref_code + quadrant)
    got = reduce_candidates(cand, cfeat, kept, n, man, mfeat)
    for m in range(got):  # ties of the quadrant rule (a skewed polygon): still distinct ids
        for q in range(m):
            if mfeat[q] == mfeat[m]:
                mfeat[m] += 64 * (m + 1)
    return got


@njit(cache=True)
def _edge_contact(R1, p1, h1, i, R2, p2, h2, j, n, sep, man, mfeat, feature):
    """The edges along box 1's axis i and box 2's axis j nearest each other along n."""
    c1 = p1
    c2 = p2
    for m in range(3):
        if m != i:
            a = column(R1, m)
            c1 = axpy(h1[m] if dot(a, n) > 0.0 else -h1[m], a, c1)
        if m != j:
            b = column(R2, m)
            c2 = axpy(-h2[m] if dot(b, n) > 0.0 else h2[m], b, c2)
    a1 = column(R1, i)
    a2 = column(R2, j)
    s, t = segments_closest(c1, a1, h1[i], c2, a2, h2[j])
    mid = scale(add(axpy(s, a1, c1), axpy(t, a2, c2)), 0.5)
    return put_point(man, mfeat, 0, mid, n, sep, feature)


@njit(cache=True)
def box_box(R1, p1, h1, R2, p2, h2, margin, cand, cfeat, man, mfeat):
    """Box 1 (pose R1, p1; half extents h1) against box 2: up to four points, normals from
    box 1 to box 2. Features: 4 (reference face code) + quadrant for face contacts, 32 +
    the edge axis code for an edge-edge contact."""
    d = sub(p2, p1)
    sep, code, L = _best_axis(R1, h1, R2, h2, d)
    if sep > margin:
        return 0
    n = L if dot(d, L) >= 0.0 else scale(L, -1.0)
    if code < 3:
        return _face_contact(R1, p1, h1, code, R2, p2, h2, n, n, code, margin, cand, cfeat, man, mfeat)
    if code < 6:
        return _face_contact(R2, p2, h2, code - 3, R1, p1, h1, scale(n, -1.0), n, code, margin,
                             cand, cfeat, man, mfeat)
    e = code - 6
    return _edge_contact(R1, p1, h1, e // 3, R2, p2, h2, e % 3, n, sep, man, mfeat, 32 + e)
