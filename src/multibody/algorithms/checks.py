"""Argument checks and status decoding shared by the algorithm functions."""
import math

import numpy as np

from ..kernels import layout as L
from ..kernels.status import Status
from ..model.names import missing  # noqa: F401  (re-exported)
from .entry import as_float_vector, check_vector, real_array  # noqa: F401  (re-exported for the algorithm modules)
from .owners import Q_NAMES, coordinate_owner, nonfinite_error  # noqa: F401  (re-exported)


def check_out(out, shape):
    """Raise ValueError unless ``out`` is a writeable C-contiguous float64 array of ``shape``.

    (The dispatcher rejects a wrong dtype, layout or a read-only array with TypeError; the
    shape is checked before the call, so a kernel never writes past ``out``.)
    """
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous float64 array of shape {shape}, "
                         f"got {type(out).__name__} {getattr(out, 'shape', '')}")


#: the error of a singular articulated inertia in a model with modal bodies
FLEX_SINGULAR = ("the joint-space inertia of a subhinge or modal body is singular (for a modal body with "
                 "geometric stiffening: a deflection too large for its second-order model of the "
                 "foreshortening, see docs/modal_data.md)")


def quaternion_error(c, q, name="q", unit=True):
    """The ValueError for the first quaternion block of q (argument ``name``; stacked states
    (B, nq): of the first sample that has one, "sample b: ...") that is zero or, with
    ``unit``, not of unit norm (to 1e-6, the kernels' test), naming its hinge; None if none.
    A zero quaternion is no rotation: it is refused everywhere, also where a quaternion is
    normalised (``simulate``'s q0, ``u_from_qdot_matrix``)."""
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    for j, sub in enumerate(c.link_subhinges):
        if not sub.kind_info.quaternion:
            continue
        i = int(c.mi[j, L.QOFF])
        n2 = np.einsum("bi,bi->b", Q[:, i:i + 4], Q[:, i:i + 4])
        bad = ~(np.abs(n2 - 1.0) <= 2e-6) if unit else ~(n2 > 0.0)
        if not bad.any():
            continue
        b = int(np.argmax(bad))
        where, owner, norm = f"{name}[{i}:{i + 4}]", coordinate_owner(c, name, i), float(np.sqrt(n2[b]))
        sample = f"sample {b}: " if np.ndim(q) == 2 else ""
        if norm == 0.0:
            return ValueError(f"{sample}{where} is a zero quaternion ({owner}); a rotation needs a unit "
                              f"quaternion (x, y, z, w)")
        return ValueError(f"{sample}{where} is not a unit quaternion (norm {norm:.9g}; {owner}): normalise it, "
                          f"{where} /= np.linalg.norm({where})")
    return None


def overflow_error(c, names, arrays):
    """The ValueError for finite arguments (``names``, ``arrays``: the state vectors, and
    scalars such as dt) whose result is not finite: they are too large for it (1e200
    squared overflows); names the largest entry and the hinge that owns it."""
    sizes = [float(np.max(np.abs(x), initial=0.0)) for x in arrays]
    k = int(np.argmax(sizes))
    if np.ndim(arrays[k]) == 0:
        largest = f"{names[k]} = {float(arrays[k]):.3g}"
    else:
        idx = int(np.argmax(np.abs(arrays[k])))
        largest = f"{names[k]}[{idx}] = {arrays[k][idx]:.3g}; {coordinate_owner(c, names[k], idx)}"
    return ValueError(f"overflow: {'/'.join(names)} too large: the result is not finite although they are "
                      f"(largest entry {largest})")


def check_result(c, out, names, arrays):
    """out, or the OVERFLOW error (``overflow_error``) when it holds a NaN/inf: for results
    formed in Python (the flex orchestration, frame changes); the kernels' results are
    checked in the kernels (``common.result_status``)."""
    if not np.all(np.isfinite(out)):
        raise overflow_error(c, names, arrays)
    return out


def refuse_zero_quaternions(c, q, name="q"):
    """Raise ``quaternion_error``'s ValueError for a zero quaternion in q (single or stacked):
    for the functions that normalise q's quaternions instead of requiring them unit."""
    error = quaternion_error(c, q, name, unit=False)
    if error is not None:
        raise error


def raise_status(c, status, names, arrays):
    """Raise the error a kernel status means, naming the argument (and its hinge)."""
    st = Status(status)
    arg = st.argument
    if st.name.startswith("NONFINITE_ARG"):
        raise nonfinite_error(c, names[arg], arrays[arg])
    if st.name.startswith("BAD_LENGTH_ARG"):
        name = names[arg]
        n = c.nq if name in Q_NAMES else c.nu
        raise ValueError(f"{name} must have shape ({n},), got {np.shape(arrays[arg])}")
    if st == Status.BAD_QUATERNION:
        error = quaternion_error(c, arrays[0], names[0])
        if error is not None:
            raise error
    if st == Status.OVERFLOW:
        raise overflow_error(c, names, arrays)
    if st == Status.MODAL:
        raise NotImplementedError(
            "this algorithm is not available yet for models with modal (flexible) bodies; these are: "
            "forward_dynamics and inverse_dynamics (f_ext at bodies and nodes included), mass_matrix, "
            "inverse_mass_matrix, operational_space_compliance, body_pose, body_jacobian, pose_gradient, "
            "body_velocity, body_acceleration, frame_pose, kinetic_energy, potential_energy (gravity "
            "and strain), strain_energy, center_of_mass, trajectory_energies, integrate, the constraint "
            "functions and constrained_dynamics, simulate")
    if st == Status.SINGULAR:
        if c.flex is not None:  # (batched flex kernels)
            raise ValueError(FLEX_SINGULAR)
        raise ValueError("the joint-space inertia of a subhinge is singular (a massless body "
                         "at the end of a moving hinge?)")
    raise RuntimeError(f"kernel failed with status {st.name}")


def frame_row(c, name):
    """Row of the frame table for a body, node or hinge name (a hinge: its p-frame on the child, as
    Pinocchio's joint frames; a body or node of the same name keeps the name). KeyError naming it
    if unknown."""
    try:
        return c.frame_rows[name]
    except (KeyError, TypeError):
        raise missing("body, node or hinge", name, c.frame_rows) from None


def frame_rows(c, frames):
    """int64 rows of the frame table for ``frames`` (a body or node name, or a sequence of
    them); ValueError for none, KeyError naming an unknown one."""
    if isinstance(frames, str):
        frames = [frames]
    rows = np.array([frame_row(c, f) for f in frames], dtype=np.int64)
    if rows.size == 0:
        raise ValueError("frames must name at least one body or node")
    return rows


def data_object(c, data):
    """The Data to use: ``data`` (checked to belong to the compiled model c), or the
    calling thread's default one."""
    if data is None:
        return c.thread_data()
    if getattr(data, "model", None) is not c:
        raise ValueError("data was created for another (or an older) compiled model; "
                         "make it with m.create_data() after the model's last change")
    return data


def zero_division_error(c, q, error):
    """The ValueError for a ZeroDivisionError raised by a kernel: a zero quaternion in q
    (named by hinge), or ``error`` itself when q has none."""
    q = np.asarray(q, dtype=float)
    found = quaternion_error(c, q, unit=False) if q.shape == (c.nq,) else None
    return error if found is None else found


def run_kernel(c, q, kernel, *args):
    """kernel(*args), with a ZeroDivisionError (a zero quaternion in q) turned into a
    ValueError naming the hinge (for the algorithms off the hot path)."""
    try:
        return kernel(*args)
    except ZeroDivisionError as e:
        raise zero_division_error(c, q, e) from None


def check_positive(x, name, allow_zero=False):
    """float(x) if x is a finite positive (or, with allow_zero, non-negative) number, else
    a ValueError naming the argument ``name``."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {x!r}") from None
    if not math.isfinite(x) or x < 0 or (x == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite {'non-negative' if allow_zero else 'positive'} "
                         f"number, got {x!r}")
    return x
