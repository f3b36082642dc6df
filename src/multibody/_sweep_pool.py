"""The local process pool of ``sweep(processes=N)``: N worker processes that survive their cases.

``concurrent.futures.ProcessPoolExecutor`` breaks the whole pool when one worker dies
and cannot stop a case that hangs. Here each worker is a ``multiprocessing`` process
("spawn" start method: no fork of a process whose Numba threads run) with a pipe of
its own and at most one chunk of cases in flight; it sends one message per case
as the case ends. The parent thus always knows which case a worker holds and since
when, and so:

* a case that outlasts ``timeout`` seconds has its worker killed and a new one
  started; it fails with ``TimeoutError: ...``; the rest of its chunk runs elsewhere;
* a worker that dies (``os._exit``, a segfault, the OOM killer) fails only the case it
  held (``WorkerLost: ...``), or runs it again on another worker while the case has
  lost fewer than ``retries + 1`` workers;
* the workers stop with the parent: they ignore SIGINT (Ctrl-C is the parent's, which
  then terminates them), and a thread in each ends it within a second once the parent
  is gone, however it went (SIGTERM, SIGKILL, a crash): it waits on the pipe the spawn
  start method keeps open from the parent (``multiprocessing.parent_process()``) and
  checks the parent pid.
"""
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections import deque
from multiprocessing.connection import wait

from ._sweep_outputs import run_case

__all__ = ["run_in_pool"]

_POLL = 0.5  # s: the longest the parent waits before looking at the clocks again
_STARTUP_DEATHS = 3  # workers dying before they are ready, in a row, that end the sweep


def _watch_parent():
    """Start a daemon thread that ends this process as soon as its parent is gone."""
    parent, ppid = multiprocessing.parent_process(), os.getppid()

    def watch():
        while os.getppid() == ppid and (parent is None or parent.is_alive()):
            if parent is not None:
                parent.join(1.0)  # returns at once when the parent's end of the pipe closes
            else:
                time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="multibody-sweep-parent-watch", daemon=True).start()


def _worker_main(conn, run_bytes):
    """A worker's life: load ``run``, then run each chunk the parent sends, one message per case."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal reaches the whole group
    _watch_parent()
    try:
        run = pickle.loads(run_bytes)
    except Exception:  # noqa: BLE001 (reported to the parent, which fails every case with it)
        conn.send(("error", traceback.format_exc()))
        return
    conn.send(("ready", os.getpid()))
    while True:
        try:
            chunk = pickle.loads(conn.recv_bytes())
        except EOFError:
            return
        if chunk is None:
            return
        for i, case in chunk:
            ok, value = run_case(run, case)
            try:
                conn.send(("case", i, ok, value))
            except Exception:  # noqa: BLE001 (an output that does not pickle)
                conn.send(("case", i, False, traceback.format_exc()))


class _Worker:
    """One worker process, its pipe and the chunk it holds (``pos``: the case running, since ``since``)."""

    def __init__(self, ctx, run_bytes):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, run_bytes), name="multibody-sweep-worker")
        self.proc.start()
        child.close()
        self.ready, self.chunk, self.pos, self.since = False, None, 0, 0.0

    def held(self):
        """The (index, case) the worker is running, or None."""
        return None if self.chunk is None else self.chunk[self.pos]

    def exit_text(self):
        self.proc.join(1.0)
        code = self.proc.exitcode
        if code is None:
            return "is unresponsive"
        return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"


class _Pool:
    """The parent's side: a queue of chunks, the workers, the clocks; ``collect`` gets the rows."""

    def __init__(self, run, processes, collect, timeout, retries):
        self.ctx = multiprocessing.get_context("spawn")
        self.run_bytes = pickle.dumps(run)
        self.size, self.collect, self.timeout, self.retries = processes, collect, timeout, retries
        self.queue, self.workers, self.lost = deque(), [], {}
        self.startup_deaths, self.fatal = 0, None

    def loop(self):
        """Run every queued chunk; return when each case has a row."""
        while self.fatal is None and (self.queue or any(w.chunk is not None for w in self.workers)):
            self._top_up()
            self._assign()
            ends = {}
            for w in self.workers:
                ends[w.conn], ends[w.proc.sentinel] = w, w
            for ready in wait(list(ends), timeout=self._wait_time()):
                w = ends[ready]
                if w in self.workers:
                    self._receive(w) if ready is w.conn else self._died(w)
            self._expire()
        if self.fatal is not None:
            self._fail_all()

    def _top_up(self):
        """Start workers while there are fewer than ``size`` and more chunks than idle workers."""
        idle = sum(w.chunk is None for w in self.workers)
        while len(self.workers) < self.size and len(self.queue) > idle:
            self.workers.append(_Worker(self.ctx, self.run_bytes))
            idle += 1

    def _assign(self):
        for w in self.workers:
            while w.ready and w.chunk is None and self.queue:
                chunk, data = self._encode(self.queue.popleft())
                if not chunk:
                    continue
                try:
                    w.conn.send_bytes(data)
                except OSError:  # the worker is gone: the chunk goes back, its death is seen next
                    self.queue.appendleft(chunk)
                    break
                w.chunk, w.pos, w.since = chunk, 0, time.monotonic()

    def _encode(self, chunk):
        """(the cases of ``chunk`` that pickle, their pickle); the others fail with the pickling error."""
        try:
            return chunk, pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 (one case that does not pickle must not sink the chunk)
            good = []
            for item in chunk:
                try:
                    pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
                    good.append(item)
                except Exception:  # noqa: BLE001
                    self.collect([(item[0], False, traceback.format_exc())])
            return (good, pickle.dumps(good, protocol=pickle.HIGHEST_PROTOCOL)) if good else (good, None)

    def _wait_time(self):
        clocks = [w.since + self.timeout for w in self.workers if w.chunk is not None] if self.timeout else []
        return _POLL if not clocks else min(_POLL, max(0.0, min(clocks) - time.monotonic()))

    def _receive(self, w):
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            return self._died(w)
        self._handle(w, msg)

    def _drain(self, w):
        """Handle what ``w`` has sent and not been read (the rows a dead worker sent before dying)."""
        while True:
            try:
                if not w.conn.poll():
                    return
                msg = w.conn.recv()
            except (EOFError, OSError):
                return
            self._handle(w, msg)

    def _handle(self, w, msg):
        if msg[0] == "case":
            self.collect([msg[1:]])
            w.pos, w.since = w.pos + 1, time.monotonic()
            if w.pos == len(w.chunk):
                w.chunk = None
        elif msg[0] == "ready":
            w.ready, self.startup_deaths = True, 0
        else:  # "error": run does not load in a worker; no case can run
            self.fatal = msg[1]

    def _died(self, w):
        """A worker's process ended: keep what it sent, fail or requeue the case it held."""
        self._drain(w)
        self._drop(w)
        why = f"the worker process (pid {w.proc.pid}) {w.exit_text()}"
        if not w.ready:
            self.startup_deaths += 1
            if self.startup_deaths >= _STARTUP_DEATHS and self.fatal is None:
                self.fatal = f"WorkerLost: {self.startup_deaths} worker processes in a row died on start: {why}"
        held = w.held()
        if held is None:
            return
        self._requeue_rest(w)
        n_lost = self.lost[held[0]] = self.lost.get(held[0], 0) + 1
        if n_lost <= self.retries:
            self.queue.append([held])  # run again, on another worker
        else:
            self.collect([(held[0], False, f"WorkerLost: {why} while it ran case {held[0]} "
                                           f"(workers lost by this case: {n_lost}; retries={self.retries})")])

    def _expire(self):
        """Kill the workers whose case has outlasted ``timeout``; fail those cases."""
        if not self.timeout:
            return
        now = time.monotonic()
        for w in [w for w in self.workers if w.chunk is not None and now - w.since > self.timeout]:
            self._drain(w)  # a case that ended just now is not killed
            if w.chunk is None or now - w.since <= self.timeout:
                continue
            i = w.held()[0]
            self._drop(w)
            w.proc.kill()
            w.proc.join(5.0)
            self._requeue_rest(w)
            self.collect([(i, False, f"TimeoutError: case {i} ran longer than timeout={self.timeout:g} s; "
                                     f"its worker process (pid {w.proc.pid}) was killed")])

    def _requeue_rest(self, w):
        rest = w.chunk[w.pos + 1:]
        if rest:
            self.queue.appendleft(rest)

    def _drop(self, w):
        self.workers.remove(w)
        w.conn.close()

    def _fail_all(self):
        """Fail every case not finished with the fatal text (``run`` does not load, workers die on start)."""
        rows = [(i, False, self.fatal) for w in self.workers if w.chunk for i, _ in w.chunk[w.pos:]]
        rows += [(i, False, self.fatal) for chunk in self.queue for i, _ in chunk]
        self.queue.clear()
        for w in self.workers:
            w.chunk = None
        self.collect(rows)

    def close(self):
        """Stop every worker: idle ones are asked to end, busy or unready ones terminated; none outlives this."""
        for w in self.workers:
            try:
                if w.ready and w.chunk is None:
                    w.conn.send_bytes(pickle.dumps(None))
                else:
                    w.proc.terminate()
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 2.0
        for w in self.workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            if w.proc.exitcode is None:
                w.proc.kill()
                w.proc.join(1.0)
            w.conn.close()
        self.workers = []


def run_in_pool(run, chunks, processes, collect, timeout=None, retries=0):
    """Run the chunks of (index, case) on ``processes`` local workers; ``collect(rows)`` gets every row.

    Parameters
    ----------
    run : the picklable ``run(case)``.
    chunks : lists of (case index, case), each sent to one worker at a time.
    processes : the number of workers.
    collect : called with a list of rows ``(index, ok, value)`` as cases end.
    timeout : seconds a case may run (from the moment its worker takes it), or None.
    retries : how many more times a case whose worker died is run.
    """
    pool = _Pool(run, int(processes), collect, timeout, int(retries))
    pool.queue.extend(chunks)
    try:
        pool.loop()
    finally:
        pool.close()
