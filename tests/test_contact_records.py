"""``ContactRecords`` (simulate(contact_output=True)): the blocks the contact loop hands over,
kept packed, read back as each sample's own contacts, whatever the loop does to its block
buffer afterwards, and across blocks added before and after a read."""
import numpy as np
import pytest

from multibody.simulation.contact_loop import RECORD_COLS
from multibody.simulation.contact_records import ContactRecords


def _block(rng, counts, maxc=4):
    R = rng.normal(size=(len(counts), maxc, RECORD_COLS))
    R[:, :, 0:2] = rng.integers(0, 5, size=(len(counts), maxc, 2))
    return R


def test_records_read_back_each_samples_own_contacts():
    rng = np.random.default_rng(0)
    rec = ContactRecords(["floor", "a", "b", "c", "d"])
    buf = _block(rng, [2, 0, 3])
    want = [buf[0, :2].copy(), buf[1, :0].copy(), buf[2, :3].copy()]
    rec.add(np.array([0.1, 0.2, 0.3]), np.array([2, 0, 3]), buf)
    buf[:] = np.nan  # the loop reuses its buffer for the next block
    assert len(rec) == 3 and rec.count.tolist() == [2, 0, 3]  # (a read, then more blocks)
    nxt = _block(rng, [1, 4])
    want += [nxt[0, :1].copy(), nxt[1, :4].copy()]
    rec.add(np.array([0.4, 0.5]), np.array([1, 4]), nxt)
    assert rec.t.tolist() == [0.1, 0.2, 0.3, 0.4, 0.5] and rec.count.tolist() == [2, 0, 3, 1, 4]
    for k, w in enumerate(want):
        a = rec.at(k)
        assert np.array_equal(a["shapes"], w[:, 0:2].astype(np.int64)) and a["shapes"].dtype == np.int64
        for key, cols in (("points", slice(2, 5)), ("normals", slice(5, 8)), ("forces", slice(8, 11))):
            assert np.array_equal(a[key], w[:, cols]), (k, key)
    assert np.array_equal(rec.at(-1)["forces"], want[-1][:, 8:11])
    with pytest.raises(IndexError):
        rec.at(5)
    total = rec.total_force()
    assert total.shape == (5, 3) and np.array_equal(total[1], np.zeros(3))
    np.testing.assert_allclose(total, [w[:, 8:11].sum(axis=0) for w in want], rtol=0, atol=1e-14)
    rec.at(0)["forces"][:] = 0.0  # what a reader does to its dict stays there
    assert np.array_equal(rec.at(0)["forces"], want[0][:, 8:11])


def test_no_records():
    rec = ContactRecords(["floor"])
    assert len(rec) == 0 and rec.t.shape == (0,) and rec.count.shape == (0,)
    assert rec.total_force().shape == (0, 3)
