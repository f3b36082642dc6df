"""Progress on stderr for long operations: a bar (simulations, sweeps) and the notice
shown while Numba compiles kernels on their first use."""
import contextlib
import sys
import threading
import time

__all__ = ["ProgressBar", "compiling_notice"]


@contextlib.contextmanager
def compiling_notice(what="kernels", after=1.0, stream=None):
    """Say "compiling <what> (first run only)" on stderr if the block lasts more than
    ``after`` seconds (a compile, not a load from Numba's cache), and how long it took."""
    stream = stream or sys.stderr
    t0 = time.perf_counter()
    shown = threading.Event()

    def tell():
        shown.set()
        stream.write(f"multibody: compiling {what} (first run only; cached afterwards) ...")
        stream.flush()

    timer = threading.Timer(after, tell)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if shown.is_set():
            stream.write(f" done in {time.perf_counter() - t0:.1f} s\n")
            stream.flush()


class ProgressBar:
    """Shown once an operation has lasted more than ``after`` seconds, so short ones print
    nothing; ``update(fraction, text)`` redraws one line, ``close()`` ends it with a newline.

    The time left is estimated from the rate since the first update (so a compile before
    it, which the first update follows, does not distort the estimate).
    """

    def __init__(self, after=1.0, stream=None, width=30):
        self.after, self.width = after, width
        self.stream = stream or sys.stderr
        self.t0, self.shown = time.perf_counter(), False
        self.first = None  # (wall time, fraction) of the first update

    def update(self, fraction, text=""):
        """Redraw with ``fraction`` (0..1) done and ``text`` after the bar."""
        elapsed = time.perf_counter() - self.t0
        if elapsed < self.after:
            return
        fraction = min(max(fraction, 0.0), 1.0)
        now = time.perf_counter()
        if self.first is None:
            self.first = (now, fraction)
        t1, f1 = self.first
        k = int(fraction * self.width)
        eta = (now - t1) * (1 - fraction) / (fraction - f1) if fraction > f1 else float("nan")
        self.stream.write(f"\r[{'#' * k}{'.' * (self.width - k)}] {text}  elapsed {elapsed:.1f} s  eta {eta:.1f} s")
        self.stream.flush()
        self.shown = True

    def close(self):
        """End the bar's line (only if it was shown)."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
