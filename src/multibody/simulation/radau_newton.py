"""The simplified Newton iteration and the error estimate of a Radau IIA step (Hairer &
Wanner's RADAU5, section IV.8), compiled per variant of the loop (``radau_loop``): rigid
trees with or without link-level force models, their tree-augmented closed-loop dynamics
(``ta``), or modal bodies (``flex``), with enabled constraints too (``flex`` and ``ta``).

``newton`` iterates on W = T^-1 Z (``radau_step``): per iteration the three stage rates,
the transformed residuals, one real and one complex solve on the factored matrices, the
correction's scaled RMS norm dyno. Its rate theta = dyno_k / dyno_{k-1} (the geometric mean
of the last two from the third iteration on) stops it early: theta >= 0.99 (divergence:
the step is halved), or a predicted last correction theta^(nit-1-k) / (1 - theta) dyno
above the tolerance fnewt (too slow: the step is cut by 0.8 of that ratio to the power
-1 / (4 + nit - 1 - k)). It converges when theta / (1 - theta) dyno <= fnewt.
"""
import math

from numba import njit

from ..kernels.variants import variant
from .flex_stepping import flex_stage_rates
from .stages import stage_rates
from .radau_step import (
    RC_ALPHA, RC_BETA, RC_C, RC_DD, RC_GAMMA, RC_T, RC_TI, UROUND, solve_complex, solve_real, stage_point,
)

__all__ = ["newton_variant", "rate", "radau_newton_flex0_links0_ta0",
           "radau_newton_flex0_links1_ta0", "radau_newton_flex1_links0_ta0", "radau_newton_flex1_links0_ta1",
           "radau_newton_flex0_links0_ta1",
           "radau_newton_flex0_links1_ta1",
           "error_estimate", "scaled_rms", "R_RTOL", "R_ATOL", "R_FNEWT", "R_NIT", "R_THET", "N_ROPT", "S_THETA",
           "S_FACCON", "S_HHFAC", "S_ITERS"]

# --- options (float64 array ropt)
R_RTOL = 0       # the tolerances of the error norm (the user's, transformed as RADAU5 does)
R_ATOL = 1
R_FNEWT = 2      # the Newton iteration's tolerance (relative to the error norm's scale)
R_NIT = 3        # the most Newton iterations of a step
R_THET = 4       # a step whose Newton rate theta is below this keeps its Jacobian
N_ROPT = 5

# --- method state shared with the loop (float64 array rst; the loop's own entries follow)
S_THETA = 0      # the last Newton rate
S_FACCON = 1     # theta / (1 - theta) of the last iteration (carried to the next step)
S_HHFAC = 2      # the factor a failed iteration cuts the step by
S_ITERS = 3      # Newton iterations of the run


@njit(cache=True, inline="always")
def _transformed_residual(rc, h, F, W, DW):
    """DW = T^-1 F - Lambda W / h (Lambda = T^-1 A^-1 T, block form)."""
    g, al, be = rc[RC_GAMMA], rc[RC_ALPHA], rc[RC_BETA]
    for i in range(F.shape[1]):
        g0 = rc[RC_TI] * F[0, i] + rc[RC_TI + 1] * F[1, i] + rc[RC_TI + 2] * F[2, i]
        g1 = rc[RC_TI + 3] * F[0, i] + rc[RC_TI + 4] * F[1, i] + rc[RC_TI + 5] * F[2, i]
        g2 = rc[RC_TI + 6] * F[0, i] + rc[RC_TI + 7] * F[1, i] + rc[RC_TI + 8] * F[2, i]
        DW[0, i] = g0 - g * W[0, i] / h
        DW[1, i] = g1 - (al * W[1, i] + be * W[2, i]) / h
        DW[2, i] = g2 - (-be * W[1, i] + al * W[2, i]) / h


@njit(cache=True, inline="always")
def _transform(Tm, off, X, Y):
    """Y = (Tm (x) I) X, Tm the 3 x 3 block of rc from ``off``."""
    for i in range(X.shape[1]):
        x0, x1, x2 = X[0, i], X[1, i], X[2, i]
        for k in range(3):
            Y[k, i] = Tm[off + 3 * k] * x0 + Tm[off + 3 * k + 1] * x1 + Tm[off + 3 * k + 2] * x2


@njit(cache=True, inline="always")
def scaled_rms(X, scal, rows):
    """sqrt(mean((X[r, i] / scal[i])^2)) over the first ``rows`` rows of X (2-D) ."""
    acc = 0.0
    for r in range(rows):
        for i in range(X.shape[1]):
            acc += (X[r, i] / scal[i]) ** 2
    return math.sqrt(acc / (rows * X.shape[1]))


def rate_variant(flex, links, ta):
    """The compiled ``rate(model, t, q0, u0, zrow, src, rw, out)`` of the variant: out =
    f(t, y0 + zrow) (2 nu,), (phi_dot, u_dot) at ``radau_step.stage_point``, on the scratch of
    rw (``ta``: the tree-augmented dynamics with the run's constraint work rw[27][0]); False if
    an inertia is singular there. Compiled once per variant (the iteration, the step's start
    and the error estimate call it: inlined in each, the force models' code was compiled
    three times over); the rigid or flex rates picked by a branch on the variant's constant,
    pruned before Numba inlines them."""

    @variant(f"radau_rate_flex{int(flex)}_links{int(links)}_ta{int(ta)}")
    def rate(model, t, q0, u0, zrow, src, rw, out):
        mi, mf, ws, z, fr, cr, dbuf, worldf, fmi, fmf = model
        qs, us, phi, tau = rw[17], rw[18], rw[19], rw[20]
        n = u0.shape[0]
        stage_point(mi, ws, q0, u0, zrow, qs, us, phi)
        if flex:
            return flex_stage_rates(mi, mf, ws, dbuf, 1, ta, rw[27][0], fmi, fmf, t, qs, us, phi, src, tau, out[:n],
                                    out[n:])
        return stage_rates(mi, mf, ws, z, 1, ta, links, 0, fr, cr, rw[27][0], worldf, fmi, fmf, t, qs, us, phi, src,
                           tau, out[:n], out[n:])

    return rate


radau_rate_flex0_links0_ta0 = rate_variant(0, 0, 0)
radau_rate_flex0_links1_ta0 = rate_variant(0, 1, 0)
radau_rate_flex1_links0_ta0 = rate_variant(1, 0, 0)
radau_rate_flex1_links0_ta1 = rate_variant(1, 0, 1)
radau_rate_flex0_links0_ta1 = rate_variant(0, 0, 1)
radau_rate_flex0_links1_ta1 = rate_variant(0, 1, 1)


@njit(cache=True, inline="always")
def rate(flex, links, ta, model, t, q0, u0, zrow, src, rw, out):
    """out = f(t, y0 + zrow) through the variant's ``rate`` (``flex``, ``links``, ``ta``:
    constants whose branches are pruned). False if an inertia is singular there."""
    if flex:
        if ta:
            return radau_rate_flex1_links0_ta1(model, t, q0, u0, zrow, src, rw, out)
        return radau_rate_flex1_links0_ta0(model, t, q0, u0, zrow, src, rw, out)
    if ta:
        if links:
            return radau_rate_flex0_links1_ta1(model, t, q0, u0, zrow, src, rw, out)
        return radau_rate_flex0_links0_ta1(model, t, q0, u0, zrow, src, rw, out)
    if links:
        return radau_rate_flex0_links1_ta0(model, t, q0, u0, zrow, src, rw, out)
    return radau_rate_flex0_links0_ta0(model, t, q0, u0, zrow, src, rw, out)


def newton_variant(flex, links, ta):
    """The compiled ``newton(model, t, h, q0, u0, src, rw, rc, ropt, rst, adapt)`` of the
    variant (module docstring): model = (mi, mf, ws, z, fr, cr, dbuf, worldf, fmi, fmf), rw
    the work of ``radau_loop.allocate_radau_work`` (Z holds the starting iterate, and the
    solution on return). Returns the iterations (>= 0, converged), -1 (too slow or diverging:
    rst[S_HHFAC] is the step's cut), -2 (a singular inertia at a stage) or -3 (fixed steps:
    not converged in nit iterations; Z the last iterate)."""

    @variant(f"radau_newton_flex{int(flex)}_links{int(links)}_ta{int(ta)}")
    def newton(model, t, h, q0, u0, src, rw, rc, ropt, rst, adapt):
        Z, W, F, DW, scal, M, C, E1, piv1, E2, piv2 = rw[0], rw[1], rw[2], rw[3], rw[6], rw[8], rw[9], rw[11], \
            rw[12], rw[13], rw[14]
        b1, b2, D = rw[15], rw[16], rw[24]
        nit = int(ropt[R_NIT])
        fnewt = ropt[R_FNEWT]
        faccon = max(rst[S_FACCON], UROUND) ** 0.8
        theta = ropt[R_THET]
        _transform(rc, RC_TI, Z, W)
        dynold = 0.0
        thqold = 0.0
        k = 0
        while True:
            if k >= nit:
                rst[S_HHFAC] = 0.5
                return -1 if adapt else -3
            for s in range(3):
                if not rate(flex, links, ta, model, t + rc[RC_C + s] * h, q0, u0, Z[s], src, rw, F[s]):
                    rst[S_HHFAC] = 0.5
                    return -2
            _transformed_residual(rc, h, F, W, DW)
            solve_real(rc[RC_GAMMA] / h, M, C, D, E1, piv1, DW[0], b1)
            solve_complex(rc[RC_ALPHA] / h, -rc[RC_BETA] / h, M, C, D, E2, piv2, DW[1], DW[2], b2)
            k += 1
            rst[S_ITERS] += 1
            dyno = scaled_rms(DW, scal, 3)
            if not math.isfinite(dyno):
                rst[S_HHFAC] = 0.5
                return -1 if adapt else -3
            if k > 1 and k < nit:
                thq = dyno / dynold
                theta = thq if k == 2 else math.sqrt(thq * thqold)
                thqold = thq
                if theta < 0.99:
                    faccon = theta / (1.0 - theta)
                    dyth = faccon * dyno * theta ** (nit - 1 - k) / fnewt
                    if dyth >= 1.0 and adapt:
                        qnewt = max(1e-4, min(20.0, dyth))
                        rst[S_HHFAC] = 0.8 * qnewt ** (-1.0 / (4.0 + nit - 1.0 - k))
                        return -1
                elif adapt:
                    rst[S_HHFAC] = 0.5
                    return -1
            dynold = max(dyno, UROUND)
            for s in range(3):
                for i in range(W.shape[1]):
                    W[s, i] += DW[s, i]
            _transform(rc, RC_T, W, Z)
            if faccon * dyno <= fnewt:
                rst[S_THETA] = theta
                rst[S_FACCON] = faccon
                return k

    return newton


# the variants the loop calls, module globals under their own names (a dispatcher captured
# by the loop's closure would put its random uuid into Numba's cache key)
radau_newton_flex0_links0_ta0 = newton_variant(0, 0, 0)
radau_newton_flex0_links1_ta0 = newton_variant(0, 1, 0)
radau_newton_flex1_links0_ta0 = newton_variant(1, 0, 0)
radau_newton_flex1_links0_ta1 = newton_variant(1, 0, 1)
radau_newton_flex0_links0_ta1 = newton_variant(0, 0, 1)
radau_newton_flex0_links1_ta1 = newton_variant(0, 1, 1)


@njit(cache=True, inline="always")
def error_estimate(rc, h, Z, f0, F2, ev, M, C, D, E1, piv1, b1, scal):
    """The scaled RMS of the embedded estimate err = (gamma/h I - J)^-1 (f0 + sum_i dd_i Z_i /
    h) (Hairer & Wanner IV.8, (8.20); F2 (2 nu,) keeps sum_i dd_i Z_i / h for a second
    estimate), at least 1e-10."""
    for i in range(ev.shape[0]):
        F2[i] = (rc[RC_DD] * Z[0, i] + rc[RC_DD + 1] * Z[1, i] + rc[RC_DD + 2] * Z[2, i]) / h
        ev[i] = f0[i] + F2[i]
    solve_real(rc[RC_GAMMA] / h, M, C, D, E1, piv1, ev, b1)
    acc = 0.0
    for i in range(ev.shape[0]):
        acc += (ev[i] / scal[i]) ** 2
    return max(math.sqrt(acc / ev.shape[0]), 1e-10)
