"""Numba's on-disk kernel cache, made to notice changes anywhere in the package.

Numba checks a cached function only against the source file it is defined in. Our
kernels call ``@njit`` helpers of other files (``spatial_inline``, ``joint_transform``,
...), and Numba compiles those into the caller's machine code; after an edit or an upgrade
(``pip install`` over an older copy, whose ``__pycache__`` stays) that changes a helper
but not the caller's file, the caller was loaded stale, silently computing with the old
helper. Here every cached function of the package is stamped with a fingerprint of all
the package's files that can change compiled code (those that mention Numba, and every
file of ``kernels/``, whose constants are folded in), so any change there recompiles the
cached kernels (Numba then overwrites the stale entries).

``install(root)`` puts, in front of Numba's cache locators, one stamped variant of each
file-backed locator that answers only for files under ``root``; it must run before the
first ``@njit(cache=True)`` of the package is decorated (``multibody/__init__.py`` imports
this module first). Numba versions without the locator list keep their own behaviour.
"""
import functools
import hashlib
import os

_BASE_NAMES = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")


def _compiled_in(rel, text):
    """True for a file whose content can change compiled code: one that mentions Numba (any
    case: ``kernels/layout.py`` says "Numba" only) or any file of ``kernels/``, whose
    constants (``layout.py``, ``kinds.py``, ``status.py``, ``flex_layout.py``) the kernels
    fold in without naming Numba."""
    return rel.startswith("kernels/") or b"numba" in text.lower()


def fingerprint(root):
    """SHA-256 over the relative paths and contents of the ``.py`` files under ``root``
    that can change compiled code (``_compiled_in``; the others cannot), in a fixed order."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                text = f.read()
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if _compiled_in(rel, text):
                h.update(rel.encode())
                h.update(len(text).to_bytes(8, "little"))
                h.update(text)
    return h.hexdigest()


def _stamped(base, root, stamp):
    """A subclass of Numba's locator ``base`` for files under ``root`` whose source stamp
    also carries the package fingerprint (``stamp()``, computed once on first use)."""
    prefix = os.path.join(root, "")

    class PackageStampedLocator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.abspath(py_file).startswith(prefix):
                return None  # not ours: Numba's own locators take it
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return (super().get_source_stamp(), stamp())

    PackageStampedLocator.__name__ = PackageStampedLocator.__qualname__ = "Stamped" + base.__name__.lstrip("_")
    return PackageStampedLocator


def install(root):
    """Stamp the cached Numba functions of the files under ``root`` with ``fingerprint(root)``.
    Returns the locator classes put in front of Numba's (empty where this Numba has no
    locator list; installing the same root twice adds nothing)."""
    from numba.core import caching
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list):
        return []
    root = os.path.abspath(root)
    if any(getattr(c, "_stamped_root", None) == root for c in classes):
        return []
    stamp = functools.lru_cache(maxsize=None)(lambda: fingerprint(root))
    ours = []
    for name in _BASE_NAMES:
        base = getattr(caching, name, None) or getattr(caching, "_" + name, None)
        if base is not None:
            cls = _stamped(base, root, stamp)
            cls._stamped_root = root
            ours.append(cls)
    classes[:0] = ours
    return ours


install(os.path.dirname(os.path.abspath(__file__)))
