"""``sweep(client=...)``: chunks of cases as Dask tasks, with per-case timeouts and lost workers.

Each task announces every case as it starts (``Client.log_event`` from the worker, a
round trip to the scheduler, so the event is recorded before the case runs, even one
that kills its worker at once) on a topic of the sweep's own, to which this client
subscribes. The client thus knows which case each task runs, on which worker and
since when:

* ``timeout``: a case that has run longer has its task cancelled and fails
  (``TimeoutError: ...``); the other cases of its chunk go in a new task. Dask cannot
  stop a running call, and a worker whose thread is stuck in one also holds back the
  tasks the scheduler gives it next, so the worker is restarted through its nanny
  (``Client.restart_workers``; Dask moves its other tasks elsewhere). A worker with no
  nanny (it could not come back) is left alone: the call runs on until it returns.
* a lost worker: Dask's scheduler runs a task whose worker died again on another
  worker (its own retry, up to ``distributed.scheduler.allowed-failures`` times). A
  task that starts again before its previous run ended tells the client that the case
  the previous run had started last lost its worker. ``retries`` bounds this: once a
  case has lost more than ``retries`` workers, its task is cancelled, the case fails
  (``WorkerLost: ...``) and the other cases of the chunk go in a new task. A case that
  kills its worker at once may kill one more before that (the scheduler starts the new
  run before the client hears of it). A task that fails as a whole (``KilledWorker``
  once Dask's allowed failures are spent, a case that does not serialize) fails the
  case it was running, the others going in a new task; if none had started, each of its
  cases is tried in a task of its own. Dask also counts the tasks queued on a worker that
  dies: a one-case task it gave up on before the case started is submitted again (up to
  ``_UNSTARTED_TRIES`` times), since no case of it can be blamed.
"""
import queue
import time
import traceback
import uuid

from ._sweep_outputs import run_case

__all__ = ["run_on_dask"]

_POLL = 0.05  # s between looks at the finished tasks, the events and the clocks
_UNSTARTED_TRIES = 3  # a case's tasks lost with their workers before it started, resubmitted


def _task(run, chunk, topic):
    """The Dask task: run a chunk of (index, case), announcing each case; rows (index, ok, value)."""
    from distributed import get_client, get_worker

    worker = get_worker()
    note = {"key": str(worker.get_current_task()), "run": uuid.uuid4().hex, "worker": worker.address}
    client = get_client()
    rows = []
    for i, case in chunk:
        client.log_event(topic, {**note, "case": int(i)})  # waits for the scheduler to have it
        rows.append((i, *run_case(run, case)))
    worker.log_event(topic, {**note, "case": -1})  # this run has ended
    return rows


class _Task:
    """A submitted chunk: its future, its runs (ids in order), the case each run started last."""

    def __init__(self, future, chunk):
        self.future, self.chunk = future, chunk
        self.runs, self.last, self.ended = [], {}, set()
        self.current = None  # (case index, monotonic time it started, worker address)


class _DaskSweep:
    """The client's side: the live tasks by key, the cases' lost workers, the start events."""

    def __init__(self, run, client, collect, timeout, retries):
        from distributed import as_completed

        self.run, self.client, self.collect = run, client, collect
        self.timeout, self.retries = timeout, retries
        self.topic = f"multibody-sweep-{uuid.uuid4().hex}"
        self.events, self.tasks, self.lost, self.restarted = queue.SimpleQueue(), {}, {}, set()
        self.unstarted = {}  # case index -> its tasks Dask gave up on before the case started
        self.finished = as_completed()

    def submit(self, chunk):
        f = self.client.submit(_task, self.run, chunk, self.topic, pure=False)
        self.tasks[str(f.key)] = _Task(f, chunk)
        self.finished.add(f)

    def loop(self):
        """Run every submitted task; return when each case has a row."""
        self.client.subscribe_topic(self.topic, lambda event: self.events.put((time.monotonic(), event[1])))
        while self.tasks:
            while not self.events.empty():
                self._on_event(*self.events.get())
            batch = self.finished.next_batch(block=False)
            for f in batch:
                self._on_finished(f)
            self._expire()
            if not batch:
                time.sleep(_POLL)

    def close(self):
        """Stop listening and cancel the tasks still live."""
        self.client.unsubscribe_topic(self.topic)
        live = [t.future for t in self.tasks.values()]
        self.tasks = {}
        if live:
            self.client.cancel(live)

    def _on_event(self, when, msg):
        task = self.tasks.get(msg["key"])
        if task is None:  # a task cancelled (a call running on after a timeout) or finished
            return
        run_id, i = msg["run"], msg["case"]
        if i < 0:
            task.ended.add(run_id)
            task.current = None
            return
        if run_id not in task.last:
            prev = task.runs[-1] if task.runs else None
            task.runs.append(run_id)
            worker = task.current[2] if task.current else "(unknown)"
            if prev is not None and prev not in task.ended and worker not in self.restarted:
                if self._lost_worker(task, task.last[prev], worker):  # the previous run lost its worker
                    return
        task.last[run_id] = i
        task.current = (i, when, msg["worker"])

    def _lost_worker(self, task, i, worker):
        """Count a worker lost by case ``i``; past ``retries``, fail it and resubmit the others (True)."""
        n = self.lost[i] = self.lost.get(i, 0) + 1
        if n <= self.retries:
            return False  # Dask's new run goes on: the case runs again, on another worker
        self._cancel(task)
        self.collect([(i, False, f"WorkerLost: the Dask worker {worker} was lost while it ran case {i} "
                                 f"(workers lost by this case: {n}; retries={self.retries})")])
        self._resubmit_others(task, i)
        return True

    def _on_finished(self, f):
        key = str(f.key)
        task = self.tasks.get(key)
        if task is None or task.future is not f:
            return
        del self.tasks[key]
        try:
            if f.cancelled():
                raise RuntimeError(f"the Dask task {key} was cancelled outside the sweep")
            rows = f.result()
        except Exception as e:  # noqa: BLE001 (KilledWorker, a case that does not serialize, ...)
            self._task_failed(task, traceback.format_exc(), killed=type(e).__name__ == "KilledWorker")
        else:
            self.collect(rows)
        finally:
            f.release()

    def _task_failed(self, task, text, killed=False):
        """A task failed as a whole: fail the case it ran, resubmit the others; none ran: one task each.

        ``killed``: Dask gave up on the task (``KilledWorker``: its runs lost more workers than
        ``distributed.scheduler.allowed-failures``) before the client had heard of its reruns,
        which a loaded machine can delay: the case it ran lost its workers, and fails as one
        that lost its worker past ``retries`` (the scheduler's text follows)."""
        last = task.runs[-1] if task.runs else None
        culprit = task.last.get(last) if last is not None and last not in task.ended else None
        if culprit is None and len(task.chunk) > 1:
            for item in task.chunk:
                self.submit([item])
            return
        if culprit is None and killed:  # queued on a worker that died: Dask counts it too; none ran
            i = task.chunk[0][0]
            n = self.unstarted[i] = self.unstarted.get(i, 0) + 1
            if n <= _UNSTARTED_TRIES:
                self.submit(task.chunk)
                return
        if killed and culprit is not None:
            worker = task.current[2] if task.current else "(unknown)"
            why = text.strip().splitlines()[-1]
            text = (f"WorkerLost: the Dask worker {worker} was lost while it ran case {culprit}, and Dask gave "
                    f"up on its task (retries={self.retries}); the scheduler said: {why}")
        failed = [i for i, _ in task.chunk if culprit is None or i == culprit]
        self.collect([(i, False, text) for i in failed])
        self._resubmit_others(task, culprit)

    def _expire(self):
        """Cancel the tasks whose current case has outlasted ``timeout``; fail those cases."""
        if not self.timeout:
            return
        now = time.monotonic()
        for task in list(self.tasks.values()):
            if task.current is None or now - task.current[1] <= self.timeout or task.future.done():
                continue
            i, _, worker = task.current
            self._cancel(task)
            fate = ("which was restarted (through its nanny) to stop it" if self._restart(worker) else
                    "which has no nanny to restart it: the call goes on there until it returns")
            self.collect([(i, False, f"TimeoutError: case {i} ran longer than timeout={self.timeout:g} s on "
                                     f"the Dask worker {worker}, {fate}")])
            self._resubmit_others(task, i)

    def _restart(self, worker):
        """Restart ``worker`` through its nanny (Dask cannot stop a running call); False if it has none."""
        if not self.client.scheduler_info()["workers"].get(worker, {}).get("nanny"):
            return False
        self.restarted.add(worker)  # the other tasks it ran start again elsewhere: no case lost it
        self.client.restart_workers([worker], raise_for_error=False)
        return True

    def _cancel(self, task):
        del self.tasks[str(task.future.key)]
        self.client.cancel([task.future])

    def _resubmit_others(self, task, i):
        rest = [item for item in task.chunk if item[0] != i]
        if rest and i is not None:
            self.submit(rest)


def run_on_dask(run, chunks, client, collect, timeout=None, retries=0):
    """Run the chunks of (index, case) as tasks of ``client``; ``collect(rows)`` gets every row.

    Parameters
    ----------
    run : ``run(case)``; Dask serializes it with cloudpickle.
    chunks : lists of (case index, case), one task each.
    client : a ``dask.distributed.Client``.
    collect : called with a list of rows ``(index, ok, value)`` as tasks end.
    timeout : seconds a case may run (from its start on a worker), or None.
    retries : how many workers a case may lose and still be run again.
    """
    sweep = _DaskSweep(run, client, collect, timeout, int(retries))
    try:
        for chunk in chunks:
            sweep.submit(chunk)
        sweep.loop()
    finally:
        sweep.close()
