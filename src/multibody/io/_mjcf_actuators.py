"""MJCF ``<actuator>`` elements as ``simulation.actuators.Actuator`` objects.

Mapped: actuators with a joint transmission on a hinge or slide joint, no activation
dynamics (``dyntype`` none), a fixed gain (or an affine one whose length and velocity terms
are zero) and no or an affine bias: MuJoCo's ``<motor>``, ``<position>``, ``<velocity>``
and such ``<general>`` ones, with ``gear``, ``ctrlrange``/``ctrllimited`` and
``forcerange``/``forcelimited``. The rest are noted by name (``MjcfWarning``), and so is a
joint's ``actuatorfrcrange`` (a limit on the sum of its actuators' forces).
"""
from ..simulation.actuators import Actuator

__all__ = ["mjcf_actuators"]

_JOINT_TRANSMISSION, _NO_DYNAMICS, _FIXED, _AFFINE = 0, 0, 0, 1
_HINGE, _SLIDE = 3, 2  # mjtJoint


def mjcf_actuators(mm, coordinates, note):
    """The Actuators of compiled model ``mm``. ``coordinates``: {MuJoCo joint index: (hinge
    name, coordinate index in the hinge)}; ``note(what, name)`` records what is not mapped."""
    out = []
    for i in range(mm.nu):
        name = mm.actuator(i).name or f"actuator{i}"
        why = _unmapped(mm, i)
        j = int(mm.actuator_trnid[i, 0])
        if why is None and j not in coordinates:
            why = "on a joint that is not mapped"
        if why is not None:
            note(f"actuator ({why})", name)
            continue
        hinge, k = coordinates[j]
        if mm.jnt_actfrclimited[j]:
            note("joint actuatorfrcrange (a limit on the sum of its actuators' forces)", name)
        gain = mm.actuator_gainprm[i]
        bias = mm.actuator_biasprm[i, :3] if int(mm.actuator_biastype[i]) == _AFFINE else (0.0, 0.0, 0.0)
        out.append(Actuator(name, hinge, k, gear=float(mm.actuator_gear[i, 0]), gain=float(gain[0]), bias=bias,
                            ctrl_range=tuple(mm.actuator_ctrlrange[i]) if mm.actuator_ctrllimited[i] else None,
                            force_range=tuple(mm.actuator_forcerange[i]) if mm.actuator_forcelimited[i] else None))
    return out


def _unmapped(mm, i):
    """Why actuator i cannot be mapped, or None."""
    if int(mm.actuator_trntype[i]) != _JOINT_TRANSMISSION:
        return "a transmission other than a joint"
    if int(mm.jnt_type[int(mm.actuator_trnid[i, 0])]) not in (_HINGE, _SLIDE):
        return "on a ball or free joint"
    if int(mm.actuator_dyntype[i]) != _NO_DYNAMICS:
        return "activation dynamics"
    gtype, gain = int(mm.actuator_gaintype[i]), mm.actuator_gainprm[i]
    if not (gtype == _FIXED or (gtype == _AFFINE and gain[1] == 0.0 and gain[2] == 0.0)):
        return "a gain that is not constant"
    if int(mm.actuator_biastype[i]) not in (0, _AFFINE):
        return "a bias that is not affine"
    return None
