"""Timing shared by the bench scripts: the best of a few runs (these machines are shared and
noisy, so the fastest run is the one least disturbed)."""
import time


def best_of(f, repeats=3):
    """(the fastest wall time of f() over ``repeats`` calls [s], the last call's result)."""
    times = []
    out = None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out
