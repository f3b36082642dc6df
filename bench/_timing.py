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


def paired_best(ours, theirs, n, rounds=40):
    """(ours, theirs): the best mean time per call [us] of each over ``rounds`` interleaved
    blocks of n calls (ours, then theirs, then ours ...). On a shared machine a stretch of
    contention (another process on the core: here it doubled a call's time for seconds at a
    time) then falls on both sides alike instead of on whichever was being timed."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, f in enumerate((ours, theirs)):
            t = time.perf_counter()
            for _ in range(n):
                f()
            best[i] = min(best[i], (time.perf_counter() - t) / n * 1e6)
    return best[0], best[1]

