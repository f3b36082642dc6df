"""The spin-up benchmark (examples/spinning_beam.py; Kane, Ryan and Banerjee 1987): with
geometric stiffening the tip deflection stays bounded; the linear modal model diverges
once the spin passes the first bending frequency (3.8 rad/s, reached at t = 8.3 s)."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import spinning_beam  # noqa: E402


def test_hub_follows_the_prescribed_spin_up():
    m = spinning_beam.build(True)
    r = spinning_beam.mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), 4.0, dt=5e-3,
                                  control=spinning_beam.computed_torque(m), output_every=0.5)
    want = np.array([spinning_beam.hub_motion(t)[0] for t in r.t])
    assert np.abs(r.q[:, 0] - want).max() < 1e-6


def test_geometric_stiffening_keeps_the_spinning_beam_bounded():
    t, d, stopped = spinning_beam.run(True, t_final=20.0, dt=5e-3)
    assert stopped is None
    assert np.abs(d).max() < 0.7  # the quasi-static bending by the spin-up: 0.57 m at t = 7 s
    after = d[t >= 15.0]
    assert np.abs(after).max() < 0.03  # after the spin-up: centimetres
    t, d, stopped = spinning_beam.run(False, t_final=12.0, dt=5e-3)
    assert stopped is not None or np.abs(d[t >= 11.0]).max() > 10.0
