"""Rotation coordinates in the compiled stepping loop: Munthe-Kaas rates and charts.

* ``dexp_inv``: the rate phi_dot = dexp^-1_{-phi}(u) of local exponential coordinates
  phi around the configuration q0 at the start of a step, q(phi) = q0 (+) phi;
  u + 1/2 ad_phi u + 1/12 ad_phi^2 u - 1/720 ad_phi^4 u ... on SE(3), closed form
  Jr(phi)^-1 u on SO(3), phi_dot = u for scalar coordinates.
* ``to_start_charts``: rotation vectors re-expressed in the charts a run started with
  (the loop re-centres charts between steps).
"""
from numba import njit

from ..kernels.coordinates import jr_inv_times, quat_exp, quat_log, quat_mul
from ..kernels.layout import FREE, FREE_QUAT, KIND, NU, QOFF, SPHERICAL, SPHERICAL_QUAT, UOFF, W_CHART

__all__ = ["dexp_inv", "to_start_charts"]


@njit(cache=True, inline="always")
def _ad(ax, ay, az, bx, by, bz, w0, w1, w2, v0, v1, v2):
    """ad_xi eta for xi = [a; b], eta = [w; v] (se(3)): [a x w; a x v + b x w]."""
    return (ay * w2 - az * w1, az * w0 - ax * w2, ax * w1 - ay * w0,
            ay * v2 - az * v1 + by * w2 - bz * w1,
            az * v0 - ax * v2 + bz * w0 - bx * w2,
            ax * v1 - ay * v0 + bx * w1 - by * w0)


@njit(cache=True)
def dexp_inv(mi, phi, u, out):
    """out = dexp^-1_{-phi}(u) per link: the rate of the local exponential coordinates
    phi (q = q0 (+) phi) whose body velocity is u."""
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        k = mi[j, UOFF]
        if kind == SPHERICAL or kind == SPHERICAL_QUAT:
            d = jr_inv_times(phi[k], phi[k + 1], phi[k + 2], u[k], u[k + 1], u[k + 2])
            out[k] = d[0]
            out[k + 1] = d[1]
            out[k + 2] = d[2]
        elif kind == FREE or kind == FREE_QUAT:
            a0, a1, a2, b0, b1, b2 = phi[k], phi[k + 1], phi[k + 2], phi[k + 3], phi[k + 4], phi[k + 5]
            e1 = _ad(a0, a1, a2, b0, b1, b2, u[k], u[k + 1], u[k + 2], u[k + 3], u[k + 4], u[k + 5])
            e2 = _ad(a0, a1, a2, b0, b1, b2, e1[0], e1[1], e1[2], e1[3], e1[4], e1[5])
            e3 = _ad(a0, a1, a2, b0, b1, b2, e2[0], e2[1], e2[2], e2[3], e2[4], e2[5])
            e4 = _ad(a0, a1, a2, b0, b1, b2, e3[0], e3[1], e3[2], e3[3], e3[4], e3[5])
            for r in range(6):
                out[k + r] = u[k + r] + 0.5 * e1[r] + e2[r] / 12.0 - e4[r] / 720.0
            # the rotation part in closed form (exact on SO(3))
            d = jr_inv_times(a0, a1, a2, u[k], u[k + 1], u[k + 2])
            out[k] = d[0]
            out[k + 1] = d[1]
            out[k + 2] = d[2]
        else:
            n = mi[j, NU]
            for r in range(n):
                out[k + r] = u[k + r]


@njit(cache=True)
def to_start_charts(mi, ws, chart0, q, out):
    """out = q re-expressed in the charts ``chart0`` (n_links, 4) of the start of the run
    (q is in the current charts ws[:, W_CHART])."""
    for i in range(q.shape[0]):
        out[i] = q[i]
    for j in range(mi.shape[0]):
        kind = mi[j, KIND]
        if kind != SPHERICAL and kind != FREE:
            continue
        same = True
        for r in range(4):
            if ws[j, W_CHART + r] != chart0[j, r]:
                same = False
        if same:
            continue
        i = mi[j, QOFF]
        e = quat_exp(q[i], q[i + 1], q[i + 2])
        c = quat_mul(ws[j, W_CHART], ws[j, W_CHART + 1], ws[j, W_CHART + 2], ws[j, W_CHART + 3], e[0], e[1], e[2], e[3])
        d = quat_mul(-chart0[j, 0], -chart0[j, 1], -chart0[j, 2], chart0[j, 3], c[0], c[1], c[2], c[3])
        v = quat_log(d[0], d[1], d[2], d[3])
        out[i] = v[0]
        out[i + 1] = v[1]
        out[i + 2] = v[2]
