"""A pile of boxes dropped onto the floor (issue 21's scale check, small): ten 10 cm, 1 kg
boxes in two columns of five (``bench/bench_box_pile.py``'s scene: 1 cm gaps, each turned a
little), 1 s at dt = 1 ms. They land on one another and settle: every contact's
penetration under 1 mm, the boxes at rest at the end (no explosion, no creep), each
column's boxes stacked at their edge length apart (no sinking into one another or the floor),
and the floor carrying the pile's weight. (Six of the landings' steps have no solution at the
default compliance and are solved by the softer retry, with its ContactWarning: expected here.)"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.simulation.moreau import ContactWarning

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
from bench_box_pile import pile  # noqa: E402

N, T, G = 10, 1.0, 9.81


@pytest.fixture(scope="module")
def run():
    m, q0 = pile(N)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContactWarning)
        return m, mb.simulate(m, q0, np.zeros(m.nu), T, dt=1e-3, contact_output=True)


def test_the_pile_settles_without_sinking_or_exploding(run):
    m, res = run
    assert res.status == "finished", res.message
    c = m.contacts(res.q[-1])
    touching = {name.split("/")[0] for pair in c.shapes for name in pair}
    assert touching == {"floor"} | {f"box{k}" for k in range(N)}
    assert np.min(c.distances) > -1e-3
    assert np.abs(res.u[-1]).max() < 1e-4
    pos = res.q[-1].reshape(N, 7)[:, 4:]
    for col in range(N // 5):  # each column: its boxes 10 cm apart, the lowest on the floor
        z = np.sort(pos[5 * col:5 * col + 5, 2])
        assert z[0] == pytest.approx(0.05, abs=1e-3)
        assert np.diff(z) == pytest.approx(np.full(4, 0.1), abs=2e-3)


def test_the_floor_carries_the_pile(run):
    m, res = run
    names = res.contacts.shape_names
    rec = res.contacts.at(len(res.contacts.count) - 1)
    fz = sum(f[2] for (a, b), f in zip(rec["shapes"], rec["forces"]) if "floor" in (names[a], names[b]))
    assert abs(fz) == pytest.approx(N * G, rel=1e-2)
