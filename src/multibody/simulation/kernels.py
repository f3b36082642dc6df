"""Compiled Runge-Kutta stepping: one Numba function loops over many steps.

The state is (q, u). Two ways of forming the stage configurations:

* classic (``lie = 0``): Runge-Kutta on the coordinates, q_dot = N(q) u; quaternion
  blocks are re-normalised after each accepted step.
* Munthe-Kaas (``lie = 1``): each step works in local exponential coordinates
  phi (nu,) around the configuration q0 at the start of the step,
  q(phi) = q0 (+) phi (``integrate_q``), with
  phi_dot = dexp^-1_{-phi}(u) = u + 1/2 ad_phi u + 1/12 ad_phi^2 u - 1/720 ad_phi^4 u ...
  (closed form Jr(phi)^-1 u on SO(3)); for scalar coordinates phi_dot = u and the
  method is the classic one. Quaternions stay unit by construction.

Between steps the rotation-vector charts are re-centred (``sanitize_charts``) on a
private copy of ``mf``; stored samples are re-expressed in the charts the run
started with (``chart0``), so a whole trajectory uses one chart per subhinge.

Status codes (``ctr[C_STATUS]``): 0 running, 1 finished, 2 output buffer full,
3 non-finite state, 4 singular joint-space inertia, 5 step size below h_min.
"""
import math

import numpy as np
from numba import njit

from ..kernels.common import first_nonfinite, split_data
from ..kernels.status import BUFFER_FULL, FINISHED, MIN_STEP, NONFINITE_STATE, RUNNING, SINGULAR  # noqa: F401
from ..kernels.coordinates import _jr_inv_times, _quat_exp, _quat_log, _quat_mul, integrate_q, qdot_from_u
from ..kernels.coordinates import sanitize_charts
from ..kernels.forward_dynamics import aba_core
from ..kernels.joint_transform import forward_kinematics_pass
from ..kernels.spatial_inline import load9, mul33T_vec
from ..kernels.layout import (
    FREE, FREE_QUAT, KIND, NU, QOFF, SPHERICAL, SPHERICAL_QUAT, UOFF, W_CHART, W_FEXT, W_RW,
)

# --- status codes
# one numbering with the kernels and the facade: multibody.kernels.status
NONFINITE = NONFINITE_STATE

# --- counters (int64 array ctr)
C_STEP = 0       # accepted steps so far (fixed step: also the step index)
C_OUT = 1        # output samples taken so far (initial sample excluded)
C_REJECT = 2     # rejected steps
C_STATUS = 3
C_BAD = 4        # index of the non-finite entry: q index, or nq + u index
C_WRITTEN = 5    # rows written into the current output buffer
C_CHARTS = 6     # chart re-centrings
N_CTR = 7

# --- clock (float64 array clk)
K_T = 0          # current time
K_H = 1          # proposed next step (adaptive)
K_TBAD = 2       # time at which a failure was detected
N_CLK = 3

# --- integer options (iopt)
O_LIE = 0        # 1: Munthe-Kaas
O_ADAPT = 1      # 1: adaptive (embedded tableau)
O_STRIDE = 2     # fixed step: store every stride-th step
O_NSTEPS = 3     # fixed step: total number of steps
O_NOUT = 4       # adaptive: total number of output samples after the initial one
O_WORLDF = 5     # 1: some external force is given in world axes (needs a kinematics pass)
N_IOPT = 6

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

# --- force-model entries: fmi[e] = (type, index, index2), fmf[e] = parameters
FM_SPRING = 0    # tau[u_i] += -k (q[q_i] - q_ref) - c u[u_i]; fmf: k, c, q_ref
FM_WRENCH = 1    # link wrench (link axes) w0 + w1 sin(omega t + phase); fmf: w0(6), w1(6), omega, phase
FM_WORLD = 2     # world-axes wrench at a point p (link frame) of the link; fmf as FM_WRENCH, p at 14


@njit(cache=True, inline="always")
def apply_forces(mi, ws, fmi, fmf, q, u, t, tau0, tau):
    """tau = tau0 + spring-dampers; fill ws[:, W_FEXT]; return the use_fext flag."""
    for i in range(tau.shape[0]):
        tau[i] = tau0[i]
    nf = fmi.shape[0]
    if nf == 0:
        return 0
    use = 0
    for j in range(mi.shape[0]):
        for k in range(6):
            ws[j, W_FEXT + k] = 0.0
    for e in range(nf):
        typ = fmi[e, 0]
        if typ == FM_SPRING:
            ui = fmi[e, 1]
            qi = fmi[e, 2]
            tau[ui] += -fmf[e, 0] * (q[qi] - fmf[e, 2]) - fmf[e, 1] * u[ui]
        else:
            use = 1
            j = fmi[e, 1]
            s = math.sin(fmf[e, 12] * t + fmf[e, 13])
            if typ == FM_WRENCH:
                for k in range(6):
                    ws[j, W_FEXT + k] += fmf[e, k] + fmf[e, 6 + k] * s
            else:
                # world axes -> link axes (R_world_link^T), moment moved to the link origin
                m0 = fmf[e, 0] + fmf[e, 6] * s
                m1 = fmf[e, 1] + fmf[e, 7] * s
                m2 = fmf[e, 2] + fmf[e, 8] * s
                f0 = fmf[e, 3] + fmf[e, 9] * s
                f1 = fmf[e, 4] + fmf[e, 10] * s
                f2 = fmf[e, 5] + fmf[e, 11] * s
                R = load9(ws, j, W_RW)
                n = mul33T_vec(R, m0, m1, m2)
                f = mul33T_vec(R, f0, f1, f2)
                px = fmf[e, 14]
                py = fmf[e, 15]
                pz = fmf[e, 16]
                ws[j, W_FEXT] += n[0] + py * f[2] - pz * f[1]
                ws[j, W_FEXT + 1] += n[1] + pz * f[0] - px * f[2]
                ws[j, W_FEXT + 2] += n[2] + px * f[1] - py * f[0]
                ws[j, W_FEXT + 3] += f[0]
                ws[j, W_FEXT + 4] += f[1]
                ws[j, W_FEXT + 5] += f[2]
    return use


@njit(cache=True, inline="always")
def _ad(ax, ay, az, bx, by, bz, w0, w1, w2, v0, v1, v2):
    """ad_xi eta for xi = [a; b], eta = [w; v] (se(3)): [a x w; a x v + b x w]."""
    return (ay * w2 - az * w1, az * w0 - ax * w2, ax * w1 - ay * w0,
            ay * v2 - az * v1 + by * w2 - bz * w1,
            az * v0 - ax * v2 + bz * w0 - bx * w2,
            ax * v1 - ay * v0 + bx * w1 - by * w0)


@njit(cache=True)
def dexp_inv(mi, phi, u, out):
    """out = dexp^-1_{-phi}(u) per link: the rate of the local exponential coordinates
    phi (q = q0 (+) phi) whose body velocity is u."""
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        k = mi[j, UOFF]
        if kind == SPHERICAL or kind == SPHERICAL_QUAT:
            d = _jr_inv_times(phi[k], phi[k + 1], phi[k + 2], u[k], u[k + 1], u[k + 2])
            out[k] = d[0]
            out[k + 1] = d[1]
            out[k + 2] = d[2]
        elif kind == FREE or kind == FREE_QUAT:
            a0, a1, a2, b0, b1, b2 = phi[k], phi[k + 1], phi[k + 2], phi[k + 3], phi[k + 4], phi[k + 5]
            e1 = _ad(a0, a1, a2, b0, b1, b2, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5])
            e2 = _ad(a0, a1, a2, b0, b1, b2, e1[0], e1[1], e1[2], e1[3], e1[4], e1[5])
            e3 = _ad(a0, a1, a2, b0, b1, b2, e2[0], e2[1], e2[2], e2[3], e2[4], e2[5])
            e4 = _ad(a0, a1, a2, b0, b1, b2, e3[0], e3[1], e3[2], e3[3], e3[4], e3[5])
            for r in range(6):
                out[k + r] = u[k + r] + 0.5 * e1[r] + e2[r] / 12.0 - e4[r] / 720.0
            # the rotation part in closed form (exact on SO(3))
            d = _jr_inv_times(a0, a1, a2, u[k], u[k + 1], u[k + 2])
            out[k] = d[0]
            out[k + 1] = d[1]
            out[k + 2] = d[2]
        else:
            n = mi[j, NU]
            for r in range(n):
                out[k + r] = u[k + r]


@njit(cache=True)
def normalize_quaternions(mi, q):
    """Scale every quaternion block of q to unit length."""
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        if kind == SPHERICAL_QUAT or kind == FREE_QUAT:
            i = mi[j, QOFF]
            n = math.sqrt(q[i] ** 2 + q[i + 1] ** 2 + q[i + 2] ** 2 + q[i + 3] ** 2)
            for r in range(4):
                q[i + r] /= n


@njit(cache=True)
def to_start_charts(mi, ws, chart0, q, out):
    """out = q re-expressed in the charts ``chart0`` (n_links, 4) of the start of the run."""
    for i in range(q.shape[0]):
        out[i] = q[i]
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        if kind != SPHERICAL and kind != FREE:
            continue
        same = True
        for r in range(4):
            if ws[j, W_CHART + r] != chart0[j, r]:
                same = False
        if same:
            continue
        i = mi[j, QOFF]
        e = _quat_exp(q[i], q[i + 1], q[i + 2])
        c = _quat_mul(ws[j, W_CHART], ws[j, W_CHART + 1], ws[j, W_CHART + 2], ws[j, W_CHART + 3], e[0], e[1], e[2], e[3])
        d = _quat_mul(-chart0[j, 0], -chart0[j, 1], -chart0[j, 2], chart0[j, 3], c[0], c[1], c[2], c[3])
        v = _quat_log(d[0], d[1], d[2], d[3])
        out[i] = v[0]
        out[i + 1] = v[1]
        out[i + 2] = v[2]


@njit(cache=True, inline="always")
def stage_state(mi, ws, tab, s, h, lie, q, u, Kq, Ku, phi, qs, us):
    """Configuration and speeds of stage s (rows 0..s-1 of Kq, Ku are known)."""
    nu = u.shape[0]
    if lie:
        for i in range(nu):
            a = 0.0
            for r in range(s):
                a += tab[s, r] * Kq[r, i]
            phi[i] = h * a
        integrate_q(mi, ws, q, phi, 1.0, qs)
    else:
        for i in range(q.shape[0]):
            a = 0.0
            for r in range(s):
                a += tab[s, r] * Kq[r, i]
            qs[i] = q[i] + h * a
    for i in range(nu):
        a = 0.0
        for r in range(s):
            a += tab[s, r] * Ku[r, i]
        us[i] = u[i] + h * a


@njit(cache=True, inline="always")
def stage_rates(mi, mf, ws, z, lie, worldf, fmi, fmf, t, qs, us, phi, tau0, tau, kq, ku):
    """Rates of one stage: ku = udot, kq = q_dot (classic) or phi_dot (Munthe-Kaas).
    Returns False when the joint-space inertia is singular."""
    if worldf:
        forward_kinematics_pass(mi, mf, ws, qs)
    use = apply_forces(mi, ws, fmi, fmf, qs, us, t, tau0, tau)
    if not aba_core(mi, mf, ws, z, qs, us, tau, use, ku):
        return False
    if lie:
        dexp_inv(mi, phi, us, kq)
    else:
        qdot_from_u(mi, ws, qs, us, kq)
    return True


@njit(cache=True, inline="always")
def combine(mi, ws, tab, h, lie, adapt, q, u, Kq, Ku, phi, q1, u1, eq, eu):
    """q1, u1 = the propagated solution; eq, eu = the embedded error estimate (if adapt)."""
    S = tab.shape[1]
    nq = q.shape[0]
    nu = u.shape[0]
    nk = nu if lie else nq
    for i in range(nk):
        a = 0.0
        e = 0.0
        for r in range(S):
            a += tab[S, r] * Kq[r, i]
            e += tab[S + 1, r] * Kq[r, i]
        if lie:
            phi[i] = h * a
        else:
            q1[i] = q[i] + h * a
        if adapt:
            eq[i] = h * e
    if lie:
        integrate_q(mi, ws, q, phi, 1.0, q1)
    for i in range(nu):
        a = 0.0
        e = 0.0
        for r in range(S):
            a += tab[S, r] * Ku[r, i]
            e += tab[S + 1, r] * Ku[r, i]
        u1[i] = u[i] + h * a
        if adapt:
            eu[i] = h * e


@njit(cache=True, inline="always")
def error_norm(lie, smap, q, q1, eq, u, u1, eu, rtol, atol):
    """RMS of the error estimate scaled by atol + rtol |y| (rotation coordinates: |y| = 1)."""
    acc = 0.0
    n = 0
    if lie:
        for i in range(eq.shape[0]):
            k = smap[i]
            y = 1.0 if k < 0 else max(abs(q[k]), abs(q1[k]))
            acc += (eq[i] / (atol + rtol * y)) ** 2
            n += 1
    else:
        for i in range(q.shape[0]):
            acc += (eq[i] / (atol + rtol * max(abs(q[i]), abs(q1[i])))) ** 2
            n += 1
    for i in range(u.shape[0]):
        acc += (eu[i] / (atol + rtol * max(abs(u[i]), abs(u1[i])))) ** 2
        n += 1
    return math.sqrt(acc / max(n, 1))


@njit(cache=True, inline="always")
def after_step(mi, ws, lie, max_angles, q1, ctr):
    """Keep quaternions unit (classic mode) and re-centre charts; count re-centrings."""
    if not lie:
        normalize_quaternions(mi, q1)
    ctr[C_CHARTS] += sanitize_charts(mi, ws, q1, max_angles)


@njit(cache=True)
def first_bad(q, u):
    """Index of the first non-finite entry of [q; u], or -1."""
    i = first_nonfinite(q)
    if i >= 0:
        return i
    i = first_nonfinite(u)
    if i >= 0:
        return q.shape[0] + i
    return -1


@njit(cache=True, inline="always")
def _failed(ctr, q, u, otherwise):
    """Record why a run stops: NONFINITE (with the first bad entry of q, u) if the state
    holds NaN/inf, else ``otherwise``; returns the status."""
    status = otherwise
    b = first_bad(q, u)
    if b >= 0:
        ctr[C_BAD] = b
        status = NONFINITE
    ctr[C_STATUS] = status
    return status


@njit(cache=True)
def run(mi, mf, dbuf, tab, fmi, fmf, tau0, iopt, fopt, smap, max_angles, chart0,
        q, u, clk, ctr, T, Q, U):
    """Advance (q, u, clk[K_T]) until the end time, a failure, or a full output buffer.

    Writes output samples (times T, configurations Q in the charts chart0, speeds U)
    from row ctr[C_WRITTEN]; updates q, u, clk and ctr in place. Returns the status.
    """
    flags, ws, z = split_data(dbuf, mi.shape[0])
    nq = q.shape[0]
    nu = u.shape[0]
    S = tab.shape[1]
    lie = iopt[O_LIE]
    adapt = iopt[O_ADAPT]
    worldf = iopt[O_WORLDF]
    nk = nu if lie else nq
    Kq = np.zeros((S, max(nk, 1)))
    Ku = np.zeros((S, max(nu, 1)))
    phi = np.zeros(nu)
    qs = np.empty(nq)
    us = np.empty(nu)
    q1 = np.empty(nq)
    u1 = np.empty(nu)
    eq = np.zeros(max(nk, 1))
    eu = np.zeros(max(nu, 1))
    tau = np.empty(nu)
    t0 = fopt[F_T0]
    dt = fopt[F_DT]
    tend = fopt[F_TEND]
    nrow = T.shape[0]
    while True:
        if ctr[C_WRITTEN] >= nrow:
            ctr[C_STATUS] = BUFFER_FULL
            return BUFFER_FULL
        t = clk[K_T]
        if adapt:
            if ctr[C_OUT] >= iopt[O_NOUT]:
                ctr[C_STATUS] = FINISHED
                return FINISHED
            t_out = min(t0 + (ctr[C_OUT] + 1) * dt, tend)
            h = min(clk[K_H], fopt[F_HMAX])
            hit = False
            if t + h >= t_out - 1e-12 * max(1.0, abs(t_out)):
                h = t_out - t
                hit = True
        else:
            if ctr[C_STEP] >= iopt[O_NSTEPS]:
                ctr[C_STATUS] = FINISHED
                return FINISHED
            t_out = min(t0 + (ctr[C_STEP] + 1) * dt, tend)
            h = t_out - t
            hit = True
        for s in range(S):
            stage_state(mi, ws, tab, s, h, lie, q, u, Kq, Ku, phi, qs, us)
            if not stage_rates(mi, mf, ws, z, lie, worldf, fmi, fmf, t + tab[S + 2, s] * h, qs, us, phi,
                               tau0, tau, Kq[s], Ku[s]):
                clk[K_TBAD] = t + tab[S + 2, s] * h
                return _failed(ctr, qs, us, SINGULAR)
        combine(mi, ws, tab, h, lie, adapt, q, u, Kq, Ku, phi, q1, u1, eq, eu)
        if adapt:
            err = error_norm(lie, smap, q, q1, eq, u, u1, eu, fopt[F_RTOL], fopt[F_ATOL])
            if not err <= 1.0:
                ctr[C_REJECT] += 1
                fac = 0.2
                if math.isfinite(err):
                    fac = max(0.2, 0.9 * err ** (-fopt[F_EXPO]))
                clk[K_H] = h * fac
                if clk[K_H] < fopt[F_HMIN]:
                    clk[K_TBAD] = t
                    return _failed(ctr, q1, u1, MIN_STEP)
                continue
            fac = 5.0 if err == 0.0 else min(5.0, max(0.2, 0.9 * err ** (-fopt[F_EXPO])))
            if not hit:
                clk[K_H] = h * fac
            else:
                clk[K_H] = max(clk[K_H], h * fac) if h < clk[K_H] else h * fac
        b = first_bad(q1, u1)
        if b >= 0:
            ctr[C_BAD] = b
            clk[K_TBAD] = t_out if hit else t + h
            ctr[C_STATUS] = NONFINITE
            return NONFINITE
        after_step(mi, ws, lie, max_angles, q1, ctr)
        for i in range(nq):
            q[i] = q1[i]
        for i in range(nu):
            u[i] = u1[i]
        clk[K_T] = t_out if hit else t + h
        ctr[C_STEP] += 1
        store = False
        if adapt:
            if hit:
                ctr[C_OUT] += 1
                store = True
        else:
            if ctr[C_STEP] % iopt[O_STRIDE] == 0 or ctr[C_STEP] == iopt[O_NSTEPS]:
                ctr[C_OUT] += 1
                store = True
        if store:
            w = ctr[C_WRITTEN]
            T[w] = clk[K_T]
            to_start_charts(mi, ws, chart0, q, Q[w])
            for i in range(nu):
                U[w, i] = u[i]
            ctr[C_WRITTEN] = w + 1
