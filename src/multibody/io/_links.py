"""URDF ``<link>`` elements: mass properties and visual/collision geometry metadata.

* ``read_links`` collects the named ``<link>`` elements (names must be unique).
* ``mass_properties`` reads ``<inertial>``: the ``<origin>`` gives the centre of mass
  (xyz) and the orientation R (rpy) of the inertia axes; the inertia is returned in
  the link frame, ``I_link = R I R^T``. A link without ``<inertial>`` is massless.
* ``nearest_psd`` replaces an inertia that is not positive semi-definite by the
  nearest one (eigenvalues clipped at 0), with a warning naming the link.
* ``geometry`` turns a ``<visual>`` or ``<collision>`` element into a dict (``name``,
  ``origin``, ``type`` and the shape's sizes; mesh file names resolved by the model's
  ``_uri.FileRefs``; ``material`` and ``rgba``), with named colours taken from the
  robot's top-level ``<material>`` elements (``global_materials``).
"""
import numpy as np

from . import _xml


def read_links(robot, source):
    """``{name: <link> element}`` in file order; duplicate names are refused."""
    links = {}
    for el in robot.findall("link"):
        name = _xml.name(el, "links", source)
        if name in links:
            raise ValueError(f"{source}: duplicate link name {name!r}")
        links[name] = el
    return links


def global_materials(robot, source):
    """``{name: rgba}`` of the robot's top-level ``<material>`` elements that have a colour."""
    out = {}
    for mat in robot.findall("material"):
        if mat.get("name"):
            color = _xml.rgba(mat, f"{source}: material {mat.get('name')!r}")
            if color is not None:
                out[mat.get("name")] = color
    return out


def _shape(shape, what, refs):
    """The size entries of a ``<geometry>`` child (box, sphere, cylinder, capsule, mesh)."""
    t = shape.tag
    g = {"type": t}
    if t == "box":
        g["size"] = _xml.floats(shape.get("size"), 3, f"{what} box size")
    elif t == "sphere":
        g["radius"] = _xml.float_attr(shape, "radius", f"{what} sphere")
    elif t in ("cylinder", "capsule"):
        g["radius"] = _xml.float_attr(shape, "radius", f"{what} {t}")
        g["length"] = _xml.float_attr(shape, "length", f"{what} {t}")
    elif t == "mesh":
        g.update(refs.mesh_entry(shape.get("filename") or ""))
        scale = shape.get("scale")
        g["scale"] = np.ones(3) if scale is None else _xml.floats(scale, 3, f"{what} mesh scale")
    return g


def geometry(link_name, el, kind, materials, refs):
    """Metadata dict of a ``<visual>`` or ``<collision>`` element (``kind``) of a link."""
    what = f"link {link_name!r} {kind}"
    g = {"name": el.get("name"), "origin": _xml.origin(el, what)}
    geo = el.find("geometry")
    shape = None if geo is None else next(iter(geo), None)
    if shape is None:
        g["type"] = None
    else:
        g.update(_shape(shape, what, refs))
    mat = el.find("material")
    if mat is not None:
        g["material"] = mat.get("name")
        color = _xml.rgba(mat, f"{what} material")
        if color is not None:
            g["rgba"] = color
        elif mat.get("name") in materials:
            g["rgba"] = materials[mat.get("name")]
    return g


def link_geometries(link_name, el, materials, refs):
    """``(visuals, collisions)``: the metadata dicts of a link's geometry elements."""
    return tuple([geometry(link_name, g, kind, materials, refs) for g in el.findall(kind)]
                 for kind in ("visual", "collision"))


def mass_properties(link, name):
    """``(mass, com, inertia)`` of a ``<link>``, the inertia about the com in link axes."""
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    what = f"link {name!r} <inertial>"
    T = _xml.origin(inertial, what)
    mass = _xml.float_attr(inertial.find("mass"), "value", f"{what} mass", 0.0)
    I = np.zeros((3, 3))
    iel = inertial.find("inertia")
    if iel is not None:
        v = {k: _xml.float_attr(iel, k, f"{what} inertia", 0.0)
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                      [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
    R = T[:3, :3]
    return mass, T[:3, 3].copy(), R @ I @ R.T


def nearest_psd(I, name, source):
    """I itself when it is a valid (symmetric PSD) inertia, else its nearest PSD matrix, with a warning."""
    if not np.all(np.isfinite(I)):
        return I  # the body's own check reports it
    S = 0.5 * (I + I.T)
    w, V = np.linalg.eigh(S)
    tol = 1e-9 * max(1.0, np.abs(w).max())
    if w.min() >= -tol:
        return I
    _xml.warn_user(f"{source}: link {name!r} <inertial>: inertia is not positive semi-definite "
                   f"(eigenvalues {w}); using the nearest positive semi-definite matrix")
    return (V * np.clip(w, 0.0, None)) @ V.T
