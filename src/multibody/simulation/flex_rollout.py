"""Parallel rollouts of models with modal (flexible) bodies: the rigid rollouts' scheme
(``rollout_kernels``: worker w owns a data buffer and runs samples w, w + W, ... through
the stepping loop, each sample's state in its own rows) with the loop's ``flex`` variants,
on each worker's data buffer, which holds the flex tables and the worker's own flex work
region. The flex work is scratch within one stage's rates, so a worker's region serves its
samples in turn, also when a Python control pauses them between stages.
"""
import numpy as np
from numba import njit, prange

from ..kernels.common import data_start, link_rows
from ..kernels.layout import W_CHART
from ..kernels.status import CONTROL_NONFINITE, FINISHED, MIN_STEP, NONFINITE_STATE, SINGULAR
from .kernels import C_STATUS, entry_point

__all__ = ["flex_rollout_classic", "flex_rollout_munthe_kaas"]

_CLASSIC = entry_point(0, False, False, False, True, flex=True)  # fixed steps; a control as iopt says
_MUNTHE_KAAS = entry_point(1, False, False, False, True, flex=True)


@njit(cache=True, inline="always")
def _flex_rollout(lie, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                  Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows):
    W = dbufs.shape[0]
    B = Q.shape[0]
    n = mi.shape[0]
    per_sample = WORK[0].shape[0] == B  # a control's paused steps: work rows per sample
    for w in prange(W):
        dbuf = dbufs[w]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for b in range(w, B, W):
            r = np.int64(b) if per_sample else np.int64(w)
            work = (WORK[0][r], WORK[1][r], WORK[2][r], WORK[3][r], WORK[4][r], WORK[5][r], WORK[6][r],
                    WORK[7][r], WORK[8][r], WORK[9][r])
            ctl = (CTL[0][r], CTL[1][r], CTL[2][r])
            st = CTR[b, C_STATUS]
            if st == FINISHED or st == SINGULAR or st == NONFINITE_STATE or st == MIN_STEP or st == CONTROL_NONFINITE:
                continue
            for j in range(n):
                for k in range(4):
                    ws[j, W_CHART + k] = CHARTS[b, j, k]
            if lie:
                _MUNTHE_KAAS(mi, mf, dbuf, tab, fmi, fmf, TAU[b], iopt, fopt, smap, max_angles, chart0,
                             Q[b], U[b], CLK[b], CTR[b], work, ctl, TOUT[b, row0:row0 + nrows],
                             QOUT[b, row0:row0 + nrows], UOUT[b, row0:row0 + nrows])
            else:
                _CLASSIC(mi, mf, dbuf, tab, fmi, fmf, TAU[b], iopt, fopt, smap, max_angles, chart0,
                         Q[b], U[b], CLK[b], CTR[b], work, ctl, TOUT[b, row0:row0 + nrows],
                         QOUT[b, row0:row0 + nrows], UOUT[b, row0:row0 + nrows])
            for j in range(n):
                for k in range(4):
                    CHARTS[b, j, k] = ws[j, W_CHART + k]


@njit(cache=True, parallel=True)
def flex_rollout_classic(mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                         Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows):
    """Classic Runge-Kutta rollouts of a model with modal bodies (``rollout_kernels.
    rollout_classic``'s arguments)."""
    _flex_rollout(0, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                  Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows)


@njit(cache=True, parallel=True)
def flex_rollout_munthe_kaas(mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                             Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows):
    """Munthe-Kaas rollouts of a model with modal bodies (see ``flex_rollout_classic``)."""
    _flex_rollout(1, mi, mf, dbufs, tab, fmi, fmf, TAU, iopt, fopt, smap, max_angles, chart0,
                  Q, U, CLK, CTR, CHARTS, WORK, CTL, TOUT, QOUT, UOUT, row0, nrows)
