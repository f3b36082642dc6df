"""Why a run stopped: ``SimulationError`` and the messages that name the time, the coordinate
(by hinge) and a likely remedy, read from an integrator's counters and stage state."""
import numpy as np

from ..algorithms.checks import coordinate_owner
from ..kernels.status import Status
from ..results import coordinate_labels
from . import kernels as K

__all__ = ["SimulationError", "SimulationTerminated", "failure", "blow_up", "first_blown_row"]


class SimulationError(RuntimeError):
    """A run that could not finish. ``t`` is the time of the failure, ``result`` holds
    the samples computed before it (a ``SimulationResult``, when available)."""

    def __init__(self, message, t=None, result=None):
        super().__init__(message)
        self.t = t
        self.result = result


class SimulationTerminated(SystemExit):
    """A run ended by a signal that terminates (SIGTERM) while ``simulate`` ran: its results
    file is complete up to ``t`` [s] (the last sample) and ``result`` holds the samples.
    A ``SystemExit``: uncaught, the program exits with status 128 + ``signum`` (143)."""

    def __init__(self, signum=15, message="", t=None, result=None):
        super().__init__(128 + int(signum))
        self.signum, self.message, self.t, self.result = int(signum), message, t, result

    def __str__(self):
        return self.message or f"terminated by signal {self.signum}"


#: a stage state whose speeds exceed this [rad/s or m/s] (or whose coordinates exceed
#: BLOW_UP_COORDINATE [rad or m]) when the inertia turns singular has blown up.
BLOW_UP_SPEED = 1e8
BLOW_UP_COORDINATE = 1e12

_STATUS_TEXT = {
    Status.SINGULAR: "the joint-space inertia became singular (a massless body at the end of a moving "
                     "hinge, or a free base without mass or inertia about a joint's axis?)",
    Status.MIN_STEP: "the adaptive step size fell below h_min (stiff or discontinuous dynamics?)",
}

#: what else a singular inertia means with modal bodies (their M(eta) is a truncated series)
_FLEX_SINGULAR = ("with modal bodies also a deflection too large for a second-order model of the "
                  "foreshortening (geometric stiffening, see docs/modal_data.md): M(eta) is no longer "
                  "positive there")


#: where the implicit method helps: force models it takes implicitly (a control's forces
#: are held over each of its steps, so a stiff gain in a control stays explicit there)
IMPLICIT_ADVICE = ("for stiff force models (springs, dampers, actuators' gains, joint dynamics; not a control's "
                   "gains), the implicit integrator='generalized_alpha'")

def failure(integ, st):
    """A SimulationError for the Status a run of integrator ``integ`` stopped with (the result
    is attached by the caller)."""
    c = integ._c
    t = float(integ.clk[K.K_TBAD])
    b = int(integ.ctr[K.C_BAD])
    if st is Status.NONFINITE_STATE:
        name, idx = ("q", b) if b < c.nq else ("u", b - c.nq)
        return SimulationError(f"the state became non-finite at t = {t:.6g} s: {name}[{idx}] "
                               f"({coordinate_owner(c, name, idx)}); last finite state kept at "
                               f"t = {integ.t:.6g} s; if the step blew up, a smaller dt, the adaptive "
                               f"integrator='dopri5' or, {IMPLICIT_ADVICE}, may help", t)
    if st is Status.CONTROL_NONFINITE:
        return SimulationError(f"the control returned a non-finite joint force at t = {t:.6g} s: "
                               f"tau[{b}] = {integ._ctl[0][b]} ({coordinate_owner(c, 'u', b)}); last "
                               f"finite state kept at t = {integ.t:.6g} s", t)
    if st is Status.CONTACT_UNSOLVED:
        return SimulationError(f"the contact solver did not converge at t = {t:.6g} s: natural-map residual "
                               f"{integ.contact_residual:.3g} after {int(integ.cst[1])} sweeps (contact_tol "
                               f"{integ.copt[0]:.3g}, contact_accept {integ.copt[2]:.3g}); last state kept at "
                               f"t = {integ.t:.6g} s; a smaller dt, or simulate(contact_options=dict(max_sweeps=...,"
                               f" contact_accept=...)) may help", t)
    if st is Status.SINGULAR:
        blown = blow_up(integ, t)
        if blown is not None:
            return blown
        if integ.flex:
            return SimulationError(f"simulation stopped at t = {t:.6g} s: {_STATUS_TEXT[st]}; {_FLEX_SINGULAR}", t)
    return SimulationError(f"simulation stopped at t = {t:.6g} s: {_STATUS_TEXT.get(st, st.name)}", t)

def blow_up(integ, t, state=None):
    """A SimulationError saying the step blew up, if the stage state that failed (or
    ``state``, a (q, u) pair: a run's last accepted state) holds a non-finite or huge entry
    (speeds above ``BLOW_UP_SPEED``, coordinates above ``BLOW_UP_COORDINATE``); else None."""
    c = integ._c
    qs, us = (integ._work[3], integ._work[4]) if state is None else state
    with np.errstate(invalid="ignore"):
        su = np.where(np.isfinite(us), np.abs(us), np.inf) / BLOW_UP_SPEED
        sq = np.where(np.isfinite(qs), np.abs(qs), np.inf) / BLOW_UP_COORDINATE
    if max(su.max(initial=0.0), sq.max(initial=0.0)) < 1.0:
        return None
    name, i, x = ("u", int(np.argmax(su)), us) if su.max(initial=0.0) >= sq.max(initial=0.0) \
        else ("q", int(np.argmax(sq)), qs)
    owner = coordinate_owner(c, name, i).replace("it belongs to ", "")
    unit = coordinate_labels(integ.model)[1 if name == "q" else 3][i]
    return SimulationError(
        f"the simulation blew up at t = {t:.6g} s: {name}[{i}] ({owner}) grew to "
        f"{x[i]:.3g}{' ' + unit if unit else ''} "
        f"during a step of {integ.clk[K.K_STEP]:.3g} s (last accepted state at t = {integ.t:.6g} s); "
        f"the dynamics are too stiff for this step (high gains, stiff springs): a smaller dt, an "
        f"adaptive integrator (integrator='dopri5') or, {IMPLICIT_ADVICE}, may help", t)


def first_blown_row(Q, U):
    """Per sample of stacked trajectories Q (B, N, nq), U (B, N, nu): the first row whose
    state is past the blow-up bounds (``BLOW_UP_SPEED``, ``BLOW_UP_COORDINATE``; NaN rows,
    those after a sample's failure, are not), -1 where none is."""
    with np.errstate(invalid="ignore"):
        past = (np.abs(U) >= BLOW_UP_SPEED).any(axis=2) | (np.abs(Q) >= BLOW_UP_COORDINATE).any(axis=2)
    return np.where(past.any(axis=1), np.argmax(past, axis=1), -1)
