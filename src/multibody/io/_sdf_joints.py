"""SDFormat ``<joint>`` elements: type, links, frame, axes, screw pitch, gearbox data, metadata.

* ``KINDS`` maps a joint type to a hinge kind (the kind of its loop constraint when the
  joint closes a loop): revolute/continuous -> ``"pin"``, prismatic -> ``"slider"``,
  screw -> ``"screw"``, ball -> ``"spherical"``, universal and revolute2 ->
  ``"universal"`` (axes ``axis``, ``axis2``), fixed -> ``"locked"``. A ``gearbox`` joint
  is no hinge: it couples two hinges' angles (``read_joints`` keeps its ratio and
  reference body; ``_sdf_build`` makes it a coordinate constraint).
* The joint frame J is fixed on the child at the joint's ``<pose>`` (``X_MJ`` in the
  model frame, from ``Frames``); at the file's configuration it is also fixed on the parent.
* Axes are unit vectors in J: ``<xyz>`` is in J unless ``<use_parent_model_frame>`` is
  true (1.5, 1.6: the model frame) or ``expressed_in`` names a frame (1.7 on); in 1.4 it
  is always in the model frame (as libsdformat's 1.4 -> 1.5 conversion reads it).
* A screw's pitch [m/rad, positive right-handed] is ``screw_thread_pitch / (2 pi)``
  (SDFormat 1.10's metres per revolution), else ``-1 / thread_pitch`` (Gazebo classic's
  radians per metre, positive for a left-handed thread).
* ``set_metadata`` copies ``<limit>`` (``lower``/``upper`` unless unbounded, ``effort``
  and ``velocity`` unless negative) and ``<dynamics>`` (``damping``, ``friction``,
  ``spring_stiffness``, ``spring_reference``; each 0 when absent, as SDFormat's defaults,
  so every hinge of a joint with axes has all four) of the axes onto the hinge, with
  ``hinge.sdf_type``. A two-axis joint (universal, revolute2) has a ``<dynamics>`` per
  axis: an attribute is one number when both axes agree, else the pair (axis, axis2).
"""
import numpy as np

from . import _sdf_xml, _xml

#: SDFormat joint type -> hinge (and loop constraint) kind.
KINDS = {"revolute": "pin", "continuous": "pin", "prismatic": "slider", "screw": "screw",
         "ball": "spherical", "universal": "universal", "revolute2": "universal", "fixed": "locked"}
GEARBOX = "gearbox"
_TWO_AXES = ("universal", "revolute2", GEARBOX)
_UNBOUNDED = 1e16  # SDFormat's default position limits mean "no limit"


class SdfJoint:
    """One checked ``<joint>``: ``name``, ``type``, ``parent``/``child`` link names (``"world"``
    possible for the parent), ``X_MJ`` (4x4 joint frame in the model frame), ``axes``
    (unit vectors in the joint frame), ``pitch`` [m/rad], ``loop_only`` (Simbody's
    ``must_be_loop_joint``), ``gear_ratio`` and ``gear_reference`` (gearbox) and ``el``."""

    __slots__ = ("el", "name", "type", "parent", "child", "X_MJ", "axes", "pitch", "loop_only",
                 "gear_ratio", "gear_reference")


def _axis(el, tag, X_MJ, frames, what):
    """Unit vector of ``<tag><xyz>`` in the joint frame (None when ``<tag>`` is absent)."""
    ax = el.find(tag)
    if ax is None:
        return None
    xyz = ax.find("xyz")
    a = np.array([0.0, 0.0, 1.0]) if xyz is None or not (xyz.text or "").strip() else \
        _xml.floats(xyz.text, 3, f"{what} <{tag}> <xyz>")
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ValueError(f"{what} <{tag}> <xyz> is the zero vector")
    a = a / n
    R_MJ = X_MJ[:3, :3]
    expressed = xyz.get("expressed_in") if xyz is not None and frames.version >= (1, 7) else None
    if expressed and expressed.strip():
        return R_MJ.T @ frames.pose_in_model(expressed.strip(), f"{what} <{tag}> expressed_in")[:3, :3] @ a
    if frames.version < (1, 5) or _sdf_xml.child_bool(ax, "use_parent_model_frame", f"{what} <{tag}>"):
        return R_MJ.T @ a
    return a


def _pitch(el, what):
    v = _sdf_xml.child_float(el, "screw_thread_pitch", what)
    if v is not None:
        return v / (2.0 * np.pi)
    v = _sdf_xml.child_float(el, "thread_pitch", what, 1.0)
    if v == 0.0:
        raise ValueError(f"{what} <thread_pitch> is 0 (radians per metre): the screw would not turn")
    return -1.0 / v


def read_joint(el, frames):
    """A checked ``SdfJoint`` from a ``<joint>`` element; errors name the joint."""
    source = frames.source
    j = SdfJoint()
    j.el = el
    j.name = el.get("name")
    if not j.name:
        raise ValueError(f"{source}: a <joint> of model {frames.model_name!r} has no name attribute")
    what = f"{source}: joint {j.name!r}"
    j.type = (el.get("type") or "").strip()
    if j.type not in KINDS and j.type != GEARBOX:
        raise ValueError(f"{what} has type {j.type!r}, which is not supported; expected one of "
                         f"{sorted(KINDS) + [GEARBOX]}")
    for tag in ("parent", "child"):
        name = _sdf_xml.child_text(el, tag)
        if not name:
            raise ValueError(f"{what} has no <{tag}> element (the name of a link)")
        setattr(j, tag, frames.link_of(name, f"joint {j.name!r} <{tag}>"))
    if j.child == "world":
        raise ValueError(f"{what}: the world cannot be the child of a joint")
    if j.parent == j.child:
        raise ValueError(f"{what} connects link {j.child!r} to itself")
    j.X_MJ = frames.joint_in_model(j.name)
    tags = ("axis", "axis2") if j.type in _TWO_AXES else ("axis",)
    j.axes = [_axis(el, tag, j.X_MJ, frames, what) for tag in tags]
    j.axes = [np.array([0.0, 0.0, 1.0]) if a is None else a for a in j.axes]
    j.pitch = _pitch(el, what) if j.type == "screw" else 0.0
    j.loop_only = _sdf_xml.child_bool(el.find("physics/simbody"), "must_be_loop_joint", what)
    j.gear_ratio = j.gear_reference = None
    if j.type == GEARBOX:
        j.gear_ratio = _sdf_xml.child_float(el, "gearbox_ratio", what, 1.0)
        ref = _sdf_xml.child_text(el, "gearbox_reference_body")
        if not ref:
            raise ValueError(f"{what} (gearbox) has no <gearbox_reference_body>")
        j.gear_reference = frames.link_of(ref, f"joint {j.name!r} <gearbox_reference_body>")
    return j


def read_joints(model, frames):
    """``{name: SdfJoint}`` of a model's joints in file order; duplicate names refused."""
    joints = {}
    for el in model.findall("joint"):
        j = read_joint(el, frames)
        if j.name in joints:
            raise ValueError(f"{frames.source}: duplicate joint name {j.name!r}")
        joints[j.name] = j
    return joints


def _limits(ax, what):
    lim = None if ax is None else ax.find("limit")
    lower = _sdf_xml.child_float(lim, "lower", what, -_UNBOUNDED)
    upper = _sdf_xml.child_float(lim, "upper", what, _UNBOUNDED)
    effort = _sdf_xml.child_float(lim, "effort", what, -1.0)
    velocity = _sdf_xml.child_float(lim, "velocity", what, -1.0)
    return (None if lower <= -_UNBOUNDED else lower, None if upper >= _UNBOUNDED else upper,
            None if effort < 0 else effort, None if velocity < 0 else velocity)


def set_metadata(h, j):
    """Copy the limits and dynamics of ``j``'s axes onto hinge ``h`` (see the module docstring)."""
    what = f"joint {j.name!r}"
    h.sdf_type = j.type
    if j.type in ("fixed", "ball"):
        return
    tags = ("axis", "axis2") if j.type in _TWO_AXES else ("axis",)
    limits = [_limits(j.el.find(tag), f"{what} <{tag}> <limit>") for tag in tags]
    if j.type != "continuous":
        lower, upper = [lim[0] for lim in limits], [lim[1] for lim in limits]
        if any(v is not None for v in lower + upper):
            h.set_limits(lower[0] if len(tags) == 1 else tuple(lower),
                         upper[0] if len(tags) == 1 else tuple(upper))
    efforts = [lim[2] for lim in limits if lim[2] is not None]
    speeds = [lim[3] for lim in limits if lim[3] is not None]
    h.effort = min(efforts) if efforts else None
    h.velocity = min(speeds) if speeds else None
    per_axis = [_dynamics(j.el.find(tag), f"{what} <{tag}> <dynamics>") for tag in tags]
    for k, name in enumerate(DYNAMICS):
        values = [d[k] for d in per_axis]
        setattr(h, name, values[0] if len(set(values)) == 1 else tuple(values))


#: The children of an axis's ``<dynamics>``, each 0 when absent (SDFormat's defaults; the
#: whole element absent means all four are 0): the hinge attributes they become.
DYNAMICS = ("damping", "friction", "spring_stiffness", "spring_reference")


def _dynamics(ax, what):
    """(damping, friction, spring_stiffness, spring_reference) of one ``<axis>`` element."""
    dyn = None if ax is None else ax.find("dynamics")
    return tuple(_sdf_xml.child_float(dyn, tag, what, 0.0) for tag in DYNAMICS)
