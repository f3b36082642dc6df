"""The compiled Radau IIA stepping loop (issue 23, item 1): order 5, implicit, adaptive.

Per step from (q, u) at time t (``radau_step`` for the equations, ``radau_newton`` for the
iteration), as Hairer & Wanner's RADAU5 does it:

1. the joint forces held over the step: tau0, or the Python control's, called once at the
   step's start (a retried step keeps them);
2. the rates f0 at the start and the error scale atol + rtol |y| (rotations: |y| = 1);
   the Jacobian (M, C, K) (for modal bodies too from analytic derivatives,
   ``flex_implicit.flex_iteration_matrix``, with enabled constraints ``flex_ta_jacobian``)
   formed only where the last step asked for it (its Newton rate
   above ``R_THET``, a rejected step with an old one, the first step): reused across steps,
   at the state where it was formed; the two systems factored anew only when h changed;
3. the starting iterate: the last accepted step's collocation polynomial extrapolated
   (zero on the first step), the Newton iteration;
4. adaptive: the embedded error estimate err, the step accepted when err < 1, the next
   step h / max(1/8, min(5, err^(1/4) / fac)), fac = min(0.9, 0.9 (2 nit + 1) / (k + 2 nit))
   after k iterations, with Gustafsson's predictive controller after two accepted steps;
   a step within [1, 1.2] of the last and a fast Newton keep h and the factorisation;
   a rejected first step is cut by 10, a failed iteration by its own factor. Fixed steps
   (iopt[O_ADAPT] = 0): the step dt, no estimate; an iteration that does not converge with
   a fresh Jacobian is counted (rst[S_UNCONVERGED]) and its last iterate taken;
5. q = q0 (+) phi_3, u = u0 + du_3 (c_3 = 1), charts re-centred as in the RK loop.

It shares the RK loop's counters, clock, options, step sizing to output times and sample
storage (``kernels.py``). The entry releases the GIL (``nogil``): a rollout runs its samples'
loops on threads at once (``sample_runs``).
"""
import numpy as np

import math

from numba import njit

from ..kernels.common import constraint_table, data_start, frame_table, link_rows, ragged
from ..kernels.coordinates import integrate_q
from ..kernels.status import MIN_STEP, NONFINITE_STATE, RUNNING, SINGULAR
from ..kernels.variants import variant
from .flex_implicit import flex_work
from .kernels import (
    C_BAD, C_CHARTS, C_HIT, C_OUT, C_REJECT, C_STAGE, C_STEP, F_HMIN, K_H, K_STEP, K_T, K_TBAD,
    K_TOUT, O_ADAPT, O_CONTROL, O_EVERY, O_NSTEPS, O_STRIDE, O_WORLDF, _begin_step, _failed, _stop,
    control_at_step_start, write_sample,
)
from .radau_newton import (
    N_ROPT, R_ATOL, R_NIT, R_RTOL, R_THET, S_FACCON, S_HHFAC, S_THETA, error_estimate, rate,
    radau_newton_flex0_links0_ta0, radau_newton_flex0_links0_ta1, radau_newton_flex0_links1_ta0, radau_newton_flex0_links1_ta1,
    radau_newton_flex1_links0_ta0, radau_newton_flex1_links0_ta1,
)
from ..kernels.constraint_work import K_COLS
from .radau_jacobian import jacobian
from .radau_step import RC_C, RC_GAMMA, factor, solve_real
from .stages import after_step, first_bad

__all__ = ["radau_entry_point", "allocate_radau_work", "ta_work", "N_RST", "N_ROPT"]

# --- method state (float64 array rst; entries 0..3 are radau_newton's)
S_READY = 4        # 1: the run is under way (0: first step, or after set_state)
S_F0 = 5           # 1: f0 and the scale hold the current step start's
S_NEEDJAC = 6      # 1: form the Jacobian at the next step's start
S_JACNOW = 7       # 1: the Jacobian was formed at this step's start
S_HFACT = 8        # the h the systems are factored for (0: none)
S_HOLD = 9         # the last accepted step (its collocation polynomial in Zold)
S_FIRST = 10       # 1: no step accepted yet
S_REJECT = 11      # 1: the last try was rejected
S_HACC = 12        # Gustafsson's controller: the last accepted step and its error
S_ERRACC = 13
S_ACCEPTED = 14    # accepted steps of the run (the controller's history)
S_JACOBIANS = 15   # Jacobians formed
S_FACTORS = 16     # factorisations
S_UNCONVERGED = 17 # fixed steps whose iteration stopped at nit above its tolerance
S_CTLT = 18        # the time of the control's last forces (a retried step keeps them)
S_CTL = 19         # 1: tauc holds forces for time S_CTLT
N_RST = 20

SAFE = 0.9         # the step-size controller's safety factor
FAC_UP = 8.0       # the next step is at most 8 and at least 1/5 times this one
FAC_DOWN = 5.0

def ta_work(c, wc):
    """The work of the tree-augmented (closed-loop) rates and their Jacobian (``radau_step.
    ta_jacobian``) for compiled model c and the run's constraint work wc (its Baumgarte
    gains): (Wc, M^-1's work, T (3, nu, nu), E (5, nc, nu), VA (n, 12), KT (3, 2 K_COLS),
    Minv, Kf, Cf (nu, nu)); with wc None (a tree) arrays of the same kinds, unread."""
    if wc is None:
        return (np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1, 1)), np.zeros((1, 1, 1)), np.zeros((1, 12)),
                np.zeros((3, 2 * K_COLS))) + tuple(np.zeros((1, 1)) for _ in range(3))
    nu = c.nu
    return (wc, np.zeros(c.minv_work_shape), np.zeros((3, nu, nu)), np.zeros((5, c.nc, nu)), np.zeros((c.n_links, 12)),
            np.zeros((3, 2 * K_COLS))) + tuple(np.zeros((nu, nu)) for _ in range(3))


def allocate_radau_work(nq, nu, ta=None, fw=None):
    """The arrays of a Radau run: (rw, rst); rw = (Z, W, F, DW, Zold, f0, scal, ev, M, C, K,
    E1, piv1, E2, piv2, b1, b2, qs, us, phi, tau, kq, ku, q1, D, Cp, Kp, ta, fw)
    (``radau_newton`` reads them in this order; ta: ``ta_work``'s tuple, or its unread
    stand-in; fw: ``flex_implicit.flex_work``'s, the modal bodies' derivative work, or its
    unread stand-in)."""
    n2 = 2 * nu
    stages = tuple(np.zeros((3, n2)) for _ in range(5))
    rw = stages + (np.zeros(n2), np.ones(n2), np.zeros(n2)) + tuple(np.zeros((nu, nu)) for _ in range(4)) + (
        np.zeros(nu, dtype=np.int64), np.zeros((n2, n2)), np.zeros(n2, dtype=np.int64), np.zeros(nu),
        np.zeros(n2), np.zeros(nq), np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu),
        np.zeros(nq)) + tuple(np.zeros((nu, nu)) for _ in range(3)) + (ta_work(None, None) if ta is None else ta,
                                                                       flex_work() if fw is None else fw)
    return rw, np.zeros(N_RST)


@njit(cache=True, inline="always")
def _start_iterate(rc, h, rst, Z, Zold):
    """Z: the last accepted step's collocation polynomial (nodes 0, c_1, c_2, 1, values 0,
    Zold) at 1 + c_i h / h_old, less its end value; zero on the first step."""
    if rst[S_FIRST] != 0.0:
        Z[:, :] = 0.0
        return
    nodes = (rc[RC_C], rc[RC_C + 1], 1.0)
    r = h / rst[S_HOLD]
    for i in range(3):
        s = 1.0 + rc[RC_C + i] * r
        w0 = s * (s - nodes[1]) * (s - nodes[2]) / (nodes[0] * (nodes[0] - nodes[1]) * (nodes[0] - nodes[2]))
        w1 = s * (s - nodes[0]) * (s - nodes[2]) / (nodes[1] * (nodes[1] - nodes[0]) * (nodes[1] - nodes[2]))
        w2 = s * (s - nodes[0]) * (s - nodes[1]) / (nodes[2] * (nodes[2] - nodes[0]) * (nodes[2] - nodes[1]))
        for k in range(Z.shape[1]):
            Z[i, k] = w0 * Zold[0, k] + w1 * Zold[1, k] + w2 * Zold[2, k] - Zold[2, k]


@njit(cache=True, inline="always")
def _next_step(ropt, rst, h, err, k, nit):
    """The next step after one of error ``err`` (accepted when err < 1) that took k Newton
    iterations: the step-size controller (module docstring, 4.)."""
    fac = min(SAFE, SAFE * (2 * nit + 1) / (k + 2 * nit))
    quot = max(1.0 / FAC_UP, min(FAC_DOWN, err ** 0.25 / fac))
    if err >= 1.0:
        if rst[S_FIRST] != 0.0 and rst[S_ACCEPTED] == 0.0:
            return 0.1 * h
        return h / quot
    if rst[S_ACCEPTED] >= 1.0:  # Gustafsson's predictive controller
        gus = rst[S_HACC] / h * (err * err / rst[S_ERRACC]) ** 0.25 / SAFE
        quot = max(quot, max(1.0 / FAC_UP, min(FAC_DOWN, gus)))
    rst[S_HACC] = h
    rst[S_ERRACC] = max(1e-2, err)
    h_new = h / quot
    if rst[S_REJECT] != 0.0:
        h_new = min(h_new, h)
    if rst[S_THETA] <= ropt[R_THET] and 1.0 <= h_new / h <= 1.2:
        return h  # the factorisation serves the next step
    return h_new


@njit(cache=True, inline="always")
def _scale(ropt, smap, q, u, scal):
    """scal = atol + rtol |y| at the step's start: phi by its q entry (rotations 1), u by u."""
    nu = u.shape[0]
    for i in range(nu):
        k = smap[i]
        scal[i] = ropt[R_ATOL] + ropt[R_RTOL] * (1.0 if k < 0 else abs(q[k]))
        scal[nu + i] = ropt[R_ATOL] + ropt[R_RTOL] * abs(u[i])


@njit(cache=True, inline="always")
def _retry(adapt, rst, ctr, clk, fopt, h, cut):
    """Reject the step: the next try h cut (a Jacobian formed anew unless this step's is
    fresh); False if that falls below h_min or the steps are fixed."""
    if not adapt:
        return False
    ctr[C_REJECT] += 1
    rst[S_REJECT] = 1.0
    if rst[S_JACNOW] == 0.0:
        rst[S_NEEDJAC] = 1.0
    clk[K_H] = h * cut
    return clk[K_H] >= fopt[F_HMIN] and math.isfinite(clk[K_H])


@njit(cache=True, inline="always")
def _second_estimate(flex, links, ta, model, rc, t, h, q, u, src, rw):
    """The estimate once more from f at y0 + err (Hairer & Wanner IV.8, after (8.20)): for a
    first or a rejected step whose estimate is >= 1, where stiff components overestimate it."""
    F, scal, ev, M, C, E1, piv1, b1, D = rw[2], rw[6], rw[7], rw[8], rw[9], rw[11], rw[12], rw[15], rw[24]
    if not rate(flex, links, ta, model, t, q, u, ev, src, rw, F[0]):
        return math.inf
    for i in range(ev.shape[0]):
        ev[i] = F[0, i] + F[1, i]
    solve_real(rc[RC_GAMMA] / h, M, C, D, E1, piv1, ev, b1)
    acc = 0.0
    for i in range(ev.shape[0]):
        acc += (ev[i] / scal[i]) ** 2
    return max(math.sqrt(acc / ev.shape[0]), 1e-10)


@njit(cache=True, inline="always")
def _prepare(flex, links, ta, model, ropt, rc, smap, t, h, q, u, src, rw, rst):
    """f0 and the scale at the step's start, the Jacobian where asked for, the systems
    factored for h. Returns 0 (ready), 1 (the systems are singular at h) or 2 (an inertia
    is singular at the start)."""
    f0, scal, ev, M, E1, piv1, E2, piv2, Cp, Kp = rw[5], rw[6], rw[7], rw[8], rw[11], rw[12], rw[13], rw[14], \
        rw[25], rw[26]
    nu = u.shape[0]
    if rst[S_F0] == 0.0:
        for i in range(2 * nu):
            ev[i] = 0.0
        if not rate(flex, links, ta, model, t, q, u, ev, src, rw, f0):
            return 2
        _scale(ropt, smap, q, u, scal)
        rst[S_F0] = 1.0
    if rst[S_NEEDJAC] != 0.0:
        if not jacobian(flex, links, ta, model, t, q, u, src, rw):
            return 2
        rst[S_NEEDJAC], rst[S_JACNOW], rst[S_HFACT] = 0.0, 1.0, 0.0
        rst[S_JACOBIANS] += 1
    if rst[S_HFACT] != h:
        rst[S_FACTORS] += 1
        rst[S_HFACT] = h
        if not factor(rc, h, M, Cp, Kp, E1, piv1, E2, piv2):
            rst[S_HFACT] = 0.0
            return 1
    return 0


@njit(cache=True, inline="always")
def _accept(mi, ws, iopt, clk, ctr, rst, ropt, max_angles, chart0, q, u, rw, h, h_new, T, Q, U):
    """Take the step: (q, u) = (q0 (+) phi_3, u0 + du_3), the state for the next step, the
    sample stored where due. Returns RUNNING or NONFINITE_STATE."""
    (Z, W, F, DW, Zold, f0, scal, ev, M, C, K, E1, piv1, E2, piv2, b1, b2, qs, us, phi, tau, kq, ku, q1, D, Cp,
     Kp) = rw[:27]
    nq = q.shape[0]
    nu = u.shape[0]
    for i in range(nu):
        phi[i] = Z[2, i]
        us[i] = u[i] + Z[2, nu + i]
    integrate_q(mi, ws, q, phi, 1.0, q1)
    hit = ctr[C_HIT]
    t_end = clk[K_TOUT] if hit else clk[K_T] + h
    bad = first_bad(q1, us)
    if bad >= 0:
        ctr[C_BAD] = bad
        clk[K_TBAD] = t_end
        return NONFINITE_STATE
    ctr[C_CHARTS] += after_step(mi, ws, 1, 0, max_angles, q1)
    for i in range(nq):
        q[i] = q1[i]
    for i in range(nu):
        u[i] = us[i]
    Zold[:, :] = Z
    rst[S_HOLD], rst[S_FIRST], rst[S_REJECT], rst[S_F0], rst[S_JACNOW] = h, 0.0, 0.0, 0.0, 0.0
    rst[S_ACCEPTED] += 1
    if rst[S_THETA] > ropt[R_THET]:  # a slow iteration: the next step forms its Jacobian
        rst[S_NEEDJAC] = 1.0
    if not hit:
        clk[K_H] = h_new
    else:  # a step cut to an output time leaves the controller's proposal standing
        clk[K_H] = max(clk[K_H], h_new) if h < clk[K_H] else h_new
    clk[K_T] = t_end
    ctr[C_STEP] += 1
    adapt = iopt[O_ADAPT]
    if adapt:
        ctr[C_OUT] += hit
        store = hit != 0 or iopt[O_EVERY] != 0
    else:
        store = ctr[C_STEP] % iopt[O_STRIDE] == 0 or ctr[C_STEP] == iopt[O_NSTEPS]
        if store:
            ctr[C_OUT] += 1
    if store:
        write_sample(mi, ws, chart0, clk[K_T], q, u, T, Q, U, ctr)
    return RUNNING


def _make_radau_loop(links, controlled, flex, ta):
    """The Radau loop (module docstring) with four constants: ``links`` (link wrenches
    among the force models), ``controlled`` (a Python control, as iopt[O_CONTROL] says),
    ``flex`` (modal bodies: their rates and the flex derivatives' Jacobian), ``ta`` (closed
    loops: the tree-augmented dynamics with Baumgarte gains, their analytic Jacobian; with
    ``flex`` too, the modal bodies' constrained dynamics and ``flex_ta_jacobian``)."""

    @variant(f"run_radau_links{int(links)}_controlled{int(controlled)}_flex{int(flex)}_ta{int(ta)}", nogil=True)
    def run(mi, mf, dbuf, fmi, fmf, tau0, iopt, fopt, ropt, rc, smap, max_angles, chart0, q, u, clk, ctr, ctl,
            T, Q, U, rw, rst):
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        model = (mi, mf, ws, ragged(dbuf, d0, n), frame_table(dbuf, n), constraint_table(dbuf, n), dbuf,
                 iopt[O_WORLDF], fmi, fmf)
        Z, F, Zold, f0, scal, ev, M, C = rw[0], rw[2], rw[4], rw[5], rw[6], rw[7], rw[8], rw[9]
        E1, piv1, b1, D = rw[11], rw[12], rw[15], rw[24]
        tauc, qview, uview = ctl
        adapt = iopt[O_ADAPT]
        nit = int(ropt[R_NIT])
        while True:
            if ctr[C_STAGE] < 0:
                st = _begin_step(adapt, iopt, fopt, clk, ctr, T.shape[0])
                if st != RUNNING:
                    return _stop(ctr, st)
            t = clk[K_T]
            h = clk[K_STEP]
            src = tau0
            if controlled and iopt[O_CONTROL]:
                if not (rst[S_CTL] != 0.0 and rst[S_CTLT] == t):  # (a retried step keeps its forces)
                    st = control_at_step_start(mi, ws, chart0, q, u, tau0, qview, uview, tauc, clk, ctr, t)
                    if st != RUNNING:
                        return _stop(ctr, st)
                    rst[S_CTL], rst[S_CTLT] = 1.0, t
                src = tauc
            if rst[S_READY] == 0.0:
                rst[S_READY], rst[S_F0], rst[S_NEEDJAC], rst[S_FIRST], rst[S_ACCEPTED] = 1.0, 0.0, 1.0, 1.0, 0.0
                # RADAU5's FACCON = 1 at the start: no rate known yet. At 0 (UROUND^0.8 in
                # the first test) the first steps stopped after one iteration each, faccon
                # only rising by the power 0.8 per step (fixed steps of the four-bar: order
                # 3 instead of 5)
                rst[S_FACCON] = 1.0
            ready = _prepare(flex, links, ta, model, ropt, rc, smap, t, h, q, u, src, rw, rst)
            if ready == 2 or (ready == 1 and not _retry(adapt, rst, ctr, clk, fopt, h, 0.5)):
                clk[K_TBAD] = t
                return _failed(ctr, q, u, SINGULAR)
            if ready == 1:
                continue
            _start_iterate(rc, h, rst, Z, Zold)
            if flex and ta:
                k = radau_newton_flex1_links0_ta1(model, t, h, q, u, src, rw, rc, ropt, rst, adapt)
            elif flex:
                k = radau_newton_flex1_links0_ta0(model, t, h, q, u, src, rw, rc, ropt, rst, adapt)
            elif ta and links:
                k = radau_newton_flex0_links1_ta1(model, t, h, q, u, src, rw, rc, ropt, rst, adapt)
            elif ta:
                k = radau_newton_flex0_links0_ta1(model, t, h, q, u, src, rw, rc, ropt, rst, adapt)
            elif links:
                k = radau_newton_flex0_links1_ta0(model, t, h, q, u, src, rw, rc, ropt, rst, adapt)
            else:
                k = radau_newton_flex0_links0_ta0(model, t, h, q, u, src, rw, rc, ropt, rst, adapt)
            if k == -3 and rst[S_JACNOW] == 0.0:  # fixed steps: once more with a fresh Jacobian
                rst[S_NEEDJAC] = 1.0
                continue
            if k == -3:
                rst[S_UNCONVERGED] += 1
                k = nit
            err = 0.0
            if k >= 0 and adapt:
                err = error_estimate(rc, h, Z, f0, F[1], ev, M, C, D, E1, piv1, b1, scal)
                if err >= 1.0 and (rst[S_FIRST] != 0.0 or rst[S_REJECT] != 0.0):
                    err = _second_estimate(flex, links, ta, model, rc, t, h, q, u, src, rw)
            if k < 0 or err >= 1.0:
                cut = rst[S_HHFAC] if k < 0 else _next_step(ropt, rst, h, err, k, nit) / h
                if not _retry(adapt, rst, ctr, clk, fopt, h, cut):
                    clk[K_TBAD] = t
                    return _failed(ctr, q, u, MIN_STEP if adapt else SINGULAR)
                continue
            h_new = _next_step(ropt, rst, h, err, k, nit) if adapt else h
            st = _accept(mi, ws, iopt, clk, ctr, rst, ropt, max_angles, chart0, q, u, rw, h, h_new, T, Q, U)
            if st != RUNNING:
                return _stop(ctr, st)

    return run


_LOOPS = {}


def radau_entry_point(links=True, control=True, flex=False, ta=False):
    """The compiled Radau loop ``run(mi, mf, dbuf, fmi, fmf, tau0, iopt, fopt, ropt, rc, smap,
    max_angles, chart0, q, u, clk, ctr, ctl, T, Q, U, rw, rst)`` (module docstring): ropt
    the method's options (``radau_newton.R_*``), rc ``radau_step.radau_constants()``, rw and
    rst from ``allocate_radau_work`` (with ``ta``: its ``ta_work``). Made (and compiled or
    loaded from the cache) on first use."""
    key = (int(bool(links)) and not flex, int(bool(control)), int(bool(flex)), int(bool(ta)))
    run = _LOOPS.get(key)
    if run is None:
        run = _LOOPS.setdefault(key, _make_radau_loop(*key))
    return run
