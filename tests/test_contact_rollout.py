"""Parallel contact rollouts (issue 21): Solo12 drops through ``mb.rollout`` across cores
give each sample's own ``mb.simulate`` run to the bit, whatever the threads, also when a
sample outgrows its contact rows and the call goes on with more."""
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import multibody as mb
from multibody.kernels.status import FINISHED

from robots import robots_dir

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import solo12_drop as solo  # noqa: E402

needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data is not installed")
T_FINAL = 0.4  # [s] the feet land at about 0.2 s


@pytest.fixture(scope="module")
def drops():
    """Solo12 with its PD as position actuators, and 5 drops: heights, tilts, speeds differ."""
    m, q0 = solo.solo12_scene(actuators=True)
    rng = np.random.default_rng(7)
    Q0 = np.repeat(q0[None], 5, axis=0)
    Q0[:, 6] += rng.uniform(-0.05, 0.1, 5)
    Q0[:, 0:3] = rng.uniform(-0.1, 0.1, (5, 3))  # (quaternion x, y, z: normalised by the run)
    U0 = rng.uniform(-0.5, 0.5, (5, m.nu))
    return m, Q0, U0


@needs_robots
def test_parallel_contact_rollout_is_each_samples_simulate_to_the_bit(drops):
    m, Q0, U0 = drops
    out = mb.rollout(m, Q0, U0, T_FINAL, dt=1e-3, ctrl=solo.POSE, save_every=5, progress=False)
    assert np.all(out.status == FINISHED)
    for b in range(len(Q0)):
        res = mb.simulate(m, Q0[b], U0[b], T_FINAL, dt=1e-3, ctrl=solo.POSE, save_every=5)
        np.testing.assert_array_equal(out.t, res.t)
        np.testing.assert_array_equal(out.q[b], res.q)
        np.testing.assert_array_equal(out.u[b], res.u)
    assert np.all(out.q[:, -1, 6] < Q0[:, 6] - 0.05)  # (they fell and landed: not a trivial run)


@needs_robots
def test_parallel_contact_rollout_does_not_depend_on_threads_or_rows(drops):
    """One thread against all, and rows for one contact (every sample outgrows them, stops
    before its step and goes on with more): the same bits."""
    m, Q0, U0 = drops
    out = mb.rollout(m, Q0, U0, T_FINAL, dt=1e-3, ctrl=solo.POSE, progress=False)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = mb.rollout(m, Q0, U0, T_FINAL, dt=1e-3, ctrl=solo.POSE, progress=False,
                         contact_options=dict(max_contacts=1))
    finally:
        numba.set_num_threads(threads)
    assert np.all(one.status == FINISHED)
    np.testing.assert_array_equal(one.q, out.q)
    np.testing.assert_array_equal(one.u, out.u)
