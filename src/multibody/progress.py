"""A text progress bar on stderr for long operations (simulations, sweeps)."""
import sys
import time

__all__ = ["ProgressBar"]


class ProgressBar:
    """Shown once an operation has lasted more than ``after`` seconds, so short ones print
    nothing; ``update(fraction, text)`` redraws one line, ``close()`` ends it with a newline.

    The time left is estimated from the elapsed wall time and the fraction done.
    """

    def __init__(self, after=1.0, stream=None, width=30):
        self.after, self.width = after, width
        self.stream = stream or sys.stderr
        self.t0, self.shown = time.perf_counter(), False

    def update(self, fraction, text=""):
        """Redraw with ``fraction`` (0..1) done and ``text`` after the bar."""
        elapsed = time.perf_counter() - self.t0
        if elapsed < self.after:
            return
        fraction = min(max(fraction, 0.0), 1.0)
        k = int(fraction * self.width)
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else float("nan")
        self.stream.write(f"\r[{'#' * k}{'.' * (self.width - k)}] {text}  elapsed {elapsed:.1f} s  eta {eta:.1f} s")
        self.stream.flush()
        self.shown = True

    def close(self):
        """End the bar's line (only if it was shown)."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
