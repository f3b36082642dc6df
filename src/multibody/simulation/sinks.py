"""Result sinks: where an integrator puts the states of the steps it takes.

A sink has ``initialize(t, q, u)`` (called once with the initial state) and
``process(t, q, u)`` (called with each stored sample); ``process_block(T, Q, U)``
receives many samples at once (the compiled loop hands them over in blocks).
"""
import numpy as np

__all__ = ["OdeResultsSink", "ExpandingStorage", "RingBufferStorage", "GridRows", "GRID_SLACK"]

#: how far [in output intervals] a sample may lie from an output time and still be its row
#: (rounding: a run cut by events computes its times from the event's, t* + k dt)
GRID_SLACK = 1e-9


class OdeResultsSink:
    """Base class of result sinks; subclasses implement ``initialize`` and ``process``."""

    def initialize(self, t, q, u):
        """Receive the initial state (time [s], q (nq,), u (nu,))."""

    def process(self, t, q, u):
        """Receive one sample."""
        raise NotImplementedError

    def process_block(self, T, Q, U):
        """Receive samples T (n,), Q (n, nq), U (n, nu); default: ``process`` each row."""
        for k in range(T.shape[0]):
            self.process(T[k], Q[k], U[k])


class _StoredRows:
    """``t``, ``q``, ``u``: views of the first ``n`` rows of the arrays ``_T``, ``_Q``, ``_U``."""

    @property
    def t(self):
        return self._T[:self.n]

    @property
    def q(self):
        return self._Q[:self.n]

    @property
    def u(self):
        return self._U[:self.n]


class ExpandingStorage(_StoredRows, OdeResultsSink):
    """Stores every sample in arrays that grow (doubling) as needed.

    ``t`` (n,), ``q`` (n, nq), ``u`` (n, nu) are views of the samples stored so far.
    """

    def __init__(self, nq, nu, capacity=1024):
        self._T = np.empty(max(int(capacity), 1))
        self._Q = np.empty((self._T.shape[0], nq))
        self._U = np.empty((self._T.shape[0], nu))
        self.n = 0

    def reserve(self, extra):
        """Make room for ``extra`` more samples (so that a known run does not regrow)."""
        need = self.n + extra
        if need > self._T.shape[0]:
            cap = max(need, 2 * self._T.shape[0])
            for name in ("_T", "_Q", "_U"):
                old = getattr(self, name)
                new = np.empty((cap,) + old.shape[1:])
                new[:self.n] = old[:self.n]
                setattr(self, name, new)

    def initialize(self, t, q, u):
        self.n = 0
        self.process(t, q, u)

    def process(self, t, q, u):
        self.reserve(1)
        self._T[self.n] = t
        self._Q[self.n] = q
        self._U[self.n] = u
        self.n += 1

    def process_block(self, T, Q, U):
        k = T.shape[0]
        self.reserve(k)
        self._T[self.n:self.n + k] = T
        self._Q[self.n:self.n + k] = Q
        self._U[self.n:self.n + k] = U
        self.n += k


class GridRows(_StoredRows, OdeResultsSink):
    """Keeps the samples that fall on given output times ``times`` (n,) [s], one row each:
    a rollout sample's rows when events cut its run (the samples an event adds at its own
    time are dropped; its ``EventRecord`` holds them). A row takes the first sample within
    2 ``GRID_SLACK`` output intervals of its time (an event's sample there comes before the
    state its action makes). ``t``, ``q``, ``u``: the rows up to the last one filled; rows
    not reached are NaN."""

    def __init__(self, times, nq, nu):
        self.times = self._T = np.asarray(times, dtype=float)
        self._Q = np.full((self.times.size, nq), np.nan)
        self._U = np.full((self.times.size, nu), np.nan)
        self._filled = np.zeros(self.times.size, dtype=bool)
        self._interval = float(self.times[1] - self.times[0]) if self.times.size > 1 else 1.0
        self.n = 0  # rows up to the last one filled

    def initialize(self, t, q, u):
        self.process(t, q, u)

    def process(self, t, q, u):
        slack = 2.0 * GRID_SLACK * self._interval  # (SegmentedRun goes back to the grid past GRID_SLACK)
        k = int(np.searchsorted(self.times, t - slack))
        if k < self.times.size and not self._filled[k] and abs(self.times[k] - t) <= slack:
            self._Q[k], self._U[k], self._filled[k] = q, u, True
            self.n = max(self.n, k + 1)


class RingBufferStorage(OdeResultsSink):
    """Keeps only the last ``capacity`` samples (memory bounded for endless runs).

    ``t``, ``q``, ``u`` return the kept samples in time order (copies);
    ``total`` counts every sample ever processed.
    """

    def __init__(self, nq, nu, capacity):
        capacity = int(capacity)
        if capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        self._T = np.empty(capacity)
        self._Q = np.empty((capacity, nq))
        self._U = np.empty((capacity, nu))
        self.total = 0

    @property
    def capacity(self):
        return self._T.shape[0]

    def initialize(self, t, q, u):
        self.total = 0
        self.process(t, q, u)

    def process(self, t, q, u):
        i = self.total % self.capacity
        self._T[i] = t
        self._Q[i] = q
        self._U[i] = u
        self.total += 1

    def process_block(self, T, Q, U):
        k = T.shape[0]
        if k >= self.capacity:
            T, Q, U = T[-self.capacity:], Q[-self.capacity:], U[-self.capacity:]
            self.total += k - self.capacity
            k = self.capacity
        i = self.total % self.capacity
        first = min(k, self.capacity - i)
        for dst, src in ((self._T, T), (self._Q, Q), (self._U, U)):
            dst[i:i + first] = src[:first]
            dst[:k - first] = src[first:]
        self.total += k

    def _ordered(self, a):
        n = min(self.total, self.capacity)
        if self.total <= self.capacity:
            return a[:n].copy()
        i = self.total % self.capacity
        return np.concatenate([a[i:], a[:i]])

    @property
    def t(self):
        return self._ordered(self._T)

    @property
    def q(self):
        return self._ordered(self._Q)

    @property
    def u(self):
        return self._ordered(self._U)


class GuardedOutputs(OdeResultsSink):
    """The sink of a ``simulate`` run: each sample goes to memory, then to the results file
    (``writer``, if any), in a section no signal splits (``RunSignals.deferred``)."""

    def __init__(self, store, writer, signals):
        self.sinks = (store,) if writer is None else (store, writer)
        self.signals = signals

    def initialize(self, t, q, u):
        with self.signals.deferred():
            for s in self.sinks:
                s.initialize(t, q, u)

    def process(self, t, q, u):
        with self.signals.deferred():
            for s in self.sinks:
                s.process(t, q, u)

    def process_block(self, T, Q, U):
        with self.signals.deferred():
            for s in self.sinks:
                s.process_block(T, Q, U)
