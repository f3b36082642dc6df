"""SDFormat ``<link>`` elements: mass properties and visual/collision geometry.

* ``read_links`` collects the named links of a model (names must be unique).
* ``mass_properties`` reads ``<inertial>``: its ``<pose>`` (in the link frame) gives the
  centre of mass and the orientation R of the inertia axes; the inertia is returned in
  link axes, ``I_link = R I R^T``. SDFormat's defaults apply: a link without
  ``<inertial>`` (or without ``<mass>``) has mass 1 kg, and missing ``ixx``, ``iyy``,
  ``izz`` are 1 kg m^2 (off-diagonal terms 0), as libsdformat and Gazebo read them.
* ``link_geometries`` turns ``<visual>`` and ``<collision>`` elements into the dicts the
  URDF reader makes (``multibody.io._links.geometry``; the viewer draws them): ``name``,
  ``origin`` (4x4 in the link frame), ``type`` (box, sphere, cylinder, capsule, mesh; None
  for the shapes the viewer does not draw), the sizes, a mesh's ``filename`` (resolved),
  ``uri`` and ``scale``, and ``rgba`` from ``<material>`` (diffuse, else ambient).
  ``surfaces`` reads each ``<collision>``'s ``<surface>`` (friction mu, restitution);
  ``self_collide_excludes`` the link pairs ``<self_collide>`` keeps apart.
  ``model://NAME/rest`` is looked for as ``package://NAME/rest`` (among the ancestors of
  the file's folder, then in ``package_dirs`` and the folders of the ``GZ_SIM_RESOURCE_PATH``,
  ``IGN_GAZEBO_RESOURCE_PATH``, ``GAZEBO_MODEL_PATH`` and ``SDF_PATH`` variables: see
  ``search_dirs``), inside the roots the URDF reader allows (``_uri.FileRefs``).
"""
import os

import numpy as np

from . import _sdf_xml, _xml
from ._uri import as_dir_list

_MODEL_URI = "model://"
_PATH_VARIABLES = ("GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "GAZEBO_MODEL_PATH", "SDF_PATH")


def read_links(model, source):
    """``{name: <link> element}`` in file order; unnamed, duplicate and nested elements refused."""
    for tag in ("model", "include"):
        el = model.find(tag)
        if el is not None:
            what = el.get("name") or _sdf_xml.child_text(el, "uri") or ""
            raise ValueError(f"{source}: model {model.get('name')!r} holds a <{tag}> ({what!r}); "
                             f"nested and included models are not supported: flatten the model")
    links = {}
    for el in model.findall("link"):
        name = el.get("name")
        if not name:
            raise ValueError(f"{source}: a <link> of model {model.get('name')!r} has no name attribute")
        if name in links:
            raise ValueError(f"{source}: duplicate link name {name!r}")
        if name == "world":
            raise ValueError(f"{source}: link name 'world' is reserved for the world frame")
        links[name] = el
    if not links:
        raise ValueError(f"{source}: model {model.get('name')!r} has no links")
    return links


def mass_properties(el, name, frames):
    """``(mass, com, inertia)`` of link ``name``: the inertia about the com in link axes."""
    inertial = el.find("inertial")
    if inertial is None:
        return 1.0, np.zeros(3), np.eye(3)
    what = f"{frames.source}: link {name!r} <inertial>"
    T, rel = _sdf_xml.pose(inertial, frames.version, what)
    T = frames.relative_pose(T, rel, name, f"link {name!r} <inertial>")
    mass = _sdf_xml.child_float(inertial, "mass", what, 1.0)
    iel = inertial.find("inertia")
    v = {k: _sdf_xml.child_float(iel, k, f"{what} <inertia>", 1.0 if k[1] == k[2] else 0.0)
         for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    inertia = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                        [v["ixy"], v["iyy"], v["iyz"]],
                        [v["ixz"], v["iyz"], v["izz"]]])
    R = T[:3, :3]
    return mass, T[:3, 3].copy(), R @ inertia @ R.T


def search_dirs(package_dirs):
    """``package_dirs`` and the folders of the model path variables, as a list of folders."""
    dirs = as_dir_list(package_dirs)
    for var in _PATH_VARIABLES:
        dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    return dirs


def _mesh(shape, what, refs):
    uri = _sdf_xml.child_text(shape, "uri", "")
    lookup = "package://" + uri[len(_MODEL_URI):] if uri.startswith(_MODEL_URI) else uri
    scale = _sdf_xml.child_text(shape, "scale")
    return {"type": "mesh", **refs.mesh_entry(uri, lookup),
            "scale": np.ones(3) if scale is None else _xml.floats(scale, 3, f"{what} mesh <scale>")}


def _shape(geo, what, refs):
    """The type and sizes of the shape inside a ``<geometry>`` element."""
    shape = None if geo is None else next(iter(geo), None)
    if shape is None:
        return {"type": None}
    t = shape.tag
    if t == "box":
        size = _sdf_xml.child_text(shape, "size", "1 1 1")
        return {"type": "box", "size": _xml.floats(size, 3, f"{what} box <size>")}
    if t == "sphere":
        return {"type": "sphere", "radius": _sdf_xml.child_float(shape, "radius", f"{what} sphere", 1.0)}
    if t in ("cylinder", "capsule"):
        return {"type": t, "radius": _sdf_xml.child_float(shape, "radius", f"{what} {t}", 1.0),
                "length": _sdf_xml.child_float(shape, "length", f"{what} {t}", 1.0)}
    if t == "mesh":
        return _mesh(shape, what, refs)
    if t == "plane":  # not drawn; a collision shape (its normal read)
        normal = _xml.floats(_sdf_xml.child_text(shape, "normal", "0 0 1"), 3, f"{what} plane <normal>")
        return {"type": None, "sdf_shape": t, "normal": normal}
    return {"type": None, "sdf_shape": t}  # ellipsoid, heightmap, polyline ...: not drawn


def _rgba(material, what):
    for tag in ("diffuse", "ambient"):
        text = _sdf_xml.child_text(material, tag)
        if text:
            parts = text.split()
            if len(parts) == 3:
                text += " 1"
            return _xml.floats(text, 4, f"{what} <material> <{tag}>")
    return None


def _geometry(link, el, kind, frames, refs):
    what = f"{frames.source}: link {link!r} <{kind}>"
    T, rel = _sdf_xml.pose(el, frames.version, what)
    g = {"name": el.get("name"), "origin": frames.relative_pose(T, rel, link, f"link {link!r} <{kind}>")}
    g.update(_shape(el.find("geometry"), what, refs))
    material = el.find("material")
    if material is not None:
        color = _rgba(material, what)
        if color is not None:
            g["rgba"] = color
    return g


def link_geometries(link, el, frames, refs):
    """``(visuals, collisions)``: the metadata dicts of a link's geometry elements (mesh
    references resolved by ``refs``, an ``_uri.FileRefs``)."""
    return tuple([_geometry(link, g, kind, frames, refs) for g in el.findall(kind)]
                 for kind in ("visual", "collision"))


def surfaces(link, el, source):
    """One ``{"friction": mu, "restitution": e}`` per ``<collision>`` of link ``link``: its
    ``<surface>``'s ``<friction><ode><mu>`` (absent: 1, SDFormat's default) and
    ``<bounce><restitution_coefficient>`` (absent: 0); with ``<contact><ode><kp>`` also
    ``stiffness`` (kp [N/m]) and ``damping`` (``<kd>`` [N s/m], absent: 1, SDFormat's default):
    a soft surface (absent: a hard one)."""
    out = []
    for c in el.findall("collision"):
        what = f"{source}: link {link!r} <collision> {c.get('name')!r} <surface>"
        ode = c.find("surface/friction/ode")
        bounce = c.find("surface/bounce")
        mu = 1.0 if ode is None else _sdf_xml.child_float(ode, "mu", f"{what} <friction><ode>", 1.0)
        e = 0.0 if bounce is None else _sdf_xml.child_float(bounce, "restitution_coefficient",
                                                           f"{what} <bounce>", 0.0)
        surface = {"friction": mu, "restitution": e}
        contact = c.find("surface/contact/ode")
        if contact is not None and contact.find("kp") is not None:
            surface["stiffness"] = _sdf_xml.child_float(contact, "kp", f"{what} <contact><ode>", 1e12)
            surface["damping"] = _sdf_xml.child_float(contact, "kd", f"{what} <contact><ode>", 1.0)
        out.append(surface)
    return out


def self_collide_excludes(model, links, source):
    """The pairs of links (names) that must not touch: SDFormat's ``<self_collide>`` (a link's,
    else its model's, default false): two links of a model collide when either has it.
    Only links with ``<collision>`` elements are paired."""
    what = f"{source}: model {model.get('name')!r}"
    default = _sdf_xml.child_bool(model, "self_collide", what, False)
    quiet = [name for name, el in links.items() if el.find("collision") is not None
             and not _sdf_xml.child_bool(el, "self_collide", f"{source}: link {name!r}", default)]
    return [(a, b) for i, a in enumerate(quiet) for b in quiet[i + 1:]]
