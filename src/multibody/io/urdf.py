"""URDF reader: a ``<robot>`` description into a ready ``Multibody``.

Mapping (URDF -> multibody):

* ``<link>`` -> ``Multibody.add_body(name, mass, com, inertia)``. The ``<inertial>``
  origin gives the centre of mass (xyz) and the orientation R (rpy) of the inertia
  axes; the inertia is rotated into the link frame, ``I_link = R I R^T``. A link
  without ``<inertial>`` is massless. ``<visual>``/``<collision>`` geometry is kept
  as metadata on the body (``body.visuals``, ``body.collisions``: lists of dicts), and
  each ``<collision>`` (box, sphere, cylinder, capsule; a mesh as the convex hull of its
  file) is also a collision shape on the body (``Multibody.add_collision``); a mesh that
  is missing or unreadable is skipped, with one warning naming the links and files.
* ``<joint>`` -> ``Multibody.add_hinge``: revolute/continuous -> ``"pin"``,
  prismatic -> ``"slider"``, fixed -> ``"locked"``, floating -> ``"free"`` (or
  ``"free_quat"`` with ``floating_base="quaternion"``), planar -> ``"planar"`` (the
  axis is the plane normal). The joint origin is ``T_parent_joint`` (xyz, and rpy with
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``); the child link frame is the joint frame
  (``T_child_joint`` = identity). ``<limit>``, ``<dynamics>`` and ``<mimic>`` become
  hinge metadata (``lower``, ``upper``, ``effort``, ``velocity``, ``damping``,
  ``friction``, ``mimic``); a mimic joint is an ordinary hinge with its own
  coordinates. With ``mimic="constraint"`` each ``<mimic joint="j" multiplier="r"
  offset="o"/>`` of joint J also becomes the coordinate constraint ``mimic_J``
  (q_J = r q_j + o; ``Multibody.add_coordinate_constraint``), which the dynamics honour.
  ``hinge.urdf_type`` keeps the URDF joint type.
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
("billion laughs") and external entities cannot run. The file is read with a bound
(``max_bytes``, 256 MiB by default; ``/dev/zero``, FIFOs and other non-regular files are
refused by name). Mesh references resolve only inside the URDF's folder, the package roots
they name and ``package_dirs`` (``_uri``; ``allow_outside=True`` lifts it): the others stay
unresolved (``resolved`` False, ``refused`` True), named in one warning, and
``m.file_roots`` lists the folders the viewer may read mesh files from.

The work is split over private modules of ``multibody.io``: ``_xml`` (safe reading,
attribute parsing), ``_files`` (bounded reading, containment), ``_uri`` (``package://``
resolution), ``_links`` (mass properties, geometry), ``_joints`` (joint types, axes,
limit/mimic metadata), ``_tree`` (topology checks, depth-first order) and ``_build`` (the
``Multibody``).
"""

from . import _xml
from ._build import build_multibody
from ._files import MAX_BYTES, read_bounded
from ._links import global_materials
from ._tree import read_tree
from ._uri import FileRefs, as_path, resolve_uri

__all__ = ["load_urdf", "load_urdf_string", "resolve_uri"]


def load_urdf(path, floating_base=False, package_dirs=None, *, joint_order="name", on_bad_inertia="project",
              mimic="metadata", allow_outside=False, max_bytes=MAX_BYTES):
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
        package folders. Mesh files inside these folders are also allowed by absolute or
        ``file://`` paths.
    joint_order : "name" or "file"
        Order of a link's child joints in the tree: sorted by joint name (default; the
        order of urdfdom, hence of Pinocchio and ROS/KDL, so q and u line up with theirs)
        or as they appear in the file (as MuJoCo reads them).
    on_bad_inertia : "project" or "error"
        What to do with a link inertia that is not positive semi-definite (some
        published files have them; Pinocchio loads them as they are): replace it by the
        nearest positive semi-definite matrix (eigenvalues clipped at 0) with a
        ``UserWarning`` naming the link, or raise ``ValueError``.
    mimic : "metadata" or "constraint"
        ``<mimic>`` elements as hinge metadata only (``hinge.mimic``; default, the tree
        dynamics of Pinocchio and ROS), or also as coordinate constraints ``mimic_<joint>``
        (q_joint = multiplier q_target + offset), enabled: the mimic joints then move
        together in every algorithm. Mimics of one-dof joints only; a mimic of a mimic
        chains; a cycle of mimics or a mimic of an undefined joint is a ``ValueError``.
    allow_outside : bool
        Resolve mesh references that lead outside the URDF's folder, the package roots they
        name and ``package_dirs`` (default False: they stay unresolved, with a warning).
    max_bytes : int
        The largest URDF file read (default 256 MiB).

    Returns
    -------
    Multibody
        Named after ``<robot name>``; gravity (0, 0, -9.81) m/s^2.

    Raises
    ------
    ValueError
        A file that is not a regular file or is larger than ``max_bytes`` (naming it),
        malformed XML (with file and line), DTD/entity declarations, bad numbers,
        unknown joint types, broken topology (missing links, two parents, cycles,
        several roots, duplicate names), invalid mass properties; the message names
        the offending link or joint.
    """
    path = as_path(path)
    data = read_bounded(path, max_bytes)  # FileNotFoundError names the path
    refs = FileRefs(path.resolve().parent, package_dirs, allow_outside)
    return _load(_xml.decode(data, str(path)), str(path), floating_base, refs, joint_order, default_name=path.stem,
                 on_bad_inertia=on_bad_inertia, mimic=mimic)


def load_urdf_string(xml, floating_base=False, base_dir=None, package_dirs=None, *, joint_order="name",
                     on_bad_inertia="project", mimic="metadata", allow_outside=False):
    """Load URDF text (str or bytes) into a new ``Multibody``; see ``load_urdf``.

    ``base_dir`` plays the role of the URDF file's folder: relative mesh file names are
    taken relative to it and ``package://`` names are first looked for among its
    ancestors. Without it, only ``package_dirs`` resolve (absolute file names inside them;
    anywhere with ``allow_outside=True``).
    """
    if isinstance(xml, (bytes, bytearray)):
        xml = _xml.decode(bytes(xml), "<string>")
    elif not isinstance(xml, str):
        raise TypeError(f"xml must be str or bytes, got {type(xml).__name__}")
    refs = FileRefs(None if base_dir is None else as_path(base_dir).resolve(), package_dirs, allow_outside)
    return _load(xml, "<string>", floating_base, refs, joint_order, default_name="robot",
                 on_bad_inertia=on_bad_inertia, mimic=mimic)


def _load(text, source, floating_base, refs, joint_order, default_name, on_bad_inertia="project",
          mimic="metadata"):
    """Check the options, read and check the tree, build the ``Multibody``."""
    root_kind = _xml.root_kind(floating_base)
    if mimic not in ("metadata", "constraint"):
        raise ValueError(f"mimic must be 'metadata' or 'constraint', got {mimic!r}")
    if on_bad_inertia not in ("project", "error"):
        raise ValueError(f"on_bad_inertia must be 'project' or 'error', got {on_bad_inertia!r}")
    if joint_order not in ("file", "name"):
        raise ValueError(f"joint_order must be 'file' or 'name', got {joint_order!r}")
    robot = _xml.parse_robot(text, source)
    materials = global_materials(robot, source)
    tree = read_tree(robot, source, joint_order, mimic)
    m = build_multibody(tree, robot.get("name") or default_name, source, materials, refs, root_kind,
                        on_bad_inertia, mimic)
    refs.finish(m, source)
    return m
