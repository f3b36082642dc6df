"""``rollout`` of a model with contact (issue 21), or under "generalized_alpha" or "radau"
(issue 23): each sample through its own run of that integrator.

With contact, on a model without enabled constraints, the samples run across cores in one
compiled call (``contact_rollout_kernels``: each worker with its own scratch, each sample
with its own state and warm start), from one template ``MoreauIntegrator``'s options and
force models. With loops, with modal bodies (the parallel kernel runs the rigid loop), and
under the implicit methods, each sample has its own integrator and they run on
``numba.get_num_threads()`` threads at once (``sample_runs``: the loops release the GIL).
Either way a sample's trajectory equals its own ``simulate`` run (to the bit). No control
callback or per-row forces yet.
"""
import numba
import numpy as np

from ..kernels.collision.work import contact_work
from ..kernels.status import BUFFER_FULL, CONTACT_ROWS, FINISHED, RUNNING
from . import contact_loop as CL
from . import kernels as K
from .contact_rollout_kernels import contact_rollout_kernel, loop_pointer
from .moreau import MoreauIntegrator
from .sample_runs import own_runs
from .stages import normalize_quaternions

__all__ = ["contact_rollout"]


def contact_rollout(m, Q0, U0, t_final, dt, tau, save_every, inputs, cls=MoreauIntegrator, options=None):
    """(t, Q, U, status, t_failure) of B samples from Q0 (B, nq), U0 (B, nu) with constant
    joint forces tau (B, nu), the force models and inputs of ``inputs`` (``RunInputs``),
    each a run of the integrator class ``cls`` (its keyword ``options``); rows after a
    sample's failure are NaN (``RolloutResult``'s layout). A sample whose run raised
    other than by failing (SimulationError) raises ``sample_runs.SampleFailure`` naming
    it once every sample has run, the results riding on it."""
    if cls is MoreauIntegrator:
        tpl = cls(m, Q0[0], U0[0], tau=tau[0], forces=inputs.forces, **(options or {}))
        inputs.attach(tpl)
        if tpl.constraint_work is None and tpl.control is None and not tpl.flex:
            return _parallel_moreau(tpl, Q0, U0, tau, tpl.setup(t_final, dt, save_every), t_final, dt * save_every)
    return own_runs(m, (Q0, U0, tau), (t_final, dt, save_every), inputs, (cls, options or {}),
                    numba.get_num_threads())


def _per_worker(arrays, nw):
    """The arrays stacked nw times on a new leading axis (one copy per worker or sample)."""
    return tuple(np.repeat(a[None], nw, axis=0) for a in arrays)


def _parallel_moreau(tpl, Q0, U0, tau, n_rows, t_final, interval):
    """``contact_rollout`` across cores (``contact_rollout_kernels``) from the template
    integrator ``tpl`` (set up for the run: n_rows output rows after the initial one)."""
    c = tpl.model.compiled
    B = Q0.shape[0]
    nw = max(1, min(numba.get_num_threads(), B))
    Q, U = np.array(Q0, dtype=float), np.array(U0, dtype=float)
    for b in range(B):
        normalize_quaternions(c.mi, Q[b])
    CLK, CTR = _per_worker((tpl.clk, tpl.ctr), B)
    CTR[:, K.C_WRITTEN] = 1  # (row 0: the initial state)
    TOUT = np.full((B, n_rows + 1), np.nan)
    QOUT, UOUT = np.full((B, n_rows + 1, c.nq), np.nan), np.full((B, n_rows + 1, c.nu), np.nan)
    TOUT[:, 0], QOUT[:, 0], UOUT[:, 0] = tpl.t, Q, U
    dwork = contact_work(c.contact, 1)[0]
    DW = _per_worker(dwork, nw)
    ORDER, CUR, SEP = _per_worker((dwork[2], dwork[3], dwork[8]), B)
    maxc = tpl._maxc
    cw = CL.allocate_contact_work(c.nq, c.nu, c.mi.shape[0], maxc)[0]
    # each sample's warm start and solver state from the template's (its contact_options' warm_start, if any)
    CW, (CIP, LAMP, CST) = _per_worker(cw, nw), _per_worker((tpl._cw[2], tpl._cw[3], tpl.cst), B)
    kernel = contact_rollout_kernel(tpl._links)
    head = (c.mi, tpl.mf, _per_worker((tpl.data.buf,), nw)[0], tpl.fmi, tpl.fmf, np.ascontiguousarray(tau),
            tpl.iopt, tpl.fopt, tpl.max_angles, tpl.chart0, Q, U, CLK, CTR, _per_worker((tpl.chart0,), B)[0],
            tpl._cm, DW, ORDER, CUR, SEP)
    while True:
        tail = (CW, CIP, LAMP, _per_worker(tpl._ctl, nw), tpl.copt, CST, TOUT, QOUT, UOUT, tpl._R, tpl._NR, tpl._lw)
        run = loop_pointer(tpl._links, *head[:14], *head[15:], *tail)
        kernel(run, *head, *tail)
        grow = CTR[:, K.C_STATUS] == CONTACT_ROWS
        if not grow.any():
            break
        maxc = 2 * int(CST[grow, CL.S_NEEDED].max())  # more rows (the warm starts carried), and on
        cw = CL.allocate_contact_work(c.nq, c.nu, c.mi.shape[0], maxc)[0]
        CW = _per_worker(cw, nw)
        CIP, LAMP = _grown(CIP, cw[2]), _grown(LAMP, cw[3])
        CTR[grow, K.C_STATUS] = RUNNING
    status = CTR[:, K.C_STATUS].copy()
    status[(status == BUFFER_FULL) & (CTR[:, K.C_STEP] == tpl.iopt[K.O_NSTEPS])] = FINISHED
    done = np.flatnonzero(status == FINISHED)
    T = TOUT[done[0]].copy() if done.size else np.minimum(np.arange(n_rows + 1) * interval, t_final)
    t_failure = np.where(status == FINISHED, np.nan, CLK[:, K.K_TBAD])
    return T, QOUT, UOUT, status, t_failure


def _grown(stack, row):
    """stack (B, rows, ...) copied into zeros of B copies of ``row``'s larger shape."""
    out = np.zeros((stack.shape[0],) + row.shape, dtype=stack.dtype)
    out[:, :stack.shape[1]] = stack
    return out


def refuse_contact_options(control, segmented, lie_group, what="with contact"):
    """NotImplementedError for the rollout options a contact (or generalized_alpha, ``what``)
    rollout does not take yet."""
    for given, given_what in ((control is not None, "a control callback"), (segmented, "tau of shape (B, N, nu)"),
                        (lie_group, "lie_group / munthe_kaas")):
        if given:
            raise NotImplementedError(f"rollout {what} does not take {given_what} yet: use simulate per sample"
                                      + (", or contact=False to ignore the contacts" if what == "with contact" else ""))
