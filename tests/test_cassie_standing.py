"""Cassie standing with closed legs (examples/cassie_standing.py), shortened: the loops stay
closed, the pose holds, and the numbers behind the example's settings."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import cassie_standing as cs  # noqa: E402  (the example's model and run: one definition)

pytestmark = pytest.mark.skipif(cs.cassie_path() is None, reason="example-robot-data's cassie.sdf not installed")


@pytest.fixture(scope="module")
def cassie():
    return cs.load_cassie()


def test_cassie_stands_with_closed_legs(cassie):
    m = cassie
    q = m.neutral_q()
    res, s = cs.stand(m, q, q, t_final=0.3)
    assert np.all(np.isfinite(res.q)) and res.t[-1] == pytest.approx(0.3)
    assert s["closure_max_others"] < 1e-10  # achilles and plantar loops, gearboxes
    assert s["closure_max_slider"] < 1e-7   # the knee-spring slider: nearly singular rows dropped
    assert s["motor_deviation_end"] < 5e-3 and s["feet_deviation_end"] < 5e-3


def test_cassie_crouched_start_returns_to_the_standing_pose(cassie):
    m = cassie
    q = m.neutral_q()
    q0 = cs.crouched(m, q, 0.1)
    assert np.abs(m.pose_error(q0, "residual")).max() < 1e-12
    assert np.abs(q0 - q)[[m.q_slice(h).start for h in cs.MOTORS]].max() > 0.09
    res, s = cs.stand(m, q0, q, t_final=0.4, dt=2.5e-4, stabilization_gains=(1e4, 200.0))  # a hard step
    assert s["closure_max_others"] < 1e-8 and s["closure_end"] < 1e-8
    assert s["motor_deviation_end"] < 5e-3 and s["feet_deviation_end"] < 5e-3


def test_cassie_diagnosis(cassie):
    d = cs.diagnose(cassie, cassie.neutral_q())
    assert (d["rows"], d["rank"]) == (36, 28)
    assert max(d["slider_second_singular_value"].values()) < 1e-4
    assert d["fastest_mode_pd_on_outputs"] * 1e-3 < 1.0      # RK4 at dt = 1e-3 is stable (< 2.78)
    assert d["fastest_mode_pd_on_rotors"] * 1e-3 > 2.78      # the same gains on the rotors are not
