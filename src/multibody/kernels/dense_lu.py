"""Dense LU factorization with partial pivoting, in place, for the small unsymmetric
systems of the implicit integrators (the Newton iteration matrix M + gamma' C + beta' K,
nu x nu, which damping and velocity-dependent forces make unsymmetric).

Doolittle's elimination by rows: P A = L U with L unit lower triangular (stored below the
diagonal) and U on and above it; ``piv[k]`` the row swapped with row k at step k.
"""
import math

from numba import njit

__all__ = ["lu_factor", "lu_solve"]


@njit(cache=True)
def lu_factor(A, piv):
    """Factor the square A (n, n) in place (P A = L U); piv (n,) int64 receives the row
    swaps. Returns False when a pivot is exactly zero or not finite (A singular)."""
    n = A.shape[0]
    for k in range(n):
        p = k
        big = abs(A[k, k])
        for r in range(k + 1, n):
            if abs(A[r, k]) > big:
                big = abs(A[r, k])
                p = r
        piv[k] = p
        if not (big > 0.0 and math.isfinite(big)):
            return False
        if p != k:
            for c in range(n):
                tmp = A[k, c]
                A[k, c] = A[p, c]
                A[p, c] = tmp
        inv = 1.0 / A[k, k]
        for r in range(k + 1, n):
            f = A[r, k] * inv
            A[r, k] = f
            if f != 0.0:
                for c in range(k + 1, n):
                    A[r, c] -= f * A[k, c]
    return True


@njit(cache=True)
def lu_solve(LU, piv, b):
    """Solve A x = b in place (b becomes x) with the factors of ``lu_factor``."""
    n = LU.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            tmp = b[k]
            b[k] = b[p]
            b[p] = tmp
    for r in range(n):
        s = b[r]
        for c in range(r):
            s -= LU[r, c] * b[c]
        b[r] = s
    for r in range(n - 1, -1, -1):
        s = b[r]
        for c in range(r + 1, n):
            s -= LU[r, c] * b[c]
        b[r] = s / LU[r, r]
