"""URDF reader: a ``<robot>`` description into a ready ``Multibody``.

Mapping (URDF -> multibody):

* ``<link>`` -> ``Multibody.add_body(name, mass, com, inertia)``. The ``<inertial>``
  origin gives the centre of mass (xyz) and the orientation R (rpy) of the inertia
  axes; the inertia is rotated into the link frame, ``I_link = R I R^T``. A link
  without ``<inertial>`` is massless. ``<visual>``/``<collision>`` geometry is kept
  as metadata on the body (``body.visuals``, ``body.collisions``: lists of dicts).
* ``<joint>`` -> ``Multibody.add_hinge``: revolute/continuous -> ``"pin"``,
  prismatic -> ``"slider"``, fixed -> ``"locked"``, floating -> ``"free"`` (or
  ``"free_quat"`` with ``floating_base="quaternion"``), planar -> ``"planar"`` (the
  axis is the plane normal). The joint origin is ``T_parent_joint`` (xyz, and rpy with
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``); the child link frame is the joint frame
  (``T_child_joint`` = identity). ``<limit>``, ``<dynamics>`` and ``<mimic>`` become
  hinge metadata (``lower``, ``upper``, ``effort``, ``velocity``, ``damping``,
  ``friction``, ``mimic``); a mimic joint is an ordinary hinge with its own
  coordinates. ``hinge.urdf_type`` keeps the URDF joint type.
* The root link (the one link that is no joint's child) is attached to the world by
  a hinge named ``"root_joint"``: ``"locked"`` for a fixed base, ``"free"`` (rotation
  vector + position) for ``floating_base=True``, ``"free_quat"`` for
  ``floating_base="quaternion"``. A root link named ``"world"`` *is* the world (the ROS
  convention): its joints hang from ``Multibody.world``; with a floating base its one
  fixed child joint is replaced by the free ``"root_joint"``, whose coordinates are
  then the pose of the URDF world link (as Pinocchio's free flyer would be).
* Hinges are added depth first from the root, the children of a link sorted by joint
  name (``joint_order="name"``, the default: the order of urdfdom, hence of Pinocchio
  and ROS/KDL) or in the order their joints appear in the file (``joint_order="file"``).

Security: the text is refused if it holds a document type or entity declaration
(``<!DOCTYPE``/``<!ENTITY``), before it reaches the XML parser, so entity expansion
("billion laughs") and external entities cannot run.
"""
import math
import os
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..model import Multibody
from ..spatial import transform_inverse
from ..spatial.rpy import rpy_to_matrix

__all__ = ["load_urdf", "load_urdf_string", "resolve_uri"]

_DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)

#: URDF joint type -> hinge kind.
_JOINT_KINDS = {
    "revolute": "pin",
    "continuous": "pin",
    "prismatic": "slider",
    "fixed": "locked",
    "floating": "free",
    "planar": "planar",
}


# ---------------------------------------------------------------------- entry points
def load_urdf(path, floating_base=False, package_dirs=None, *, joint_order="name", on_bad_inertia="project"):
    """Load a URDF file into a new ``Multibody``.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.urdf`` file.
    floating_base : False, True or "quaternion"
        How the root link is attached to the world: welded (``"locked"`` hinge),
        6-dof free joint with rotation-vector coordinates (``"free"``, nq = 6) or with a
        unit quaternion (``"free_quat"``, nq = 7). The hinge is named ``"root_joint"``.
    package_dirs : str, os.PathLike or list of them, optional
        Where to look for ``package://NAME/...`` mesh files after the ancestors of the
        URDF's folder: each entry is a package folder named NAME or a folder holding
        package folders.
    joint_order : "name" or "file"
        Order of a link's child joints in the tree: sorted by joint name (default; the
        order of urdfdom, hence of Pinocchio and ROS/KDL, so q and u line up with theirs)
        or as they appear in the file (as MuJoCo reads them).
    on_bad_inertia : "project" or "error"
        What to do with a link inertia that is not positive semi-definite (some
        published files have them; Pinocchio loads them as they are): replace it by the
        nearest positive semi-definite matrix (eigenvalues clipped at 0) with a
        ``UserWarning`` naming the link, or raise ``ValueError``.

    Returns
    -------
    Multibody
        Named after ``<robot name>``; gravity (0, 0, -9.81) m/s^2.

    Raises
    ------
    ValueError
        Malformed XML (with file and line), DTD/entity declarations, bad numbers,
        unknown joint types, broken topology (missing links, two parents, cycles,
        several roots, duplicate names), invalid mass properties; the message names
        the offending link or joint.
    """
    path = Path(os.fspath(path))
    data = path.read_bytes()  # FileNotFoundError names the path
    return _load(_decode(data, str(path)), str(path), floating_base, path.resolve().parent,
                 package_dirs, joint_order, default_name=path.stem, on_bad_inertia=on_bad_inertia)


def load_urdf_string(xml, floating_base=False, base_dir=None, package_dirs=None, *, joint_order="name",
                     on_bad_inertia="project"):
    """Load URDF text (str or bytes) into a new ``Multibody``; see ``load_urdf``.

    ``base_dir`` plays the role of the URDF file's folder: relative mesh file names are
    taken relative to it and ``package://`` names are first looked for among its
    ancestors. Without it, only absolute file names and ``package_dirs`` resolve.
    """
    if isinstance(xml, (bytes, bytearray)):
        xml = _decode(bytes(xml), "<string>")
    elif not isinstance(xml, str):
        raise TypeError(f"xml must be str or bytes, got {type(xml).__name__}")
    base = None if base_dir is None else Path(os.fspath(base_dir)).resolve()
    return _load(xml, "<string>", floating_base, base, package_dirs, joint_order, default_name="robot",
                 on_bad_inertia=on_bad_inertia)


# ---------------------------------------------------------------------- parsing helpers
_ENCODING_DECL = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _decode(data, source):
    """Text of an XML document: BOM, else the declared encoding, else UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        enc = "utf-16"
    else:
        decl = _ENCODING_DECL.match(data[:200])
        enc = decl.group(1).decode("ascii") if decl else "utf-8"
        if enc.lower().replace("-", "").replace("_", "") == "utf8":
            enc = "utf-8-sig"
    try:
        return data.decode(enc)
    except LookupError:
        raise ValueError(f"{source}: unknown text encoding {enc!r}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{source}: not valid {enc} text ({e.reason} at byte {e.start})") from None


def _parse_xml(text, source):
    if _DTD.search(text):
        raise ValueError(f"{source}: entity/DTD declarations are not allowed in URDF files")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        line, col = getattr(e, "position", (None, None))
        msg = str(e).split(":")[0]
        raise ValueError(f"{source}: malformed XML at line {line}, column {col}: {msg}") from None
    if root.tag != "robot":
        raise ValueError(f"{source}: the root element must be <robot>, got <{root.tag}>")
    return root


def _floats(text, n, what):
    """Parse ``n`` finite floats from a whitespace-separated attribute value."""
    parts = (text or "").split()
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{what}: expected {n} numbers, got {text!r}") from None
    if len(vals) != n or not all(math.isfinite(v) for v in vals):
        raise ValueError(f"{what}: expected {n} finite numbers, got {text!r}")
    return np.array(vals)


def _float_attr(el, attr, what, default=None):
    if el is None or el.get(attr) is None:
        return default
    return float(_floats(el.get(attr), 1, f"{what} {attr}")[0])


def _origin(el, what):
    """4x4 transform of the ``<origin>`` child of ``el`` (identity if absent)."""
    T = np.eye(4)
    o = None if el is None else el.find("origin")
    if o is None:
        return T
    if o.get("xyz") is not None:
        T[:3, 3] = _floats(o.get("xyz"), 3, f"{what} origin xyz")
    if o.get("rpy") is not None:
        T[:3, :3] = rpy_to_matrix(_floats(o.get("rpy"), 3, f"{what} origin rpy"))
    return T


def _name(el, what, source):
    name = el.get("name")
    if not name:
        raise ValueError(f"{source}: a <{el.tag}> element has no name attribute; {what} need names")
    return name


# ---------------------------------------------------------------------- package:// resolution
def _as_dir_list(package_dirs):
    if package_dirs is None:
        return []
    if isinstance(package_dirs, (str, os.PathLike)):
        package_dirs = [package_dirs]
    return [Path(os.fspath(d)) for d in package_dirs]


def resolve_uri(uri, base_dir=None, package_dirs=None):
    """Resolve a URDF file reference to an absolute path.

    ``package://NAME/rest`` is looked for as ``A/rest`` for every ancestor A of
    ``base_dir`` named NAME and as ``A/NAME/rest`` (a sibling package), nearest first;
    then in ``package_dirs`` (each a package folder NAME or a folder holding packages).
    ``file://path`` and plain paths are taken relative to ``base_dir``.

    Returns ``(path, True)`` with the absolute path of an existing file, or
    ``(uri, False)`` when no file is found.
    """
    base = None if base_dir is None else Path(os.fspath(base_dir))
    dirs = _as_dir_list(package_dirs)
    if uri.startswith("package://"):
        rest = uri[len("package://"):].lstrip("/")
        name, _, rel = rest.partition("/")
        if not name or not rel:
            return uri, False
        candidates = []
        if base is not None:
            for a in (base, *base.parents):
                if a.name == name:
                    candidates.append(a / rel)
                candidates.append(a / name / rel)
        for d in dirs:
            if d.name == name:
                candidates.append(d / rel)
            candidates.append(d / name / rel)
    else:
        p = uri[len("file://"):] if uri.startswith("file://") else uri
        p = Path(p)
        if p.is_absolute():
            candidates = [p]
        elif base is not None:
            candidates = [base / p]
        else:
            candidates = []
    for c in candidates:
        if c.is_file():
            return str(c.resolve()), True
    return uri, False


# ---------------------------------------------------------------------- geometry metadata
def _geometry(link_name, el, kind, materials, base_dir, package_dirs):
    what = f"link {link_name!r} {kind}"
    g = {"name": el.get("name"), "origin": _origin(el, what)}
    geo = el.find("geometry")
    shape = None if geo is None else next(iter(geo), None)
    if shape is None:
        g["type"] = None
    else:
        t = shape.tag
        g["type"] = t
        if t == "box":
            g["size"] = _floats(shape.get("size"), 3, f"{what} box size")
        elif t == "sphere":
            g["radius"] = _float_attr(shape, "radius", f"{what} sphere")
        elif t in ("cylinder", "capsule"):
            g["radius"] = _float_attr(shape, "radius", f"{what} {t}")
            g["length"] = _float_attr(shape, "length", f"{what} {t}")
        elif t == "mesh":
            fn = shape.get("filename") or ""
            g["filename"], g["resolved"] = resolve_uri(fn, base_dir, package_dirs)
            g["uri"] = fn
            scale = shape.get("scale")
            g["scale"] = np.ones(3) if scale is None else _floats(scale, 3, f"{what} mesh scale")
    mat = el.find("material")
    if mat is not None:
        g["material"] = mat.get("name")
        color = mat.find("color")
        if color is not None and color.get("rgba") is not None:
            g["rgba"] = _floats(color.get("rgba"), 4, f"{what} material rgba")
        elif mat.get("name") in materials:
            g["rgba"] = materials[mat.get("name")]
    return g


def _global_materials(root, source):
    out = {}
    for mat in root.findall("material"):
        color = mat.find("color")
        if mat.get("name") and color is not None and color.get("rgba") is not None:
            out[mat.get("name")] = _floats(color.get("rgba"), 4, f"{source}: material {mat.get('name')!r} rgba")
    return out


# ---------------------------------------------------------------------- links and joints
def _link_mass_properties(link, name):
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    what = f"link {name!r} <inertial>"
    T = _origin(inertial, what)
    mass = _float_attr(inertial.find("mass"), "value", f"{what} mass", 0.0)
    I = np.zeros((3, 3))
    iel = inertial.find("inertia")
    if iel is not None:
        v = {k: _float_attr(iel, k, f"{what} inertia", 0.0) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                      [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
    R = T[:3, :3]
    return mass, T[:3, 3].copy(), R @ I @ R.T


def _nearest_psd(I, name, source):
    """I itself when it is a valid (symmetric PSD) inertia, else its nearest PSD matrix, with a warning."""
    if not np.all(np.isfinite(I)):
        return I  # the body's own check reports it
    S = 0.5 * (I + I.T)
    w, V = np.linalg.eigh(S)
    tol = 1e-9 * max(1.0, np.abs(w).max())
    if w.min() >= -tol:
        return I
    warnings.warn(f"{source}: link {name!r} <inertial>: inertia is not positive semi-definite "
                  f"(eigenvalues {w}); using the nearest positive semi-definite matrix",
                  UserWarning, stacklevel=4)
    return (V * np.clip(w, 0.0, None)) @ V.T


class _Joint:
    __slots__ = ("el", "name", "type", "parent", "child", "origin")


def _read_joint(el, source):
    j = _Joint()
    j.el = el
    j.name = _name(el, "joints", source)
    j.type = el.get("type")
    if j.type not in _JOINT_KINDS:
        raise ValueError(f"{source}: joint {j.name!r} has unknown type {j.type!r}; expected one of "
                         f"{sorted(_JOINT_KINDS)}")
    for tag in ("parent", "child"):
        e = el.find(tag)
        if e is None or not e.get("link"):
            raise ValueError(f"{source}: joint {j.name!r} has no <{tag} link=...> element")
        setattr(j, tag, e.get("link"))
    j.origin = _origin(el, f"{source}: joint {j.name!r}")
    return j


def _joint_axis(j, source):
    ax = j.el.find("axis")
    if ax is None or ax.get("xyz") is None:
        return np.array([1.0, 0.0, 0.0])
    a = _floats(ax.get("xyz"), 3, f"{source}: joint {j.name!r} axis xyz")
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ValueError(f"{source}: joint {j.name!r} ({j.type}) has a zero axis")
    return a / n


def _set_metadata(h, j, source):
    what = f"{source}: joint {j.name!r}"
    h.urdf_type = j.type
    lim = j.el.find("limit")
    if lim is not None:
        if j.type != "continuous":
            h.lower = _float_attr(lim, "lower", f"{what} limit")
            h.upper = _float_attr(lim, "upper", f"{what} limit")
        h.effort = _float_attr(lim, "effort", f"{what} limit")
        h.velocity = _float_attr(lim, "velocity", f"{what} limit")
    dyn = j.el.find("dynamics")
    if dyn is not None:
        h.damping = _float_attr(dyn, "damping", f"{what} dynamics", 0.0)
        h.friction = _float_attr(dyn, "friction", f"{what} dynamics", 0.0)
    mim = j.el.find("mimic")
    if mim is not None:
        if not mim.get("joint"):
            raise ValueError(f"{what}: <mimic> needs a joint attribute")
        h.mimic = {"joint": mim.get("joint"),
                   "multiplier": _float_attr(mim, "multiplier", f"{what} mimic", 1.0),
                   "offset": _float_attr(mim, "offset", f"{what} mimic", 0.0)}


def _check_floating_base(floating_base):
    if isinstance(floating_base, (bool, np.bool_)):
        return "free" if floating_base else None
    if isinstance(floating_base, str) and floating_base == "quaternion":
        return "free_quat"
    raise ValueError(f"floating_base must be False, True or 'quaternion', got {floating_base!r}")


# ---------------------------------------------------------------------- the loader
def _load(text, source, floating_base, base_dir, package_dirs, joint_order, default_name,
          on_bad_inertia="project"):
    root_kind = _check_floating_base(floating_base)
    if on_bad_inertia not in ("project", "error"):
        raise ValueError(f"on_bad_inertia must be 'project' or 'error', got {on_bad_inertia!r}")
    if joint_order not in ("file", "name"):
        raise ValueError(f"joint_order must be 'file' or 'name', got {joint_order!r}")
    robot = _parse_xml(text, source)
    materials = _global_materials(robot, source)

    # links
    links = {}
    for el in robot.findall("link"):
        name = _name(el, "links", source)
        if name in links:
            raise ValueError(f"{source}: duplicate link name {name!r}")
        links[name] = el

    # joints and topology
    joints = {}
    children = {name: [] for name in links}
    parent_joint = {}
    for el in robot.findall("joint"):
        j = _read_joint(el, source)
        if j.name in joints:
            raise ValueError(f"{source}: duplicate joint name {j.name!r}")
        joints[j.name] = j
        for tag in ("parent", "child"):
            link = getattr(j, tag)
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
    bad_mimic = [f"{j.name} -> {j.el.find('mimic').get('joint')}" for j in joints.values()
                 if j.el.find("mimic") is not None and j.el.find("mimic").get("joint") not in joints]
    if bad_mimic:
        warnings.warn(f"{source}: joints mimic unknown joints ({', '.join(bad_mimic)}); the mimic "
                      f"relations are kept as metadata only", UserWarning, stacklevel=3)
    if not links:
        raise ValueError(f"{source}: the robot has no links")
    roots = [n for n in links if n not in parent_joint]
    if not roots:
        raise ValueError(f"{source}: the joints form a cycle (every link has a parent; "
                         f"links {sorted(links)[:5]})")
    if len(roots) > 1:
        raise ValueError(f"{source}: {len(roots)} root links {roots[:10]} (links without a parent "
                         f"joint); a URDF tree has exactly one")
    root = roots[0]
    if joint_order == "name":
        for kids in children.values():
            kids.sort(key=lambda j: j.name)

    # depth-first order (iterative: long chains must not hit the recursion limit)
    order = []
    stack = list(reversed(children[root]))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(children[j.child]))
    reached = {root} | {j.child for j in order}
    if len(reached) != len(links):
        lost = [n for n in links if n not in reached]
        raise ValueError(f"{source}: the joints form a cycle through links {lost[:10]} "
                         f"(not reachable from the root link {root!r})")
    for n in links:
        if n == "world" and n != root:
            raise ValueError(f"{source}: link name 'world' is reserved for the root link "
                             f"(the world frame); it is the child of joint {parent_joint[n].name!r}")

    m = Multibody(name=robot.get("name") or default_name)
    m.source = source

    # bodies
    for name, el in links.items():
        visuals = [_geometry(name, v, "visual", materials, base_dir, package_dirs) for v in el.findall("visual")]
        collisions = [_geometry(name, v, "collision", materials, base_dir, package_dirs)
                      for v in el.findall("collision")]
        mass, com, inertia = _link_mass_properties(el, name)
        if on_bad_inertia == "project":
            inertia = _nearest_psd(inertia, name, source)
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

    # the root hinge
    skip = None
    if root == "world":
        if root_kind is not None:
            kids = children[root]
            if len(kids) != 1 or kids[0].type != "fixed":
                raise ValueError(f"{source}: root link 'world' is the world frame; a floating base "
                                 f"needs it to have exactly one fixed child joint "
                                 f"(it has {[f'{j.name} ({j.type})' for j in kids]})")
            skip = kids[0]
            h = m.add_hinge(None, skip.child, kind=root_kind, name="root_joint",
                            T_child_joint=transform_inverse(skip.origin))
            h.urdf_type = None
    else:
        h = m.add_hinge(None, root, kind=root_kind or "locked", name="root_joint")
        h.urdf_type = None

    # hinges, depth first
    for j in order:
        if j is skip:
            continue
        kind = _JOINT_KINDS[j.type]
        if j.type == "floating" and root_kind == "free_quat":
            kind = "free_quat"
        axis = _joint_axis(j, source) if kind in ("pin", "slider", "planar") else None
        if j.name == "root_joint" and (root != "world" or root_kind is not None):
            raise ValueError(f"{source}: joint {j.name!r} clashes with the hinge "
                             f"'root_joint' that attaches the root link; rename the joint")
        parent = None if j.parent == "world" else j.parent
        h = m.add_hinge(parent, j.child, kind=kind, name=j.name, axis=axis, T_parent_joint=j.origin)
        _set_metadata(h, j, source)
    m.finalize()
    return m
