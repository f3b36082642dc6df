"""Kernels made in several variants by one factory, each cached under a name of its own.

Numba names a cached function's machine code after its module, its qualname and a counter
of the process that compiled it. Two closures of one factory share the qualname
(``_make_aba_core.<locals>.aba_core``); compiled in two processes they could get the same
counter, hence the same symbol, and a later process that loaded both from the cache linked
every caller to whichever was loaded first: the PIN-only ABA ran on a model with a free
joint, silently (issue 18). So every variant a factory makes is renamed before Numba sees
it, to the module attribute it is bound to (``aba_pin_core``), and the name alone tells
the variants apart: their machine code has distinct symbols whatever the counters, and
their cache entries distinct files. ``tests/test_kernel_names.py`` enumerates the
package's cached dispatchers and fails on any module + qualname held by two of them.
"""
from numba import njit
from numba.core.dispatcher import Dispatcher

_NAMED = {}

#: the uuid prefix of a dispatcher a variant captures (``stable_uuid``)
UUID_PREFIX = "multibody:"


def stable_uuid(value, seen=None):
    """Give a dispatcher held in a variant's closure (``value``, or one inside a tuple), and
    every dispatcher its function calls through its globals, a uuid made of its module and
    name: the same in every process.

    Numba keys a closure's cache entry by a pickle of its closure cells. A dispatcher pickles
    with a uuid it draws at random on first use and with its Python function by value, the
    dispatchers that function calls included: a kernel that captured one (the batch kernels
    capture their sample function) got a new key in every process, so it was compiled again
    in each (2-13 s per kernel, for the stacked calls' 29 kernels) and its cache grew by an
    entry per process. Raises RuntimeError for a dispatcher whose uuid was already drawn. A
    Numba without ``_set_uuid`` keeps its own behaviour."""
    seen = set() if seen is None else seen
    if isinstance(value, tuple):
        for v in value:
            stable_uuid(v, seen)
        return
    if not isinstance(value, Dispatcher) or not hasattr(value, "_set_uuid") or id(value) in seen:
        return
    seen.add(id(value))
    func = value.py_func
    uuid = f"{UUID_PREFIX}{func.__module__}.{func.__qualname__}"
    current = getattr(value, "_MemoMixin__uuid", None)
    if current is None:
        value._set_uuid(uuid)
    elif current != uuid:
        raise RuntimeError(f"{func.__qualname__}: its uuid was drawn before a kernel variant captured it; "
                           f"the variant's cache key would change from process to process")
    for name in _names(func.__code__):
        stable_uuid(func.__globals__.get(name), seen)
    stable_uuid(tuple(c.cell_contents for c in func.__closure__ or ()), seen)


def _names(code):
    """The global names a code object and the code nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def variant(name, **options):
    """Decorator for a function made by a factory: ``njit(cache=True, **options)`` under the
    module-level name ``name`` (its ``__name__`` and ``__qualname__``), the dispatchers it
    captures given stable uuids (``stable_uuid``). Naming a second,
    different function (other code or other closure constants) alike in one module raises
    RuntimeError: it would share the first one's cache entries and machine-code symbols."""

    def compile_as(py_func):
        cells = tuple(c.cell_contents for c in py_func.__closure__ or ())
        stable_uuid(cells)  # (before Numba pickles the cells into the cache key)
        key = (py_func.__module__, name)
        known = _NAMED.setdefault(key, (py_func.__code__, cells))
        if known != (py_func.__code__, cells):
            raise RuntimeError(f"kernel variant name {py_func.__module__}.{name} is already taken by "
                               f"another variant (closure constants {known[1]}, now {cells}): give each its own name")
        py_func.__name__ = py_func.__qualname__ = name
        return njit(cache=True, **options)(py_func)

    return compile_as
