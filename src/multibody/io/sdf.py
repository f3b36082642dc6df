"""SDFormat reader: one ``<model>`` of an ``.sdf`` file (versions 1.4 to 1.9; 1.10 and 1.11
read with the same rules) into a ready ``Multibody``, closed loops included.

Mapping (SDFormat -> multibody):

* ``<link>`` -> ``Multibody.add_body(name, mass, com, inertia)``: the ``<inertial>``
  pose (in the link frame) gives the centre of mass and the inertia axes (``I_link =
  R I R^T``); SDFormat's defaults hold (no ``<inertial>``: 1 kg and a unit inertia).
  ``<visual>``/``<collision>`` geometry becomes ``body.visuals``/``body.collisions`` as
  the URDF reader makes them (box, sphere, cylinder, capsule, mesh; ``model://`` URIs
  resolved), so the viewer draws them; each ``<collision>`` is also a collision shape
  (as in the URDF reader) with its ``<surface>``'s ``<friction><ode><mu>`` (default 1)
  and ``<bounce><restitution_coefficient>`` (default 0), and with ``<contact><ode><kp>``
  a soft surface: stiffness kp [N/m] and damping ``<kd>`` [N s/m] (default 1). ``<self_collide>`` (a link's, else
  its model's; default false, as in SDFormat) holds: two links touch only when one of them
  self-collides (the other pairs are excluded: ``exclude_collision``).
* Poses: a link's ``<pose>`` is in the model frame, a joint's in its child link's frame,
  a ``<frame>``'s in the frame it is attached to, unless ``relative_to`` (1.7 on) names
  another frame; ``<frame>`` elements (links, joints and frames as ``attached_to`` or
  ``relative_to``) and, since 1.9, ``rotation_format="quat_xyzw"`` and ``degrees`` are read.
* ``<joint>`` -> a hinge of the spanning tree, or a loop constraint (see below):
  revolute/continuous -> ``"pin"``, prismatic -> ``"slider"``, screw -> ``"screw"``
  (pitch from ``screw_thread_pitch`` [m/rev] or Gazebo classic's ``thread_pitch``
  [rad/m, left-handed positive]), ball -> ``"spherical"`` (``"spherical_quat"`` with
  ``floating_base="quaternion"``), universal/revolute2 -> ``"universal"`` (``axis``,
  ``axis2``), fixed -> ``"locked"``. Axes are read in the frame the version says (1.4:
  the model frame; 1.5/1.6: the joint frame unless ``use_parent_model_frame``; 1.7 on:
  ``expressed_in``, default the joint frame). Limits (``lower``/``upper``, ``effort``,
  ``velocity``) and ``damping``/``friction`` (and ``spring_stiffness``/``spring_reference``,
  each 0 when absent as in SDFormat; per axis for two-axis joints when the axes differ)
  become hinge metadata as in the URDF reader; ``hinge.sdf_type`` keeps the joint type.
* **Spanning tree and loops.** The tree grows from the root link (the one link no joint
  moves, else the canonical link), attached by ``"root_joint"`` (``"locked"`` at its
  pose in the world for a fixed base; ``"free"``/``"free_quat"``, whose q is the root
  link's pose in the world, for a floating one), or from the joints whose parent is
  ``world``. A joint whose child is already in the tree (a second parent; Simbody's
  ``must_be_loop_joint`` always) becomes a **loop constraint** of its kind named after
  the joint, between nodes ``"<joint>_parent"`` and ``"<joint>_child"`` at the joint
  frame on both links: they coincide at q = 0, the file's configuration.
* ``gearbox`` joints (theta_2 = -ratio theta_1, angles relative to
  ``gearbox_reference_body``) become **coordinate constraints** named after the joint
  between the pin hinges that move their parent and child links from the reference body.

The loaded model's q = 0 is the file's configuration, so every loop is closed there (with
a floating base, a loop closing on the world only if the root link's file pose is the
identity, since q = 0 then puts the root link at the world origin).
Security as in the URDF reader: document type and entity declarations are refused, the file
is read with a bound (``max_bytes``), mesh references resolve only inside the file's folder,
the package roots they name and ``package_dirs`` (or anywhere with ``allow_outside=True``).
Nested ``<model>`` and ``<include>`` elements are not supported (flatten the model).
"""
import os
from pathlib import Path

from . import _sdf_xml, _xml
from ._files import MAX_BYTES, read_bounded
from ._sdf_build import build
from ._sdf_frames import Frames
from ._sdf_joints import read_joints
from ._sdf_links import read_links, search_dirs, self_collide_excludes
from ._uri import FileRefs, as_path

__all__ = ["load_sdf"]


def _text_and_source(path_or_string, max_bytes):
    """(text, source name, base folder or None) of a path, or of SDFormat text given directly."""
    if isinstance(path_or_string, (bytes, bytearray)):
        return _xml.decode(bytes(path_or_string), "<string>"), "<string>", None
    if isinstance(path_or_string, str) and path_or_string.lstrip().startswith("<"):
        return path_or_string, "<string>", None
    if not isinstance(path_or_string, (str, os.PathLike)):
        raise TypeError(f"path_or_string must be a path, str or bytes, got {type(path_or_string).__name__}")
    path = as_path(path_or_string)
    data = read_bounded(path, max_bytes)  # FileNotFoundError names the path
    return _xml.decode(data, str(path)), str(path), Path(path).resolve().parent


def load_sdf(path_or_string, floating_base=False, model=None, *, package_dirs=None, allow_outside=False,
             max_bytes=MAX_BYTES):
    """Load one model of an SDFormat file (or text) into a new ``Multibody``.

    Parameters
    ----------
    path_or_string : str, os.PathLike or bytes
        An ``.sdf`` file, or SDFormat text (a str starting with ``<``, or bytes).
    floating_base : False, True or "quaternion"
        How the root link is attached to the world: welded at its pose in the world
        (``"locked"``), or free with rotation-vector (``"free"``) or quaternion
        (``"free_quat"``) coordinates, whose q is then the root link's pose in the world.
        A model attached to the world by joints keeps them with ``False``; a floating base
        replaces its one fixed joint from the world.
    model : str, optional
        The name of the ``<model>`` to read when the file (or its ``<world>``) has several.
    package_dirs : str, os.PathLike or list of them, optional
        Extra folders where ``model://NAME/...`` (and ``package://``) mesh URIs are looked for
        (mesh files inside them are allowed by any path).
    allow_outside : bool
        Resolve mesh references that lead outside the file's folder, the package roots they
        name and ``package_dirs`` (default False: they stay unresolved, with a warning).
    max_bytes : int
        The largest file read (default 256 MiB).

    Returns
    -------
    Multibody
        Named after the model; gravity (0, 0, -9.81) m/s^2; loop and coordinate
        constraints enabled.

    Raises
    ------
    ValueError
        A file that is not a regular file or is larger than ``max_bytes`` (naming it),
        malformed XML (with line), DTD/entity declarations, unsupported versions or joint
        types, nested models, bad numbers, unknown links or frames, cycles of frames,
        links the tree cannot reach, gearboxes whose links do not hang from the reference
        body by revolute joints; the message names the element.
    """
    root_kind = _xml.root_kind(floating_base)
    text, source, base_dir = _text_and_source(path_or_string, max_bytes)
    root, version = _sdf_xml.parse_sdf(text, source)
    el = _sdf_xml.select_model(root, model, source)
    links = read_links(el, source)
    joint_els = {j.get("name"): j for j in el.findall("joint") if j.get("name")}
    frames = Frames(el, version, source, links, joint_els)
    joints = read_joints(el, frames)
    refs = FileRefs(base_dir, search_dirs(package_dirs), allow_outside)
    m = build(el.get("name") or "model", links, joints, frames, root_kind, refs, source)
    for a, b in self_collide_excludes(el, links, source):
        m.exclude_collision(a, b)
    m.finalize()
    refs.finish(m, source)
    return m
