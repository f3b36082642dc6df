"""3-vector helpers on tuples for the collision kernels (allocation-free, kept in registers).

Rotations are row-major 9-tuples (``spatial_inline``'s convention); its ``mul33``,
``mul33_vec`` and ``mul33T_vec`` do the matrix products.
"""
import math

from numba import njit


@njit(cache=True)
def add(a, b):
    """a + b."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True)
def sub(a, b):
    """a - b."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True)
def scale(a, s):
    """s a."""
    return (a[0] * s, a[1] * s, a[2] * s)


@njit(cache=True)
def axpy(s, a, b):
    """s a + b."""
    return (s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2])


@njit(cache=True)
def dot(a, b):
    """a . b."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def cross(a, b):
    """a x b."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True)
def norm(a):
    """|a|."""
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@njit(cache=True)
def column(R, k):
    """Column k of a row-major 9-tuple: the shape's axis k in the world."""
    return (R[k], R[3 + k], R[6 + k])


@njit(cache=True)
def perpendicular(n):
    """A unit vector perpendicular to the unit vector n, a function of n alone: the cross
    product of the world axis least aligned with n with n (so it does not turn while n
    stays put, and it is well conditioned: |e x n| >= sqrt(2/3))."""
    ax, ay, az = abs(n[0]), abs(n[1]), abs(n[2])
    if ax <= ay and ax <= az:
        t = (0.0, -n[2], n[1])        # e_x x n
    elif ay <= az:
        t = (n[2], 0.0, -n[0])        # e_y x n
    else:
        t = (-n[1], n[0], 0.0)        # e_z x n
    return scale(t, 1.0 / norm(t))


@njit(cache=True)
def unit_or(a, fallback):
    """a / |a|, or ``fallback`` where |a| is 0 (coincident centres: any direction serves)."""
    s = norm(a)
    if s > 0.0:
        return scale(a, 1.0 / s)
    return fallback
