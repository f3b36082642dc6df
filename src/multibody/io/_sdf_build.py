"""A ``Multibody`` from a read SDFormat model: bodies, a spanning tree of hinges, loops, gears.

* **Spanning tree.** Every joint but gearboxes and Simbody's ``must_be_loop_joint`` ones
  may be a tree hinge. The tree grows from the world: from the joints whose parent is
  the world, else from the root link (the one link no joint moves; when every link has
  a parent joint, the canonical link), attached by the hinge ``"root_joint"``. A link
  moved by several joints (a second parent) gets the first of them in the file whose
  parent link is in the tree, unless that choice would close a cycle of links, where the
  next is taken. ``choose_tree`` refuses links the tree cannot reach.
* **Hinges.** A tree joint becomes ``add_hinge(parent, child, kind, T_parent_joint,
  T_child_joint)`` with the joint frame J as both hinge frames: T_child_joint = X_CJ
  (the joint pose), T_parent_joint = X_PM X_MJ at the file's configuration, so that at
  q = 0 every link is where the file puts it.
* **Loops.** Every other joint closes a loop: a loop constraint of its kind (named after
  the joint) between the node ``"<joint>_parent"`` on the parent link and the node
  ``"<joint>_child"`` on the child link, both at the joint frame J, so they coincide at
  q = 0; the axes are the joint's, in J.
* **Gearboxes.** A gearbox joint enforces theta_2 = -ratio theta_1, theta_1 the angle of
  its parent link and theta_2 that of its child link relative to the reference body
  about ``axis`` and ``axis2``: both links must hang from the reference body by one-dof
  pin hinges about those axes, and the joint becomes the coordinate constraint
  q_child_hinge = -ratio s q_parent_hinge (s = +-1 from the hinges' axis directions).
"""
import numpy as np

from ..model import Multibody
from ..spatial import transform_inverse
from ._collision_shapes import CollisionReader
from ._links import nearest_psd
from ._sdf_frames import WORLD
from ._sdf_joints import GEARBOX, KINDS, set_metadata
from ._sdf_links import link_geometries, mass_properties, surfaces


def _root(links, joints, frames, source):
    """The root link: the one link no candidate joint moves, else the canonical link."""
    moved = {j.child for j in joints}
    free = [name for name in links if name not in moved]
    if len(free) > 1:
        raise ValueError(f"{source}: {len(free)} links {free[:10]} are moved by no joint; load_sdf "
                         f"builds one tree: connect them with joints (or load one model per tree)")
    return free[0] if free else frames.canonical


def choose_tree(links, joints, frames, floating, source):
    """``(root, tree, skipped)``: root is a link name (attached by ``"root_joint"``) or None
    (joints from the world), tree ``{link: SdfJoint}`` the joint that moves each other
    link, skipped the fixed joint from the world that a floating base replaces (or None)."""
    candidates = [j for j in joints.values() if j.type != GEARBOX and not j.loop_only]
    from_world = [j for j in candidates if j.parent == WORLD]
    skipped = None
    if from_world and floating:
        if len(from_world) > 1 or from_world[0].type != "fixed":
            raise ValueError(f"{source}: joints {[j.name for j in from_world]} attach the model to the "
                             f"world; a floating base needs at most one fixed joint from the world")
        skipped = from_world.pop()  # the free root hinge replaces it
        candidates.remove(skipped)
    root = None if from_world else _root(links, candidates, frames, source)
    placed = {WORLD} if from_world else {root}
    parents = {name: [j for j in candidates if j.child == name] for name in links}
    reach, grow = set(placed), True
    while grow:
        new = {j.child for j in candidates if j.parent in reach and j.child not in reach}
        reach |= new
        grow = bool(new)
    lost = [name for name in links if name not in reach]
    if lost:
        start = "the world" if root is None else f"root link {root!r}"
        raise ValueError(f"{source}: links {lost[:10]} cannot be reached from {start} along "
                         f"parent -> child joints (gearbox and must_be_loop_joint joints are not tree joints)")
    preferred = {name: js[0] for name, js in parents.items() if js and name not in placed}
    tree = {}
    while len(placed) < len(links) + (root is None):
        step = [name for name in links if name not in placed and preferred[name].parent in placed]
        if not step:  # the first-in-file parents close a cycle: take the next parent for one link
            name, j = next((n, j) for n in links if n not in placed for j in parents[n] if j.parent in placed)
            preferred[name] = j
            continue
        for name in step:
            tree[name] = preferred[name]
            placed.add(name)
    return root, tree, skipped


def depth_first(root, tree, joints):
    """The tree joints, depth first from the root, a link's children in the file order of
    their joints (the order of Pinocchio's SDFormat reader)."""
    kids = {}
    for j in joints.values():
        if tree.get(j.child) is j:
            kids.setdefault(j.parent, []).append(j)
    order, stack = [], list(reversed(kids.get(WORLD if root is None else root, [])))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(kids.get(j.child, [])))
    return order


def _in_link(frames, link, X_MF):
    """X_LF: a frame given in the model frame, in link ``link``'s frame (or the world's)."""
    return transform_inverse(frames.pose_in_model(link)) @ X_MF


def add_bodies(m, links, frames, refs, source):
    """One body per link, with its geometry metadata and its collision shapes."""
    shapes = CollisionReader(m, source)
    for name, el in links.items():
        mass, com, inertia = mass_properties(el, name, frames)
        try:
            body = m.add_body(name, mass, com, nearest_psd(inertia, name, source))
        except ValueError as e:
            raise ValueError(f"{source}: link {name!r} <inertial>: {e}") from None
        body.visuals, body.collisions = link_geometries(name, el, frames, refs)
        shapes.add(body, body.collisions, surfaces(name, el, source))
    shapes.finish()


def _hinge_args(j, kind):
    axes = j.axes
    if kind == "universal":
        return {"axes": [axes[0], axes[1]]}
    if kind in ("pin", "slider", "screw"):
        return {"axis": axes[0], "pitch": j.pitch}
    return {}


def _tree_kind(j, root_kind):
    kind = KINDS[j.type]
    return "spherical_quat" if kind == "spherical" and root_kind == "free_quat" else kind


def add_tree(m, root, order, frames, root_kind, source):
    """The root hinge (when root is a link) and one hinge per tree joint."""
    if any(j.name == "root_joint" for j in order) and root is not None:
        raise ValueError(f"{source}: joint 'root_joint' clashes with the hinge that attaches the root "
                         f"link; rename the joint")
    if root is not None:
        T = _in_link(frames, WORLD, frames.pose_in_model(root)) if root_kind is None else np.eye(4)
        h = m.add_hinge(None, root, kind=root_kind or "locked", name="root_joint", T_parent_joint=T)
        h.sdf_type = None
    for j in order:
        kind = _tree_kind(j, root_kind)
        T_pj, T_cj = _in_link(frames, j.parent, j.X_MJ), _in_link(frames, j.child, j.X_MJ)
        try:
            h = m.add_hinge(None if j.parent == WORLD else j.parent, j.child, kind=kind, name=j.name,
                            T_parent_joint=T_pj, T_child_joint=T_cj, **_hinge_args(j, kind))
        except ValueError as e:
            raise ValueError(f"{source}: joint {j.name!r}: {e}") from None
        set_metadata(h, j)


def add_loop(m, j, frames, source):
    """The loop constraint of joint ``j``, between nodes at its frame on both links."""
    names = (f"{j.name}_parent", f"{j.name}_child")
    for n in names:
        if n in m.body_names or n in m.node_names:
            raise ValueError(f"{source}: joint {j.name!r} closes a loop whose node name {n!r} is "
                             f"already a link or node; rename the link or the joint")
    m.add_node(names[0], None if j.parent == WORLD else j.parent, _in_link(frames, j.parent, j.X_MJ))
    m.add_node(names[1], j.child, _in_link(frames, j.child, j.X_MJ))
    kind = KINDS[j.type]
    args = _hinge_args(j, kind)
    try:
        c = m.add_loop_constraint(j.name, names[0], names[1], kind, **args)
    except ValueError as e:
        raise ValueError(f"{source}: joint {j.name!r} closes a loop: {e}") from None
    c.sdf_type = j.type
    return c


def _gear_hinge(m, j, link, which, source):
    """The one-dof pin hinge that moves ``link`` from the gearbox's reference body."""
    ref = j.gear_reference
    h = None if link == WORLD else m.body(link).parent_hinge
    parent = None if h is None else ("world" if h.parent is m.world else h.parent.name)
    if h is None or parent != ref or h.kind != "pin":
        how = "nothing" if h is None else f"hinge {h.name!r} ({h.kind}) from {parent!r}"
        raise ValueError(f"{source}: gearbox joint {j.name!r}: its {which} link {link!r} must hang from "
                         f"the reference body {ref!r} by a revolute joint (it hangs by {how})")
    return h


def add_gearbox(m, j, frames, source):
    """The coordinate constraint q_child = -ratio s q_parent of gearbox joint ``j``."""
    R_MR = frames.pose_in_model(j.gear_reference)[:3, :3]
    signs, hinges = [], []
    for link, axis, which in ((j.parent, j.axes[0], "parent"), (j.child, j.axes[1], "child")):
        h = _gear_hinge(m, j, link, which, source)
        e_M = R_MR @ h.T_parent_joint[:3, :3] @ h.subhinges[0].axis  # the hinge axis at q = 0
        cos = float(e_M @ (j.X_MJ[:3, :3] @ axis)) / float(np.linalg.norm(e_M))
        if abs(abs(cos) - 1.0) > 1e-6:
            raise ValueError(f"{source}: gearbox joint {j.name!r}: the axis of hinge {h.name!r} is not "
                             f"along the gearbox's {'axis' if which == 'parent' else 'axis2'} "
                             f"(cosine {cos:.6g})")
        signs.append(np.sign(cos))
        hinges.append(h)
    c = m.add_coordinate_constraint(j.name, hinges[1], hinges[0], ratio=-j.gear_ratio * signs[0] * signs[1])
    c.sdf_type = j.type
    return c


def build(name, links, joints, frames, root_kind, refs, source):
    """The finalized ``Multibody`` of a read model."""
    m = Multibody(name=name)
    m.source = source
    add_bodies(m, links, frames, refs, source)
    root, tree, skipped = choose_tree(links, joints, frames, root_kind is not None, source)
    order = depth_first(root, tree, joints)
    add_tree(m, root, order, frames, root_kind, source)
    in_tree = {id(j) for j in order} | {id(skipped)}
    for j in joints.values():
        if j.type != GEARBOX and id(j) not in in_tree:
            add_loop(m, j, frames, source)
    for j in joints.values():
        if j.type == GEARBOX:
            add_gearbox(m, j, frames, source)
    m.finalize()
    return m
