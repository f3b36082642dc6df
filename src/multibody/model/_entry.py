"""Direct calls into compiled kernels.

Numba's dispatcher re-checks argument types on each call (~0.1-0.4 us); the
facade instead checks its inputs itself (exact dtype, shape and layout, done
once in ``check_vector``) and then calls the compiled entry point of the one
signature we use. ``ENTRY.<name>`` compiles (or loads from the cache) on first
access.
"""
import numpy as np
from numba import types as nt

from ..kernels import coordinates, energy, forward_dynamics, inverse_dynamics, jacobian, mass_matrix

_I2 = nt.Array(nt.int64, 2, "C")
_F2 = nt.Array(nt.float64, 2, "C")
_F1 = nt.Array(nt.float64, 1, "C")
_I64 = nt.int64
_F64 = nt.float64

_SIGNATURES = {
    "inverse_dynamics": (inverse_dynamics.inverse_dynamics, (_I2, _F2, _F2, _F1, _F1, _F1, _F2, _F1)),
    "forward_dynamics": (forward_dynamics.forward_dynamics, (_I2, _F2, _F2, _F1, _F1, _F1, _F2, _F1)),
    "mass_matrix": (mass_matrix.mass_matrix, (_I2, _F2, _F2, _F1, _F2)),
    "frame_pose": (jacobian.frame_pose, (_I2, _F2, _F2, _F1, _I64, _F2, _F2)),
    "frame_jacobian": (jacobian.frame_jacobian, (_I2, _F2, _F2, _F1, _I64, _F2, _F2, _F2)),
    "kinetic_energy": (energy.kinetic_energy, (_I2, _F2, _F2, _F1, _F1, _F1)),
    "mass_and_com": (energy.mass_and_com, (_I2, _F2, _F2, _F1, _F1)),
    "qdot_from_u": (coordinates.qdot_from_u, (_I2, _F2, _F1, _F1, _F1, _F1)),
    "integrate_q": (coordinates.integrate_q, (_I2, _F2, _F1, _F1, _F64, _F1, _F1)),
    "sanitize_charts": (coordinates.sanitize_charts, (_I2, _F2, _F1, _F1)),
}


class _Entries:
    """Attribute access gives the compiled entry point of a kernel (see module doc)."""

    def __getattr__(self, name):
        try:
            dispatcher, sig = _SIGNATURES[name]
        except KeyError:
            raise AttributeError(name) from None
        dispatcher.compile(sig)
        entry = dispatcher.overloads[sig].entry_point
        setattr(self, name, entry)
        return entry


ENTRY = _Entries()

_NDARRAY = np.ndarray
_FLOAT64 = np.dtype(np.float64)


def check_vector(x, shape, name):
    """Return x as a C-contiguous float64 array of ``shape`` (a 1-tuple), or raise.

    The common case (already such an array) costs a few attribute checks.
    Finite values are checked by the kernels, which report the argument.
    """
    if x.__class__ is _NDARRAY and x.dtype is _FLOAT64 and x.shape == shape and x.flags.c_contiguous:
        return x
    try:
        y = np.ascontiguousarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric array of shape {shape}, got {type(x).__name__}") from None
    if y.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {y.shape}")
    return y
