"""Progress on stderr for long operations: a bar (simulations, sweeps) and the notice
shown while Numba compiles kernels on their first use."""
import contextlib
import math
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
    """A one-line bar on stderr: ``update(fraction, text)`` redraws it, ``close()`` ends it.

    Its clock starts at the first update, not at its creation: the first update follows
    the first block of work, which carries any one-time cost (a kernel compile, a worker
    starting), so that cost neither shows as progress nor distorts the estimate. The bar
    appears once the work has gone on ``after`` seconds past that first update (work
    that ends sooner prints nothing: a cold run whose steps take 0.2 s after a 10 s
    compile shows the compile notice and no bar), then redraws at most every
    ``interval`` seconds; ``close()`` draws the last state and ends the line.
    ``elapsed`` counts from the bar's creation (the wall time the caller waited), the
    estimate of the time left from the rate since the first update.
    """

    def __init__(self, after=1.0, stream=None, width=30, interval=0.1):
        self.after, self.width, self.interval = after, width, interval
        self.stream = stream or sys.stderr
        self.t0, self.shown = time.perf_counter(), False
        self.first = None  # (wall time, fraction) of the first update: the clock's start
        self.last = None   # (fraction, text) of the latest update
        self.drawn_at = -math.inf  # wall time of the latest redraw
        self.pending = False  # an update not drawn yet (throttled)
        self.drawn_len = 0  # length of the line drawn last

    def update(self, fraction, text=""):
        """Record ``fraction`` (0..1) done and ``text`` after the bar; redraw if due."""
        now = time.perf_counter()
        fraction = min(max(float(fraction), 0.0), 1.0)
        self.last = (fraction, text)
        if self.first is None:
            self.first = (now, fraction)
            return
        if now - self.first[0] < self.after or now - self.drawn_at < self.interval:
            self.pending = self.shown
            return
        self._draw(now)

    def _draw(self, now):
        fraction, text = self.last
        t1, f1 = self.first
        k = int(fraction * self.width)
        eta = (now - t1) * (1 - fraction) / (fraction - f1) if fraction > f1 else float("nan")
        line = f"[{'#' * k}{'.' * (self.width - k)}] {text}  elapsed {now - self.t0:.1f} s  eta {eta:.1f} s"
        self.stream.write("\r" + line.ljust(self.drawn_len))  # blanks over a longer line before
        self.stream.flush()
        self.drawn_len = len(line)
        self.shown, self.drawn_at, self.pending = True, now, False

    def close(self):
        """Draw the latest state if a throttled update is pending and end the bar's line
        (only if the bar was shown)."""
        if self.shown:
            if self.pending:
                self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False
