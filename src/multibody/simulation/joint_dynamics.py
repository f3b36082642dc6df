"""The joints' own dynamics, read from model files and applied by ``simulate`` and ``rollout``.

* ``JointDynamics``: every hinge's ``damping``, ``spring_stiffness``/``spring_reference``
  and Coulomb ``friction`` (URDF ``<dynamics>``, SDFormat ``<dynamics>``, MJCF
  ``damping``/``stiffness``/``springref``/``frictionloss``) as one force model, compiled
  into the stepping loop. ``simulate(..., joint_dynamics=True)`` (the default) adds it for a
  model whose hinges have any; ``joint_dynamics=False`` leaves it out.
* Effort limits (``Hinge.effort``, URDF ``<limit effort>``): the joint forces a run is
  given (``tau``, a control's ``tau_out``) are clamped to them on the hinge's coordinates,
  and the run says so (``EffortLimitWarning``, ``SimulationResult.clamped``). The forces of
  force models (springs, limits, actuators, friction) are not clamped.

Coulomb friction is a regularized law, tau = -F tanh(u / v_s): below the slip speed v_s the
friction is viscous with slope F / v_s, above about 3 v_s it is F against the motion. A load
L < F on a joint at rest makes it creep at u = v_s artanh(L / F) (0.55 v_s at L = F / 2)
rather than hold exactly; sliding decelerates at the Coulomb rate F / I to within v_s.
``slip_speed`` v_s (default ``SLIP_SPEED``) is raised where a fixed step needs it: the
slope F / v_s is a damping, and explicit Runge-Kutta stays stable while (F / v_s) dt / I <=
1/2 (I the coordinate's smallest effective inertia), so v_s >= 2 F dt / I.

Damping c on a light joint is stiff too: explicit Runge-Kutta is unstable once c dt / I
passes about 2.8 (RK4). ``implicit_damping`` ("auto" by default, for fixed steps) treats
the damping of those coordinates (c dt / I > ``DAMPING_STEP_RATIO``) implicitly in the
velocity, as MuJoCo's Euler and ``implicitfast`` do: the stage accelerations are
(M + dt C)^-1 (f - C u) rather than M^-1 (f - C u), at the cost of an explicit step (dt C is
added to M's diagonal as armature is). The trade-off: such a coordinate's velocity then
relaxes at the rate c / (I + dt c) instead of c / I, a first-order error in the damping
(that motion settles within a fraction of a step either way) and never an instability;
every other coordinate keeps the exact explicit damping. True makes every damped coordinate
implicit; False none (a warning names the hinge where the step is unstable). Models with
modal bodies and adaptive integrators take the damping explicitly.
"""
import warnings

import numpy as np

from . import force_kernels as F
from .forces import model_option, smallest_inertia

__all__ = ["JointDynamics", "EffortLimitWarning", "joint_dynamics_model", "EffortClamp", "SLIP_SPEED"]

#: the default slip speed v_s of Coulomb friction [rad/s or m/s].
SLIP_SPEED = 1e-3
#: (F / v_s) dt / I at most this for a fixed step dt (RK4's real stability bound is 2.79).
FRICTION_STEP_RATIO = 0.5
#: a slip speed raised past this many times the one asked for is warned (stiction is lost).
SLIP_RAISED = 10.0
#: damping c dt / I above this for a fixed step warns (RK4 is unstable beyond 2.79).
DAMPING_STEP_RATIO = 2.0


class EffortLimitWarning(UserWarning):
    """Joint forces given to a run exceeded a hinge's effort limit and were clamped."""


class JointDynamics:
    """The hinges' damping, springs and Coulomb friction as one force model.

    Per coordinate i of a hinge: tau_i = -k (q_i - q_ref) - c u_i - F tanh(u_i / v_s), with
    c = ``Hinge.damping``, k = ``spring_stiffness``, q_ref = ``spring_reference``, F =
    ``friction`` (module docstring: the friction law and its slip speed). ``hinges``: names
    or Hinge objects (default: every hinge). ``dt``: the fixed step of the run (None:
    adaptive), from which the slip speed floor is raised for stability; ``slip_speed``: v_s
    [rad/s or m/s] (> 0, default ``SLIP_SPEED``); ``implicit``: ``simulate``'s
    ``implicit_damping`` ("auto", True or False; the module docstring says what it does).
    """

    def __init__(self, hinges=None, slip_speed=SLIP_SPEED, dt=None, implicit="auto"):
        self.hinges = hinges
        self.slip_speed = float(slip_speed)
        if not (np.isfinite(self.slip_speed) and self.slip_speed > 0):
            raise ValueError(f"JointDynamics: slip_speed must be finite and > 0, got {slip_speed!r}")
        self.dt = None if dt is None else float(dt)
        if implicit not in ("auto", True, False):
            raise ValueError(f"implicit_damping must be 'auto', True or False, got {implicit!r}")
        if implicit is True and self.dt is None:
            raise ValueError("implicit_damping=True needs a fixed step (an adaptive integrator resolves "
                             "stiff damping by its step size)")
        self.implicit = implicit

    def __repr__(self):
        return (f"JointDynamics(hinges={self.hinges!r}, slip_speed={self.slip_speed!r}, dt={self.dt!r}, "
                f"implicit={self.implicit!r})")

    def parameters(self, m):
        """Per coordinate with any joint dynamics: dict of arrays ``hinge`` (names), ``q``,
        ``u`` (indices), ``damping``, ``friction``, ``stiffness``, ``reference`` and
        ``slip_speed`` (v_s after the stability floor), ``inertia`` (the smallest effective
        inertia, where a step dt is known and the coordinate has damping or friction)."""
        c = m.compiled
        hinges = m.hinges if self.hinges is None else [m.hinge(h if isinstance(h, str) else h.name) for h in self.hinges]
        rows = []
        for h in hinges:
            q_of = _scalar_q_indices(h, c.q_slices[h.name].start)
            u0 = c.u_slices[h.name].start
            for k, (damping, friction, stiffness, reference) in enumerate(zip(*h.joint_dynamics())):
                if stiffness and q_of[k] < 0:
                    raise ValueError(f"hinge {h.name!r}: spring_stiffness on rotation coordinate {k} (a "
                                     f"spherical or free rotation) is not supported; set it to 0 there")
                if damping or friction or stiffness:
                    rows.append((h.name, max(q_of[k], 0), u0 + k, damping, friction, stiffness, reference))
        p = {key: np.array([r[i] for r in rows], dtype=dtype) for i, (key, dtype) in enumerate(
            (("hinge", object), ("q", np.int64), ("u", np.int64), ("damping", float), ("friction", float),
             ("stiffness", float), ("reference", float)))}
        p["hinge"] = list(p["hinge"])
        p["slip_speed"] = np.full(len(rows), self.slip_speed)
        p["inertia"] = np.full(len(rows), np.nan)
        stiff = (p["damping"] > 0) | (p["friction"] > 0)
        if self.dt is not None and stiff.any():
            p["inertia"][stiff] = smallest_inertia(m, p["u"][stiff])
            floor = p["friction"] * self.dt / (FRICTION_STEP_RATIO * np.where(stiff, p["inertia"], 1.0))
            p["slip_speed"] = np.maximum(p["slip_speed"], np.where(stiff, floor, 0.0))
        p["implicit"] = p["damping"] > 0 if self.implicit is True else np.zeros(len(rows), dtype=bool)
        if self.implicit == "auto" and self.dt is not None:
            p["implicit"] = np.nan_to_num(p["damping"] * self.dt / p["inertia"]) > DAMPING_STEP_RATIO
        return p

    def armature(self, m, p=None):
        """(nu,) the reflected inertia h c added to M's diagonal for the coordinates whose
        damping is implicit (module docstring), zeros elsewhere."""
        p = self.parameters(m) if p is None else p
        out = np.zeros(m.compiled.nu)
        out[p["u"][p["implicit"]]] = self.dt * p["damping"][p["implicit"]] if self.dt is not None else 0.0
        return out

    def _entries(self, m):
        p = self.parameters(m)
        self._warn_stiff_damping(p)
        self._warn_raised_slip_speed(p)
        out = []
        for e in range(len(p["u"])):
            if p["damping"][e] or p["stiffness"][e]:
                fi = np.zeros(F.N_FMI, dtype=np.int64)
                fi[F.FMI_TYPE], fi[F.FMI_U], fi[F.FMI_Q] = F.FM_SPRING, p["u"][e], p["q"][e]
                ff = np.zeros(F.N_FMF)
                ff[F.FM_K], ff[F.FM_C], ff[F.FM_QREF] = p["stiffness"][e], p["damping"][e], p["reference"][e]
                out.append((fi, ff))
            if p["friction"][e]:
                fi = np.zeros(F.N_FMI, dtype=np.int64)
                fi[F.FMI_TYPE], fi[F.FMI_U] = F.FM_FRICTION, p["u"][e]
                ff = np.zeros(F.N_FMF)
                ff[F.FM_FRICTION_FORCE], ff[F.FM_SLIP_SPEED] = p["friction"][e], p["slip_speed"][e]
                out.append((fi, ff))
        return out

    def _warn_raised_slip_speed(self, p):
        """Warn, naming the hinges, where the step raised v_s past ``SLIP_RAISED`` x the asked
        one: below v_s their friction acts as a damping, and a load below it creeps."""
        raised = np.flatnonzero((p["friction"] > 0) & (p["slip_speed"] > SLIP_RAISED * self.slip_speed))
        if raised.size:
            worst = raised[np.argmax(p["slip_speed"][raised])]
            names = sorted({p["hinge"][e] for e in raised})
            warnings.warn(f"Coulomb friction of hinge{'s' * (len(names) > 1)} {', '.join(map(repr, names))}: the step "
                          f"dt = {self.dt:.6g} s is too long for stiction on such light joints, so the slip speed is "
                          f"raised (up to {p['slip_speed'][worst]:.3g} on {p['hinge'][worst]!r}, from "
                          f"{self.slip_speed:.3g}): below it the friction acts as a damping and a load below it "
                          f"creeps; a smaller dt or an adaptive integrator (dopri5) holds them",
                          RuntimeWarning, stacklevel=5)

    def _warn_stiff_damping(self, p):
        """Warn, naming the hinge, where a fixed step is beyond explicit stability for its damping."""
        if self.dt is None:
            return
        ratio = p["damping"] * self.dt / p["inertia"]
        bad = np.flatnonzero((np.nan_to_num(ratio) > DAMPING_STEP_RATIO) & ~p["implicit"])
        if bad.size:
            e = bad[np.argmax(ratio[bad])]
            warnings.warn(f"hinge {p['hinge'][e]!r}: damping {p['damping'][e]:.6g} with dt = {self.dt:.6g} s gives "
                          f"c dt / I = {ratio[e]:.3g} (I = {p['inertia'][e]:.3g}, its smallest effective inertia): "
                          f"explicit Runge-Kutta is unstable beyond about 2.8; take dt <= "
                          f"{DAMPING_STEP_RATIO * p['inertia'][e] / p['damping'][e]:.3g} s, an adaptive integrator "
                          f"(dopri5) or implicit_damping='auto'", RuntimeWarning, stacklevel=5)


def _scalar_q_indices(h, q0):
    """Per speed of hinge ``h``: the index in q of its coordinate where the subhinge's
    coordinates are scalar (nq = nu), else -1 (rotation vectors and quaternions)."""
    out, q = [], q0
    for s in h.subhinges:
        out += list(range(q, q + s.nu)) if s.nq == s.nu and s.kind_info.rotation in ("none", "axis") else [-1] * s.nu
        q += s.nq
    return out


def joint_dynamics_model(m, joint_dynamics, dt=None, implicit="auto"):
    """The ``JointDynamics`` that ``simulate(joint_dynamics=...)`` adds, or None: True (the
    model's, if any hinge has damping, friction or a spring; ``dt`` the fixed step, None for
    adaptive runs; ``implicit``: its ``implicit_damping``), False / None, or a JointDynamics."""
    chosen = model_option(joint_dynamics, JointDynamics, "joint_dynamics")
    if chosen is not True:
        return chosen
    if not any(_nonzero(getattr(h, k)) for h in m.hinges for k in ("damping", "friction", "spring_stiffness")):
        return None
    return JointDynamics(dt=dt, implicit=implicit)


def _nonzero(value):
    """Whether a hinge's joint-dynamics parameter (a float, or a tuple of one per speed) is set
    anywhere: read as stored, without the (nu,) arrays ``Hinge.joint_dynamics`` builds (1.3 ms
    of every Solo12 ``simulate`` call that way)."""
    return any(v != 0.0 for v in value) if isinstance(value, tuple) else value != 0.0


class EffortClamp:
    """Clamps the joint forces a run is given to the hinges' effort limits and counts it.

    ``limits`` (nu,): the effort limit of each speed (inf where none). ``clamp(tau)``: clamps
    forces (..., nu) in place; ``control(f)``: a control that calls ``f`` and clamps its
    ``tau_out`` in place. ``report()``: {hinge: (calls clamped, largest |tau| asked)}.
    """

    def __init__(self, m):
        c = m.compiled
        self.limits = np.full(c.nu, np.inf)
        self._hinge_of = np.empty(c.nu, dtype=object)
        for h in m.hinges:
            us = c.u_slices[h.name]
            self._hinge_of[us] = h.name
            if h.effort is not None:
                self.limits[us] = h.effort
        self.active = bool(np.isfinite(self.limits).any())
        self.counts = {}

    def clamp(self, tau):
        """Clamp ``tau`` (..., nu) in place to the limits, counting per hinge; returns it."""
        over = np.abs(tau) > self.limits
        if over.any():
            flat = np.abs(tau).reshape(-1, self.limits.size)
            for i in np.flatnonzero(over.reshape(-1, self.limits.size).any(axis=0)):
                n, most = self.counts.get(self._hinge_of[i], (0, 0.0))
                self.counts[self._hinge_of[i]] = (n + 1, max(most, float(flat[:, i].max())))
            np.clip(tau, -self.limits, self.limits, out=tau)
        return tau

    def control(self, f):
        def clamped(t, q, u, tau_out):
            r = f(t, q, u, tau_out)
            self.clamp(tau_out)
            return r
        clamped.__wrapped__ = f
        return clamped

    def report(self):
        """Warn (``EffortLimitWarning``) naming the clamped hinges; returns the counts."""
        if self.counts:
            parts = [f"{h!r} ({n} time{'s' * (n != 1)}, |tau| up to {most:.6g} > {self.limits[self._hinge_of == h][0]:.6g})"
                         for h, (n, most) in self.counts.items()]
            warnings.warn("joint forces were clamped to the effort limits of hinge " + ", ".join(parts) +
                          " (simulate(..., efforts=False) applies them unclamped)", EffortLimitWarning, stacklevel=3)
        return dict(self.counts)
