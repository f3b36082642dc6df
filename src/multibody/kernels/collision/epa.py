"""EPA: the penetration depth and normal of two overlapping convex shapes (issue 21).

The expanding polytope algorithm on the Minkowski difference C = B - A, which holds the
origin: starting from GJK's simplex (grown to a tetrahedron), the face of the polytope
nearest the origin is pushed out to the support point along its normal until that face
is on C's boundary (within a relative tolerance). Its normal is the direction of least
penetration (from B to A: moving B by -depth n separates them), and the same barycentric
weights of the face's support points give the deepest points of A and B.
"""
import numpy as np
from numba import njit

from .support import minkowski_support
from .vec import cross, dot, norm, perpendicular, scale, sub

_MAX_VERTS = 256
_MAX_FACES = 2 * _MAX_VERTS
_REL_TOL = 1e-10
_VISIBLE = 1e-13  # a face sees w when w is this far (relative) above its plane


@njit(cache=True)
def _row(X, i):
    return (X[i, 0], X[i, 1], X[i, 2])


@njit(cache=True)
def _set_face(V, F, N, fi, i, j, k):
    """Face fi = (i, j, k) (counter-clockwise seen from outside), its unit normal and its
    distance from the origin (N[fi, 3]); False when it is degenerate."""
    F[fi, 0], F[fi, 1], F[fi, 2] = i, j, k
    n = cross(sub(_row(V, j), _row(V, i)), sub(_row(V, k), _row(V, i)))
    ln = norm(n)
    if ln <= 0.0:
        N[fi, 3] = np.inf
        return False
    for c in range(3):
        N[fi, c] = n[c] / ln
    N[fi, 3] = dot(_row(N, fi), _row(V, i))
    return True


@njit(cache=True)
def _push(V, A, B, count, w, xa, xb):
    for c in range(3):
        V[count, c], A[count, c], B[count, c] = w[c], xa[c], xb[c]
    return count + 1


@njit(cache=True)
def _toggle_edges(F, f, edges, ne):
    """Add face f's edges to the horizon list, an edge whose twin is there cancelling it
    (shared by two removed faces); returns the list's new length."""
    for e in range(3):
        i, j = F[f, e], F[f, (e + 1) % 3]
        twin = -1
        for q in range(ne):
            if edges[q, 0] == j and edges[q, 1] == i:
                twin = q
        if twin >= 0:
            ne -= 1
            edges[twin, 0], edges[twin, 1] = edges[ne, 0], edges[ne, 1]
        else:
            edges[ne, 0], edges[ne, 1] = i, j
            ne += 1
    return ne


@njit(cache=True)
def _free_slots(alive, nf):
    """Face slots a new face may take: the dead ones below nf and those never used."""
    free = _MAX_FACES - nf
    for f in range(nf):
        free += not alive[f]
    return free


@njit(cache=True)
def _one_loop(edges, ne):
    """Whether the horizon edges form one closed loop (the removed faces are a disk)."""
    if ne < 3:
        return False
    v = edges[0, 1]
    for step in range(1, ne + 1):
        nxt = -1
        for q in range(ne):
            if edges[q, 0] == v:
                if nxt >= 0:
                    return False  # a vertex the loop passes twice
                nxt = q
        if nxt < 0:
            return False
        v = edges[nxt, 1]
        if v == edges[0, 1]:
            return step == ne
    return False


@njit(cache=True)
def _grow_simplex(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, V, A, B, count):
    """Grow GJK's simplex (origin on it) to a tetrahedron, adding support points off its
    point, line or plane; returns the vertex count (< 4: C is flat, no depth)."""
    for _ in range(6):
        if count >= 4:
            break
        if count == 1:  # the world axes in turn (each tried both ways below)
            d = (1.0, 0.0, 0.0) if _ % 3 == 0 else ((0.0, 1.0, 0.0) if _ % 3 == 1 else (0.0, 0.0, 1.0))
        elif count == 2:
            e = sub(_row(V, 1), _row(V, 0))
            t1 = perpendicular(scale(e, 1.0 / norm(e)))
            d = t1 if _ % 2 == 0 else cross(scale(e, 1.0 / norm(e)), t1)
        else:
            d = cross(sub(_row(V, 1), _row(V, 0)), sub(_row(V, 2), _row(V, 0)))
        for s in (1.0, -1.0):
            w, xa, xb = minkowski_support(ka, Ra, pa, sa, kb, Rb, pb, sb, verts, va, na, vb, nb, scale(d, s), False)
            # a new vertex must leave the simplex's hull: off its point, line, plane
            off = sub(w, _row(V, 0))
            if count == 2:
                off = cross(off, sub(_row(V, 1), _row(V, 0)))
            elif count == 3:
                off = (dot(off, d), 0.0, 0.0)
            if norm(off) > 1e-12 * (1.0 + norm(w)):
                count = _push(V, A, B, count, w, xa, xb)
                break
    return count


@njit(cache=True)
def epa(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, W, A0, B0, count):
    """Penetration of overlapping shapes a and b from GJK's last simplex (W, A0, B0, count
    rows). Returns (ok, depth, n, x_a, x_b): n the unit normal from a to b, x_a and x_b
    the deepest points of each shape in the other (x_b - x_a = -depth n); ok False when
    the difference is flat (no volume: depth 0 along no defined normal)."""
    V = np.empty((_MAX_VERTS, 3))
    A = np.empty((_MAX_VERTS, 3))
    B = np.empty((_MAX_VERTS, 3))
    for k in range(count):
        _push(V, A, B, k, _row(W, k), _row(A0, k), _row(B0, k))
    count = _grow_simplex(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, V, A, B, count)
    if count < 4:
        return False, 0.0, (0.0, 0.0, 1.0), pa, pb
    F = np.empty((_MAX_FACES, 3), dtype=np.int64)
    N = np.empty((_MAX_FACES, 4))
    alive = np.zeros(_MAX_FACES, dtype=np.bool_)
    if dot(cross(sub(_row(V, 1), _row(V, 0)), sub(_row(V, 2), _row(V, 0))), sub(_row(V, 3), _row(V, 0))) > 0.0:
        for c in range(3):  # make (0, 1, 2) counter-clockwise seen from outside
            V[1, c], V[2, c] = V[2, c], V[1, c]
            A[1, c], A[2, c] = A[2, c], A[1, c]
            B[1, c], B[2, c] = B[2, c], B[1, c]
    nf = 4
    for fi, (i, j, k) in enumerate(((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2))):
        alive[fi] = _set_face(V, F, N, fi, i, j, k)
    edges = np.empty((3 * _MAX_FACES, 2), dtype=np.int64)
    removed = np.empty(_MAX_FACES, dtype=np.int64)
    best = 0
    for _ in range(_MAX_VERTS - 4):
        best = -1
        for f in range(nf):
            if alive[f] and (best < 0 or N[f, 3] < N[best, 3]):
                best = f
        if best < 0:
            return False, 0.0, (0.0, 0.0, 1.0), pa, pb
        n = _row(N, best)
        w, xa, xb = minkowski_support(ka, Ra, pa, sa, kb, Rb, pb, sb, verts, va, na, vb, nb, n, False)
        if dot(w, n) - N[best, 3] <= _REL_TOL * max(N[best, 3], 1e-300) or count >= _MAX_VERTS:
            break
        ne = 0
        nr = 0
        for f in range(nf):  # remove the faces w sees; their unshared edges are the horizon
            # (a face w is all but on, as on a cylinder's flat cap, stays: seen or not by
            # round-off, such faces made the horizon no loop)
            if alive[f] and dot(_row(N, f), sub(w, _row(V, F[f, 0]))) > _VISIBLE * (norm(w) + 1e-300):
                alive[f] = False
                removed[nr] = f
                nr += 1
                ne = _toggle_edges(F, f, edges, ne)
        if not _one_loop(edges, ne) or _free_slots(alive, nf) < ne:
            # round-off made the visible faces no disk (w all but on the face: converged),
            # or the polytope is full: keep the best face so far
            for q in range(nr):
                alive[removed[q]] = True
            break
        count = _push(V, A, B, count, w, xa, xb)
        slot = 0
        for q in range(ne):  # the new faces take the slots of removed ones first
            while slot < nf and alive[slot]:
                slot += 1
            alive[slot] = _set_face(V, F, N, slot, edges[q, 0], edges[q, 1], count - 1)
            nf = max(nf, slot + 1)
    return _face_result(V, A, B, F, N, best, pa, pb)


@njit(cache=True)
def _face_result(V, A, B, F, N, f, pa, pb):
    """The contact of face f: the origin's projection on it in barycentric weights."""
    n = _row(N, f)
    c = scale(n, N[f, 3])
    i, j, k = F[f, 0], F[f, 1], F[f, 2]
    v0, v1, v2 = _row(V, i), _row(V, j), _row(V, k)
    area = dot(cross(sub(v1, v0), sub(v2, v0)), n)
    l1 = dot(cross(sub(c, v0), sub(v2, v0)), n) / area
    l2 = dot(cross(sub(v1, v0), sub(c, v0)), n) / area
    l0 = 1.0 - l1 - l2
    xa = (l0 * A[i, 0] + l1 * A[j, 0] + l2 * A[k, 0], l0 * A[i, 1] + l1 * A[j, 1] + l2 * A[k, 1],
          l0 * A[i, 2] + l1 * A[j, 2] + l2 * A[k, 2])
    xb = (l0 * B[i, 0] + l1 * B[j, 0] + l2 * B[k, 0], l0 * B[i, 1] + l1 * B[j, 1] + l2 * B[k, 1],
          l0 * B[i, 2] + l1 * B[j, 2] + l2 * B[k, 2])
    return True, N[f, 3], scale(n, -1.0), xa, xb


@njit(cache=True)
def depth_along(ka, Ra, pa, sa, va, na, kb, Rb, pb, sb, vb, nb, verts, n):
    """How far shape a reaches past shape b along the unit n (from a to b): the depth a
    translation of b by that much along n undoes (EPA's face distance is a lower bound)."""
    w, xa, xb = minkowski_support(ka, Ra, pa, sa, kb, Rb, pb, sb, verts, va, na, vb, nb, scale(n, -1.0), False)
    return -dot(n, w)
