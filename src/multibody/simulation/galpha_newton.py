"""The Newton iteration of a generalized-alpha step (``galpha_loop``, its step 3), compiled
per variant of the loop: rigid trees with or without link-level force models (``links``),
their tree-augmented closed-loop dynamics (``ta``), or modal bodies (``flex``), with enabled
constraints too (``flex`` and ``ta``).

One compiled function per variant, ``galpha_newton_links{0,1}_ta{0,1}``,
``galpha_newton_flex`` and ``galpha_newton_flex_ta1``, each under a name of its own (``kernels/variants.variant``), as
``radau_newton``'s are: the whole iteration, the step's first Newton matrix included, with
``links`` a constant of the variant (it was a run-time argument: the link-force code was
compiled into every variant, used or not). Newton's matrix (the inverse dynamics
derivatives, or the constrained dynamics' derivatives: ``form_and_factor``) is formed at
one site of the iteration's loop, for the predictor (the step's start) and for the two
refreshes (after an overshoot, after a slow contraction), flags steering the loop there:
inlined at these three sites, it was compiled three times into each variant (issue 23:
galpha_newton_ta1 43.5 s of CPU, its loop 28.9 s). One out-of-line function for it instead
cost a call passing some twenty arrays once per step, 5 % of a small tree's run.

The loop reaches the variants through module globals (a dispatcher captured by a closure
would put its random uuid into Numba's cache key), by its own branches on its constants.
"""
import math

from numba import njit

from ..kernels.constrained_dynamics import ta_core
from ..kernels.dense_lu import lu_factor, lu_solve
from ..kernels.flex_entry import flex_constrained_udot
from ..kernels.status import OK
from ..kernels.variants import variant
from .flex_implicit import flex_iteration_matrix, flex_residual, flex_ta_jacobian
from .force_kernels import apply_forces, placed_forces
from .galpha_step import advance_state, iteration_matrix, residual
from .radau_step import ta_jacobian

__all__ = ["form_and_factor", "galpha_newton_links0_ta0", "galpha_newton_links1_ta0",
           "galpha_newton_links0_ta1", "galpha_newton_links1_ta1", "galpha_newton_flex", "galpha_newton_flex_ta1",
           "S_READY", "S_ITERS", "S_MOST",
           "S_UNCONVERGED", "S_WORST", "S_TWORST", "S_MATRICES", "N_GST", "THETA", "MAX_HALVINGS"]

# --- method state (float64 array gst)
S_READY = 0        # 1: a and u_dot hold the last step's (0: start from the forward dynamics)
S_ITERS = 1        # Newton corrections of the run
S_MOST = 2         # the most corrections of a step
S_UNCONVERGED = 3  # steps that ended at G_MAXIT corrections above the tolerance
S_WORST = 4        # the largest final ratio (error / tolerance) of those steps
S_TWORST = 5       # its step's start time
S_MATRICES = 6     # iteration matrices formed (one per step, more where the contraction is slow)
N_GST = 7

#: a correction larger than THETA times the last one forms the Newton matrix anew
THETA = 0.1
#: a residual that grew after a correction takes half of it back, at most this many times in a row
MAX_HALVINGS = 8


@njit(cache=True, inline="always")
def _residual(ta, flex, mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, r):
    """The step's residual at (t, q1, u1, x): the equations of motion of the tree
    (``galpha_step.residual``; with ``flex``, a constant, ``flex_implicit.flex_residual``),
    or with ``ta`` (a constant) x less the tree-augmented constrained accelerations with the
    run's Baumgarte gains (cons = (frames, constraint rows, ragged work, ``ta_work``, data
    buffer, ``flex_work``); with ``flex`` too the modal bodies' ``flex_constrained_udot``);
    NaN where an inertia is singular."""
    if flex and ta:
        apply_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, False)
        if flex_constrained_udot(cons[4], q1, u1, tau, cons[3][0], r) != OK:
            r[:] = math.nan
        for i in range(r.shape[0]):
            r[i] = x[i] - r[i]
    elif flex:
        flex_residual(mi, mf, ws, cons[4], fmi, fmf, t, q1, u1, x, src, tau, r)
    elif ta:
        fr, cr, z, tw = cons[:4]
        use = placed_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, links)
        if not ta_core(mi, mf, fr, cr, ws, z, q1, u1, tau, use, tw[0], r):
            r[:] = math.nan
        for i in range(r.shape[0]):
            r[i] = x[i] - r[i]
    else:
        residual(mi, mf, ws, fmi, fmf, links, t, q1, u1, x, src, tau, r)


@njit(cache=True, inline="always")
def _matrix(ta, flex, mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S):
    """Newton's matrix S = M + gu C + gq K of ``_residual`` (``galpha_step.iteration_matrix``;
    with ``flex`` ``flex_implicit.flex_iteration_matrix``), with ``ta`` M = I, C =
    -du_dot/du, K = -du_dot/dq of the constrained dynamics (``radau_step.ta_jacobian``; with
    ``flex`` too ``flex_implicit.flex_ta_jacobian``). False if an inertia is singular (or the
    flex derivatives not finite)."""
    if flex and not ta:
        return flex_iteration_matrix(mi, mf, ws, cons[4], cons[5], fmi, fmf, t, q1, u1, x, src, tau, gq, gu, Kt, Ct,
                                     S)
    if not ta:
        iteration_matrix(mi, mf, ws, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S)
        return True
    fr, cr, z, tw = cons[:4]
    if flex:
        if not flex_ta_jacobian(mi, mf, ws, cons[4], fmi, fmf, t, q1, u1, src, tau, tw, cons[5], S, Ct, Kt):
            return False
    elif not ta_jacobian(mi, mf, fr, cr, ws, z, fmi, fmf, links, t, q1, u1, src, tau, tw, S, Ct, Kt):
        return False
    for i in range(S.shape[0]):
        for j in range(S.shape[0]):
            S[i, j] += gu * Ct[i, j] + gq * Kt[i, j]
    return True


@njit(cache=True, inline="always")
def form_and_factor(ta, flex, mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, LU, piv,
                    sdiag, gst):
    """Newton's matrix (``_matrix``) formed at (t, q1, u1, x) into LU and factored in place
    (pivots piv), its diagonal's magnitudes kept in sdiag (the residual's scale),
    gst[S_MATRICES] counted. False if an inertia or the matrix is singular. Inlined at one
    site of the iteration (module docstring)."""
    if not _matrix(ta, flex, mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, LU):
        return False
    gst[S_MATRICES] += 1
    for i in range(x.shape[0]):
        sdiag[i] = abs(LU[i, i])
    return lu_factor(LU, piv)


@njit(cache=True, inline="always")
def _ratio(v, x, scale, rtol, atol):
    """max_i |v_i| / scale_i / (atol + rtol |x_i|) (scale None: 1); inf if not finite."""
    e = 0.0
    for i in range(v.shape[0]):
        s = abs(v[i]) if scale is None else abs(v[i]) / scale[i]
        e = max(e, s / (atol + rtol * abs(x[i])))
    return e if math.isfinite(e) else math.inf


def newton_variant(links, ta, flex):
    """The compiled Newton iteration of a step (``galpha_newton_links{0,1}_ta{0,1}``,
    ``galpha_newton_flex``, ``galpha_newton_flex_ta1``), with ``links``, ``ta`` (closed
    loops) and ``flex`` (modal bodies) constants of its variant."""

    # (not inlined: Numba refuses to inline a call with this many arguments)
    @variant(("galpha_newton_flex_ta1" if ta else "galpha_newton_flex") if flex else
             f"galpha_newton_links{int(links)}_ta{int(ta)}")
    def newton(mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
               sdiag, LU, piv, Kt, Ct, gq, gu, src, rtol, atol, maxit, gst, t):
        """The simplified Newton iteration of one step (``galpha_loop``'s module docstring,
        2. and 3.) from the predictor x and its state (q1, u1, a1): Newton's matrix formed
        there into LU (Kt, Ct its scratch), and anew at the current iterate where a
        correction shrank by less than THETA or overshot; leaves x and the state it gives.
        Returns the corrections made (halvings counted), -2 if the predictor's matrix is
        singular, -1 if a later one is."""
        k = 0
        last = math.inf   # the last correction's ratio to its tolerance
        prev = math.inf   # |r|^2 before the last correction (the backtracking's merit: fixed over the step)
        merit = math.inf
        e = math.inf
        halved = 0
        form = True        # Newton's matrix to be formed (first at the predictor: the step's start)
        started = False
        solve_now = False  # after an overshoot's matrix: on to the correction with the residual in hand
        while True:
            if form:  # the one site that forms the matrix: compiled once per variant
                if not form_and_factor(ta, flex, mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, gq,
                                       gu, Kt, Ct, LU, piv, sdiag, gst):
                    return -1 if started else -2
                form = False
                started = True
            if not solve_now:
                _residual(ta, flex, mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, r)
                e = _ratio(r, x, sdiag, rtol, atol)
                if e <= 1.0:
                    return k
                if k == maxit:
                    break
                merit = 0.0
                for i in range(r.shape[0]):
                    merit += r[i] * r[i]
                if not merit < prev and halved < MAX_HALVINGS:
                    # the correction overshot (a steep or piecewise force law: regularized friction,
                    # a limit's edge): half of it is taken back and the residual there tried again
                    for i in range(r.shape[0]):
                        dx[i] *= 0.5
                        x[i] -= dx[i]
                    halved += 1
                    k += 1
                    advance_state(mi, ws, gopt, h, q, u, a, udot, x, delta, q1, u1, a1)
                    continue
                if e == math.inf:
                    break
                if halved:  # after an overshoot, the matrix where the halvings ended
                    form = True
                    solve_now = True
                    last = math.inf
                    halved = 0
                    continue
            solve_now = False
            prev = merit
            for i in range(r.shape[0]):
                dx[i] = -r[i]
            lu_solve(LU, piv, dx)
            for i in range(r.shape[0]):
                x[i] += dx[i]
            k += 1
            advance_state(mi, ws, gopt, h, q, u, a, udot, x, delta, q1, u1, a1)
            e = _ratio(dx, x, None, rtol, atol)
            if e <= 1.0:
                return k
            if e > THETA * last and k < maxit:  # slow contraction: the matrix at the current iterate
                form = True
                e = math.inf
            last = e
        gst[S_UNCONVERGED] += 1
        if not e <= gst[S_WORST]:  # (e: the last residual's ratio, inf if it was not finite)
            gst[S_WORST] = e
            gst[S_TWORST] = t
        return k

    return newton


galpha_newton_links0_ta0 = newton_variant(0, 0, 0)
galpha_newton_links1_ta0 = newton_variant(1, 0, 0)
galpha_newton_links0_ta1 = newton_variant(0, 1, 0)
galpha_newton_links1_ta1 = newton_variant(1, 1, 0)
galpha_newton_flex = newton_variant(0, 0, 1)
galpha_newton_flex_ta1 = newton_variant(0, 1, 1)
