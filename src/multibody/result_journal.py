"""Durable results files: the lock against a second writer, the append-only file a run
streams into, and the journal a ``.npz`` run writes before its archive is assembled.

While a run writes ``<out>`` (``.npz`` or ``.csv``) it holds ``<out>.lock`` (an exclusive
``fcntl.flock``, released by the kernel if the process dies; the file holds the writer's
pid and host) and appends to ``<out>.partial``:

* ``.csv``: the CSV itself (header, then rows); renamed onto ``<out>`` at the end.
* ``.npz``: a journal. ``JOURNAL_MAGIC`` (8 bytes), a little-endian uint32 n and n bytes
  of UTF-8 JSON (``format``, ``version``, ``nq``, ``nu``, ``columns`` and the labels
  ``q_names``, ``q_units``, ``u_names``, ``u_units``, ``pid``), then records: a kind byte
  (``B`` a block of samples, ``E`` the end: JSON ``status`` and ``message``), a
  little-endian uint64 payload length, the payload's CRC-32 (uint32) and the payload.
  A block's payload is a ``.npy`` file of a float64 (k, 1 + nq + nu) array, columns
  t, q, u. The archive is assembled from it at the end (``result_writer``).

A block is written (``os.write``: safe from SIGKILL) as soon as it is computed and made
durable (``fsync``: safe from power loss) at least every ``FSYNC_SECONDS``; a write that
fails is rolled back to the last whole block. ``iter_journal`` stops at the first torn
or corrupt record, so a killed run's journal reads back up to its last whole block.
"""
import io
import json
import os
import socket
import struct
import time
import zlib
from pathlib import Path

import numpy as np

try:
    import fcntl
except ImportError:  # not POSIX: an O_EXCL lock file (a killed run's stale lock must be removed by hand)
    fcntl = None

__all__ = ["JOURNAL_MAGIC", "FSYNC_SECONDS", "OutputLock", "AppendOnlyFile", "journal_header",
           "block_record", "end_record", "iter_journal", "read_journal", "partial_path"]

JOURNAL_MAGIC = b"\x93MBJRNL\n"
JOURNAL_VERSION = 1
#: an append-only file is fsync'ed when this many seconds [s] have passed since its last fsync
FSYNC_SECONDS = 1.0
_RECORD = struct.Struct("<cQI")  # kind, payload length, CRC-32 of the payload


def partial_path(target):
    """The file a run streams into before it becomes ``target``: ``<target>.partial``."""
    return Path(f"{target}.partial")


def _holder(path):
    try:
        return Path(path).read_text().strip() or "unknown"
    except OSError:
        return "unknown"


class OutputLock:
    """An exclusive lock on the results file ``target``: ``<target>.lock`` held with
    ``fcntl.flock`` (the kernel drops it when the process dies) and holding
    ``<pid> <host>``. ``what`` names the argument in the ``ValueError`` a second writer
    gets. ``release()`` removes the lock file."""

    def __init__(self, target, what="output"):
        self.path = Path(f"{target}.lock")
        self.fd = None
        while self.fd is None:
            fd = self._open(target, what)
            if fcntl is None or _same_file(fd, self.path):
                self.fd = fd
            else:  # its previous holder removed it between our open and our lock: take the new one
                os.close(fd)
        os.ftruncate(self.fd, 0)
        os.write(self.fd, f"{os.getpid()} {socket.gethostname()}\n".encode())

    def _open(self, target, what):
        busy = ValueError(f"{what} {str(target)!r}: another run is writing this results file "
                          f"(lock {str(self.path)!r} held by process {{}}); choose another path or "
                          f"wait until that run ends")
        if fcntl is None:
            try:
                return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                raise ValueError(str(busy).format(_holder(self.path))) from None
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ValueError(str(busy).format(_holder(self.path))) from None
        return fd

    @staticmethod
    def held(target):
        """Whether a live process holds the lock on ``target`` (a run is writing it)."""
        path = Path(f"{target}.lock")
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            if fcntl is None:
                return True
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    def release(self):
        """Remove the lock file and drop the lock (idempotent)."""
        if self.fd is None:
            return
        try:
            if _same_file(self.fd, self.path):
                self.path.unlink()
        except OSError:
            pass
        finally:
            os.close(self.fd)
            self.fd = None


def _same_file(fd, path):
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except OSError:
        return False


class AppendOnlyFile:
    """A file written only by appending whole records (``append(data)``).

    Before each record it checks that the file is still where it was created (not
    deleted, its folder not removed or moved) and that its folder is writable (the file
    is renamed there at the end); any failure raises ``OSError`` naming the file at once.
    A write that fails is rolled back to the last whole record (``size``). fsync at least
    every ``FSYNC_SECONDS`` and in ``sync()``.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.folder = self.path.parent if str(self.path.parent) else Path(".")
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        self.size = 0
        self._synced = time.monotonic()

    def check(self):
        """Raise ``OSError`` naming the file if it cannot be finished where it is."""
        if not _same_file(self.fd, self.path):
            raise FileNotFoundError(2, "the results file was deleted, or its folder removed or moved, "
                                       "while the run was writing it", str(self.path))
        if not os.access(self.folder, os.W_OK | os.X_OK):
            raise PermissionError(13, "the folder of the results file is no longer writable",
                                  str(self.folder))

    def append(self, data):
        """Append the bytes ``data`` whole, or roll back and raise ``OSError``."""
        self.check()
        view, done = memoryview(data), 0
        try:
            while done < len(view):
                done += os.write(self.fd, view[done:])
        except OSError:
            self.rollback()
            raise
        self.size += done
        if time.monotonic() - self._synced >= FSYNC_SECONDS:
            self.sync()

    def rollback(self):
        """Cut the file back to its last whole record (best effort: frees a full disk; the
        next record goes right after it: the file is opened O_APPEND)."""
        try:
            os.ftruncate(self.fd, self.size)
        except OSError:
            pass

    def sync(self):
        """Make what was appended durable (fsync)."""
        os.fsync(self.fd)
        self._synced = time.monotonic()

    def close(self):
        """Close the file (idempotent)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def journal_header(nq, nu, labels):
    """The bytes a journal of samples with nq coordinates, nu speeds and the labels
    ``(q_names, q_units, u_names, u_units)`` starts with."""
    qn, qu, un, uu = (list(x) for x in labels)
    meta = dict(format="multibody results journal", version=JOURNAL_VERSION, nq=int(nq), nu=int(nu),
                columns=["t"] + [f"q:{n}" for n in qn] + [f"u:{n}" for n in un],
                q_names=qn, q_units=qu, u_names=un, u_units=uu, pid=os.getpid())
    text = json.dumps(meta).encode()
    return JOURNAL_MAGIC + struct.pack("<I", len(text)) + text


def _record(kind, payload):
    return _RECORD.pack(kind, len(payload), zlib.crc32(payload)) + payload


def block_record(T, Q, U):
    """The journal record of the samples T (k,), Q (k, nq), U (k, nu)."""
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.column_stack([T, Q, U]).astype(np.float64, copy=False),
                              allow_pickle=False)
    return _record(b"B", buf.getvalue())


def end_record(status, message):
    """The journal record that closes a run with ``status`` and ``message``."""
    return _record(b"E", json.dumps(dict(status=status, message=message)).encode())


def _read_meta(f, path):
    head = f.read(len(JOURNAL_MAGIC) + 4)
    if len(head) < len(JOURNAL_MAGIC) + 4 or not head.startswith(JOURNAL_MAGIC):
        raise ValueError(f"{str(path)!r} is not a results journal (wrong magic bytes)")
    (n,) = struct.unpack_from("<I", head, len(JOURNAL_MAGIC))
    try:
        meta = json.loads(f.read(n).decode())
        meta["width"] = 1 + int(meta["nq"]) + int(meta["nu"])
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{str(path)!r}: the results journal's header is unreadable: {e}") from None
    return meta


def iter_journal(path):
    """The records of the journal at ``path``, one at a time (memory: one block).

    Yields ``("meta", header's dict)`` (with ``width`` = 1 + nq + nu) first, then
    ``("B", samples (k, width))`` per block (columns t, q, u) and ``("E", {status,
    message})`` for an end record, and finally ``("torn", n)``: the bytes after the last
    whole record (a torn or corrupt tail, ignored). Raises ``ValueError`` naming the file
    if it is not a journal.
    """
    with open(path, "rb") as f:
        meta = _read_meta(f, path)
        yield "meta", meta
        good, total = f.tell(), os.fstat(f.fileno()).st_size
        while True:
            head = f.read(_RECORD.size)
            if len(head) < _RECORD.size:
                break
            kind, size, crc = _RECORD.unpack(head)
            if kind not in (b"B", b"E") or size > total - f.tell():
                break
            payload = f.read(size)
            if len(payload) < size or zlib.crc32(payload) != crc:
                break
            if kind == b"E":
                yield "E", json.loads(payload.decode())
            else:
                a = np.lib.format.read_array(io.BytesIO(payload), allow_pickle=False)
                if a.ndim != 2 or a.shape[1] != meta["width"]:
                    break
                yield "B", a
            good = f.tell()
        yield "torn", total - good


def read_journal(path):
    """Read the journal at ``path`` whole: ``(meta, data, end, torn)``, the header's dict,
    the samples (N, 1 + nq + nu) (columns t, q, u), the end record's dict (None if the run
    did not close it) and the bytes of a torn tail (see ``iter_journal``)."""
    meta, parts, end, torn = None, [], None, 0
    for kind, x in iter_journal(path):
        if kind == "meta":
            meta = x
        elif kind == "B":
            parts.append(x)
        elif kind == "E":
            end = x
        else:
            torn = x
    data = np.concatenate(parts) if parts else np.zeros((0, meta["width"]))
    return meta, data, end, torn
