"""URDF writer: a tree ``Multibody`` as ``<robot>`` text (``Multibody.to_urdf``).

Mapping (multibody -> URDF), the inverse of ``multibody.io.urdf``:

* Hinges: a single pin subhinge -> ``revolute`` (with position limits) or
  ``continuous`` (``hinge.urdf_type`` is kept when it fits), slider -> ``prismatic``,
  locked (every subhinge locked) -> ``fixed``, a ``planar`` hinge as
  ``make_subhinges("planar", axis)`` builds it -> ``planar``, a free hinge hanging
  from the world -> ``floating``. Anything else (screw, spherical, universal, ...,
  quaternion kinds away from the root) raises ValueError naming the hinge.
* The root: when the world has exactly one child hinge, with ``T_parent_joint`` the
  identity, and it is locked, ``free`` or ``free_quat``, its child is the URDF root
  link (no joint); load the text back with ``floating_base=False``, ``True`` or
  ``"quaternion"`` respectively (a comment in the text says which). Otherwise the
  text has a link named ``"world"`` (the ROS convention) and the world's hinges are
  joints from it.
* A URDF link frame is its joint frame: a hinge whose ``T_child_joint`` is not the
  identity has its child body re-expressed in the joint's p-frame (centre of mass,
  inertia, geometry, the origins of its child joints and nodes), which leaves the
  dynamics unchanged but moves the body frame to the joint frame.
* Bodies -> ``<link>`` with ``<inertial>`` (mass, centre of mass, inertia about it in
  link axes) and their ``visuals``/``collisions`` metadata (not the collision shapes of
  ``add_collision``: the model file keeps those); nodes -> massless links
  fixed to their body by a joint ``"<node>_joint"``.
* Limits, ``<dynamics>`` and ``<mimic>`` come from the hinge metadata.
* Not stored: gravity (URDF has none), subhinge names, chart offsets. A hinge with
  armature is refused (URDF has no element for it; the dynamics would change), and so
  are modal (flexible) bodies and constraints (loop, convel, coordinate; enabled or
  not), each by name: URDF is a tree of rigid links. The one exception is a coordinate
  constraint that is a hinge's ``<mimic>`` as ``load_urdf(mimic="constraint")`` makes it
  (enabled, named ``mimic_<joint>``, the hinge's ``mimic`` metadata saying the same):
  the ``<mimic>`` element holds it. Save such models as ``.yaml``/``.json`` instead.

Joints are written depth first in the model's coordinate order; a model loaded from
URDF with the default ``joint_order="name"`` gets the same order back, any other model
should be read with ``joint_order="file"``. Numbers are written with ``repr``, so
positions, masses and inertias read back exactly; rotations pass through
roll-pitch-yaw angles (a few 1e-16 of rounding).
"""
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from ..model import make_subhinges
from ..spatial import matrix_to_rpy, transform_inverse

__all__ = ["to_urdf"]

_I4 = np.eye(4)


def _nums(v):
    return " ".join(repr(float(x)) for x in np.ravel(v))


def _origin(T):
    if np.array_equal(T, _I4):
        return ""
    return f'<origin xyz="{_nums(T[:3, 3])}" rpy="{_nums(matrix_to_rpy(T[:3, :3]))}"/>'


def _joint_type(h, m, root_form):
    """The URDF type of hinge ``h`` and its axis (or None), or ValueError naming ``h``."""
    kinds = [s.kind for s in h.subhinges]
    if all(k == "locked" for k in kinds):
        return "fixed", None
    if kinds == ["pin"]:
        limited = h.lower is not None and h.upper is not None
        t = getattr(h, "urdf_type", None)
        if t not in ("revolute", "continuous") or (t == "continuous" and limited):
            t = "revolute" if limited else "continuous"
        return t, h.subhinges[0].axis
    if kinds == ["slider"]:
        return "prismatic", h.subhinges[0].axis
    if kinds == ["slider", "slider", "pin"] and h.kind == "planar":
        axis = h.subhinges[2].axis
        ref = make_subhinges("planar", axis=axis)
        if all(np.allclose(a.axis, b.axis, rtol=0.0, atol=1e-12) for a, b in zip(ref, h.subhinges)):
            return "planar", axis
    if kinds == ["free"] and h.parent is m.world:
        return "floating", None
    where = "the world" if root_form is None else "the root"
    raise ValueError(f"hinge {h.name!r} ({h.kind}: subhinges {kinds}) has no URDF joint type; to_urdf "
                     f"writes pin, slider, locked and planar hinges and a free hinge at {where}")


def _is_mimic(c):
    """Whether constraint ``c`` is its first hinge's ``<mimic>`` (see the module docstring)."""
    if c.category != "coordinate" or not c.enabled or c.name != f"mimic_{c.hinge_a.name}":
        return False
    mim = c.hinge_a.mimic or {}
    return (mim.get("joint"), mim.get("multiplier", 1.0), mim.get("offset", 0.0)) == (c.hinge_b.name, c.ratio, c.offset)


def _check_rigid_tree(m):
    """ValueError naming the first modal body or constraint that URDF cannot hold."""
    for b in m.modal_bodies:
        raise ValueError(f"modal body {b.name!r} ({b.n_modes} modes): URDF has no element for a flexible body; "
                         f"save the model as .yaml or .json (Multibody.save) to keep it")
    for c in m.constraints.values():
        if not _is_mimic(c):
            state = "" if c.enabled else ", disabled"
            raise ValueError(f"constraint {c.name!r} ({c.category}{state}): URDF has no element for it (a "
                             f"coordinate constraint only as its hinge's <mimic>); save the model as .yaml or "
                             f".json (Multibody.save) to keep it")


def _root_hinge(m):
    """The root hinge written as the URDF root link (no joint), and its load option, or (None, None)."""
    kids = m.world.child_hinges
    if len(kids) != 1 or not np.array_equal(kids[0].T_parent_joint, _I4):
        return None, None
    kinds = [s.kind for s in kids[0].subhinges]
    if all(k == "locked" for k in kinds):
        return kids[0], "floating_base=False"
    if kinds in (["free"], ["free_quat"]):
        return kids[0], "floating_base=True" if kinds == ["free"] else 'floating_base="quaternion"'
    return None, None


def _geometry(g, T_new_body, tag):
    """A ``<visual>``/``<collision>`` element from a geometry metadata dict."""
    name = f" name={quoteattr(g['name'])}" if g.get("name") else ""
    origin = np.asarray(g.get("origin", _I4), dtype=float)
    lines = [f"    <{tag}{name}>", "      " + _origin(T_new_body @ origin)]
    t = g.get("type")
    if t == "box":
        shape = f'<box size="{_nums(g["size"])}"/>'
    elif t == "sphere":
        shape = f'<sphere radius="{_nums([g["radius"]])}"/>'
    elif t in ("cylinder", "capsule"):
        shape = f'<{t} radius="{_nums([g["radius"]])}" length="{_nums([g["length"]])}"/>'
    elif t == "mesh":
        scale = g.get("scale")
        s = "" if scale is None or np.array_equal(scale, np.ones(3)) else f' scale="{_nums(scale)}"'
        shape = f'<mesh filename={quoteattr(g.get("uri") or g.get("filename") or "")}{s}/>'
    else:
        shape = ""
    lines.append(f"      <geometry>{shape}</geometry>")
    if "material" in g or "rgba" in g:
        mname = f" name={quoteattr(g['material'])}" if g.get("material") else ""
        color = f'<color rgba="{_nums(g["rgba"])}"/>' if g.get("rgba") is not None else ""
        lines.append(f"      <material{mname}>{color}</material>")
    lines.append(f"    </{tag}>")
    return [ln for ln in lines if ln.strip()]


def _link(name, body, T_new_body):
    """A ``<link>``: the body's mass properties and geometry, re-expressed in the frame
    ``new`` (``T_new_body`` places the body frame in it)."""
    lines = [f"  <link name={quoteattr(name)}>"]
    if body is not None:
        R, p = T_new_body[:3, :3], T_new_body[:3, 3]
        com = R @ body.com + p if not np.array_equal(T_new_body, _I4) else body.com
        I = R @ body.inertia @ R.T if not np.array_equal(T_new_body, _I4) else body.inertia
        if body.mass != 0.0 or np.any(I != 0.0) or np.any(com != 0.0):
            lines += ["    <inertial>", f'      <origin xyz="{_nums(com)}"/>',
                      f'      <mass value="{_nums([body.mass])}"/>',
                      f'      <inertia ixx="{_nums([I[0, 0]])}" ixy="{_nums([I[0, 1]])}" ixz="{_nums([I[0, 2]])}" '
                      f'iyy="{_nums([I[1, 1]])}" iyz="{_nums([I[1, 2]])}" izz="{_nums([I[2, 2]])}"/>',
                      "    </inertial>"]
        for tag, key in (("visual", "visuals"), ("collision", "collisions")):
            for g in getattr(body, key, ()):
                lines += _geometry(g, T_new_body, tag)
    if len(lines) == 1:
        return [f"  <link name={quoteattr(name)}/>"]
    lines.append("  </link>")
    return lines


def _joint(h, jtype, axis, parent, T_origin):
    lines = [f"  <joint name={quoteattr(h.name)} type=\"{jtype}\">",
             "    " + _origin(T_origin),
             f"    <parent link={quoteattr(parent)}/>", f"    <child link={quoteattr(h.child.name)}/>"]
    if axis is not None:
        lines.append(f'    <axis xyz="{_nums(axis)}"/>')
    lim = {k: getattr(h, k) for k in ("lower", "upper", "effort", "velocity")}
    if jtype == "continuous":
        lim.pop("lower"), lim.pop("upper")
    lim = " ".join(f'{k}="{_nums([v])}"' for k, v in lim.items() if v is not None and np.isfinite(v))
    if lim:
        lines.append(f"    <limit {lim}/>")
    damping, friction = (float(np.ravel(v)[0]) for v in (h.damping, h.friction))  # (one coordinate here)
    if damping != 0.0 or friction != 0.0:
        lines.append(f'    <dynamics damping="{_nums([damping])}" friction="{_nums([friction])}"/>')
    if h.mimic is not None:
        mim = h.mimic
        lines.append(f"    <mimic joint={quoteattr(mim['joint'])} multiplier=\"{_nums([mim.get('multiplier', 1.0)])}\" "
                     f"offset=\"{_nums([mim.get('offset', 0.0)])}\"/>")
    lines.append("  </joint>")
    return [ln for ln in lines if ln.strip()]


def to_urdf(m, path=None):
    """The URDF text (str) of the tree Multibody ``m``; also written to ``path`` if given.

    See the module docstring for the mapping. Raises ValueError naming the first
    modal body, constraint or hinge URDF cannot express, or a node whose joint name
    ``"<node>_joint"`` is taken.
    """
    _check_rigid_tree(m)
    hinges = m.hinges
    root, option = _root_hinge(m)
    # T_new_body[b]: the body frame of b in its URDF link frame (the hinge p-frame)
    T_new_body = {m.world.name: _I4}
    types = {}
    for h in hinges:
        T_new_body[h.child.name] = transform_inverse(h.T_child_joint) if not np.array_equal(h.T_child_joint, _I4) else _I4
        if np.any(h.armature != 0.0):
            raise ValueError(f"hinge {h.name!r} has armature {h.armature.tolist()}, which URDF cannot hold; "
                             f"set it to 0 to write URDF")
        if h is not root:
            types[h.name] = _joint_type(h, m, option)
    out = ['<?xml version="1.0"?>', f"<robot name={quoteattr(m.name)}>"]
    if root is None:
        out += _link("world", None, _I4)
    else:
        note = f"root hinge {root.name} ({root.kind}): load with {option}".replace("--", "- -")
        out.append(f"  <!-- {escape(note)} -->")
    for h in hinges:
        out += _link(h.child.name, h.child, T_new_body[h.child.name])
    for h in hinges:
        if h is not root:
            jtype, axis = types[h.name]
            out += _joint(h, jtype, axis, h.parent.name, T_new_body[h.parent.name] @ h.T_parent_joint)
    taken = {h.name for h in hinges}
    for nd in m.nodes.values():
        jname = f"{nd.name}_joint"
        if nd.body is m.world and root is not None:
            raise ValueError(f"node {nd.name!r} is on the world, which this URDF has no link for "
                             f"(its root link is {root.child.name!r})")
        if jname in taken:
            raise ValueError(f"node {nd.name!r}: its URDF joint name {jname!r} is taken by a hinge")
        taken.add(jname)
        out += _link(nd.name, None, _I4)
        out += [f"  <joint name={quoteattr(jname)} type=\"fixed\">",
                "    " + _origin(T_new_body[nd.body.name] @ nd.T_body_node),
                f"    <parent link={quoteattr(nd.body.name)}/>", f"    <child link={quoteattr(nd.name)}/>",
                "  </joint>"]
    out.append("</robot>")
    text = "\n".join(ln for ln in out if ln.strip()) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text
