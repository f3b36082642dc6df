"""SPHERICAL_QUAT: 3-dof rotation as a unit quaternion q[i:i+4] = (x, y, z, w); u = the angular
velocity in the link frame.

* q_dot = 1/2 q (x) [w; 0]; the step q' = q (x) exp(w dt) (unit by construction);
* Munthe-Kaas: phi_dot = Jr(phi)^-1 w (as ``spherical``);
* q must be unit (to 1e-6) for the kernels (``unit_quaternion``); the classic integrators
  re-normalise it after each step (``normalize``).

FREE_QUAT (``free_quat``) uses these for its rotation.
"""
import math

import numpy as np
from numba import njit

from ..spatial_inline import rot_quat
from . import spherical
from .group_maps import quat_mul, quat_step

dexp_inv = spherical.dexp_inv  # phi_dot = Jr(phi)^-1 w: the same local coordinates of SO(3)


def motion_subspace():
    """S (6, 3) = [I; 0]."""
    return np.vstack([np.eye(3), np.zeros((3, 3))])


def u_from_qdot(qj, chart):
    """N+ (3, 4) with w_body = N+ q_dot, q = qj normalised (NumPy):
    w_body = 2 Im(conj(q) (x) q_dot) = 2 (w v_dot - w_dot v - v x v_dot)."""
    x, y, z, w = qj / np.linalg.norm(qj)
    return 2.0 * np.array([
        [w, z, -y, -x],
        [-z, w, x, -y],
        [y, -x, w, -z],
    ])


@njit(cache=True, _nrt=False)
def placement(mf, ws, q, i, j):
    """(R_J, p_J) of link j at q[i:i+4]."""
    return rot_quat(q[i], q[i + 1], q[i + 2], q[i + 3]), (0.0, 0.0, 0.0)


@njit(cache=True, _nrt=False)
def qdot(ws, q, u, out, i, k, j):
    """out[i:i+4] = 1/2 q (x) [u[k:k+3]; 0]."""
    d4 = quat_mul(q[i], q[i + 1], q[i + 2], q[i + 3], u[k], u[k + 1], u[k + 2], 0.0)
    for r in range(4):
        out[i + r] = 0.5 * d4[r]


@njit(cache=True, _nrt=False)
def integrate(ws, q, u, dt, out, i, k, j):
    """out[i:i+4] = q (x) exp(w dt) (out may alias q)."""
    c = quat_step(q[i], q[i + 1], q[i + 2], q[i + 3], u[k], u[k + 1], u[k + 2], dt)
    for r in range(4):
        out[i + r] = c[r]


@njit(cache=True, _nrt=False)
def unit_quaternion(q, i):
    """True when |q[i:i+4]|^2 is 1 to 2e-6 (NaN fails)."""
    n2 = q[i] * q[i] + q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2] + q[i + 3] * q[i + 3]
    return abs(n2 - 1.0) <= 2e-6


@njit(cache=True, _nrt=False)
def normalize(q, i):
    """Scale q[i:i+4] to unit length."""
    n = math.sqrt(q[i] ** 2 + q[i + 1] ** 2 + q[i + 2] ** 2 + q[i + 3] ** 2)
    for r in range(4):
        q[i + r] /= n
