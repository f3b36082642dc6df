"""The derivatives of the dynamics of models with modal (flexible) bodies: the facade's part
(``derivatives.inverse_dynamics_derivatives`` and ``forward_dynamics_derivatives`` hand such
models here), one call into ``kernels/flex_derivatives_entry.py``'s analytic derivative entries
(kernels/flex_dynamics_derivatives.py). Tangent conventions as the rigid derivatives': hinge
coordinates along ``integrate``, modal coordinates eta plain vector coordinates.

f_ext: wrenches at bodies and nodes, fixed in their frames (at a deforming node the frame
moves with the modes: ``flex_node_wrenches``). Stacked states go to the batched flex kernels
(``batch``, as the rigid ones, without f_ext or data=).

Enabled constraints (loops, convel and coordinate constraints, their frames at deforming nodes
included): ``forward_dynamics_derivatives`` differentiates the flex tree-augmented constrained
udot of ``forward_dynamics`` (kernels/flex_constrained_derivatives.py, one compiled call: the
KKT system's derivatives, as the rigid constrained_derivatives'); ``inverse_dynamics_derivatives``
stays the tree's (``inverse_dynamics`` has no constraint force). Stacked states: the batched
kernel around the same entry (``batch.constrained_forward_dynamics_derivatives``).
"""
import numpy as np

from ..kernels import flex_layout as FL
from ..kernels.flex_constrained import T_NK
from ..kernels.flex_constrained_derivatives import flex_constrained_dynamics_derivatives, scratch_size
from ..kernels.flex_derivatives_entry import (
    derivatives_work_size, forward_dynamics_derivatives_flex, inverse_dynamics_derivatives_flex,
)
from .checks import as_float_vector, check_vector, data_object, raise_status, zero_division_error
from .constraints import constraint_work
from .external_forces import external_wrenches, generalized_external_forces
from .flex_node_wrenches import node_wrenches

NAMES = ("q", "u", "tau")


def _wrenches(c, d, q, f_ext):
    """(frame rows, wrenches, E) of f_ext (none: empty): a wrench at a deforming node moved to
    a frame rigid on its link, E the rest of its tangent (``flex_node_wrenches``)."""
    if f_ext is None:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 6)), None
    rows, wrenches = external_wrenches(c, f_ext)
    if not np.any(c.flex.frame_node[rows] >= 0):
        return rows, wrenches, None
    return node_wrenches(c, d, check_vector(q, c.nq, "q", c), rows, wrenches)


def flex_derivatives(m, name, names, q, u, x, f_ext, data):
    """(d_dq, d_du, d_dx) of ``name`` ("inverse_dynamics_derivatives" or
    "forward_dynamics_derivatives") for a model with modal bodies, checked; f_ext's wrenches
    (at bodies and nodes) fixed in their frames, as ``inverse_dynamics`` takes them."""
    c = m.compiled
    if c.nc and name == "forward_dynamics_derivatives":
        return flex_constrained_derivatives(m, q, u, x, f_ext, data)
    d = data_object(c, data)
    nu = c.nu
    outs = (np.empty((nu, nu)), np.empty((nu, nu)), np.empty((nu, nu)))
    state = tuple(as_float_vector(v, n) for v, n in zip((q, u, x), names))
    rows, wrenches, E = _wrenches(c, d, state[0], f_ext)
    T = np.empty(derivatives_work_size(d.buf))
    try:
        if name == "inverse_dynamics_derivatives":
            st = inverse_dynamics_derivatives_flex(d.buf, *state, rows, wrenches, T, *outs)
        else:
            if d.minv_work is None:
                d.minv_work = np.zeros(c.minv_work_shape)
            if f_ext is not None:  # udot under tau + sum J^T w, as forward_dynamics
                state = (*state[:2], state[2] + generalized_external_forces(c, d, state[0], f_ext))
            st = forward_dynamics_derivatives_flex(d.buf, *state, rows, wrenches, T, d.minv_work, np.empty(nu),
                                                   *outs)
    except ZeroDivisionError as e:
        raise zero_division_error(c, state[0], e) from None
    if st:
        raise_status(c, st, names, state)
    if E is not None:  # tau = ID - tau_ext; udot = M^-1 (tau + tau_ext - ...)
        outs[0][...] += -E if name == "inverse_dynamics_derivatives" else outs[2] @ E
    return outs


def flex_constrained_derivatives(m, q, u, tau, f_ext=None, data=None):
    """(dudot_dq, dudot_du, dudot_dtau = Mc^-1) of ``forward_dynamics`` on a model with modal
    bodies and enabled constraints (see the module docstring): the Baumgarte gains of the
    Data's constraint work array (zero, as ``forward_dynamics`` has them); f_ext as
    ``flex_derivatives``' (its generalized force added to tau, its node wrenches' E turned by
    Mc^-1)."""
    c = m.compiled
    d = data_object(c, data)
    nu = c.nu
    state = tuple(as_float_vector(v, n) for v, n in zip((q, u, tau), NAMES))
    rows, wrenches, E = _wrenches(c, d, state[0], f_ext)
    if f_ext is not None:  # udot under tau + sum J^T w, as forward_dynamics
        state = (*state[:2], state[2] + generalized_external_forces(c, d, state[0], f_ext))
    nk, tangents, scratch = constrained_work_sizes(c)
    frames = np.concatenate([rows, np.zeros(nk, dtype=np.int64)])
    held = np.concatenate([wrenches, np.zeros((nk, 6))])
    if d.minv_work is None:
        d.minv_work = np.zeros(c.minv_work_shape)
    outs = (np.empty((nu, nu)), np.empty((nu, nu)), np.empty((nu, nu)))
    work = (np.empty(tangents), np.empty(scratch), d.dense_scratch("flex_constrained_derivatives", (4, c.nc, nu)),
            d.minv_work)
    try:
        st = flex_constrained_dynamics_derivatives(d.buf, *state, constraint_work(c, d), frames, held, *work, *outs)
    except ZeroDivisionError as e:
        raise zero_division_error(c, state[0], e) from None
    if st:
        raise_status(c, st, NAMES, state)
    if E is not None:  # the node wrenches' change with eta, as a force: through Mc^-1
        outs[0][...] += outs[2] @ E
    return outs


def constrained_work_sizes(c):
    """(nk, the tangent work's length, the scratch's length) of compiled model c's flex
    constrained derivatives: nk moving constraint frames (the frame and wrench rows take nk more
    rows after f_ext's), then the lengths of T (``derivatives_work_size``) and S
    (``flex_constrained_derivatives.scratch_size``); the batched call sizes each worker's alike."""
    nk = int(c.flex.con_table[T_NK])
    nbm = max(6, int(c.flex.fi[:, FL.NB].max()))
    return nk, derivatives_work_size(c.thread_data().buf), scratch_size(c.nu, nk, nbm)
