"""The share of the world-placed force models (FM_WORLD, FM_LINEAR) in the implicit methods'
Newton matrices: what their derivatives add to the inverse dynamics derivatives.

The inverse dynamics derivatives (``rnea_derivatives_core``, ``constrained_derivatives_core``)
take the link wrenches in ws[:, W_FEXT] as fixed in their links: they turn with the subtree.
A wrench fixed in the world does not, and a spring's force changes with the points' placement
and speeds. With tau the generalized force of the entries (world axes, points P on links),

    tau = J_P^T f + J_w^T n                      (world wrench (n, f) at P of link j)
    tau = G^T f,  G = J_b - J_a,  f = F n         (spring, f on point b, -f on point a)

the held-in-the-link derivative already counted is d(J^T)/dq f + J^T (-[f]x J_w) (R f_b turns
with the link: d(R f_b) = (J_w dq) x f), so what is left to add to dtau/dq is, exactly,

    J_P^T [f]x J_w,j + J_w,j^T [n]x J_w,j                                  (world wrench)
    J_b^T [f]x J_w,b - J_a^T [f]x J_w,a + G^T df/dq                        (spring)
    df/dq = (-k n n^T + F/L (I - n n^T) - c n w^T (I - n n^T) / L) G - c n n^T d(G u)/dq

with L = |p_b - p_a|, n the unit vector from a to b, w = G u the points' relative velocity,
F = -(k (L - l0) + c n.w) the tension (``force_kernels.spring_tension``), and dtau/du = -c
G^T n n^T G. The columns of J_P, J_w and d(J_P u)/dq come from the world motion subspaces of
the point's ancestors (``point_columns``): nothing is approximated; tests/
test_implicit_force_models.py checks every term against central differences of
``apply_forces``. The residual applies the entries themselves (``apply_forces``): this share
only steers Newton's iteration.
"""
import math

import numpy as np
from numba import njit

from ..kernels.joint_transform import tree_root, world_placements
from ..kernels.layout import NU, PARENT, UOFF, W_PR, W_PW, W_RW
from ..kernels.spatial_inline import load9, mul33_vec, world_subspace_column
from .force_kernels import (
    FM_C, FM_K, FM_LINEAR, FM_POINT, FM_POINT_A, FM_WORLD, FMI_LINK, FMI_LINK_B, FMI_TYPE, spring_tension,
    world_entries, wrench_component, wrench_phase,
)

__all__ = ["link_force_jacobian", "point_columns"]


@njit(cache=True, inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    """a x b."""
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True)
def point_columns(mi, mf, ws, j, x0, x1, x2, u, P, W, DV):
    """For the point at x (tree coordinates) of link j: P = J_P (3, nu), its translational
    Jacobian; W = J_w (3, nu), link j's angular one; DV = d(J_P u)/dq (tangent), the
    derivative of its velocity at fixed u. Returns the point's velocity (world axes).

    With s_m = (w_m, v_m) dof m's world column about the (fixed, momentarily coincident)
    tree root origin and A_i = the sum of s_c u_c over the dofs from link i to j, a unit
    displacement along dof m of link i moves every column fixed on the path by s_m x (.), so
    the point's velocity v_P = A_v + A_w x x changes by (s_m x A_i) read at x plus A_w x P_m
    (the point moved by P_m)."""
    P[:, :] = 0.0
    W[:, :] = 0.0
    DV[:, :] = 0.0
    aw0 = aw1 = aw2 = av0 = av1 = av2 = 0.0
    i = j
    while i >= 0:
        u0 = mi[i, UOFF]
        o0, o1, o2 = ws[i, W_PR], ws[i, W_PR + 1], ws[i, W_PR + 2]
        for k in range(mi[i, NU]):  # A_i: the path's velocity from link i on
            w0, w1, w2, v0, v1, v2 = world_subspace_column(mf, ws, i, k)
            m0, m1, m2 = _cross(w0, w1, w2, o0, o1, o2)  # moved to the root origin: v - w x o
            s = u[u0 + k]
            aw0 += w0 * s
            aw1 += w1 * s
            aw2 += w2 * s
            av0 += (v0 - m0) * s
            av1 += (v1 - m1) * s
            av2 += (v2 - m2) * s
        for k in range(mi[i, NU]):
            c = u0 + k
            w0, w1, w2, v0, v1, v2 = world_subspace_column(mf, ws, i, k)
            m0, m1, m2 = _cross(w0, w1, w2, o0, o1, o2)
            v0, v1, v2 = v0 - m0, v1 - m1, v2 - m2
            W[0, c], W[1, c], W[2, c] = w0, w1, w2
            e0, e1, e2 = _cross(w0, w1, w2, x0, x1, x2)
            P[0, c], P[1, c], P[2, c] = v0 + e0, v1 + e1, v2 + e2
            dw = _cross(w0, w1, w2, aw0, aw1, aw2)  # s_m x A_i: angular, then linear part
            g = _cross(w0, w1, w2, av0, av1, av2)
            h = _cross(v0, v1, v2, aw0, aw1, aw2)
            e0, e1, e2 = _cross(dw[0], dw[1], dw[2], x0, x1, x2)
            DV[0, c], DV[1, c], DV[2, c] = g[0] + h[0] + e0, g[1] + h[1] + e1, g[2] + h[2] + e2
        i = mi[i, PARENT]
    for c in range(P.shape[1]):  # the point's own displacement under link j's angular velocity
        e0, e1, e2 = _cross(aw0, aw1, aw2, P[0, c], P[1, c], P[2, c])
        DV[0, c] += e0
        DV[1, c] += e1
        DV[2, c] += e2
    e0, e1, e2 = _cross(aw0, aw1, aw2, x0, x1, x2)
    return av0 + e0, av1 + e1, av2 + e2


@njit(cache=True, inline="always")
def _turning_share(P, W, f0, f1, f2, s, K):
    """K -= s P^T [f]x W: the correction for a force f at the point (Jacobian P) of a link
    (angular Jacobian W) that stays fixed in the world instead of turning with the link."""
    n = K.shape[0]
    for c in range(n):
        g0, g1, g2 = _cross(f0, f1, f2, W[0, c], W[1, c], W[2, c])
        if g0 == 0.0 and g1 == 0.0 and g2 == 0.0:
            continue
        for r in range(n):
            K[r, c] -= s * (P[0, r] * g0 + P[1, r] * g1 + P[2, r] * g2)


@njit(cache=True, inline="always")
def _placed_point(mi, mf, ws, j, fmf, e, o, u, P, W, DV):
    """(tree root origin, point in tree coordinates, velocity) of the point fmf[e, o:o+3] of
    link j, its columns in P, W, DV (``point_columns``); a point of the world (j < 0): its
    own origin, no columns."""
    if j < 0:
        P[:, :] = 0.0
        W[:, :] = 0.0
        DV[:, :] = 0.0
        return (fmf[e, o], fmf[e, o + 1], fmf[e, o + 2]), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    r = mul33_vec(load9(ws, j, W_RW), fmf[e, o], fmf[e, o + 1], fmf[e, o + 2])
    x = (ws[j, W_PR] + r[0], ws[j, W_PR + 1] + r[1], ws[j, W_PR + 2] + r[2])
    v = point_columns(mi, mf, ws, j, x[0], x[1], x[2], u, P, W, DV)
    root = tree_root(mi, j)
    return (ws[root, W_PW], ws[root, W_PW + 1], ws[root, W_PW + 2]), x, v


@njit(cache=True, inline="always")
def _spring_share(mi, mf, ws, fmi, fmf, e, u, K, C, work):
    """Subtract the FM_LINEAR entry e's share (module docstring) from K and C."""
    Pa, Wa, Da, Pb, Wb, Db = work[0], work[1], work[2], work[3], work[4], work[5]
    oa, xa, va = _placed_point(mi, mf, ws, fmi[e, FMI_LINK], fmf, e, FM_POINT_A, u, Pa, Wa, Da)
    ob, xb, vb = _placed_point(mi, mf, ws, fmi[e, FMI_LINK_B], fmf, e, FM_POINT, u, Pb, Wb, Db)
    d0 = (ob[0] - oa[0]) + (xb[0] - xa[0])  # as force_kernels.linear_spring
    d1 = (ob[1] - oa[1]) + (xb[1] - xa[1])
    d2 = (ob[2] - oa[2]) + (xb[2] - xa[2])
    length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if length == 0.0:
        return  # (the spring applies nothing there)
    n0, n1, n2 = d0 / length, d1 / length, d2 / length
    w0, w1, w2 = vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]
    rate = n0 * w0 + n1 * w1 + n2 * w2
    F = spring_tension(fmf, e, length, rate)
    k = fmf[e, FM_K]
    c = fmf[e, FM_C]
    _turning_share(Pb, Wb, F * n0, F * n1, F * n2, 1.0, K)
    _turning_share(Pa, Wa, F * n0, F * n1, F * n2, -1.0, K)
    nu = K.shape[0]
    for col in range(nu):  # G = Pb - Pa into Pa, X = df/dq into Da
        g0, g1, g2 = Pb[0, col] - Pa[0, col], Pb[1, col] - Pa[1, col], Pb[2, col] - Pa[2, col]
        ng = n0 * g0 + n1 * g1 + n2 * g2
        t0, t1, t2 = g0 - n0 * ng, g1 - n1 * ng, g2 - n2 * ng  # (I - n n^T) G
        ndg = n0 * (Db[0, col] - Da[0, col]) + n1 * (Db[1, col] - Da[1, col]) + n2 * (Db[2, col] - Da[2, col])
        a = -k * ng - c * (w0 * t0 + w1 * t1 + w2 * t2) / length - c * ndg
        Da[0, col] = a * n0 + F / length * t0
        Da[1, col] = a * n1 + F / length * t1
        Da[2, col] = a * n2 + F / length * t2
        Pa[0, col], Pa[1, col], Pa[2, col] = g0, g1, g2
        Wa[0, col] = ng  # n.G, for C
    for r in range(nu):
        for col in range(nu):
            K[r, col] -= Pa[0, r] * Da[0, col] + Pa[1, r] * Da[1, col] + Pa[2, r] * Da[2, col]
            C[r, col] += c * Wa[0, r] * Wa[0, col]


@njit(cache=True, inline="always")
def _world_share(mi, mf, ws, fmi, fmf, e, t, u, K, work):
    """Subtract the FM_WORLD entry e's share (module docstring) from K."""
    P, W, DV = work[0], work[1], work[2]
    _placed_point(mi, mf, ws, fmi[e, FMI_LINK], fmf, e, FM_POINT, u, P, W, DV)
    s = wrench_phase(fmf, e, t)
    _turning_share(P, W, wrench_component(fmf, e, 3, s), wrench_component(fmf, e, 4, s),
                   wrench_component(fmf, e, 5, s), 1.0, K)
    _turning_share(W, W, wrench_component(fmf, e, 0, s), wrench_component(fmf, e, 1, s),
                   wrench_component(fmf, e, 2, s), 1.0, K)


@njit(cache=True)
def link_force_jacobian(mi, mf, ws, fmi, fmf, t, q, u, K, C):
    """Subtract the FM_WORLD and FM_LINEAR entries' share (module docstring) from K (d/dq,
    tangent) and C (d/du) of a residual that holds -tau at (t, q, u), as
    ``galpha_step.force_jacobian`` does for the joint-level ones. Nothing, and no
    allocation, without such entries."""
    if not world_entries(fmi):
        return
    world_placements(mi, mf, ws, q)  # (kept where the derivatives' pass left q's)
    work = np.empty((6, 3, u.shape[0]))
    for e in range(fmi.shape[0]):
        if fmi[e, FMI_TYPE] == FM_LINEAR:
            _spring_share(mi, mf, ws, fmi, fmf, e, u, K, C, work)
        elif fmi[e, FMI_TYPE] == FM_WORLD:
            _world_share(mi, mf, ws, fmi, fmf, e, t, u, K, work)
