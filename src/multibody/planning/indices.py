"""Index specifications of configuration / velocity coordinates.

- :func:`as_index_array`: an int, slice, int array or list of ints, slices and
  ``(start, length)`` segments -> a 1-D int64 array of distinct indices;
- :func:`index_segments` / :func:`format_segments`: sorted indices as
  ``(start, length)`` segments / as compact text for messages.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

__all__ = ["as_index_array", "index_segments", "format_segments"]


def as_index_array(spec, size: int, argname: str = "indices") -> np.ndarray:
    """Normalize an index specification into a 1-D int64 array of distinct indices.

    ``spec`` may be an int, a slice, an int array-like, or a list whose items are
    ints, slices or ``(start, length)`` pairs (segments). Order is preserved.
    Raises ValueError naming ``argname`` for out-of-range or repeated indices.
    """
    parts: list[np.ndarray] = []

    def one(item):
        if isinstance(item, slice):
            parts.append(np.arange(size)[item])
        elif isinstance(item, (int, np.integer)):
            parts.append(np.array([int(item)]))
        elif isinstance(item, tuple) and len(item) == 2 and all(
                isinstance(x, (int, np.integer)) for x in item):
            start, length = int(item[0]), int(item[1])
            if length < 0:
                raise ValueError(f"{argname}: segment {item} has a negative length")
            parts.append(np.arange(start, start + length))
        else:
            raise ValueError(f"{argname}: cannot interpret {item!r} as an index, slice or "
                             f"(start, length) segment")

    if isinstance(spec, np.ndarray):
        if spec.dtype.kind not in "iu":
            raise ValueError(f"{argname} must hold integers, got dtype {spec.dtype}")
        parts.append(spec.astype(np.int64).ravel())
    elif isinstance(spec, (slice, int, np.integer)):
        one(spec)
    elif isinstance(spec, Iterable):
        for item in spec:
            one(item)
    else:
        raise ValueError(f"{argname}: cannot interpret {spec!r} as indices")
    idx = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise ValueError(f"{argname} must lie in [0, {size}), got {idx.tolist()}")
    if np.unique(idx).size != idx.size:
        raise ValueError(f"{argname} contains repeated indices: {idx.tolist()}")
    return idx


def index_segments(indices: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted indices as a list of ``(start, length)`` segments: [0,1,2,5] -> [(0,3),(5,1)]."""
    out: list[tuple[int, int]] = []
    for i in sorted(int(k) for k in indices):
        if out and out[-1][0] + out[-1][1] == i:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((i, 1))
    return out


def format_segments(indices) -> str:
    """Sorted indices as compact text: [0, 1, 2, 5] -> "[0:3, 5]" (ranges ``start:stop``)."""
    segs = index_segments(indices)
    return "[" + ", ".join(f"{a}" if n == 1 else f"{a}:{a + n}" for a, n in segs) + "]"
