"""Narrow phase dispatch: the test of a candidate pair by its two shapes' types (issue 21).

Each pair test takes its shapes in a fixed order (a plane first, then by the type codes
of ``layout``) and writes normals from its first shape to its second; ``narrow_pair``
reports whether that order is (b, a), so that the caller turns the normals to point
from a to b. Pairs of convex shapes with no closed form go to GJK/EPA (``convex.py``).
"""
from numba import njit

from ..spatial_inline import load9
from .layout import (
    BOX, CAPSULE, CYLINDER, ELLIPSOID, HFIELD, MESH, PLANE, SF_MARGIN, SF_RBOUND, SF_SIZE, SI_TYPE, SI_VADR,
    SI_VNUM, SPHERE,
)
from .plane import plane_box, plane_capsule, plane_cylinder, plane_ellipsoid, plane_mesh, plane_sphere
from .manifold import MAN_N
from .poses import POSE_C, POSE_P, POSE_R
from .spheres import capsule_capsule, sphere_capsule, sphere_sphere
from .box import capsule_box, sphere_box
from .box_box import box_box
from .cylinder_box import cylinder_box
from .mesh_box import mesh_box
from .convex import convex_pair
from .heightfield import heightfield_pair
from .separation import apart_along


@njit(cache=True)
def _pose(poses, s):
    return load9(poses, s, POSE_R), (poses[s, POSE_P], poses[s, POSE_P + 1], poses[s, POSE_P + 2])


@njit(cache=True)
def _size(sf, s):
    return (sf[s, SF_SIZE], sf[s, SF_SIZE + 1], sf[s, SF_SIZE + 2])


@njit(cache=True)
def _flip_normals(count, man):
    """Turn the normals of a manifold written with the pair's shapes taken the other way."""
    for k in range(count):
        for i in range(3):
            man[k, MAN_N + i] = -man[k, MAN_N + i]
    return count


@njit(cache=True)
def _plane_pair(si, sf, verts, poses, p, s, margin, cand, cfeat, man, mfeat):
    """Plane p against shape s, a primitive (a mesh: ``plane_mesh_pair``)."""
    Rp, pp = _pose(poses, p)
    R, x = _pose(poses, s)
    size = _size(sf, s)
    kind = si[s, SI_TYPE]
    if kind == SPHERE:
        return plane_sphere(Rp, pp, x, size[0], margin, man, mfeat)
    if kind == CAPSULE:
        return plane_capsule(Rp, pp, R, x, size[0], size[1], margin, man, mfeat)
    if kind == CYLINDER:
        return plane_cylinder(Rp, pp, R, x, size[0], size[1], margin, cand, cfeat, man, mfeat)
    if kind == BOX:
        return plane_box(Rp, pp, R, x, size, margin, cand, cfeat, man, mfeat)
    if kind == ELLIPSOID:
        return plane_ellipsoid(Rp, pp, R, x, size, margin, verts, man, mfeat)
    return 0


@njit(cache=True)
def _ordered_pair(si, sf, verts, poses, s1, s2, margin, cand, cfeat, man, mfeat, adj_start, adj, sep, hverts):
    """Shapes s1, s2 (neither a plane) with type(s1) <= type(s2); sep: the pairs' last
    separating directions (``separation.py``), tried before GJK; hverts: ``heightfield_pair``'s."""
    t1 = si[s1, SI_TYPE]
    t2 = si[s2, SI_TYPE]
    if t2 == HFIELD:  # (the highest type: a height field is s2; two do not collide)
        return 0 if t1 == HFIELD else heightfield_pair(si, sf, poses, s1, s2, margin, hverts, cand, cfeat, man, mfeat)
    R1, p1 = _pose(poses, s1)
    R2, p2 = _pose(poses, s2)
    z1 = _size(sf, s1)
    z2 = _size(sf, s2)
    if t1 == SPHERE and t2 == SPHERE:
        return sphere_sphere(p1, z1[0], p2, z2[0], margin, man, mfeat)
    if t1 == SPHERE and t2 == CAPSULE:
        return sphere_capsule(p1, z1[0], R2, p2, z2[0], z2[1], margin, man, mfeat)
    if t1 == CAPSULE and t2 == CAPSULE:
        return capsule_capsule(R1, p1, z1[0], z1[1], R2, p2, z2[0], z2[1], margin, man, mfeat)
    if t1 == SPHERE and t2 == BOX:
        return sphere_box(p1, z1[0], R2, p2, z2, margin, man, mfeat)
    if t1 == CAPSULE and t2 == BOX:
        return capsule_box(R1, p1, z1[0], z1[1], R2, p2, z2, margin, verts, man, mfeat)
    if t1 == CYLINDER and t2 == BOX:
        return cylinder_box(R1, p1, z1[0], z1[1], R2, p2, z2, margin, verts, cand, cfeat, man, mfeat)
    if t1 == BOX and t2 == MESH:
        return _flip_normals(mesh_box(R2, p2, si[s2, SI_VADR], si[s2, SI_VNUM], R1, p1, z1, margin, verts,
                                      cand, cfeat, man, mfeat), man)
    if t1 == BOX and t2 == BOX:
        return box_box(R1, p1, z1, R2, p2, z2, margin, cand, cfeat, man, mfeat)
    p21 = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
    if apart_along(t1, R1, z1, si[s1, SI_VADR], si[s1, SI_VNUM], t2, R2, p21, z2, si[s2, SI_VADR],
                   si[s2, SI_VNUM], verts, adj_start, adj, sep[s1, s2], margin):
        return 0
    return convex_pair(t1, R1, p1, z1, si[s1, SI_VADR], si[s1, SI_VNUM],
                       t2, R2, p2, z2, si[s2, SI_VADR], si[s2, SI_VNUM], verts, margin, man, mfeat, sep[s1, s2])


@njit(cache=True, inline="always")
def _height_over(poses, p, s):
    """The height of shape s's bounding-sphere centre over plane p (along the plane's z)."""
    h = 0.0
    for i in range(3):
        h += poses[p, POSE_R + 3 * i + 2] * (poses[s, POSE_C + i] - poses[p, POSE_P + i])
    return h


@njit(cache=True, inline="always")
def _centre_distance(poses, a, b):
    """The distance between shapes a's and b's bounding-sphere centres."""
    d = 0.0
    for i in range(3):
        d += (poses[a, POSE_C + i] - poses[b, POSE_C + i]) ** 2
    return d ** 0.5


@njit(cache=True)
def plane_mesh_pair(si, sf, verts, poses, a, b, cand, cfeat, man, mfeat, adj_start, adj, sep):
    """``narrow_pair`` for a plane and a mesh (a robot's links on the floor), the plane a or b
    (the mesh's last lowest vertex in sep[plane, mesh]: ``plane_mesh``). Its own small
    function, which ``detect`` calls directly: through ``narrow_pair``, whose dispatch holds
    every pair kind's test, the call cost three times the test (Solo12: 0.4 against 0.13 us)."""
    flip = si[b, SI_TYPE] == PLANE
    p, s = (b, a) if flip else (a, b)
    margin = sf[a, SF_MARGIN] + sf[b, SF_MARGIN]
    if _height_over(poses, p, s) - sf[s, SF_RBOUND] > margin:
        return 0, flip  # (its bounding sphere is clear of the plane)
    Rp, pp = _pose(poses, p)
    R, x = _pose(poses, s)
    return plane_mesh(Rp, pp, R, x, verts, si[s, SI_VADR], si[s, SI_VNUM], margin, cand, cfeat, man, mfeat,
                      adj_start, adj, sep[p, s]), flip


@njit(cache=True, inline="always")
def is_plane_mesh(si, a, b):
    """Whether shapes a, b are a plane and a mesh (``plane_mesh_pair``'s pairs)."""
    ta = si[a, SI_TYPE]
    tb = si[b, SI_TYPE]
    return (ta == PLANE and tb == MESH) or (ta == MESH and tb == PLANE)


@njit(cache=True)
def narrow_pair(si, sf, verts, poses, a, b, cand, cfeat, man, mfeat, adj_start, adj, sep, hverts):
    """Test shapes a < b; returns (points written, flip): flip when the normals written point
    from b to a. Pairs farther apart than the sum of their margins give no point; pairs whose
    bounding spheres (SF_RBOUND about SF_CENTRE) are that far apart are not tested, nor pairs
    for GJK apart along their last separating direction (sep (ns, ns, SEP_COLS):
    ``separation.py``; adj_start, adj: the hulls' edges, ``hull_walk.py``). Planes and height
    fields do not collide with each other (hverts: the height fields' scratch,
    ``heightfield.py``)."""
    margin = sf[a, SF_MARGIN] + sf[b, SF_MARGIN]
    ta = si[a, SI_TYPE]
    tb = si[b, SI_TYPE]
    if (ta == PLANE or ta == HFIELD) and (tb == PLANE or tb == HFIELD):
        return 0, False
    if is_plane_mesh(si, a, b):
        return plane_mesh_pair(si, sf, verts, poses, a, b, cand, cfeat, man, mfeat, adj_start, adj, sep)
    if ta == PLANE or tb == PLANE:
        flip = tb == PLANE
        p, s = (b, a) if flip else (a, b)
        if _height_over(poses, p, s) - sf[s, SF_RBOUND] > margin:
            return 0, flip  # (its bounding sphere is clear of the plane)
        return _plane_pair(si, sf, verts, poses, p, s, margin, cand, cfeat, man, mfeat), flip
    if _centre_distance(poses, a, b) - sf[a, SF_RBOUND] - sf[b, SF_RBOUND] > margin:
        return 0, False  # (their bounding spheres are apart: the broad phase's boxes are looser)
    flip = ta > tb
    s1, s2 = (b, a) if flip else (a, b)
    return _ordered_pair(si, sf, verts, poses, s1, s2, margin, cand, cfeat, man, mfeat, adj_start, adj, sep,
                         hverts), flip
