"""Which hinge or modal body owns an entry of a state vector, for the errors that name it.

Its own module (it imports nothing of the package) so that ``entry.check_vector`` and
``checks`` can both use it without importing each other.
"""
import numpy as np


#: the names of q-sized arguments (the others are u-sized: u, udot, tau, u0, U0)
Q_NAMES = ("q", "q0", "Q0")


def coordinate_owner(c, name, idx):
    """'it belongs to hinge ...' for entry idx of q (a name in ``Q_NAMES``) or of a u-sized vector."""
    slices = c.q_slices if name in Q_NAMES else c.u_slices
    for h, s in slices.items():
        if s.start <= idx < s.stop:
            return f"it belongs to hinge {h!r}"
    for b, (sq, su) in getattr(c, "modal_slices", {}).items():
        s = sq if name in Q_NAMES else su
        if s.start <= idx < s.stop:
            return f"it is mode {idx - s.start} of modal body {b!r}"
    return "index out of range"


def nonfinite_error(c, name, x):
    """The ValueError for the first NaN/inf entry of the vector x (argument ``name``), naming
    the hinge or modal body that owns it."""
    idx = int(np.flatnonzero(~np.isfinite(x))[0])
    return ValueError(f"{name}[{idx}] is not finite ({x[idx]}); {coordinate_owner(c, name, idx)}")
