"""Cassie standing with closed legs (examples/cassie_standing.py), shortened: the loops stay
closed, the pose holds, and the numbers behind the example's settings."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

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


def test_projection_onto_the_loops_through_the_nearly_singular_slider(cassie):
    """The knee-spring slider loops are nearly singular (Gc's singular values 1.4e-7 and
    2.9e-6 of the largest): plain Newton stalls on them (at 1.5e-11 from this state, at
    ~5e-9 inside ``project_every``), and solve_q raised ConstraintError, so a simulation
    with ``project_every`` stopped. The solver now leaves the fewest such directions out
    (constraint_kinematics' module docstring): every other constraint closes to tol, the
    slider keeps a small leftover, reported by a warning that names it."""
    m = cassie
    q = m.neutral_q()
    res, _ = cs.stand(m, q, q, t_final=0.3)
    cks = m.constraint_kinematics()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qc = cks.solve_q(res.q[-1])
    assert any("nearly singular" in str(w.message) and "shin-spring-joint" in str(w.message) for w in caught)
    c = m.compiled
    r = np.abs(m.pose_error(qc, "residual"))
    slider = np.zeros(r.size, dtype=bool)
    for con in m.enabled_constraints:
        slider[c.constraint_rows[con]] = getattr(con, "kind", None) == "slider"
    assert r[~slider].max() < 1e-12 and 0.0 < cks.leftover == r.max() < 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mb.simulate(m, q, np.zeros(m.nu), 0.2, dt=1e-3, forces=cs.force_models(m, q), limits=False,
                          project_every=50, joint_dynamics=False,  # (the file's dampers are in force_models)
                          contact=False)  # (no floor: RK4 and project_every)
    assert res.t[-1] == pytest.approx(0.2)
    assert max(np.abs(m.pose_error(x, "residual")).max() for x in res.q) < 1e-7


def test_cassie_stands_on_the_floor_on_a_free_pelvis_with_exact_loops():
    """Issue 21's must-show: contact on (Moreau-Jean, hard Coulomb contact) with the loops'
    rows eliminated from each step (kernels/loop_impulses.py). Measured over 2 s at dt = 5e-4:
    pelvis height range 0.96 mm, vertical contact force / weight 1.00013 at the end, deepest
    penetration 1.8 um, closure 8.7e-10 (achilles, plantar, gearboxes) and 7.9e-9 (the
    knee-spring slider loops, whose nearly singular rows are dropped)."""
    m = cs.load_cassie(floating_base=True)
    q0 = cs.on_ground(m)
    assert min(m.contacts(q0).distances) > -1e-12  # (the soles touch the floor: rounding only)
    res, s = cs.stand_on_ground(m, q0, t_final=2.0)
    assert res.integrator == "moreau" and res.t[-1] == pytest.approx(2.0)
    assert s["pelvis_z_range"] < 3e-3
    assert abs(s["force_over_weight_end"] - 1.0) < 1e-3
    assert s["deepest_penetration"] < 1e-3
    assert s["closure_max_others"] < 1e-8 and s["closure_max_slider"] < 1e-7
    assert res.contacts.count[-1] == 4  # heel and toe of each sole
