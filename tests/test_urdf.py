"""URDF loader: mapping, metadata, error handling, package:// resolution, and every
robot description of example-robot-data cross-checked against Pinocchio."""
import time
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import multibody as mb
from multibody.io.urdf import load_urdf, load_urdf_string, resolve_uri
from multibody.spatial.rpy import rpy_to_matrix
from robots import robots_dir, urdf, urdf_files

pin = pytest.importorskip("pinocchio")

TINY = """<?xml version="1.0"?>
<robot name="tiny">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <inertial>
      <origin xyz="0 0 0.05"/>
      <mass value="2"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/>
    </inertial>
    <visual>
      <origin xyz="0 0 0.05" rpy="0 0 0.5"/>
      <geometry><box size="0.1 0.2 0.1"/></geometry>
      <material name="blue"/>
    </visual>
    <collision><geometry><cylinder radius="0.05" length="0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial>
      <origin xyz="0.1 0.02 -0.03" rpy="0.3 -0.5 0.7"/>
      <mass value="1.5"/>
      <inertia ixx="0.01" ixy="0.001" ixz="-0.002" iyy="0.02" iyz="0.003" izz="0.03"/>
    </inertial>
  </link>
  <link name="slider">
    <inertial>
      <origin xyz="0.05 0 0.01" rpy="1.0 0.2 -0.4"/>
      <mass value="0.7"/>
      <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.006"/>
    </inertial>
  </link>
  <link name="tool">
    <inertial>
      <origin xyz="0 0.01 0.02" rpy="0.1 0.2 0.3"/>
      <mass value="0.2"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.0005"/>
    </inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0.1 0.2 0.3"/>
    <axis xyz="0 1 1"/>
    <limit lower="-1.5" upper="2.0" effort="30" velocity="4"/>
    <dynamics damping="0.1" friction="0.05"/>
  </joint>
  <joint name="extend" type="prismatic">
    <parent link="upper"/>
    <child link="slider"/>
    <origin xyz="0.3 0 0" rpy="0 0.4 0"/>
    <axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" effort="100" velocity="0.5"/>
    <mimic joint="shoulder" multiplier="0.5"/>
  </joint>
  <joint name="tool_joint" type="fixed">
    <parent link="slider"/>
    <child link="tool"/>
    <origin xyz="0.1 0 0" rpy="0 0 1.57"/>
  </joint>
</robot>
"""


def _pin_sym(M):
    return np.triu(M) + np.triu(M, 1).T


# ---------------------------------------------------------------------- the small robot
def test_tiny_structure_and_metadata():
    m = load_urdf_string(TINY)
    assert isinstance(m, mb.Multibody)
    assert m.name == "tiny"
    assert (m.nq, m.nu) == (2, 2)
    assert m.hinge_names == ["shoulder", "extend"]  # fixed joints own no coordinates
    assert [h.name for h in m.hinges] == ["root_joint", "shoulder", "extend", "tool_joint"]
    assert m.body_names == ["base", "upper", "slider", "tool"]
    assert np.allclose(m.gravity, [0, 0, -9.81])
    root = m.hinge("root_joint")
    assert root.kind == "locked" and root.parent is m.world and root.child.name == "base"

    sh = m.hinge("shoulder")
    assert sh.kind == "pin" and sh.urdf_type == "revolute"
    assert np.allclose(sh.subhinges[0].axis, np.array([0, 1, 1]) / np.sqrt(2))
    assert (sh.lower, sh.upper, sh.effort, sh.velocity) == (-1.5, 2.0, 30.0, 4.0)
    assert (sh.damping, sh.friction) == (0.1, 0.05)
    assert sh.mimic is None
    assert np.allclose(sh.T_parent_joint[:3, :3], rpy_to_matrix([0.1, 0.2, 0.3]))
    assert np.allclose(sh.T_parent_joint[:3, 3], [0, 0, 0.1])
    assert np.allclose(sh.T_child_joint, np.eye(4))

    ex = m.hinge("extend")
    assert ex.kind == "slider" and (ex.lower, ex.upper) == (0.0, 0.2)
    assert (ex.damping, ex.friction) == (0.0, 0.0)
    assert ex.mimic == {"joint": "shoulder", "multiplier": 0.5, "offset": 0.0}
    assert m.hinge("tool_joint").kind == "locked" and m.hinge("tool_joint").lower is None

    up = m.body("upper")
    R = rpy_to_matrix([0.3, -0.5, 0.7])
    I = np.array([[0.01, 0.001, -0.002], [0.001, 0.02, 0.003], [-0.002, 0.003, 0.03]])
    assert up.mass == 1.5 and np.allclose(up.com, [0.1, 0.02, -0.03])
    assert np.allclose(up.inertia, R @ I @ R.T)

    base = m.body("base")
    (vis,) = base.visuals
    assert vis["type"] == "box" and np.allclose(vis["size"], [0.1, 0.2, 0.1])
    assert np.allclose(vis["origin"][:3, 3], [0, 0, 0.05])
    assert np.allclose(vis["origin"][:3, :3], rpy_to_matrix([0, 0, 0.5]))
    assert vis["material"] == "blue" and np.allclose(vis["rgba"], [0, 0, 1, 1])
    (col,) = base.collisions
    assert col["type"] == "cylinder" and (col["radius"], col["length"]) == (0.05, 0.1)
    assert m.body("tool").visuals == [] and m.body("tool").collisions == []


def test_tiny_dynamics_match_pinocchio():
    m = load_urdf_string(TINY)
    pm = pin.buildModelFromXML(TINY)
    pd = pm.createData()
    assert [pm.names[i] for i in range(1, pm.njoints)] == ["shoulder", "extend"]
    rng = np.random.default_rng(1)
    for _ in range(3):
        q = rng.uniform(-1, 1, 2)
        assert np.allclose(m.mass_matrix(q), _pin_sym(pin.crba(pm, pd, q)), atol=1e-12)
        assert np.allclose(m.gravity_forces(q), pin.computeGeneralizedGravity(pm, pd, q), atol=1e-12)
        pin.framesForwardKinematics(pm, pd, q)
        for link in ("base", "upper", "slider", "tool"):
            T = pd.oMf[pm.getFrameId(link, pin.FrameType.BODY)].homogeneous
            assert np.allclose(m.body_pose(q, link), T, atol=1e-12), link


def test_tiny_floating_base_matches_pinocchio_free_flyer():
    pm = pin.buildModelFromXML(TINY, pin.JointModelFreeFlyer())
    pd = pm.createData()
    m6 = load_urdf_string(TINY, floating_base=True)
    assert (m6.nq, m6.nu) == (8, 8) and m6.hinge("root_joint").kind == "free"
    m = load_urdf_string(TINY, floating_base="quaternion")
    assert m.hinge("root_joint").kind == "free_quat" and m.hinge_names[0] == "root_joint"
    assert (m.nq, m.nu) == (pm.nq, pm.nv) == (9, 8)
    # ours: q = [quat (x,y,z,w); position; joints], u = [w; v; joints];
    # Pinocchio: q = [position; quat; joints], v = [v; w; joints] (both in the base frame)
    q = m.random_q(np.random.default_rng(2), scale=1.0)
    q[4:7] = [0.3, -0.2, 0.5]
    pq = np.concatenate([q[4:7], q[0:4], q[7:]])
    perm = np.r_[3:6, 0:3, 6:8]
    Mp = _pin_sym(pin.crba(pm, pd, pq))
    assert np.allclose(m.mass_matrix(q), Mp[np.ix_(perm, perm)], atol=1e-12)


def test_planar_and_floating_joints():
    xml = """<robot name="pf">
      <link name="a"/><link name="b"><inertial><mass value="1"/>
        <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="c"><inertial><mass value="1"/>
        <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="p" type="planar"><parent link="a"/><child link="b"/><axis xyz="0 0 2"/></joint>
      <joint name="f" type="floating"><parent link="b"/><child link="c"/></joint>
      <joint name="unused_axis" type="continuous"><parent link="c"/><child link="d"/></joint>
      <link name="d"><inertial><mass value="1"/>
        <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
    </robot>"""
    m = load_urdf_string(xml)
    assert m.hinge("p").kind == "planar" and m.hinge("p").nq == 3
    assert np.allclose(m.hinge("p").subhinges[2].axis, [0, 0, 1])
    assert m.hinge("f").kind == "free" and m.hinge("f").nq == 6
    cont = m.hinge("unused_axis")
    assert cont.kind == "pin" and np.allclose(cont.subhinges[0].axis, [1, 0, 0])  # URDF default axis
    assert (m.nq, m.nu) == (10, 10)
    mq = load_urdf_string(xml, floating_base="quaternion")
    assert mq.hinge("f").kind == "free_quat" and mq.hinge("root_joint").kind == "free_quat"
    assert (mq.nq, mq.nu) == (7 + 3 + 7 + 1, 6 + 3 + 6 + 1)


def test_depth_first_order_and_joint_order_option():
    # children of "r" appear in the file as z_leg then a_leg; a_leg's chain is deeper
    xml = """<robot name="order">
      <link name="r"/><link name="z1"/><link name="a1"/><link name="a2"/>
      <joint name="a_leg2" type="revolute"><parent link="a1"/><child link="a2"/></joint>
      <joint name="z_leg" type="revolute"><parent link="r"/><child link="z1"/></joint>
      <joint name="a_leg" type="revolute"><parent link="r"/><child link="a1"/></joint>
    </robot>"""
    m = load_urdf_string(xml, joint_order="file")
    assert m.hinge_names == ["z_leg", "a_leg", "a_leg2"]
    assert m.body_names == ["r", "z1", "a1", "a2"]
    assert m.q_slice("a_leg2") == slice(2, 3)
    m = load_urdf_string(xml)  # default: sorted by name, like urdfdom and Pinocchio
    assert m.hinge_names == ["a_leg", "a_leg2", "z_leg"]
    with pytest.raises(ValueError, match="joint_order"):
        load_urdf_string(xml, joint_order="alphabetical")


def test_single_link_and_missing_inertial():
    m = load_urdf_string('<robot name="one"><link name="only"/></robot>')
    assert (m.nq, m.nu) == (0, 0) and m.body_names == ["only"] and m.body("only").mass == 0.0
    m = load_urdf_string('<robot name="one"><link name="only"/></robot>', floating_base=True)
    assert (m.nq, m.nu) == (6, 6)
    # no robot name: the file stem / "robot"
    assert load_urdf_string("<robot><link name='x'/></robot>").name == "robot"


def test_load_from_file_and_bytes(tmp_path):
    f = tmp_path / "tiny_robot.urdf"
    f.write_text(TINY)
    m = mb.load_urdf(f)
    assert m.name == "tiny" and m.nq == 2
    m = load_urdf(str(f), floating_base="quaternion")
    assert m.nq == 9
    assert load_urdf_string(TINY.encode()).nq == 2
    # the declared encoding (or a UTF-16 byte-order mark) is honoured
    latin = '<?xml version="1.0" encoding="ISO-8859-1"?><robot name="caf\xe9"><link name="a"/></robot>'
    assert load_urdf_string(latin.encode("latin-1")).name == "caf\xe9"
    assert load_urdf_string(latin.replace("ISO-8859-1", "UTF-16").encode("utf-16")).name == "caf\xe9"
    with pytest.raises(ValueError, match="unknown text encoding 'klingon'"):
        load_urdf_string(b'<?xml version="1.0" encoding="klingon"?><robot/>')
    with pytest.raises(ValueError, match="not valid utf-8"):
        load_urdf_string(b'<robot name="\xff"/>')
    with pytest.raises(FileNotFoundError):
        load_urdf(tmp_path / "nope.urdf")


# ---------------------------------------------------------------------- errors
def _robot(body):
    return f'<robot name="bad">{body}</robot>'


_L = '<link name="{}"/>'
_J = '<joint name="{}" type="{}"><parent link="{}"/><child link="{}"/></joint>'


def test_broken_xml_names_file_and_line(tmp_path):
    f = tmp_path / "broken.urdf"
    f.write_text('<robot name="x">\n  <link name="a">\n  </lnk>\n</robot>\n')
    with pytest.raises(ValueError, match=r"broken\.urdf.*line 3") as e:
        load_urdf(f)
    assert "malformed XML" in str(e.value)
    with pytest.raises(ValueError, match=r"<string>.*line 1"):
        load_urdf_string("<robot><link name='a'></robot>")
    with pytest.raises(ValueError, match="root element must be <robot>"):
        load_urdf_string("<sdf><link name='a'/></sdf>")


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<robot name="&lol9;"><link name="a"/></robot>
"""


def test_dtd_and_entities_are_refused(tmp_path):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="entity/DTD declarations are not allowed"):
        load_urdf_string(BILLION_LAUGHS)
    assert time.perf_counter() - t0 < 1.0
    external = ('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
                '<robot name="&xxe;"><link name="a"/></robot>')
    with pytest.raises(ValueError, match="entity/DTD declarations are not allowed"):
        load_urdf_string(external)
    f = tmp_path / "dtd.urdf"
    f.write_text('<!doctype robot>\n<robot name="x"><link name="a"/></robot>')
    with pytest.raises(ValueError, match=r"dtd\.urdf: entity/DTD declarations are not allowed"):
        load_urdf(f)
    with pytest.raises(ValueError, match="entity/DTD"):
        load_urdf_string(b'<!ENTITY a "b"><robot name="x"/>')


@pytest.mark.parametrize("body, pattern", [
    # missing links
    (_L.format("a") + _J.format("j", "revolute", "ghost", "a"),
     r"joint 'j' names parent link 'ghost'"),
    (_L.format("a") + _J.format("j", "revolute", "a", "ghost"),
     r"joint 'j' names child link 'ghost'"),
    ('<link name="a"/><link name="b"/><joint name="j" type="revolute"><child link="b"/></joint>',
     r"joint 'j' has no <parent"),
    # cycles and two parents
    (_L.format("a") + _L.format("b") + _J.format("ab", "revolute", "a", "b")
     + _J.format("ba", "revolute", "b", "a"), r"cycle"),
    (_L.format("r") + _L.format("a") + _L.format("b") + _J.format("ra", "fixed", "r", "a")
     + _J.format("bc", "revolute", "b", "c") + _L.format("c") + _J.format("cb", "revolute", "c", "b"),
     r"link 'b' has two parents|cycle"),
    (_L.format("r") + _L.format("a") + _L.format("b") + _J.format("ra", "fixed", "r", "a")
     + _J.format("ab", "revolute", "a", "b") + _J.format("bb", "revolute", "b", "b"),
     r"joint 'bb' connects link 'b' to itself"),
    (_L.format("r") + _L.format("b") + _L.format("c") + _J.format("rb", "fixed", "r", "b")
     + _J.format("bc", "revolute", "b", "c") + _J.format("cb", "revolute", "c", "b"),
     r"link 'b' has two parents: joints 'rb' and 'cb'"),
    (_L.format("a") + _L.format("b") + _L.format("c") + _J.format("ac", "revolute", "a", "c")
     + _J.format("bc", "revolute", "b", "c"), r"link 'c' has two parents: joints 'ac' and 'bc'"),
    (_L.format("a") + _L.format("b"), r"2 root links \['a', 'b'\]"),
    # duplicates
    (_L.format("a") + _L.format("a"), r"duplicate link name 'a'"),
    (_L.format("a") + _L.format("b") + _L.format("c") + _J.format("j", "revolute", "a", "b")
     + _J.format("j", "revolute", "b", "c"), r"duplicate joint name 'j'"),
    # joint types and values
    (_L.format("a") + _L.format("b") + _J.format("wobbly", "gimbal", "a", "b"),
     r"joint 'wobbly' has unknown type 'gimbal'"),
    (_L.format("a") + _L.format("b") + '<joint name="j"><parent link="a"/><child link="b"/></joint>',
     r"joint 'j' has unknown type None"),
    (_L.format("a") + _L.format("b")
     + '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint>',
     r"joint 'j' \(revolute\) has a zero axis"),
    (_L.format("a") + _L.format("b")
     + '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 2"/></joint>',
     r"joint 'j' origin xyz: expected 3 finite numbers"),
    (_L.format("a") + _L.format("b")
     + '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
       '<limit lower="zero" upper="1"/></joint>', r"joint 'j' limit lower"),
    (_L.format("a") + _L.format("b") + _J.format("root_joint", "revolute", "a", "b"),
     r"joint 'root_joint' clashes"),
    ('<link/>', r"<link> element has no name"),
    (_L.format("a") + _J.format("j", "revolute", "a", "world") + _L.format("world"),
     r"link name 'world' is reserved"),
    # mass properties
    ('<link name="heavy"><inertial><mass value="-1"/></inertial></link>',
     r"link 'heavy' <inertial>.*mass must be finite and >= 0"),
    ('<link name="nan"><inertial><mass value="nan"/></inertial></link>',
     r"link 'nan' <inertial> mass value"),
    ('<link name="v"><visual><geometry><box size="1 1"/></geometry></visual></link>',
     r"link 'v' visual box size"),
])
def test_errors_name_the_element(body, pattern):
    with pytest.raises(ValueError, match=pattern):
        load_urdf_string(_robot(body))


_ODD = ('<link name="odd"><inertial><mass value="1"/>'
        '<inertia ixx="1" iyy="1" izz="-1" ixy="0" ixz="0" iyz="0"/></inertial></link>')


def test_indefinite_inertia_is_projected_with_a_warning_or_refused():
    with pytest.warns(UserWarning, match=r"link 'odd' <inertial>.*not positive semi-definite"):
        m = load_urdf_string(_robot(_ODD))
    assert np.allclose(m.body("odd").inertia, np.diag([1.0, 1.0, 0.0]))
    with pytest.raises(ValueError, match=r"link 'odd' <inertial>.*positive semi-definite"):
        load_urdf_string(_robot(_ODD), on_bad_inertia="error")
    with pytest.raises(ValueError, match=r"on_bad_inertia must be"):
        load_urdf_string(_robot(_ODD), on_bad_inertia="ignore")


@pytest.mark.parametrize("value", ["yes", "free", 1, 0, None, "Quaternion", 2.0])
def test_bad_floating_base(value):
    with pytest.raises(ValueError, match=r"floating_base must be False, True or 'quaternion'"):
        load_urdf_string(TINY, floating_base=value)


def test_unknown_mimic_target_warns_but_loads():
    xml = _robot(_L.format("a") + _L.format("b") + '<joint name="j" type="revolute"><parent link="a"/>'
                 '<child link="b"/><mimic joint="ghost" offset="0.5"/></joint>')
    with pytest.warns(UserWarning, match=r"j -> ghost"):
        m = load_urdf_string(xml)
    assert m.hinge("j").mimic == {"joint": "ghost", "multiplier": 1.0, "offset": 0.5}


def test_warnings_point_at_the_caller():
    # the reader's warnings are raised deep inside multibody.io; they must name this file
    with pytest.warns(UserWarning) as caught:
        load_urdf_string(_robot(_ODD))
        mb.load_urdf_string(_robot(_L.format("a") + _L.format("b") + '<joint name="j" type="fixed">'
                                   '<parent link="a"/><child link="b"/><mimic joint="ghost"/></joint>'))
    assert [w.filename for w in caught] == [__file__, __file__]


def test_long_chain_loads_without_recursion(tmp_path):
    # a 3000-link chain is deeper than Python's default recursion limit (1000)
    n = 3000
    links = "".join(f'<link name="l{i}"><inertial><mass value="1"/>'
                    f'<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    for i in range(n + 1))
    joints = "".join(f'<joint name="j{i:05d}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
                     f'<origin xyz="0 0 0.1"/><axis xyz="0 1 0"/></joint>' for i in range(n))
    f = tmp_path / "chain.urdf"
    f.write_text(f'<robot name="chain">{links}{joints}</robot>')
    m = load_urdf(f)
    assert m.nq == 3000 and m.nu == 3000
    assert m.hinge_names == [f"j{i:05d}" for i in range(n)]


# ---------------------------------------------------------------------- package:// and files
def _mesh_robot(*filenames):
    visuals = "".join(f'<visual><geometry><mesh filename="{f}" scale="1 2 3"/></geometry></visual>'
                      for f in filenames)
    return f'<robot name="meshy"><link name="a">{visuals}</link></robot>'


def test_package_resolution(tmp_path):
    ws = tmp_path / "ws" / "src"
    (ws / "mypkg" / "urdf").mkdir(parents=True)
    (ws / "mypkg" / "meshes").mkdir()
    (ws / "mypkg" / "meshes" / "a.stl").write_text("solid a")
    (ws / "otherpkg" / "meshes").mkdir(parents=True)
    (ws / "otherpkg" / "meshes" / "b.stl").write_text("solid b")
    for pkg in ("mypkg", "otherpkg"):  # ROS packages: the search takes folders with a package.xml
        (ws / pkg / "package.xml").write_text("<package/>")
    (tmp_path / "elsewhere" / "thirdpkg" / "meshes").mkdir(parents=True)
    (tmp_path / "elsewhere" / "thirdpkg" / "meshes" / "c.dae").write_text("<c/>")
    (ws / "mypkg" / "urdf" / "local.obj").write_text("o")
    uris = ["package://mypkg/meshes/a.stl",        # an ancestor of the URDF folder
            "package://otherpkg/meshes/b.stl",     # a sibling package
            "package://thirdpkg/meshes/c.dae",     # only through package_dirs
            "package://nope/meshes/x.stl",         # unresolvable
            "package:///mypkg/meshes/a.stl",       # extra slash (seen in the wild)
            "local.obj",                           # relative to the URDF folder
            "file://" + str(ws / "otherpkg" / "meshes" / "b.stl")]  # outside the URDF's folder
    f = ws / "mypkg" / "urdf" / "robot.urdf"
    f.write_text(_mesh_robot(*uris))

    def check(m, third_resolved, absolute_resolved=False):
        vis = m.body("a").visuals
        assert [v["type"] for v in vis] == ["mesh"] * len(uris)
        assert [v["uri"] for v in vis] == uris
        assert np.allclose(vis[0]["scale"], [1, 2, 3])
        expect = {0: ws / "mypkg/meshes/a.stl", 1: ws / "otherpkg/meshes/b.stl",
                  4: ws / "mypkg/meshes/a.stl", 5: ws / "mypkg/urdf/local.obj"}
        if absolute_resolved:
            expect[6] = ws / "otherpkg/meshes/b.stl"
        else:  # an absolute path outside the URDF's folder and package_dirs: refused, not looked up
            assert vis[6]["resolved"] is False and vis[6]["refused"] and vis[6]["filename"] == uris[6]
        for i, p in expect.items():
            assert vis[i]["resolved"] and vis[i]["filename"] == str(p.resolve()), uris[i]
            assert "refused" not in vis[i]
        assert vis[3]["resolved"] is False and vis[3]["filename"] == uris[3] and "refused" not in vis[3]
        assert vis[2]["resolved"] is third_resolved
        if third_resolved:
            assert vis[2]["filename"] == str((tmp_path / "elsewhere/thirdpkg/meshes/c.dae").resolve())
        else:
            assert vis[2]["filename"] == uris[2]

    with pytest.warns(UserWarning, match="otherpkg/meshes/b.stl"):
        check(load_urdf(f), False)
    with pytest.warns(UserWarning, match="1 mesh file reference"):
        check(load_urdf(f, package_dirs=[tmp_path / "elsewhere"]), True)      # folder of packages
        check(load_urdf(f, package_dirs=str(tmp_path / "elsewhere" / "thirdpkg")), True)  # the package
        check(load_urdf_string(f.read_text(), base_dir=f.parent, package_dirs=[tmp_path / "elsewhere"]), True)
    check(load_urdf(f, package_dirs=[tmp_path / "elsewhere", ws]), True, True)  # a folder allowed
    check(load_urdf(f, allow_outside=True), False, True)
    # without a base folder only package_dirs resolve, absolute paths inside them
    m = load_urdf_string(f.read_text(), package_dirs=[ws])
    vis = m.body("a").visuals
    assert vis[0]["resolved"] and vis[1]["resolved"] and not vis[2]["resolved"]
    assert not vis[5]["resolved"] and vis[6]["resolved"]
    assert m.file_roots == (str(ws), str(ws / "mypkg"), str(ws / "otherpkg"))
    assert resolve_uri("package://", tmp_path) == ("package://", False)
    # a folder named like the package but no ROS package is no package root
    (ws / "mypkg" / "package.xml").unlink()
    assert load_urdf(f, allow_outside=True).body("a").visuals[0]["resolved"]
    with pytest.warns(UserWarning):
        assert not load_urdf(f).body("a").visuals[0]["resolved"]


def test_package_resolution_example_robot_data():
    if robots_dir() is None:
        pytest.skip("example-robot-data not installed")
    m = load_urdf(urdf("ur_description/urdf/ur5_robot.urdf"))
    meshes = [v for b in m.bodies for v in b.visuals + b.collisions if v["type"] == "mesh"]
    assert meshes and all(v["resolved"] for v in meshes)
    assert all(v["filename"].startswith(str(robots_dir())) for v in meshes)


# ---------------------------------------------------------------------- a root link named "world"
def test_world_root_link():
    if robots_dir() is None:
        pytest.skip("example-robot-data not installed")
    f = urdf("ur_description/urdf/ur5_robot.urdf")
    m = load_urdf(f)
    assert m.body("world") is m.world and "world" not in m.body_names
    assert "root_joint" not in m.hinge_names and m.hinge("world_joint").parent is m.world
    pm = pin.buildModelFromUrdf(str(f), pin.JointModelFreeFlyer())
    mq = load_urdf(f, floating_base="quaternion")
    assert (mq.nq, mq.nu) == (pm.nq, pm.nv)
    h = mq.hinge("root_joint")
    assert h.child.name == "base_link" and "world_joint" not in mq.hinge_names
    # the free hinge moves the URDF world link frame, like Pinocchio's free flyer
    xml = f.read_text().replace('<origin rpy="0.0 0.0 0.0" xyz="0.0 0.0 0.0"/>\n  </joint>',
                                '<origin rpy="0.1 0.2 0.3" xyz="0.5 0.0 0.2"/>\n  </joint>', 1)
    assert xml != f.read_text()
    mq = load_urdf_string(xml, floating_base="quaternion")
    pm = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer())
    pd = pm.createData()
    q = mq.neutral_q()
    pin.framesForwardKinematics(pm, pd, pin.neutral(pm))
    T = pd.oMf[pm.getFrameId("base_link", pin.FrameType.BODY)].homogeneous
    assert np.allclose(mq.body_pose(q, "base_link"), T)
    bad = _robot(_L.format("world") + _L.format("a") + _L.format("b") + _J.format("wa", "fixed", "world", "a")
                 + _J.format("wb", "fixed", "world", "b"))
    assert load_urdf_string(bad).nq == 0
    with pytest.raises(ValueError, match="root link 'world' is the world frame"):
        load_urdf_string(bad, floating_base=True)


# ---------------------------------------------------------------------- every example-robot-data URDF
def _non_psd_links(path):
    """Links whose URDF inertia matrix has a clearly negative eigenvalue."""
    out = []
    for link in ET.parse(path).getroot().findall("link"):
        el = link.find("inertial/inertia")
        if el is None:
            continue
        v = {k: float(el.get(k, 0)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
        if np.linalg.eigvalsh(I).min() < -1e-9 * max(1.0, np.abs(I).max()):
            out.append(link.get("name"))
    return out


def test_mass_matrix_of_branched_tree():
    """Regression: entries coupling different branches must be exactly 0, not stale memory."""
    xml = _robot('<link name="r"/>' + "".join(
        f'<link name="{n}"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" '
        f'ixz="0" iyz="0"/></inertial></link><joint name="r{n}" type="revolute"><parent link="r"/>'
        f'<child link="{n}"/><axis xyz="0 0 1"/></joint>' for n in "ab"))
    m = load_urdf_string(xml)
    q = np.zeros(2)
    junk = np.full((2, 2), np.nan)  # the next (2, 2) allocation is likely to reuse this block
    del junk
    assert np.array_equal(m.mass_matrix(q), np.eye(2))


def _compare_with_pinocchio(path, m, pm, compare_mass=True):
    """Mass matrix and link poses at a random q, coordinates matched by joint name."""
    pd = pm.createData()
    q = m.random_q(np.random.default_rng(0), scale=1.0)
    pq = pin.neutral(pm)
    perm = np.zeros(pm.nv, dtype=int)
    for jid in range(1, pm.njoints):
        j, name = pm.joints[jid], pm.names[jid]
        qs, us = m.q_slice(name), m.u_slice(name)
        if j.nq == 2 and j.nv == 1:     # Pinocchio's continuous joint: (cos, sin)
            pq[j.idx_q:j.idx_q + 2] = np.cos(q[qs][0]), np.sin(q[qs][0])
        else:
            pq[j.idx_q:j.idx_q + j.nq] = q[qs]
        perm[j.idx_v:j.idx_v + j.nv] = np.arange(us.start, us.stop)
    if pm.nv and compare_mass:
        Mp = _pin_sym(pin.crba(pm, pd, pq))
        M = m.mass_matrix(q)[np.ix_(perm, perm)]  # ours in file order, permuted
        assert np.allclose(M, Mp, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(Mp).max())), "mass matrix"
    pin.framesForwardKinematics(pm, pd, pq)
    for name in m.body_names:
        if pm.existFrame(name, pin.FrameType.BODY):
            T = pd.oMf[pm.getFrameId(name, pin.FrameType.BODY)].homogeneous
            assert np.allclose(m.body_pose(q, name), T, atol=1e-9), f"pose of {name}"


def test_every_example_robot_data_urdf(capsys):
    files = urdf_files()
    if not files:
        pytest.skip("example-robot-data not installed")
    root = robots_dir()
    loaded, failed, skipped = [], [], []
    for path in files:
        rel = str(path.relative_to(root))
        try:
            pm = pin.buildModelFromUrdf(str(path))
            pmf = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
        except Exception as e:  # noqa: BLE001 -- Pinocchio cannot load it either
            skipped.append((rel, str(e).strip().splitlines()[0]))
            continue
        try:
            with warnings.catch_warnings(record=True) as caught:  # mimics of undefined joints,
                warnings.simplefilter("always", UserWarning)  # projected inertias
                m = load_urdf(path)
                mq = load_urdf(path, floating_base="quaternion")
        except ValueError as e:
            failed.append((rel, str(e)))
            continue
        projected = any("positive semi-definite" in str(w.message) for w in caught)
        if projected:
            assert _non_psd_links(path), rel  # only files that really hold such inertias
        # Pinocchio stores a continuous joint as (cos, sin): one more q than ours
        n_cont = sum(1 for j in pm.joints[1:] if j.nq == 2 and j.nv == 1)
        assert (m.nq, m.nu) == (pm.nq - n_cont, pm.nv), rel
        assert (mq.nq, mq.nu) == (pmf.nq - n_cont, pmf.nv), rel
        links = [el.get("name") for el in ET.parse(path).getroot().findall("link")]
        names = set(m.body_names)
        assert all(n in names or (n == "world" and m.body(n) is m.world) for n in links), rel
        _compare_with_pinocchio(path, m, pm, compare_mass=not projected)
        loaded.append(rel + (" (inertia projected)" if projected else ""))
    with capsys.disabled():
        print(f"\nURDF: loaded {len(loaded)}, refused {len(failed)}, Pinocchio cannot load {len(skipped)}")
        for rel, why in failed:
            print(f"  refused {rel}: {why.split(': ', 1)[-1]}")
        for rel, why in skipped:
            print(f"  skipped {rel} (Pinocchio: {why})")
    assert loaded
    # every file Pinocchio loads, we load
    assert not failed, failed

