"""URDF ``<joint>`` elements: type, topology, axis, and limit/dynamics/mimic metadata.

* ``JOINT_KINDS`` maps a URDF joint type to a hinge kind: revolute/continuous ->
  ``"pin"``, prismatic -> ``"slider"``, fixed -> ``"locked"``, floating -> ``"free"``,
  planar -> ``"planar"`` (the axis is the plane normal).
* ``read_joint`` checks one ``<joint>`` (name, known type, ``<parent>`` and ``<child>``
  links) and reads its ``<origin>`` (``T_parent_joint``) into a ``Joint``.
* ``hinge_kind`` and ``axis`` give the arguments of ``Multibody.add_hinge``.
* ``set_metadata`` copies ``<limit>`` (``lower``, ``upper``, ``effort``, ``velocity``;
  a continuous joint has no position limits), ``<dynamics>`` (``damping``,
  ``friction``) and ``<mimic>`` (``{"joint", "multiplier", "offset"}``) onto the hinge,
  with ``hinge.urdf_type`` the URDF joint type. A mimic joint is an ordinary hinge with
  its own coordinates; ``warn_unknown_mimics`` warns about mimics of undefined joints.
* ``add_mimic_constraints`` (``load_urdf(mimic="constraint")``) turns every
  ``<mimic joint="j" multiplier="r" offset="o"/>`` of joint J into the coordinate
  constraint ``mimic_J``: q_J = r q_j + o. Both joints must be one-dof (revolute,
  continuous, prismatic); a mimic of a mimic chains; a cycle of mimics, or a mimic of an
  unknown joint, is refused naming the joints.
"""
import numpy as np

from . import _xml

#: URDF joint type -> hinge kind.
JOINT_KINDS = {
    "revolute": "pin",
    "continuous": "pin",
    "prismatic": "slider",
    "fixed": "locked",
    "floating": "free",
    "planar": "planar",
}

#: URDF joint types a mimic may join (one coordinate, one speed).
_ONE_DOF = ("revolute", "continuous", "prismatic")

#: Hinge kinds that take an ``axis`` argument.
_AXIS_KINDS = ("pin", "slider", "planar")


class Joint:
    """One checked ``<joint>`` element: its name, URDF type, parent and child link names,
    ``origin`` (4x4 ``T_parent_joint``) and ``mimic`` (the ``<mimic>`` element or None)."""

    __slots__ = ("el", "name", "type", "parent", "child", "origin", "mimic")


def read_joint(el, source):
    """A ``Joint`` from a ``<joint>`` element; the errors name the joint."""
    j = Joint()
    j.el = el
    j.name = _xml.name(el, "joints", source)
    j.type = el.get("type")
    if j.type not in JOINT_KINDS:
        raise ValueError(f"{source}: joint {j.name!r} has unknown type {j.type!r}; expected one of "
                         f"{sorted(JOINT_KINDS)}")
    for tag in ("parent", "child"):
        e = el.find(tag)
        if e is None or not e.get("link"):
            raise ValueError(f"{source}: joint {j.name!r} has no <{tag} link=...> element")
        setattr(j, tag, e.get("link"))
    j.origin = _xml.origin(el, f"{source}: joint {j.name!r}")
    j.mimic = el.find("mimic")
    return j


def warn_unknown_mimics(joints, source):
    """Warn (once, listing them) about joints whose ``<mimic joint>`` is not a defined joint."""
    bad = [f"{j.name} -> {j.mimic.get('joint')}" for j in joints.values()
           if j.mimic is not None and j.mimic.get("joint") not in joints]
    if bad:
        _xml.warn_user(f"{source}: joints mimic unknown joints ({', '.join(bad)}); the mimic "
                       f"relations are kept as metadata only")


def hinge_kind(j, root_kind):
    """The hinge kind of joint ``j``; a floating joint takes quaternions with a quaternion base."""
    if j.type == "floating" and root_kind == "free_quat":
        return "free_quat"
    return JOINT_KINDS[j.type]


def axis(j, kind, source):
    """Unit axis of ``j`` (default x) for the kinds that take one, else None."""
    if kind not in _AXIS_KINDS:
        return None
    ax = j.el.find("axis")
    if ax is None or ax.get("xyz") is None:
        return np.array([1.0, 0.0, 0.0])
    a = _xml.floats(ax.get("xyz"), 3, f"{source}: joint {j.name!r} axis xyz")
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ValueError(f"{source}: joint {j.name!r} ({j.type}) has a zero axis")
    return a / n


def set_metadata(h, j, source):
    """Copy the URDF type, ``<limit>``, ``<dynamics>`` and ``<mimic>`` of ``j`` onto hinge ``h``."""
    what = f"{source}: joint {j.name!r}"
    h.urdf_type = j.type
    lim = j.el.find("limit")
    if lim is not None:
        if j.type != "continuous":
            h.lower = _xml.float_attr(lim, "lower", f"{what} limit")
            h.upper = _xml.float_attr(lim, "upper", f"{what} limit")
        h.effort = _xml.float_attr(lim, "effort", f"{what} limit")
        h.velocity = _xml.float_attr(lim, "velocity", f"{what} limit")
    dyn = j.el.find("dynamics")
    if dyn is not None:
        h.damping = _xml.float_attr(dyn, "damping", f"{what} dynamics", 0.0)
        h.friction = _xml.float_attr(dyn, "friction", f"{what} dynamics", 0.0)
    mim = j.mimic
    if mim is not None:
        if not mim.get("joint"):
            raise ValueError(f"{what}: <mimic> needs a joint attribute")
        h.mimic = {"joint": mim.get("joint"),
                   "multiplier": _xml.float_attr(mim, "multiplier", f"{what} mimic", 1.0),
                   "offset": _xml.float_attr(mim, "offset", f"{what} mimic", 0.0)}


def _check_mimics(joints, followers, source):
    """Refuse mimics of unknown or non-one-dof joints and cycles of mimics (naming the joints)."""
    for name, j in followers.items():
        target = j.mimic.get("joint")
        if target not in joints:
            raise ValueError(f"{source}: joint {name!r} mimics joint {target!r}, which is not a joint "
                             f"of the robot")
        for jn in (name, target):
            if joints[jn].type not in _ONE_DOF:
                raise ValueError(f"{source}: joint {name!r} mimics joint {target!r}, but {jn!r} is "
                                 f"{joints[jn].type}; a mimic joins one-dof joints ({', '.join(_ONE_DOF)})")
    for name in followers:
        chain, cur = [name], followers[name].mimic.get("joint")
        while cur in followers:
            if cur in chain:
                cycle = chain[chain.index(cur):] + [cur]
                raise ValueError(f"{source}: the mimic joints form a cycle: {' -> '.join(cycle)} "
                                 f"(each mimics the next)")
            chain.append(cur)
            cur = followers[cur].mimic.get("joint")


def add_mimic_constraints(m, joints, source):
    """Add the coordinate constraint ``mimic_<joint>`` (q_joint = multiplier q_target + offset)
    of every mimic joint among ``joints`` ({name: Joint}) to ``m``, in file order."""
    followers = {name: j for name, j in joints.items() if j.mimic is not None}
    _check_mimics(joints, followers, source)
    for name in followers:
        info = m.hinge(name).mimic
        m.add_coordinate_constraint(f"mimic_{name}", name, info["joint"], ratio=info["multiplier"],
                                    offset=info["offset"])
