"""Arrays stored once however many bodies or links use them.

A chain of 10,000 modal bodies made from one ``ModalData`` would otherwise hold 10,000
copies of its modal integrals in the bodies and 10,000 more in the compiled tables
(~36 kB each with 10 modes: 0.7 GB). Two tools:

* ``IdentityCache``: a result computed once per set of *frozen* input arrays (read-only
  all the way down, as a ``ModalData``'s are), handed out read-only to every body made
  from them; inputs that can still change (writeable) get their own result each time.
* ``ConstantPool``: a flat float array of blocks where a block equal (bit for bit) to one
  already stored is not stored again; ``add`` returns the block's address.
"""
import weakref

import numpy as np


def frozen(a):
    """True for a float64 ndarray that nothing can write through: it and every base it is
    a view of are read-only (ndarrays, read-only memoryviews as ``read_only`` makes, or
    bytes)."""
    if not isinstance(a, np.ndarray) or a.dtype != np.float64:
        return False
    while a is not None:
        if isinstance(a, memoryview):
            if not a.readonly:
                return False
            a = a.obj
        elif isinstance(a, np.ndarray) and not a.flags.writeable:
            a = a.base
        else:
            return isinstance(a, bytes)  # immutable (an unpickled array's base)
    return True


def read_only(a):
    """A view of ``a`` that cannot be made writeable again: its base is a read-only
    memoryview, so ``setflags(write=True)`` raises (on a plain view of an array that owns
    its data NumPy would allow it, and the write would reach every body sharing it)."""
    return np.asarray(memoryview(a).toreadonly())


class IdentityCache:
    """``get(what, inputs, make)``: ``make()``'s result made read-only, computed once per
    ``what`` (a hashable naming the computation and its parameters) and tuple of input
    arrays while they are alive and frozen (identity, not content: equal inputs that are
    distinct objects are computed again, which is correct, only not shared)."""

    def __init__(self):
        self._results = {}  # tuple of ids -> (weak references to the inputs, result)

    def get(self, what, inputs, make):
        if not all(frozen(a) for a in inputs):
            return _read_only_all(make())
        key = (what,) + tuple(id(a) for a in inputs)
        hit = self._results.get(key)
        if hit is not None and all(r() is a for r, a in zip(hit[0], inputs)):
            return hit[1]
        result = _read_only_all(make())
        forget = lambda _ref, k=key: self._results.pop(k, None)  # noqa: E731 (a dead input's entry)
        self._results[key] = (tuple(weakref.ref(a, forget) for a in inputs), result)
        return result


def _read_only_all(result):
    """``result`` (an array or a tuple of them) as ``read_only`` views; a fresh array (one
    that owns its data) is also marked read-only itself, so the views are ``frozen``."""
    if isinstance(result, tuple):
        return tuple(_read_only_all(r) for r in result)
    if not isinstance(result, np.ndarray):
        return result
    if result.base is None:
        result.setflags(write=False)
    return read_only(result)


class ConstantPool:
    """Float blocks packed into one array, each distinct block once (equal bytes: the same
    address). The kernels only read these blocks, so links may share them."""

    def __init__(self):
        self._blocks = []
        self._address = {}  # block bytes -> address
        self.size = 0

    def add(self, block):
        """Address of ``block`` (any float64 array, read flat) in the pool."""
        block = np.ascontiguousarray(block, dtype=np.float64).ravel()
        key = block.tobytes()
        adr = self._address.get(key)
        if adr is None:
            adr = self._address[key] = self.size
            self._blocks.append(block)
            self.size += block.size
        return adr

    def array(self):
        """The pool as one flat float64 array."""
        out = np.empty(self.size)
        adr = 0
        for b in self._blocks:
            out[adr:adr + b.size] = b
            adr += b.size
        return out
