"""Parallel rollouts: many initial states through the one stepping loop, across cores.

Worker w (a ``prange`` iteration) owns data buffer ``dbufs[w]`` and runs samples
w, w + W, w + 2W, ... one after the other through the stepping loop every simulation
uses (``kernels.entry_point``: its fixed-step variant with a control as iopt says), with
the work arrays of ``allocate_work`` stacked over workers (or over samples when a Python
control pauses every sample at every stage: then a paused step's partial state must stay
with its sample). A sample's whole state (q, u, clock, counters and its rotation-vector
charts) lives in its own rows, so a call may stop after any number of output rows and
the next call continues (open-loop inputs that change per output interval run that
way: the caller resets each sample's written-row counter C_WRITTEN before a new block of
rows); a sample that fails stops alone, with its status in its counters.

The rollout is made per variant of the loop it runs (``rollout_entry(lie, ta, flex)``):
classic or Munthe-Kaas (``lie``); with enabled constraints (``ta``: the loop's
tree-augmented variants, each worker with its own copy of the run's constraint work array
WCS[w], the Baumgarte gains and the scratch of one stage's constrained dynamics); models
with modal bodies (``flex``: the loop's flex variants, joint force models only, each
worker's data buffer holding the flex tables and its own flex work, which is scratch within
one stage's rates, so it serves the worker's samples in turn, also when a control pauses
them between stages). Rigid variants take link-level force models.

The loop is called through the address of its compiled code (``loop``: the
``kernels/entry_pointer.EntryPointer`` that ``loop_pointer`` makes for the static types of
``_sample_views``), not linked into the rollout and optimised again with it: the closed-loop
rollout test, its loop variant and rollout compiled cold, took 222 s before and 98 s after,
in one sitting. The loop's last argument Wc is given (None without ``ta``), as a pointer's
signature is fixed.
"""
import numpy as np
from numba import njit, prange, typeof, types

from ..kernels.common import data_start, link_rows
from ..kernels.entry_pointer import EntryPointer, returned_types
from ..kernels.layout import W_CHART
from ..kernels.status import CONTROL_NONFINITE, FINISHED, MIN_STEP, NONFINITE_STATE, SINGULAR
from ..kernels.variants import variant
from .kernels import C_STATUS, entry_point

__all__ = ["rollout_entry", "rollout_name", "loop_pointer"]


def rollout_name(lie, ta, flex):
    """The name of a rollout variant, e.g. ``rollout_lie0_ta1_flex0``."""
    return f"rollout_lie{int(lie)}_ta{int(ta)}_flex{int(flex)}"


@njit(cache=True)
def _sample_views(b, r, w, TAU, Q, U, CLK, CTR, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows, WCS):
    """Sample b's rows, work arrays r's and worker w's constraint work: the loop's arguments
    tau0, q, u, clk, ctr, work, ctl, T, Q, U and Wc (its static types are the loop pointer's)."""
    work = (WORK[0][r], WORK[1][r], WORK[2][r], WORK[3][r], WORK[4][r], WORK[5][r], WORK[6][r],
            WORK[7][r], WORK[8][r], WORK[9][r])
    ctl = (CTL[0][r], CTL[1][r], CTL[2][r])
    return (TAU[b], Q[b], U[b], CLK[b], CTR[b], work, ctl, TOUT[b, row0:row0 + nrows], QOUT[b, row0:row0 + nrows],
            UOUT[b, row0:row0 + nrows], WCS[w])


def _make_rollout(lie, ta, flex):
    """The parallel rollout over the loop variant of (lie, ta, flex), which it calls through
    ``loop``, ``loop_pointer``'s: see the module docstring."""

    @variant(rollout_name(lie, ta, flex), parallel=True)
    def rollout(loop, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows, WCS):
        """Write output rows row0 .. row0 + nrows - 1 of each sample (WCS (W, ...): each
        worker's constraint work array; unread without ``ta``)."""
        W = dbufs.shape[0]
        B = Q.shape[0]
        n = mi.shape[0]
        per_sample = WORK[0].shape[0] == B  # (when B == W both layouts index alike)
        for w in prange(W):
            dbuf = dbufs[w]
            ws = link_rows(dbuf, data_start(dbuf, n), n)
            for b in range(w, B, W):
                # a step paused for a control keeps its partial state in the sample's own work
                # arrays (per_sample); otherwise a worker's arrays serve its samples in turn
                r = np.int64(b) if per_sample else np.int64(w)  # (one integer type for both)
                st = CTR[b, C_STATUS]
                if st == FINISHED or st == SINGULAR or st == NONFINITE_STATE or st == MIN_STEP \
                        or st == CONTROL_NONFINITE:
                    continue  # done, or failed before: the sample stays stopped
                for j in range(n):  # the sample's charts into the worker's data
                    for k in range(4):
                        ws[j, W_CHART + k] = CHARTS[b, j, k]
                tau0, q, u, clk, ctr, work, ctl, T, Qs, Us, wc = _sample_views(
                    b, r, w, TAU, Q, U, CLK, CTR, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows, WCS)
                if ta:  # (a constant of the variant, pruned before typing)
                    loop(mi, mf, dbuf, tab, fmi, fmf, tau0, iopt, fopt, smap, max_angles, chart0,
                         q, u, clk, ctr, work, ctl, T, Qs, Us, wc)
                else:
                    loop(mi, mf, dbuf, tab, fmi, fmf, tau0, iopt, fopt, smap, max_angles, chart0,
                         q, u, clk, ctr, work, ctl, T, Qs, Us, None)
                for j in range(n):
                    for k in range(4):
                        CHARTS[b, j, k] = ws[j, W_CHART + k]

    return rollout


def loop_pointer(lie, ta, flex, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                 Q, U, CLK, CTR, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows, WCS):
    """The loop variant that rollout (lie, ta, flex) runs, as an ``EntryPointer`` for the
    static types the rollout hands it (``_sample_views``'s, ``returned_types``)."""
    head = tuple(typeof(a) for a in (mi, mf, dbufs[0], tab, fmi, fmf))
    opts = tuple(typeof(a) for a in (iopt, fopt, smap, max_angles, chart0))
    tau0, q, u, clk, ctr, work, ctl, T, Qs, Us, wc = returned_types(
        _sample_views, 0, 0, 0, TAU, Q, U, CLK, CTR, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows, WCS)
    argtypes = head + (tau0,) + opts + (q, u, clk, ctr, work, ctl, T, Qs, Us, wc if ta else types.none)
    return EntryPointer(entry_point(lie, ta, not flex, False, True, flex=flex), argtypes)


_ROLLOUTS = {}


def rollout_entry(lie, ta, flex):
    """The rollout variant for classic (lie False) or Munthe-Kaas stepping, with enabled
    constraints (``ta``) and modal bodies (``flex``), made and compiled on first use;
    called as ``run(loop, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
    Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows, WCS)``, ``loop`` from
    ``loop_pointer`` with the same arguments (CHARTS aside)."""
    key = (int(bool(lie)), int(bool(ta)), int(bool(flex)))
    run = _ROLLOUTS.get(key)
    if run is None:
        run = _ROLLOUTS.setdefault(key, _make_rollout(*key))
    return run
