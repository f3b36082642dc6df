"""``simulate``: integrate a Multibody from an initial state, the one-call entry point."""
import math
import sys
import time
from pathlib import Path

import numpy as np

from .integrators import MuntheKaasIntegrator, RungeKuttaIntegrator, SimulationError, check_positive
from .sinks import ExpandingStorage
from .tableaus import ButcherTableau, get_tableau

__all__ = ["simulate", "SimulationResult", "INTEGRATORS"]

#: integrator names ``simulate`` accepts.
INTEGRATORS = ("euler", "midpoint", "heun", "rk4", "rk38", "bs32", "dopri5", "munthe_kaas")


class SimulationResult:
    """Samples of a run: ``t`` (N,) [s], ``q`` (N, nq), ``u`` (N, nu).

    Also ``status`` ("finished", "failed" or "interrupted"), ``message``, ``n_steps``
    (accepted steps), ``n_rejected``, ``n_chart_resets`` (rotation-vector charts re-centred), ``wall_time`` [s], ``integrator`` (its name).
    q is expressed in the chart offsets the model had when the run started.
    """

    def __init__(self, t, q, u, status="finished", message="", n_steps=0, n_rejected=0,
                 wall_time=0.0, integrator="", n_chart_resets=0):
        self.n_chart_resets = n_chart_resets
        self.t, self.q, self.u = t, q, u
        self.status, self.message = status, message
        self.n_steps, self.n_rejected = n_steps, n_rejected
        self.wall_time, self.integrator = wall_time, integrator

    def __len__(self):
        return self.t.shape[0]

    def __repr__(self):
        return (f"SimulationResult({len(self)} samples, t = {self.t[0]:.4g}..{self.t[-1]:.4g} s, "
                f"{self.status}, {self.n_steps} steps)")

    def energy(self, m):
        """(kinetic, potential) energies (N,), (N,) [J] along the run."""
        ke = np.array([m.kinetic_energy(q, u) for q, u in zip(self.q, self.u)])
        pe = np.array([m.potential_energy(q) for q in self.q])
        return ke, pe

    def save(self, path, q_names=None, u_names=None):
        """Write the samples to ``path``: ``.npz`` (arrays t, q, u and the status) or ``.csv``
        (header ``t,q0..,u0..``, or the given column names)."""
        path = Path(path)
        if path.suffix == ".npz":
            np.savez(path, t=self.t, q=self.q, u=self.u, status=self.status, message=self.message)
        elif path.suffix == ".csv":
            nq, nu = self.q.shape[1], self.u.shape[1]
            qn = q_names or [f"q{i}" for i in range(nq)]
            un = u_names or [f"u{i}" for i in range(nu)]
            data = np.column_stack([self.t, self.q, self.u])
            np.savetxt(path, data, delimiter=",", header=",".join(["t", *qn, *un]), comments="")
        else:
            raise ValueError(f"unknown results format {path.suffix!r}: use .npz or .csv")
        return path


def _resolve(integrator, tableau):
    """(tableau, lie_group) for an ``integrator`` name / tableau."""
    if isinstance(integrator, ButcherTableau):
        return integrator, False
    if not isinstance(integrator, str):
        raise ValueError(f"integrator must be a name {INTEGRATORS} or a ButcherTableau, got {integrator!r}")
    name = integrator.lower()
    if name in ("munthe_kaas", "mk", "munthe-kaas"):
        return get_tableau(tableau or "rk4"), True
    if tableau is not None:
        raise ValueError("tableau= is only used with integrator='munthe_kaas'")
    return get_tableau(name), False


class _Progress:
    """A text progress bar on stderr, shown once a run has lasted more than ``after`` s."""

    def __init__(self, after=1.0, stream=None, width=30):
        self.t_wall0 = time.perf_counter()
        self.after, self.stream, self.width = after, stream or sys.stderr, width
        self.shown = False

    def __call__(self, t, t_final, t0=0.0):
        el = time.perf_counter() - self.t_wall0
        if el < self.after:
            return
        frac = min(max((t - t0) / (t_final - t0), 0.0), 1.0)
        n = int(frac * self.width)
        eta = el * (1 - frac) / frac if frac > 0 else float("nan")
        self.stream.write(f"\r[{'#' * n}{'.' * (self.width - n)}] {100 * frac:5.1f}%  t = {t:.4g} s  "
                          f"elapsed {el:.1f} s  eta {eta:.1f} s")
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def simulate(m, q0, u0, t_final, dt=1e-3, integrator="rk4", control=None, *, rtol=1e-8, atol=1e-10,
             tableau=None, tau=None, forces=(), stabilization_gains=None, save_every=1,
             h_min=None, h_max=math.inf, output=None, progress=False):
    """Integrate the dynamics of ``m`` from (q0, u0) at t = 0 to ``t_final``.

    Parameters
    ----------
    m : Multibody.
    q0 (nq,), u0 (nu,) : initial configuration and generalized speeds.
    t_final : end time [s] (> 0).
    dt : step size [s]; for the adaptive integrators ("dopri5", "bs32") the output interval.
    integrator : "rk4" (default), "euler", "midpoint", "heun", "rk38" ("3/8"), "bs32",
        "dopri5", "munthe_kaas" (Lie-group RK, RK4 tableau unless ``tableau=``), or a
        ``ButcherTableau``.
    control : optional ``control(t, q, u, tau_out)`` writing the joint forces tau_out (nu,)
        in place (it holds ``tau`` when called); called at every Runge-Kutta stage (the
        compiled loop pauses for it).
    rtol, atol : tolerances of the adaptive integrators.
    tableau : tableau name or ButcherTableau for "munthe_kaas".
    tau : constant joint forces (nu,); forces : force models (``JointSpringDamper``,
        ``ExternalForce``).
    stabilization_gains : Baumgarte gains for loop constraints. Models have no loop
        constraints yet: only ``None`` is accepted (anything else raises ``ValueError``).
    save_every : fixed step: keep every n-th step (the last step is always kept).
    h_min, h_max : adaptive step bounds [s].
    output : optional path (.npz or .csv) the results are written to, also when the run
        fails or is interrupted.
    progress : show a progress bar on stderr for runs longer than a second.

    Returns
    -------
    SimulationResult with ``t`` (N,), ``q`` (N, nq), ``u`` (N, nu); t[0] = 0.

    Raises ``SimulationError`` (its ``result`` holds the samples computed so far) when
    the state becomes non-finite (naming the time and the coordinate), the mass matrix
    becomes singular or the adaptive step falls below h_min. Bad arguments raise
    ``ValueError``.
    """
    t_final_f = check_positive(t_final, "t_final")
    dt_f = check_positive(dt, "dt")
    if dt_f > t_final_f:
        raise ValueError(f"dt ({dt_f}) must not exceed t_final ({t_final_f})")
    if int(save_every) != save_every or save_every < 1:
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    tab, lie = _resolve(integrator, tableau)
    cls = MuntheKaasIntegrator if lie else RungeKuttaIntegrator
    c = m.compiled
    sink = ExpandingStorage(c.nq, c.nu, capacity=1)
    integ = cls(m, q0, u0, tableau=tab, sink=sink, control=control, tau=tau, forces=forces,
                rtol=rtol, atol=atol, h_min=h_min, h_max=h_max, stabilization_gains=stabilization_gains)
    n_out = int(math.ceil(t_final_f / dt_f - 1e-9))
    if not integ.adaptive:
        n_out = n_out // int(save_every) + (1 if n_out % int(save_every) else 0)
    sink.reserve(n_out + 1)
    bar = _Progress() if progress else None
    name = ("munthe_kaas/" if lie else "") + tab.name
    wall0 = time.perf_counter()
    status, message, err = "finished", "", None
    try:
        integ.integrate(t_final_f, dt_f, save_every=int(save_every),
                        block=(max(64, n_out // 200) if (bar or control is None and n_out > 200000) else None),
                        progress=bar)
    except SimulationError as e:
        status, message, err = "failed", str(e), e
    except KeyboardInterrupt as e:
        status, message, err = "interrupted", f"interrupted at t = {integ.t:.6g} s", e
    finally:
        if bar is not None:
            bar.close()
    res = SimulationResult(sink.t.copy(), sink.q.copy(), sink.u.copy(), status, message,
                           integ.n_steps, integ.n_rejected, time.perf_counter() - wall0, name,
                           integ.n_chart_resets)
    if output is not None:
        res.save(output)
    if err is not None:
        if isinstance(err, SimulationError):
            err.result = res
            raise err
        raise err
    return res
