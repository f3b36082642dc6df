"""Collision shapes read from URDF, SDF and MJCF files (issue 21).

Checked against the files themselves, trimesh's hulls, Pinocchio's collision geometry of
Solo12 (its world placements at random q) and MuJoCo: its geom poses, and its own
collision filter (every geom of a scene overlaps every other: the pairs MuJoCo reports
contacts for are the pairs our filter allows).
"""
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import multibody as mb
from collision_scenes import shape_world_poses
from multibody.io.model_file import loads_model
from multibody.kernels.collision import layout as CL
from robots import robot_urdf, robots_dir

URDF = """<robot name="r">
  <link name="base">
    <collision name="body"><origin xyz="0 0 0.1" rpy="0 0 0.5"/><geometry><box size="0.2 0.4 0.6"/></geometry></collision>
    <collision><origin xyz="0.3 0 0"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <link name="arm">
    <collision><origin rpy="1.5707963267948966 0 0"/><geometry><cylinder radius="0.04" length="0.3"/></geometry></collision>
    <collision><geometry><capsule radius="0.03" length="0.2"/></geometry></collision>
    <collision><geometry><mesh filename="hull.stl" scale="2 2 2"/></geometry></collision>
    <collision><geometry><mesh filename="missing.stl"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def _write_mesh(folder):
    trimesh = pytest.importorskip("trimesh")
    mesh = trimesh.creation.icosphere(subdivisions=1, radius=0.05)
    mesh.export(folder / "hull.stl")
    return mesh


def test_urdf_collisions_become_shapes(tmp_path):
    ico = _write_mesh(tmp_path)
    (tmp_path / "r.urdf").write_text(URDF)
    with pytest.warns(UserWarning, match=r"1 <collision> shape\(s\) skipped.*'arm'.*missing\.stl"):
        m = mb.load_urdf(tmp_path / "r.urdf")
    names = [s.name for s in m.collision_shapes]
    assert names == ["base/body", "base/collision1", "arm/collision0", "arm/collision1", "arm/collision2"]
    box, ball, cyl, cap, hull = (s.shape for s in m.collision_shapes)
    np.testing.assert_array_equal(box.edges, [0.2, 0.4, 0.6])
    assert (ball.radius, cyl.radius, cyl.length, cap.radius, cap.length) == (0.05, 0.04, 0.3, 0.03, 0.2)
    assert len(hull.vertices) == len(ico.convex_hull.vertices)
    np.testing.assert_allclose(np.linalg.norm(hull.vertices, axis=1), 0.1, rtol=1e-6)
    np.testing.assert_allclose(m.collision_shapes[0].pose, [[np.cos(.5), -np.sin(.5), 0, 0],
                                                            [np.sin(.5), np.cos(.5), 0, 0], [0, 0, 1, .1], [0, 0, 0, 1]],
                               atol=1e-15)
    assert len(m.body("arm").collisions) == 4  # the metadata keeps every element
    c = m.compiled.contact  # base is welded to the world (link -1), but it is arm's parent: no pair
    assert set(c.si[:, CL.SI_LINK]) == {-1, 0} and c.n_pairs == 0


def test_sdf_collisions_and_surfaces(tmp_path):
    sdf = """<sdf version="1.9"><model name="m">
      <link name="a"><collision name="c"><pose>0 0 0.2 0 0 0</pose><geometry><sphere><radius>0.1</radius></sphere></geometry>
        <surface><friction><ode><mu>0.4</mu><mu2>0.5</mu2></ode></friction>
        <bounce><restitution_coefficient>0.3</restitution_coefficient></bounce>
        <contact><ode><kp>1e5</kp><kd>20</kd></ode></contact></surface></collision>
        <collision name="d"><geometry><box><size>0.1 0.2 0.3</size></box></geometry></collision></link>
      <link name="b"><pose>0 0 1 0 0 0</pose><collision name="e"><geometry><capsule><radius>0.02</radius>
        <length>0.1</length></capsule></geometry><surface><friction><ode><mu>-1</mu></ode></friction></surface>
        </collision></link>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis></joint>
    </model></sdf>"""
    (tmp_path / "m.sdf").write_text(sdf)
    with pytest.raises(ValueError, match=r"link 'b'.*'b/e'.*friction"):
        mb.load_sdf(tmp_path / "m.sdf")
    (tmp_path / "m.sdf").write_text(sdf.replace("<mu>-1</mu>", "<mu>0.9</mu>"))
    m = mb.load_sdf(tmp_path / "m.sdf")
    got = {s.name: (s.friction, s.restitution, s.shape.type_name) for s in m.collision_shapes}
    assert got == {"a/c": (0.4, 0.3, "sphere"), "a/d": (1.0, 0.0, "box"), "b/e": (0.9, 0.0, "capsule")}
    np.testing.assert_allclose(m.collision_shapes[0].pose[:3, 3], [0, 0, 0.2])
    soft = {s.name: (s.stiffness, s.damping) for s in m.collision_shapes}  # <contact><ode><kp>, <kd>: soft
    assert soft == {"a/c": (1e5, 20.0), "a/d": (None, 0.0), "b/e": (None, 0.0)}


needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")


@needs_robots
def test_solo12_collision_geometry_matches_pinocchio():
    pin = pytest.importorskip("pinocchio")
    trimesh = pytest.importorskip("trimesh")
    path = robot_urdf("solo12")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every mesh is found and read
        m = mb.load_urdf(path)
    n_elements = len(ET.parse(path).getroot().findall("link/collision"))
    pm = pin.buildModelFromUrdf(path)
    gm = pin.buildGeomFromUrdf(pm, path, pin.GeometryType.COLLISION, package_dirs=[str(robots_dir().parents[1])])
    assert len(m.collision_shapes) == n_elements == gm.ngeoms == 17
    assert all(s.shape.type_name == "mesh" for s in m.collision_shapes)
    for s, g in zip(m.collision_shapes, gm.geometryObjects):
        assert g.name.startswith(s.body.name)
        hull = trimesh.load(s.shape.source, force="mesh").convex_hull
        assert len(s.shape.vertices) == len(hull.vertices)
    rng = np.random.default_rng(3)
    gd = gm.createData()
    for _ in range(3):
        q = rng.uniform(-1.5, 1.5, m.nq)
        qp = np.zeros(pm.nq)
        for jid in range(1, pm.njoints):
            qp[pm.joints[jid].idx_q] = q[m.q_slice(pm.names[jid]).start]
        pin.updateGeometryPlacements(pm, pm.createData(), gm, gd, qp)
        ours = shape_world_poses(m, q)
        for k in range(gm.ngeoms):
            np.testing.assert_allclose(ours[k], gd.oMg[k].homogeneous, atol=1e-12)
    c = m.compiled.contact
    assert c.verts.shape == (sum(len(s.shape.vertices) for s in m.collision_shapes), 3)
    feet = [k for k, n in enumerate(c.body_names) if n.endswith("_FOOT")]
    lower = [c.body_names.index(n.replace("FOOT", "LOWER_LEG")) for n in np.array(c.body_names)[feet]]
    assert all(c.si[f, CL.SI_LINK] == c.si[k, CL.SI_LINK] for f, k in zip(feet, lower))  # welded feet


MJCF = """<mujoco><asset><mesh name="tet" vertex="0 0 0  .1 0 0  0 .1 0  0 0 .1  .02 .02 .02"/></asset>
<worldbody>
  <geom name="floor" type="plane" size="1 1 .1"/>
  <geom name="post" type="box" size=".05 .05 .05" pos="0.01 0 0"/>
  <body name="a"><freejoint/><geom name="ball" type="sphere" size=".1"/>
    <geom name="look" type="sphere" size=".1" contype="0" conaffinity="0"/>
    <body name="b"><joint type="hinge" axis="0 1 0"/><geom name="cap" type="capsule" size=".05 .1" euler="30 0 0"/>
      <body name="c"><joint type="hinge" axis="1 0 0"/><geom name="brick" type="box" size=".1 .05 .02" pos=".02 0 0"/>
        <geom name="slick" type="sphere" size=".05" condim="1" friction="0.7 0 0"/></body></body></body>
  <body name="d" pos=".03 0 0"><freejoint/><geom name="egg" type="ellipsoid" size=".1 .06 .04" friction=".6"/>
    <body name="e"><geom name="can" type="cylinder" size=".05 .1" contype="2" conaffinity="2" margin="0.001"/>
      <geom name="tet" type="mesh" mesh="tet" pos="-.03 0 0"/></body></body>
</worldbody><contact><exclude body1="a" body2="d"/></contact></mujoco>"""


@pytest.fixture
def mjcf_scene(tmp_path, monkeypatch):
    mujoco = pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scene.xml").write_text(MJCF)
    return mujoco, mujoco.MjModel.from_xml_path(str(tmp_path / "scene.xml")), tmp_path / "scene.xml"


def test_mjcf_geoms_become_shapes_at_mujocos_poses(mjcf_scene):
    mujoco, mm, path = mjcf_scene
    m = mb.load_mjcf(path)
    names = [s.name for s in m.collision_shapes]
    assert names == ["floor", "post", "ball", "cap", "brick", "slick", "egg", "can", "tet"]  # "look" is visual
    shape = {s.name: s for s in m.collision_shapes}
    assert shape["slick"].friction == 0.0 and shape["egg"].friction == 0.6 and shape["ball"].friction == 1.0
    assert shape["can"].margin == 0.001 and (shape["can"].contype, shape["can"].conaffinity) == (2, 2)
    np.testing.assert_allclose(shape["brick"].shape.edges, [0.2, 0.1, 0.04])
    assert (shape["cap"].shape.radius, shape["cap"].shape.length) == (0.05, 0.2)
    assert len(shape["tet"].shape.vertices) == 4  # MuJoCo keeps the interior vertex; the hull drops it
    d = mujoco.MjData(mm)
    rng = np.random.default_rng(4)
    for _ in range(3):
        d.qpos[:] = mm.qpos0 + rng.uniform(-1, 1, mm.nq)
        mujoco.mj_normalizeQuat(mm, d.qpos)
        mujoco.mj_kinematics(mm, d)
        ours = shape_world_poses(m, m.mjcf_map.q_from(d.qpos))
        for k, name in enumerate(names):
            g = mm.geom(name).id
            np.testing.assert_allclose(ours[k][:3, 3], d.geom_xpos[g], atol=1e-12, err_msg=name)
            np.testing.assert_allclose(ours[k][:3, :3], d.geom_xmat[g].reshape(3, 3), atol=1e-12, err_msg=name)


def test_mjcf_filter_equals_mujocos(mjcf_scene):
    """Every geom overlaps every other at qpos0: MuJoCo reports a contact for exactly the pairs
    its filters let through (contype/conaffinity, parent-child, welds, the exclude)."""
    mujoco, mm, path = mjcf_scene
    d = mujoco.MjData(mm)
    mujoco.mj_forward(mm, d)
    theirs = {frozenset((mm.geom(int(c.geom1)).name, mm.geom(int(c.geom2)).name)) for c in d.contact[:d.ncon]}
    m = mb.load_mjcf(path)
    c = m.compiled.contact
    ours = {frozenset((c.shape_names[i], c.shape_names[j])) for i, j in zip(*np.nonzero(np.triu(c.allow)))}
    assert ours == theirs
    assert frozenset(("ball", "egg")) not in ours and frozenset(("floor", "ball")) in ours  # excluded; world-free on


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_model_file_keeps_shapes_and_excludes_exactly(tmp_path, fmt):
    m = mb.Multibody()
    m.add_serial_chain("l", 3, axis=(0.2, 1.0, 0.1))
    rng = np.random.default_rng(5)
    R, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    T = np.eye(4)
    T[:3, :3] = R * np.sign(np.linalg.det(R))
    T[:3, 3] = rng.normal(size=3) / 3
    m.add_collision("world", mb.Plane(), name="floor", friction=0.3)
    m.add_collision("l0", mb.Sphere(0.1), T, restitution=0.25, margin=1e-3)
    m.add_collision("l0", mb.Capsule(0.05, 0.3), contype=3, conaffinity=6)
    m.add_collision("l1", mb.Cylinder(0.05, 0.2), T, stiffness=2e4, damping=30.0)
    m.add_collision("l1", mb.Box((0.1, 0.2, 0.3)), name="brick")
    m.add_collision("l2", mb.Ellipsoid((0.1, 0.2, 0.3)), solref=(0.01, 0.8), solimp=(0.8, 0.9, 0.002, 0.4, 3))
    m.add_collision("l2", mb.ConvexMesh(rng.normal(size=(30, 3)) / 10, source="cloud"))
    m.exclude_collision("floor", "brick")
    m.exclude_collision("l0", m.body("l2"))
    path = tmp_path / f"m.{fmt}"
    m.save(path)
    back = mb.load_model(path)
    a, b = m.compiled.contact, back.compiled.contact
    for key in ("si", "sf", "verts", "allow"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=key)
    assert b.shape_names == a.shape_names and set(back.collision_excludes) == set(m.collision_excludes)
    assert back.collision_shapes[-1].shape.source == "cloud"
    text = path.read_text().replace("0.25", "1.25")  # restitution out of range: named
    with pytest.raises(ValueError, match=r"collision_shapes\[1\].*restitution"):
        loads_model(text, fmt)


def test_mjcf_contact_features_not_mapped_are_warned_by_name(tmp_path, monkeypatch):
    pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "u.xml").write_text("""<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1"/>
      <body name="a"><freejoint/><geom name="soft" size=".1" solref="0.01 1"/><geom name="roll" size=".1" condim="6"/>
      </body></worldbody><contact><pair name="p" geom1="floor" geom2="soft"/></contact></mujoco>""")
    with pytest.warns(mb.io.mjcf.MjcfWarning) as rec:
        m = mb.load_mjcf(tmp_path / "u.xml")
    text = " ".join(str(w.message) for w in rec)
    assert "condim" in text and "'roll'" in text and "'soft'" not in text  # (solref is mapped)
    assert "<pair>" in text and "'p'" in text
    assert [s.name for s in m.collision_shapes] == ["floor", "soft", "roll"]
    soft = m.collision_shapes[1]
    assert soft.solref == (0.01, 1.0) and soft.solimp == (0.9, 0.95, 0.001, 0.5, 2.0)
    assert m.collision_shapes[0].solref == (0.02, 1.0)  # one soft geom: all soft, as in MuJoCo (pairs mix)
    (tmp_path / "off.xml").write_text("""<mujoco><option><flag contact="disable"/></option><worldbody>
      <geom type="plane" size="1 1 .1"/><body><freejoint/><geom size=".1"/></body></worldbody></mujoco>""")
    assert mb.load_mjcf(tmp_path / "off.xml").compiled.contact is None  # MuJoCo's contacts off: no shapes


@needs_robots
def test_solo12_geometry_in_mujoco_via_interop(tmp_path, monkeypatch):
    """mujoco_from_urdf(collisions=m): MuJoCo's geoms sit where our shapes are (a mesh's
    vertices in the world: MuJoCo re-centres meshes), with our filter bits and friction."""
    mujoco = pytest.importorskip("mujoco")
    from scipy.spatial import cKDTree
    from multibody.interop import MujocoLayout, mujoco_from_urdf
    monkeypatch.chdir(tmp_path)
    path = robot_urdf("solo12")
    m = mb.load_urdf(path, floating_base="quaternion")
    m.add_collision("world", mb.Plane(), name="floor", friction=0.8)
    m.collision_shape("FL_FOOT/collision0").contype = 2
    mm = mujoco_from_urdf(path, collisions=m)
    assert mm.ngeom == len(m.collision_shapes) == 18
    layout = MujocoLayout(m, mm)
    d = mujoco.MjData(mm)
    q = m.neutral_q()
    q[7:] = np.random.default_rng(6).uniform(-1, 1, m.nq - 7)
    q[4:7] = (0.1, -0.2, 0.3)
    d.qpos[:] = layout.q_to(q)
    mujoco.mj_kinematics(mm, d)
    ours = shape_world_poses(m, q)
    for k, s in enumerate(m.collision_shapes):
        g = mm.geom(f"collision{k}").id
        assert (mm.geom_contype[g], mm.geom_friction[g, 0]) == (s.contype, s.friction)
        if s.shape.type_name != "mesh":
            np.testing.assert_allclose(d.geom_xpos[g], ours[k][:3, 3], atol=1e-12)
            continue
        mid = mm.geom_dataid[g]
        v = mm.mesh_vert[mm.mesh_vertadr[mid]:mm.mesh_vertadr[mid] + mm.mesh_vertnum[mid]]
        theirs = v @ d.geom_xmat[g].reshape(3, 3).T + d.geom_xpos[g]
        mine = s.shape.vertices @ ours[k][:3, :3].T + ours[k][:3, 3]
        # MuJoCo stores mesh vertices as float32 (about 6e-8 relative): 3e-8 m on 0.2 m
        assert cKDTree(theirs).query(mine)[0].max() < 3e-8 and len(theirs) == len(mine)


@pytest.mark.parametrize("model_flag, link_flag, touch", [
    ("", "", False), ("<self_collide>true</self_collide>", "", True),
    ("", "<self_collide>1</self_collide>", True), ("<self_collide>1</self_collide>", "<self_collide>0</self_collide>", True)])
def test_sdf_self_collide(tmp_path, model_flag, link_flag, touch):
    """SDFormat: links of one model touch when either self-collides (a link's flag, else the
    model's, default false); a and c are not parent and child, so only that rule parts them."""
    links = "".join(f"""<link name="{n}"><pose>0 0 {z} 0 0 0</pose>{link_flag if n == 'c' else ''}<collision name="s">
        <geometry><sphere><radius>0.1</radius></sphere></geometry></collision></link>""" for n, z in (("a", 0), ("b", 1), ("c", 2)))
    joints = "".join(f"""<joint name="{p}{c}" type="revolute"><parent>{p}</parent><child>{c}</child><axis><xyz>1 0 0</xyz>
        </axis></joint>""" for p, c in (("a", "b"), ("b", "c")))
    (tmp_path / "m.sdf").write_text(f'<sdf version="1.9"><model name="m">{model_flag}{links}{joints}</model></sdf>')
    c = mb.load_sdf(tmp_path / "m.sdf").compiled.contact
    assert bool(c.allow[0, 2]) == touch and c.n_pairs == int(touch)


@needs_robots
def test_fixed_base_pairs_reach_mujoco_as_excludes(tmp_path, monkeypatch):
    mujoco = pytest.importorskip("mujoco")
    from multibody.interop import mujoco_from_urdf
    monkeypatch.chdir(tmp_path)
    path = robot_urdf("ur5")
    m = mb.load_urdf(path)
    c = m.compiled.contact
    k = [c.body_names.index(n) for n in ("base_link", "shoulder_link")]
    assert not c.allow[k[0], k[1]]  # a fixed base and its first link: parent and child
    mm = mujoco_from_urdf(path, floating_base=False, collisions=m)
    names = {(mm.body(int(s) >> 16).name, mm.body(int(s) & 0xFFFF).name) for s in mm.exclude_signature}
    assert ("world", "shoulder_link") in names or ("base_link", "shoulder_link") in names


def test_sdf_plane_takes_its_normal(tmp_path):
    (tmp_path / "g.sdf").write_text("""<sdf version="1.9"><model name="ground"><static>true</static>
      <link name="slab"><collision name="c"><pose>0 0 -1 0 0 0</pose><geometry><plane><normal>0 1 1</normal>
      <size>10 10</size></plane></geometry><surface><friction><ode><mu>0.7</mu></ode></friction></surface>
      </collision></link></model></sdf>""")
    s, = mb.load_sdf(tmp_path / "g.sdf").collision_shapes
    assert s.shape == mb.Plane() and s.friction == 0.7
    np.testing.assert_allclose(s.pose[:3, 2], np.array([0, 1, 1]) / np.sqrt(2), atol=1e-15)
    np.testing.assert_allclose(s.pose[:3, 3], [0, 0, -1])
