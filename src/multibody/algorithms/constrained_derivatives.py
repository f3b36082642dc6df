"""Derivatives of the dynamics of models with enabled constraints (closed loops, convel and
coordinate constraints): ``forward_dynamics_derivatives``' checked path for them.

The function differentiated is exactly ``forward_dynamics``' for such models: the
tree-augmented constrained udot (kernels/constrained_dynamics.py), with the Baumgarte gains of
the Data's constraint work array (zero, as ``forward_dynamics`` has them). Rows the TA drops as
redundant stay dropped (a set that is constant near the state). The kernel is
kernels/constrained_dynamics_derivatives.py: the KKT system's derivatives, with the rows'
terms analytic from their frames' kinematics, one compiled call.
"""
import numpy as np

from ..kernels.constraint_work import K_COLS
from .checks import as_float_vector, data_object, raise_status, zero_division_error
from .constraints import constraint_work
from .entry import KERNELS
from .external_forces import with_external_forces

NAMES = ("q", "u", "tau")


def _work(c, d):
    """(M^-1's work, the (3, nu, nu) tree derivatives, the (5, nc, nu) rows' arrays, the links'
    (n, 12) motion, the (3, 2 K_COLS) frame scratch) of Data d."""
    if d.minv_work is None:
        d.minv_work = np.zeros(c.minv_work_shape)
    return (d.minv_work, d.dense_scratch("derivatives", (3, c.nu, c.nu)),
            d.dense_scratch("constrained_derivatives", (5, c.nc, c.nu)),
            d.dense_scratch("constrained_motion", (c.n_links, 12)), d.dense_scratch("row_tangents", (3, 2 * K_COLS)))


def constrained_forward_dynamics_derivatives(m, q, u, tau, f_ext=None, data=None, public=None):
    """(dudot_dq, dudot_du, dudot_dtau) of ``forward_dynamics`` on a model with enabled
    constraints (see ``derivatives.forward_dynamics_derivatives``); dudot_dtau is the
    constrained inverse mass Mc^-1 = M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1. ``public``: the function
    that ``with_external_forces`` calls again with f_ext loaded."""
    c = m.compiled
    name = "forward_dynamics_derivatives"
    if getattr(q, "ndim", 1) == 2:
        raise ValueError(f"{name}: stacked states are not supported with constraints yet")
    d = data_object(c, data)
    if f_ext is not None:
        return with_external_forces(c, d, f_ext, public, m, q, u, tau, None, d)
    W = constraint_work(c, d)
    outs = (np.empty(c.shape_M), np.empty(c.shape_M), np.empty(c.shape_M))
    kernel = KERNELS.constrained_dynamics_derivatives
    state = (q, u, tau)
    try:
        try:
            st = kernel(d.buf, *state, W, *_work(c, d), *outs)
        except TypeError:
            state = tuple(as_float_vector(x, n) for x, n in zip(state, NAMES))
            st = kernel(d.buf, *state, W, *_work(c, d), *outs)
    except ZeroDivisionError as e:
        raise zero_division_error(c, state[0], e) from None
    if st:
        raise_status(c, st, NAMES, state)
    return outs


__all__ = ["constrained_forward_dynamics_derivatives"]
