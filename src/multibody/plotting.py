"""Drawing a run with matplotlib: coordinates and speeds against time (legends name each
column with its unit) and, given them, the kinetic, potential and total energy.

``draw`` is the one home of the figure (``SimulationResult.plot`` calls it). This module
imports nothing of the package, so it also runs as a worker process (``PlotWorker``, used
by the CLI when a CPU is free): the worker imports matplotlib (0.3-0.4 s) while the caller
simulates, then draws the arrays it reads from its stdin.
"""
import pickle
import subprocess
import sys

__all__ = ["draw", "figure", "PlotWorker"]


def draw(t, q, u, q_legend, u_legend, energies=None, title="", path=None):
    """The figure of a run: t (N,) [s], q (N, nq), u (N, nu) with legend entries
    ``name [unit]``; ``energies`` = (kinetic, potential) (N,) [J] adds a third panel.
    Written to ``path`` (png, pdf, svg ...) if given, without pyplot; returns the Figure."""
    rows = 3 if energies is not None else 2
    if path is not None:
        from matplotlib.figure import Figure
        fig = Figure(figsize=(10, 2.7 * rows))
        ax = fig.subplots(rows, 1, sharex=True)
    else:
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(rows, 1, figsize=(10, 2.7 * rows), sharex=True)
    for a, x, legend, what in ((ax[0], q, q_legend, "q"), (ax[1], u, u_legend, "u")):
        a.plot(t, x, label=legend)
        units = sorted({e[e.rindex("[") + 1:-1] for e in legend if e.endswith("]")})
        a.set_ylabel(f"{what} [{', '.join(units) or '-'}]")  # units in brackets throughout, as t [s]
        if x.shape[1] <= 24:
            a.legend(fontsize="small" if x.shape[1] <= 8 else "x-small", loc="upper left",
                     bbox_to_anchor=(1.01, 1.0), ncol=1 if x.shape[1] <= 12 else 2)
    if energies is not None:
        ke, pe = energies
        ax[2].plot(t, ke + pe, label="total")
        ax[2].plot(t, ke, label="kinetic")
        ax[2].plot(t, pe, label="potential")
        ax[2].set_ylabel("energy [J]")
        ax[2].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax[-1].set_xlabel("t [s]")
    ax[0].set_title(title)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=100)
    return fig


def figure(rows=1, cols=1, figsize=None, **subplots):
    """A new matplotlib Figure and its axes, ``(fig, axes)`` as ``plt.subplots`` gives them,
    for a script's own figures (the examples'); None, after a line saying so, when
    matplotlib is not installed. No pyplot: no window opens and no backend is chosen, so it
    works headless; ``fig.savefig(path)`` writes the file. ``figsize``: (width, height)
    [inches]; ``subplots``: ``Figure.subplots``' keywords (sharex, ...)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed: no plot")
        return None
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(rows, cols, **subplots)


# run by path, so the package's folder stays off sys.path (its io/ would shadow io)
_BOOT = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


class PlotWorker:
    """A process that imports matplotlib at once and draws (``draw``'s arguments, ``path``
    required) when asked, so that the import overlaps the caller's work. ``draw`` returns
    False when the worker could not be started or failed; the caller then draws itself."""

    def __init__(self):
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", _BOOT, __file__], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            self.proc = None

    def draw(self, **kwargs):
        """Draw in the worker and wait for it; True if it wrote ``kwargs['path']``."""
        if self.proc is None:
            return False
        try:
            self.proc.stdin.write(pickle.dumps(kwargs, protocol=pickle.HIGHEST_PROTOCOL))
            self.proc.stdin.close()
            return self.proc.wait() == 0
        except OSError:
            self.close()
            return False

    def close(self):
        """End the worker if it still runs (nothing to draw)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _serve():
    """The worker: import matplotlib now, then draw what arrives on stdin, and exit at once
    (the file is written; tearing matplotlib down would only keep the caller waiting)."""
    import os
    import matplotlib.figure  # noqa: F401 (the point: imported while the caller works)
    draw(**pickle.loads(sys.stdin.buffer.read()))
    os._exit(0)


if __name__ == "__main__":
    _serve()
