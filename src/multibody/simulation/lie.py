"""Rotation coordinates in the compiled stepping loop: Munthe-Kaas rates and charts.

* ``dexp_inv``: the rate phi_dot = dexp^-1_{-phi}(u) of local exponential coordinates
  phi around the configuration q0 at the start of a step, q(phi) = q0 (+) phi;
  u + 1/2 ad_phi u + 1/12 ad_phi^2 u - 1/720 ad_phi^4 u ... on SE(3), closed form
  Jr(phi)^-1 u on SO(3), phi_dot = u for scalar coordinates (each kind's ``dexp_inv`` in
  ``kernels/joints/``).
* ``to_start_charts``: rotation vectors re-expressed in the charts a run started with
  (the loop re-centres charts between steps).
* ``error_scale_map``: what scales each local coordinate in the Munthe-Kaas error norm.
"""
import numpy as np
from numba import njit

from ..kernels import layout as L
from ..kernels.joints.dispatch import joint_dexp_inv, joint_to_start_chart
from ..kernels.kinds import KINDS

__all__ = ["dexp_inv", "to_start_charts", "error_scale_map"]


@njit(cache=True)
def dexp_inv(mi, phi, u, out):
    """out = dexp^-1_{-phi}(u) per link: the rate of the local exponential coordinates
    phi (q = q0 (+) phi) whose body velocity is u."""
    for j in range(mi.shape[0]):
        joint_dexp_inv(mi, phi, u, out, j)


@njit(cache=True)
def to_start_charts(mi, ws, chart0, q, out):
    """out = q re-expressed in the charts ``chart0`` (n_links, 4) of the start of the run
    (q is in the current charts ws[:, W_CHART])."""
    for i in range(q.shape[0]):
        out[i] = q[i]
    for j in range(mi.shape[0]):
        joint_to_start_chart(mi, ws, chart0, q, out, j)


def error_scale_map(c):
    """For each local coordinate (nu,) of the Munthe-Kaas error norm: the q entry whose
    magnitude scales it, or -1 for a rotation (scale 1)."""
    smap = np.full(c.nu, -1, dtype=np.int64)
    for j in range(c.n_links):
        kind = KINDS[c.mi[j, L.KIND]]
        i, k = c.mi[j, L.QOFF], c.mi[j, L.UOFF]
        if kind.chart or kind.quaternion:  # 3 rotation entries, then a position (free)
            n_rot = 4 if kind.quaternion else 3
            smap[k + 3:k + kind.nu] = np.arange(i + n_rot, i + kind.nq)
        else:
            smap[k:k + kind.nu] = np.arange(i, i + kind.nu)
    return smap
