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

_NAMED = {}


def variant(name, **options):
    """Decorator for a function made by a factory: ``njit(cache=True, **options)`` under the
    module-level name ``name`` (its ``__name__`` and ``__qualname__``). Naming a second,
    different function (other code or other closure constants) alike in one module raises
    RuntimeError: it would share the first one's cache entries and machine-code symbols."""

    def compile_as(py_func):
        cells = tuple(c.cell_contents for c in py_func.__closure__ or ())
        key = (py_func.__module__, name)
        known = _NAMED.setdefault(key, (py_func.__code__, cells))
        if known != (py_func.__code__, cells):
            raise RuntimeError(f"kernel variant name {py_func.__module__}.{name} is already taken by "
                               f"another variant (closure constants {known[1]}, now {cells}): give each its own name")
        py_func.__name__ = py_func.__qualname__ = name
        return njit(cache=True, **options)(py_func)

    return compile_as
