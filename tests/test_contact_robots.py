"""Robots on the ground (issue 21): Solo12 dropped onto the floor under PD joint control
stands on its four feet (examples/solo12_drop.py, one definition of the scene), the floor
carrying its weight; MuJoCo, given the same geometry through ``mb.interop``, stands it too;
dm_control's suite models run with their geoms."""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

from robots import robots_dir

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import solo12_drop as solo  # noqa: E402

needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data is not installed")


@pytest.fixture(scope="module")
def standing():
    m, q0 = solo.solo12_scene()
    res, _ = solo.run_ours(m, q0, 5.0)
    return m, q0, res


@needs_robots
def test_solo12_dropped_under_pd_stands_on_its_feet_carried_by_the_floor(standing):
    """After 5 s: still (base speeds below 1e-5), the base height steady to 1e-7 m over the
    last second, each foot on the floor and nothing else, and the floor's total normal force
    equal to the weight m g to 1e-6 relative (measured: 8e-9)."""
    m, q0, res = standing
    assert res.status == "finished" and res.t[-1] == pytest.approx(5.0)
    last = res.t >= 4.0
    assert np.ptp(res.q[last, 6]) < 1e-7
    assert 0.2 < res.q[-1, 6] < q0[6]
    assert np.abs(res.u[-1]).max() < 1e-5
    feet, total = solo.foot_forces(m, res)
    weight = m.total_mass * 9.81
    assert total == pytest.approx(weight, rel=1e-6)
    assert all(f[2] > 0.1 * weight / 4 for f in feet.values())
    rec = res.contacts.at(len(res.contacts.count) - 1)
    touching = {res.contacts.shape_names[i] for pair in rec["shapes"] for i in pair}
    assert touching == {"floor"} | {f"{leg}_FOOT/collision0" for leg in solo.LEGS}


@needs_robots
def test_mujoco_stands_the_same_scene_within_millimetres(standing, tmp_path, monkeypatch):
    """MuJoCo's mj_step on the same geometry (its soft contacts, elliptic cones): it stands
    too, its base within 5 mm of ours (its contacts sink by design: 3.5 mm lower at 5 s), its
    floor carrying the weight to 1e-3. Its feet still creep apart (soft friction): the base
    sinks 0.4 mm over the last second, where ours moves less than 1e-7 m."""
    pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    m, q0, res = standing
    mm, d, z, _ = solo.run_mujoco(m, q0, 5.0)
    assert abs(z[-1] - res.q[-1, 6]) < 5e-3
    assert np.ptp(z[-1000:]) < 1e-3
    _, total = solo.mujoco_foot_forces(mm, d)
    assert total == pytest.approx(m.total_mass * 9.81, rel=1e-3)


DM_CONTACT = ["hopper", "stacker", "quadruped", "walker", "cheetah", "finger", "fish", "manipulator", "ball_in_cup",
              "humanoid"]


@pytest.mark.parametrize("name", DM_CONTACT)
def test_dm_control_suite_runs_a_second_with_contact(name, tmp_path, monkeypatch):
    """dm_control's suite models with their geoms, from the neutral pose (several start inside
    the floor: pushed out), 1 s at dt = 1 ms with contacts on (the default) and every solve
    accepted. fish's fins touch the ground through hinges that cannot move them along the
    normal (W_nn 1e-9 of W_tt): such contacts are taken out of the problem (``drop_immobile``);
    before they were, fish stopped at its first step. humanoid, sunk 7 cm into the floor at the
    start, has steps that only the softer retry solves (``retry_regularization``): warned."""
    import importlib.util
    import warnings
    dmc = importlib.util.find_spec("dm_control")
    if dmc is None:
        pytest.skip("dm_control is not installed")
    monkeypatch.chdir(tmp_path)
    path = Path(dmc.submodule_search_locations[0]) / "suite" / f"{name}.xml"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = mb.load_mjcf(str(path))
        res = mb.simulate(m, m.neutral_q(), np.zeros(m.nu), 1.0, dt=1e-3)
    assert res.status == "finished" and res.integrator == "moreau" and np.all(np.isfinite(res.q))
    if name == "humanoid":
        assert any("retry_regularization = 0.0001" in str(w.message) for w in caught)
