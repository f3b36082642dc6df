"""The colliding geoms of a compiled MuJoCo model as collision shapes (issue 21).

Each geom with ``contype`` or ``conaffinity`` set becomes ``Multibody.add_collision`` on its
body at ``geom_pos``/``geom_quat``: plane, sphere, capsule, cylinder, box (MuJoCo's half
sizes doubled), ellipsoid, a mesh as the convex hull of its compiled vertices (MuJoCo
collides meshes by their hulls too), and a height field (``Heightfield``, MuJoCo's grid and
elevation, its base the bottom); with ``contype``, ``conaffinity``, ``friction[0]``
(0 for ``condim=1``, frictionless), ``margin``, and ``solref``/``solimp``. Contacts are hard
here and soft in MuJoCo; a model in which any colliding geom sets solref or solimp to other
than MuJoCo's defaults is read as soft throughout: every geom takes its solref/solimp
(defaults included, so that a pair mixes them as MuJoCo does, ``contact_step.soft_targets``).
A model that sets none stays hard (the closed forms of issue 21 hold on it). ``load_mjcf``'s
``contact_softness`` ("mujoco", "hard") overrides that choice either way.
``<exclude>`` pairs become ``exclude_collision`` of the two bodies. Not mapped, each noted
for ``load_mjcf``'s warning: sdf geoms, torsional and rolling friction (``condim`` 4 or
6), explicit ``<pair>`` elements and a disabled parent filter. With
MuJoCo's contact flag disabled no geom is a collision shape. One filter differs from
MuJoCo's: a body welded to the world that a jointed body hangs from (a fixed base) does not
touch that body's link (``model/collision_compile.fixed_base_pairs``); MuJoCo lets them.
"""
import numpy as np

from ..model.heightfield import Heightfield
from ..model.shapes import Box, Capsule, ConvexMesh, Cylinder, Ellipsoid, Plane, Sphere
from ._mjcf_build import quat_wxyz_to_matrix, transform

# mjtGeom codes (MuJoCo's enum)
_PLANE, _HFIELD, _SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX, _MESH = range(8)
_SOLREF = (0.02, 1.0)  # MuJoCo's defaults
_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def _shape(mm, g):
    """The Shape of geom g, or None for a kind not mapped (MuJoCo's sdf geoms)."""
    t, size = int(mm.geom_type[g]), mm.geom_size[g]
    if t == _PLANE:
        return Plane()
    if t == _SPHERE:
        return Sphere(size[0])
    if t in (_CAPSULE, _CYLINDER):
        return (Capsule if t == _CAPSULE else Cylinder)(size[0], 2.0 * size[1])
    if t == _BOX:
        return Box(2.0 * size[:3])
    if t == _ELLIPSOID:
        return Ellipsoid(size[:3])
    if t == _HFIELD:
        return _heightfield(mm, int(mm.geom_dataid[g]))
    if t == _MESH and mm.geom_dataid[g] >= 0:
        k = int(mm.geom_dataid[g])
        v0, nv = int(mm.mesh_vertadr[k]), int(mm.mesh_vertnum[k])
        return ConvexMesh(np.array(mm.mesh_vert[v0:v0 + nv], dtype=float), source=f"mesh {mm.mesh(k).name!r}")
    return None


def _heightfield(mm, k):
    """MuJoCo's height field k: its data (row-major, scaled to [0, 1]) times its elevation
    size[2] over a rectangle of half sides size[0], size[1], down to -size[3]."""
    nrow, ncol = int(mm.hfield_nrow[k]), int(mm.hfield_ncol[k])
    adr = int(mm.hfield_adr[k])
    sx, sy, sz, base = mm.hfield_size[k]
    heights = np.array(mm.hfield_data[adr:adr + nrow * ncol], dtype=float).reshape(nrow, ncol) * sz
    return Heightfield(heights, (2.0 * sx, 2.0 * sy), bottom=-float(base))


def _geom_name(mm, g, body_name, taken):
    base = mm.geom(g).name or f"{body_name}/geom{g - int(mm.body_geomadr[mm.geom_bodyid[g]])}"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name


SOFTNESS = ("auto", "mujoco", "hard")


def check_softness(contact_softness):
    """``load_mjcf``'s contact_softness, or ValueError naming it."""
    if not (isinstance(contact_softness, str) and contact_softness in SOFTNESS):
        raise ValueError(f"contact_softness must be one of {SOFTNESS}, got {contact_softness!r}")


def add_mjcf_collisions(mujoco, mm, m, bodies, note, softness="auto"):
    """Add the colliding geoms of ``mm`` to Multibody ``m`` (``bodies``: MuJoCo body id -> our
    body) and its ``<exclude>`` pairs; ``note(what, item)`` records what is not mapped;
    ``softness``: ``load_mjcf``'s contact_softness."""
    flags = mujoco.mjtDisableBit
    if mm.opt.disableflags & int(flags.mjDSBL_CONTACT):
        return
    if mm.opt.disableflags & int(flags.mjDSBL_FILTERPARENT):
        note("contacts between parent and child bodies (parent filter disabled)", "option/flag")
    colliding = [g for g in range(mm.ngeom) if mm.geom_contype[g] or mm.geom_conaffinity[g]]
    soft = softness == "mujoco" or softness == "auto" and any(
        not (np.allclose(mm.geom_solref[g], _SOLREF) and np.allclose(mm.geom_solimp[g], _SOLIMP)) for g in colliding)
    if soft and (np.ptp(mm.geom_solmix[colliding]) > 0 or np.ptp(mm.geom_priority[colliding]) > 0):
        note("unequal solmix or priority (a pair takes the mean of its geoms' solref/solimp)", "geoms")
    taken = set()
    for g in range(mm.ngeom):
        if not (mm.geom_contype[g] or mm.geom_conaffinity[g]):
            continue  # visual only
        body = bodies[int(mm.geom_bodyid[g])]
        name = _geom_name(mm, g, body.name, taken)
        shape = _shape(mm, g)
        if shape is None:
            note("contacts on signed-distance (sdf) geoms", name)
            continue
        condim = int(mm.geom_condim[g])
        if condim > 3:
            note("torsional and rolling friction (condim 4, 6)", name)
        params = dict(solref=mm.geom_solref[g].copy(), solimp=mm.geom_solimp[g].copy()) if soft else {}
        pose = transform(quat_wxyz_to_matrix(mm.geom_quat[g]), mm.geom_pos[g])
        m.add_collision(body, shape, pose, name=name, friction=0.0 if condim == 1 else float(mm.geom_friction[g, 0]),
                        margin=float(mm.geom_margin[g]), contype=int(mm.geom_contype[g]),
                        conaffinity=int(mm.geom_conaffinity[g]), **params)
    for sig in mm.exclude_signature[:mm.nexclude]:
        b1, b2 = int(sig) >> 16, int(sig) & 0xFFFF
        if b1 != b2:
            m.exclude_collision(bodies[b1], bodies[b2])
    for i in range(mm.npair):
        note("explicit contact pairs (<pair>)", mm.pair(i).name or f"{mm.geom(int(mm.pair_geom1[i])).name}/"
             f"{mm.geom(int(mm.pair_geom2[i])).name}")
