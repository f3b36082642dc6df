"""Support points of convex hulls by walking their edges (issue 21).

A hull's vertex farthest along a direction is found by a walk: from a start vertex, move to
the neighbour (along a hull edge) that is farthest along it, until no neighbour is farther.
On a convex polytope a vertex that no neighbour beats is the farthest of all (the simplex
method's argument), and the vertices within any height of the lowest form a connected part of
its edge graph, so both the support and the vertices near a plane are found by visiting a
few vertices around the answer, not all of them: Solo12's hulls have 287 to 672 vertices,
and a start at the last step's answer is one or two edges from this step's.

The edge graph of every mesh, in compressed rows over the rows of ``verts``: the neighbours
of vertex v are ``adj[adj_start[v]:adj_start[v + 1]]`` (rows of ``verts`` too). A mesh without
edges (a degenerate one, or one too small to be worth walking) is searched vertex by vertex.
"""
import numpy as np
from numba import njit

from .layout import MESH, SI_TYPE, SI_VADR, SI_VNUM

#: Meshes with at most this many vertices are searched vertex by vertex (as fast as a walk).
WALK_MIN_VERTICES = 32


def hull_adjacency(si, verts):
    """(adj_start (nv + 1,), adj) int64: the edge graph of each mesh's hull (module
    docstring), from the triangles of its convex hull (scipy's Qhull); a mesh that Qhull
    refuses, or with at most WALK_MIN_VERTICES vertices, gets no edges."""
    from scipy.spatial import ConvexHull, QhullError
    nv = len(verts)
    neighbours = [set() for _ in range(nv)]
    for s in range(si.shape[0]):
        vadr, vnum = int(si[s, SI_VADR]), int(si[s, SI_VNUM])
        if si[s, SI_TYPE] != MESH or vnum <= WALK_MIN_VERTICES:
            continue
        try:
            tri = ConvexHull(verts[vadr:vadr + vnum]).simplices + vadr
        except (QhullError, ValueError):
            continue
        if len(np.unique(tri)) != vnum:  # (points inside the hull: a walk would never reach them)
            continue
        for a, b in ((0, 1), (1, 2), (2, 0)):
            for i, j in zip(tri[:, a], tri[:, b]):
                neighbours[i].add(int(j))
                neighbours[j].add(int(i))
    adj_start = np.zeros(nv + 1, dtype=np.int64)
    adj_start[1:] = np.cumsum([len(n) for n in neighbours])
    adj = np.array([j for n in neighbours for j in sorted(n)], dtype=np.int64)
    return adj_start, adj


@njit(cache=True, inline="always")
def _along(verts, v, dl):
    return verts[v, 0] * dl[0] + verts[v, 1] * dl[1] + verts[v, 2] * dl[2]


@njit(cache=True)
def hull_support(verts, adj_start, adj, vadr, vnum, start, dl):
    """(row of verts, its height dl.x): the vertex of the hull rows vadr:vadr+vnum farthest
    along the shape-frame direction dl, walking from row ``start`` (any row: one outside
    the mesh starts at its first); vertex by vertex where the mesh has no edges."""
    if adj_start[vadr + 1] == adj_start[vadr]:
        best, best_h = vadr, -np.inf
        for v in range(vadr, vadr + vnum):
            h = _along(verts, v, dl)
            if h > best_h:
                best, best_h = v, h
        return best, best_h
    v = start if vadr <= start < vadr + vnum else vadr
    h = _along(verts, v, dl)
    while True:
        nxt, nxt_h = v, h
        for k in range(adj_start[v], adj_start[v + 1]):
            w = adj[k]
            hw = _along(verts, w, dl)
            if hw > nxt_h:
                nxt, nxt_h = w, hw
        if nxt == v:
            return v, h
        v, h = nxt, nxt_h


@njit(cache=True)
def hull_below(verts, adj_start, adj, vadr, vnum, low_row, dl, reach, out):
    """Rows of the hull vertices with dl.x <= reach, connected to row low_row (the lowest,
    from ``hull_support`` along -dl), written to out in increasing order; returns how many.
    Where the mesh has no edges: every vertex, tested one by one."""
    count = 0
    if adj_start[vadr + 1] == adj_start[vadr]:
        for v in range(vadr, vadr + vnum):
            if _along(verts, v, dl) <= reach:
                out[count] = v
                count += 1
        return count
    out[0] = low_row
    count = 1
    i = 0
    while i < count:  # breadth first over the edges, within reach
        v = out[i]
        i += 1
        for k in range(adj_start[v], adj_start[v + 1]):
            w = adj[k]
            if _along(verts, w, dl) > reach:
                continue
            seen = False
            for j in range(count):
                seen = seen or out[j] == w
            if not seen:
                out[count] = w
                count += 1
    for i in range(1, count):  # (insertion sort: the vertices in their order, as a full pass lists them)
        w = out[i]
        j = i - 1
        while j >= 0 and out[j] > w:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = w
    return count
