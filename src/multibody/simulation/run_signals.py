"""Signals during a run: SIGINT and SIGTERM end it between two blocks of samples, never in
the middle of one being handed to the sinks, so that its results file is whole."""
import signal
import threading
from contextlib import contextmanager

from .failures import SimulationTerminated

__all__ = ["RunSignals"]


class RunSignals:
    """Handlers of SIGINT and SIGTERM for the duration of a run (``with RunSignals() as s``).

    Installed only in the main thread and only where the signal's handler is Python's
    default (``default_int_handler`` for SIGINT, ``SIG_DFL`` for SIGTERM): a program's own
    handlers are left alone. The previous handlers are restored on exit. SIGINT raises
    ``KeyboardInterrupt`` and SIGTERM ``SimulationTerminated`` where the run is, except
    inside ``with s.deferred():`` (samples being handed to memory and file): a signal
    arriving there is raised when the block has been handed over. After ``hold()`` (the
    loop has ended; the file is being finished) a signal is only kept ``pending``:
    ``late(err)`` gives its exception (also one that arrived while another exception
    was leaving a deferred section).
    """

    def __init__(self):
        self._previous = {}
        self._depth = 0
        self.pending = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
                if signal.getsignal(sig) is default:
                    self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        self._depth = 0
        while self._previous:
            sig, handler = self._previous.popitem()
            signal.signal(sig, handler)
        return False

    @staticmethod
    def exception(signum):
        """The exception signal ``signum`` raises during a run."""
        return KeyboardInterrupt() if signum == signal.SIGINT else SimulationTerminated(signum)

    def _handle(self, signum, frame):
        if self._depth:
            self.pending = signum
        else:
            raise self.exception(signum)

    @contextmanager
    def deferred(self):
        """A section no signal interrupts: one that arrives is raised at its end instead."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        if not self._depth and self.pending is not None:
            signum, self.pending = self.pending, None
            raise self.exception(signum)

    def hold(self):
        """From now on until the handlers are restored, a signal is only kept ``pending``."""
        self._depth += 1

    def late(self, err):
        """``err``, or the exception of a signal still pending (``err`` as its context)."""
        if self.pending is None:
            return err
        exc, self.pending = self.exception(self.pending), None
        exc.__context__ = err
        return exc
