"""Bounded reading and path containment: the one home of these checks for every loader.

* ``read_bounded(path, limit)`` returns the bytes of a regular file of at most ``limit``
  bytes: it opens without blocking (a FIFO cannot stall it), refuses what ``fstat`` says is
  not a regular file (``/dev/zero``, a folder, a FIFO, also through a symlink) and reads at
  most ``limit + 1`` bytes, so nothing larger ever reaches memory.
* ``check_file(path, limit)`` makes the same checks, by ``stat``, for a file that another
  reader opens (MuJoCo, NumPy, trimesh).
* ``read_npz(path, limit)``: the arrays of an ``.npz`` archive whose arrays, as the archive
  declares them, take at most ``limit`` bytes (checked before any is inflated; no pickles).
* ``inside(path, roots)``: whether a path, its symlinks resolved, lies in one of the folders
  ``roots``; ``lexically_inside`` the same for a path as written (``..`` folded, no file
  system access), which refuses a reference before anything about it is looked up.

Errors are ``ValueError`` naming the file (a missing file: ``FileNotFoundError``, naming it).
"""
import os
import stat
import zipfile
import zlib

import numpy as np

#: Default bound on the size of a model file read into memory (256 MiB); loaders take
#: ``max_bytes`` to change it.
MAX_BYTES = 256 * 2**20
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def _check_limit(limit):
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"max_bytes must be a positive integer, got {limit!r}")


def _check_stat(path, st, limit):
    """ValueError naming ``path`` unless ``st`` is a regular file of at most ``limit`` bytes."""
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        raise ValueError(f"{path}: {kind}, not a regular file; only regular files are read")
    if st.st_size > limit:
        raise ValueError(f"{path}: {st.st_size} bytes, more than the limit of {limit} bytes "
                         "(max_bytes= raises it)")


def read_bounded(path, limit=MAX_BYTES):
    """The bytes of the regular file ``path``, of at most ``limit`` bytes.

    Parameters
    ----------
    path : str or os.PathLike
        The file; a symlink is followed, and the file it leads to is checked.
    limit : int
        The most bytes read; a larger file is refused before it is read.

    Returns
    -------
    bytes

    Raises
    ------
    FileNotFoundError
        No such file (the message names it).
    ValueError
        Naming the file: not a regular file (a device, a folder, a FIFO), or larger than
        ``limit`` (also when it grows while being read).
    """
    _check_limit(limit)
    path = os.fspath(path)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        _check_stat(path, os.fstat(fd), limit)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path}: more than the limit of {limit} bytes (max_bytes= raises it)")
    return data


def check_file(path, limit=MAX_BYTES):
    """``path`` (str) after checking, by ``stat``, that it is a regular file of at most
    ``limit`` bytes (see ``read_bounded``), for a reader that opens it itself."""
    _check_limit(limit)
    path = os.fspath(path)
    _check_stat(path, os.stat(path), limit)
    return path


_NPZ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error)


def read_npz(path, limit=MAX_BYTES):
    """The arrays {name: array} of the ``.npz`` archive ``path``, bounded.

    Parameters
    ----------
    path : str or os.PathLike
        The archive (checked as ``check_file`` checks it).
    limit : int
        The most bytes the file, and the archive's arrays as it declares them, may take.

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    FileNotFoundError
        No such file (the message names it).
    ValueError
        Not a zip archive (empty, truncated, another format), arrays larger than ``limit``,
        or an entry that cannot be read (named); the caller adds the file's name.
    """
    check_file(path, limit)
    if not zipfile.is_zipfile(path):
        raise ValueError("not an .npz file (not a zip archive: empty, truncated or another format)")
    try:
        with zipfile.ZipFile(path) as zf:
            size = sum(i.file_size for i in zf.infolist())
    except _NPZ_ERRORS as exc:
        raise ValueError(f"not a readable .npz file ({type(exc).__name__}: {exc})") from None
    if size > limit:
        raise ValueError(f"its arrays take {size} bytes, more than the limit of {limit} (max_bytes= raises it)")
    entries, name = {}, None
    try:
        with np.load(path, allow_pickle=False) as z:
            for name in z.files:
                entries[name] = z[name]
    except _NPZ_ERRORS as exc:
        where = "" if name is None else f"{name}: "
        raise ValueError(f"{where}cannot be read ({type(exc).__name__}: {exc})") from None
    return entries


def _within(p, root):
    try:
        return os.path.commonpath([p, root]) == root
    except ValueError:  # different drives
        return False


def lexically_inside(path, roots):
    """Whether ``path`` as written (absolute, ``..`` folded) lies in one of ``roots``."""
    p = os.path.normcase(os.path.normpath(os.path.abspath(path)))
    return any(_within(p, os.path.normcase(os.path.normpath(os.path.abspath(r)))) for r in roots)


def inside(path, roots):
    """Whether ``path``, its symlinks resolved, lies in one of the folders ``roots`` (theirs
    resolved too)."""
    p = os.path.normcase(os.path.realpath(path))
    return any(_within(p, os.path.normcase(os.path.realpath(r))) for r in roots)
