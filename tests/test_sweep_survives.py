"""``mb.sweep`` survives its cases (issue 19): a case with the wrong shape fails alone,
Ctrl-C keeps the cases done."""
import numpy as np
import pytest

import multibody as mb
from multibody.sweep import SweepError


def ragged_first(k):
    """Case 0 (or ``k == 7``) has the odd shape."""
    return np.zeros(4 if k in (0, 7) else 3)


def interrupt_at_3(k):
    if k == 3:
        raise KeyboardInterrupt
    return np.array([k, -k])


def test_a_wrong_first_shape_fails_alone(tmp_path):
    with pytest.raises(SweepError) as e:
        mb.sweep(ragged_first, range(10), progress=False, output=tmp_path / "r.npz")
    assert sorted(e.value.failures) == [0, 7] and e.value.completed.tolist() == list(range(1, 7)) + [8, 9]
    assert e.value.results.shape == (8, 3)
    assert ("case 0 returned an array of shape (4,), but 8 of 10 successful cases returned an array of shape (3,) "
            "(the most common; case 1 first)") in e.value.failures[0]
    with np.load(tmp_path / "r.npz") as f:
        assert f["result"].shape == (8, 3)
    with pytest.raises(SweepError) as e:  # a tie goes to the shape of the lowest case index
        mb.sweep(ragged_first, [0, 1], progress=False)
    assert list(e.value.failures) == [1] and e.value.results.shape == (1, 4)


def test_serial_ctrl_c_keeps_the_cases_done(tmp_path):
    with pytest.raises(SweepError) as e:
        mb.sweep(interrupt_at_3, range(6), progress=False, output=tmp_path / "i.npz")
    err = e.value
    assert err.interrupted and isinstance(err.__cause__, KeyboardInterrupt)
    assert err.completed.tolist() == [0, 1, 2] and err.not_run == [3, 4, 5] and err.failures == {}
    with np.load(tmp_path / "i.npz") as f:
        assert f["case_index"].tolist() == [0, 1, 2] and f["result"][:, 0].tolist() == [0, 1, 2]
