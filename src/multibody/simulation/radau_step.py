"""The arithmetic of one Radau IIA step (3 stages, order 5) on the tangent space, after
Hairer & Wanner, "Solving ODEs II", section IV.8 (the method of their RADAU5), inlined into
the compiled loop (``radau_loop``).

The unknowns of a step from (q0, u0) are the stage increments Z_i = (phi_i, du_i), i = 1..3,
of y = (phi, u) in a chart centred at the step's start: q = q0 (+) phi (the model's
``integrate``), phi_dot = dexp^-1(phi) u (``lie.dexp_inv``: u for scalar coordinates and
modal ones), u_dot from the forward dynamics at (q0 (+) phi, u). The collocation equations

    Z = h (A (x) I) F(Z),       F_i = f(t0 + c_i h, y0 + Z_i),

are solved by a simplified Newton iteration with one matrix J ~ df/dy for all stages;
transformed by T (T^-1 A^-1 T = [[gamma, 0, 0], [0, alpha, beta], [0, -beta, alpha]]), its
linear system splits into one real system (gamma/h I - J) and one complex one
((alpha - i beta)/h I - J), each 2 nu x 2 nu. J = [[D, I], [A, B]] at phi = 0: D =
dphi_dot/dphi (-1/2 ad_u on a rotation: ``tangent_jacobian``, by differences of
``dexp_inv``), A = du_dot/dq (tangent) and B = du_dot/du, held as M^-1 (-K, -C): M, C, K
the inverse dynamics' derivatives for rigid trees and, from the analytic flex derivatives
(``flex_implicit.flex_iteration_matrix``), for modal bodies, or (I, -B, -A) of the
tree-augmented constrained dynamics' analytic derivatives for closed loops
(``ta_jacobian``). (``fd_jacobian``, forward differences of the flex forward dynamics, was
the modal bodies' until the analytic one replaced it; ``bench/bench_radau_jacobian.py``
compares the two.) Eliminating the phi rows, each system is one nu x nu system
(g M + C)(g - D) + K = g^2 M + g (C - M D) + K - C D (``factor``, ``solve_real``,
``solve_complex``). J only steers the iteration: it converges to the exact collocation
solution whatever J's error, which costs iterations, never accuracy.
"""
import math

import numpy as np
from numba import njit

from ..kernels.constrained_dynamics_derivatives import constrained_derivatives_core
from ..kernels.coordinates import integrate_q
from ..kernels.dense_lu import lu_factor, lu_solve
from .flex_stepping import flex_stage_rates
from .force_kernels import placed_forces
from .galpha_step import force_jacobian
from .link_force_jacobian import link_force_jacobian
from .lie import dexp_inv

__all__ = ["radau_constants", "stage_point", "fd_jacobian", "ta_jacobian", "joint_force_share", "with_force_models",
           "tangent_jacobian", "factor", "solve_real", "solve_complex",
           "N_RC", "RC_GAMMA", "RC_ALPHA", "RC_BETA", "RC_C", "RC_DD", "RC_T", "RC_TI"]

# --- the method's constants (float64 array rc, ``radau_constants``)
RC_GAMMA = 0     # the real eigenvalue of A^-1
RC_ALPHA = 1     # the complex pair alpha +- i beta of A^-1
RC_BETA = 2
RC_C = 3         # 3 nodes c_i
RC_DD = 6        # 3 weights of the error estimate (Hairer & Wanner IV.8, (8.19)-(8.20), times gamma)
RC_T = 9         # T (3 x 3, row-major)
RC_TI = 18       # T^-1
N_RC = 27

#: unit round-off (the finite-difference increments and the Newton rate's floor)
UROUND = 2.220446049250313e-16


def radau_constants():
    """The packed constants of Radau IIA with 3 stages (module docstring): the nodes are the
    zeros of the Radau polynomial, A from collocation (A_ij = integral of the j-th Lagrange
    polynomial of the nodes from 0 to c_i), T from the eigenvectors of A^-1."""
    s6 = math.sqrt(6.0)
    c = np.array([(4.0 - s6) / 10.0, (4.0 + s6) / 10.0, 1.0])
    A = np.empty((3, 3))
    for j in range(3):
        others = [c[k] for k in range(3) if k != j]
        lag = np.poly1d(np.poly(others)) / np.prod([c[j] - x for x in others])
        prim = np.polyint(lag)
        A[:, j] = [prim(ci) - prim(0.0) for ci in c]
    lam, vec = np.linalg.eig(np.linalg.inv(A))
    real = int(np.argmin(np.abs(lam.imag)))
    cplx = int(np.argmax(lam.imag))  # alpha + i beta, beta > 0
    T = np.column_stack([vec[:, real].real, vec[:, cplx].real, vec[:, cplx].imag])
    rc = np.zeros(N_RC)
    rc[RC_GAMMA], rc[RC_ALPHA], rc[RC_BETA] = lam[real].real, lam[cplx].real, lam[cplx].imag
    rc[RC_C:RC_C + 3] = c
    rc[RC_DD:RC_DD + 3] = [-(13.0 + 7.0 * s6) / 3.0, (-13.0 + 7.0 * s6) / 3.0, -1.0 / 3.0]
    rc[RC_T:RC_T + 9] = T.ravel()
    rc[RC_TI:RC_TI + 9] = np.linalg.inv(T).ravel()
    return rc


@njit(cache=True, inline="always")
def stage_point(mi, ws, q0, u0, zrow, qs, us, phi):
    """The state where a stage's rates are taken: qs = q0 (+) zrow[:nu], us = u0 + zrow[nu:]
    (phi = zrow[:nu]). The rates there: ``stages.stage_rates`` (rigid; ``ta``: the
    tree-augmented dynamics with the run's Baumgarte gains) or ``flex_stepping.flex_stage_rates``
    (modal bodies), picked by the variant (``radau_newton.rate_variant``)."""
    n = u0.shape[0]
    for i in range(n):
        phi[i] = zrow[i]
        us[i] = u0[i] + zrow[n + i]
    integrate_q(mi, ws, q0, phi, 1.0, qs)


@njit(cache=True, inline="always")
def fd_jacobian(mi, mf, ws, dbuf, fmi, fmf, smap, t, q0, u0, f0, src, qs, us, phi, tau, kq, ku, M, C, K):
    """M = I, K = -du_dot/dq (tangent), C = -du_dot/du at (q0, u0) by forward differences of
    the modal bodies' forward dynamics (f0 the rates there), increments sqrt(eps max(1e-5,
    |y_j|)) (|y_j| = 1 for a rotation). False if an inertia is singular."""
    n = u0.shape[0]
    for i in range(n):
        phi[i] = 0.0
    for j in range(2 * n):
        k = j % n
        y = abs(u0[k]) if j >= n else 1.0 if smap[k] < 0 else abs(q0[smap[k]])
        d = math.sqrt(UROUND * max(1e-5, y))
        if j < n:
            phi[k] = d
        for i in range(n):
            us[i] = u0[i] + (d if j >= n and i == k else 0.0)
        integrate_q(mi, ws, q0, phi, 1.0, qs)
        if not flex_stage_rates(mi, mf, ws, dbuf, 1, False, None, fmi, fmf, t, qs, us, phi, src, tau, kq, ku):
            return False
        phi[k] = 0.0
        for i in range(n):
            dudot = (ku[i] - f0[n + i]) / d
            if j < n:
                K[i, k] = -dudot
            else:
                C[i, k] = -dudot
            M[i, k] = 1.0 if i == k else 0.0
    return True


@njit(cache=True, inline="always")
def ta_jacobian(mi, mf, fr, cr, ws, z, fmi, fmf, links, t, q0, u0, src, tau, ta_work, M, C, K):
    """M = I, K = -du_dot/dq (tangent), C = -du_dot/du at (q0, u0) of the tree-augmented
    constrained dynamics with the run's Baumgarte gains (``constrained_derivatives_core``),
    the force models' derivatives taken through Mc^-1 = du_dot/dtau (the joint-level ones'
    ``galpha_step.force_jacobian``; with ``links``, a constant, the share of wrenches fixed in
    the world and of springs between points, ``link_force_jacobian``; wrenches fixed in their
    links are in the constrained derivatives). ta_work from ``radau_loop.ta_work``. False if
    an inertia is singular."""
    Wc, Wm, T, E, VA, KT, Minv, Kf, Cf = ta_work
    use = placed_forces(mi, mf, ws, fmi, fmf, q0, u0, t, src, tau, links)
    if not constrained_derivatives_core(mi, mf, fr, cr, ws, z, q0, u0, tau, use, Wc, Wm, T, E, VA, KT, K, C, Minv):
        return False
    joint_force_share(fmi, fmf, q0, u0, Kf, Cf)
    if links:  # (a constant) the world-placed entries' share (the derivatives held them in the links)
        link_force_jacobian(mi, mf, ws, fmi, fmf, t, q0, u0, Kf, Cf)
    with_force_models(Minv, Kf, Cf, M, C, K)
    return True


@njit(cache=True, inline="always")
def joint_force_share(fmi, fmf, q0, u0, Kf, Cf):
    """Kf = -dtau/dq, Cf = -dtau/du (nu, nu) of the joint-level force models at (q0, u0)
    (``galpha_step.force_jacobian``)."""
    Kf[:, :] = 0.0
    Cf[:, :] = 0.0
    force_jacobian(fmi, fmf, q0, u0, Kf, Cf)


@njit(cache=True, inline="always")
def with_force_models(Minv, Kf, Cf, M, C, K):
    """(M, C, K) = (I, Mc^-1 Kf - K, Mc^-1 Cf - C) from K = du_dot/dq, C = du_dot/du of a
    constrained dynamics at fixed tau (rigid ``ta_jacobian``'s, the modal bodies'
    ``flex_implicit.flex_ta_jacobian``'s) and Mc^-1 = du_dot/dtau: the force models' share
    (Kf = -dtau/dq, Cf = -dtau/du: ``joint_force_share``, and on rigid models with ``links``
    ``link_force_jacobian``'s) taken through Mc^-1."""
    n = Minv.shape[0]
    for r in range(n):
        for c in range(n):
            a = 0.0
            b = 0.0
            for k in range(n):
                a += Minv[r, k] * Kf[k, c]
                b += Minv[r, k] * Cf[k, c]
            K[r, c] = a - K[r, c]
            C[r, c] = b - C[r, c]
            M[r, c] = 1.0 if r == c else 0.0


@njit(cache=True, inline="always")
def tangent_jacobian(mi, u0, phi, kq, M, C, K, D, Cp, Kp):
    """D = dphi_dot/dphi at phi = 0 (forward differences of ``dexp_inv``: zero but for
    rotations), and the reduced Cp = C - M D, Kp = K - C D (module docstring)."""
    n = u0.shape[0]
    d = 1e-7
    for i in range(n):
        phi[i] = 0.0
    for j in range(n):
        phi[j] = d
        for i in range(n):
            kq[i] = u0[i]  # (modal entries: dexp_inv leaves them, eta' their rate)
        dexp_inv(mi, phi, u0, kq)
        phi[j] = 0.0
        for i in range(n):
            D[i, j] = (kq[i] - u0[i]) / d
    for r in range(n):
        for c in range(n):
            a = 0.0
            b = 0.0
            for k in range(n):
                a += M[r, k] * D[k, c]
                b += C[r, k] * D[k, c]
            Cp[r, c] = C[r, c] - a
            Kp[r, c] = K[r, c] - b


@njit(cache=True, inline="always")
def factor(rc, h, M, C, K, E1, piv1, E2, piv2):
    """E1 = g^2 M + g C + K (g = gamma / h) and E2 = the real form [[P, -Q], [Q, P]] of the
    complex P + i Q = g^2 M + g C + K (g = (alpha - i beta) / h), each factored in place
    (C, K: the reduced Cp, Kp of ``tangent_jacobian``). False if one is singular."""
    n = M.shape[0]
    g = rc[RC_GAMMA] / h
    gr = rc[RC_ALPHA] / h
    gi = -rc[RC_BETA] / h
    for r in range(n):
        for c in range(n):
            E1[r, c] = g * g * M[r, c] + g * C[r, c] + K[r, c]
            p = (gr * gr - gi * gi) * M[r, c] + gr * C[r, c] + K[r, c]
            q = 2.0 * gr * gi * M[r, c] + gi * C[r, c]
            E2[r, c] = p
            E2[r, n + c] = -q
            E2[n + r, c] = q
            E2[n + r, n + c] = p
    if not lu_factor(E1, piv1):
        return False
    return lu_factor(E2, piv2)


@njit(cache=True, inline="always")
def solve_real(g, M, C, D, E1, piv1, r, b):
    """Solve (g I - J) x = r in place (r (2 nu,) = (r_phi, r_u) becomes x), J = [[D, I],
    [-M^-1 K, -M^-1 C]]: ((g M + C)(g - D) + K) x_phi = M (r_u + g r_phi) + C r_phi
    (factored in E1), x_u = (g - D) x_phi - r_phi. b (nu,) scratch."""
    n = M.shape[0]
    for i in range(n):
        s = 0.0
        for k in range(n):
            s += M[i, k] * (r[n + k] + g * r[k]) + C[i, k] * r[k]
        b[i] = s
    lu_solve(E1, piv1, b)
    for i in range(n):
        s = 0.0
        for k in range(n):
            s += D[i, k] * b[k]
        r[n + i] = g * b[i] - s - r[i]
        r[i] = b[i]


@njit(cache=True, inline="always")
def solve_complex(gr, gi, M, C, D, E2, piv2, rr, ri, b):
    """``solve_real`` for the complex g = gr + i gi and r = rr + i ri, in place (E2 from
    ``factor``; b (2 nu,) scratch)."""
    n = M.shape[0]
    for i in range(n):
        sr = 0.0
        si = 0.0
        for k in range(n):
            sr += M[i, k] * (rr[n + k] + gr * rr[k] - gi * ri[k]) + C[i, k] * rr[k]
            si += M[i, k] * (ri[n + k] + gr * ri[k] + gi * rr[k]) + C[i, k] * ri[k]
        b[i] = sr
        b[n + i] = si
    lu_solve(E2, piv2, b)
    for i in range(n):
        xr = b[i]
        xi = b[n + i]
        dr = 0.0
        di = 0.0
        for k in range(n):
            dr += D[i, k] * b[k]
            di += D[i, k] * b[n + k]
        ur = gr * xr - gi * xi - dr - rr[i]
        ui = gr * xi + gi * xr - di - ri[i]
        rr[i] = xr
        ri[i] = xi
        rr[n + i] = ur
        ri[n + i] = ui
