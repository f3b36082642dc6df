"""Rotation coordinates in the compiled stepping loop: Munthe-Kaas rates and charts.

* ``dexp_inv``: the rate phi_dot = dexp^-1_{-phi}(u) of local exponential coordinates
  phi around the configuration q0 at the start of a step, q(phi) = q0 (+) phi;
  u + 1/2 ad_phi u + 1/12 ad_phi^2 u - 1/720 ad_phi^4 u ... on SE(3), closed form
  Jr(phi)^-1 u on SO(3), phi_dot = u for scalar coordinates (each kind's ``dexp_inv`` in
  ``kernels/joints/``).
* ``to_start_charts``: rotation vectors re-expressed in the charts a run started with
  (the loop re-centres charts between steps).
"""
from numba import njit

from ..kernels.joints.dispatch import joint_dexp_inv, joint_to_start_chart

__all__ = ["dexp_inv", "to_start_charts"]


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
