"""What a run adds to the inputs its caller gave: the joints' own dynamics, the actuators
and their controls, and the effort limits (``simulate`` and ``rollout`` share it)."""
from ..kernels import layout as L
from .actuators import ActuatorForces, CtrlInput
from .joint_dynamics import EffortClamp, joint_dynamics_model

__all__ = ["RunInputs"]


class RunInputs:
    """The run's ``control`` and ``forces`` after adding, for model ``m``:

    * ``joint_dynamics`` (True, False or a JointDynamics): the hinges' damping, springs and
      friction (``joint_dynamics.JointDynamics``; ``dt`` the fixed step, None if adaptive),
      with ``implicit_damping`` ("auto", True, False) for stiff damping;
    * the actuators ``m.actuators`` at ``ctrl``: None (zeros), (n_actuators,) constant, or
      (with ``ctrl_function_ok``) a function ``ctrl(t, q, u)`` called where the loop pauses
      for a control;
    * ``efforts`` (bool): the joint forces of ``tau`` and of the control clamped to the
      hinges' effort limits.

    After each integrator of the run is made, ``attach(integrator)`` clamps its constant
    forces, points a ctrl function at its packed actuator entries and gives it its own model
    rows with the implicit damping's armature (``mf``); ``report()`` warns about and returns
    what was clamped.
    """

    def __init__(self, m, control, forces, *, ctrl=None, joint_dynamics=True, efforts=True, dt=None,
                 ctrl_function_ok=True, implicit_damping="auto"):
        if control is not None and not callable(control):  # (before a wrapper would make it look callable)
            raise TypeError(f"control must be callable as control(t, q, u, tau_out), got {type(control).__name__}")
        if efforts not in (True, False):
            raise ValueError(f"efforts must be True or False, got {efforts!r}")
        c = m.compiled
        if c.flex is not None:  # (the flex loop reads its model rows from its data buffer)
            if implicit_damping is True:
                raise ValueError("implicit_damping=True: models with modal bodies take the damping explicitly")
            implicit_damping = False if implicit_damping == "auto" else implicit_damping
        self.forces = tuple(forces or ())
        self.armature = None  # (nu,) the implicit damping's dt c, added to a run's own model rows
        jd = joint_dynamics_model(m, joint_dynamics, dt, implicit_damping)
        if jd is not None:
            self.forces += (jd,)
            added = jd.armature(m)
            self.armature = added if added.any() else None
        actuators = list(getattr(m, "actuators", None) or ())
        if ctrl is not None and not actuators:
            raise ValueError("ctrl: the model has no actuators (m.actuators is empty)")
        function = callable(ctrl)
        if function and not ctrl_function_ok:
            raise ValueError("ctrl must be an array (n_actuators,) here, not a function")
        if actuators:
            self.forces += (ActuatorForces(actuators, None if function else ctrl),)
        self.clamp = EffortClamp(m) if efforts else None
        if self.clamp is not None and not self.clamp.active:
            self.clamp = None
        if control is not None and self.clamp is not None:
            control = self.clamp.control(control)
        self.ctrl_input = CtrlInput(actuators, ctrl, control) if function else None
        self.control = self.ctrl_input if function else control
        self._tau_clamped = False  # the constant tau is clamped (and counted) once per run

    def attach(self, integrator):
        """Clamp the integrator's constant joint forces; bind a ctrl function to its entries.

        The constant forces are clamped on the run's first integrator only: an integrator made
        anew after an event's action takes over its predecessor's forces, clamped already
        (clamping them again would count the clamp once per segment)."""
        if self.clamp is not None and not self._tau_clamped:
            self.clamp.clamp(integrator.tau0)
            self._tau_clamped = True
        if self.ctrl_input is not None:
            self.ctrl_input.bind(integrator.fmi, integrator.fmf)
        if self.armature is not None:  # (the model the integrator runs: recompiled after an event's change)
            c = integrator.model.compiled
            mf = c.mf.copy()
            for j in range(c.mi.shape[0]):  # each link's speeds: its armature columns
                u0, n = c.mi[j, L.UOFF], c.mi[j, L.NU]
                mf[j, L.ARMATURE:L.ARMATURE + n] += self.armature[u0:u0 + n]
            integrator.mf = mf

    def report(self):
        """{hinge: (calls, largest |tau|)} of the clamped joint forces, warned (empty if none)."""
        return {} if self.clamp is None else self.clamp.report()
