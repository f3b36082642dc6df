"""Link-level force models of models with modal (flexible) bodies, in the compiled loops:
wrenches at frames (``ExternalForce``) and spring-dampers between frames
(``LinearSpringDamper``), whose frames may be nodes that move with the modes.

Their packed entries (``forces.py``; FM_FRAME_* in ``force_kernels``) name frame rows, not
links, because a node's pose and Jacobian follow the deformation. With J_F the Jacobian of
frame F in its own axes and R_F its world rotation:

* a wrench w at frame F: tau += J_F^T w, w in F's axes (a world-axes wrench: R_F^T w);
* a spring-damper between frames a and b: f = T n on b's origin and -f on a's, pure forces,
  n the unit vector from a's origin to b's and T = -(k (l - l0) + c l_dot) its tension
  (``force_kernels.spring_tension``, as the rigid loop's); a frame fixed in the world is its
  stored point. The origins' separation is (o_b - o_a) + (r_b - r_a), o the origin of the
  frame's tree's root and r the frame's origin about it (``flex_jacobian.flex_frame_jacobian``,
  as the flex constraint rows take it): exact for two frames of one tree however far out
  it is.

All of them reach tau through one call of the flex external-force kernel
(``flex_entry.external_generalized_forces_flex``). ``flex_forces`` applies them after the
joint-level force models; every flex variant of every loop (Runge-Kutta stages, radau's
rates, generalized-alpha's residuals, the contact loop) calls it.

Newton's matrix (radau, generalized_alpha) needs their derivatives. The analytic flex
derivatives hold wrenches on rigid frames only (``flex_derivatives_entry.flex_tangents``): a
node's Jacobian moves with the modes. ``frame_force_jacobian`` therefore takes their share by
central differences of these generalized forces, along the tangent of q (q (+) e_i h, the
model's ``integrate``) and, where a spring has damping, along u. The share only steers
Newton's iteration: the residuals apply the entries themselves, so its O(h^2) error costs
iterations at most, never accuracy. It costs 2 nu evaluations (4 nu with damping) each time
Newton's matrix is formed, and nothing without frame entries.
"""
import math

import numpy as np
from numba import njit

from ..kernels import flex_layout as FL
from ..kernels.coordinates import integrate_q
from ..kernels.flex_entry import external_generalized_forces_flex, frame_pose_flex
from ..kernels.flex_jacobian import flex_frame_jacobian
from ..kernels.flex_views import flex_arrays
from ..kernels.joint_transform import tree_root
from ..kernels.layout import FR_LINK
from ..kernels.spatial_inline import mul33T_vec, mul33_vec
from .force_kernels import (
    FM_C, FM_FRAME_LINEAR, FM_FRAME_WORLD, FM_FRAME_WRENCH, FM_POINT, FM_POINT_A, FMI_FRAME, FMI_FRAME_B, FMI_TYPE,
    apply_forces, spring_tension, wrench_component, wrench_phase,
)

__all__ = ["flex_forces", "add_frame_forces", "frame_force_jacobian"]

_STEP = 6e-6  # the differences' step, about the cube root of the machine epsilon


@njit(cache=True, inline="always")
def _frame_count(fmi):
    """The number of frames the frame entries push on (two per spring), at most."""
    n = 0
    for e in range(fmi.shape[0]):
        typ = fmi[e, FMI_TYPE]
        if typ == FM_FRAME_WRENCH or typ == FM_FRAME_WORLD:
            n += 1
        elif typ == FM_FRAME_LINEAR:
            n += 2
    return n


@njit(cache=True, inline="always")
def _rotation(T):
    """The rotation of pose T (4, 4) as the row-major 9-tuple ``spatial_inline`` takes."""
    return (T[0, 0], T[0, 1], T[0, 2], T[1, 0], T[1, 1], T[1, 2], T[2, 0], T[2, 1], T[2, 2])


@njit(cache=True, inline="always")
def _point(a, q, u, f, fmf, e, o, T, J):
    """(reference point, origin about it, velocity), world axes, of frame row f, its pose in T
    and its Jacobian in J: the reference is its tree's root origin (module docstring); a
    world point (f < 0) is fmf[e, o:o+3], its own reference, at rest."""
    if f < 0:
        return (fmf[e, o], fmf[e, o + 1], fmf[e, o + 2]), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    J[:, :] = 0.0
    r = flex_frame_jacobian(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, q, a.zero, a.phi, a.V, a.abias,
                            a.pose, a.VN, f, a.scratch, T, J)
    root = tree_root(a.mi, int(a.fr[f, FR_LINK]))
    b0 = b1 = b2 = 0.0  # its origin's velocity in its axes: J's linear rows times u
    for c in range(u.shape[0]):
        b0 += J[3, c] * u[c]
        b1 += J[4, c] * u[c]
        b2 += J[5, c] * u[c]
    v = mul33_vec(_rotation(T), b0, b1, b2)
    return (a.pose[root, FL.POSE_P], a.pose[root, FL.POSE_P + 1], a.pose[root, FL.POSE_P + 2]), r, v


@njit(cache=True, inline="always")
def _push(frames, wrenches, k, f, T, s, fx, fy, fz):
    """Row k: the world force s (fx, fy, fz) at frame row f's origin, in its axes (R^T);
    returns the next row (k itself for a world point, f < 0)."""
    if f < 0:
        return k
    frames[k] = f
    g = mul33T_vec(_rotation(T), fx, fy, fz)
    for r in range(3):
        wrenches[k, r] = 0.0
        wrenches[k, 3 + r] = s * g[r]
    return k + 1


@njit(cache=True)
def add_frame_forces(dbuf, fmi, fmf, t, q, u, tau):
    """tau += the generalized forces of the frame entries (module docstring) at (t, q, u);
    nothing, and no allocation, without them."""
    count = _frame_count(fmi)
    if count == 0:
        return
    nu = u.shape[0]
    frames = np.empty(count, dtype=np.int64)
    wrenches = np.empty((count, 6))
    Ta, Tb = np.empty((4, 4)), np.empty((4, 4))
    J = np.empty((6, nu))
    a = flex_arrays(dbuf)
    k = 0
    for e in range(fmi.shape[0]):
        typ = fmi[e, FMI_TYPE]
        if typ == FM_FRAME_WRENCH or typ == FM_FRAME_WORLD:
            f = fmi[e, FMI_FRAME]
            s = wrench_phase(fmf, e, t)
            frames[k] = f
            if typ == FM_FRAME_WRENCH:
                for r in range(6):
                    wrenches[k, r] = wrench_component(fmf, e, r, s)
            else:  # world axes, rotated into the frame's
                frame_pose_flex(dbuf, q, f, Ta)
                R = _rotation(Ta)
                n = mul33T_vec(R, wrench_component(fmf, e, 0, s), wrench_component(fmf, e, 1, s),
                               wrench_component(fmf, e, 2, s))
                g = mul33T_vec(R, wrench_component(fmf, e, 3, s), wrench_component(fmf, e, 4, s),
                               wrench_component(fmf, e, 5, s))
                for r in range(3):
                    wrenches[k, r] = n[r]
                    wrenches[k, 3 + r] = g[r]
            k += 1
        elif typ == FM_FRAME_LINEAR:
            fa, fb = fmi[e, FMI_FRAME], fmi[e, FMI_FRAME_B]
            oa, ra, va = _point(a, q, u, fa, fmf, e, FM_POINT_A, Ta, J)
            ob, rb, vb = _point(a, q, u, fb, fmf, e, FM_POINT, Tb, J)
            d0 = (ob[0] - oa[0]) + (rb[0] - ra[0])
            d1 = (ob[1] - oa[1]) + (rb[1] - ra[1])
            d2 = (ob[2] - oa[2]) + (rb[2] - ra[2])
            length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            if length == 0.0:
                continue  # no direction: the spring pushes nowhere (as the rigid loop's)
            n0, n1, n2 = d0 / length, d1 / length, d2 / length
            rate = n0 * (vb[0] - va[0]) + n1 * (vb[1] - va[1]) + n2 * (vb[2] - va[2])
            tension = spring_tension(fmf, e, length, rate)
            k = _push(frames, wrenches, k, fb, Tb, tension, n0, n1, n2)
            k = _push(frames, wrenches, k, fa, Ta, -tension, n0, n1, n2)
    if k == 0:
        return
    ext = np.empty(nu)
    external_generalized_forces_flex(dbuf, q, frames[:k], wrenches[:k], ext)
    for i in range(nu):
        tau[i] += ext[i]


@njit(cache=True, inline="always")
def flex_forces(mi, mf, ws, dbuf, fmi, fmf, q, u, t, tau0, tau):
    """tau = tau0 + the joint-level force models (``force_kernels.apply_forces``) + the frame
    entries (``add_frame_forces``) of a model with modal bodies at (t, q, u)."""
    apply_forces(mi, mf, ws, fmi, fmf, q, u, t, tau0, tau, False)
    add_frame_forces(dbuf, fmi, fmf, t, q, u, tau)


@njit(cache=True, inline="always")
def _damped(fmi, fmf):
    """True if a frame spring has damping: its forces then depend on u."""
    for e in range(fmi.shape[0]):
        if fmi[e, FMI_TYPE] == FM_FRAME_LINEAR and fmf[e, FM_C] != 0.0:
            return True
    return False


@njit(cache=True)
def frame_force_jacobian(mi, ws, dbuf, fmi, fmf, t, q, u, K, C):
    """Subtract the frame entries' share from K (d/dq, tangent) and C (d/du) of a residual
    that holds -tau, by central differences (module docstring); nothing, and no allocation,
    without frame entries."""
    if _frame_count(fmi) == 0:
        return
    nu = u.shape[0]
    gp, gm = np.zeros(nu), np.zeros(nu)
    step = np.zeros(nu)
    qs = np.empty(q.shape[0])
    for i in range(nu):
        step[i] = _STEP
        integrate_q(mi, ws, q, step, 1.0, qs)
        gp[:] = 0.0
        add_frame_forces(dbuf, fmi, fmf, t, qs, u, gp)
        integrate_q(mi, ws, q, step, -1.0, qs)
        gm[:] = 0.0
        add_frame_forces(dbuf, fmi, fmf, t, qs, u, gm)
        step[i] = 0.0
        for r in range(nu):
            K[r, i] -= (gp[r] - gm[r]) / (2.0 * _STEP)
    if not _damped(fmi, fmf):
        return
    us = u.copy()
    for i in range(nu):
        h = _STEP * max(1.0, abs(u[i]))
        us[i] = u[i] + h
        gp[:] = 0.0
        add_frame_forces(dbuf, fmi, fmf, t, q, us, gp)
        us[i] = u[i] - h
        gm[:] = 0.0
        add_frame_forces(dbuf, fmi, fmf, t, q, us, gm)
        us[i] = u[i]
        for r in range(nu):
            C[r, i] -= (gp[r] - gm[r]) / (2.0 * h)
