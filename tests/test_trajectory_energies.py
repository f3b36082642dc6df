"""Energies along a trajectory in one kernel call (``algorithms.energy.trajectory_energies``,
used by ``SimulationResult.energy``): the same numbers as the per-sample functions."""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.algorithms.energy import trajectory_energies

sys.path.insert(0, str(Path(__file__).parent))
from robots import robot_urdf  # noqa: E402


@pytest.mark.parametrize("name, floating", [("ur5", False), ("solo12", True), ("talos", "quaternion")])
def test_equal_to_the_per_sample_functions(name, floating):
    m = mb.load_urdf(robot_urdf(name), floating_base=floating)
    rng = np.random.default_rng(7)
    Q = np.array([m.random_q(rng) for _ in range(6)])
    U = rng.normal(size=(6, m.nu))
    ke, pe = trajectory_energies(m, Q, U)
    np.testing.assert_array_equal(ke, [m.kinetic_energy(q, u) for q, u in zip(Q, U)])
    np.testing.assert_array_equal(pe, [m.potential_energy(q) for q in Q])


def test_result_energy_and_bad_samples():
    m = mb.Multibody()
    m.add_serial_chain("l", 2)
    res = mb.simulate(m, np.array([0.3, -0.2]), np.zeros(2), 0.05)
    ke, pe = res.energy(m)
    assert ke.shape == pe.shape == res.t.shape
    np.testing.assert_array_equal(ke, [m.kinetic_energy(q, u) for q, u in zip(res.q, res.u)])
    Q = res.q.copy()
    Q[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"q\[1\] is not finite"):
        trajectory_energies(m, Q, res.u)
    with pytest.raises(ValueError, match="same number of samples"):
        trajectory_energies(m, res.q, res.u[:-1])
    assert [a.shape for a in trajectory_energies(m, res.q[:0], res.u[:0])] == [(0,), (0,)]
