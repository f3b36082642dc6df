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

Two kinds of kernel, each compiled under its own module-level name (``variants.variant``:
Numba's cache tells the kernels apart by name), around the one ``prange`` loop:

* ``entry_batch_kernel(name, sample, entry)``, most of them: the sample slices sample b's
  rows and worker t's arrays and calls the single call's entry kernel, which the caller
  passes by its address (``entry_pointer.EntryPointer``; ``ENTRIES`` names it: the model's
  kernel table picks the variant, general, PIN-only or flex, as for a single call). The
  stacked call is then the single call's own machine code, bit for bit, and the batch
  kernel compiles only its loop: linked in, each stacked kernel compiled its entry kernel
  again (a flex one 10-20 s on its first use, a rigid one 2-4 s).
* ``batch_kernel(name, sample)``: the sample's code linked in. ``integrate``, and the
  forward and inverse dynamics and mass matrix of models of PIN links (``pin_batch``):
  there the indirect call costs about 40 ns a sample, 6 % of UR5's forward dynamics
  (bench_batch's ratio to a loop of single calls is an acceptance figure of issue 20).
"""
from numba import njit, prange, types

from .common import check_state_modal_ok, data_start, link_rows, model_arrays, result_status
from .coordinates import integrate_q
from .status import OK
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

#: the entry kernel of each ``entry_batch_kernel``, which the caller hands to it as an
#: ``entry_pointer.EntryPointer``: the name of a facade kernel (the model's kernel table
#: ``c.kernels``, so a model of PIN links gets its PIN-only variant and a model with modal
#: bodies its flex one, as its single calls) or a pair (dispatcher, argument types)
ENTRIES = {}


def entry_batch_kernel(name, sample, entry):
    """The batch kernel ``name(entry, dbufs, *args)``, ``batch_kernel``'s loop around a sample
    ``sample(entry, dbuf, t, b, *args)`` that calls the entry kernel ``entry`` (``ENTRIES``)
    through the address its caller passes: the single call's own compiled code, not a copy of
    it linked into the batch kernel and compiled again (``entry_pointer``). (The loop is
    ``batch_kernel``'s with the pointer passed on.)"""

    @variant(name, parallel=True)
    def batch(entry, dbufs, *args):
        status = args[-1]
        T = dbufs.shape[0]
        B = status.shape[0]
        for t in prange(T):
            for b in range(t * B // T, (t + 1) * B // T):
                status[b] = sample(entry, dbufs[t], t, b, *args)

    ENTRIES[batch] = entry
    return batch


# The samples of the entry batch kernels, by the arguments they slice: each calls its entry
# kernel on sample b's rows (stacked arrays: [b]) and worker t's arrays (works, scratch: [t]).
@njit(**SAMPLE)
def _q_u_x(entry, dbuf, t, b, Q, U, X, OUT, status):
    """OUT[b] = entry(Q[b], U[b], X[b]) (forward dynamics: X = TAU; inverse dynamics: X = UDOT)."""
    return entry(dbuf, Q[b], U[b], X[b], OUT[b])


@njit(**SAMPLE)
def _q(entry, dbuf, t, b, Q, OUT, status):
    """OUT[b] = entry(Q[b]) (the mass matrix; mass and centre of mass)."""
    return entry(dbuf, Q[b], OUT[b])


@njit(**SAMPLE)
def _q_worker(entry, dbuf, t, b, works, Q, OUT, status):
    """OUT[b] = entry(Q[b]) on worker t's work array (the inverse mass matrix)."""
    return entry(dbuf, Q[b], works[t], OUT[b])


@njit(**SAMPLE)
def _frame_pose(entry, dbuf, t, b, Q, f, OUT, status):
    """OUT[b] = T_world_frame (4, 4) of frame row f at Q[b]."""
    return entry(dbuf, Q[b], f, OUT[b])


@njit(**SAMPLE)
def _frame_jacobian(entry, dbuf, t, b, Q, f, POSES, OUT, status):
    """OUT[b] = body Jacobian (6, nu) of frame row f at Q[b] (OUT must be zero on entry);
    POSES[b] receives the frame's world pose."""
    return entry(dbuf, Q[b], f, POSES[b], OUT[b])


@njit(**SAMPLE)
def _q_u_scalar(entry, dbuf, t, b, Q, U, OUT, status):
    """OUT[b] = entry(Q[b], U[b]), a number (the kinetic energy)."""
    return entry(dbuf, Q[b], U[b], OUT[b:b + 1])


@njit(**SAMPLE)
def _q_scalar(entry, dbuf, t, b, Q, OUT, status):
    """OUT[b] = entry(Q[b]), a number (the strain energy)."""
    return entry(dbuf, Q[b], OUT[b:b + 1])


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
def _inverse_dynamics_derivatives(entry, dbuf, t, b, Q, U, UDOT, DQ, DU, M, status):
    """DQ[b], DU[b], M[b] = the inverse dynamics derivatives at (Q[b], U[b], UDOT[b])."""
    return entry(dbuf, Q[b], U[b], UDOT[b], DQ[b], DU[b], M[b])


@njit(**SAMPLE)
def _forward_dynamics_derivatives(entry, dbuf, t, b, works, scratch, Q, U, TAU, DQ, DU, MINV, status):
    """DQ[b], DU[b], MINV[b] = the forward dynamics derivatives at (Q[b], U[b], TAU[b]);
    works[t], scratch[t] are worker t's (see forward_dynamics_derivatives)."""
    return entry(dbuf, Q[b], U[b], TAU[b], works[t], scratch[t], DQ[b], DU[b], MINV[b])


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


forward_dynamics_batch = entry_batch_kernel("forward_dynamics_batch", _q_u_x, "forward_dynamics")
constrained_forward_dynamics_batch = entry_batch_kernel("constrained_forward_dynamics_batch",
                                                        _constrained_forward_dynamics, "constrained_forward_dynamics")
inverse_dynamics_batch = entry_batch_kernel("inverse_dynamics_batch", _q_u_x, "inverse_dynamics")
mass_matrix_batch = entry_batch_kernel("mass_matrix_batch", _q, "mass_matrix")
inverse_mass_matrix_batch = entry_batch_kernel("inverse_mass_matrix_batch", _q_worker, "inverse_mass_matrix")
frame_pose_batch = entry_batch_kernel("frame_pose_batch", _frame_pose, "frame_pose")
frame_jacobian_batch = entry_batch_kernel("frame_jacobian_batch", _frame_jacobian, "frame_jacobian")
kinetic_energy_batch = entry_batch_kernel("kinetic_energy_batch", _q_u_scalar, "kinetic_energy")
mass_and_com_batch = entry_batch_kernel("mass_and_com_batch", _q, "mass_and_com")
strain_energy_batch = entry_batch_kernel("strain_energy_batch", _q_scalar, "strain_energy")  # (modal bodies only)
integrate_batch = batch_kernel("integrate_batch", _integrate)
inverse_dynamics_derivatives_batch = entry_batch_kernel("inverse_dynamics_derivatives_batch",
                                                        _inverse_dynamics_derivatives, "inverse_dynamics_derivatives")
forward_dynamics_derivatives_batch = entry_batch_kernel("forward_dynamics_derivatives_batch",
                                                        _forward_dynamics_derivatives, "forward_dynamics_derivatives")
constrained_forward_dynamics_derivatives_batch = entry_batch_kernel(
    "constrained_forward_dynamics_derivatives_batch", _constrained_forward_dynamics_derivatives,
    "constrained_dynamics_derivatives")
