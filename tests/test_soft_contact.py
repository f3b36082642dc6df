"""Soft contact surfaces (issue 21): a spring-damper in the contact normal (``stiffness``,
``damping``; SDF's ``<kp>``/``<kd>``) and MuJoCo's soft constraint (``solref``, ``solimp``
from MJCF geoms), per shape and combined per pair (``contact_step.soft_targets``,
``detect.pair_softness``).

* A ball of mass m on a surface of stiffness k rests at depth m g / k (the implicit spring's
  fixed point is exact), also 1e5 m from the origin.
* Dropped on an undamped surface from height h, it reaches the depth x of energy balance,
  m g (h + x) = k x^2 / 2 (implicit Euler's damping is O(h omega): 1e-2 at dt = 1e-4).
* Two soft shapes touch like springs in series: k = k_a k_b / (k_a + k_b).
* solref/solimp: the ball's resting depth equals MuJoCo's own (mj_step on the same MJCF,
  elliptic cones), for time-constant and direct-stiffness solrefs and a non-default solimp.
* Friction stays hard on a soft surface: a cube on a 30 degree incline with mu = 0.7 holds,
  sunk by its normal load over its four corner springs.
"""
import math

import numpy as np
import pytest

import multibody as mb

G = 9.81
R = 0.1


def _ball(shift=(0.0, 0.0, 0.0), floor=None, **soft):
    m = mb.Multibody()
    m.add_body("ball", mass=1.0, inertia=[0.4 * R * R, 0, 0, 0.4 * R * R, 0, 0.4 * R * R])
    m.add_hinge("world", "ball", kind="free_quat")
    T = np.eye(4)
    T[:3, 3] = shift
    m.add_collision("world", mb.Plane(), T, name="floor", **(floor or {}))
    m.add_collision("ball", mb.Sphere(R), **soft)
    return m


def _drop(m, height, T, dt=1e-3, shift=(0.0, 0.0, 0.0)):
    q0 = np.r_[0.0, 0.0, 0.0, 1.0, np.asarray(shift, float) + [0, 0, R + height]]
    res = mb.simulate(m, q0, np.zeros(6), T, dt=dt, contact_output=True)
    return res, res.q[:, 6] - shift[2] - R


@pytest.mark.parametrize("shift", [(0.0, 0.0, 0.0), (1e5, -1e5, 1e5)])
def test_spring_damper_surface_rests_at_m_g_over_k(shift):
    k, c = 1e4, 100.0
    res, depth = _drop(_ball(shift, stiffness=k, damping=c), 0.05, 3.0, shift=shift)
    assert depth[-1] == pytest.approx(-G / k, rel=1e-6)
    assert res.contacts.total_force()[-1, 2] == pytest.approx(G, rel=1e-6)
    assert np.ptp(depth[res.t > 2.5]) < 1e-9
    assert depth.min() < -2 * G / k  # it went in deeper on landing: a spring, not a hard stop


def test_undamped_surface_reaches_the_energy_balance_depth():
    k, h = 1e4, 0.05
    _, depth = _drop(_ball(stiffness=k), h, 0.2, dt=1e-4)
    x = (G + math.sqrt(G * G + 2 * k * G * h)) / k  # m g (h + x) = k x^2 / 2, m = 1
    assert -depth.min() == pytest.approx(x, rel=2e-2)


def test_two_soft_shapes_act_as_springs_in_series():
    ka, kb = 3e4, 6e4
    res, depth = _drop(_ball(floor=dict(stiffness=kb, damping=50.0), stiffness=ka, damping=50.0), 0.0, 2.0)
    assert depth[-1] == pytest.approx(-G * (ka + kb) / (ka * kb), rel=1e-6)


MJCF = """<mujoco><option gravity="0 0 -9.81" timestep="0.001" cone="elliptic"/><worldbody>
<geom name="floor" type="plane" size="0 0 1"/>
<body name="ball" pos="0 0 0.12"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="0.004 0.004 0.004"/>
<geom name="ball" type="sphere" size="0.1" {soft}/></body></worldbody></mujoco>"""


@pytest.mark.parametrize("soft", ['solref="0.05 0.7"', 'solref="-20000 -50"',
                                  'solref="0.03 1" solimp="0.8 0.99 0.01 0.3 3"'])
def test_mjcf_solref_solimp_rest_as_deep_as_in_mujoco(tmp_path, monkeypatch, soft):
    mujoco = pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    xml = MJCF.format(soft=soft)
    (tmp_path / "ball.xml").write_text(xml)
    mm = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mm)
    for _ in range(3000):
        mujoco.mj_step(mm, d)
    theirs = d.qpos[2] - R
    m = mb.load_mjcf(tmp_path / "ball.xml")
    assert m.collision_shapes[1].solref == tuple(mm.geom_solref[1])
    q0 = np.r_[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.12]
    res = mb.simulate(m, q0, np.zeros(6), 3.0, dt=1e-3)
    ours = res.q[-1, 6] - R
    assert theirs < -1e-5  # (soft: visibly in the floor)
    assert ours == pytest.approx(theirs, rel=1e-6)


def test_friction_stays_hard_on_a_soft_incline():
    """Coulomb's hold on a soft surface: the normal is a spring, the friction rows are not
    (a compliant tangent would let the cube creep at its load times the compliance)."""
    th = math.radians(30.0)
    m = mb.Multibody()
    m.add_body("box", mass=1.0, inertia=[1 / 600, 0, 0, 1 / 600, 0, 1 / 600])
    m.add_hinge("world", "box", kind="free_quat")
    Rt = np.array([[math.cos(th), 0, math.sin(th)], [0, 1, 0], [-math.sin(th), 0, math.cos(th)]])
    T = np.eye(4)
    T[:3, :3] = Rt
    m.add_collision("world", mb.Plane(), T, name="floor", friction=0.7, stiffness=2e4, damping=200.0)
    m.add_collision("box", mb.Box((0.1, 0.1, 0.1)), friction=0.7)
    q0 = np.r_[0.0, math.sin(th / 2), 0.0, math.cos(th / 2), Rt @ [0, 0, 0.05]]
    res = mb.simulate(m, q0, np.zeros(6), 1.0, dt=1e-3)
    along = (res.q[:, 4:7] @ Rt)[:, 0]
    normal = (res.q[:, 4:7] @ Rt)[:, 2]
    assert abs(along[-1] - along[len(along) // 2]) < 1e-6  # held after the landing: no creep
    # four corner springs (1e-3: the friction's moment loads the lower corners more and tilts the cube)
    assert 0.05 - normal[-1] == pytest.approx(G * math.cos(th) / (4 * 2e4), rel=1e-3)


@pytest.mark.parametrize("kw, match", [
    (dict(stiffness=-1.0), "stiffness"), (dict(stiffness=0.0), "stiffness"), (dict(damping=-1.0), "damping"),
    (dict(solref=(0.02,)), "solref"), (dict(solref=(0.02, -1.0)), "solref"), (dict(solref=(0.0, 0.0)), "solref"),
    (dict(solref=(0.02, 1.0), solimp=(0.9, 1.5, 0.001, 0.5, 2)), "solimp"),
])
def test_bad_soft_parameters_are_named(kw, match):
    m = _ball()
    with pytest.raises(ValueError, match=rf"'ball/collision1'.*{match}|{match}.*'ball/collision1'"):
        m.add_collision("ball", mb.Sphere(R), name="ball/collision1", **kw)


@pytest.mark.parametrize("kw, match", [(dict(damping=5.0), "damping 5 needs a stiffness"),
                                       (dict(stiffness=1e4, solref=(0.02, 1.0)), "not both")])
def test_soft_parameters_that_do_not_go_together_are_named_when_compiled(kw, match):
    m = _ball()
    m.add_collision("ball", mb.Sphere(R), name="odd", **kw)
    with pytest.raises(ValueError, match=rf"'odd'.*{match}"):
        m.compiled


def test_mujoco_export_carries_solref_and_refuses_stiffness():
    mujoco = pytest.importorskip("mujoco")
    from multibody.interop._mujoco_geoms import add_collision_geoms
    m = _ball(solref=(0.01, 0.5))
    spec = mujoco.MjSpec()
    spec.worldbody.add_body(name="ball")
    add_collision_geoms(spec, m)
    assert list(spec.geom("collision1").solref) == [0.01, 0.5]
    with pytest.raises(ValueError, match="'ball/collision0'.*stiffness"):
        add_collision_geoms(mujoco.MjSpec(), _ball(stiffness=1e4))


def test_load_mjcf_contact_softness_reads_soft_hard_or_as_the_file_says(tmp_path, monkeypatch):
    """contact_softness="mujoco" reads a file that sets no solref as MuJoCo runs it (its
    defaults: the ball rests as deep as in mj_step); "hard" ignores solref (Coulomb's closed
    forms); "auto" follows the file; anything else is named."""
    mujoco = pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    plain = MJCF.format(soft="")
    (tmp_path / "plain.xml").write_text(plain)
    (tmp_path / "soft.xml").write_text(MJCF.format(soft='solref="0.05 0.7"'))
    assert all(s.solref is None for s in mb.load_mjcf(tmp_path / "plain.xml").collision_shapes)
    assert all(s.solref is None for s in mb.load_mjcf(tmp_path / "soft.xml", contact_softness="hard").collision_shapes)
    m = mb.load_mjcf(tmp_path / "plain.xml", contact_softness="mujoco")
    assert [s.solref for s in m.collision_shapes] == [(0.02, 1.0)] * 2
    mm = mujoco.MjModel.from_xml_string(plain)
    d = mujoco.MjData(mm)
    for _ in range(3000):
        mujoco.mj_step(mm, d)
    res = mb.simulate(m, np.r_[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.12], np.zeros(6), 3.0, dt=1e-3)
    assert res.q[-1, 6] - R == pytest.approx(d.qpos[2] - R, rel=1e-6)
    with pytest.raises(ValueError, match="contact_softness"):
        mb.load_mjcf(tmp_path / "plain.xml", contact_softness="soft")
