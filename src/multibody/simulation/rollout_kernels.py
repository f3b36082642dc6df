"""Parallel rollouts: many initial states through the one stepping loop, across cores.

Worker w (a ``prange`` iteration) owns data buffer ``dbufs[w]`` and the work arrays
``WORK[k][w]`` (the ``allocate_work`` layout stacked over workers), and runs samples
w, w + W, w + 2W, ... one after the other through ``kernels._run``, the loop every
simulation uses. A sample's whole state (q, u, clock, counters and its rotation-vector
charts) lives in its own rows, so a call may stop after any number of output rows and
the next call continues (open-loop inputs that change per output interval run that
way); a sample that fails stops alone, with its status in its counters.
"""
from numba import njit, prange

from ..kernels.common import data_start, link_rows
from ..kernels.layout import W_CHART
from ..kernels.status import FINISHED, MIN_STEP, NONFINITE_STATE, SINGULAR
from .kernels import C_STATUS, C_WRITTEN, _run


@njit(cache=True, inline="always")
def _rollout(lie, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
             Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows):
    W = dbufs.shape[0]
    B = Q.shape[0]
    n = mi.shape[0]
    for w in prange(W):
        dbuf = dbufs[w]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        work = (WORK[0][w], WORK[1][w], WORK[2][w], WORK[3][w], WORK[4][w], WORK[5][w], WORK[6][w],
                WORK[7][w], WORK[8][w], WORK[9][w])
        ctl = (CTL[0][w], CTL[1][w], CTL[2][w])
        for b in range(w, B, W):
            st = CTR[b, C_STATUS]
            if st == FINISHED or st == SINGULAR or st == NONFINITE_STATE or st == MIN_STEP:
                continue  # done, or failed before: the sample stays stopped
            for j in range(n):  # the sample's charts into the worker's data
                for k in range(4):
                    ws[j, W_CHART + k] = CHARTS[b, j, k]
            CTR[b, C_WRITTEN] = 0
            _run(lie, mi, mf, dbuf, tab, fmi, fmf, TAU[b], iopt, fopt, smap, max_angles, chart0,
                 Q[b], U[b], CLK[b], CTR[b], work, ctl, TOUT[b, row0:row0 + nrows],
                 QOUT[b, row0:row0 + nrows], UOUT[b, row0:row0 + nrows])
            for j in range(n):
                for k in range(4):
                    CHARTS[b, j, k] = ws[j, W_CHART + k]


@njit(cache=True, parallel=True)
def rollout_classic(mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                    Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows):
    """Classic Runge-Kutta rollouts (see the module docstring); writes output rows
    row0 .. row0 + nrows - 1 of each sample."""
    _rollout(0, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
             Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows)


@njit(cache=True, parallel=True)
def rollout_munthe_kaas(mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                        Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows):
    """Munthe-Kaas rollouts (see ``rollout_classic``)."""
    _rollout(1, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
             Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows)
