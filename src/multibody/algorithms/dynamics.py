"""Dynamics: forward and inverse dynamics, the mass matrix and its inverse.

Free functions ``f(m, ...)`` of a Multibody ``m``; the Multibody's methods of the same
names are these functions. Each takes an optional ``data`` (from ``m.create_data()``);
without it the calling thread's default data is used, so calls from several threads
on one model are safe. The hot paths (forward/inverse dynamics, mass matrix) are
written for speed: the dispatcher checks types in C (see ``entry``), kernels check
lengths and finite values.

Bad input raises ValueError naming the argument (and the hinge that owns the entry): a
wrong shape, a NaN/inf, a quaternion of q that is not unit (a zero one included), and
finite arguments too large for the result to be finite ("overflow: q/u/tau too large",
the kernels' OVERFLOW status: no inf/NaN is returned). Read-only arrays are accepted
(copied; the result is a writeable copy's).
"""
import numpy as np

from ..kernels.status import BAD_LENGTH_ARG1
from .checks import as_float_vector, check_out, check_vector, data_object, raise_status, zero_division_error
from .constraints import constrained_dynamics, constraint_work
from .entry import FLOAT64, VECTOR_STRIDES, compiled_entry
from .external_forces import generalized_external_forces, with_external_forces

_empty = np.empty


def forward_dynamics(m, q, u, tau, f_ext=None, out=None, data=None):
    """udot (nu,) = M(q)^-1 (tau - b(q, u) + J^T f_ext), by the O(N) articulated-body algorithm.

    q (nq,), u (nu,), tau (nu,); gravity included; f_ext is an optional dict
    {body or node name: wrench [moment; force] (6,) about the frame origin, in the
    frame's axes}. ``out``: an optional float64 (nu,) array to write the result into
    (saves an allocation in hot loops); it is also returned. ``data``: a Data object
    of ``m`` (default: the calling thread's).
    """
    c = m.compiled
    if c.nc:  # enabled constraints: tree-augmented dynamics
        return _constrained_udot(m, q, u, tau, f_ext, out, data)
    if f_ext is None and data is None and (out is None or getattr(out, "shape", None) == (c.nu,)):
        res = _empty(c.nu) if out is None else out
        try:  # the hot path; anything else (a status included) takes the checked one
            kernel, buf = c.thread_local.forward_dynamics  # (made by the checked path's first call)
            if not kernel(buf, q, u, tau, res):
                return res
        except (AttributeError, TypeError, ZeroDivisionError):
            pass
    return _checked_state_call(m, _FORWARD, q, u, tau, f_ext, out, data)


def _constrained_udot(m, q, u, tau, f_ext, out, data):
    """forward_dynamics of a model with enabled constraints: tree-augmented dynamics with no
    stabilization (the model's kernel straight from here: this is the hot path of users with
    loops; the thread's (kernel, buffer, work array) are kept in ``c.thread_local.ta``, out's
    length is checked in the kernel)."""
    c = m.compiled
    if f_ext is None and data is None:
        try:
            kernel, buf, W = c.thread_local.ta
        except AttributeError:
            kernel, buf, W = _ta_arrays(c)
        res = _empty(c.nu) if out is None else out
        try:
            st = kernel(buf, q, u, tau, W, res)
        except (TypeError, ZeroDivisionError):
            st = -1
        if not st:
            return res
    return _constrained_udot_checked(m, q, u, tau, f_ext, out, data)


def _ta_arrays(c):
    """(constrained dynamics kernel, data buffer, constraint work array) of the thread's Data,
    kept in ``c.thread_local.ta``."""
    d = c.thread_data()
    arrays = c.thread_local.ta = (c.kernels.constrained_forward_dynamics, d.buf, constraint_work(c, d))
    return arrays


def _constrained_udot_checked(m, q, u, tau, f_ext, out, data):
    """``_constrained_udot`` with f_ext, data=, coercion and the errors that name the argument."""
    c = m.compiled
    if getattr(q, "ndim", 1) == 2:  # stacked states: the batched tree-augmented dynamics
        if f_ext is not None:
            raise ValueError("forward_dynamics: f_ext is not supported with stacked states")
        return _batched(m, "constrained_forward_dynamics", data, q, u, tau, out)
    if f_ext is not None:
        udot = constrained_dynamics(m, q, u, tau, f_ext=f_ext, data=data).udot
        if out is None:
            return udot
        check_out(out, (c.nu,))
        out[:] = udot
        return out
    d = data_object(c, data)
    W = constraint_work(c, d)
    if out is None:
        out = _empty(c.nu)
    else:
        check_out(out, (c.nu,))
    kernel = c.kernels.constrained_forward_dynamics
    try:
        st = kernel(d.buf, q, u, tau, W, out)
    except TypeError:
        q, u, tau = as_float_vector(q, "q"), as_float_vector(u, "u"), as_float_vector(tau, "tau")
        st = kernel(d.buf, q, u, tau, W, out)
    except ZeroDivisionError as e:
        raise zero_division_error(c, q, e) from None
    if st:
        raise_status(c, st, ("q", "u", "tau"), (q, u, tau))
    return out


def inverse_dynamics(m, q, u, udot, f_ext=None, out=None, data=None):
    """tau (nu,) = M(q) udot + b(q, u) - J^T f_ext, by recursive Newton-Euler (gravity included).

    f_ext, ``out`` (an optional float64 (nu,) result array) and ``data`` as in
    ``forward_dynamics``.
    """
    c = m.compiled
    if f_ext is None and data is None and (out is None or getattr(out, "shape", None) == (c.nu,)):
        res = _empty(c.nu) if out is None else out
        try:  # the hot path, as forward_dynamics'
            kernel, buf = c.thread_local.inverse_dynamics
            if not kernel(buf, q, u, udot, res):
                return res
        except (AttributeError, TypeError, ZeroDivisionError):
            pass
    return _checked_state_call(m, _INVERSE, q, u, udot, f_ext, out, data)


def _checked_state_call(m, op, q, u, x, f_ext, out, data):
    """forward_dynamics (op ``_FORWARD``, x = tau) or inverse_dynamics (``_INVERSE``, x = udot)
    past the hot path: f_ext, data=, stacked states, coercion of the arguments and the errors
    that name them (a model with modal bodies: its ``c.kernels`` are the flex ones)."""
    name, x_name, public = op
    c = m.compiled
    kernel = getattr(c.kernels, name)
    if data is None:
        _thread_kernel(c, name, kernel)
    if f_ext is not None:
        if getattr(q, "ndim", 1) == 2:
            raise ValueError(f"{name}: f_ext is not supported with stacked states")
        d = data_object(c, data)
        if c.flex is None:  # wrenches on the links, in the data buffer for the one call
            return with_external_forces(c, d, f_ext, public, m, q, u, x, None, out, d)
        return _with_generalized_forces(m, op, q, u, x, generalized_external_forces(c, d, q, f_ext), out, d)
    dbuf = _data_buffer(c, data)
    given = out
    if out is None:
        out = _empty(c.nu)
    elif getattr(out, "shape", None) != (c.nu,):
        if getattr(q, "ndim", 1) == 2:  # stacked states with a stacked out
            return _batched(m, name, data, q, u, x, given)
        check_out(out, (c.nu,))
    try:
        st = kernel(dbuf, q, u, x, out)
    except TypeError:
        if getattr(q, "ndim", 1) == 2:  # stacked states: the batched path
            return _batched(m, name, data, q, u, x, given)
        q, u, x = as_float_vector(q, "q"), as_float_vector(u, "u"), as_float_vector(x, x_name)
        check_out(out, (c.nu,))
        st = kernel(dbuf, q, u, x, out)
    except ZeroDivisionError as e:
        raise zero_division_error(c, q, e) from None
    if st:
        raise_status(c, st, ("q", "u", x_name), (q, u, x))
    return out


def _with_generalized_forces(m, op, q, u, x, tau_ext, out, d):
    """``op``'s public function with tau_ext = sum J^T w added to the joint forces: udot under
    tau + tau_ext, or the tau that with tau_ext gives udot (models with modal bodies, whose
    wrenches at deforming nodes reach the modal rates)."""
    name, x_name, public = op
    if name == "forward_dynamics":
        return public(m, q, u, check_vector(x, m.compiled.nu, x_name, m.compiled) + tau_ext, None, out, d)
    out = public(m, q, u, x, None, out, d)
    out -= tau_ext
    return out


def _thread_kernel(c, name, kernel):
    """Keep (kernel, the calling thread's data buffer) in ``c.thread_local.<name>``: the hot
    paths of forward/inverse dynamics and the mass matrix read the pair in one attribute
    (a thread-local read costs about 45 ns, the kernel table's another 40)."""
    setattr(c.thread_local, name, (kernel, _data_buffer(c, None)))


def _data_buffer(c, data):
    """The buffer of Data ``data`` (checked), or of the calling thread's own (None)."""
    if data is not None:
        return data_object(c, data).buf
    try:
        return c.thread_local.buf
    except AttributeError:
        return c.thread_data().buf


# (kernel and function name, name of the third argument, the public function that
# with_external_forces calls again)
_FORWARD = ("forward_dynamics", "tau", forward_dynamics)
_INVERSE = ("inverse_dynamics", "udot", inverse_dynamics)


def mass_matrix(m, q, out=None, data=None):
    """The symmetric joint-space mass matrix M(q) (nu, nu), composite-rigid-body algorithm.

    ``out``: an optional float64 C-contiguous (nu, nu) array to write M into (saves an
    allocation in hot loops); it is also returned. ``data`` as in ``forward_dynamics``.
    """
    c = m.compiled
    if data is None:
        try:  # the hot paths, as forward_dynamics'
            call, kernel, buf, shape = c.thread_local.mass_matrix
            if out is None:  # q, checked here, goes straight to the compiled function (entry.compiled_entry)
                res = _empty(shape)
                if q.strides == VECTOR_STRIDES and q.dtype is FLOAT64 and not call(buf, q, res):
                    return res
            elif getattr(out, "shape", None) == shape and not kernel(buf, q, out):
                return out
        except (AttributeError, TypeError, ZeroDivisionError):
            pass
    return _checked_mass_matrix(m, q, out, data)


def _checked_mass_matrix(m, q, out, data):
    """mass_matrix past the hot path: data=, stacked states, coercion of q and the errors that
    name it."""
    c = m.compiled
    if data is None:
        kernel = c.kernels.mass_matrix
        c.thread_local.mass_matrix = (compiled_entry("mass_matrix", kernel), kernel, _data_buffer(c, None),
                                      c.shape_M)
    dbuf = _data_buffer(c, data)
    given = out
    if out is None:
        out = _empty(c.shape_M)
    elif getattr(out, "shape", None) != c.shape_M:
        if getattr(q, "ndim", 1) == 2:  # stacked states with a stacked out
            return _batched(m, "mass_matrix", data, q, given)
        check_out(out, c.shape_M)
    try:
        st = c.kernels.mass_matrix(dbuf, q, out)
    except TypeError:
        if getattr(q, "ndim", 1) == 2:  # stacked states: the batched path
            return _batched(m, "mass_matrix", data, q, given)
        q = as_float_vector(q, "q")
        check_out(out, c.shape_M)
        st = c.kernels.mass_matrix(dbuf, q, out)
    except ZeroDivisionError as e:
        raise zero_division_error(c, q, e) from None
    if st:
        raise_status(c, st, ("q",), (q,))
    return out


def inverse_mass_matrix(m, q, out=None, data=None):
    """M(q)^-1 (nu, nu), by an O(N nu) articulated-body recursion: no M, no factorisation.

    It runs the ABA's passes on the unit forces, up to 64 at a time, in each tree's root
    frame (see ``kernels/inverse_mass_matrix.py``); its work array (kept by the Data) is
    O(N) beside the result. ``out`` (an optional float64 C-contiguous
    (nu, nu) array) and ``data`` as in ``mass_matrix``.
    """
    c = m.compiled
    if data is None:
        try:
            kernel, buf, W, shape = c.thread_local.minv
        except AttributeError:
            kernel, buf, W, shape = _minv_arrays(c, None)
    else:
        kernel, buf, W, shape = _minv_arrays(c, data_object(c, data))
    res = _empty(shape) if out is None else out
    try:  # the dispatcher checks the types, the kernel out's shape (a status)
        st = kernel(buf, q, W, res)
    except TypeError:
        if getattr(q, "ndim", 1) == 2:  # stacked states: the batched path
            return _batched(m, "inverse_mass_matrix", data, q, out)
        q = as_float_vector(q, "q")
        check_out(res, c.shape_M)
        st = kernel(buf, q, W, res)
    except ZeroDivisionError as e:
        raise zero_division_error(c, q, e) from None
    if st:
        if st == BAD_LENGTH_ARG1:
            check_out(res, c.shape_M)
        raise_status(c, st, ("q",), (q,))  # (a wrong out: check_out above)
    return res


def _minv_arrays(c, d):
    """(kernel, data buffer, work array, shape of M) of Data d (None: the thread's own, then
    kept in ``c.thread_local.minv`` for the next call); the work array is made on first use,
    of the shape the model's kernel takes (``c.minv_work_shape``)."""
    own = d is None
    if own:
        d = c.thread_data()
    if d.minv_work is None:
        d.minv_work = np.zeros(c.minv_work_shape)
    arrays = (c.kernels.inverse_mass_matrix, d.buf, d.minv_work, c.shape_M)
    if own:
        c.thread_local.minv = arrays
    return arrays


def bias_forces(m, q, u, data=None):
    """b(q, u) (nu,): Coriolis, centrifugal and gravity forces, so M udot + b = tau.

    Stacked q (B, nq), u (B, nu) give stacked forces (B, nu) (``batch``)."""
    if getattr(q, "ndim", 1) == 2:
        return _batched(m, "bias_forces", data, q, u)
    return inverse_dynamics(m, q, u, np.zeros(m.compiled.nu), data=data)


def gravity_forces(m, q, data=None):
    """g(q) (nu,): the generalized gravity forces (tau that holds the system still).

    Stacked q (B, nq) gives stacked forces (B, nu) (``batch``)."""
    if getattr(q, "ndim", 1) == 2:
        return _batched(m, "gravity_forces", data, q)
    z = np.zeros(m.compiled.nu)
    return inverse_dynamics(m, q, z, z, data=data)


__all__ = ["forward_dynamics", "inverse_dynamics", "mass_matrix", "inverse_mass_matrix",
           "bias_forces", "gravity_forces"]


def _batched(m, name, data, *args, **kwargs):
    """Stacked states go to ``multibody.algorithms.batch`` (per-thread work buffers there)."""
    from . import batch
    if data is not None:
        raise ValueError(f"{name}: data= is not supported with stacked states (each worker "
                         f"thread uses its own buffer)")
    return getattr(batch, name)(m, *args, **kwargs)
