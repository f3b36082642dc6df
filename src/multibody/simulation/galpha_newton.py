"""The Newton iteration of a generalized-alpha step (``galpha_loop``, its step 3), compiled
per variant of the loop: rigid trees with or without link-level force models (``links``),
their tree-augmented closed-loop dynamics (``ta``), or modal bodies (``flex``), with enabled
constraints too (``flex`` and ``ta``).

One compiled function per variant, ``galpha_newton_links{0,1}_ta{0,1}``,
``galpha_newton_flex`` and ``galpha_newton_flex_ta1``, each under a name of its own (``kernels/variants.variant``), as
``radau_newton``'s are: the whole iteration, the step's first Newton matrix included, with
``links`` a constant of the variant (it was a run-time argument: the link-force code was
compiled into every variant, used or not). Newton's matrix (the inverse dynamics
derivatives, or the constrained dynamics' derivatives: the ``_matrix_*`` helpers) is formed at
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
from .flex_link_forces import flex_forces
from .force_kernels import placed_forces
from .galpha_step import advance_state, iteration_matrix, residual
from .radau_step import ta_jacobian

__all__ = ["galpha_newton_links0_ta0", "galpha_newton_links1_ta0",
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


# The residual and Newton's matrix of each kind of model, one inline helper per kind: the
# iteration picks its kind by a branch on its variant's constants, which Numba prunes before
# it inlines the helper. (One helper taking the kind as arguments carried every kind's code,
# inlined, into each variant until the pruning after its inlining: copying it at the call
# site took a third of a variant's compile time.)

@njit(cache=True, inline="always")
def _residual_flex_ta(mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, r):
    """x less the modal bodies' tree-augmented accelerations (``flex_constrained_udot``,
    the run's Baumgarte gains); NaN where an inertia is singular."""
    flex_forces(mi, mf, ws, cons[4], fmi, fmf, q1, u1, t, src, tau)
    if flex_constrained_udot(cons[4], q1, u1, tau, cons[3][0], r) != OK:
        r[:] = math.nan
    for i in range(r.shape[0]):
        r[i] = x[i] - r[i]


@njit(cache=True, inline="always")
def _residual_ta(mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, r):
    """x less the tree-augmented constrained accelerations with the run's Baumgarte gains;
    NaN where an inertia is singular."""
    fr, cr, z, tw = cons[:4]
    use = placed_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, links)
    if not ta_core(mi, mf, fr, cr, ws, z, q1, u1, tau, use, tw[0], r):
        r[:] = math.nan
    for i in range(r.shape[0]):
        r[i] = x[i] - r[i]


@njit(cache=True, inline="always")
def _matrix_flex(mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S):
    """S = M + gu C + gq K of the flex residual (``flex_iteration_matrix``)."""
    return flex_iteration_matrix(mi, mf, ws, cons[4], cons[5], fmi, fmf, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S)


@njit(cache=True, inline="always")
def _matrix_tree(mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S):
    """S = M + gu C + gq K of the tree's residual (``galpha_step.iteration_matrix``)."""
    iteration_matrix(mi, mf, ws, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S)
    return True


@njit(cache=True, inline="always")
def _plus_gains(gq, gu, Kt, Ct, S):
    """S += gu Ct + gq Kt."""
    for i in range(S.shape[0]):
        for j in range(S.shape[0]):
            S[i, j] += gu * Ct[i, j] + gq * Kt[i, j]


@njit(cache=True, inline="always")
def _matrix_flex_ta(mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S):
    """S = I + gu C + gq K, C = -du_dot/du and K = -du_dot/dq of the modal bodies'
    constrained dynamics (``flex_ta_jacobian``)."""
    if not flex_ta_jacobian(mi, mf, ws, cons[4], fmi, fmf, t, q1, u1, src, tau, cons[3], cons[5], S, Ct, Kt):
        return False
    _plus_gains(gq, gu, Kt, Ct, S)
    return True


@njit(cache=True, inline="always")
def _matrix_ta(mi, mf, ws, cons, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, Kt, Ct, S):
    """S = I + gu C + gq K, C = -du_dot/du and K = -du_dot/dq of the constrained dynamics
    (``radau_step.ta_jacobian``)."""
    fr, cr, z, tw = cons[:4]
    if not ta_jacobian(mi, mf, fr, cr, ws, z, fmi, fmf, links, t, q1, u1, src, tau, tw, S, Ct, Kt):
        return False
    _plus_gains(gq, gu, Kt, Ct, S)
    return True


@njit(cache=True, inline="always")
def _factored(x, LU, piv, sdiag, gst):
    """Newton's matrix, formed in LU, factored in place (pivots piv), its diagonal's
    magnitudes kept in sdiag (the residual's scale), gst[S_MATRICES] counted. False if it
    is singular."""
    gst[S_MATRICES] += 1
    for i in range(x.shape[0]):
        sdiag[i] = abs(LU[i, i])
    return lu_factor(LU, piv)


@njit(cache=True, inline="always")
def _sum_of_squares(r):
    acc = 0.0
    for i in range(r.shape[0]):
        acc += r[i] * r[i]
    return acc


@njit(cache=True, inline="always")
def _half_back(dx, x):
    """Take half of the last correction dx back from x (dx halved)."""
    for i in range(x.shape[0]):
        dx[i] *= 0.5
        x[i] -= dx[i]


@njit(cache=True, inline="always")
def _correct(LU, piv, r, dx, x):
    """x += dx, the Newton correction dx = -S^-1 r (S factored in LU, piv)."""
    for i in range(r.shape[0]):
        dx[i] = -r[i]
    lu_solve(LU, piv, dx)
    for i in range(r.shape[0]):
        x[i] += dx[i]


@njit(cache=True, inline="always")
def _unconverged(gst, e, t):
    """Count a step that ended above its tolerance (e its last ratio, inf if not finite)."""
    gst[S_UNCONVERGED] += 1
    if not e <= gst[S_WORST]:
        gst[S_WORST] = e
        gst[S_TWORST] = t


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
    loops) and ``flex`` (modal bodies) constants of its variant: the simplified Newton
    iteration of one step (``galpha_loop``'s module docstring, 2. and 3.) from the predictor
    x and its state (q1, u1, a1): Newton's matrix formed there into LU (Kt, Ct its scratch),
    and anew at the current iterate where a correction shrank by less than THETA or
    overshot; it leaves x and the state it gives. Returns the corrections made (halvings
    counted), -2 if the predictor's matrix is singular, -1 if a later one is."""

    # (not inlined: Numba refuses to inline a call with this many arguments)
    @variant(("galpha_newton_flex_ta1" if ta else "galpha_newton_flex") if flex else
             f"galpha_newton_links{int(links)}_ta{int(ta)}")
    def newton(mi, mf, ws, cons, fmi, fmf, gopt, h, t_end, q, u, a, udot, x, dx, r, tau, delta, q1, u1, a1,
               sdiag, LU, piv, Kt, Ct, gq, gu, src, rtol, atol, maxit, gst, t):
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
            if form:  # the one site that forms the matrix (module docstring), the model's kind picked by constants
                if flex and ta:
                    formed = _matrix_flex_ta(mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, gq, gu,
                                             Kt, Ct, LU)
                elif flex:
                    formed = _matrix_flex(mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, gq, gu, Kt,
                                          Ct, LU)
                elif ta:
                    formed = _matrix_ta(mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, gq, gu, Kt, Ct,
                                        LU)
                else:
                    formed = _matrix_tree(mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, gq, gu, Kt,
                                          Ct, LU)
                if not (formed and _factored(x, LU, piv, sdiag, gst)):
                    return -1 if started else -2
                form = False
                started = True
            if not solve_now:
                if flex and ta:
                    _residual_flex_ta(mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, r)
                elif flex:
                    flex_residual(mi, mf, ws, cons[4], fmi, fmf, t_end, q1, u1, x, src, tau, r)
                elif ta:
                    _residual_ta(mi, mf, ws, cons, fmi, fmf, links, t_end, q1, u1, x, src, tau, r)
                else:
                    residual(mi, mf, ws, fmi, fmf, links, t_end, q1, u1, x, src, tau, r)
                e = _ratio(r, x, sdiag, rtol, atol)
                if e <= 1.0:
                    return k
                if k == maxit:
                    break
                merit = _sum_of_squares(r)
                if not merit < prev and halved < MAX_HALVINGS:
                    # the correction overshot (a steep or piecewise force law: regularized friction,
                    # a limit's edge): half of it is taken back and the residual there tried again
                    _half_back(dx, x)
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
            _correct(LU, piv, r, dx, x)
            k += 1
            advance_state(mi, ws, gopt, h, q, u, a, udot, x, delta, q1, u1, a1)
            e = _ratio(dx, x, None, rtol, atol)
            if e <= 1.0:
                return k
            if e > THETA * last and k < maxit:  # slow contraction: the matrix at the current iterate
                form = True
                e = math.inf
            last = e
        _unconverged(gst, e, t)
        return k

    return newton


galpha_newton_links0_ta0 = newton_variant(0, 0, 0)
galpha_newton_links1_ta0 = newton_variant(1, 0, 0)
galpha_newton_links0_ta1 = newton_variant(0, 1, 0)
galpha_newton_links1_ta1 = newton_variant(1, 1, 0)
galpha_newton_flex = newton_variant(0, 0, 1)
galpha_newton_flex_ta1 = newton_variant(0, 1, 1)
