"""The kinematic tree of a URDF: links and joints checked into one rooted tree.

``read_tree`` reads the ``<link>`` and ``<joint>`` elements of a ``<robot>`` and
refuses broken topology (joints naming undefined links, a link with two parents, a
joint from a link to itself, cycles, no root or several roots, duplicate names, a
non-root link named ``"world"``). The root is the one link that is no joint's child.

The joints come out in depth-first order from the root, the children of a link
sorted by joint name (``joint_order="name"``: the order of urdfdom, hence of
Pinocchio and ROS/KDL) or in file order (``joint_order="file"``). The traversal is
iterative, so a chain of any length loads without reaching the recursion limit.
"""
from ._joints import read_joint, warn_unknown_mimics
from ._links import read_links


class Tree:
    """A checked URDF tree.

    ``links``: ``{name: <link> element}`` in file order; ``joints``: ``{name: Joint}``;
    ``children``: ``{link name: [child Joint, ...]}`` in ``joint_order``;
    ``parent_joint``: ``{link name: Joint}`` for every link but the root;
    ``root``: the root link's name; ``order``: all joints, depth first from the root.
    """

    __slots__ = ("links", "joints", "children", "parent_joint", "root", "order")


def _read_joints(robot, links, source):
    """``(joints, children, parent_joint)`` of the ``<joint>`` elements, links checked."""
    joints = {}
    children = {name: [] for name in links}
    parent_joint = {}
    for el in robot.findall("joint"):
        j = read_joint(el, source)
        if j.name in joints:
            raise ValueError(f"{source}: duplicate joint name {j.name!r}")
        joints[j.name] = j
        for tag, link in (("parent", j.parent), ("child", j.child)):
            if link not in links:
                raise ValueError(f"{source}: joint {j.name!r} names {tag} link {link!r}, "
                                 f"which is not defined")
        if j.parent == j.child:
            raise ValueError(f"{source}: joint {j.name!r} connects link {j.child!r} to itself (a cycle)")
        if j.child in parent_joint:
            raise ValueError(f"{source}: link {j.child!r} has two parents: joints "
                             f"{parent_joint[j.child].name!r} and {j.name!r} (URDF trees allow one)")
        parent_joint[j.child] = j
        children[j.parent].append(j)
    return joints, children, parent_joint


def _find_root(links, parent_joint, source):
    """The one link without a parent joint."""
    if not links:
        raise ValueError(f"{source}: the robot has no links")
    roots = [n for n in links if n not in parent_joint]
    if not roots:
        raise ValueError(f"{source}: the joints form a cycle (every link has a parent; "
                         f"links {sorted(links)[:5]})")
    if len(roots) > 1:
        raise ValueError(f"{source}: {len(roots)} root links {roots[:10]} (links without a parent "
                         f"joint); a URDF tree has exactly one")
    return roots[0]


def depth_first(root, children):
    """The joints below link ``root``, depth first (iterative: long chains must not hit
    the recursion limit); a link's children in the order of ``children[link]``."""
    order = []
    stack = list(reversed(children[root]))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(children[j.child]))
    return order


def read_tree(robot, source, joint_order, mimic="metadata"):
    """The checked ``Tree`` of a ``<robot>`` element; errors name the offending link or joint.
    Mimics of undefined joints are warned about unless ``mimic="constraint"`` (which refuses them)."""
    t = Tree()
    t.links = read_links(robot, source)
    t.joints, t.children, t.parent_joint = _read_joints(robot, t.links, source)
    if mimic != "constraint":
        warn_unknown_mimics(t.joints, source)
    t.root = _find_root(t.links, t.parent_joint, source)
    if joint_order == "name":
        for kids in t.children.values():
            kids.sort(key=lambda j: j.name)
    t.order = depth_first(t.root, t.children)
    reached = {t.root} | {j.child for j in t.order}
    if len(reached) != len(t.links):
        lost = [n for n in t.links if n not in reached]
        raise ValueError(f"{source}: the joints form a cycle through links {lost[:10]} "
                         f"(not reachable from the root link {t.root!r})")
    for n in t.links:
        if n == "world" and n != t.root:
            raise ValueError(f"{source}: link name 'world' is reserved for the root link "
                             f"(the world frame); it is the child of joint {t.parent_joint[n].name!r}")
    return t
