"""Batched algorithms: stacked states (B, ...) in one compiled call across cores.

``forward_dynamics`` (with enabled constraints: ``constrained_forward_dynamics``, the
tree-augmented dynamics with the calling thread's Baumgarte gains), ``inverse_dynamics``,
``bias_forces``, ``gravity_forces``, ``mass_matrix``, ``inverse_mass_matrix``, ``body_pose``, ``body_jacobian``,
``pose_gradient``, ``kinetic_energy``, ``potential_energy`` (``strain_energy``),
``center_of_mass``, ``integrate``, ``inverse_dynamics_derivatives`` and
``forward_dynamics_derivatives`` (with enabled constraints:
``constrained_forward_dynamics_derivatives``) accept stacked inputs (q of shape
(B, nq), u (B, nu), ...) and return stacked outputs: the single-state functions send
2-D inputs here (after their fast path has refused them, so single calls cost nothing
more). The work is split over Numba's threads (``numba.get_num_threads()``), each with
its own data buffer (rotation-vector charts: those of the calling thread's default
Data, as in a single call); every sample gets exactly the arithmetic of a single call.
A failing sample raises an error naming its index (the others are computed).
Most batch kernels call the model's own entry kernel through its address
(``kernels/batch.ENTRIES``, ``kernels/entry_pointer.py``): models with modal bodies take the
same kernels and checks with their flex entry kernels; their derivatives have kernels of
their own (``kernels/flex_batch.py``). ``pose_gradient`` is a loop of single calls for every model: the caller
passes its single-state function as ``single`` (this module imports none of them: they
import it).
"""
import functools

import numba
import numpy as np

from ..kernels import batch as K
from ..kernels import flex_batch as FK
from ..kernels import pin_batch as PK
from ..kernels.constraint_work import K_COLS
from ..kernels.entry_pointer import EntryPointer
from ..kernels.flex_derivatives_entry import derivatives_work_size
from .checks import frame_row, raise_status
from .flex_derivatives import constrained_work_sizes
from .constraints import constraint_work
from .entry import kernel_signature, stacked


def _run(c, kernel, names, arrays, *rest, work=None):
    """Call a batch kernel on the thread's BatchData (after the data buffers: the tuple
    ``work(c, BatchData)``, per-worker work arrays); raise for the first failing sample."""
    workers = max(1, min(numba.get_num_threads(), arrays[0].shape[0]))
    b = c.batch_data(workers)
    b.chart_offsets[:] = c.thread_data().chart_offsets  # q is read in the thread's charts
    before = () if work is None else work(c, b)
    status = np.zeros(arrays[0].shape[0], dtype=np.int64)
    entry = K.ENTRIES.get(kernel)
    if entry is None:  # (its sample's code linked in)
        kernel(b.buf, *before, *arrays, *rest, status)
    else:  # the model's entry kernel by its address (kernels/entry_pointer.py)
        if isinstance(entry, str):  # a facade kernel: the model's variant, compiled and checked
            entry = (getattr(c.kernels, entry), kernel_signature(entry))
        kernel(_entry_pointer(*entry), b.buf, *before, *arrays, *rest, status)
    bad = np.flatnonzero(status)
    if bad.size:
        i = int(bad[0])
        try:
            raise_status(c, int(status[i]), names, [a[i] for a in arrays])
        except ValueError as e:
            raise ValueError(f"sample {i}: {e}") from None


@functools.cache
def _entry_pointer(dispatcher, argtypes):
    """The entry kernel ``dispatcher``'s overload ``argtypes`` as an ``EntryPointer`` (compiled
    on the first stacked call that needs it where no single call has)."""
    return EntryPointer(dispatcher, argtypes)


def forward_dynamics(m, Q, U, TAU, out=None):
    """Stacked forward dynamics: UDOT (B, nu) for Q (B, nq), U (B, nu), TAU (B, nu)."""
    return _dynamics(m, K.forward_dynamics_batch, "tau", Q, U, TAU, out)


def constrained_forward_dynamics(m, Q, U, TAU, out=None):
    """Stacked forward dynamics of a model with enabled constraints: UDOT (B, nu) of the
    tree-augmented dynamics for Q (B, nq), U (B, nu), TAU (B, nu), each sample as a single
    ``forward_dynamics`` call (the Baumgarte gains of the calling thread's Data: each worker
    gets a copy of its constraint work array)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q, U, TAU = stacked(Q, (B, c.nq), "q"), stacked(U, (B, c.nu), "u"), stacked(TAU, (B, c.nu), "tau")
    out = np.empty((B, c.nu)) if out is None else stacked_out(out, (B, c.nu))
    _run(c, _peer(c, K.constrained_forward_dynamics_batch), ("q", "u", "tau"), (Q, U, TAU), out,
         work=_constraint_work)
    return out


def _constraint_work(c, b):
    """(copies of the calling thread's constraint work array, one per worker of BatchData b,)."""
    return (np.repeat(constraint_work(c, c.thread_data())[None], b.workers, axis=0),)


def inverse_dynamics(m, Q, U, UDOT, out=None):
    """Stacked inverse dynamics: TAU (B, nu) for Q (B, nq), U (B, nu), UDOT (B, nu)."""
    return _dynamics(m, K.inverse_dynamics_batch, "udot", Q, U, UDOT, out)


def _dynamics(m, kernel, x_name, Q, U, X, out):
    """(B, nu) of a batch kernel on (Q, U, X), X named ``x_name`` in errors (modal bodies:
    its peer, ``_peer``)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q, U, X = stacked(Q, (B, c.nq), "q"), stacked(U, (B, c.nu), "u"), stacked(X, (B, c.nu), x_name)
    out = np.empty((B, c.nu)) if out is None else stacked_out(out, (B, c.nu))
    _run(c, _peer(c, kernel), ("q", "u", x_name), (Q, U, X), out)
    return out


def bias_forces(m, Q, U):
    """Stacked bias forces b (B, nu) for Q (B, nq), U (B, nu): inverse dynamics at udot = 0,
    as a single call."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q, U = stacked(Q, (B, c.nq), "q"), stacked(U, (B, c.nu), "u")
    return _at_rest(c, ("q", "u"), (Q, U))


def gravity_forces(m, Q):
    """Stacked gravity forces g (B, nu) for Q (B, nq): inverse dynamics at u = udot = 0, as
    a single call."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    return _at_rest(c, ("q",), (Q,))


def _at_rest(c, names, arrays):
    """Stacked inverse dynamics (B, nu) of the user's ``arrays`` (Q, and U for the bias
    forces) with the rates not given zero; errors name only ``names``, the user's."""
    B = arrays[0].shape[0]
    zero = np.zeros((B, c.nu))
    out = np.empty((B, c.nu))
    _run(c, _peer(c, K.inverse_dynamics_batch), names, arrays, *(zero,) * (3 - len(arrays)), out)
    return out


def _peer(c, kernel):
    """The batch kernel for ``_run``: a rigid model of PIN links only gets the PIN-only kernel
    that stands in for ``kernel`` where there is one (``kernels/pin_batch.PEERS``, its entry
    kernels linked in), any other model ``kernel`` (which calls the model's own entry kernel,
    a flex one for a model with modal bodies, ``kernels/batch.ENTRIES``)."""
    return PK.PEERS.get(kernel, kernel) if c.all_pins and c.flex is None else kernel


def mass_matrix(m, Q, out=None):
    """Stacked mass matrices (B, nu, nu) for Q (B, nq)."""
    c, Q, out = _matrix_arguments(m, Q, out)
    _run(c, _peer(c, K.mass_matrix_batch), ("q",), (Q,), out)
    return out


def inverse_mass_matrix(m, Q, out=None):
    """Stacked inverse mass matrices (B, nu, nu) for Q (B, nq)."""
    c, Q, out = _matrix_arguments(m, Q, out)
    _run(c, _peer(c, K.inverse_mass_matrix_batch), ("q",), (Q,), out, work=_minv_work)
    return out


def _matrix_arguments(m, Q, out):
    """(compiled model, Q checked (B, nq), out (B, nu, nu): the given one checked, or new)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    return c, Q, np.empty((B, c.nu, c.nu)) if out is None else stacked_out(out, (B, c.nu, c.nu))


def _minv_work(c, b):
    """(the M^-1 work arrays (workers, *c.minv_work_shape),) of BatchData b, made on first use."""
    if b.minv_work is None:
        b.minv_work = np.zeros((b.workers, *c.minv_work_shape))
    return (b.minv_work,)


def inverse_dynamics_derivatives(m, Q, U, UDOT):
    """Stacked inverse dynamics derivatives: (dtau_dq, dtau_du, M), each (B, nu, nu), for
    Q (B, nq), U (B, nu), UDOT (B, nu) (trees, rigid or with modal bodies: ``derivatives``
    refuses the others)."""
    return _derivatives(m, K.inverse_dynamics_derivatives_batch, "udot", Q, U, UDOT, None)


def forward_dynamics_derivatives(m, Q, U, TAU):
    """Stacked forward dynamics derivatives: (dudot_dq, dudot_du, M^-1), each (B, nu, nu),
    for Q (B, nq), U (B, nu), TAU (B, nu)."""
    return _derivatives(m, K.forward_dynamics_derivatives_batch, "tau", Q, U, TAU, _derivative_work)


def constrained_forward_dynamics_derivatives(m, Q, U, TAU):
    """Stacked derivatives of the tree-augmented constrained forward dynamics of a model with
    enabled constraints (modal bodies: the flex peer, ``_FLEX_DERIVATIVES``): (dudot_dq,
    dudot_du, Mc^-1), each (B, nu, nu), for Q (B, nq), U (B, nu), TAU (B, nu), each sample as
    a single ``forward_dynamics_derivatives`` call (the Baumgarte gains of the calling
    thread's Data, as ``constrained_forward_dynamics``)."""
    return _derivatives(m, K.constrained_forward_dynamics_derivatives_batch, "tau", Q, U, TAU,
                        _constrained_derivative_work)


def _flex_constrained_derivative_work(c, b):
    """Per worker of BatchData b, the flex constrained derivatives' arrays as a single call
    makes them (``flex_derivatives.flex_constrained_derivatives``): the constraint work array
    (the calling thread's copy), the nk frame and wrench rows, the tangent work and scratch,
    the rows' arrays (4, nc, nu), M^-1's work."""
    w = b.workers
    nk, tangents, scratch = constrained_work_sizes(c)
    return (*_constraint_work(c, b), np.zeros((w, nk), dtype=np.int64), np.zeros((w, nk, 6)),
            np.empty((w, tangents)), np.empty((w, scratch)), np.zeros((w, 4, c.nc, c.nu)), _minv_work(c, b)[0])


def _constrained_derivative_work(c, b):
    """Per worker of BatchData b: the constraint work array (the calling thread's copy), M^-1's
    work, and the scratch of ``constrained_derivatives._work`` (tree derivatives (3, nu, nu),
    the rows' arrays (5, nc, nu), the links' motion (n, 12), the frame tangents (3, 2 K_COLS))."""
    w = b.workers
    return (*_constraint_work(c, b), _minv_work(c, b)[0], np.zeros((w, 3, c.nu, c.nu)),
            np.zeros((w, 5, c.nc, c.nu)), np.zeros((w, c.n_links, 12)), np.zeros((w, 3, 2 * K_COLS)))


def _derivatives(m, kernel, x_name, Q, U, X, work):
    c = m.compiled
    if c.flex is not None:  # (the flex derivatives take frame rows and tangent scratch too)
        kernel, work = _FLEX_DERIVATIVES[kernel]
    B = np.shape(Q)[0]
    Q, U, X = stacked(Q, (B, c.nq), "q"), stacked(U, (B, c.nu), "u"), stacked(X, (B, c.nu), x_name)
    outs = tuple(np.empty((B, c.nu, c.nu)) for _ in range(3))
    _run(c, kernel, ("q", "u", x_name), (Q, U, X), *outs, work=work)
    return outs


def _derivative_work(c, b):
    """(M^-1's work arrays, per worker (3, nu, nu) scratch for dtau_dq, dtau_du and M)."""
    return _minv_work(c, b)[0], np.zeros((b.workers, 3, c.nu, c.nu))


def _flex_id_work(c, b):
    """(no f_ext frames, no wrenches, per worker the flex derivatives' tangent scratch)."""
    size = derivatives_work_size(c.thread_data().buf)
    return np.zeros(0, dtype=np.int64), np.zeros((0, 6)), np.empty((b.workers, size))


def _flex_fd_work(c, b):
    """(M^-1's work arrays, ``_flex_id_work``'s, per worker a (nu,) udot)."""
    return (_minv_work(c, b)[0], *_flex_id_work(c, b), np.empty((b.workers, c.nu)))


_FLEX_DERIVATIVES = {K.inverse_dynamics_derivatives_batch: (FK.flex_inverse_dynamics_derivatives_batch, _flex_id_work),
                     K.forward_dynamics_derivatives_batch: (FK.flex_forward_dynamics_derivatives_batch, _flex_fd_work),
                     K.constrained_forward_dynamics_derivatives_batch: (
                         FK.flex_constrained_forward_dynamics_derivatives_batch, _flex_constrained_derivative_work)}


def body_pose(m, Q, body):
    """Stacked poses T_world_body (B, 4, 4) of a body (or node) for Q (B, nq)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    out = np.empty((B, 4, 4))
    row = frame_row(c, body)
    _run(c, _peer(c, K.frame_pose_batch), ("q",), (Q,), row, out)
    return out


def body_jacobian(m, Q, body):
    """Stacked body Jacobians (B, 6, nu) of a body (or node), frame="body", for Q (B, nq)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    out = np.zeros((B, 6, c.nu))
    row = frame_row(c, body)
    _run(c, _peer(c, K.frame_jacobian_batch), ("q",), (Q,), row, np.empty((B, 4, 4)), out)
    return out


def pose_gradient(m, Q, body, *, single):
    """Stacked pose gradients G (B, 6, nq) of a body (or node) for Q (B, nq): a loop of
    ``single(m, q, body)`` on the thread's default Data (every model). N+(q) is formed in
    Python (no kernel) and takes most of a single call; the batched Jacobian kernel
    followed by the per-sample Python was slower than this loop (bench/README.md)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    frame_row(c, body)  # an unknown name: KeyError before any sample
    out = np.empty((B, 6, c.nq))
    for i in range(B):  # on the thread's default Data (so with its charts, as single calls)
        try:
            out[i] = single(m, Q[i], body)
        except ValueError as e:
            raise ValueError(f"sample {i}: {e}") from None
    return out


def kinetic_energy(m, Q, U):
    """Stacked kinetic energies (B,) [J] for Q (B, nq), U (B, nu)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q, U = stacked(Q, (B, c.nq), "q"), stacked(U, (B, c.nu), "u")
    out = np.empty(B)
    _run(c, _peer(c, K.kinetic_energy_batch), ("q", "u"), (Q, U), out)
    return out


def mass_and_com(m, Q):
    """Stacked [total mass, centre of mass (3)] (B, 4) for Q (B, nq)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    out = np.empty((B, 4))
    _run(c, _peer(c, K.mass_and_com_batch), ("q",), (Q,), out)
    return out


def strain_energy(m, Q):
    """Stacked strain energies (B,) [J] of the modal bodies for Q (B, nq) (zeros without)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q = stacked(Q, (B, c.nq), "q")
    out = np.zeros(B)
    if c.flex is not None:
        _run(c, K.strain_energy_batch, ("q",), (Q,), out)
    return out


def integrate(m, Q, U, dt=1.0):
    """Stacked q (+) u dt (B, nq) for Q (B, nq), U (B, nu)."""
    c = m.compiled
    B = np.shape(Q)[0]
    Q, U = stacked(Q, (B, c.nq), "q"), stacked(U, (B, c.nu), "u")
    if not np.isfinite(dt):
        raise ValueError(f"dt must be finite, got {dt!r}")
    out = np.empty((B, c.nq))
    _run(c, K.integrate_batch, ("q", "u"), (Q, U), float(dt), out)
    return out


def stacked_out(out, shape):
    """Check a user's stacked ``out`` array (writeable C-contiguous float64 of ``shape``)."""
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous float64 array of shape {shape}")
    return out
