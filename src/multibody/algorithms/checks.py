"""Argument checks and status decoding shared by the algorithm functions."""
import difflib

import numpy as np

from ..kernels import layout as L
from ..kernels.status import Status
from .entry import as_float_vector, check_vector, real_array  # noqa: F401  (re-exported for the algorithm modules)


def check_out(out, shape):
    """Raise ValueError unless ``out`` is a writeable C-contiguous float64 array of ``shape``.

    (The dispatcher rejects a wrong dtype, layout or a read-only array with TypeError; the
    shape is checked before the call, so a kernel never writes past ``out``.)
    """
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous float64 array of shape {shape}, "
                         f"got {type(out).__name__} {getattr(out, 'shape', '')}")


def missing(kind, name, options):
    """KeyError for an unknown name, with close matches as a hint."""
    close = difflib.get_close_matches(str(name), list(options), n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    return KeyError(f"unknown {kind} {name!r}{hint}")


def coordinate_owner(c, name, idx):
    """'it belongs to hinge ...' for entry idx of q (name 'q') or of a u-sized vector."""
    slices = c.q_slices if name == "q" else c.u_slices
    for h, s in slices.items():
        if s.start <= idx < s.stop:
            return f"it belongs to hinge {h!r}"
    for b, (sq, su) in getattr(c, "modal_slices", {}).items():
        s = sq if name == "q" else su
        if s.start <= idx < s.stop:
            return f"it is mode {idx - s.start} of modal body {b!r}"
    return "index out of range"


#: the error of a singular articulated inertia in a model with modal bodies
FLEX_SINGULAR = ("the joint-space inertia of a subhinge or modal body is singular (for a modal body with "
                 "geometric stiffening: a deflection too large for its second-order model of the "
                 "foreshortening, see docs/modal_data.md)")


def raise_status(c, status, names, arrays):
    """Raise the error a kernel status means, naming the argument (and its hinge)."""
    st = Status(status)
    arg = st.argument
    if st.name.startswith("NONFINITE_ARG"):
        name, x = names[arg], arrays[arg]
        idx = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"{name}[{idx}] is not finite ({x[idx]}); {coordinate_owner(c, name, idx)}")
    if st.name.startswith("BAD_LENGTH_ARG"):
        name = names[arg]
        n = c.nq if name == "q" else c.nu
        raise ValueError(f"{name} must have shape ({n},), got {np.shape(arrays[arg])}")
    if st == Status.BAD_QUATERNION:
        q = np.asarray(arrays[0], dtype=float)
        for j, sub in enumerate(c.link_subhinges):
            if sub.kind_info.quaternion:
                i = int(c.mi[j, L.QOFF])
                norm = float(np.linalg.norm(q[i:i + 4]))
                if norm == 0.0:
                    raise ValueError(f"q[{i}:{i + 4}] is a zero quaternion ({coordinate_owner(c, 'q', i)}); "
                                     f"a rotation needs a unit quaternion (x, y, z, w)")
                if not abs(norm * norm - 1.0) <= 2e-6:
                    raise ValueError(f"q[{i}:{i + 4}] is not a unit quaternion (norm {norm:.9g}; "
                                     f"{coordinate_owner(c, 'q', i)}): normalise it, "
                                     f"q[{i}:{i + 4}] /= np.linalg.norm(q[{i}:{i + 4}])")
    if st == Status.MODAL:
        raise NotImplementedError(
            "this algorithm is not available yet for models with modal (flexible) bodies; these are: "
            "forward_dynamics and inverse_dynamics (f_ext at bodies and nodes included), mass_matrix, "
            "inverse_mass_matrix, operational_space_compliance, body_pose, body_jacobian, pose_gradient, "
            "body_velocity, body_acceleration, frame_pose, kinetic_energy, potential_energy (strain "
            "included), center_of_mass, integrate, the constraint functions and constrained_dynamics, "
            "simulate (and multibody.algorithms.flex: strain_energy, total_energy, link_poses)")
    if st == Status.SINGULAR:
        if c.flex is not None:  # (batched flex kernels)
            raise ValueError(FLEX_SINGULAR)
        raise ValueError("the joint-space inertia of a subhinge is singular (a massless body "
                         "at the end of a moving hinge?)")
    raise RuntimeError(f"kernel failed with status {st.name}")


def frame_row(c, name):
    """Row of the frame table for a body or node name (KeyError naming it if unknown)."""
    try:
        return c.frame_rows[name]
    except (KeyError, TypeError):
        raise missing("body or node", name, c.frame_rows) from None


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
    for j, s in enumerate(c.link_subhinges):
        if s.kind_info.quaternion:
            i = int(c.mi[j, L.QOFF])
            if q.shape == (c.nq,) and not np.dot(q[i:i + 4], q[i:i + 4]) > 0.0:
                return ValueError(f"q[{i}:{i + 4}] is a zero quaternion ({coordinate_owner(c, 'q', i)}); "
                                  f"a rotation needs a unit quaternion (x, y, z, w)")
    return error


def run_kernel(c, q, kernel, *args):
    """kernel(*args), with a ZeroDivisionError (a zero quaternion in q) turned into a
    ValueError naming the hinge (for the algorithms off the hot path)."""
    try:
        return kernel(*args)
    except ZeroDivisionError as e:
        raise zero_division_error(c, q, e) from None
