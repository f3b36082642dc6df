"""A ``simulate`` run cut at breakpoints: sampled control (``control_period``) and events.

``SegmentedRun`` stands for the run's integrator when ``simulate`` is given a
``control_period`` or ``events``: ``simulate`` calls its ``integrate`` as it calls an
integrator's. It runs the compiled loop from breakpoint to breakpoint (the control's samples
t = k T, the timed events' times, t_final): each segment's step grid starts at its start and
its last step ends on the next breakpoint exactly, so no step crosses a sample (adaptive
steps are clipped to it). At a sample the control is called once with the state there and
its joint forces are held until the next (zero-order hold: the loop takes them as its
constant ``tau``).

State events are watched after every accepted step: the loop stores every step (fixed
steps with stride 1, adaptive ones with ``O_EVERY``) in blocks of ``EVENT_BLOCK`` rows, g is
evaluated at each row, and the rows that are output samples go on to the sink. A sign change
between two rows is located (``events.locate``) on states the integrator computes itself:
one step from the row before to the trial time, so the located state is the integrator's
own solution (order of the method), not an interpolant. The sample before the event and,
if its action changes the state, the one after are stored at the event time; the run then
goes on from there (a new segment), with the model compiled anew if the action changed it.
After an event (state or timed) the run goes back to its output grid: the next breakpoint
is the first output time after the event (t0 + k dt, with the run's stride for fixed steps),
so the samples after it are at the times a run without events stores.
"""
import math
import warnings

import numpy as np

from ..algorithms.checks import check_positive
from ..algorithms.constraints import pose_error, velocity_error
from ..kernels.status import Status
from . import kernels as K
from .events import EVENT_TOL, EventRecord, apply_action, check_events, crossed, evaluate, locate
from .failures import failure
from .sinks import GRID_SLACK

__all__ = ["SegmentedRun", "EVENT_BLOCK"]

#: how far off its enabled constraints [m, rad, m/s, rad/s] a state may be after an action
#: changed the model before a warning names the event.
CONSTRAINT_SLACK = 1e-6

#: rows (accepted steps) per compiled call while state events are watched: at most this many
#: steps are computed past an event.
EVENT_BLOCK = 256


def _due(time, t):
    """Whether a breakpoint at ``time`` is reached at the run's time ``t`` (within rounding)."""
    return time - t <= 1e-12 * max(1.0, abs(t))


class SegmentedRun:
    """The run of an integrator ``integ`` (``RungeKuttaIntegrator``) with a sampled ``control``
    (``control_period`` [s]) and/or ``events`` (``Event``); ``make(q, u, t0)`` makes the run's
    integrator anew on the model's current compilation after an action changed the model
    (None: a rollout's sample, whose model the samples share; such an action raises).
    Reads like the integrator it stands for (``t``, ``q``, ``u``, counters, ``sink``; other
    attributes are the current integrator's); ``records`` lists the events that fired
    (``EventRecord``), ``stop_message`` says which one ended the run."""

    def __init__(self, integ, make, control=None, control_period=None, events=(), event_tol=EVENT_TOL):
        self.integ, self.make, self.model = integ, make, integ.model
        self._compiled = integ.model.compiled
        self.period = None
        if control_period is not None:
            self.period = check_positive(control_period, "control_period")
            if control is None:
                raise ValueError("control_period needs a control (control=)")
            if not callable(control):
                raise TypeError(f"control must be callable as control(t, q, u, tau_out), got "
                                f"{type(control).__name__}")
        self.control = control
        self.base_tau = integ.tau0.copy()
        self.events = check_events(events)
        self.tol = check_positive(event_tol, "event_tol")
        self.state_events = [i for i, e in enumerate(self.events) if e.kind == "state"]
        self._next_at = [0] * len(self.events)
        self.records, self.stop_message = [], ""
        self._steps = self._past_rejected = self._past_charts = 0
        self._live = False  # a segment runs: its steps are in the integrator's counter
        self._k = 0  # the next control sample
        self._since = 0  # samples stored since after_block last ran
        self._g = []  # g of each state event at the run's current state
        self._realign = None  # the output time the run goes back to after an event
        self._one = (np.empty(1), np.empty((1, self.model.compiled.nq)), np.empty((1, self.model.compiled.nu)))

    def __getattr__(self, name):
        if name == "integ" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.integ, name)

    t = property(lambda self: self.integ.t, doc="Current time [s].")
    q = property(lambda self: self.integ.q, doc="Current configuration (start charts).")
    u = property(lambda self: self.integ.u, doc="Current generalized speeds.")

    @property
    def n_steps(self):
        """Accepted steps so far (trial steps of the event location not counted)."""
        return self._steps + (self.integ.n_steps if self._live else 0)

    @property
    def n_rejected(self):
        """Rejected (adaptive) steps so far."""
        return self._past_rejected + self.integ.n_rejected

    @property
    def n_chart_resets(self):
        """Rotation-vector chart re-centrings so far."""
        return self._past_charts + self.integ.n_chart_resets

    @property
    def sink(self):
        """Where the samples go (the integrator's sink)."""
        return self.integ.sink

    @sink.setter
    def sink(self, value):
        self.integ.sink = value

    # ------------------------------------------------------------------ the run
    def integrate(self, t_final, dt, save_every=1, block=None, progress=None, after_block=None,
                  block_seconds=None):
        """Integrate to ``t_final`` [s] as ``RungeKuttaIntegrator.integrate`` (``block_seconds``
        is not used: blocks are ``block`` rows, at most ``EVENT_BLOCK`` while state events are
        watched). Returns the final time (an event's, if one stopped the run)."""
        self.sink.initialize(self.t, self.q, self.u)
        self.t_final, self.dt, self.stride = float(t_final), float(dt), int(save_every)
        self._grid0 = self.t  # output times: t0 + k interval (and t_final)
        self._interval = self.dt if self.integ.adaptive else self.dt * self.stride
        self.block, self.progress, self.after_block = block, progress, after_block
        self._g = self._g_values()
        while True:
            t = self.t
            if self._fire_timed(t) or t >= self.t_final:
                return self.t
            if self.period is not None and _due(self._k * self.period, t):
                self._sample(self._k * self.period)
            if self._segment(self._next_break(t)):
                return self.t

    def _next_break(self, t):
        """The next breakpoint after t: a control sample, a timed event, the output time the
        run goes back to after an event, or t_final."""
        nxt = self.t_final
        if self._realign is not None and self._realign - t <= GRID_SLACK * self._interval:
            self._realign = None  # (reached, or within rounding of it)
        if self._realign is not None:
            nxt = min(nxt, self._realign)
        if self.period is not None:
            nxt = min(nxt, self._k * self.period)
        for i, e in enumerate(self.events):
            if e.at is not None and self._next_at[i] < e.at.size:
                nxt = min(nxt, e.at[self._next_at[i]])
        return nxt

    def _sample(self, t):
        """Call the sampled control at its sample time t; hold its joint forces."""
        tau_out = self.base_tau.copy()
        r = self.control(t, self.q, self.u, tau_out)
        if r is not None and r is not tau_out:
            raise TypeError(f"control returned a {type(r).__name__} at t = {t:.6g} s; write the joint forces "
                            f"into its 4th argument in place (tau_out[:] = ...) and return None")
        bad = np.flatnonzero(~np.isfinite(tau_out))
        if bad.size:
            raise ValueError(f"control_period: the control wrote tau_out[{bad[0]}] = {tau_out[bad[0]]} at the "
                             f"sample t = {t:.6g} s")
        self.integ.tau0[:] = tau_out
        self._k += 1

    def _fire_timed(self, t):
        """Fire the timed events due at t (each of its times once); True if one stops the run."""
        stop = False
        for i, e in enumerate(self.events):
            if e.at is None or self._next_at[i] >= e.at.size or not _due(e.at[self._next_at[i]], t):
                continue
            while self._next_at[i] < e.at.size and _due(e.at[self._next_at[i]], t):
                self._next_at[i] += 1
            stop = self._fire(i, t) or stop
        return stop

    def _fire(self, i, t):
        """Apply event i's action at the current state, time t; True if the run stops there."""
        e = self.events[i]
        q, u = self.q, self.u
        stop, q1, u1 = apply_action(e, t, q, u)
        self.records.append(EventRecord(float(t), e.name, i, e.kind, q, u, q1, u1, stop))
        if self.model.compiled is not self._compiled:  # the action changed the model
            if self.make is None:  # (a rollout's sample: the samples share the model)
                raise RuntimeError(f"event {e.name!r}: its action changed the model (a constraint enabled or "
                                   f"disabled, or the model edited) at t = {t:.9g} s; a rollout's samples share "
                                   f"one model, so their actions may only change the state: simulate each "
                                   f"sample (the model stays as the action left it)")
            self._rebuild(e, t, q1, u1)
        else:
            self.integ.set_state(t, q1, u1)
        if not (np.array_equal(q1, q) and np.array_equal(u1, u)):
            self.sink.process(t, self.q, self.u)  # the state after the reset, at the same time
        self._g = self._g_values()
        if e.kind == "state":  # on its own surface now: the next step does not fire it again
            self._g[self.state_events.index(i)] = 0.0
        if stop:
            self.stop_message = f"stopped by event {e.name!r} at t = {t:.12g} s"
        else:  # back to the output grid: the first output time after the event
            k = math.floor((t - self._grid0) / self._interval + GRID_SLACK) + 1
            self._realign = self._grid0 + k * self._interval
        return stop

    def _rebuild(self, event, t, q, u):
        """Go on from (t, q, u) with a new integrator on the model as ``event``'s action left
        it; the state is checked against it (its shape, and a warning naming the event when
        it is off the enabled constraints by more than ``CONSTRAINT_SLACK``)."""
        old = self.integ
        try:
            new = self.make(q, u, t)
        except (ValueError, TypeError) as err:
            raise ValueError(f"event {event.name!r}: the state does not fit the model as its action left it: "
                             f"{err}") from err
        if self.model.compiled.nc and self.model.compiled.flex is None:
            off = max(np.abs(pose_error(self.model, q, "residual")).max(),
                      np.abs(velocity_error(self.model, q, u, "residual")).max())
            if off > CONSTRAINT_SLACK:
                warnings.warn(f"event {event.name!r}: the state after its action is off the model's enabled "
                              f"constraints by {off:.3g} (position or velocity residual) at t = {t:.9g} s; "
                              f"Baumgarte stabilization (stabilization_gains) pulls it back, or return a state "
                              f"on them from the action", RuntimeWarning, stacklevel=2)
        self._past_rejected += old.n_rejected
        self._past_charts += old.n_chart_resets
        new.chart0[:] = old.chart0  # q is in the charts the run started with
        new.sink, new.tau0[:], new.clk[K.K_H] = old.sink, old.tau0, old.clk[K.K_H]
        new.set_state(t, q, u)
        self.integ, self._compiled = new, self.model.compiled

    def _g_values(self):
        return [evaluate(self.events[i], self.t, self.q, self.u) for i in self.state_events]

    # ------------------------------------------------------------------ one segment
    def _segment(self, b):
        """Integrate from the current time to the breakpoint b, or to a state event before it;
        True if an event stopped the run."""
        integ, watch = self.integ, bool(self.state_events)
        n_out = integ.setup(b, self.dt, 1 if watch else self.stride)
        integ.iopt[K.O_EVERY] = int(watch)
        rows = n_out + 1  # (a spare row: the loop ends FINISHED in one call, not BUFFER_FULL first)
        size = max(1, min(rows, self.block or rows, EVENT_BLOCK if watch else rows))
        T, Q, U = np.empty(size), np.empty((size, self._one[1].shape[1])), np.empty((size, self._one[2].shape[1]))
        self._live, self._n_out = True, 0
        start = (self.t, self.q, self.u) if watch else None
        while True:
            c0 = integ.n_steps
            try:
                st, n = integ.advance(T, Q, U)
            except BaseException:
                n = int(integ.ctr[K.C_WRITTEN])
                self._hand(T[:n], Q[:n], U[:n], c0, watch)
                raise
            r = self._scan(T[:n], Q[:n], U[:n]) if watch else -1
            if r >= 0:
                self._since += self._hand(T[:r], Q[:r], U[:r], c0, watch)
                prev = start if r == 0 else (float(T[r - 1]), Q[r - 1].copy(), U[r - 1].copy())
                self._steps += c0 + r + 1
                self._live = False
                return self._state_event(prev, (float(T[r]), Q[r].copy(), U[r].copy()))
            self._since += self._hand(T[:n], Q[:n], U[:n], c0, watch)
            if st is not Status.FINISHED and st is not Status.BUFFER_FULL:
                raise failure(integ, st)
            if self.progress is not None:  # (the bar draws at most a few times a second)
                self.progress(self.t, self.t_final)
            if self.after_block is not None and self._since >= (self.block or 1):  # every `block` samples
                self._since = 0
                self.after_block(integ)
                self._g = self._g_values()
            if st is Status.FINISHED:
                break
            start = (self.t, self.q, self.u) if watch else None
        self._steps += integ.n_steps
        self._live = False
        return False

    def _hand(self, T, Q, U, c0, watch):
        """Hand the rows that are output samples to the sink (watching events, the loop stored
        every step: the fixed steps' stride and the adaptive output times are picked here);
        returns how many."""
        if not watch or not T.size:
            self.sink.process_block(T, Q, U)
            return T.shape[0]
        integ = self.integ
        if integ.adaptive:
            fo, keep = integ.fopt, []
            for r in range(T.shape[0]):  # an output row ends on the time the loop aimed at
                if T[r] == fo[K.F_TEND] or T[r] == min(fo[K.F_T0] + (self._n_out + 1) * fo[K.F_DT], fo[K.F_TEND]):
                    keep.append(r)
                    self._n_out += 1
            keep = np.array(keep, dtype=np.int64)
        else:
            steps = c0 + 1 + np.arange(T.shape[0])
            keep = np.flatnonzero((steps % self.stride == 0) | (steps == integ.iopt[K.O_NSTEPS]))
        self.sink.process_block(T[keep], Q[keep], U[keep])
        return keep.size

    def _scan(self, T, Q, U):
        """The first row whose step crosses a state event (-1: none); the crossing events and
        their g at the step's ends go to self._crossing."""
        for r in range(T.shape[0]):
            g1 = [evaluate(self.events[i], float(T[r]), Q[r], U[r]) for i in self.state_events]
            hits = [j for j, i in enumerate(self.state_events)
                    if crossed(self._g[j], g1[j], self.events[i].direction)]
            if hits:
                self._crossing = (hits, self._g, g1)
                return r
            self._g = g1
        return -1

    def _state_event(self, prev, end):
        """Locate the earliest crossing in the step prev -> end (each (t, q, u)), store the state
        there, fire its event; True if it stops the run."""
        (ta, qa, ua), (tb, qb, ub) = prev, end
        hits, g0, g1 = self._crossing
        tol = max(self.tol, 4.0 * float(np.spacing(abs(tb))))
        best = None
        for j in hits:
            e = self.events[self.state_events[j]]
            f = lambda t, e=e: evaluate(e, t, *self._trial(ta, qa, ua, t))  # noqa: E731
            t_star, _ = locate(f, ta, tb, g0[j], g1[j], tol)
            if best is None or t_star < best[0]:
                best = (t_star, j)
        t_star, j = best
        q, u = (qb, ub) if t_star == tb else self._trial(ta, qa, ua, t_star)
        self.integ.set_state(t_star, q, u)
        self.sink.process(t_star, q, u)  # the state just before the event
        return self._fire(self.state_events[j], t_star)

    def _trial(self, t0, q0, u0, t):
        """The state at t of one step of the integrator from (t0, q0, u0) (no error control,
        nothing stored)."""
        integ = self.integ
        integ.set_state(t0, q0, u0)
        adapt = integ.iopt[K.O_ADAPT]
        integ.iopt[K.O_ADAPT] = 0
        try:
            integ.setup(t, t - t0)
            st, n = integ.advance(*self._one)
        finally:
            integ.iopt[K.O_ADAPT] = adapt
        if st not in (Status.FINISHED, Status.BUFFER_FULL) or n != 1:
            raise failure(integ, st)
        return self._one[1][0].copy(), self._one[2][0].copy()
