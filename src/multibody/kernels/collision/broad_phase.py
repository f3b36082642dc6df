"""Broad phase: axis-aligned bounding boxes, sweep and prune, and the pairs it leaves (issue 21).

The shapes other than planes are kept sorted by their boxes' lower bound along the axis
on which their centres spread most (insertion sort from the last call's order: shapes move
little between steps, so it is close to linear). A pair is a candidate when the filter
``allow`` lets it touch and its boxes (each grown by its shape's margin) overlap on all
three axes. Planes have no finite box: each is paired with every allowed shape whose box
reaches below it. Pairs come one at a time (``next_pair``), so nothing has to hold them all.
"""
import math

from numba import njit

from .layout import BOX, CAPSULE, CYLINDER, ELLIPSOID, PLANE, SF_MARGIN, SF_RBOUND, SF_SIZE, SI_TYPE, SPHERE
from .poses import POSE_C, POSE_P, POSE_R

AABB_LO = 0  # 3: lower corner [m]
AABB_HI = 3  # 3: upper corner [m]
AABB_COLS = 6

# the sweep's cursor (an int64 array of CUR_COLS): where next_pair resumes
CUR_PHASE = 0  # 0: the sweep, 1: the planes, 2: done
CUR_I = 1
CUR_J = 2
CUR_AXIS = 3
CUR_NPLANES = 4  # the number of planes (a constant of the model: order's tail)
CUR_COLS = 5


@njit(cache=True)
def _half_extent(kind, poses, s, size, rbound, k):
    """Half extent along world axis k of shape s's box about its origin (a mesh's: about its
    centre, SF_CENTRE; R row k: the shape axes' k-th world components)."""
    r0 = poses[s, POSE_R + 3 * k]
    r1 = poses[s, POSE_R + 3 * k + 1]
    r2 = poses[s, POSE_R + 3 * k + 2]
    if kind == SPHERE:
        return size[0]
    if kind == CAPSULE:
        return abs(r2) * size[1] + size[0]
    if kind == CYLINDER:
        return abs(r2) * size[1] + size[0] * math.sqrt(max(0.0, 1.0 - r2 * r2))
    if kind == BOX:
        return abs(r0) * size[0] + abs(r1) * size[1] + abs(r2) * size[2]
    if kind == ELLIPSOID:
        return math.sqrt((r0 * size[0]) ** 2 + (r1 * size[1]) ** 2 + (r2 * size[2]) ** 2)
    # mesh: its box (size: half extents about its centre) or its bounding sphere, the tighter
    return min(rbound, abs(r0) * size[0] + abs(r1) * size[1] + abs(r2) * size[2])


@njit(cache=True)
def update_aabbs(si, sf, poses, aabb):
    """Each shape's world box grown by its margin (planes: left infinite)."""
    for s in range(si.shape[0]):
        kind = si[s, SI_TYPE]
        for k in range(3):
            if kind == PLANE:
                aabb[s, AABB_LO + k] = -math.inf
                aabb[s, AABB_HI + k] = math.inf
                continue
            size = (sf[s, SF_SIZE], sf[s, SF_SIZE + 1], sf[s, SF_SIZE + 2])
            e = _half_extent(kind, poses, s, size, sf[s, SF_RBOUND], k) + sf[s, SF_MARGIN]
            aabb[s, AABB_LO + k] = poses[s, POSE_C + k] - e  # (a primitive's centre is its origin)
            aabb[s, AABB_HI + k] = poses[s, POSE_C + k] + e


@njit(cache=True)
def _spread_axis(aabb, order, nsweep):
    """The world axis along which the boxes' centres vary most."""
    best, best_var = 0, -1.0
    for k in range(3):
        s1 = 0.0
        s2 = 0.0
        for i in range(nsweep):
            c = 0.5 * (aabb[order[i], AABB_LO + k] + aabb[order[i], AABB_HI + k])
            s1 += c
            s2 += c * c
        var = s2 - s1 * s1 / max(nsweep, 1)
        if var > best_var:
            best, best_var = k, var
    return best


@njit(cache=True)
def start_sweep(aabb, order, nsweep, cur):
    """Sort order[:nsweep] (the shapes other than planes) by their boxes' lower bound along
    the axis of most spread, and set the cursor to the first pair."""
    axis = _spread_axis(aabb, order, nsweep)
    lo = AABB_LO + axis
    for i in range(1, nsweep):
        s = order[i]
        key = aabb[s, lo]
        j = i - 1
        while j >= 0 and aabb[order[j], lo] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = s
    cur[CUR_PHASE] = 0
    cur[CUR_I] = 0
    cur[CUR_J] = 1
    cur[CUR_AXIS] = axis


@njit(cache=True)
def _boxes_overlap(aabb, i, j):
    for k in range(3):
        if aabb[i, AABB_LO + k] > aabb[j, AABB_HI + k] or aabb[j, AABB_LO + k] > aabb[i, AABB_HI + k]:
            return False
    return True


@njit(cache=True)
def _reaches_plane(aabb, poses, plane, s, margin):
    """Whether shape s's box reaches within the plane's margin of its half-space (the box's
    lowest corner)."""
    h = 0.0
    for k in range(3):
        c = 0.5 * (aabb[s, AABB_LO + k] + aabb[s, AABB_HI + k])
        e = 0.5 * (aabb[s, AABB_HI + k] - aabb[s, AABB_LO + k])
        nk = poses[plane, POSE_R + 3 * k + 2]  # the plane's normal: its frame's z
        h += nk * (c - poses[plane, POSE_P + k]) - abs(nk) * e
    return h <= margin


@njit(cache=True)
def next_pair(si, sf, allow, aabb, poses, order, nsweep, cur):
    """The next candidate pair (i, j), or (-1, -1) when there is none left; advances cur.
    order[nsweep:] are the planes."""
    lo = AABB_LO + cur[CUR_AXIS]
    hi = AABB_HI + cur[CUR_AXIS]
    while cur[CUR_PHASE] == 0:
        ii, jj = cur[CUR_I], cur[CUR_J]
        if ii >= nsweep:
            cur[CUR_PHASE], cur[CUR_I], cur[CUR_J] = 1, nsweep, 0
            break
        i = order[ii]
        if jj >= nsweep or aabb[order[jj], lo] > aabb[i, hi]:
            cur[CUR_I], cur[CUR_J] = ii + 1, ii + 2  # no later box starts before i ends
            continue
        cur[CUR_J] = jj + 1
        j = order[jj]
        if allow[i, j] and _boxes_overlap(aabb, i, j):
            return i, j
    ns = si.shape[0]
    while cur[CUR_PHASE] == 1:
        ii, j = cur[CUR_I], cur[CUR_J]
        if ii >= ns:
            cur[CUR_PHASE] = 2
            break
        if j >= ns:
            cur[CUR_I], cur[CUR_J] = ii + 1, 0
            continue
        cur[CUR_J] = j + 1
        plane = order[ii]
        if si[j, SI_TYPE] != PLANE and allow[plane, j] and _reaches_plane(aabb, poses, plane, j, sf[plane, SF_MARGIN]):
            return plane, j
    return -1, -1
