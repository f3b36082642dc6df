"""Building a ``Multibody`` from a checked URDF tree.

* Every ``<link>`` becomes a body (``Multibody.add_body(name, mass, com, inertia)``)
  carrying its geometry metadata (``body.visuals``, ``body.collisions``) and its
  ``<collision>`` elements as collision shapes (``_collision_shapes``); a link named
  ``"world"`` *is* ``Multibody.world`` (the ROS convention).
* The root link is attached to the world by the hinge ``"root_joint"``: ``"locked"``
  for a fixed base, ``"free"``/``"free_quat"`` for a floating one. With a root link
  ``"world"`` and a floating base, the world's one fixed child joint is replaced by
  the free ``"root_joint"``, whose coordinates are then the pose of the URDF world link
  (as Pinocchio's free flyer would be).
* Every other joint becomes a hinge (``Multibody.add_hinge``), added in the tree's
  depth-first order, with its URDF metadata.
* With ``mimic="constraint"``, every ``<mimic>`` becomes the coordinate constraint
  ``mimic_<joint>`` (``_joints.add_mimic_constraints``).
"""
from ..model import Multibody
from ..spatial import transform_inverse
from ._collision_shapes import CollisionReader
from ._joints import add_mimic_constraints, axis, hinge_kind, set_metadata
from ._links import link_geometries, mass_properties, nearest_psd


def _add_bodies(m, tree, materials, refs, root_kind, on_bad_inertia, source):
    """One body per link (the link ``"world"`` is ``m.world``), with its geometry metadata
    and its collision shapes."""
    shapes = CollisionReader(m, source)
    for name, el in tree.links.items():
        visuals, collisions = link_geometries(name, el, materials, refs)
        mass, com, inertia = mass_properties(el, name)
        if on_bad_inertia == "project":
            inertia = nearest_psd(inertia, name, source)
        if name == "world":
            if mass > 0.0 and root_kind is not None:
                raise ValueError(f"{source}: root link 'world' has mass {mass}; a floating base "
                                 f"cannot move the world")
            body = m.world
        else:
            try:
                body = m.add_body(name, mass, com, inertia)
            except ValueError as e:
                raise ValueError(f"{source}: link {name!r} <inertial>: {e}") from None
        body.visuals = visuals
        body.collisions = collisions
        shapes.add(body, collisions)
    shapes.finish()


def _add_root_hinge(m, tree, root_kind, source):
    """Attach the root link to the world; returns the joint the root hinge replaces, or None."""
    skip = None
    if tree.root == "world":
        if root_kind is None:
            return None
        kids = tree.children[tree.root]
        if len(kids) != 1 or kids[0].type != "fixed":
            raise ValueError(f"{source}: root link 'world' is the world frame; a floating base "
                             f"needs it to have exactly one fixed child joint "
                             f"(it has {[f'{j.name} ({j.type})' for j in kids]})")
        skip = kids[0]
        h = m.add_hinge(None, skip.child, kind=root_kind, name="root_joint",
                        T_child_joint=transform_inverse(skip.origin))
    else:
        h = m.add_hinge(None, tree.root, kind=root_kind or "locked", name="root_joint")
    h.urdf_type = None
    return skip


def build_multibody(tree, name, source, materials, refs, root_kind, on_bad_inertia,
                    mimic="metadata"):
    """A finalized ``Multibody`` named ``name`` from a checked ``Tree`` (``mimic``: "metadata"
    keeps ``<mimic>`` as hinge metadata only, "constraint" also adds coordinate constraints)."""
    m = Multibody(name=name)
    m.source = source
    _add_bodies(m, tree, materials, refs, root_kind, on_bad_inertia, source)
    skip = _add_root_hinge(m, tree, root_kind, source)
    root_hinge_added = tree.root != "world" or root_kind is not None
    for j in tree.order:
        if j is skip:
            continue
        kind = hinge_kind(j, root_kind)
        ax = axis(j, kind, source)
        if j.name == "root_joint" and root_hinge_added:
            raise ValueError(f"{source}: joint {j.name!r} clashes with the hinge "
                             f"'root_joint' that attaches the root link; rename the joint")
        parent = None if j.parent == "world" else j.parent
        h = m.add_hinge(parent, j.child, kind=kind, name=j.name, axis=ax, T_parent_joint=j.origin)
        set_metadata(h, j, source)
    if mimic == "constraint":
        add_mimic_constraints(m, tree.joints, source)
    m.finalize()
    return m
