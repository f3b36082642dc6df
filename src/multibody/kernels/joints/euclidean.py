"""Coordinate maps of the kinds whose coordinates are a vector space (PIN, SLIDER, SCREW,
TRANSLATIONAL, LOCKED, and a modal body's eta): q_dot = u, q (+) u dt = q + u dt, and
the Munthe-Kaas rate phi_dot = u. The dispatchers' default branch (``dispatch``).
"""
from numba import njit


@njit(cache=True, inline="always")
def qdot(u, out, i, k, n):
    """out[i:i+n] = u[k:k+n]."""
    for r in range(n):
        out[i + r] = u[k + r]


@njit(cache=True, inline="always")
def integrate(q, u, dt, out, i, k, n):
    """out[i:i+n] = q[i:i+n] + u[k:k+n] dt."""
    for r in range(n):
        out[i + r] = q[i + r] + u[k + r] * dt


@njit(cache=True, inline="always")
def dexp_inv(u, out, k, n):
    """out[k:k+n] = u[k:k+n]: scalar coordinates are their own exponential coordinates."""
    for r in range(n):
        out[k + r] = u[k + r]
