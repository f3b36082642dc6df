"""Calls into the compiled kernels from the facade.

Each facade kernel is compiled (or loaded from Numba's cache) for the one
signature we use, then further compilation is switched off: Numba's dispatcher
then checks argument types in C (cheaper than the same checks in Python:
bench/README.md) and raises TypeError for anything else (wrong dtype, layout,
ndim, read-only arrays). The facade catches that, coerces the arguments with
``as_float_vector`` (which names the argument in its errors) and calls again.
Lengths and finite values are checked inside the kernels, which return a status, and so is
the result: a non-finite result of finite arguments is OVERFLOW (``common.result_status``).

``KERNELS`` serves every model; ``PIN_KERNELS`` serves models whose links are all PIN
(``joint_transform.pin_variant``): where a kernel has a PIN-only variant (same numbers,
without the code of the other joint kinds: seconds less to compile), it is that one,
otherwise the same dispatcher as ``KERNELS``'s. ``FLEX_KERNELS`` serves models with modal
bodies: every facade kernel but the coordinate maps (which know modal coordinates) and the
derivatives (not served for them) is a flex entry kernel (``kernels/flex_entry.py``, same
arguments), plus two of their own (``strain_energy``,
``external_generalized_forces``; no rigid kernel has these names).
A compiled model's ``kernels`` is the one that serves it, settled when it is compiled:
the three are registered with ``model.compiled`` here, so the model layer below takes them
without importing this module.
"""
import threading

import numpy as np
from numba import types as nt

from ..progress import compiling_notice
from . import kernel_check
from .owners import nonfinite_error

from ..kernels.joint_transform import pin_variant
from ..model.compiled import register_kernels
from ..kernels import (
    constrained_dynamics, constrained_dynamics_derivatives, coordinates, energy, flex_entry, forward_dynamics,
    forward_dynamics_derivatives, frame_acceleration, inverse_dynamics, inverse_dynamics_derivatives,
    inverse_mass_matrix, jacobian, mass_matrix, operational_space,
)

_I2 = nt.Array(nt.int64, 2, "C")
_I1 = nt.Array(nt.int64, 1, "C")
_F3 = nt.Array(nt.float64, 3, "C")
_F2 = nt.Array(nt.float64, 2, "C")
_F1 = nt.Array(nt.float64, 1, "C")
_I64 = nt.int64
_F64 = nt.float64

_SIGNATURES = {
    # entry kernels on a data buffer (it begins with the model rows), see kernels.layout
    "inverse_dynamics": (inverse_dynamics.inverse_dynamics, (_F2, _F1, _F1, _F1, _F1)),
    "forward_dynamics": (forward_dynamics.forward_dynamics, (_F2, _F1, _F1, _F1, _F1)),
    "mass_matrix": (mass_matrix.mass_matrix, (_F2, _F1, _F2)),
    "constrained_forward_dynamics": (constrained_dynamics.constrained_forward_dynamics,
                                     (_F2, _F1, _F1, _F1, _F2, _F1)),
    "constraint_rows": (constrained_dynamics.evaluate_constraint_rows, (_F2, _F1, _F1, _F2)),
    "inverse_mass_matrix": (inverse_mass_matrix.inverse_mass_matrix, (_F2, _F1, _F2, _F2)),
    "inverse_dynamics_derivatives": (inverse_dynamics_derivatives.inverse_dynamics_derivatives,
                                     (_F2, _F1, _F1, _F1, _F2, _F2, _F2)),
    "forward_dynamics_derivatives": (forward_dynamics_derivatives.forward_dynamics_derivatives,
                                     (_F2, _F1, _F1, _F1, _F2, _F3, _F2, _F2, _F2)),
    "constrained_dynamics_derivatives": (constrained_dynamics_derivatives.constrained_dynamics_derivatives,
                                         (_F2, _F1, _F1, _F1, _F2, _F2, _F3, _F3, _F2, _F2, _F2, _F2, _F2)),
    "operational_space_compliance": (operational_space.operational_space_compliance,
                                     (_F2, _F1, _I1, _F2, _F2)),
    "frame_pose": (jacobian.frame_pose, (_F2, _F1, _I64, _F2)),
    "frame_jacobian": (jacobian.frame_jacobian, (_F2, _F1, _I64, _F2, _F2)),
    "frame_velocity_acceleration": (frame_acceleration.frame_velocity_acceleration,
                                    (_F2, _F1, _F1, _F1, _I64, _F1)),
    "kinetic_energy": (energy.kinetic_energy, (_F2, _F1, _F1, _F1)),
    "mass_and_com": (energy.mass_and_com, (_F2, _F1, _F1)),
    "trajectory_energies": (energy.trajectory_energies, (_F2, _F2, _F2, _F2)),
    # models with modal bodies only (``_FLEX_VARIANTS``; None: no kernel for the others)
    "strain_energy": (None, (_F2, _F1, _F1)),
    "external_generalized_forces": (None, (_F2, _F1, _I1, _F2, _F1)),
    # coordinate maps take (mi, ws); the simulation calls the unchecked maps (qdot_from_u: a
    # target of the warm-up for it, run_side)
    "qdot": (coordinates.qdot, (_I2, _F2, _F1, _F1, _F1)),
    "integrate": (coordinates.integrate, (_I2, _F2, _F1, _F1, _F64, _F1)),
    "qdot_from_u": (coordinates.qdot_from_u, (_I2, _F2, _F1, _F1, _F1)),
    "sanitize_charts": (coordinates.sanitize_charts, (_I2, _F2, _F1, _F1)),
}

#: the PIN-only variants (``joint_transform.pin_variant``) of facade kernels, same signatures
_PIN_VARIANTS = {
    "forward_dynamics": forward_dynamics.forward_dynamics_pins,
    "inverse_dynamics": inverse_dynamics.inverse_dynamics_pins,
    "mass_matrix": mass_matrix.mass_matrix_pins,
    "inverse_mass_matrix": inverse_mass_matrix.inverse_mass_matrix_pins,
    "operational_space_compliance": operational_space.operational_space_compliance_pins,
    "frame_pose": jacobian.frame_pose_pins,
    "frame_jacobian": jacobian.frame_jacobian_pins,
    "kinetic_energy": energy.kinetic_energy_pins,
    "mass_and_com": energy.mass_and_com_pins,
    "trajectory_energies": energy.trajectory_energies_pins,
}

#: the variants of models with modal bodies (``kernels/flex_entry.py``), same signatures
_FLEX_VARIANTS = {
    "forward_dynamics": flex_entry.forward_dynamics_flex,
    "inverse_dynamics": flex_entry.inverse_dynamics_flex,
    "mass_matrix": flex_entry.mass_matrix_flex,
    "kinetic_energy": flex_entry.kinetic_energy_flex,
    "mass_and_com": flex_entry.mass_and_com_flex,
    "inverse_mass_matrix": flex_entry.inverse_mass_matrix_flex,
    "operational_space_compliance": flex_entry.operational_space_compliance_flex,
    "frame_pose": flex_entry.frame_pose_flex,
    "frame_jacobian": flex_entry.frame_jacobian_flex,
    "frame_velocity_acceleration": flex_entry.frame_velocity_acceleration_flex,
    "trajectory_energies": flex_entry.trajectory_energies_flex,
    "constrained_forward_dynamics": flex_entry.constrained_forward_dynamics_flex,
    "constraint_rows": flex_entry.constraint_rows_flex,
    "strain_energy": flex_entry.strain_energy_flex,
    "external_generalized_forces": flex_entry.external_generalized_forces_flex,
}


class _Kernels:
    """``KERNELS.<name>`` is the dispatcher of a facade kernel, compiled for its one
    signature with further compilation disabled (see the module docstring), and checked
    once on a small model (``kernel_check.verify``). The first access compiles under a
    lock, so threads that start together do not race.
    ``variants``: the namespace's own variants by name (``_PIN_VARIANTS`` for ``PIN_KERNELS``,
    ``_FLEX_VARIANTS`` for ``FLEX_KERNELS``; None: ``KERNELS``, the general ones)."""

    _lock = threading.Lock()

    def __init__(self, variants=None):
        self._variants = variants
        self._kind = "pins" if variants is _PIN_VARIANTS else "flex" if variants is _FLEX_VARIANTS else "general"

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._variants is not None and name not in self._variants:  # no variant: the general kernel
            dispatcher = getattr(KERNELS, name)
            setattr(self, name, dispatcher)
            return dispatcher
        try:
            dispatcher, sig = _SIGNATURES[name]
        except KeyError:
            raise AttributeError(name) from None
        if self._variants is not None:
            dispatcher = self._variants[name]
        elif dispatcher is None:
            raise AttributeError(f"{name}: a kernel of models with modal bodies only")
        with self._lock:
            if name not in self.__dict__:
                with compiling_notice("kernels"):
                    dispatcher.compile(sig)
                dispatcher.disable_compile()
                kernel_check.verify(name, dispatcher, sig, self._kind)
                setattr(self, name, dispatcher)
        return dispatcher


KERNELS = _Kernels()
PIN_KERNELS = _Kernels(_PIN_VARIANTS)
FLEX_KERNELS = _Kernels(_FLEX_VARIANTS)
register_kernels(KERNELS, PIN_KERNELS, FLEX_KERNELS)  # a CompiledModel's ``kernels`` (model.compiled)


def kernels_for(mi):
    """``PIN_KERNELS`` for the model rows ``mi`` of a model whose links are all PIN
    (``joint_transform.pin_variant``), else ``KERNELS``."""
    return PIN_KERNELS if pin_variant(mi) else KERNELS


def kernel_dispatcher(name, pins=False, flex=False):
    """The Numba dispatcher of the facade kernel ``name`` (``pins``: its PIN-only variant,
    ``flex``: its variant for models with modal bodies, where it has one), not compiled by
    this call."""
    variants = _FLEX_VARIANTS if flex else _PIN_VARIANTS if pins else {}
    if name in variants:
        return variants[name]
    return _SIGNATURES[name][0]


def kernel_signature(name):
    """The argument types (Numba's) of the facade kernel ``name``'s one signature."""
    return _SIGNATURES[name][1]


def kernel_names(pins=False, flex=False):
    """The names of the facade kernels (``KERNELS.<name>``); ``pins``: those with a
    PIN-only variant; ``flex``: those with a variant for models with modal bodies (the
    kernels of models with modal bodies only among them, which the others lack)."""
    if flex:
        return tuple(_FLEX_VARIANTS)
    return tuple(_PIN_VARIANTS) if pins else tuple(k for k, (d, _) in _SIGNATURES.items() if d is not None)


def compiled_entry(name, dispatcher):
    """The compiled function of the facade kernel ``name``'s one signature in ``dispatcher``
    (``KERNELS.<name>`` or a variant's, compiled): a call that skips the dispatcher's typing
    of the arguments (about 0.15 us of UR5's 1.3 us mass matrix call). Numba's wrapper then
    unboxes any ndarray whose items are 8 bytes wide, with its shape and strides as they
    come, so every argument the caller did not make itself must first be checked to be a 1-D
    C-contiguous array of native float64: ``x.strides == VECTOR_STRIDES and x.dtype is
    FLOAT64`` (an ndarray of more dimensions would overrun the wrapper's array struct, an
    int64 one would be read as floats; a read-only one is fine, the kernels never write their
    inputs). What is not an ndarray raises TypeError there, as with the dispatcher."""
    return dispatcher.overloads[_SIGNATURES[name][1]].entry_point


FLOAT64 = np.dtype(np.float64)  # numpy's own object: ``is`` refuses other byte orders and lookalikes
VECTOR_STRIDES = (8,)  # the strides of a 1-D C-contiguous float64 array, and of no other


def real_array(x, name, what="an array of numbers", copy=False):
    """x as a C-contiguous float64 array (a new one with ``copy``, else only where needed), or
    ValueError naming ``name``: complex values are refused, never cast (a cast drops their
    imaginary parts), and so is what is not numbers (``what`` says what is wanted)."""
    if np.iscomplexobj(x):
        raise ValueError(f"{name} must be real; got complex values")
    try:
        return np.array(x, dtype=np.float64, order="C") if copy else np.asarray(x, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {type(x).__name__}") from None


def as_float_vector(x, name):
    """x as a new C-contiguous, writeable float64 1-D array, or ValueError naming ``name``."""
    y = real_array(x, name, "a 1-D array of numbers", copy=True)
    if y.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {y.shape}")
    return y


def check_vector(x, n, name, c=None):
    """x as a float64 (n,) array that the kernels take: C-contiguous and writeable (no copy
    when it already is one; a read-only input, such as a view of a read-only buffer, is
    copied: the kernels are compiled for writeable arrays only), or ValueError naming ``name``
    (and, given the CompiledModel ``c``, the hinge or modal body that owns a non-finite entry)."""
    if not (isinstance(x, np.ndarray) and x.dtype == np.float64 and x.ndim == 1 and x.flags.writeable):
        x = as_float_vector(x, name)
    if x.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},), got {x.shape}")
    if not np.all(np.isfinite(x)):
        if c is not None:
            raise nonfinite_error(c, name, x)
        idx = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"{name}[{idx}] is not finite ({x[idx]})")
    return np.ascontiguousarray(x)


def stacked(x, shape, name):
    """x as a C-contiguous, writeable float64 array of ``shape`` (stacked states; no copy when
    it already is one, a read-only one is copied as in ``check_vector``), or ValueError
    naming ``name``."""
    y = real_array(x, name)
    if y.shape != shape:
        raise ValueError(f"{name} must have shape {shape} (stacked states), got {y.shape}")
    return y if y.flags.writeable else y.copy()
