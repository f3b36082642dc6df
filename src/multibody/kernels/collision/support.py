"""Support points of the convex shapes, for GJK/EPA and the plane tests (issue 21).

support(x) in a world direction d is the shape's point farthest along d. Spheres and
capsules are a point and a segment swept by a radius: GJK runs on their cores (exact and
fast: no curved surface to converge on) and subtracts the radii (``core_radius``); EPA,
for cores that overlap, takes the full shapes (``support``).
"""
import math

from numba import njit

from ..spatial_inline import mul33_vec, mul33T_vec
from .layout import BOX, CAPSULE, CYLINDER, ELLIPSOID, MESH, SPHERE
from .vec import axpy, column, dot, norm, scale, sub


@njit(cache=True)
def core_radius(kind, size):
    """The radius swept around a shape's core: a sphere's or capsule's radius, else 0."""
    if kind == SPHERE or kind == CAPSULE:
        return size[0]
    return 0.0


@njit(cache=True)
def _along(d, length):
    """length d / |d| (0 for d = 0)."""
    s = norm(d)
    if s == 0.0:
        return (0.0, 0.0, 0.0)
    return scale(d, length / s)


@njit(cache=True)
def _mesh_support(verts, vadr, vnum, dl):
    """The hull vertex farthest along the shape-frame direction dl."""
    best = vadr
    best_h = -math.inf
    for v in range(vadr, vadr + vnum):
        h = verts[v, 0] * dl[0] + verts[v, 1] * dl[1] + verts[v, 2] * dl[2]
        if h > best_h:
            best, best_h = v, h
    return (verts[best, 0], verts[best, 1], verts[best, 2])


@njit(cache=True)
def support_core(kind, R, p, size, verts, vadr, vnum, d):
    """The farthest point along world direction d of the shape's core (a sphere's centre, a
    capsule's segment, every other shape whole); R, p: its world pose; size: SF_SIZE."""
    if kind == SPHERE:
        return p
    if kind == CAPSULE:
        a = column(R, 2)
        return axpy(size[1] if dot(a, d) >= 0.0 else -size[1], a, p)
    dl = mul33T_vec(R, d[0], d[1], d[2])
    if kind == BOX:
        xl = (size[0] if dl[0] >= 0.0 else -size[0], size[1] if dl[1] >= 0.0 else -size[1],
              size[2] if dl[2] >= 0.0 else -size[2])
    elif kind == CYLINDER:
        rim = _along((dl[0], dl[1], 0.0), size[0])
        xl = (rim[0], rim[1], size[1] if dl[2] >= 0.0 else -size[1])
    elif kind == ELLIPSOID:
        # x = D^2 dl / |D dl| maximises dl . x on x^T D^-2 x = 1 (D: the radii)
        g = (size[0] * dl[0], size[1] * dl[1], size[2] * dl[2])
        s = norm(g)
        if s == 0.0:
            return p
        xl = (size[0] * g[0] / s, size[1] * g[1] / s, size[2] * g[2] / s)
    elif kind == MESH:
        xl = _mesh_support(verts, vadr, vnum, dl)
    else:
        return p
    x = mul33_vec(R, xl[0], xl[1], xl[2])
    return (p[0] + x[0], p[1] + x[1], p[2] + x[2])


@njit(cache=True)
def support(kind, R, p, size, verts, vadr, vnum, d):
    """The farthest point of the whole shape along world direction d."""
    c = support_core(kind, R, p, size, verts, vadr, vnum, d)
    r = core_radius(kind, size)
    if r == 0.0:
        return c
    o = _along(d, r)
    return (c[0] + o[0], c[1] + o[1], c[2] + o[2])


@njit(cache=True)
def minkowski_support(ka, Ra, pa, sa, kb, Rb, pb, sb, verts, va, na, vb, nb, d, core):
    """(w, x_a, x_b): the support of B - A along d, w = x_b(d) - x_a(-d), and its two
    points; core: of the shapes' cores."""
    m = (-d[0], -d[1], -d[2])
    if core:
        xa = support_core(ka, Ra, pa, sa, verts, va, na, m)
        xb = support_core(kb, Rb, pb, sb, verts, vb, nb, d)
    else:
        xa = support(ka, Ra, pa, sa, verts, va, na, m)
        xb = support(kb, Rb, pb, sb, verts, vb, nb, d)
    return sub(xb, xa), xa, xb
