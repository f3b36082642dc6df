"""Ready-made force models, evaluated inside the compiled stepping loop.

* ``JointSpringDamper(hinge, stiffness, damping, q_ref=0)``: tau = -k (q - q_ref) - c u on
  every scalar coordinate of a hinge (pin, slider, screw, translational, ...).
* ``ExternalForce(frame, wrench, amplitude=None, frequency=0, phase=0, axes="body")``: a
  wrench [moment; force] (6,) [N m; N] applied at a body or node frame (about its
  origin), constant or w(t) = wrench + amplitude sin(2 pi frequency t + phase).
  ``axes="body"``: components in the frame's own (moving) axes (a follower force);
  ``axes="world"``: components in world axes (e.g. a steady push).
* ``JointLimits(hinges=None, frequency=50, damping_ratio=1, stiffness=None, damping=None)``:
  the hinges' position limits (``Hinge.lower`` / ``upper``) as stiff one-sided
  spring-dampers; ``simulate`` adds one by default for models with limits.
* ``LinearSpringDamper(frame_a, frame_b, stiffness, damping=0, rest_length=0)``: a spring
  and damper along the line between the origins of two body or node frames (a strut,
  a cable that also pushes, a bushing of zero rest length).
"""
import warnings
import weakref

import numpy as np

from ..algorithms.checks import frame_row
from ..algorithms.coordinates import q_limits
from . import force_kernels as F

__all__ = ["JointSpringDamper", "ExternalForce", "LinearSpringDamper", "JointLimits", "JointLimitWarning", "pack_force_models",
           "limit_model", "warn_outside_limits"]

#: natural frequency [Hz] of ``JointLimits`` by default (at most 0.1 / dt in fixed-step ``simulate``).
LIMIT_FREQUENCY = 50.0
#: configurations sampled (seeded) for the smallest effective inertia of ``JointLimits``.
INERTIA_SAMPLES = 32
INERTIA_SEED = 12


def _described(obj, required, optional):
    """``Name(a=..., b=...)``: the ``required`` attributes, then the ``optional`` ones (name,
    default) that differ from their defaults; arrays as lists, hinges and bodies by name."""
    def shown(v):
        v = getattr(v, "name", v)
        return repr(v.tolist() if isinstance(v, np.ndarray) else v)

    parts = [f"{k}={shown(getattr(obj, k))}" for k in required]
    for k, default in optional:
        v = getattr(obj, k)
        if not (v is default or (np.shape(v) == np.shape(default) and np.array_equal(v, default))):
            parts.append(f"{k}={shown(v)}")
    return f"{type(obj).__name__}({', '.join(parts)})"


class JointSpringDamper:
    """Linear spring-damper on the scalar coordinates of a hinge (k [N m/rad or N/m], c)."""

    def __init__(self, hinge, stiffness=0.0, damping=0.0, q_ref=0.0):
        self.hinge = hinge
        self.stiffness = float(stiffness)
        self.damping = float(damping)
        self.q_ref = q_ref
        if not (np.isfinite(self.stiffness) and np.isfinite(self.damping)):
            raise ValueError("stiffness and damping must be finite")

    def __repr__(self):
        return _described(self, ("hinge", "stiffness"), (("damping", 0.0), ("q_ref", 0.0)))

    def _entries(self, m):
        name = self.hinge if isinstance(self.hinge, str) else self.hinge.name
        qs, us = m.q_slice(name), m.u_slice(name)
        if qs.stop - qs.start != us.stop - us.start:
            raise ValueError(f"JointSpringDamper: hinge {name!r} has rotation coordinates "
                             f"(nq != nu); only scalar coordinates are supported")
        n = us.stop - us.start
        qref = np.broadcast_to(np.asarray(self.q_ref, dtype=float), (n,))
        out = []
        for k in range(n):
            fi = np.zeros(F.N_FMI, dtype=np.int64)
            fi[F.FMI_TYPE], fi[F.FMI_U], fi[F.FMI_Q] = F.FM_SPRING, us.start + k, qs.start + k
            ff = np.zeros(F.N_FMF)
            ff[F.FM_K], ff[F.FM_C], ff[F.FM_QREF] = self.stiffness, self.damping, qref[k]
            out.append((fi, ff))
        return out


class ExternalForce:
    """A constant or sinusoidal wrench at a body or node frame (see module docstring)."""

    def __init__(self, frame, wrench, amplitude=None, frequency=0.0, phase=0.0, axes="body"):
        self.frame = frame
        self.wrench = np.asarray(wrench, dtype=float)
        self.amplitude = np.zeros(6) if amplitude is None else np.asarray(amplitude, dtype=float)
        for nm, w in (("wrench", self.wrench), ("amplitude", self.amplitude)):
            if w.shape != (6,) or not np.all(np.isfinite(w)):
                raise ValueError(f"ExternalForce {nm} must be a finite (6,) [moment; force], got {w!r}")
        if axes not in ("body", "world"):
            raise ValueError(f"axes must be 'body' or 'world', got {axes!r}")
        self.frequency = float(frequency)
        self.phase = float(phase)
        self.axes = axes

    def __repr__(self):
        return _described(self, ("frame", "wrench"), (("amplitude", np.zeros(6)), ("frequency", 0.0),
                                                      ("phase", 0.0), ("axes", "body")))

    def _sinusoid(self):
        """The packed row (N_FMF,) of the wrench as given (its own axes): w0, w1, omega,
        phase; ``force_kernels.wrench_phase`` / ``wrench_component`` evaluate it."""
        ff = np.zeros(F.N_FMF)
        ff[F.FM_W0:F.FM_W0 + 6] = self.wrench
        ff[F.FM_W1:F.FM_W1 + 6] = self.amplitude
        ff[F.FM_OMEGA] = 2.0 * np.pi * self.frequency
        ff[F.FM_PHASE] = self.phase
        return ff

    def _entries(self, m):
        row = frame_row(m.compiled, self.frame)
        link, T = m.compiled.frame_in_link(row)
        if link < 0:
            return []
        ff = self._sinusoid()
        fi = np.zeros(F.N_FMI, dtype=np.int64)
        if m.compiled.flex is not None:  # at the frame row: a node moves with the modes (flex_link_forces)
            fi[F.FMI_TYPE], fi[F.FMI_FRAME] = F.FM_FRAME_WRENCH if self.axes == "body" else F.FM_FRAME_WORLD, row
            return [(fi, ff)]
        R, p = T[:3, :3], T[:3, 3]
        if self.axes == "body":
            # link axes, about the link origin
            for off, w in ((F.FM_W0, self.wrench), (F.FM_W1, self.amplitude)):
                f = R @ w[3:]
                ff[off:off + 3] = R @ w[:3] + np.cross(p, f)
                ff[off + 3:off + 6] = f
            typ = F.FM_WRENCH
        else:
            ff[F.FM_POINT:F.FM_POINT + 3] = p
            typ = F.FM_WORLD
        fi[F.FMI_TYPE], fi[F.FMI_LINK] = typ, link
        return [(fi, ff)]


class LinearSpringDamper:
    """F = -(k (l - l0) + c dl/dt) along the line from frame_a's origin to frame_b's, pulling b
    toward a when stretched (and a toward b: equal and opposite); frames are body or node
    names (or the world). stiffness k [N/m], damping c [N s/m], rest_length l0 [m]."""

    def __init__(self, frame_a, frame_b, stiffness, damping=0.0, rest_length=0.0):
        for v, what in ((stiffness, "stiffness"), (damping, "damping"), (rest_length, "rest_length")):
            if not (np.isfinite(v) and v >= 0):
                raise ValueError(f"LinearSpringDamper {what} must be finite and >= 0, got {v!r}")
        if frame_a == frame_b:
            raise ValueError(f"LinearSpringDamper: frame_a and frame_b are the same frame {frame_a!r}")
        self.frame_a, self.frame_b = frame_a, frame_b
        self.stiffness, self.damping, self.rest_length = float(stiffness), float(damping), float(rest_length)

    def __repr__(self):
        return _described(self, ("frame_a", "frame_b", "stiffness"), (("damping", 0.0), ("rest_length", 0.0)))

    def _entries(self, m):
        c = m.compiled
        ra, rb = frame_row(c, self.frame_a), frame_row(c, self.frame_b)
        (la, Ta), (lb, Tb) = c.frame_in_link(ra), c.frame_in_link(rb)
        fi = np.zeros(F.N_FMI, dtype=np.int64)
        if c.flex is not None:  # between frame rows (a world frame: -1 and its point): flex_link_forces
            fi[F.FMI_TYPE], fi[F.FMI_FRAME], fi[F.FMI_FRAME_B] = F.FM_FRAME_LINEAR, ra if la >= 0 else -1, \
                rb if lb >= 0 else -1
        else:
            fi[F.FMI_TYPE], fi[F.FMI_LINK], fi[F.FMI_LINK_B] = F.FM_LINEAR, la, lb
        ff = np.zeros(F.N_FMF)
        ff[F.FM_K], ff[F.FM_C], ff[F.FM_LENGTH] = self.stiffness, self.damping, self.rest_length
        ff[F.FM_POINT_A:F.FM_POINT_A + 3] = Ta[:3, 3]  # in the link's axes; a world frame's: in the world
        ff[F.FM_POINT:F.FM_POINT + 3] = Tb[:3, 3]
        return [(fi, ff)]

    def energy(self, m, q):
        """Elastic energy 1/2 k (l - l0)^2 [J] at q."""
        d = m.frame_pose(q, self.frame_b)[:3, 3] - m.frame_pose(q, self.frame_a)[:3, 3]
        return 0.5 * self.stiffness * (np.linalg.norm(d) - self.rest_length) ** 2


class JointLimitWarning(UserWarning):
    """A run left a hinge's position limits while they were not enforced (``limits=False``)."""


class JointLimits:
    """Joint limits as a stiff one-sided spring-damper on each limited coordinate.

    For a coordinate q [rad or m] with speed u and limits lower <= q <= upper (the hinges'
    ``lower`` / ``upper``; either may be absent), the penetration d = lower - q (below) or
    d = q - upper (above) gives the generalized force

        tau = +max(0, k d - c u)   below the lower limit,
        tau = -max(0, k d + c u)   above the upper limit,     tau = 0 within the limits,

    pushing back and never pulling towards the limit. ``stiffness`` k [N m/rad or N/m] and
    ``damping`` c [N m s/rad or N s/m], when given, hold for every coordinate; otherwise
    they come from the coordinate's effective inertia I(q) = 1 / (M(q)^-1)_ii [kg m^2 or kg]
    (what it shows with every other joint free): I_ref is the smallest I over a reference
    configuration (limited coordinates mid-range or at their one bound, the others neutral)
    and ``INERTIA_SAMPLES`` seeded ``random_q`` configurations within the limits; omega =
    2 pi ``frequency`` [Hz], k = I_ref omega^2, c = 2 ``damping_ratio`` I_ref omega (critical
    at 1). Where the joint carries more inertia the limit is softer, never stiffer: its
    frequency omega_eff = sqrt(k / I(q)) <= omega, so a fixed step with omega dt <= 0.63
    stays stable (``simulate`` uses at most 0.1 / dt Hz).

    Penetration (the documented tolerance): a steady generalized force F into the limit
    (gravity, the other joints' motion, actuation) holds d = F / k; reaching the limit at
    speed v adds at most v / omega_eff (v / (e omega) where I(q) = I_ref, damped
    critically), so d <= F / k + v / omega_eff. At 50 Hz, 1 rad/s adds <= 3.2e-3 rad x
    sqrt(I(q) / I_ref). These are continuous-time figures: a fixed step dt overshoots the
    impact term by about omega dt / 3 (relative; 10 % at 50 Hz and dt = 1 ms).

    ``hinges``: names or Hinge objects (default: every hinge with limits).
    """

    def __init__(self, hinges=None, frequency=LIMIT_FREQUENCY, damping_ratio=1.0, stiffness=None, damping=None):
        self.hinges = hinges
        self.frequency = float(frequency)
        self.damping_ratio = float(damping_ratio)
        self.stiffness, self.damping = stiffness, damping
        for nm in ("frequency", "damping_ratio", "stiffness", "damping"):
            v = getattr(self, nm)
            if v is not None and not (np.isfinite(v) and v >= 0):
                raise ValueError(f"JointLimits: {nm} must be finite and >= 0, got {v!r}")
        if self.frequency <= 0:
            raise ValueError(f"JointLimits: frequency must be > 0 Hz, got {frequency!r}")

    def __repr__(self):
        return _described(self, (), (("hinges", None), ("frequency", LIMIT_FREQUENCY), ("damping_ratio", 1.0),
                                     ("stiffness", None), ("damping", None)))

    def parameters(self, m):
        """Per limited coordinate: dict of arrays ``hinge`` (names), ``q``, ``u`` (indices),
        ``lower``, ``upper`` [rad or m], ``inertia`` I_ref, ``stiffness`` k, ``damping`` c
        (units above) and ``omega`` [rad/s] (sqrt(k / I_ref))."""
        c = m.compiled
        names = [h.name for h in m.hinges] if self.hinges is None else \
            [h if isinstance(h, str) else h.name for h in self.hinges]
        lower, upper = q_limits(m)
        limited = (np.isfinite(lower) | np.isfinite(upper)).tolist()
        rows = []
        for name in names:
            if self.hinges is not None and not m.hinge(name).has_limits:
                raise ValueError(f"JointLimits: hinge {name!r} has no position limits")
            qs, us = c.q_slices[name], c.u_slices[name]
            rows += [(name, qs.start + k, us.start + k) for k in range(qs.stop - qs.start) if limited[qs.start + k]]
        qi = np.array([r[1] for r in rows], dtype=np.int64)
        ui = np.array([r[2] for r in rows], dtype=np.int64)
        q_ref = m.neutral_q()
        q_ref[qi] = np.where(np.isfinite(lower[qi] + upper[qi]), 0.5 * (lower[qi] + upper[qi]),
                             np.clip(q_ref[qi], lower[qi], upper[qi]))
        inertia = smallest_inertia(m, ui, q_ref, (lower, upper))
        w = 2.0 * np.pi * self.frequency
        k = inertia * w * w if self.stiffness is None else np.full(len(rows), self.stiffness)
        cc = 2.0 * self.damping_ratio * inertia * w if self.damping is None else np.full(len(rows), self.damping)
        return {"hinge": [r[0] for r in rows], "q": qi, "u": ui, "lower": lower[qi], "upper": upper[qi],
                "inertia": inertia, "stiffness": k, "damping": cc, "omega": np.sqrt(k / inertia)}

    def _entries(self, m):
        p = self.parameters(m)
        out = []
        for e in range(len(p["q"])):
            fi = np.zeros(F.N_FMI, dtype=np.int64)
            fi[F.FMI_TYPE], fi[F.FMI_U], fi[F.FMI_Q] = F.FM_LIMIT, p["u"][e], p["q"][e]
            ff = np.zeros(F.N_FMF)
            ff[F.FM_K], ff[F.FM_C] = p["stiffness"][e], p["damping"][e]
            ff[F.FM_LOWER], ff[F.FM_UPPER] = p["lower"][e], p["upper"][e]
            out.append((fi, ff))
        return out


def smallest_inertia(m, ui, q_ref=None, limits=None):
    """The smallest effective inertia 1 / (M(q)^-1)_ii [kg m^2 or kg] of the speeds ``ui``
    over ``q_ref`` (default: neutral) and ``INERTIA_SAMPLES`` seeded ``random_q``
    configurations (within the limits): what a stiff joint force meets at its lightest.
    ``limits``: the model's ``q_limits(m)`` where the caller has them (else read here).

    Kept per compiled model (``_INERTIA_MEMO``) for what else the samples depend on: the
    speeds, q_ref and the position limits (read when used, not compiled). Made anew, it took
    24 ms of every ``simulate`` call on Solo12 (the default ``JointLimits`` asks for it each
    run): 12 us per step of a 2000-step run."""
    ui = np.asarray(ui, dtype=np.int64)
    if ui.size == 0:
        return np.zeros(0)
    c = m.compiled
    lower, upper = q_limits(m) if limits is None else limits
    key = (ui.tobytes(), None if q_ref is None else np.asarray(q_ref, dtype=float).tobytes(), lower.tobytes(),
           upper.tobytes())
    memo = _INERTIA_MEMO.setdefault(c, {})
    if key not in memo:
        rng = np.random.default_rng(INERTIA_SEED)
        minv = _inverse_mass(m)
        samples = [m.neutral_q() if q_ref is None else q_ref] + [m.random_q(rng) for _ in range(INERTIA_SAMPLES)]
        memo[key] = np.min([1.0 / np.diag(minv(q))[ui] for q in samples], axis=0)
    return memo[key].copy()


#: compiled model -> {the samples' inputs: smallest_inertia's result} (``smallest_inertia``;
#: a model changed in what is compiled gets a new compiled model, and its entries go with the old)
_INERTIA_MEMO = weakref.WeakKeyDictionary()


def _inverse_mass(m):
    """q -> M(q)^-1 for ``JointLimits``' effective inertias; with modal bodies at q with the
    bodies undeformed (eta = 0: ``random_q``'s eta of order one is no state a limit meets,
    and M(eta) of a truncated model need not even be positive there)."""
    c = m.compiled
    if c.flex is None:
        return m.inverse_mass_matrix
    modal = [qs for qs, _ in c.modal_slices.values()]

    def undeformed(q):
        q = np.array(q, dtype=float)
        for qs in modal:
            q[qs] = 0.0
        return m.inverse_mass_matrix(q)
    return undeformed


def model_option(value, cls, name):
    """A run's option that is True (what the model defines), False or None (off), or a
    ``cls`` instance: returns True, None or the instance; ValueError naming ``name`` else."""
    if isinstance(value, cls):
        return value
    if value is None or value is False:
        return None
    if value is not True:
        raise ValueError(f"{name} must be True, False or a {cls.__name__}, got {value!r}")
    return True


def limit_model(m, limits, dt=None):
    """The ``JointLimits`` that ``simulate(limits=...)`` adds, or None: ``limits`` True (the
    model's limits, if any, at min(LIMIT_FREQUENCY, 0.1 / dt) Hz for a fixed step ``dt``
    [s], LIMIT_FREQUENCY for adaptive runs: dt None), False / None, or a JointLimits."""
    chosen = model_option(limits, JointLimits, "limits")
    if chosen is not True:
        return chosen
    if not any(h.has_limits for h in m.hinges):
        return None
    return JointLimits(frequency=LIMIT_FREQUENCY if dt is None else min(LIMIT_FREQUENCY, 0.1 / dt))


def warn_outside_limits(m, t, q):
    """Warn (``JointLimitWarning``) when samples q (N, nq) at times t (N,) [s] leave the
    position limits: names the hinge, the first time and the value. Returns True if so."""
    lower, upper = q_limits(m)
    if q.shape[0] == 0 or not (np.isfinite(lower).any() or np.isfinite(upper).any()):
        return False
    out = (q < lower) | (q > upper)
    if not out.any():
        return False
    n, i = np.unravel_index(int(np.argmax(out.reshape(-1))), out.shape)
    name = next(h for h, sl in m.compiled.q_slices.items() if sl.start <= i < sl.stop)
    k = i - m.compiled.q_slices[name].start
    warnings.warn(f"hinge {name!r} left its position limits [{lower[i]:.6g}, {upper[i]:.6g}] at t = "
                  f"{t[n]:.6g} s: q[{i}] = {q[n, i]:.6g}{f' (coordinate {k})' if k else ''} (limits are "
                  f"off: simulate(..., limits=False))", JointLimitWarning, stacklevel=3)
    return True


def pack_force_models(m, forces):
    """(fmi (n, N_FMI) int64, fmf (n, N_FMF) float64, world flag) for the compiled loop
    (columns named in ``simulation.force_kernels``)."""
    rows = []
    for f in forces or ():
        if not hasattr(f, "_entries"):
            raise TypeError(f"force models must be JointSpringDamper, ExternalForce, LinearSpringDamper or JointLimits, "
                            f"got {type(f).__name__}")
        rows += f._entries(m)
    fmi = np.zeros((len(rows), F.N_FMI), dtype=np.int64)
    fmf = np.zeros((len(rows), F.N_FMF))
    for k, (a, b) in enumerate(rows):
        fmi[k] = a
        fmf[k] = b
    # world-axes wrenches and linear springs need the world placements before the dynamics
    world = int(np.any((fmi[:, F.FMI_TYPE] == F.FM_WORLD) | (fmi[:, F.FMI_TYPE] == F.FM_LINEAR))) if rows else 0
    return fmi, fmf, world
