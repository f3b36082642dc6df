"""First derivatives of the forward dynamics of a rigid tree, in one compiled call.

udot = FD(q, u, tau) solves ID(q, u, udot) = tau, so differentiating the identity gives
(as Pinocchio's ``computeABADerivatives`` does)
    dudot/dq = -M^-1 dtau/dq,  dudot/du = -M^-1 dtau/du,  dudot/dtau = M^-1,
with the inverse dynamics derivatives taken at udot = FD(q, u, tau) (f_ext included in both).
Passes: the ABA (udot), the analytic inverse dynamics derivatives at udot
(``inverse_dynamics_derivatives``), the O(N nu) M^-1 (``inverse_mass_matrix``), then the two
dense products, O(nu^3), each row of the result an update by rows of dtau (contiguous, so it
runs in vector lanes).
"""
from numba import njit

from .common import check_state, data_start, link_rows, model_arrays, ragged, result_status
from .forward_dynamics import aba_core
from .inverse_dynamics_derivatives import rnea_derivatives_core
from .inverse_mass_matrix import minv_core
from .layout import D_USE_FEXT
from .status import OK, SINGULAR


@njit(cache=True, _nrt=False)
def minus_products(A, X, Y, XA, YA):
    """XA = -A X and YA = -A Y (all n x n), four rows at a time: each row of X and Y read once
    per four rows of the result (XA[r] = -sum_k A[r, k] X[k], contiguous, in vector lanes)."""
    n = A.shape[0]
    for r in range(n):
        for c in range(n):
            XA[r, c] = 0.0
            YA[r, c] = 0.0
    r0 = 0
    while r0 + 4 <= n:
        for k in range(n):
            a0 = -A[r0, k]
            a1 = -A[r0 + 1, k]
            a2 = -A[r0 + 2, k]
            a3 = -A[r0 + 3, k]
            for c in range(n):
                x = X[k, c]
                y = Y[k, c]
                XA[r0, c] += a0 * x
                XA[r0 + 1, c] += a1 * x
                XA[r0 + 2, c] += a2 * x
                XA[r0 + 3, c] += a3 * x
                YA[r0, c] += a0 * y
                YA[r0 + 1, c] += a1 * y
                YA[r0 + 2, c] += a2 * y
                YA[r0 + 3, c] += a3 * y
        r0 += 4
    for r in range(r0, n):
        for k in range(n):
            a = -A[r, k]
            for c in range(n):
                XA[r, c] += a * X[k, c]
                YA[r, c] += a * Y[k, c]


@njit(cache=True, _nrt=False)
def fd_derivatives_core(mi, mf, ws, z, q, u, tau, use_fext, W, T, dq, du, Minv):
    """dq = dudot/dq (tangent), du = dudot/du, Minv = dudot/dtau at (q, u, tau): W is M^-1's
    work array (``inverse_mass_matrix.work_shape``), T (3, nu, nu) holds dtau/dq, dtau/du and
    M; udot is kept in Minv's first row until M^-1 is formed. False where D is singular."""
    nu = Minv.shape[0]
    if nu == 0:
        return True
    udot = Minv[0]
    if not aba_core(mi, mf, ws, z, q, u, tau, use_fext, udot):
        return False
    rnea_derivatives_core(mi, mf, ws, q, u, udot, use_fext, T[0], T[1], T[2])
    if not minv_core(mi, mf, ws, z, q, W, Minv):
        return False
    minus_products(Minv, T[0], T[1], dq, du)
    return True


@njit(cache=True, _nrt=False)
def forward_dynamics_derivatives(dbuf, q, u, tau, W, T, dq, du, Minv):
    """Checked entry point: a status for (q, u, tau) (MODAL for a model with modal bodies,
    which this kernel does not serve), SINGULAR or OVERFLOW; dq, du, Minv are (nu, nu)."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    st = check_state(mi, q, u, tau, 1, 1)
    if st == OK and not fd_derivatives_core(mi, mf, link_rows(dbuf, d0, n), ragged(dbuf, d0, n), q, u, tau,
                                            dbuf[d0, D_USE_FEXT] != 0.0, W, T, dq, du, Minv):
        return SINGULAR
    return result_status(result_status(result_status(st, dq), du), Minv)
