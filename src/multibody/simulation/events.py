"""Events of a ``simulate`` run: zero crossings of a function of the state, and given times.

``Event(g, direction, terminal, action, name)`` fires where g(t, q, u) changes sign along the
run; ``Event(at=times, action=...)`` at given times. ``simulation.segments`` drives the run:
it checks the sign of each g at the ends of every accepted step, locates a crossing in its
step with ``locate`` (the Illinois variant of regula falsi, on states the integrator itself
computes), applies the action (``apply_action``) and goes on from the event.
"""
import math
import numbers
import numpy as np

from ..results import EventRecord

__all__ = ["Event", "EventRecord", "check_events", "crossed", "locate", "apply_action", "evaluate"]

#: the event time's tolerance [s] of ``simulate(event_tol=)`` by default.
EVENT_TOL = 1e-12


class Event:
    """An event of a ``simulate`` run (``simulate(..., events=[...])``).

    Parameters
    ----------
    g : callable, optional
        ``g(t, q, u) -> float``: the event fires where g crosses zero (q in the charts the run
        started with). Give ``g`` or ``at``, not both.
    direction : {0, 1, -1}
        1: only rising crossings (g from negative to >= 0), -1: only falling ones (from
        positive to <= 0), 0: both.
    terminal : bool
        Stop the run at the event (the result's last time is the event's).
    action : callable, optional
        ``action(t, q, u)`` called at the event with the state there; it returns None (no
        change), a new state ``(q_new, u_new)`` (an impact, a velocity jump: the run goes on
        from it), or ``"stop"`` (end the run there, as ``terminal``). It may change the model
        (``m.enable_constraint(...)``, ``disable_constraint``): the run goes on with the model
        compiled anew, from the state the action returns.
    name : str, optional
        The name in ``SimulationResult.events`` and in errors (default ``event<i>``, i its
        index in ``events``).
    at : float or sequence of float, keyword only
        A timed event: it fires at these times [s] (>= 0) exactly (steps end there).
    """

    def __init__(self, g=None, direction=0, terminal=False, action=None, name=None, *, at=None):
        label = repr(name) if name is not None else "Event"
        if (g is None) == (at is None):
            raise ValueError(f"{label}: give g (a state event) or at= (a timed event), not both or neither")
        if g is not None and not callable(g):
            raise TypeError(f"{label}: g must be callable as g(t, q, u) -> float, got {type(g).__name__}")
        if isinstance(direction, bool) or not isinstance(direction, numbers.Integral) or direction not in (-1, 0, 1):
            raise ValueError(f"{label}: direction must be -1 (falling), 0 (both) or 1 (rising), got {direction!r}")
        if action is not None and not callable(action):
            raise TypeError(f"{label}: action must be callable as action(t, q, u), got {type(action).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Event name must be a str, got {type(name).__name__}")
        self.g, self.direction, self.terminal = g, int(direction), bool(terminal)
        self.action, self.name = action, name
        self.at = None if at is None else _times(at, label)

    @property
    def kind(self):
        """"state" (a zero crossing of g) or "timed" (``at=``)."""
        return "state" if self.at is None else "timed"

    def __repr__(self):
        what = f"at={self.at.tolist()}" if self.at is not None else f"g={getattr(self.g, '__name__', 'g')}"
        return f"Event({what}, direction={self.direction}, terminal={self.terminal}, name={self.name!r})"


def _times(at, label):
    """The sorted event times of ``at`` (a number or a sequence), finite and >= 0."""
    try:
        times = np.array(at, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{label}: at must be a time or a sequence of times [s], got {at!r}") from None
    if times.size == 0 or not np.all(np.isfinite(times)) or np.any(times < 0):
        raise ValueError(f"{label}: at must hold finite times >= 0 [s], got {at!r}")
    return np.sort(times)


def check_events(events):
    """``events`` as a tuple of ``Event`` objects with their names (``event<i>`` by default)."""
    if isinstance(events, Event):
        events = (events,)
    try:
        events = tuple(events or ())
    except TypeError:
        raise TypeError(f"events must be a sequence of Event, got {type(events).__name__}") from None
    for i, e in enumerate(events):
        if not isinstance(e, Event):
            raise TypeError(f"events[{i}] must be an Event, got {type(e).__name__}")
        if e.name is None:
            e.name = f"event{i}"
    names = [e.name for e in events]
    if len(set(names)) != len(names):
        raise ValueError(f"events have the same name twice: {names}")
    return events


def evaluate(event, t, q, u):
    """g(t, q, u) of a state event as a float; an error naming the event if it is not a
    finite number."""
    value = event.g(t, q, u)
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"event {event.name!r}: g returned {type(value).__name__} at t = {t:.9g} s, "
                        f"not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"event {event.name!r}: g is {value} at t = {t:.9g} s")
    return value


def crossed(g0, g1, direction):
    """Whether g went through zero from g0 (at a step's start) to g1 (at its end) in the
    ``direction`` (1 rising, -1 falling, 0 both). A step that starts at g0 = 0 (on the event
    surface, e.g. at the event just handled) crosses nothing."""
    rising = g0 < 0.0 <= g1
    falling = g0 > 0.0 >= g1
    return rising if direction > 0 else falling if direction < 0 else rising or falling


def locate(f, a, b, fa, fb, tol):
    """The time in (a, b] where f crosses zero, within ``tol`` [s]: f(a) = fa and f(b) = fb
    have opposite signs (fb may be 0). Regula falsi with the Illinois modification (the
    value at an end kept twice is halved), each trial kept at least tol / 2 inside the
    bracket so that it shrinks to tol; bisection after 60 trials. Returns (t, f(t)) with t
    the bracket's end on the crossed side, so that f(t) has fb's sign or is 0."""
    side = 0
    for trial in range(200):
        if fb == 0.0 or b - a <= tol:
            break
        if b - a <= 2.0 * tol or trial >= 60:
            c = 0.5 * (a + b)
        else:
            c = b - fb * (b - a) / (fb - fa)
            c = min(max(c, a + 0.5 * tol), b - 0.5 * tol)
        fc = f(c)
        if (fc > 0.0) == (fb > 0.0) or fc == 0.0:  # the crossing is in [a, c]
            b, fb = c, fc
            if side == 1:
                fa *= 0.5
            side = 1
        else:
            a, fa = c, fc
            if side == -1:
                fb *= 0.5
            side = -1
    return b, fb


def apply_action(event, t, q, u):
    """(stop, q_new, u_new) of the event's action at (t, q, u): stop is True for a terminal
    event or an action that returns "stop"; q_new, u_new the state it returns (copies of q, u
    when it returns None). Wrong shapes or non-finite values raise errors naming the event."""
    result = None if event.action is None else event.action(t, q.copy(), u.copy())
    if isinstance(result, str):
        if result != "stop":
            raise ValueError(f"event {event.name!r}: action returned {result!r}; the only word it may "
                             f"return is 'stop'")
        return True, q.copy(), u.copy()
    if result is None:
        return event.terminal, q.copy(), u.copy()
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(f"event {event.name!r}: action must return None, 'stop' or (q_new, u_new), "
                        f"got {type(result).__name__}")
    new = []
    for value, old, what in ((result[0], q, "q_new"), (result[1], u, "u_new")):
        try:
            value = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"event {event.name!r}: action's {what} is not an array of numbers") from None
        if value.shape != old.shape:
            raise ValueError(f"event {event.name!r}: action's {what} has shape {value.shape}, "
                             f"expected {old.shape}")
        if not np.all(np.isfinite(value)):
            i = int(np.flatnonzero(~np.isfinite(value))[0])
            raise ValueError(f"event {event.name!r}: action's {what}[{i}] is {value[i]} at t = {t:.9g} s")
        new.append(value)
    return event.terminal, new[0], new[1]
