"""The compiled Runge-Kutta stepping loop: one Numba function advances many steps.

One loop serves every run: ``entry_point(lie, ta, links)`` gives its variant for classic or
Munthe-Kaas stepping, with or without constraints and link-level force models, or of a
model with modal bodies (``flex``: the stage rates of ``flex_stepping``), each
compiled on its first use (``_make_loop``). Without a control it goes on until the end time, a failure
or a full output buffer. With a Python control (``iopt[O_CONTROL] = 1``) it is
resumable: at each stage it forms the stage state, writes what the control needs
(``ctl`` = tau_out, q in the start charts, u; the stage time in clk[K_TSTAGE]), records
the stage in ctr[C_STAGE] and returns NEED_CONTROL; the caller calls
``control(t, q, u, tau_out)`` and then the loop again, which resumes at that stage.
All the partial state of a step lives in the arrays passed in (``work``, clk, ctr).

Between steps the rotation-vector charts are re-centred (``sanitize_charts``) in the
run's own data; stored samples are re-expressed in the charts the run started with
(``chart0``), so a whole trajectory uses one chart per subhinge. Statuses are the codes
of ``multibody.kernels.status``, also recorded in ctr[C_STATUS].
"""
import math

import numpy as np
from numba import njit

from ..kernels.common import constraint_table, data_start, first_nonfinite, frame_table, link_rows, ragged
from ..kernels.status import (
    BUFFER_FULL, CONTROL_NONFINITE, FINISHED, MIN_STEP, NEED_CONTROL, NONFINITE_STATE, RUNNING, SINGULAR,
)
from ..kernels.variants import variant
from .flex_stepping import flex_stage_rates
from .lie import to_start_charts
from .stages import after_step, combine, control_inputs, error_norm, first_bad, stage_rates, stage_state

__all__ = ["entry_point", "allocate_work"]

# --- counters (int64 array ctr)
C_STEP = 0       # accepted steps so far (fixed step: also the step index)
C_OUT = 1        # output samples taken so far (initial sample excluded)
C_REJECT = 2     # rejected steps
C_STATUS = 3
C_BAD = 4        # the non-finite entry: q index or nq + u index; tau index (CONTROL_NONFINITE)
C_WRITTEN = 5    # rows written into the current output buffer
C_CHARTS = 6     # chart re-centrings
C_STAGE = 7      # the stage waiting for its control (NEED_CONTROL); -1: none, a step starts
C_HIT = 8        # 1: the step in progress ends on the output time clk[K_TOUT]
N_CTR = 9

# --- clock (float64 array clk)
K_T = 0          # current time
K_H = 1          # proposed next step (adaptive)
K_TBAD = 2       # time at which a failure was detected
K_STEP = 3       # size of the step in progress
K_TOUT = 4       # the output time the step in progress aims at
K_TSTAGE = 5     # time of the stage waiting for its control
N_CLK = 6

# --- integer options (iopt)
O_LIE = 0        # 1: Munthe-Kaas
O_ADAPT = 1      # 1: adaptive (embedded tableau)
O_STRIDE = 2     # fixed step: store every stride-th step
O_NSTEPS = 3     # fixed step: total number of steps
O_NOUT = 4       # adaptive: total number of output samples after the initial one
O_WORLDF = 5     # 1: some external force is given in world axes (needs a kinematics pass)
O_CONTROL = 6    # 1: stop for a Python control at every stage (NEED_CONTROL)
O_EVERY = 7      # adaptive: 1 stores every accepted step, not only the output times (events)
N_IOPT = 8

# --- float options (fopt)
F_T0 = 0
F_DT = 1         # fixed step size, or output interval (adaptive)
F_TEND = 2
F_RTOL = 3
F_ATOL = 4
F_HMIN = 5
F_HMAX = 6
F_EXPO = 7       # step-size controller exponent 1 / (min(order, embedded order) + 1)
N_FOPT = 8


def allocate_work(nq, nu, n_stages, lie):
    """The arrays ``run`` keeps a step's partial state in: (work, ctl).

    work = (Kq, Ku, phi, qs, us, q1, u1, eq, eu, tau); ctl = (tau_out, q, u) of the control.
    """
    nk = nu if lie else nq
    work = (np.zeros((n_stages, max(nk, 1))), np.zeros((n_stages, max(nu, 1))), np.zeros(nu),
            np.empty(nq), np.empty(nu), np.empty(nq), np.empty(nu), np.zeros(max(nk, 1)),
            np.zeros(max(nu, 1)), np.empty(nu))
    return work, (np.empty(nu), np.empty(nq), np.empty(nu))


@njit(cache=True, inline="always")
def _begin_step(adapt, iopt, fopt, clk, ctr, nrow):
    """Size the next step (clk[K_STEP], clk[K_TOUT], ctr[C_HIT]; ``adapt``: adaptive
    stepping). Returns RUNNING, or BUFFER_FULL / FINISHED when no step is to be taken now."""
    if ctr[C_WRITTEN] >= nrow:
        return BUFFER_FULL
    t = clk[K_T]
    t0 = fopt[F_T0]
    dt = fopt[F_DT]
    if adapt:
        if ctr[C_OUT] >= iopt[O_NOUT]:
            return FINISHED
        t_out = fopt[F_TEND]  # the last output ends on t_final exactly (t0 + n dt may miss it by a rounding)
        if ctr[C_OUT] + 1 < iopt[O_NOUT]:
            t_out = min(t0 + (ctr[C_OUT] + 1) * dt, t_out)
        h = min(clk[K_H], fopt[F_HMAX])
        hit = 0
        if t + h >= t_out - 1e-12 * max(1.0, abs(t_out)):
            h = t_out - t
            hit = 1
    else:
        if ctr[C_STEP] >= iopt[O_NSTEPS]:
            return FINISHED
        t_out = fopt[F_TEND]
        if ctr[C_STEP] + 1 < iopt[O_NSTEPS]:
            t_out = min(t0 + (ctr[C_STEP] + 1) * dt, t_out)
        h = t_out - t
        hit = 1
    clk[K_STEP] = h
    clk[K_TOUT] = t_out
    ctr[C_HIT] = hit
    return RUNNING


@njit(cache=True, inline="always")
def control_at_step_start(mi, ws, chart0, q, u, tau0, qview, uview, tauc, clk, ctr, t):
    """The hand-over to a Python control once per step, at its start (the contact and
    generalized-alpha loops; the RK loop hands over at every stage, with its stage state).
    On the first visit: the control's inputs written, NEED_CONTROL returned (the loop stops,
    the control fills tauc, the loop resumes here). On the resumed visit: RUNNING, or
    CONTROL_NONFINITE with the first bad entry of tauc recorded."""
    if ctr[C_STAGE] != 0:
        control_inputs(mi, ws, 0, chart0, q, u, tau0, qview, uview, tauc)
        clk[K_TSTAGE] = t
        ctr[C_STAGE] = 0
        return NEED_CONTROL
    ctr[C_STAGE] = -1
    bad = first_nonfinite(tauc)
    if bad >= 0:
        ctr[C_BAD] = bad
        clk[K_TBAD] = t
        return CONTROL_NONFINITE
    return RUNNING


@njit(cache=True, inline="always")
def write_sample(mi, ws, chart0, t, q, u, T, Q, U, ctr):
    """Store the sample (t, q re-expressed in the run's start charts, u) in the next output
    row and count it (the implicit and contact loops; the RK loop writes its own, with a
    variant without charts). Returns the row."""
    w = ctr[C_WRITTEN]
    T[w] = t
    to_start_charts(mi, ws, chart0, q, Q[w])
    for i in range(u.shape[0]):
        U[w, i] = u[i]
    ctr[C_WRITTEN] = w + 1
    return w


@njit(cache=True, inline="always")
def _stop(ctr, status):
    ctr[C_STATUS] = status
    return status


@njit(cache=True, inline="always")
def _failed(ctr, q, u, otherwise):
    """Record why a run stops: NONFINITE_STATE (with the first bad entry of q, u) if the
    state holds NaN/inf, else ``otherwise``; returns the status."""
    b = first_bad(q, u)
    if b >= 0:
        ctr[C_BAD] = b
        return _stop(ctr, NONFINITE_STATE)
    return _stop(ctr, otherwise)


@njit(cache=True, inline="always")
def _accept(lie, smap, fopt, clk, ctr, h, hit, q, q1, eq, u, u1, eu):
    """Error control of an adaptive step: True to accept it; sets the next proposed step
    clk[K_H] and counts rejections."""
    err = error_norm(lie, smap, q, q1, eq, u, u1, eu, fopt[F_RTOL], fopt[F_ATOL])
    if not err <= 1.0:
        ctr[C_REJECT] += 1
        fac = 0.2
        if math.isfinite(err):
            fac = max(0.2, 0.9 * err ** (-fopt[F_EXPO]))
        clk[K_H] = h * fac
        return False
    fac = 5.0 if err == 0.0 else min(5.0, max(0.2, 0.9 * err ** (-fopt[F_EXPO])))
    if not hit:
        clk[K_H] = h * fac
    else:
        clk[K_H] = max(clk[K_H], h * fac) if h < clk[K_H] else h * fac
    return True


def _make_loop(lie, ta, links, adaptive, controlled, flex=0, pins=0):
    """The stepping loop (see ``entry_point``) with six constants of a closure: ``lie``
    (Munthe-Kaas stepping), ``ta`` (tree-augmented constrained dynamics, the work array
    Wc), ``links`` (link-level force models: wrenches, world wrenches, linear springs),
    ``adaptive`` and ``controlled`` (0: never; 1: as iopt[O_ADAPT], iopt[O_CONTROL] say),
    ``flex`` (modal bodies: the stage rates of ``flex_stepping``, on dbuf's flex region) and
    ``pins`` (every link a PIN, ``joint_transform.pin_variant``: the PIN-only ABA, q_dot = u,
    no quaternion to normalise, no chart to re-centre or map back).

    Numba folds the branches on them before it types the loop, so each variant compiles
    only the code it runs (fixed-step classic stepping of a tree without a control or link
    forces: no Munthe-Kaas maps, no TA, no error control, no kinematics pass, no linear
    spring; lie as a constant is faster than read from iopt: bench/README.md), and the
    loop is compiled as this one function: inlined into entry points, its whole IR was
    copied first (3 s of a cold start). Each variant is compiled and cached under its own
    name (``loop_name``, see ``kernels/variants.py``). Trees leave Wc out.
    """

    @variant(loop_name(lie, ta, links, adaptive, controlled, flex, pins))
    def run(mi, mf, dbuf, tab, fmi, fmf, tau0, iopt, fopt, smap, max_angles, chart0,
            q, u, clk, ctr, work, ctl, T, Q, U, Wc=None):
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        z = ragged(dbuf, d0, n)
        fr = frame_table(dbuf, n)
        cr = constraint_table(dbuf, n)
        Kq, Ku, phi, qs, us, q1, u1, eq, eu, tau = work
        tauc, qview, uview = ctl
        nq = q.shape[0]
        nu = u.shape[0]
        S = tab.shape[1]
        adapt = 0
        if adaptive:
            adapt = iopt[O_ADAPT]
        control = 0
        if controlled:
            control = iopt[O_CONTROL]
        every = 0
        if adaptive:
            every = iopt[O_EVERY]
        worldf = iopt[O_WORLDF]
        nrow = T.shape[0]
        while True:
            s0 = ctr[C_STAGE]
            if s0 < 0:
                st = _begin_step(adapt, iopt, fopt, clk, ctr, nrow)
                if st != RUNNING:
                    return _stop(ctr, st)
                s0 = 0
            t = clk[K_T]
            h = clk[K_STEP]
            ok = True
            for s in range(s0, S):
                ts = t + tab[S + 2, s] * h
                if controlled and control:  # (controlled: the constant, pruned before inlining)
                    if ctr[C_STAGE] != s:
                        stage_state(mi, ws, tab, s, h, lie, q, u, Kq, Ku, phi, qs, us)
                        control_inputs(mi, ws, pins, chart0, qs, us, tau0, qview, uview, tauc)
                        clk[K_TSTAGE] = ts
                        ctr[C_STAGE] = s
                        return _stop(ctr, NEED_CONTROL)
                    # resumed: the stage state is formed and tauc holds the control's forces
                    ctr[C_STAGE] = -1
                    b = first_nonfinite(tauc)
                    if b >= 0:
                        ctr[C_BAD] = b
                        clk[K_TBAD] = ts
                        return _stop(ctr, CONTROL_NONFINITE)
                    src = tauc
                else:
                    stage_state(mi, ws, tab, s, h, lie, q, u, Kq, Ku, phi, qs, us)
                    src = tau0
                if flex:  # (a constant: rigid variants compile none of it)
                    ok = flex_stage_rates(mi, mf, ws, dbuf, lie, ta, Wc, fmi, fmf, ts, qs, us, phi, src, tau,
                                          Kq[s], Ku[s])
                else:
                    ok = stage_rates(mi, mf, ws, z, lie, ta, links, pins, fr, cr, Wc, worldf, fmi, fmf, ts, qs, us, phi,
                                     src, tau, Kq[s], Ku[s])
                if not ok:
                    # A later stage's trial state may leave where the model is defined (a modal
                    # body's stiffened M(eta) is definite only up to some deflection): an
                    # adaptive step is then rejected like one whose error is not finite.
                    if adaptive and adapt and s > 0 and 0.2 * h >= fopt[F_HMIN]:
                        ctr[C_REJECT] += 1
                        clk[K_H] = 0.2 * h
                        break
                    clk[K_TBAD] = ts
                    return _failed(ctr, qs, us, SINGULAR)
            if not ok:
                continue
            combine(mi, ws, tab, h, lie, adapt, q, u, Kq, Ku, phi, q1, u1, eq, eu)
            hit = ctr[C_HIT]
            t_end = clk[K_TOUT] if hit else t + h
            if adaptive and adapt and not _accept(lie, smap, fopt, clk, ctr, h, hit, q, q1, eq, u, u1, eu):
                if clk[K_H] < fopt[F_HMIN]:
                    clk[K_TBAD] = t
                    return _failed(ctr, q1, u1, MIN_STEP)
                continue
            b = first_bad(q1, u1)
            if b >= 0:
                ctr[C_BAD] = b
                clk[K_TBAD] = t_end
                return _stop(ctr, NONFINITE_STATE)
            ctr[C_CHARTS] += after_step(mi, ws, lie, pins, max_angles, q1)
            for i in range(nq):
                q[i] = q1[i]
            for i in range(nu):
                u[i] = u1[i]
            clk[K_T] = t_end
            ctr[C_STEP] += 1
            if adapt:
                ctr[C_OUT] += hit
                store = hit != 0 or every != 0
            else:
                store = ctr[C_STEP] % iopt[O_STRIDE] == 0 or ctr[C_STEP] == iopt[O_NSTEPS]
                if store:
                    ctr[C_OUT] += 1
            if store:
                w = ctr[C_WRITTEN]
                T[w] = clk[K_T]
                if pins:  # no charts: q is in the start charts
                    for i in range(nq):
                        Q[w, i] = q[i]
                else:
                    to_start_charts(mi, ws, chart0, q, Q[w])
                for i in range(nu):
                    U[w, i] = u[i]
                ctr[C_WRITTEN] = w + 1

    return run


def loop_name(lie, ta, links, adaptive, controlled, flex, pins):
    """The name of a variant of the stepping loop: ``run`` and its constants, e.g.
    ``run_lie0_ta0_links1_adaptive1_controlled1_flex0_pins0``."""
    flags = dict(lie=lie, ta=ta, links=links, adaptive=adaptive, controlled=controlled, flex=flex, pins=pins)
    return "run_" + "_".join(f"{k}{int(bool(v))}" for k, v in flags.items())


_LOOPS = {}


def entry_point(lie, ta=False, links=True, adaptive=True, control=True, flex=False, pins=False):
    """The compiled loop ``run`` for classic (lie = 0) or Munthe-Kaas (lie = 1) stepping, of a
    tree (ta False) or of a model with constraints (ta True, one more argument: the
    constraint work array Wc with its Baumgarte gains, see kernels/constrained_dynamics.py),
    with or without link-level force models (``links``, see ``force_kernels.link_forces``;
    without, only springs and limits are applied), adaptive steps (``adaptive``: as
    iopt[O_ADAPT] says; False: fixed steps only) and a Python control (``control``: as
    iopt[O_CONTROL] says; False: none), for a model with modal bodies (``flex``: its flex
    tables and work in dbuf; with ``ta`` its constrained dynamics on Wc; joint force models
    only), for a
    model whose links are all PIN (``pins``, ``joint_transform.pin_variant``; trees only):
    ``entry_point(lie)(mi, mf, dbuf, tab, fmi, fmf,
    tau0, iopt, fopt, smap, max_angles, chart0, q, u, clk, ctr, work, ctl, T, Q, U)``
    advances (q, u, clk[K_T]) until the end time, a failure, a full output buffer or (with
    a control) the next stage that needs the control. It writes output samples (times T,
    configurations Q in the charts chart0, speeds U) from row ctr[C_WRITTEN], updates q,
    u, clk and ctr in place and returns the status. Each variant is made (and compiled,
    or loaded from Numba's cache) on its first use."""
    key = tuple(int(bool(x)) for x in (lie, ta, links, adaptive, control, flex, pins and not (ta or flex)))
    run = _LOOPS.get(key)
    if run is None:
        run = _LOOPS.setdefault(key, _make_loop(*key))
    return run
