"""Batched algorithms: many states in one compiled call, parallel across cores.

Each kernel takes a stack of data buffers ``dbufs`` (T, rows, cols), one per worker
(a data buffer begins with the model rows, see ``layout``), then the arguments of its
sample function (stacked states (B, ...), the outputs) and ``status`` (B,) last.
Worker t (a ``prange`` iteration) owns ``dbufs[t]`` and evaluates the t-th of T contiguous
blocks of samples with the same cores as the single-state entry kernels, so every sample
gets exactly the arithmetic of a single call. Blocks, not every T-th sample: interleaved,
the workers wrote neighbouring entries of ``status`` and rows of the outputs, which share
cache lines, and each write took the line from the other core. ``status[b]`` receives sample b's status
(kernels/status.py; OVERFLOW where its finite state gave a non-finite result, as the
single calls); a failing sample does not stop the others.

Every kernel is ``batch_kernel(name, sample)``: the one ``prange`` loop around a sample
function ``sample(dbuf, t, b, *args)`` (-> status of sample b, on worker t's buffer),
compiled under its own module-level name (``variants.variant``: Numba's cache tells the
kernels apart by name). A sample that is a single call's entry kernel and nothing else,
where that kernel is large (the constrained dynamics and their derivatives here, every flex
kernel in ``flex_batch``), is an ``entry_batch_kernel``: the caller passes the entry kernel's
address as the first argument (``entry_pointer``), so the batch kernel does not compile
that code again. The rigid tree kernels keep their cores linked: their indirect call would
cost UR5's forward dynamics 6 % a sample.
"""
from numba import njit, prange, types

from .common import (
    check_state, check_state_modal_ok, data_start, frame_table, link_rows, model_arrays, ragged, result_status,
)
from .constrained_dynamics import constrained_forward_dynamics
from .constrained_dynamics_derivatives import constrained_dynamics_derivatives
from .coordinates import integrate_q
from .energy import kinetic_energy_core, mass_and_com_core
from .forward_dynamics import aba_core
from .forward_dynamics_derivatives import fd_derivatives_core
from .inverse_dynamics import rnea_core
from .inverse_dynamics_derivatives import rnea_derivatives_core
from .inverse_mass_matrix import minv_core
from .jacobian import frame_jacobian_core, frame_pose_core
from .layout import D_USE_FEXT
from .mass_matrix import crba_core
from .status import OK, SINGULAR
from .variants import variant

# A sample function is a compiled call of its own (Numba's inliner takes no ``*args`` call),
# without reference counting: the two workers' atomic counts on the same arrays would
# contend for their cache lines.
SAMPLE = dict(cache=True, _nrt=False)


def batch_kernel(name, sample):
    """The batch kernel ``name(dbufs, *args)``: ``status = args[-1]``, and
    ``status[b] = sample(dbufs[t], t, b, *args)`` for every sample b, on worker t's block."""

    @variant(name, parallel=True)
    def batch(dbufs, *args):
        status = args[-1]
        T = dbufs.shape[0]
        B = status.shape[0]
        for t in prange(T):
            for b in range(t * B // T, (t + 1) * B // T):
                status[b] = sample(dbufs[t], t, b, *args)

    return batch


#: Numba's types of the arrays the samples hand to entry kernels (C-contiguous, writeable)
F1, F2, F3 = (types.Array(types.float64, k, "C") for k in (1, 2, 3))
I1 = types.Array(types.int64, 1, "C")

#: the entry kernel (dispatcher, argument types) of each ``entry_batch_kernel``, which the
#: caller hands to it as an ``entry_pointer.EntryPointer``
ENTRIES = {}


def entry_batch_kernel(name, sample, entry, argtypes):
    """The batch kernel ``name(entry, dbufs, *args)``, ``batch_kernel``'s loop around a sample
    ``sample(entry, dbuf, t, b, *args)`` that calls the entry kernel ``entry`` (a dispatcher,
    compiled for ``argtypes``) through the address its caller passes (``ENTRIES``): the single
    call's own compiled code, not a copy of it linked into the batch kernel and compiled
    again (``entry_pointer``). (The loop is ``batch_kernel``'s with the pointer passed on.)"""

    @variant(name, parallel=True)
    def batch(entry, dbufs, *args):
        status = args[-1]
        T = dbufs.shape[0]
        B = status.shape[0]
        for t in prange(T):
            for b in range(t * B // T, (t + 1) * B // T):
                status[b] = sample(entry, dbufs[t], t, b, *args)

    ENTRIES[batch] = (entry, tuple(argtypes))
    return batch


@njit(**SAMPLE)
def _forward_dynamics(dbuf, t, b, Q, U, TAU, OUT, status):
    """OUT[b] = forward dynamics at (Q[b], U[b], TAU[b])."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    ws = link_rows(dbuf, d0, n)
    z = ragged(dbuf, d0, n)
    st = check_state(mi, Q[b], U[b], TAU[b], 1, 1)
    if st == OK and not aba_core(mi, mf, ws, z, Q[b], U[b], TAU[b], dbuf[d0, D_USE_FEXT] != 0.0, OUT[b]):
        st = SINGULAR
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _inverse_dynamics(dbuf, t, b, Q, U, UDOT, OUT, status):
    """OUT[b] = inverse dynamics at (Q[b], U[b], UDOT[b])."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    st = check_state(mi, Q[b], U[b], UDOT[b], 1, 1)
    if st == OK:
        rnea_core(mi, mf, link_rows(dbuf, d0, n), Q[b], U[b], UDOT[b], dbuf[d0, D_USE_FEXT] != 0.0, OUT[b])
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _mass_matrix(dbuf, t, b, Q, OUT, status):
    """OUT[b] = M(Q[b]) (nu, nu)."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
    if st == OK:
        crba_core(mi, mf, link_rows(dbuf, data_start(dbuf, n), n), Q[b], OUT[b])
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _inverse_mass_matrix(dbuf, t, b, works, Q, OUT, status):
    """OUT[b] = M(Q[b])^-1; works[t] is worker t's scratch (see inverse_mass_matrix)."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
    if st == OK and not minv_core(mi, mf, link_rows(dbuf, d0, n), ragged(dbuf, d0, n), Q[b], works[t], OUT[b]):
        st = SINGULAR
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _frame_pose(dbuf, t, b, Q, f, OUT, status):
    """OUT[b] = T_world_frame (4, 4) of frame row f at Q[b]."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
    if st == OK:
        frame_pose_core(mi, mf, frame_table(dbuf, n), link_rows(dbuf, data_start(dbuf, n), n), Q[b], f, OUT[b])
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _frame_jacobian(dbuf, t, b, Q, f, POSES, OUT, status):
    """OUT[b] = body Jacobian (6, nu) of frame row f at Q[b] (OUT must be zero on entry);
    POSES[b] receives the frame's world pose."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
    if st == OK:
        frame_jacobian_core(mi, mf, frame_table(dbuf, n), link_rows(dbuf, data_start(dbuf, n), n), Q[b], f,
                            POSES[b], OUT[b])
    return result_status(result_status(st, POSES[b]), OUT[b])


@njit(**SAMPLE)
def _kinetic_energy(dbuf, t, b, Q, U, OUT, status):
    """OUT[b] = kinetic energy at (Q[b], U[b])."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    st = check_state(mi, Q[b], U[b], U[b], 1, -1)
    if st == OK:
        OUT[b] = kinetic_energy_core(mi, mf, link_rows(dbuf, data_start(dbuf, n), n), Q[b], U[b])
    return result_status(st, OUT[b:b + 1])


@njit(**SAMPLE)
def _mass_and_com(dbuf, t, b, Q, OUT, status):
    """OUT[b] = [total mass, centre of mass (3)] at Q[b]."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    st = check_state(mi, Q[b], Q[b], Q[b], -1, -1)
    if st == OK:
        mass_and_com_core(mi, mf, link_rows(dbuf, data_start(dbuf, n), n), Q[b], OUT[b])
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _integrate(dbuf, t, b, Q, U, dt, OUT, status):
    """OUT[b] = Q[b] (+) U[b] dt on each hinge's manifold (charts of worker t's data); models
    with modal bodies too (eta + eta' dt, as a single call)."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    st = check_state_modal_ok(mi, Q[b], U[b], U[b], 1, -1)  # (integrate_q knows modal coordinates)
    if st == OK:
        integrate_q(mi, link_rows(dbuf, data_start(dbuf, n), n), Q[b], U[b], dt, OUT[b])
    return result_status(st, OUT[b])


@njit(**SAMPLE)
def _inverse_dynamics_derivatives(dbuf, t, b, Q, U, UDOT, DQ, DU, M, status):
    """DQ[b], DU[b], M[b] = the inverse dynamics derivatives at (Q[b], U[b], UDOT[b])."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    st = check_state(mi, Q[b], U[b], UDOT[b], 1, 1)
    if st == OK:
        rnea_derivatives_core(mi, mf, link_rows(dbuf, d0, n), Q[b], U[b], UDOT[b], dbuf[d0, D_USE_FEXT] != 0.0,
                              DQ[b], DU[b], M[b])
    return result_status(result_status(result_status(st, DQ[b]), DU[b]), M[b])


@njit(**SAMPLE)
def _forward_dynamics_derivatives(dbuf, t, b, works, scratch, Q, U, TAU, DQ, DU, MINV, status):
    """DQ[b], DU[b], MINV[b] = the forward dynamics derivatives at (Q[b], U[b], TAU[b]);
    works[t], scratch[t] are worker t's (see forward_dynamics_derivatives)."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    d0 = data_start(dbuf, n)
    st = check_state(mi, Q[b], U[b], TAU[b], 1, 1)
    if st == OK and not fd_derivatives_core(mi, mf, link_rows(dbuf, d0, n), ragged(dbuf, d0, n), Q[b], U[b],
                                            TAU[b], dbuf[d0, D_USE_FEXT] != 0.0, works[t], scratch[t],
                                            DQ[b], DU[b], MINV[b]):
        st = SINGULAR
    return result_status(result_status(result_status(st, DQ[b]), DU[b]), MINV[b])


@njit(**SAMPLE)
def _constrained_forward_dynamics(entry, dbuf, t, b, works, Q, U, TAU, OUT, status):
    """OUT[b] = the tree-augmented constrained forward dynamics at (Q[b], U[b], TAU[b]), the
    single call's entry kernel on worker t's constraint work array (its Baumgarte gains)."""
    return entry(dbuf, Q[b], U[b], TAU[b], works[t], OUT[b])


@njit(**SAMPLE)
def _constrained_forward_dynamics_derivatives(entry, dbuf, t, b, works, wms, Ts, Es, VAs, KTs, Q, U, TAU, DQ, DU,
                                              MINV, status):
    """DQ[b], DU[b], MINV[b] = the derivatives of the tree-augmented constrained forward dynamics at
    (Q[b], U[b], TAU[b]), the single call's entry kernel on worker t's constraint work array (its
    Baumgarte gains), M^-1 work and scratch."""
    return entry(dbuf, Q[b], U[b], TAU[b], works[t], wms[t], Ts[t], Es[t], VAs[t], KTs[t], DQ[b], DU[b], MINV[b])


forward_dynamics_batch = batch_kernel("forward_dynamics_batch", _forward_dynamics)
constrained_forward_dynamics_batch = entry_batch_kernel("constrained_forward_dynamics_batch",
                                                        _constrained_forward_dynamics, constrained_forward_dynamics,
                                                        (F2, F1, F1, F1, F2, F1))
inverse_dynamics_batch = batch_kernel("inverse_dynamics_batch", _inverse_dynamics)
mass_matrix_batch = batch_kernel("mass_matrix_batch", _mass_matrix)
inverse_mass_matrix_batch = batch_kernel("inverse_mass_matrix_batch", _inverse_mass_matrix)
frame_pose_batch = batch_kernel("frame_pose_batch", _frame_pose)
frame_jacobian_batch = batch_kernel("frame_jacobian_batch", _frame_jacobian)
kinetic_energy_batch = batch_kernel("kinetic_energy_batch", _kinetic_energy)
mass_and_com_batch = batch_kernel("mass_and_com_batch", _mass_and_com)
integrate_batch = batch_kernel("integrate_batch", _integrate)
inverse_dynamics_derivatives_batch = batch_kernel("inverse_dynamics_derivatives_batch", _inverse_dynamics_derivatives)
forward_dynamics_derivatives_batch = batch_kernel("forward_dynamics_derivatives_batch", _forward_dynamics_derivatives)
constrained_forward_dynamics_derivatives_batch = entry_batch_kernel(
    "constrained_forward_dynamics_derivatives_batch", _constrained_forward_dynamics_derivatives,
    constrained_dynamics_derivatives, (F2, F1, F1, F1, F2, F2, F3, F3, F2, F2, F2, F2, F2))
