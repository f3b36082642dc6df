"""rollout's own-run samples on threads (issue 23): generalized_alpha and radau rollouts, and
contact rollouts of models with loops or modal bodies, run each sample's own integrator on
worker threads (``simulation.sample_runs``; the compiled loops release the GIL).

Each sample equals its own ``simulate`` run and its serial rollout (one worker) bit for bit,
on a pin chain, the four-bar loop and a modal beam; a sample whose run fails keeps the
serial rollout's status, time and rows; one whose run raises is named by a SampleFailure
that carries every sample's results; an interrupted rollout leaves no worker running.
"""
import signal
import sys
import threading
from pathlib import Path

import numba
import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes
from multibody.kernels.status import FINISHED, RUNNING
from multibody.simulation import contact_loop as CL
from multibody.simulation import galpha_loop as GL
from multibody.simulation import radau_loop as RL
from multibody.simulation import sample_runs as SR
from multibody.simulation.galpha import GeneralizedAlphaIntegrator

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import closed_start, four_bar  # noqa: E402  (the example's model)

sys.path.pop(0)

GA = "generalized_alpha"
RADAU = dict(rtol=1e-7, atol=1e-9)  # (passed to rollout and simulate alike)


def chain():
    """Three pin links, a tree."""
    m = mb.Multibody("chain")
    m.add_serial_chain("l", 3, kind="pin")
    return m


def beam_pendulum():
    """A 1 m beam with 2 clamped modes on a pin about y (a modal body)."""
    m = mb.Multibody("beam pendulum")
    beam = m.add_modal_body("beam", modal_data=beam_modes(1.0, 5.0, 1.0, n_elements=10, n_modes=2))
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return m


def samples(kind):
    """(model, Q0 (4, nq), U0 (4, nu), t_final) of four samples of a model ``kind``."""
    rng = np.random.default_rng(3)
    if kind == "chain":
        m = chain()
        return m, rng.uniform(-1, 1, (4, m.nq)), rng.uniform(-1, 1, (4, m.nu)), 0.6
    if kind == "loop":
        m = four_bar()
        q0, u0 = closed_start(m)
        return m, np.array([q0] * 4), np.array([u0 * s for s in (1.0, 1.3, 0.7, -1.0)]), 0.3
    m = beam_pendulum()
    Q0 = np.zeros((4, m.nq))
    Q0[:, 0] = (0.0, 0.3, -0.5, 1.0)
    return m, Q0, np.zeros((4, m.nu)), 0.3


@pytest.fixture
def threads(monkeypatch):
    """workers(n): rollout's own-run samples go on n threads; ``names`` the threads that ran."""
    names = []
    run = SR._run

    def spy(times, integ, stop):
        names.append(threading.current_thread().name)
        return run(times, integ, stop)

    monkeypatch.setattr(SR, "_run", spy)

    def workers(n):
        monkeypatch.setattr(numba, "get_num_threads", lambda: n)
        names.clear()
        return names

    return workers


def _rollout(m, Q0, U0, t_final, integrator, **kw):
    extra = RADAU if integrator == "radau" else {}
    return mb.rollout(m, Q0, U0, t_final, dt=1e-3, integrator=integrator, progress=False, **extra, **kw)


@pytest.mark.parametrize("integrator", [GA, "radau"])
@pytest.mark.parametrize("kind", ["chain", "loop", "modal"])
def test_threaded_samples_equal_their_serial_and_simulate_runs(threads, kind, integrator):
    """B = 4 samples on 4 threads: each sample's t, q, u are its simulate run's and the
    one-worker rollout's, bit for bit (over 300+ rows: several blocks of rows per run)."""
    m, Q0, U0, t_final = samples(kind)
    names = threads(4)
    out = _rollout(m, Q0, U0, t_final, integrator)
    assert len(names) >= 3 and all(n.startswith(SR.THREAD_PREFIX) for n in names[-3:])  # (the first may compile)
    assert np.all(out.status == FINISHED) and out.q.shape[1] > SR.BLOCK_ROWS
    names = threads(1)
    serial = _rollout(m, Q0, U0, t_final, integrator)
    assert not any(n.startswith(SR.THREAD_PREFIX) for n in names)
    assert np.array_equal(out.t, serial.t) and np.array_equal(out.q, serial.q) and np.array_equal(out.u, serial.u)
    extra = RADAU if integrator == "radau" else {}
    for b in range(4):
        one = mb.simulate(m, Q0[b], U0[b], t_final, dt=1e-3, integrator=integrator, **extra)
        assert np.array_equal(out.t, one.t)
        assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)


def test_a_failing_sample_is_kept_as_the_serial_rollout_keeps_it(threads):
    """Sample 2 of a chain under generalized_alpha starts with speeds that overflow its
    dynamics: its status, failure time and rows (NaN after the failure) are the serial
    rollout's, and the other samples finish as their simulate runs."""
    m, Q0, U0, t_final = samples("chain")
    U0[2] = 1e160
    threads(4)
    out = _rollout(m, Q0, U0, t_final, GA)
    threads(1)
    serial = _rollout(m, Q0, U0, t_final, GA)
    assert list(out.failed) == [2] and out.status[2] == serial.status[2] != FINISHED
    assert np.isfinite(out.t_failure[2]) and out.t_failure[2] == serial.t_failure[2]
    assert np.isnan(out.q[2, -1]).all()
    assert np.array_equal(out.q, serial.q, equal_nan=True) and np.array_equal(out.u, serial.u, equal_nan=True)
    for b in (0, 1, 3):
        one = mb.simulate(m, Q0[b], U0[b], t_final, dt=1e-3, integrator=GA)
        assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)


def test_a_sample_that_raises_is_named_and_every_result_kept(threads, monkeypatch):
    """A sample whose run raises (here after its first block of rows) is named by a
    SampleFailure raised once every sample ran: its rows up to there are its simulate
    run's, its status RUNNING; the other samples' results are whole."""
    m, Q0, U0, t_final = samples("chain")
    U0[1] = 0.25  # (the marked sample)
    integrate = GeneralizedAlphaIntegrator.integrate

    def failing(self, *args, **kwargs):
        if np.all(self.u == 0.25) and self.t == 0.0:
            def boom(_):
                raise RuntimeError("boom")
            kwargs["after_block"] = boom
        return integrate(self, *args, **kwargs)

    monkeypatch.setattr(GeneralizedAlphaIntegrator, "integrate", failing)
    threads(2)
    with pytest.raises(SR.SampleFailure, match=r"sample 1 raised RuntimeError: boom") as info:
        _rollout(m, Q0, U0, t_final, GA)
    monkeypatch.setattr(GeneralizedAlphaIntegrator, "integrate", integrate)
    err = info.value
    assert err.sample == 1 and isinstance(err.__cause__, RuntimeError)
    res = err.result
    assert list(res.failed) == [1] and res.status[1] == RUNNING
    k = SR.BLOCK_ROWS + 1  # (the initial row and its first block)
    assert res.t_failure[1] == res.t[k - 1] and np.isnan(res.q[1, k:]).all()
    for b in range(4):
        one = mb.simulate(m, Q0[b], U0[b], t_final, dt=1e-3, integrator=GA)
        rows = k if b == 1 else len(one.t)
        assert np.array_equal(res.q[b, :rows], one.q[:rows]) and np.array_equal(res.u[b, :rows], one.u[:rows])


def test_an_interrupt_stops_every_worker_before_it_propagates():
    """KeyboardInterrupt in the waiting thread (SIGINT sent to it once a run started) sets
    the runs' stop event, drops the runs not started and propagates only once no worker
    thread is left; a sample's run stops at its next block of rows."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    main = threading.main_thread().ident
    seen = []
    before = signal.signal(signal.SIGINT, signal.default_int_handler)

    def run(item, stop):
        if item == 0:
            signal.pthread_kill(main, signal.SIGINT)
        seen.append(stop.wait(10.0))  # (True: stopped; False only if nothing stopped it)

    try:
        with pytest.raises(KeyboardInterrupt):
            SR.run_all(list(range(8)), run, 2)
    finally:
        signal.signal(signal.SIGINT, before)
    assert seen and all(seen) and len(seen) < 8
    assert not [t for t in threading.enumerate() if t.name.startswith(SR.THREAD_PREFIX)]
    m, Q0, U0, t_final = samples("chain")
    integ = GeneralizedAlphaIntegrator(m, Q0[0], U0[0])
    stop = threading.Event()
    stop.set()
    with pytest.raises(SR._Stopped):
        SR._run((t_final, 1e-3, 1), integ, stop)
    assert len(integ.sink.t) == SR.BLOCK_ROWS + 1


def test_the_loops_that_samples_run_on_threads_release_the_gil():
    """Every variant of the generalized-alpha, Radau and contact loops is compiled nogil (the
    threads of an own-run rollout would otherwise take turns)."""
    flags = [(a, b, c, d) for a in (0, 1) for b in (0, 1) for c in (0, 1) for d in (0, 1)]
    entries = [GL.galpha_entry_point(*f) for f in flags] + [RL.radau_entry_point(*f) for f in flags]
    entries += [CL.contact_entry_point(*f) for f in flags if not (f[3] and (f[0] or f[2]))]
    assert len({id(e) for e in entries}) >= 20
    assert all(e.targetoptions.get("nogil") is True for e in entries)
