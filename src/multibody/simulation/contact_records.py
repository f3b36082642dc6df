"""The contacts of a run's stored samples (``simulate(contact_output=True)``): ``ContactRecords``.

The contact loop writes each sample's contacts into rows of a (samples, maxc, RECORD_COLS)
block (kernels: ``contact_step.contact_record``); a block is kept packed, only each sample's
own rows, with the samples' start offsets made when the records are read. Kept as a Python
list of per-sample copies, a run's records cost Solo12 about 4 us per step of a 1 ms run
(a Python loop over the samples and copies of the whole block's rows).
"""
import numpy as np

from .contact_loop import RECORD_COLS


class ContactRecords:
    """The contacts at a run's stored samples.

    ``t`` (N,) [s] the sample times (the initial sample has none); ``count`` (N,) the contacts
    of the step that ends on each sample; per sample k, ``at(k)`` -> dict of ``shapes`` (nc, 2)
    shape indices (a, b) into ``m.compiled.contact.shape_names``, ``points`` (nc, 3) world
    points [m], ``normals`` (nc, 3) unit normals from a to b, ``forces`` (nc, 3) the mean
    force on b over the step [N] in world axes (a receives the opposite).
    """

    def __init__(self, shape_names):
        self.shape_names = tuple(shape_names)
        self._blocks = []  # (times, counts, the samples' rows one after another) per block added
        self._joined = None  # (t, count, rows, start) of every block, made on first read

    def add(self, T, NR, R):
        """Append a block of samples: times T (n,), counts NR (n,), records R (n, maxc,
        RECORD_COLS) of which sample k's first NR[k] rows are its contacts (contact_loop)."""
        NR = np.array(NR, dtype=np.int64)
        used = np.arange(R.shape[1]) < NR[:, None]
        self._blocks.append((np.array(T, dtype=float), NR, R[used]))  # (rows in sample order)
        self._joined = None

    def _all(self):
        if self._joined is None:
            if self._blocks:
                t, n, rows = (np.concatenate(x) for x in zip(*self._blocks))
            else:
                t, n, rows = np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros((0, RECORD_COLS))
            self._blocks = [(t, n, rows)]
            self._joined = (t, n, rows, np.concatenate(([0], np.cumsum(n))))
        return self._joined

    @property
    def t(self):
        return self._all()[0].copy()

    @property
    def count(self):
        return self._all()[1].copy()

    def at(self, k):
        """The contacts of sample k (the class docstring); k as a list index (negative from
        the end), IndexError past either end."""
        _, n, rows, start = self._all()
        k = range(len(n))[k]
        r = rows[start[k]:start[k + 1]]
        return dict(shapes=r[:, 0:2].astype(np.int64), points=r[:, 2:5].copy(), normals=r[:, 5:8].copy(),
                    forces=r[:, 8:11].copy())

    def total_force(self):
        """(N, 3) the sum of the contact forces on the b shapes at each sample [N]."""
        _, n, rows, _ = self._all()
        out = np.zeros((len(n), 3))
        np.add.at(out, np.repeat(np.arange(len(n)), n), rows[:, 8:11])
        return out

    def __len__(self):
        return len(self._all()[0])
