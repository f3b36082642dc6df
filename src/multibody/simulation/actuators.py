"""Actuators: forces on joint coordinates driven by control inputs ``ctrl``.

An ``Actuator`` acts on one scalar coordinate of a hinge through a gear g (MuJoCo's joint
transmission): with the actuator length L = g q and velocity L' = g u, its force is

    f = clip(a ctrl + b0 + b1 L + b2 L', force_range)        and the joint force g f,

ctrl first clipped to ``ctrl_range``. ``motor`` (a = 1, no bias), ``position`` servos (a =
kp, b1 = -kp, b2 = -kv) and ``velocity`` servos (a = kv, b2 = -kv) are such affine
actuators, as MuJoCo's ``<motor>``, ``<position>``, ``<velocity>`` and ``<general>``
(fixed gain, affine bias). ``load_mjcf`` fills ``m.actuators`` from the file;
``simulate(..., ctrl=...)`` and ``rollout(..., ctrl=...)`` drive them (ctrl = 0 when not
given, as in MuJoCo: a position servo then holds its joint at L = 0). The forces are
compiled into the stepping loop; a ctrl given as a function is evaluated in Python where
the loop pauses for a control (at every stage, or every ``control_period`` where given).
"""
import numpy as np

from ..model.hinge import finite_number
from . import force_kernels as F

__all__ = ["Actuator", "ActuatorForces", "CtrlInput"]


def _range(value, what):
    """(lo, hi) with lo <= hi (infinite bounds allowed), or (-inf, inf) for None."""
    if value is None:
        return (-np.inf, np.inf)
    lo, hi = (float(v) for v in value)
    if np.isnan(lo) or np.isnan(hi) or lo > hi:
        raise ValueError(f"{what} must be (low, high) with low <= high, got {value!r}")
    return (lo, hi)


class Actuator:
    """An affine actuator on coordinate ``coordinate`` of hinge ``hinge`` (see the module
    docstring): ``gear`` g, ``gain`` a, ``bias`` (b0, b1, b2), ``ctrl_range`` and
    ``force_range`` (low, high) or None (unbounded)."""

    def __init__(self, name, hinge, coordinate=0, gear=1.0, gain=1.0, bias=(0.0, 0.0, 0.0), ctrl_range=None,
                 force_range=None):
        self.name = str(name)
        self.hinge = hinge if isinstance(hinge, str) else hinge.name
        self.coordinate = int(coordinate)
        what = f"actuator {self.name!r}"
        self.gear = finite_number(gear, f"{what}: gear")
        self.gain = finite_number(gain, f"{what}: gain")
        bias = np.asarray(bias, dtype=float).ravel()
        if bias.shape != (3,) or not np.isfinite(bias).all():
            raise ValueError(f"{what}: bias must be 3 finite numbers (b0, b1, b2), got {bias.tolist()!r}")
        self.bias = bias
        self.ctrl_range = _range(ctrl_range, f"{what}: ctrl_range")
        self.force_range = _range(force_range, f"{what}: force_range")

    @classmethod
    def motor(cls, name, hinge, coordinate=0, gear=1.0, ctrl_range=None, force_range=None):
        """A torque (or force) source: f = ctrl."""
        return cls(name, hinge, coordinate, gear, 1.0, (0.0, 0.0, 0.0), ctrl_range, force_range)

    @classmethod
    def position(cls, name, hinge, kp, kv=0.0, coordinate=0, gear=1.0, ctrl_range=None, force_range=None):
        """A position servo: f = kp (ctrl - L) - kv L'."""
        return cls(name, hinge, coordinate, gear, kp, (0.0, -float(kp), -float(kv)), ctrl_range, force_range)

    @classmethod
    def velocity(cls, name, hinge, kv, coordinate=0, gear=1.0, ctrl_range=None, force_range=None):
        """A velocity servo: f = kv (ctrl - L')."""
        return cls(name, hinge, coordinate, gear, kv, (0.0, 0.0, -float(kv)), ctrl_range, force_range)

    def __repr__(self):
        return (f"Actuator({self.name!r}, hinge={self.hinge!r}, gear={self.gear:g}, gain={self.gain:g}, "
                f"bias={self.bias.tolist()}, ctrl_range={self.ctrl_range}, force_range={self.force_range})")

    def indices(self, m):
        """(q index, u index) of the actuated coordinate; ValueError naming the actuator
        for a hinge without a scalar coordinate ``coordinate``."""
        c = m.compiled
        if self.hinge not in c.u_slices:
            raise ValueError(f"actuator {self.name!r}: the model has no hinge {self.hinge!r}")
        qs, us = c.q_slices[self.hinge], c.u_slices[self.hinge]
        if qs.stop - qs.start != us.stop - us.start or not 0 <= self.coordinate < us.stop - us.start:
            raise ValueError(f"actuator {self.name!r}: hinge {self.hinge!r} has no scalar coordinate "
                             f"{self.coordinate} (actuators act on pin, slider and screw coordinates)")
        return qs.start + self.coordinate, us.start + self.coordinate


def check_ctrl(actuators, ctrl, what="ctrl"):
    """ctrl as a finite (n_actuators,) float array (zeros for None), clipped to the ranges."""
    n = len(actuators)
    if ctrl is None:
        c = np.zeros(n)
    else:
        c = np.array(ctrl, dtype=float)
        if c.shape != (n,):
            raise ValueError(f"{what} must have shape ({n},) (one value per actuator: "
                             f"{[a.name for a in actuators][:8]}), got {c.shape}")
        bad = np.flatnonzero(~np.isfinite(c))
        if bad.size:
            raise ValueError(f"{what}[{bad[0]}] (actuator {actuators[bad[0]].name!r}) is not finite ({c[bad[0]]})")
    lo = np.array([a.ctrl_range[0] for a in actuators])
    hi = np.array([a.ctrl_range[1] for a in actuators])
    return np.clip(c, lo, hi)


class ActuatorForces:
    """The force model of ``actuators`` at the controls ``ctrl`` (packed as FM_ACTUATOR
    entries, one per actuator, in order; ``CtrlInput`` rewrites their ctrl column)."""

    def __init__(self, actuators, ctrl=None):
        self.actuators = list(actuators)
        self.ctrl = check_ctrl(self.actuators, ctrl)

    def __repr__(self):
        return f"ActuatorForces({[a.name for a in self.actuators]}, ctrl={self.ctrl.tolist()})"

    def _entries(self, m):
        out = []
        for a, ctrl in zip(self.actuators, self.ctrl):
            qi, ui = a.indices(m)
            fi = np.zeros(F.N_FMI, dtype=np.int64)
            fi[F.FMI_TYPE], fi[F.FMI_U], fi[F.FMI_Q] = F.FM_ACTUATOR, ui, qi
            ff = np.zeros(F.N_FMF)
            ff[F.FM_GEAR], ff[F.FM_GAIN], ff[F.FM_CTRL] = a.gear, a.gain, ctrl
            ff[F.FM_BIAS:F.FM_BIAS + 3] = a.bias
            ff[F.FM_FORCE_MIN], ff[F.FM_FORCE_MAX] = a.force_range
            out.append((fi, ff))
        return out


class CtrlInput:
    """A control ``(t, q, u, tau_out)`` for the stepping loop that calls the user's
    ``control`` (if any), then ``ctrl_function(t, q, u)`` and writes its controls (checked,
    clipped to their ranges) into the run's packed actuator entries, which the loop's
    force models read until the next call. ``bind(fmi, fmf)`` after the run packed them."""

    def __init__(self, actuators, ctrl_function, control=None):
        self.actuators = list(actuators)
        self.ctrl_function = ctrl_function
        self.control = control
        self._fmf = self._rows = None

    def bind(self, fmi, fmf):
        self._rows = np.flatnonzero(fmi[:, F.FMI_TYPE] == F.FM_ACTUATOR)
        self._fmf = fmf

    def __call__(self, t, q, u, tau_out):
        if self.control is not None:
            r = self.control(t, q, u, tau_out)
            if r is not None and r is not tau_out:
                return r  # (the loop reports it)
        ctrl = check_ctrl(self.actuators, self.ctrl_function(t, q, u), f"ctrl(t, q, u) at t = {t:.6g} s")
        self._fmf[self._rows, F.FM_CTRL] = ctrl
        return None
