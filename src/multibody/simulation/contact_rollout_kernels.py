"""Parallel contact rollouts (issue 21): many initial states through the compiled contact
loop (``contact_loop``), across cores.

Worker w (a ``prange`` iteration) owns data buffer ``dbufs[w]`` and the step's scratch (the
contact rows, J, W, M^-1, the detection's poses and candidates: rewritten every step), and
runs samples w, w + W, w + 2W, ... one after the other, each to its end. What carries from
one step to the next stays with the sample: its state (q, u, clock, counters, charts), the
last step's contacts and impulses (the warm start: ``CIP``, ``LAMP``, its count in ``CST``),
and the detection's sweep order, cursor and separating directions (``ORDER``, ``CUR``,
``SEP``), so that a sample's run is its own ``simulate`` run, to the bit, whichever worker
takes it and whatever it ran before. A sample that fails stops alone; one that finds more
contacts than the rows stops with CONTACT_ROWS before its step, for the caller to give more
rows and call again (only samples whose status is RUNNING run).

The loop is called through the address of its compiled code (``run``, the
``kernels/entry_pointer.EntryPointer`` that ``loop_pointer`` makes), not linked into the
rollout and compiled again with it: a rollout's first use, the loop compiled already, took
64 s, and takes 28 s (the loop's overload with ``fx`` given as None, which the pointer's
fixed signature needs, and the ``prange`` loop; both cached afterwards).
"""
from numba import njit, prange, typeof, types

from ..kernels.common import data_start, link_rows
from ..kernels.entry_pointer import EntryPointer, returned_types
from ..kernels.layout import W_CHART
from ..kernels.status import RUNNING
from ..kernels.variants import variant
from .contact_loop import contact_entry_point
from .kernels import C_STATUS

__all__ = ["contact_rollout_kernel", "loop_pointer"]


@njit(cache=True)
def _work_of(w, b, DW, ORDER, CUR, SEP, CW, CIP, LAMP, CTL):
    """Worker w's scratch with sample b's own rows: the loop's dwork, cw and ctl."""
    dwork = (DW[0][w], DW[1][w], ORDER[b], CUR[b], DW[4][w], DW[5][w], DW[6][w], DW[7][w], SEP[b],
             DW[9][w], DW[10][w], DW[11][w], DW[12][w])
    cw = (CW[0][w], CW[1][w], CIP[b], LAMP[b], CW[4][w], CW[5][w], CW[6][w], CW[7][w], CW[8][w],
          CW[9][w], CW[10][w], CW[11][w], CW[12][w], CW[13][w], CW[14][w], CW[15][w], CW[16][w],
          CW[17][w], CW[18][w], CW[19][w], CW[20][w], CW[21][w], CW[22][w])
    return dwork, cw, (CTL[0][w], CTL[1][w], CTL[2][w])


def _make_contact_rollout(links):
    """The rollout kernel over the contact loop without control or loops, with link-level
    force models as ``links`` says (the name's constant: the loop comes by its address)."""

    @variant(f"rollout_moreau_links{int(links)}", parallel=True)
    def rollout(run, mi, mf, dbufs, fmi, fmf, TAU, iopt, fopt, max_angles, chart0, Q, U, CLK, CTR, CHARTS, cm,
                DW, ORDER, CUR, SEP, CW, CIP, LAMP, CTL, copt, CST, TOUT, QOUT, UOUT, R, NR, lw):
        nw = dbufs.shape[0]
        B = Q.shape[0]
        n = mi.shape[0]
        for w in prange(nw):
            dbuf = dbufs[w]
            ws = link_rows(dbuf, data_start(dbuf, n), n)
            for b in range(w, B, nw):
                if CTR[b, C_STATUS] != RUNNING:
                    continue  # done, or stopped for good
                for j in range(n):  # the sample's charts into the worker's data
                    for k in range(4):
                        ws[j, W_CHART + k] = CHARTS[b, j, k]
                dwork, cw, ctl = _work_of(w, b, DW, ORDER, CUR, SEP, CW, CIP, LAMP, CTL)
                run(mi, mf, dbuf, fmi, fmf, TAU[b], iopt, fopt, max_angles, chart0, Q[b], U[b], CLK[b], CTR[b],
                    ctl, TOUT[b], QOUT[b], UOUT[b], cm, dwork, cw, copt, CST[b], R, NR, lw, None)
                for j in range(n):
                    for k in range(4):
                        CHARTS[b, j, k] = ws[j, W_CHART + k]

    return rollout


_KERNELS = {}


def loop_pointer(links, mi, mf, dbufs, fmi, fmf, TAU, iopt, fopt, max_angles, chart0, Q, U, CLK, CTR, cm,
                 DW, ORDER, CUR, SEP, CW, CIP, LAMP, CTL, copt, CST, TOUT, QOUT, UOUT, R, NR, lw):
    """The contact loop's variant (without control or loops; ``links``) as an ``EntryPointer``
    for the types the rollout kernel hands it: worker 0's and sample 0's rows (the tuples
    ``_work_of``'s static types, ``returned_types``)."""
    dwork, cw, ctl = returned_types(_work_of, 0, 0, DW, ORDER, CUR, SEP, CW, CIP, LAMP, CTL)
    args = (mi, mf, dbufs[0], fmi, fmf, TAU[0], iopt, fopt, max_angles, chart0, Q[0], U[0], CLK[0], CTR[0], ctl,
            TOUT[0], QOUT[0], UOUT[0], cm, dwork, cw, copt, CST[0], R, NR, lw, None)
    argtypes = tuple(a if isinstance(a, types.Type) else typeof(a) for a in args)  # (ctl, dwork, cw: types)
    return EntryPointer(contact_entry_point(links, False, False), argtypes)


def contact_rollout_kernel(links):
    """The compiled contact rollout ``rollout(run, mi, mf, dbufs, fmi, fmf, TAU, iopt, fopt,
    max_angles, chart0, Q, U, CLK, CTR, CHARTS, cm, DW, ORDER, CUR, SEP, CW, CIP, LAMP, CTL,
    copt, CST, TOUT, QOUT, UOUT, R, NR, lw)`` (module docstring; ``run`` from ``loop_pointer``):
    per worker (leading axis W) dbufs, DW (the detection work of ``collision/work.contact_work``,
    stacked; its order, cursor and separating directions unused), CW (``contact_loop.allocate_contact_work``'s
    arrays, stacked; its ci_prev, lam_prev unused) and CTL; per sample (leading axis B) TAU,
    Q, U, CLK, CTR, CHARTS, ORDER, CUR, SEP, CIP, LAMP, CST and the output rows TOUT, QOUT,
    UOUT (written from each sample's ctr[C_WRITTEN]); the rest as ``contact_entry_point``'s
    loop. Made (compiled or loaded from the cache) on first use."""
    key = int(bool(links))
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS.setdefault(key, _make_contact_rollout(key))
    return kernel
