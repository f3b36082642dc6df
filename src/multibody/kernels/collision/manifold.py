"""A pair's contact manifold: the narrow phase's scratch rows, their reduction to at most
MAX_MANIFOLD points, and their copy into the contact arrays ``ci``/``cf`` (issue 21).

Scratch ``man`` (MAX_MANIFOLD, MAN_COLS) float64 and ``mfeat`` (MAX_MANIFOLD,) int64: one
row per point of the pair being tested, normal from the pair's first shape (as the narrow
function was called) to its second. Candidates ``cand`` (k, CAND_COLS) and ``cfeat`` (k,):
points that a flat contact may give more of than a manifold holds (box corners, rim points,
mesh vertices), reduced to the deepest and then the most spread out.
"""
import math

import numpy as np
from numba import njit

from .layout import (
    CF_DIST, CF_MU, CF_N, CF_P, CF_REST, CF_T1, CF_T2, CI_A, CI_B, CI_FEATURE, MAX_MANIFOLD,
)
from .vec import cross, dot, perpendicular, sub

MAN_P = 0      # 3: world point midway between the surfaces [m]
MAN_N = 3      # 3: unit normal from the first shape to the second
MAN_DIST = 6   # signed distance [m]
MAN_COLS = 7

CAND_P = 0     # 3: world point midway between the surfaces [m]
CAND_DIST = 3  # signed distance [m]
CAND_N = 4     # 3: the point's own unit normal (a height field's points: ``reduce_own_normals``)
CAND_COLS = 7


@njit(cache=True)
def put_point(man, mfeat, k, p, n, dist, feature):
    """Write point k of the manifold; returns k + 1."""
    for i in range(3):
        man[k, MAN_P + i] = p[i]
        man[k, MAN_N + i] = n[i]
    man[k, MAN_DIST] = dist
    mfeat[k] = feature
    return k + 1


@njit(cache=True)
def put_candidate(cand, cfeat, k, p, dist, feature):
    """Write candidate k; returns k + 1."""
    for i in range(3):
        cand[k, CAND_P + i] = p[i]
    cand[k, CAND_DIST] = dist
    cfeat[k] = feature
    return k + 1


@njit(cache=True)
def _cand_point(cand, i):
    return (cand[i, CAND_P], cand[i, CAND_P + 1], cand[i, CAND_P + 2])


@njit(cache=True)
def _spread_score(cand, i, chosen, m):
    """How much candidate i widens the points chosen so far: its distance to the first (one
    chosen), to the line of the first two (two chosen), else its distance to that line on
    the side away from the third (a quadrilateral of the largest area, about)."""
    p = _cand_point(cand, i)
    p0 = _cand_point(cand, chosen[0])
    if m == 1:
        d = sub(p, p0)
        return dot(d, d)
    e = sub(_cand_point(cand, chosen[1]), p0)
    c = cross(sub(p, p0), e)
    if m == 2:
        return dot(c, c)
    c2 = cross(sub(_cand_point(cand, chosen[2]), p0), e)
    return -dot(c, c2)  # > 0 on the far side of the line from the third point


@njit(cache=True)
def deepest(cand, count):
    """The index of the deepest of the first count candidates."""
    best = 0
    for i in range(1, count):
        if cand[i, CAND_DIST] < cand[best, CAND_DIST]:
            best = i
    return best


@njit(cache=True)
def spread_from(cand, count, first, group, g):
    """(chosen, m): candidate first, then, one at a time, the one that spreads the set most,
    up to MAX_MANIFOLD (fewer where the rest add no spread: copies of a point); only the
    candidates i with group[i] == g where g >= 0."""
    chosen = [first, 0, 0, 0]
    m = 1
    while m < MAX_MANIFOLD:
        best = -1
        best_score = 0.0
        for i in range(count):
            if g >= 0 and group[i] != g:
                continue
            taken = False
            for j in range(m):
                taken = taken or chosen[j] == i
            if taken:
                continue
            s = _spread_score(cand, i, chosen, m)
            if s > best_score:
                best, best_score = i, s
        if best < 0:
            break
        chosen[m] = best
        m += 1
    return chosen, m


@njit(cache=True)
def reduce_candidates(cand, cfeat, count, n, man, mfeat):
    """Copy candidates (all with the unit normal n) into the manifold: all of them when they
    are at most MAX_MANIFOLD, else the deepest and then, one at a time, the one that
    spreads the set most. Returns the number of points written."""
    if count <= MAX_MANIFOLD:
        for i in range(count):
            put_point(man, mfeat, i, _cand_point(cand, i), n, cand[i, CAND_DIST], cfeat[i])
        return count
    chosen, m = spread_from(cand, count, deepest(cand, count), cfeat, -1)
    for j in range(m):
        i = chosen[j]
        put_point(man, mfeat, j, _cand_point(cand, i), n, cand[i, CAND_DIST], cfeat[i])
    return m


@njit(cache=True)
def reduce_own_normals(cand, cfeat, count, first, man, mfeat):
    """Copy candidates that each carry their normal (CAND_N) into the manifold: all of them
    when the manifold's rows hold them, else candidate ``first`` (the caller's deepest) and
    then, one at a time, the one farthest from those taken. Returns the number written."""
    if count <= man.shape[0]:
        for i in range(count):
            _put_own(cand, cfeat, i, man, mfeat, i)
        return count
    gap = np.full(count, math.inf)  # each candidate's distance to the nearest taken
    i = first
    for k in range(man.shape[0]):
        _put_own(cand, cfeat, i, man, mfeat, k)
        gap[i] = -1.0
        p = _cand_point(cand, i)
        far = -1
        for j in range(count):
            if gap[j] >= 0.0:
                d = sub(_cand_point(cand, j), p)
                gap[j] = min(gap[j], dot(d, d))
                if far < 0 or gap[j] > gap[far]:
                    far = j
        i = far
    return man.shape[0]


@njit(cache=True)
def _put_own(cand, cfeat, i, man, mfeat, k):
    """Candidate i, with its own normal, as point k of the manifold."""
    n = (cand[i, CAND_N], cand[i, CAND_N + 1], cand[i, CAND_N + 2])
    put_point(man, mfeat, k, _cand_point(cand, i), n, cand[i, CAND_DIST], cfeat[i])


@njit(cache=True)
def emit(man, mfeat, count, a, b, flip, mu, rest, ci, cf, nc):
    """Copy the manifold's count points into rows nc.. of ci/cf for shapes a < b (flip: the
    narrow function took b first, so its normals point from b to a); rows past the arrays'
    end are counted, not written. Returns the new number of contacts."""
    s = -1.0 if flip else 1.0
    for k in range(count):
        r = nc + k
        if r >= ci.shape[0]:
            continue
        n = (s * man[k, MAN_N], s * man[k, MAN_N + 1], s * man[k, MAN_N + 2])
        t1 = perpendicular(n)
        t2 = cross(n, t1)
        ci[r, CI_A] = a
        ci[r, CI_B] = b
        ci[r, CI_FEATURE] = mfeat[k]
        for i in range(3):
            cf[r, CF_P + i] = man[k, MAN_P + i]
            cf[r, CF_N + i] = n[i]
            cf[r, CF_T1 + i] = t1[i]
            cf[r, CF_T2 + i] = t2[i]
        cf[r, CF_DIST] = man[k, MAN_DIST]
        cf[r, CF_MU] = mu
        cf[r, CF_REST] = rest
    return nc + count
