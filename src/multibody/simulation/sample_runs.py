"""``rollout``'s samples that each run their own integrator (generalized_alpha, radau, and
contact on models with enabled constraints or modal bodies), on threads at once (issue 23).

The compiled loops of these integrators release the GIL (their entry functions are compiled
``nogil``: ``galpha_loop``, ``radau_loop``, ``contact_loop``), so W worker threads step W
samples at the same time. Each sample has its own integrator, made in the calling thread
(the initial states are read in the charts of that thread's default Data): its own data
buffer, work arrays (constraint, contact, Newton), state, clock, counters and output sink;
the samples share only the model's arrays and the run's options, which the loops read and
never write. A sample's run is the call its serial run makes (``integrate`` with the same
step, output interval and stride), in blocks of rows that the loops resume exactly, so its
result is bit for bit its own serial run's and ``simulate``'s, whichever thread ran it and
whatever ran beside it.

Failures: a sample whose run stops (``SimulationError``) keeps its rows up to there, its
status and time (``RolloutResult``), as the serial rollout kept them. A sample whose run
raises anything else (an ``Exception``) keeps its rows too (status RUNNING: it did not end,
t_failure the time it reached), the others run on, and once all have run ``SampleFailure``
names it (the first such, and the others), every sample's results on it, the exception its
cause. KeyboardInterrupt (or any error of the waiting thread) drops the samples not started
and stops the running ones at their next block of rows; it propagates once no worker runs.
"""
import contextlib
import functools
import signal
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from ..kernels.status import FINISHED, RUNNING, Status
from . import kernels as K
from .failures import SimulationError
from .segments import SegmentedRun
from .sinks import GridRows

__all__ = ["SampleFailure", "own_runs", "run_all", "BLOCK_ROWS", "THREAD_PREFIX"]

#: output rows a sample's run writes per compiled call; between two it looks whether to stop
BLOCK_ROWS = 256

#: the name prefix of the worker threads
THREAD_PREFIX = "multibody-rollout"


class SampleFailure(SimulationError):
    """A rollout sample's run raised an exception other than ``SimulationError`` (which its
    status reports): ``sample`` its index, ``result`` every sample's results (a
    ``RolloutResult`` from ``rollout``), the exception its ``__cause__``."""

    def __init__(self, message, sample, result=None):
        super().__init__(message, result=result)
        self.sample = sample


class _Stopped(Exception):
    """A sample's run stopped between two blocks: the waiting thread was interrupted."""


def own_runs(m, states, times, inputs, method, workers, events=None):
    """(t, Q, U, status, t_failure, event records) of the samples ``states`` = (Q0 (B, nq),
    U0 (B, nu), tau (B, nu)), each a run of ``method`` = (integrator class, its keyword
    options) of model ``m`` with the force models of ``inputs`` (``RunInputs``, attached to
    each) from t = 0, ``times`` = (t_final, dt, save_every), on ``workers`` threads (module
    docstring). ``events``: None, or (events, event_tol) watched in each sample's run
    (``segments.SegmentedRun``; its rows on the output grid, ``sinks.GridRows``)."""
    Q0, U0, tau = states
    cls, options = method
    integs, grid = [], _output_times(times)
    for b in range(Q0.shape[0]):  # (in this thread: the initial states are in its charts)
        integ = cls(m, Q0[b], U0[b], tau=tau[b], forces=inputs.forces, **options)
        inputs.attach(integ)
        if events is not None:
            integ = SegmentedRun(integ, None, events=events[0], event_tol=events[1])  # (make None: the model is shared)
            integ.sink = GridRows(grid, m.compiled.nq, m.compiled.nu)
        integs.append(integ)
    run = functools.partial(_run, times)
    # a first run compiles (or loads) the loop: one sample alone then, under one notice
    first = [] if _loop_ready(integs[0]) else [_outcome(run, integs[0], threading.Event())]
    outcomes = first + run_all(integs[len(first):], run, workers)
    out = _collect(m.compiled, integs, outcomes, times)
    raised = [b for b, e in enumerate(outcomes) if e is not None and not isinstance(e, SimulationError)]
    if raised:
        b, e = raised[0], outcomes[raised[0]]
        more = f"; samples {raised[1:]} raised too" if len(raised) > 1 else ""
        raise SampleFailure(f"rollout: the run of sample {b} raised {type(e).__name__}: {e}{more} (every sample's "
                            f"results are on this error's result)", b, out) from e
    return out


def run_all(items, run, workers):
    """[None, or the Exception that ``run(item, stop)`` raised, for each item], the runs on
    ``workers`` threads (in this one for a single worker or item); ``stop`` a
    threading.Event set when the waiting thread is interrupted, for the runs to end early."""
    stop = threading.Event()
    if workers <= 1 or len(items) <= 1:
        return [_outcome(run, item, stop) for item in items]
    pool = ThreadPoolExecutor(min(workers, len(items)), thread_name_prefix=THREAD_PREFIX)
    try:
        with _sigint_deferred():  # (interrupted inside submit, a started worker would go unjoined)
            futures = [pool.submit(_outcome, run, item, stop) for item in items]
        wait(futures)
    except BaseException:  # (KeyboardInterrupt: no worker may run on after it propagates)
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [f.result() for f in futures]


@contextlib.contextmanager
def _sigint_deferred():
    """SIGINT held back from this thread inside the block (and from the threads it starts,
    which keep the mask: a KeyboardInterrupt then always reaches the waiting thread); where
    the platform cannot mask signals, nothing."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    old = mask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


def _outcome(run, item, stop):
    """None, or the Exception ``run(item, stop)`` raised (its item's, reported by index)."""
    try:
        run(item, stop)
    except Exception as e:  # noqa: BLE001 (any error of one sample's run is that sample's)
        return e
    return None


def _loop_ready(integ):
    """Whether the compiled loop ``integ`` runs is compiled or loaded in this process."""
    c = integ.model.compiled
    run, _ = integ.loop_call(np.empty(1), np.empty((1, c.nq)), np.empty((1, c.nu)))
    return bool(run.signatures)


def _run(times, integ, stop):
    """One sample's run: ``integ.integrate`` as the serial rollout calls it, in blocks of
    BLOCK_ROWS rows, raising _Stopped between two once ``stop`` is set."""
    t_final, dt, save_every = times

    def check(_):
        if stop.is_set():
            raise _Stopped("stopped: the rollout was interrupted")

    if integ.adaptive:  # (an adaptive run, radau's, writes every output interval: save_every steps of dt)
        integ.integrate(t_final, dt * save_every, block=BLOCK_ROWS, after_block=check)
    else:
        integ.integrate(t_final, dt, save_every=save_every, block=BLOCK_ROWS, after_block=check)


def _output_times(times):
    """The output times of a run from t = 0, ``times`` = (t_final, dt, save_every)."""
    t_final, dt, save_every = times
    n_steps = int(np.ceil(t_final / dt - 1e-9))
    n_rows = n_steps // save_every + (1 if n_steps % save_every else 0)
    T = np.minimum(np.arange(n_rows + 1) * dt * save_every, t_final)
    T[-1] = t_final
    return T


def _collect(c, integs, outcomes, times):
    """(t, Q, U, status, t_failure, event records) from the samples' integrators ``integs``
    after their runs (``outcomes``: None or the exception each raised); rows a sample did not
    reach are NaN."""
    B = len(integs)
    T = _output_times(times)
    n_rows = T.size - 1
    QO = np.full((B, n_rows + 1, c.nq), np.nan)
    UO = np.full((B, n_rows + 1, c.nu), np.nan)
    status = np.full(B, FINISHED, dtype=np.int64)
    t_failure = np.full(B, np.nan)
    for b, (integ, e) in enumerate(zip(integs, outcomes)):
        if isinstance(e, SimulationError):
            status[b] = Status(int(integ.ctr[K.C_STATUS]))
            t_failure[b] = float(integ.clk[K.K_TBAD])
        elif e is not None:  # it raised: the time it reached
            status[b] = RUNNING
            t_failure[b] = integ.t
        k = len(integ.sink.t)
        QO[b, :k], UO[b, :k] = integ.sink.q, integ.sink.u
        if status[b] == FINISHED and k == n_rows + 1:
            T = integ.sink.t.copy()  # the output times as the loop wrote them
    return T, QO, UO, status, t_failure, tuple(tuple(getattr(integ, "records", ())) for integ in integs)
