"""One step of the generalized-alpha method on the tangent space (Chung & Hulbert 1993, in
the Lie-group form of Arnold & Bruels 2007): its parameters, its update and its Newton
residual and iteration matrix, inlined into the compiled loop (``galpha_loop``).

With (q_n, u_n), the acceleration-like variable a_n and u_dot_n known, the unknown is
x = u_dot_{n+1}; from it

    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) x + alpha_f u_dot_n
    u_{n+1} = u_n + h ((1 - gamma) a_n + gamma a_{n+1})
    delta   = h u_n + h^2 ((1/2 - beta) a_n + beta a_{n+1})        (tangent, as u)
    q_{n+1} = q_n (+) delta                                         (the model's integrate)

and x solves the equations of motion at t_{n+1}:

    r(x) = M(q_{n+1}) x + b(q_{n+1}, u_{n+1}) - J^T f_ext - tau(t_{n+1}, q_{n+1}, u_{n+1}) = 0,

tau the joint forces (held input plus the joint-level force models), f_ext the link-level
ones (placed at q_{n+1}: ``force_kernels.placed_forces``). Newton's matrix is
dr/dx = M + gamma' C_t + beta' K_t with C_t = dr/du, K_t = dr/dq (tangent: the analytic
inverse dynamics derivatives, which hold link wrenches fixed in their links, minus the force
models' own: ``force_jacobian``, and for wrenches fixed in the world and springs between
points ``link_force_jacobian``, exact), gamma' = h gamma (1 - alpha_f) /
(1 - alpha_m), beta' = h^2 beta (1 - alpha_f) / (1 - alpha_m). It leaves out the tangent map
of exp at delta (I + O(delta)) in q_{n+1}'s dependence on delta, so for scalar
coordinates it is r's exact Jacobian, and for rotations a simplified one.
"""
import math

from numba import njit

from ..kernels.inverse_dynamics import rnea_core
from ..kernels.inverse_dynamics_derivatives import rnea_derivatives_core
from ..kernels.coordinates import integrate_q
from .force_kernels import (
    FM_ACTUATOR, FM_BIAS, FM_C, FM_FORCE_MAX, FM_FORCE_MIN, FM_FRICTION, FM_FRICTION_FORCE, FM_GAIN, FM_GEAR, FM_K,
    FM_LIMIT, FM_LOWER, FM_SLIP_SPEED, FM_SPRING, FM_UPPER, FMI_Q, FMI_TYPE, FMI_U, FM_CTRL, placed_forces,
)
from .link_force_jacobian import link_force_jacobian

__all__ = ["parameters", "advance_state", "residual", "iteration_matrix", "force_jacobian"]

# --- method options (float64 array gopt)
G_ALPHA_M = 0
G_ALPHA_F = 1
G_GAMMA = 2
G_BETA = 3
G_RTOL = 4       # Newton: relative tolerance on the correction and the residual (as an acceleration)
G_ATOL = 5       # Newton: absolute tolerance [m/s^2, rad/s^2]
G_MAXIT = 6      # Newton: most iterations per step
N_GOPT = 7


def parameters(rho_inf):
    """(alpha_m, alpha_f, gamma, beta) of Chung & Hulbert's method with spectral radius at
    infinite frequency ``rho_inf`` in [0, 1]: second order, unconditionally stable for
    linear problems, high frequencies damped to rho_inf per step (1: none, the trapezoidal
    rule's member)."""
    alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    alpha_f = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    beta = 0.25 * (gamma + 0.5) ** 2
    return alpha_m, alpha_f, gamma, beta


@njit(cache=True, inline="always")
def advance_state(mi, ws, gopt, h, q, u, a, udot, x, delta, q1, u1, a1):
    """(q1, u1, a1) of the step from (q, u, a, udot) for the trial u_dot_{n+1} = x (module
    docstring); delta is scratch (nu,)."""
    am, af, gamma, beta = gopt[G_ALPHA_M], gopt[G_ALPHA_F], gopt[G_GAMMA], gopt[G_BETA]
    for i in range(u.shape[0]):
        a1[i] = ((1.0 - af) * x[i] + af * udot[i] - am * a[i]) / (1.0 - am)
        u1[i] = u[i] + h * ((1.0 - gamma) * a[i] + gamma * a1[i])
        delta[i] = h * u[i] + h * h * ((0.5 - beta) * a[i] + beta * a1[i])
    integrate_q(mi, ws, q, delta, 1.0, q1)


@njit(cache=True, inline="always")
def residual(mi, mf, ws, fmi, fmf, links, t, q1, u1, x, src, tau, r):
    """r = M x + b - J^T f_ext - tau at (t, q1, u1) (module docstring): tau = src plus the
    force models (link wrenches of FM_WRENCH entries into W_FEXT when ``links``). Returns
    the use_fext flag of ``apply_forces``."""
    use = placed_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, links)
    rnea_core(mi, mf, ws, q1, u1, x, use, r)
    for i in range(r.shape[0]):
        r[i] -= tau[i]
    return use


@njit(cache=True, inline="always")
def force_jacobian(fmi, fmf, q, u, K, C):
    """Subtract the joint-level force models' derivatives from K (d/dq, tangent) and C
    (d/du): the residual holds -tau. Each entry acts on one scalar coordinate, whose q and
    tangent columns coincide (index FMI_U); the piecewise laws take the derivative of the
    piece they are on (a limit out of its range, an actuator inside its force range)."""
    for e in range(fmi.shape[0]):
        typ = fmi[e, FMI_TYPE]
        i = fmi[e, FMI_U]
        dq = 0.0
        du = 0.0
        if typ == FM_SPRING:
            dq = -fmf[e, FM_K]
            du = -fmf[e, FM_C]
        elif typ == FM_LIMIT:
            x = q[fmi[e, FMI_Q]]
            if x < fmf[e, FM_LOWER]:
                if fmf[e, FM_K] * (fmf[e, FM_LOWER] - x) - fmf[e, FM_C] * u[i] > 0.0:
                    dq = -fmf[e, FM_K]
                    du = -fmf[e, FM_C]
            elif x > fmf[e, FM_UPPER]:
                if fmf[e, FM_K] * (x - fmf[e, FM_UPPER]) + fmf[e, FM_C] * u[i] > 0.0:
                    dq = -fmf[e, FM_K]
                    du = -fmf[e, FM_C]
        elif typ == FM_FRICTION:
            th = math.tanh(u[i] / fmf[e, FM_SLIP_SPEED])
            du = -fmf[e, FM_FRICTION_FORCE] / fmf[e, FM_SLIP_SPEED] * (1.0 - th * th)
        elif typ == FM_ACTUATOR:
            g = fmf[e, FM_GEAR]
            force = (fmf[e, FM_GAIN] * fmf[e, FM_CTRL] + fmf[e, FM_BIAS] + fmf[e, FM_BIAS + 1] * g * q[fmi[e, FMI_Q]]
                     + fmf[e, FM_BIAS + 2] * g * u[i])
            if fmf[e, FM_FORCE_MIN] < force < fmf[e, FM_FORCE_MAX]:
                dq = g * g * fmf[e, FM_BIAS + 1]
                du = g * g * fmf[e, FM_BIAS + 2]
        else:
            continue  # link wrenches fixed in their links: in the inverse dynamics' derivatives;
            # fixed in the world, springs between points: link_force_jacobian
        K[i, i] -= dq
        C[i, i] -= du


@njit(cache=True, inline="always")
def iteration_matrix(mi, mf, ws, fmi, fmf, links, t, q1, u1, x, src, tau, gq, gu, K, C, S):
    """S = M + gu C + gq K at (t, q1, u1, x), with K = dr/dq (tangent) and C = dr/du of the
    residual (``residual``), each (nu, nu), kept in K and C; with ``links`` (a constant) the
    share of the world-placed entries too (``link_force_jacobian``)."""
    use = placed_forces(mi, mf, ws, fmi, fmf, q1, u1, t, src, tau, links)
    rnea_derivatives_core(mi, mf, ws, q1, u1, x, use, K, C, S)
    force_jacobian(fmi, fmf, q1, u1, K, C)
    if links:  # (a constant) the world-placed entries' share: the derivatives held them in the links
        link_force_jacobian(mi, mf, ws, fmi, fmf, t, q1, u1, K, C)
    n = S.shape[0]
    for r in range(n):
        for c in range(n):
            S[r, c] += gu * C[r, c] + gq * K[r, c]
