"""A check of every kernel variant a process loads, before its first use (issue 18).

Defence in depth behind ``kernels/variants.py``: a cached kernel that computes wrong
numbers (machine code linked to another function's, a stale entry, a miscompile) must not
be used silently. When the facade first takes a kernel variant in a process
(``entry._Kernels``), it runs it once on a small model made for that variant (PIN links
only, one link of every kind under a quaternion free base, or a flexible tree of every
kind with deforming nodes for the flex variants; its data buffer is stored) and compares
the result with values stored in ``data/kernel_check.npz``, which
``tests/test_kernel_check.py`` checks against Pinocchio (values computed outside this
library; the flex ones against the identity M udot + b = tau of the three flex kernels)
and writes anew (``python tests/test_kernel_check.py``) when the buffer layout
changes. On a mismatch the kernel and every package kernel it calls are compiled afresh
in this process (their cache entries removed, so the next process compiles them too),
with a RuntimeWarning saying so; if the fresh kernel is wrong as well, RuntimeError. A
check costs one kernel call plus, once per process, reading the stored values: see
bench/README.md and the README's start-up figures. The stepping loop's variants have their
own check (``simulation/loop_check.py``).
"""
import functools
import itertools
import random
import threading
import warnings
from importlib import resources

import numpy as np
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

from ..kernels.constraint_work import work_shape
from ..kernels.layout import H_NCONSTRAINTS, H_NFRAMES, H_NLINKS
from ..kernels.work_shapes import compliance_work_shape, minv_work_shape

#: relative tolerance (to max(1, |reference|)) of a check: far above rounding on any
#: machine, far below what a wrong kernel gives (1e-2 .. 1e4 measured)
TOLERANCE = 1e-9
_lock = threading.RLock()
_references = {}


@functools.lru_cache(maxsize=None)
def stored_values(name, prefix=""):
    """{key: array} of the package's ``data/<name>.npz``, the keys that begin with ``prefix``
    only, read once per process."""
    with resources.files("multibody").joinpath(f"data/{name}.npz").open("rb") as f:
        with np.load(f) as z:
            return {k: z[k] for k in z.files if k.startswith(prefix)}


#: the modules whose integer constants lay out the arrays the stored checks hand to kernels
#: (the contact loop's: its option and state arrays' sizes N_COPT, N_CST; a recording of the
#: old sizes, handed to a loop that writes the new entries, wrote past their end; the implicit
#: loops' option, state and constant arrays)
LAYOUT_MODULES = ("multibody.kernels.layout", "multibody.kernels.flex_layout", "multibody.simulation.kernels",
                  "multibody.simulation.force_kernels", "multibody.kernels.status",
                  "multibody.kernels.collision.layout", "multibody.simulation.contact_loop",
                  "multibody.simulation.galpha_step", "multibody.simulation.galpha_newton",
                  "multibody.simulation.radau_loop", "multibody.simulation.radau_newton",
                  "multibody.simulation.radau_step")


def layout_signature():
    """int64 array: a hash of the integer constants of ``LAYOUT_MODULES``, stored with the
    checks' buffers and compared before they are run: buffers of another layout are never
    handed to a kernel (which does not check its indices)."""
    import hashlib
    import importlib
    h = hashlib.sha256()
    for name in LAYOUT_MODULES:
        module = importlib.import_module(name)
        for key in sorted(k for k in vars(module) if k.isupper()):
            value = getattr(module, key)
            if isinstance(value, int):
                h.update(f"{name}.{key}={value};".encode())
    return np.frombuffer(h.digest()[:8], dtype=np.int64).copy()


def current_layout(name):
    """True when the stored checks ``data/<name>.npz`` were made with today's layout; else a
    RuntimeWarning (once per file and process) and False: those checks are skipped."""
    if np.array_equal(stored_values(name, "layout")["layout"], layout_signature()):
        return True
    if name not in _stale:
        _stale.add(name)
        warnings.warn(f"multibody: data/{name}.npz was made with another buffer layout than this version's: "
                      "its kernel checks are skipped (a packaging error: please report it)", RuntimeWarning,
                      stacklevel=5)
    return False


_stale = set()


def variant_key(variant):
    """The stored checks' key of a variant: "pins", "general" or "flex" (True: "pins",
    False: "general")."""
    if variant is True or variant is False:
        return "pins" if variant else "general"
    return variant


def reference(variant):
    """(data buffer, (q, u, udot, tau), {kernel name: value}) of the check of the PIN-only
    variants (``variant`` "pins" or True), the general ones ("general" or False) or the flex
    ones ("flex"), read once per process. The data buffer is a Data's of the check model
    (``tests/test_kernel_check.check_model``), stored as it is made, so that no model needs
    to be built here."""
    key = variant_key(variant)
    with _lock:
        if key not in _references:
            ref = {k.split(".", 1)[1]: v.copy() for k, v in stored_values("kernel_check", key + ".").items()}
            buf = np.ascontiguousarray(ref.pop("data_buffer"))
            _references[key] = (buf, tuple(ref.pop(s) for s in ("q", "u", "udot", "tau")), ref)
        return _references[key]


def evaluate(name, kernel, buf, state):
    """What the facade kernel ``name`` (a dispatcher ``kernel``, called directly) gives with
    the data buffer ``buf`` at ``state`` = (q, u, udot, tau); None for a kernel without a
    check (the constraint rows, as the check models have none: the constrained dynamics is
    checked there as the forward dynamics it then is)."""
    q, u, udot, tau = state
    nu = u.shape[0]
    if name in ("forward_dynamics", "inverse_dynamics"):
        out = np.empty(nu)
        kernel(buf, q, u, tau if name == "forward_dynamics" else udot, out)
    elif name == "constrained_forward_dynamics" and not int(buf[0, H_NCONSTRAINTS]):
        out = np.empty(nu)  # (a check model without constraint rows: its forward dynamics)
        kernel(buf, q, u, tau, np.zeros(work_shape(nu, 0, int(buf[0, H_NLINKS]))), out)
    elif name == "mass_matrix":
        out = np.empty((nu, nu))
        kernel(buf, q, out)
    elif name == "kinetic_energy":
        out = np.empty(1)
        kernel(buf, q, u, out)
    elif name == "mass_and_com":
        out = np.empty(4)
        kernel(buf, q, out)
    elif name == "trajectory_energies":
        out = np.zeros((2, 6))  # (the rigid kernels write the first five columns)
        kernel(buf, np.stack([q, q]), np.stack([u, -u]), out)
    else:
        return _evaluate_operator(name, kernel, buf, state)
    return out


def _evaluate_operator(name, kernel, buf, state):
    """``evaluate`` of the kernels beyond the dynamics and energies (checked where they have a
    flex variant): M^-1, the compliance at two frames, the last frame's pose, Jacobian,
    velocity and acceleration, the strain energy and the generalized forces of two wrenches at
    the last frame."""
    q, u, udot, _ = state
    nu = u.shape[0]
    last = int(buf[0, H_NFRAMES]) - 1
    frames = np.array([1, last], dtype=np.int64)
    if name == "inverse_mass_matrix":
        out = np.empty((nu, nu))
        kernel(buf, q, np.zeros(minv_work_shape(buf)), out)
    elif name == "operational_space_compliance":
        out = np.empty((12, 12))
        kernel(buf, q, frames, np.zeros(compliance_work_shape(buf, 2)), out)
    elif name == "frame_pose":
        out = np.empty((4, 4))
        kernel(buf, q, last, out)
    elif name == "frame_jacobian":
        T, J = np.empty((4, 4)), np.zeros((6, nu))
        kernel(buf, q, last, T, J)
        out = np.concatenate([T.ravel(), J.ravel()])
    elif name == "frame_velocity_acceleration":
        out = np.empty(12)
        kernel(buf, q, u, udot, last, out)
    elif name == "strain_energy":
        out = np.empty(1)
        kernel(buf, q, out)
    elif name == "external_generalized_forces":
        out = np.empty(nu)
        kernel(buf, q, np.array([last, last], dtype=np.int64), np.linspace(-1.0, 1.0, 12).reshape(2, 6), out)
    else:
        return None
    return out


def relative_error(value, reference):
    return float(np.abs(value - reference).max() / max(1.0, np.abs(reference).max()))


def verify(name, kernel, sig, variant):
    """Check the facade kernel ``name`` (its dispatcher ``kernel``, compiled for ``sig``;
    ``variant`` as in ``reference``) against its stored values; on a mismatch compile it
    and its callees afresh (RuntimeWarning), then RuntimeError if it is still wrong."""
    if not current_layout("kernel_check"):
        return
    buf, state, ref = reference(variant)
    if name not in ref:
        return
    err = relative_error(evaluate(name, kernel, buf, state), ref[name])
    if err <= TOLERANCE:
        return
    where = {"pins": "PIN-only", "general": "general", "flex": "flex"}[variant_key(variant)]
    warnings.warn(f"multibody: the {where} kernel {name!r} gave wrong numbers on its check model "
                  f"(relative error {err:.1e}; Numba's cache may hold a bad entry): it and the kernels it "
                  "calls are compiled afresh now, and their cache entries replaced", RuntimeWarning, stacklevel=4)
    recompile(kernel, sig)
    err = relative_error(evaluate(name, kernel, buf, state), ref[name])
    if err > TOLERANCE:
        raise RuntimeError(f"multibody: the {where} kernel {name!r} is wrong on its check model even when compiled "
                           f"afresh (relative error {err:.1e}): please report this with your Numba and LLVM versions")


def package_callees(dispatcher, seen=None):
    """The package's non-inlined Numba dispatchers that ``dispatcher``'s code can call,
    callees before their callers, ``dispatcher`` last (its globals and closure cells,
    followed transitively)."""
    seen = set() if seen is None else seen
    seen.add(id(dispatcher))
    order = []
    f = dispatcher.py_func
    cells = [c.cell_contents for c in f.__closure__ or ()]
    for obj in [f.__globals__.get(n) for n in f.__code__.co_names] + cells:
        if (isinstance(obj, CPUDispatcher) and id(obj) not in seen
                and obj.py_func.__module__.startswith("multibody.")):
            order += package_callees(obj, seen)
    if dispatcher.targetoptions.get("inline", "never") != "always":
        order.append(dispatcher)
    return order


def recompile(kernel, sig):
    """Compile ``kernel`` for ``sig`` and its package callees afresh, not from the cache:
    their cache entries are removed and Numba's function counter is moved to unused
    values, so no new symbol can equal one already loaded; ``kernel``'s new code is
    cached for the next process (whether it may compile further stays as it was)."""
    from numba.core import bytecode
    with _lock:
        chain = package_callees(kernel)
        ids = getattr(bytecode.FunctionIdentity, "_unique_ids", None)
        if isinstance(ids, itertools.count):
            bytecode.FunctionIdentity._unique_ids = itertools.count(random.getrandbits(48) + 10 ** 9)
        caches, could_compile = {}, kernel._can_compile
        for d in chain:
            d._cache.flush()
            d._reset_overloads()
            if d is not kernel:
                caches[d], d._cache = d._cache, NullCache()
        kernel._can_compile = True
        try:
            kernel.compile(sig)
        finally:
            for d, cache in caches.items():
                d._cache = cache
            kernel._can_compile = could_compile
