"""Visual geometry of a body as triangle meshes, from the URDF reader's metadata.

``body.visuals`` is a list of dicts (see ``multibody.io._links.geometry``): ``type``
(``box``, ``sphere``, ``cylinder``, ``capsule``, ``mesh`` or None), the sizes, for a mesh
``filename`` (resolved from ``package://`` and relative paths), ``resolved`` and
``scale``, ``origin`` (4x4 T_body_visual) and maybe ``rgba``.

``visual_meshes(body, roots)`` gives ``[(name, vertices, faces, rgb, opacity, T_body_visual)]``
in the body frame's units, ready for ``viser``'s ``add_mesh_simple``. A mesh file is read
only when its loader resolved it (``resolved`` not False), it lies inside ``roots`` (the
model's ``file_roots``: its folder, its package roots and the folders given when loading;
None: anywhere) and it is a regular file of at most ``max_bytes``; checked in that order,
so a refused path is refused whether or not it exists. A mesh file that is refused, cannot
be found or cannot be read is reported (a ``UserWarning`` that names the body and the file,
or a line of the viewer's one warning); that visual is left out and the rest of the model
is drawn, a body left with no visual as a skeleton.
"""
import warnings

import numpy as np

from ..io._files import MAX_BYTES, check_file, inside

#: colour of a visual without ``<material>`` colour and of a mesh file without colours
DEFAULT_RGB = (170, 175, 185)


def _rgba(vis):
    c = vis.get("rgba")
    if c is None:
        return None
    c = np.asarray(c, dtype=float).ravel()
    if c.shape != (4,) or not np.all(np.isfinite(c)):
        return None
    return tuple(int(round(255 * min(max(x, 0.0), 1.0))) for x in c[:3]), float(min(max(c[3], 0.0), 1.0))


def _primitive(trimesh, vis):
    t = vis["type"]
    if t == "box":
        return trimesh.creation.box(extents=np.asarray(vis["size"], dtype=float))
    if t == "sphere":
        return trimesh.creation.icosphere(subdivisions=3, radius=float(vis["radius"]))
    if t == "cylinder":
        return trimesh.creation.cylinder(radius=float(vis["radius"]), height=float(vis["length"]), sections=32)
    if t == "capsule":
        return trimesh.creation.capsule(height=float(vis["length"]), radius=float(vis["radius"]), count=[32, 16])
    if t == "trimesh":  # a mesh given as arrays (MJCF mesh geoms)
        return trimesh.Trimesh(vertices=np.asarray(vis["vertices"], dtype=float),
                               faces=np.asarray(vis["faces"], dtype=np.int64), process=False)
    return None


def _mesh_colour(mesh):
    """The mean face colour a mesh file carries (rgb, opacity), or None where it has none."""
    try:
        visual = mesh.visual
        if getattr(visual, "kind", None) is None:
            return None
        if visual.kind == "texture":
            visual = visual.to_color()
        fc = np.asarray(visual.face_colors, dtype=float)
    except Exception:  # a visual trimesh cannot turn into colours: use the default
        return None
    if fc.ndim != 2 or fc.shape[0] == 0:
        return None
    mean = fc.mean(axis=0)
    return tuple(int(round(x)) for x in mean[:3]), float(mean[3] / 255.0)


def _refusal(vis, roots, max_bytes):
    """Why the mesh file of visual ``vis`` is not read (a message naming it), or None."""
    path = vis.get("filename") or ""
    uri = vis.get("uri") or path
    if vis.get("refused"):
        return f"mesh file reference {uri} leads outside the model's folder and its package roots; not read"
    if vis.get("resolved") is False or not path:
        return f"mesh file not found: {uri}"
    if roots is not None and not inside(path, roots):
        return (f"mesh file {path} lies outside the folders this model's files may come from "
                f"({', '.join(roots) or 'none'}); not read (a loader's mesh_dirs/package_dirs or "
                "allow_outside=True allow it)")
    try:
        check_file(path, max_bytes)
    except FileNotFoundError:
        return f"mesh file not found: {uri}" + (f" (looked for {path})" if path != uri else "")
    except ValueError as e:  # not a regular file, too large: the message names it
        return str(e)
    return None


def _load_mesh(trimesh, vis, report, roots, max_bytes):
    """A trimesh.Trimesh of a ``mesh`` visual (scaled), or None, told to ``report(why)``."""
    why = _refusal(vis, roots, max_bytes)
    if why is not None:
        report(why)
        return None
    path = vis["filename"]
    try:
        mesh = trimesh.load(path, force="mesh", process=False)
    except Exception as e:  # trimesh raises many kinds (missing pycollada for .dae, parse errors)
        hint = " (COLLADA .dae files need `pip install pycollada`)" if path.lower().endswith(".dae") else ""
        report(f"cannot read mesh file {path}: {e}{hint}")
        return None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        report(f"mesh file {path} holds no triangles")
        return None
    scale = np.asarray(vis.get("scale", np.ones(3)), dtype=float).ravel()
    if scale.shape == (3,) and not np.allclose(scale, 1.0):
        mesh = mesh.copy()
        mesh.apply_scale(scale)
    return mesh


def visual_meshes(body, roots=None, max_bytes=MAX_BYTES, problems=None, visuals=None, prefix="visual"):
    """``[(name, vertices, faces, rgb, opacity, T_body_visual)]`` of a body's visuals; mesh
    files are read only inside the folders ``roots`` (None: anywhere; see the module
    docstring) and up to ``max_bytes`` each. A visual that cannot be drawn is left out with a
    ``UserWarning`` naming the body and why, or, given a list ``problems``, with that message
    appended to it (the viewer warns once for the whole model). ``visuals``: other dicts to draw
    than ``body.visuals`` (collision shapes), named ``<prefix>_<i>``."""
    import trimesh

    def report(why):
        if problems is None:
            warnings.warn(f"viewer: body {body.name!r}: {why}; the rest of the model is drawn", UserWarning,
                          stacklevel=4)
        else:
            problems.append(f"{body.name!r}: {why}")

    out = []
    for i, vis in enumerate((getattr(body, "visuals", None) if visuals is None else visuals) or []):
        if not isinstance(vis, dict) or vis.get("type") is None:
            continue
        if vis["type"] == "mesh":
            mesh = _load_mesh(trimesh, vis, report, roots, max_bytes)
            colour = _mesh_colour(mesh) if mesh is not None else None
        else:
            try:
                mesh = _primitive(trimesh, vis)
            except (KeyError, TypeError, ValueError) as e:
                report(f"cannot draw visual {i} ({vis['type']}): {e}")
                mesh = None
            colour = None
        if mesh is None:
            continue
        rgba = _rgba(vis) or colour or (DEFAULT_RGB, 1.0)
        T = np.asarray(vis.get("origin", np.eye(4)), dtype=float)
        out.append((f"{prefix}_{i}", np.asarray(mesh.vertices, dtype=np.float32),
                    np.asarray(mesh.faces, dtype=np.uint32), rgba[0], rgba[1], T))
    return out
