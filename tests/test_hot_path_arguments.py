"""The mass matrix's default call hands q to the compiled function without Numba's
dispatcher (``entry.compiled_entry``), after checking q's strides and dtype itself: every
array that is not a 1-D C-contiguous native float64 one must still take the checked path
and give what its float64 copy gives, never the wrapper's reading of its raw memory (an
int64 array read as floats, a 2-D one overrunning the wrapper's struct, a strided view read
as contiguous). Compared with the mass matrix of a plain float64 copy of the same numbers,
which Pinocchio's CRBA checks elsewhere (test_robots_vs_pinocchio.py).
"""
import numpy as np
import pytest

import multibody as mb


def arm(kind):
    """A three-link arm of pins (the PIN-only kernels) or with a slider (the general ones)."""
    m = mb.Multibody()
    parent = None
    for i, k in enumerate(("pin", kind, "pin")):
        body = m.add_body(f"b{i}", mass=1.0 + i, inertia=np.diag([0.1, 0.2, 0.3]), com=[0.2, 0.05, 0.0])
        m.add_hinge(parent, body, k, name=f"h{i}", axis=(0, 1, 0) if i else (0, 0, 1))
        parent = body
    return m


def variants(q):
    """(label, array holding q's numbers in another layout or type) pairs."""
    wide = np.zeros(2 * q.size)
    wide[::2] = q
    backwards = q[::-1].copy()[::-1]
    return [("int64", np.round(q).astype(np.int64)), ("big-endian", q.astype(">f8")),
            ("strided view", wide[::2]), ("reversed view", backwards), ("float32", q.astype(np.float32)),
            ("list", list(q)), ("read-only", _read_only(q)), ("column of a 2-D array", np.stack([q, q], 1)[:, 0]),
            ("unaligned", _unaligned(q))]


def _read_only(q):
    x = q.copy()
    x.setflags(write=False)
    return x


def _unaligned(q):
    raw = np.zeros(8 * q.size + 1, dtype=np.uint8)
    x = raw[1:].view(np.float64)
    x[:] = q
    return x


@pytest.mark.parametrize("kind", ["pin", "slider"])
def test_every_layout_of_q_gives_the_mass_matrix_of_its_float64_copy(kind):
    m = arm(kind)
    q = np.array([0.3, 1.2, 2.0])  # rounds to 0, 1, 2: as raw int64 bits, tiny floats near 0
    m.mass_matrix(q)  # the hot path's entry is made
    for label, x in variants(q):
        expected = m.mass_matrix(np.array(x, dtype=np.float64))
        got = m.mass_matrix(x)
        assert got.shape == (3, 3), label
        assert np.array_equal(got, expected), label
    assert not np.array_equal(m.mass_matrix(np.round(q)), m.mass_matrix(q))  # the int64 case can fail


def test_stacked_states_whose_count_is_nq_stay_stacked():
    m = arm("pin")
    Q = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    M = m.mass_matrix(Q)
    assert M.shape == (3, 3, 3)
    for b in range(3):
        assert np.array_equal(M[b], m.mass_matrix(Q[b].copy()))


def test_bad_q_still_names_q():
    m = arm("pin")
    m.mass_matrix(np.zeros(3))
    with pytest.raises(ValueError, match=r"q must have shape \(3,\)"):
        m.mass_matrix(np.zeros(4))
    with pytest.raises(ValueError, match="q"):
        m.mass_matrix(np.array([0.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="q"):
        m.mass_matrix(np.array(["a", "b", "c"]))
    with pytest.raises(ValueError, match="q must be real"):
        m.mass_matrix(np.zeros(3, dtype=complex))
