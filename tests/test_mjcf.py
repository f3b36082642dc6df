"""MJCF import (``mb.load_mjcf``) against MuJoCo: mass matrix (armature included), bias
forces, body and site poses at random states, on models written here, the MJCF files that
ship with MuJoCo's Python package and, when installed, dm_control's suite."""
import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.io.mjcf import MjcfWarning

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
SUMMARY = {}   # file -> "maps: ..." or "does not map: why"

# Nested bodies with several joints per body (shared and distinct anchors), hinge, slide,
# ball and free joints, joint ref, armature, default classes, inertiafromgeom, sites.
CHAIN = """<mujoco model="chain"><compiler angle="radian" inertiafromgeom="true"/>
 <option gravity="0.3 -0.2 -9.7"/>
 <default><joint armature="0.05" damping="0.2"/><geom type="capsule" size="0.05" density="800"/>
  <default class="stiff"><joint stiffness="3" springref="0.2" armature="0.3"/></default></default>
 <worldbody><site name="origin" pos="0 0 1"/>
  <body name="base" pos="0 0 1" quat="0.9 0.1 0.3 0.2">
   <joint name="rx" type="hinge" axis="1 0 0" pos="0 0 0.1" ref="0.4" class="stiff"/>
   <joint name="ry" type="hinge" axis="0 1 1" pos="0 0 0.1" ref="-0.3"/>
   <joint name="sz" type="slide" axis="0.2 0 1" ref="0.15"/>
   <geom fromto="0 0 0 0.4 0.1 0"/><site name="tip" pos="0.4 0.1 0" quat="0 1 0 0"/>
   <body name="elbow" pos="0.4 0.1 0" euler="0.2 0.1 -0.4">
    <joint name="e1" type="hinge" axis="0 0 1" pos="0.05 0 0" ref="0.7"/>
    <joint name="eb" type="ball" pos="0.05 0 0.02"/>
    <joint name="e2" type="slide" axis="1 0 1" ref="0.1"/>
    <geom type="box" size="0.1 0.05 0.2" pos="0.1 0 0"/>
    <body pos="0.2 0 0"><joint name="h1" axis="0 1 0"/><joint name="h2" axis="0 0 1" pos="0.1 0 0"/>
     <geom type="sphere" size="0.1"/></body>
   </body>
   <body name="wrist" pos="-0.2 0 0"><joint type="ball" pos="0 0.1 0" armature="0.02"/>
    <joint type="slide" axis="1 0 0" ref="-0.2" class="stiff"/>
    <geom type="ellipsoid" size="0.1 0.2 0.05"/>
   </body>
  </body>
  <body name="puck" pos="1 1 0.5" euler="0.3 0.2 0.1"><freejoint name="puck"/>
   <inertial pos="0.1 0 0" quat="0.8 0.2 0.1 0.3" mass="2" diaginertia="0.1 0.2 0.25"/>
   <body name="arm"><joint name="pa" type="hinge" axis="0 1 0" pos="0.3 0 0"/>
    <geom fromto="0.3 0 0 0.3 0 0.5"/></body>
  </body>
 </worldbody></mujoco>"""
UNMAPPED = """<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1"/>
 <body name="a"><joint name="j" type="hinge" frictionloss="0.1"/><geom name="g" size="0.1"/></body>
 <body name="b" pos="1 0 0"><joint name="k" type="slide"/><geom size="0.1" contype="0" conaffinity="0"/></body>
 </worldbody><tendon><fixed name="t"><joint joint="j" coef="1"/><joint joint="k" coef="1"/></fixed></tendon>
 <equality><joint name="eq" joint1="j" joint2="k"/></equality>
 <actuator><motor name="m" joint="j"/><motor name="mt" tendon="t"/></actuator></mujoco>"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def random_qpos(mm, rng):
    """qpos0 plus noise, with random unit quaternions for ball and free joints."""
    qpos = mm.qpos0 + 0.5 * rng.standard_normal(mm.nq)
    for j in range(mm.njnt):
        if mm.jnt_type[j] in (0, 1):
            a = mm.jnt_qposadr[j] + (3 if mm.jnt_type[j] == 0 else 0)
            quat = rng.standard_normal(4)
            qpos[a:a + 4] = quat / np.linalg.norm(quat)
    return qpos


def rel(a, b):
    return float(np.abs(a - b).max() / max(1.0, np.abs(b).max())) if np.size(b) else 0.0


def compare(path, trials=3, seed=7):
    """Load ``path`` both ways; the worst relative differences of M, bias and poses."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MjcfWarning)
        m = mb.load_mjcf(path)
    mm = mujoco.MjModel.from_xml_path(str(path))
    md, L, rng = mujoco.MjData(mm), m.mjcf_map, np.random.default_rng(seed)
    assert (m.nu, len(m.mjcf_map.joints)) == (mm.nv, mm.njnt)
    worst = dict(M=0.0, bias=0.0, pose=0.0)
    M = np.zeros((mm.nv, mm.nv))
    for _ in range(trials if mm.nv else 0):
        qpos, qvel = random_qpos(mm, rng), rng.standard_normal(mm.nv)
        md.qpos[:], md.qvel[:] = qpos, qvel
        mujoco.mj_forward(mm, md)
        mujoco.mj_fullM(mm, md, M)
        q, u = L.q_from(qpos), L.v_from(qpos, qvel)
        assert np.array_equal(L.q_to(q), qpos)
        np.testing.assert_allclose(L.v_to(q, u), qvel, rtol=0, atol=1e-14)
        worst["M"] = max(worst["M"], rel(L.mass_matrix_to(q, m.mass_matrix(q)), M))
        # qfrc_bias is the inverse dynamics at qacc = 0 (not udot = 0 for a free joint)
        udot0 = L.a_from(qpos, qvel, np.zeros(mm.nv))
        worst["bias"] = max(worst["bias"], rel(L.tau_to(q, m.inverse_dynamics(q, u, udot0)), md.qfrc_bias))
        for b in m.bodies:
            if b.name in mm.names.decode(errors="ignore").split("\0") and "__" not in b.name:
                T = m.body_pose(q, b.name)
                i = mm.body(b.name).id
                worst["pose"] = max(worst["pose"], rel(T[:3, :3], md.xmat[i].reshape(3, 3)),
                                    rel(T[:3, 3], md.xpos[i]))
        for i in range(mm.nsite):
            if mm.site(i).name:
                T = m.body_pose(q, mm.site(i).name if mm.site(i).name not in m.body_names
                                else mm.site(i).name + "_site")
                worst["pose"] = max(worst["pose"], rel(T[:3, 3], md.site_xpos[i]),
                                    rel(T[:3, :3], md.site_xmat[i].reshape(3, 3)))
    return m, worst


def check(path):
    m, worst = compare(path)
    SUMMARY[Path(path).name] = f"maps (nu={m.nu}): " + ", ".join(f"{k} {v:.1e}" for k, v in worst.items())
    print(f"{Path(path).name}: {SUMMARY[Path(path).name]}; unmapped: {m.mjcf_unmapped}")
    assert max(worst.values()) < TOL, (path, worst)
    return m


def test_chain_model_matches_mujoco(tmp_path):
    m = check(write(tmp_path, "chain.xml", CHAIN))
    # several joints in one body -> one hinge of subhinges named after the joints
    assert [s.name for s in m.hinge("base_hinge").subhinges] == ["rx", "ry", "sz"]
    assert "elbow__e1" in m.body_names            # a ball after a hinge with ref: own hinge
    assert "body3__h1" in m.body_names            # hinges with distinct anchors: own hinges
    assert m.hinge("puck").subhinges[0].kind == "free_quat"
    assert np.allclose(m.gravity, [0.3, -0.2, -9.7])
    assert m.hinge("base_hinge").armature.tolist() == [0.3, 0.05, 0.05]
    assert {"origin", "tip"} <= set(m.node_names) and "site2" not in m.node_names
    # ref: at MuJoCo's qpos0 our model is in the file's pose
    mm = mujoco.MjModel.from_xml_path(str(tmp_path / "chain.xml"))
    q0 = m.mjcf_map.q_from(mm.qpos0)
    assert np.allclose(m.body_pose(q0, "base")[:3, 3], [0, 0, 1])
    # damping on every joint, springs on the "stiff" ones: the hinge's, one value per speed
    h = m.hinge("base_hinge")
    assert m.hinge("pa").damping == (0.2,) and h.damping == (0.2, 0.2, 0.2)
    assert h.spring_stiffness == (3.0, 0.0, 0.0) and h.spring_reference[0] == 0.2
    assert m.mjcf_forces == () and not any("stiffness" in s for s in m.mjcf_unmapped)


@pytest.mark.filterwarnings("ignore::multibody.io.mjcf.MjcfWarning")
def test_springs_and_limits_are_mapped(tmp_path):
    p = write(tmp_path, "spring.xml", """<mujoco><compiler angle="radian"/><worldbody><body><joint name="h" type="hinge"
        stiffness="5" damping="0.5" springref="0.3" range="-1 2" limited="true"/>
        <geom size="0.1"/></body></worldbody></mujoco>""")
    m = mb.load_mjcf(p)
    h = m.hinge("h")
    assert (h.spring_stiffness, h.damping, h.spring_reference) == ((5.0,), (0.5,), (0.3,))
    assert m.hinge("h").lower == (-1.0,) and m.hinge("h").upper == (2.0,)


def test_unmapped_elements_are_warned_by_name(tmp_path):
    with pytest.warns(MjcfWarning) as rec:
        m = mb.load_mjcf(write(tmp_path, "u.xml", UNMAPPED))
    text = " ".join(str(w.message) for w in rec)
    for word in ("tendon", "'t'", "equality", "'eq'", "actuator (a transmission other than a joint)", "'mt'"):
        assert word in text
    assert "contact" not in text  # the colliding geoms are collision shapes now; the visual-only one is not
    assert [s.name for s in m.collision_shapes] == ["floor", "g"]
    assert len(m.mjcf_unmapped) == len(rec)
    # the joint's motor and its friction loss are mapped
    assert [a.name for a in m.actuators] == ["m"] and m.hinge("j").friction == (0.1,)


def test_bad_input(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.xml"):
        mb.load_mjcf(tmp_path / "nope.xml")
    bad = write(tmp_path, "bad.xml", "<mujoco><worldbody><body><joint type='twist'/></body></worldbody></mujoco>")
    with pytest.raises(ValueError, match=r"bad\.xml.*twist"):
        mb.load_mjcf(bad)
    nested_free = write(tmp_path, "nf.xml", """<mujoco><worldbody><body name="a"><joint/><geom size=".1"/>
        <body name="b"><freejoint/><geom size=".1"/></body></body></worldbody></mujoco>""")
    with pytest.raises(ValueError, match=r"nf\.xml.*free joint"):
        mb.load_mjcf(nested_free)


@pytest.mark.filterwarnings("ignore::multibody.io.mjcf.MjcfWarning")
def test_load_model_dispatches_xml(tmp_path):
    m = mb.load_model(write(tmp_path, "chain.xml", CHAIN))
    assert m.nu == mujoco.MjModel.from_xml_string(CHAIN).nv


def _xml_files(folder):
    return sorted(str(p) for p in Path(folder).glob("*.xml"))


SHIPPED = _xml_files(Path(mujoco.__path__[0]) / "testdata")
_dmc = importlib.util.find_spec("dm_control")
DM_SUITE = _xml_files(Path(_dmc.submodule_search_locations[0]) / "suite") if _dmc else []


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_models_shipped_with_mujoco(path):
    check(path)


@pytest.mark.skipif(not DM_SUITE, reason="dm_control is not installed")
@pytest.mark.parametrize("path", DM_SUITE or [None], ids=lambda p: Path(p).name if p else "none")
def test_dm_control_suite(path, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)   # MuJoCo writes MUJOCO_LOG.TXT (deprecation notes) to the cwd
    try:
        mujoco.MjModel.from_xml_path(path)
    except ValueError as e:   # MuJoCo refuses the file: no comparison, say why
        SUMMARY[Path(path).name] = f"does not map: MuJoCo refuses it ({e})"
        pytest.skip(SUMMARY[Path(path).name])
    check(path)


#: suite models whose damping on very light bodies is too stiff for explicit RK4 at dt = 1 ms:
#: dog's scapulae and tail (time constants ~1e-5 s), the manipulator's and stacker's finger
#: tips (inertia 7e-8 kg m^2 against damping 0.01); MuJoCo and (by default) we take it implicitly
STIFF_AT_1_MS = {"dog.xml", "manipulator.xml", "stacker.xml"}


@pytest.mark.skipif(not DM_SUITE, reason="dm_control is not installed")
@pytest.mark.parametrize("path", DM_SUITE or [None], ids=lambda p: Path(p).name if p else "none")
def test_dm_control_suite_simulates_with_its_forces(path, monkeypatch, tmp_path):
    """1 s with the joints' springs, damping and friction and the actuators at zero control (on
    by default) at rest from the neutral pose: RK4 at 1 ms runs every suite model, the stiff
    damping of light bodies implicit (``implicit_damping="auto"``). With it explicit, the stiff
    ones stop with an error that says the step blew up and names the hinge (dog.xml used to
    raise a bare ZeroDivisionError: its state passed 1e200 and a quaternion's norm overflowed),
    and the others run as before."""
    monkeypatch.chdir(tmp_path)
    name = Path(path).name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = mb.load_mjcf(path)
    q0, u0 = m.neutral_q(), np.zeros(m.nu)
    res = mb.simulate(m, q0, u0, 1.0, dt=1e-3, contact=False)  # (not about contact)
    assert res.t[-1] == pytest.approx(1.0) and np.all(np.isfinite(res.u))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (the warning names the stiff hinge too)
            mb.simulate(m, q0, u0, 1.0, dt=1e-3, implicit_damping=False, contact=False)
    except mb.SimulationError as e:
        assert name in STIFF_AT_1_MS, f"{name}: {e}"
        assert re.search(r"(blew up|became non-finite) at t = .*hinge '\w+'", str(e)), str(e)
        assert "smaller dt" in str(e) and len(e.result.t) >= 2
    else:
        assert name not in STIFF_AT_1_MS, f"{name} now runs at 1 ms with explicit damping: take it off STIFF_AT_1_MS"


def test_print_summary(capsys):
    """The list of what maps and what does not (meaningful after the tests above)."""
    with capsys.disabled():
        for name, line in sorted(SUMMARY.items()):
            print(f"  MJCF {name}: {line}")


def test_geoms_become_visuals_the_viewer_draws():
    """MuJoCo's own test model: box, capsule, cylinder and mesh geoms as body visuals."""
    import os
    import warnings
    mujoco = pytest.importorskip("mujoco")
    pytest.importorskip("trimesh")
    from multibody.viz._geometry import visual_meshes
    path = os.path.join(os.path.dirname(mujoco.__file__), "testdata", "model.xml")
    if not os.path.exists(path):
        pytest.skip("MuJoCo's testdata/model.xml is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = mb.load_mjcf(path)
    bodies = [m.world] + [m.body(n) for n in m.body_names]
    kinds = {v["type"] for b in bodies for v in (getattr(b, "visuals", None) or [])}
    assert {"box", "capsule", "cylinder", "trimesh"} <= kinds
    drawn = [mesh for b in bodies for mesh in visual_meshes(b)]
    assert len(drawn) >= 14 and all(v.shape[1] == 3 and len(f) > 0 for _, v, f, *_ in drawn)
