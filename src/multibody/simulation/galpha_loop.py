"""The compiled generalized-alpha stepping loop (issue 23, item 1): fixed steps, implicit.

Per step from (q, u) at time t, with the method's a and u_dot carried from the last step
(the first step starts from u_dot = a = the forward dynamics at the initial state, and so
does the step after ``set_state``: gst[S_READY] = 0):

1. the joint forces held over the step: tau0, or the Python control's, called once at the
   step's start with its state (as the "moreau" loop; ``control_period`` holds them longer);
2. the predictor x = u_dot_n, the state it gives (``galpha_step.advance_state``) and there
   Newton's matrix S = M + gamma' C_t + beta' K_t (``galpha_step.iteration_matrix``),
   factored once (``kernels/dense_lu``): a simplified Newton, one matrix per step, formed
   anew at the current iterate only where a correction shrinks by a factor above THETA =
   0.1 (a stiff mode's predictor, off by about omega h times its speed, gives C_t the wrong
   speed-dependent terms: 0.23 per iteration on a pendulum with a sliding bob at omega h =
   100, converged in 2-3 corrections with the matrix formed anew);
3. iterations x += dx, S dx = -r(x) (where the residual grew, half of dx taken back, up
   to MAX_HALVINGS times in a row, and the matrix formed anew where that ends: a
   correction across a steep or piecewise force law, regularized friction near rest or a
   limit's edge, overshoots), until the residual, read as the acceleration it
   stands for (|r_i| / |S_ii|), or the correction |dx_i| is within atol + rtol |x_i| for
   every i (``galpha_step.G_RTOL``, ``G_ATOL``), at most G_MAXIT corrections. A step that
   does not converge goes on with its last iterate, counted (gst[S_UNCONVERGED], the worst
   ratio and its time), for the integrator to warn about;
4. q, u, a, u_dot of the step's end; rotation-vector charts re-centred as in the RK loop
   (q moves through the model's ``integrate``: quaternions stay unit).

It shares the RK loop's counters, clock, options and sample storage (``kernels.py``). The
Newton iteration, the step's first Newton matrix included, is a compiled function of its own
per variant (``galpha_newton.py``). The entry releases the GIL (``nogil``): a rollout runs its
samples' loops on threads at once (``sample_runs``).

Closed loops (the ``ta`` variants): the same step on the tree-augmented ODE u_dot =
``ta_core`` with the run's Baumgarte gains: the residual is x - u_dot_TA(q_{n+1}, u_{n+1})
and Newton's matrix I + gamma' C + beta' K with (C, K) = -(du_dot/du, du_dot/dq) of the
constrained dynamics (``radau_step.ta_jacobian``); the closure is held at the Baumgarte
level.

Modal (flexible) bodies (the ``flex`` variants): without constraints, the tree's step with
the flex inverse dynamics as the residual and Newton's matrix M + gamma' C_t + beta' K_t from
the analytic flex derivatives (``flex_implicit``; their work the last entry of gw, from
``flex_implicit.flex_work``), the first u_dot from the flex forward dynamics; with enabled
constraints (``flex`` and ``ta``), the closed loops' step above on the modal bodies'
tree-augmented dynamics (``flex_entry.flex_constrained_udot``), Newton's matrix from its
analytic derivatives (``flex_implicit.flex_ta_jacobian``).
"""
import numpy as np
from numba import njit

from ..kernels.common import constraint_table, data_start, first_nonfinite, frame_table, link_rows, ragged
from ..kernels.constrained_dynamics import ta_core
from ..kernels.flex_entry import flex_constrained_udot, flex_udot
from ..kernels.forward_dynamics import aba_core
from ..kernels.status import NONFINITE_STATE, OK, RUNNING, SINGULAR
from ..kernels.variants import variant
from .flex_link_forces import flex_forces
from .force_kernels import placed_forces
from .galpha_newton import (
    N_GST, S_ITERS, S_MATRICES, S_MOST, S_READY, S_TWORST, S_UNCONVERGED, S_WORST,
    galpha_newton_flex, galpha_newton_flex_ta1, galpha_newton_links0_ta0, galpha_newton_links0_ta1,
    galpha_newton_links1_ta0, galpha_newton_links1_ta1,
)
from .galpha_step import G_ATOL, G_BETA, G_GAMMA, G_ALPHA_F, G_ALPHA_M, G_MAXIT, G_RTOL, advance_state
from .kernels import (
    C_BAD, C_CHARTS, C_OUT, C_STAGE, C_STEP, K_STEP, K_T, K_TBAD, K_TOUT,
    O_CONTROL, O_NSTEPS, O_STRIDE, _begin_step, _failed, _stop, control_at_step_start, write_sample,
)
from .stages import after_step, first_bad

__all__ = ["galpha_entry_point", "allocate_galpha_work", "S_READY", "S_ITERS", "S_MOST", "S_UNCONVERGED", "S_WORST",
           "S_TWORST", "S_MATRICES"]


def allocate_galpha_work(nq, nu, ta, fw):
    """The arrays of a generalized-alpha run: (gw, gst). gw = (a, udot, x, dx, r, tau,
    delta, q1, u1, a1, sdiag, K, C, S, piv, ta, fw) (``galpha_loop`` reads them in this
    order; ta: ``radau_loop.ta_work``'s tuple, the closed loops' work, or its unread
    stand-in; fw: ``flex_implicit.flex_work``'s, the modal bodies' derivative work, or its
    unread stand-in)."""
    v = [np.zeros(nu) for _ in range(6)]
    gw = tuple(v) + (np.zeros(nu), np.zeros(nq), np.zeros(nu), np.zeros(nu), np.zeros(nu),
                     np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros(nu, dtype=np.int64), ta, fw)
    return gw, np.zeros(N_GST)


@njit(cache=True, inline="always")
def _start_step(ta, flex, mi, mf, ws, cons, fmi, fmf, links, gopt, h, t, q, u, src, gw, gst):
    """The step's start: u_dot and a from the forward dynamics where not carried over
    (gst[S_READY] = 0), the predictor x = u_dot and its state (Newton's matrix there: the
    iteration's first). False if an inertia is singular."""
    a, udot, x, dx, r, tau, delta, q1, u1, a1, sdiag, Kt, Ct, S, piv = gw[:15]
    nu = u.shape[0]
    if gst[S_READY] == 0.0:
        if flex:
            flex_forces(mi, mf, ws, cons[4], fmi, fmf, q, u, t, src, tau)
            use = False
        else:
            use = placed_forces(mi, mf, ws, fmi, fmf, q, u, t, src, tau, links)
        if flex and ta:
            if flex_constrained_udot(cons[4], q, u, tau, cons[3][0], udot) != OK:
                return False
        elif flex:
            if not flex_udot(cons[4], q, u, tau, udot):
                return False
        elif ta:
            fr, cr, z, tw = cons[:4]
            if not ta_core(mi, mf, fr, cr, ws, z, q, u, tau, use, tw[0], udot):
                return False
        elif not aba_core(mi, mf, ws, cons[2], q, u, tau, use, udot):
            return False
        for i in range(nu):
            a[i] = udot[i]
        gst[S_READY] = 1.0
    for i in range(nu):
        x[i] = udot[i]
    advance_state(mi, ws, gopt, h, q, u, a, udot, x, delta, q1, u1, a1)
    return True


def _make_galpha_loop(links, controlled, ta, flex):
    """The generalized-alpha loop (module docstring) with four constants: ``links`` (link-level
    force models among the force models: FM_WRENCH, FM_WORLD, FM_LINEAR), ``controlled`` (a Python control, as
    iopt[O_CONTROL] says), ``ta`` (enabled constraints: the tree-augmented dynamics) and
    ``flex`` (modal bodies: the flex dynamics and derivatives; not links)."""

    @variant(f"run_galpha_flex_controlled{int(controlled)}{'_ta1' if ta else ''}" if flex else
             f"run_galpha_links{int(links)}_controlled{int(controlled)}_ta{int(ta)}", nogil=True)
    def run(mi, mf, dbuf, fmi, fmf, tau0, iopt, fopt, gopt, max_angles, chart0, q, u, clk, ctr, ctl, T, Q, U,
            gw, gst):
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        cons = (frame_table(dbuf, n), constraint_table(dbuf, n), ragged(dbuf, d0, n), gw[15], dbuf, gw[16])
        a, udot, x, dx, r, tau, delta, q1, u1, a1, sdiag, Kt, Ct, S, piv = gw[:15]
        tauc, qview, uview = ctl
        nq = q.shape[0]
        nu = u.shape[0]
        control = 0
        if controlled:
            control = iopt[O_CONTROL]
        nrow = T.shape[0]
        am, af = gopt[G_ALPHA_M], gopt[G_ALPHA_F]
        gu = gopt[G_GAMMA] * (1.0 - af) / (1.0 - am)  # gamma' / h and beta' / h^2
        gq = gopt[G_BETA] * (1.0 - af) / (1.0 - am)
        rtol, atol, maxit = gopt[G_RTOL], gopt[G_ATOL], int(gopt[G_MAXIT])
        while True:
            if ctr[C_STAGE] < 0:
                st = _begin_step(0, iopt, fopt, clk, ctr, nrow)
                if st != RUNNING:
                    return _stop(ctr, st)
            t = clk[K_T]
            h = clk[K_STEP]
            src = tau0
            if controlled and control:
                st = control_at_step_start(mi, ws, chart0, q, u, tau0, qview, uview, tauc, clk, ctr, t)
                if st != RUNNING:
                    return _stop(ctr, st)
                src = tauc
            if not _start_step(ta, flex, mi, mf, ws, cons, fmi, fmf, links, gopt, h, t, q, u, src, gw, gst):
                clk[K_TBAD] = t
                return _failed(ctr, q, u, SINGULAR)
            t_end = clk[K_TOUT]
            # the variant's own Newton iteration (``galpha_newton``; constants: one branch is compiled)
            if flex and ta:
                corrections = galpha_newton_flex_ta1(
                    mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
                    sdiag, S, piv, Kt, Ct, gq * h * h, gu * h, src, rtol, atol, maxit, gst, t)
            elif flex:
                corrections = galpha_newton_flex(
                    mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
                    sdiag, S, piv, Kt, Ct, gq * h * h, gu * h, src, rtol, atol, maxit, gst, t)
            elif ta and links:
                corrections = galpha_newton_links1_ta1(
                    mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
                    sdiag, S, piv, Kt, Ct, gq * h * h, gu * h, src, rtol, atol, maxit, gst, t)
            elif ta:
                corrections = galpha_newton_links0_ta1(
                    mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
                    sdiag, S, piv, Kt, Ct, gq * h * h, gu * h, src, rtol, atol, maxit, gst, t)
            elif links:
                corrections = galpha_newton_links1_ta0(
                    mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
                    sdiag, S, piv, Kt, Ct, gq * h * h, gu * h, src, rtol, atol, maxit, gst, t)
            else:
                corrections = galpha_newton_links0_ta0(
                    mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
                    sdiag, S, piv, Kt, Ct, gq * h * h, gu * h, src, rtol, atol, maxit, gst, t)
            if corrections == -2:  # the predictor's matrix is singular
                clk[K_TBAD] = t
                return _failed(ctr, q, u, SINGULAR)
            if corrections < 0:
                clk[K_TBAD] = t
                return _failed(ctr, q1, u1, SINGULAR)
            gst[S_ITERS] += corrections
            gst[S_MOST] = max(gst[S_MOST], corrections)
            bad = first_bad(q1, u1)
            if bad < 0:
                bad = first_nonfinite(x)
                if bad >= 0:
                    bad += nq
            if bad >= 0:
                ctr[C_BAD] = bad
                clk[K_TBAD] = t_end
                return _stop(ctr, NONFINITE_STATE)
            ctr[C_CHARTS] += after_step(mi, ws, 1, 0, max_angles, q1)
            for i in range(nq):
                q[i] = q1[i]
            for i in range(nu):
                u[i] = u1[i]
                a[i] = a1[i]
                udot[i] = x[i]
            clk[K_T] = t_end
            ctr[C_STEP] += 1
            if ctr[C_STEP] % iopt[O_STRIDE] == 0 or ctr[C_STEP] == iopt[O_NSTEPS]:
                ctr[C_OUT] += 1
                write_sample(mi, ws, chart0, clk[K_T], q, u, T, Q, U, ctr)

    return run


_LOOPS = {}


def galpha_entry_point(links=True, control=True, ta=False, flex=False):
    """The compiled generalized-alpha loop ``run(mi, mf, dbuf, fmi, fmf, tau0, iopt, fopt,
    gopt, max_angles, chart0, q, u, clk, ctr, ctl, T, Q, U, gw, gst)`` (module docstring):
    gopt the method's options (``galpha_step.G_*``), gw and gst from
    ``allocate_galpha_work`` (with ``ta``: its ``radau_loop.ta_work``; with ``flex``, modal
    bodies, its ``flex_implicit.flex_work``: links are then off). Made (and compiled
    or loaded from the cache) on first use."""
    flex = int(bool(flex))
    key = (int(bool(links)) and not flex, int(bool(control)), int(bool(ta)), flex)
    run = _LOOPS.get(key)
    if run is None:
        run = _LOOPS.setdefault(key, _make_galpha_loop(*key))
    return run
