"""A check of each stepping-loop variant a process loads, before its first run (issue 18).

The loop's counterpart of ``algorithms/kernel_check.py``: when a run first takes a variant
of the compiled loop (``kernels.entry_point``) in a process, the variant runs once on a
recorded short run of a small model of its family (PIN links only, any kinds, a closed
four-bar for the tree-augmented variants, a flexible tree for the modal ones, the flexible
four-bar of examples/flexible_four_bar.py for the constrained modal ones; classic or
Munthe-Kaas, fixed or adaptive steps; for the implicit loops, ``galpha_loop`` and
``radau_loop``, the same four models (a tree of all kinds, the four-bar, the flexible tree and
four-bar); for the contact loop, ``contact_loop``, a cube sliding on a floor, an A-frame with
a pin loop on its feet, a flexible beam landing on a floor, the flexible four-bar with a
sphere on its coupler landing on a floor) and its samples and final state are compared with
the recorded ones in ``data/loop_check.npz`` (recorded by ``tests/test_loop_check.py``,
whose tests check those runs against the facade's dynamics). The recorded run has no
control and no link-level force models, so a variant built for them runs it unchanged.
On a mismatch: a RuntimeWarning, the variant and its package callees compiled afresh
(``kernel_check.recompile``), and RuntimeError if it is still wrong. A recording whose
arguments have another structure than the run's own (``structure``) is skipped with a
RuntimeWarning, never run. Cost: a few hundred microseconds per variant and, once per
process, reading the recordings.
"""
import warnings

import numpy as np

from ..algorithms.kernel_check import TOLERANCE, current_layout, recompile, relative_error, stored_values
from .kernels import C_WRITTEN

OUTPUTS = ("q", "u", "T", "Q", "U")
_DTYPES = (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.uint8))  # (the arrays a loop takes)


def _kind(flex, ta, tree):
    """A family's model kind: the flexible or rigid, constrained or not; ``tree`` otherwise."""
    return ("flexta" if ta else "flex") if flex else "ta" if ta else tree


def family(run):
    """The recording that serves the loop variant ``run``: e.g. ``"pins_lie0_adaptive1"``; for
    the contact loop ``"moreau_tree"``, ``"moreau_loops"``, ``"moreau_flex"``,
    ``"moreau_flexloops"``; for the implicit
    loops ``"galpha_<kind>"``, ``"radau_<kind>"`` (kind: tree, ta, flex, flexta)."""
    name = run.py_func.__name__
    if name.startswith("run_moreau_"):  # contact_loop._make_contact_loop
        if name.endswith("_flex1"):
            return "moreau_flexloops" if "_loops1" in name else "moreau_flex"
        return "moreau_loops" if "_loops1" in name else "moreau_tree"
    if name.startswith(("run_galpha_", "run_radau_")):  # galpha_loop._make_galpha_loop, radau_loop._make_radau_loop
        parts = name.split("_")
        flags = {p[:-1]: int(p[-1]) for p in parts[2:] if p != "flex"}
        flex = "flex" in parts[2:] or flags.get("flex", 0)
        ta = flags.get("ta", 0)
        return f"{parts[1]}_{_kind(flex, ta, 'tree')}"
    flags = {part[:-1]: int(part[-1]) for part in name.split("_")[1:]}  # kernels.loop_name
    kind = _kind(flags["flex"], flags["ta"], "pins" if flags["pins"] else "general")
    return f"{kind}_lie{flags['lie']}_adaptive{flags['adaptive']}"


NONE, ARRAY = -1, -2  # spec codes; k >= 0: a tuple of k items, their specs following


def _arrays(args):
    """The arrays of the loop arguments ``args`` in order (tuples flattened at any depth,
    None left out) and their spec, in prefix order: NONE, ARRAY, or k (a tuple of k items,
    whose specs follow); the arguments themselves are a tuple."""
    arrays, spec = [], []

    def walk(a):
        if a is None:
            spec.append(NONE)
        elif isinstance(a, tuple):
            spec.append(len(a))
            for x in a:
                walk(x)
        else:
            spec.append(ARRAY)
            arrays.append(a)

    walk(tuple(args))
    return arrays, np.array(spec, dtype=np.int64)


def _rebuilt(spec, arrays):
    """The arguments of ``_arrays``' spec and arrays, and how many arrays they took."""
    pos, k = 0, 0

    def build():
        nonlocal pos, k
        n = int(spec[pos])
        pos += 1
        if n == NONE:
            return None
        if n == ARRAY:
            k += 1
            return arrays[k - 1]
        return tuple(build() for _ in range(n))

    return list(build()), k


def pack(name, args, out):
    """A recorded run, the loop arguments ``args`` and its outputs ``out`` (``outputs``), as
    three arrays for ``np.savez`` under ``name``: the spec of the arguments, and every array
    in one float64 blob (int64 ones by their bits, uint8 ones by value) with an index of
    (dtype code, offset, ndim, shape (3)) rows: one entry per family, which reads in a
    fraction of a millisecond."""
    arrays, spec = _arrays(args)
    arrays += [out[k] for k in OUTPUTS + ("status",)]
    index, parts, offset = [], [], 0
    for a in arrays:
        a = np.ascontiguousarray(a)
        code = _DTYPES.index(a.dtype)
        shape = a.shape + (1,) * (3 - a.ndim)
        index.append((code, offset, a.ndim) + shape)
        parts.append(a.reshape(-1).view(np.float64) if code == 1 else a.reshape(-1).astype(np.float64))
        offset += a.size
    return {f"{name}.spec": spec, f"{name}.index": np.array(index, dtype=np.int64),
            f"{name}.blob": np.concatenate(parts)}


def unpack(name, values):
    """(fresh copies of the recorded loop arguments, {output: recorded value}) of ``pack``."""
    blob, arrays = values[f"{name}.blob"], []
    for code, offset, ndim, *shape in values[f"{name}.index"]:
        a = blob[offset:offset + int(np.prod(shape))].copy()
        a = a.view(np.int64) if code == 1 else a.astype(_DTYPES[code]) if code else a
        arrays.append(a.reshape(tuple(shape[:ndim])))
    args, k = _rebuilt(values[f"{name}.spec"], arrays)
    return args, dict(zip(OUTPUTS + ("status",), arrays[k:]))


#: where q, u, ctr, T, Q, U are among a loop's arguments: the Runge-Kutta loop's
#: (``kernels.entry_point``), the contact loop's (``contact_loop.contact_entry_point``) and
#: the implicit loops' (``galpha_loop.galpha_entry_point``, ``radau_loop.radau_entry_point``)
RK_ARGS = (12, 13, 15, 18, 19, 20)
MOREAU_ARGS = (10, 11, 13, 15, 16, 17)
GALPHA_ARGS = (11, 12, 14, 16, 17, 18)
RADAU_ARGS = (13, 14, 16, 18, 19, 20)
_ARGS = {"moreau": MOREAU_ARGS, "galpha": GALPHA_ARGS, "radau": RADAU_ARGS}


def argument_places(name):
    """Where q, u, ctr, T, Q, U are among the arguments of family ``name``'s loop."""
    return _ARGS.get(name.split("_")[0], RK_ARGS)


def outputs(args, status, at=RK_ARGS):
    """What a run wrote: its final q and u, and its samples T, Q, U (rows written), status;
    ``at``: where those are among the loop's arguments ``args``."""
    q, u, ctr, T, Q, U = (args[i] for i in at)
    w = int(ctr[C_WRITTEN])
    return dict(q=q, u=u, T=T[:w], Q=Q[:w], U=U[:w], status=np.array([status, w], dtype=np.int64))


def _check(run, name, values):
    args, recorded = unpack(name, values)
    got = outputs(args, run(*args), argument_places(name))
    if not np.array_equal(got["status"], recorded["status"]):
        return np.inf
    return max(relative_error(got[k], recorded[k]) for k in OUTPUTS)


def structure(args):
    """The shape of a loop's arguments that every run of a family shares: the spec of
    ``_arrays`` (tuples and their lengths, None, arrays) and each array's dtype and ndim."""
    arrays, spec = _arrays(args)
    return spec.tolist(), [(_DTYPES.index(np.asarray(a).dtype), np.ndim(a)) for a in arrays]


def _recorded_structure(name, values):
    spec = values[f"{name}.spec"]
    n = int(np.sum(spec == ARRAY))
    return spec.tolist(), [(int(c), int(d)) for c, _, d, *_ in values[f"{name}.index"][:n]]


def verify(run, args=None):
    """Check the loop variant ``run`` (compiling or loading it) on its family's recorded
    run; on a mismatch compile it afresh (RuntimeWarning), RuntimeError if still wrong.
    ``args`` (the run's own arguments): the recording must have their structure
    (``structure``), else it is skipped with a RuntimeWarning and never run (a recording of
    another version's arguments would be read out of bounds, as the layout key guards)."""
    if not current_layout("loop_check"):
        return
    name = family(run)
    values = stored_values("loop_check", name + ".")
    if f"{name}.spec" not in values or (args is not None and structure(args) != _recorded_structure(name, values)):
        warnings.warn(f"multibody: data/loop_check.npz has no recording of this version's arguments for the "
                      f"stepping loop {run.py_func.__name__} (family {name}): its check is skipped (a packaging "
                      "error: please report it)", RuntimeWarning, stacklevel=4)
        return
    err = _check(run, name, values)
    if err <= TOLERANCE:
        return
    variant = run.py_func.__name__
    warnings.warn(f"multibody: the stepping loop {variant} gave wrong numbers on its check run (relative error "
                  f"{err:.1e}; Numba's cache may hold a bad entry): it and the kernels it calls are compiled "
                  "afresh now, and their cache entries replaced", RuntimeWarning, stacklevel=4)
    recompile(run, run.signatures[0])
    err = _check(run, name, values)
    if err > TOLERANCE:
        raise RuntimeError(f"multibody: the stepping loop {variant} is wrong on its check run even when compiled "
                           f"afresh (relative error {err:.1e}): please report this with your Numba and LLVM versions")
