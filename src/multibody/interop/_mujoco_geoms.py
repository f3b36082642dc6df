"""Our collision shapes as the geoms of a ``mujoco.MjSpec`` (``mujoco_from_urdf(collisions=m)``),
so MuJoCo collides exactly our geometry: each shape on the body of its name (``world`` for
scenery) at its pose, with MuJoCo's size conventions (half sizes), a mesh as a MuJoCo mesh
of our hull's vertices, and contype, conaffinity, friction (sliding; MuJoCo, as we, takes the
larger of a pair's), margin, a height field as MuJoCo's (its elevations scaled to [0, 1] over
their range, the geom raised to the lowest), and solref/solimp where a shape has them (else MuJoCo's
defaults: MuJoCo's contacts are soft where ours are hard). Body-pair exclusions become ``<exclude>``, and so do a fixed
base's pairs with its first links (``fixed_base_pairs``: MuJoCo would let them touch). MuJoCo has no
restitution, no absolute contact stiffness and no exclusion of single geoms: a restitution
other than 0, a ``stiffness`` or an exclusion naming a shape is a ValueError naming it.
"""
import numpy as np

from ..model.collision_compile import fixed_base_pairs
from ..spatial import matrix_to_quat


def _size(shape):
    """MuJoCo's geom size (3,) of one of our shapes (half lengths where MuJoCo takes them)."""
    t = shape.type_name
    if t in ("capsule", "cylinder"):
        return [shape.radius, 0.5 * shape.length, 0.0]
    if t == "plane":
        return [0.0, 0.0, 1.0]  # 0: infinite (MuJoCo draws it so)
    return shape.size.tolist()


def _add_hfield(spec, shape, name):
    """Our ``Heightfield`` as MuJoCo's: elevations in [0, 1] over its range (its geom raised to
    the lowest height by the caller), its base the depth of our bottom below the lowest."""
    h = shape.heights
    low, span = float(h.min()), float(np.ptp(h))
    data = (h - low) / span if span > 0.0 else np.zeros_like(h)
    nrow, ncol = h.shape
    spec.add_hfield(name=name, nrow=nrow, ncol=ncol, userdata=data.ravel().tolist(),
                    size=[0.5 * shape.lengths[0], 0.5 * shape.lengths[1], max(span, 1e-9), low - shape.bottom])


def add_collision_geoms(spec, m):
    """Add Multibody ``m``'s collision shapes and body exclusions to ``spec`` (its bodies named as
    ``m``'s); returns the geoms' names, in ``m.collision_shapes``'s order."""
    import mujoco
    types = {"sphere": mujoco.mjtGeom.mjGEOM_SPHERE, "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
             "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER, "box": mujoco.mjtGeom.mjGEOM_BOX,
             "ellipsoid": mujoco.mjtGeom.mjGEOM_ELLIPSOID, "plane": mujoco.mjtGeom.mjGEOM_PLANE,
             "mesh": mujoco.mjtGeom.mjGEOM_MESH, "heightfield": mujoco.mjtGeom.mjGEOM_HFIELD}
    shape_names = {s.name for s in m.collision_shapes}
    names = []
    for k, s in enumerate(m.collision_shapes):
        if s.restitution != 0.0:
            raise ValueError(f"collisions: shape {s.name!r} has restitution {s.restitution:g}, which MuJoCo has not")
        if s.stiffness is not None:
            raise ValueError(f"collisions: shape {s.name!r} has stiffness {s.stiffness:g} N/m, which MuJoCo has not "
                             f"(its solref scales with the effective mass: give the shape solref instead)")
        body = spec.worldbody if s.body is m.world else spec.body(s.body.name)
        if body is None:
            raise ValueError(f"collisions: shape {s.name!r}: the MuJoCo model has no body {s.body.name!r}")
        pose = s.pose if s.node is None else s.node.T_body_node @ s.pose  # (a node: rigid in MuJoCo)
        if s.shape.type_name == "heightfield":  # (MuJoCo's elevation starts at 0: the frame raised to the lowest)
            pose = pose.copy()
            pose[:3, 3] += pose[:3, 2] * s.shape.heights.min()
        q = matrix_to_quat(pose[:3, :3])  # (x, y, z, w)
        g = body.add_geom(name=f"collision{k}", type=types[s.shape.type_name], size=_size(s.shape),
                          pos=pose[:3, 3].tolist(), quat=[q[3], q[0], q[1], q[2]], contype=s.contype,
                          conaffinity=s.conaffinity, margin=s.margin)
        g.friction = [s.friction, 0.0, 0.0]
        if s.solref is not None:
            g.solref = list(s.solref)
            g.solimp = list(s.solimp)
        if s.shape.type_name == "heightfield":
            _add_hfield(spec, s.shape, f"collision{k}_field")
            g.hfieldname = f"collision{k}_field"
        if s.shape.type_name == "mesh":
            spec.add_mesh(name=f"collision{k}_hull", uservert=np.ravel(s.shape.vertices).tolist())
            g.meshname = f"collision{k}_hull"
        names.append(g.name)
    for pair in m.collision_excludes:
        a, b = sorted(pair)
        for x in (a, b):
            if x in shape_names and x not in m.body_names + ["world"]:
                raise ValueError(f"collisions: the exclusion of shape {x!r} has no MuJoCo counterpart "
                                 f"(MuJoCo excludes pairs of bodies)")
        spec.add_exclude(bodyname1=a, bodyname2=b)
    for a, b in fixed_base_pairs(m, m.compiled):  # MuJoCo lets a world-welded base touch its first links
        spec.add_exclude(bodyname1=a, bodyname2=b)
    return names
