"""SDFormat import: a hand-written four-bar, pose and axis conventions per version, errors,
and Cassie (example-robot-data) with its closed loops against Pinocchio.

Independent checks: body poses at q = 0 against the poses written in the file, node
frames of a loop coinciding at q = 0, closure by Newton to 1e-12, a dense KKT solve
from the tree's mass matrix, and Pinocchio's ``constraintDynamics`` on the Pinocchio
model of our tree with our loops as 3-D point constraints (a ball loop: its point; a pin
loop: two points on its axis, which pin the same motion).
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.spatial import rpy_to_matrix
from robots import cassie_sdf

FOURBAR = """<?xml version="1.0"?>
<sdf version="1.7">
  <model name="fourbar">
    <link name="base"><inertial><mass>2</mass></inertial></link>
    <link name="crank">
      <inertial><pose>0.25 0.5 0 0 0 0</pose><mass>1</mass>
        <inertia><ixx>0.1</ixx><iyy>0.02</iyy><izz>0.1</izz></inertia></inertial>
      <visual name="bar"><pose>0.25 0.5 0 0 0 0</pose><geometry><box><size>0.1 1 0.1</size></box></geometry>
        <material><diffuse>1 0 0 1</diffuse></material></visual>
    </link>
    <frame name="tip" attached_to="crank"><pose>0.5 1 0 0 0 0</pose></frame>
    <link name="coupler">
      <pose relative_to="tip"/>
      <inertial><pose>1 0.25 0 0 0 0</pose><mass>1.5</mass>
        <inertia><ixx>0.01</ixx><iyy>0.3</iyy><izz>0.3</izz><ixy>0.002</ixy></inertia></inertial>
    </link>
    <link name="rocker">
      <pose>3 0 0 0 0 0.3</pose>
      <inertial><pose>0.1 0.7 0 0.2 0 0</pose><mass>0.8</mass>
        <inertia><ixx>0.05</ixx><iyy>0.01</iyy><izz>0.05</izz></inertia></inertial>
    </link>
    <joint name="j_crank" type="revolute">
      <parent>base</parent><child>crank</child><axis><xyz>0 0 1</xyz></axis>
    </joint>
    <joint name="j_coupler" type="continuous">
      <pose relative_to="tip"/>
      <parent>crank</parent><child>coupler</child><axis><xyz expressed_in="__model__">0 0 1</xyz></axis>
    </joint>
    <joint name="j_rocker" type="revolute">
      <parent>base</parent><child>rocker</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>2</upper><effort>5</effort></limit>
        <dynamics><damping>0.3</damping></dynamics></axis>
    </joint>
    <joint name="j_close" type="revolute">
      <pose relative_to="coupler">2 0.5 0 0 0 0</pose>
      <parent>coupler</parent><child>rocker</child><axis><xyz expressed_in="__model__">0 0 1</xyz></axis>
    </joint>
  </model>
</sdf>
"""


def _T(xyz, rpy=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(np.asarray(rpy, dtype=float))
    T[:3, 3] = xyz
    return T


def close_loops(m, q, frozen=()):
    """The solver's closure, or (before it exists) Gauss-Newton on the residual rows, with
    the hinges ``frozen`` held."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # redundant rows: planar loops
        if hasattr(m, "constraint_kinematics"):
            return m.constraint_kinematics().solve_q(q, frozen=frozen)
    free = np.ones(m.nu, dtype=bool)
    for h in frozen:
        free[m.u_slice(h)] = False
    for _ in range(50):
        r = m.pose_error(q, "residual")
        if np.abs(r).max() < 1e-13:
            break
        du = np.zeros(m.nu)
        du[free] = -np.linalg.lstsq(m.constraint_jacobian(q)[:, free], r, rcond=1e-12)[0]
        q = m.integrate(q, du, 1.0)
    return q


def dense_kkt(m, q, u, tau):
    """udot from [[M, Gc^T], [Gc, 0]] [udot; -lambda] = [tau - b; -kappa] (least squares:
    redundant rows are consistent)."""
    M, b, G = m.mass_matrix(q), m.bias_forces(q, u), m.constraint_jacobian(q)
    n = G.shape[0]
    K = np.block([[M, G.T], [G, np.zeros((n, n))]])
    return np.linalg.lstsq(K, np.concatenate([tau - b, -m.constraint_bias(q, u)]), rcond=1e-13)[0][:m.nu]


def admissible_state(m, q, rng):
    """A random u with Gc u = 0 and random torques."""
    G = m.constraint_jacobian(q)
    u = rng.normal(size=m.nu)
    return u - np.linalg.pinv(G) @ (G @ u), rng.normal(size=m.nu)


def test_fourbar_structure_poses_and_loop():
    m = mb.load_sdf(FOURBAR)
    assert m.name == "fourbar"
    assert set(m.body_names) >= {"base", "crank", "coupler", "rocker"}
    assert [h.name for h in m.hinges] == ["root_joint", "j_crank", "j_coupler", "j_rocker"]
    assert [h.kind for h in m.hinges] == ["locked", "pin", "pin", "pin"]
    (c,) = m.enabled_constraints
    assert (c.name, c.kind, c.n_rows) == ("j_close", "pin", 5)
    assert (c.node_a.name, c.node_a.body.name, c.node_b.name, c.node_b.body.name) == \
           ("j_close_parent", "coupler", "j_close_child", "rocker")
    q0 = m.neutral_q()
    for body, T in [("crank", _T((0, 0, 0))), ("coupler", _T((0.5, 1, 0))), ("rocker", _T((3, 0, 0), (0, 0, 0.3)))]:
        np.testing.assert_allclose(m.body_pose(q0, body), T, atol=1e-15)
    Ta, Tb = m.frame_pose(q0, "j_close_parent"), m.frame_pose(q0, "j_close_child")
    np.testing.assert_allclose(Ta, _T((2.5, 1.5, 0)), atol=1e-15)
    np.testing.assert_allclose(Tb, Ta, atol=1e-15)
    assert np.abs(m.pose_error(q0)).max() < 1e-15
    # mass properties and metadata
    b = m.body("rocker")
    R = rpy_to_matrix([0.2, 0, 0])
    np.testing.assert_allclose(b.inertia, R @ np.diag([0.05, 0.01, 0.05]) @ R.T, atol=1e-15)
    assert b.mass == 0.8 and np.allclose(b.com, [0.1, 0.7, 0])
    assert m.body("base").mass == 2.0 and np.allclose(m.body("base").inertia, np.eye(3))  # SDFormat defaults
    h = m.hinge("j_rocker")
    assert (h.lower, h.upper, h.effort, h.damping, h.sdf_type) == (-1.0, 2.0, 5.0, 0.3, "revolute")
    assert m.hinge("j_coupler").lower is None and m.hinge("j_coupler").sdf_type == "continuous"
    (vis,) = m.body("crank").visuals
    assert vis["type"] == "box" and np.allclose(vis["size"], [0.1, 1, 0.1]) and np.allclose(vis["rgba"], [1, 0, 0, 1])
    np.testing.assert_allclose(vis["origin"], _T((0.25, 0.5, 0)))


def test_fourbar_closes_and_its_dynamics_match_a_dense_kkt_solve():
    m = mb.load_sdf(FOURBAR)
    rng = np.random.default_rng(1)
    G0 = m.constraint_jacobian(m.neutral_q())
    assert np.linalg.matrix_rank(G0) == 2  # a planar loop: 2 of the 5 rows are independent; 1 dof left
    q = close_loops(m, m.integrate(m.neutral_q(), 0.2 * rng.normal(size=m.nu), 1.0))
    assert np.abs(m.pose_error(q, "residual")).max() < 1e-12
    assert np.abs(q - m.neutral_q()).max() > 0.01
    u, tau = admissible_state(m, q, rng)
    udot = m.forward_dynamics(q, u, tau)
    ref = dense_kkt(m, q, u, tau)
    np.testing.assert_allclose(udot, ref, atol=1e-9 * max(1.0, np.abs(ref).max()))


def _pendulum(version, axis_block, link_rpy="0 0 0.5", joint_pose=""):
    return f"""<sdf version="{version}"><model name="p">
      <link name="a"/><link name="b"><pose>1 0 0 {link_rpy}</pose></link>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child>{joint_pose}{axis_block}</joint>
    </model></sdf>"""


def _world_axis(m):
    h = m.hinge("j")
    R = m.body_pose(m.neutral_q(), "b")[:3, :3] @ h.T_child_joint[:3, :3]
    return R @ h.subhinges[0].axis


@pytest.mark.parametrize("version,axis,expected", [
    ("1.4", "<axis><xyz>1 0 0</xyz></axis>", [1, 0, 0]),  # 1.4: the model frame
    ("1.5", "<axis><xyz>1 0 0</xyz></axis>", [np.cos(0.5), np.sin(0.5), 0]),  # the joint frame
    ("1.6", "<axis><xyz>1 0 0</xyz><use_parent_model_frame>true</use_parent_model_frame></axis>", [1, 0, 0]),
    ("1.7", "<axis><xyz>1 0 0</xyz></axis>", [np.cos(0.5), np.sin(0.5), 0]),
    ("1.8", "<axis><xyz expressed_in='__model__'>0 1 0</xyz></axis>", [0, 1, 0]),
    ("1.9", "<axis><xyz expressed_in='a'>0 1 0</xyz></axis>", [0, 1, 0]),
])
def test_axis_frames_per_version(version, axis, expected):
    m = mb.load_sdf(_pendulum(version, axis))
    np.testing.assert_allclose(_world_axis(m), expected, atol=1e-12)


def test_joint_pose_quaternion_degrees_and_relative_to():
    # 1.9: degrees and quaternions (scalar last); a joint pose is in the child frame, or relative_to
    xml = """<sdf version="1.9"><model name="p"><link name="a"/>
      <link name="b"><pose degrees="true">1 0 0 0 0 28.64788975654116</pose></link>
      <frame name="f" attached_to="a"><pose>0 2 0 0 0 0</pose></frame>
      <link name="c"><pose relative_to="f">0 0 1 0 0 0</pose></link>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis>
        <pose rotation_format="quat_xyzw">0.5 0 0 0 0 0.7071067811865476 0.7071067811865476</pose></joint>
      <joint name="k" type="prismatic"><parent>b</parent><child>c</child><pose relative_to="a"/></joint>
    </model></sdf>"""
    m = mb.load_sdf(xml)
    q0 = m.neutral_q()
    np.testing.assert_allclose(m.body_pose(q0, "b"), _T((1, 0, 0), (0, 0, 0.5)), atol=1e-12)
    np.testing.assert_allclose(m.body_pose(q0, "c"), _T((0, 2, 1)), atol=1e-12)
    np.testing.assert_allclose(m.hinge("j").T_child_joint, _T((0.5, 0, 0), (0, 0, np.pi / 2)), atol=1e-12)
    np.testing.assert_allclose(_world_axis(m), [np.cos(0.5 + np.pi / 2), np.sin(0.5 + np.pi / 2), 0], atol=1e-12)
    np.testing.assert_allclose(m.hinge("k").T_child_joint, _T((0, -2, -1)), atol=1e-12)  # the frame of a, in c


def test_axis_dynamics_with_sdformat_defaults():
    """SDFormat (joint.sdf, 1.4-1.11): ``<axis><dynamics>`` holds damping, friction,
    spring_reference and spring_stiffness, each 0 when absent (the whole element too), and
    ``<axis2>`` its own. Every hinge gets all four (a joint without ``<dynamics>`` and a ball
    joint, which has no axis: 0), a two-axis joint one number when its axes agree, else the
    pair (axis, axis2); sub-trees keep them."""
    xml = """<sdf version="1.7"><model name="p"><link name="a"/><link name="b"/><link name="c"/>
      <link name="d"/><link name="e"/>
      <joint name="spring" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz>
        <dynamics><spring_reference>0.25</spring_reference><spring_stiffness>1500</spring_stiffness>
        </dynamics></axis></joint>
      <joint name="plain" type="prismatic"><parent>b</parent><child>c</child><axis><xyz>1 0 0</xyz></axis></joint>
      <joint name="ball" type="ball"><parent>c</parent><child>d</child></joint>
      <joint name="cross" type="universal"><parent>d</parent><child>e</child>
        <axis><xyz>1 0 0</xyz><dynamics><damping>0.5</damping><spring_stiffness>3</spring_stiffness></dynamics></axis>
        <axis2><xyz>0 1 0</xyz><dynamics><damping>0.5</damping><spring_stiffness>4</spring_stiffness>
        <spring_reference>0</spring_reference></dynamics></axis2></joint>
    </model></sdf>"""
    m = mb.load_sdf(xml)
    names = ("damping", "friction", "spring_stiffness", "spring_reference")
    got = {h: tuple(getattr(m.hinge(h), a) for a in names) for h in ("spring", "plain", "ball", "cross")}
    assert got == {"spring": (0.0, 0.0, 1500.0, 0.25), "plain": (0.0, 0.0, 0.0, 0.0), "ball": (0.0, 0.0, 0.0, 0.0),
                   "cross": (0.5, 0.0, (3.0, 4.0), 0.0)}
    sub = m.sub_tree("legs", "b")  # the sub-tree's copies of the hinges below b
    assert (sub.hinge("plain").spring_stiffness, sub.hinge("cross").spring_stiffness) == (0.0, (3.0, 4.0))
    h = mb.Multibody("x")  # a hinge made in code has them too
    h.add_body("y", 1.0, np.zeros(3), np.eye(3))
    h.add_hinge(None, "y", "pin")
    assert (h.hinges[0].spring_stiffness, h.hinges[0].spring_reference) == (0.0, 0.0)


def test_floating_base_and_world_joints():
    m = mb.load_sdf(FOURBAR, floating_base="quaternion")
    assert m.hinge("root_joint").kind == "free_quat" and m.nq == 3 + 7
    xml = FOURBAR.replace('<joint name="j_crank"', '<joint name="fix" type="fixed"><parent>world</parent>'
                          '<child>base</child></joint><joint name="j_crank"')
    w = mb.load_sdf(xml)
    assert w.hinges[0].name == "fix" and "root_joint" not in [h.name for h in w.hinges]
    f = mb.load_sdf(xml, floating_base=True)  # the free root hinge replaces the fixed world joint
    assert f.hinge_names[0] == "root_joint" and "fix" not in [h.name for h in f.hinges]
    assert "fix" not in f.constraints


def test_model_selection_gearbox_and_must_be_loop_joint():
    two = FOURBAR.replace("</sdf>", '<model name="other"><link name="x"/></model></sdf>')
    with pytest.raises(ValueError, match=r"2 models \['fourbar', 'other'\]; pass model="):
        mb.load_sdf(two)
    assert mb.load_sdf(two, model="other").body_names[-1] == "x"
    loop = FOURBAR.replace('<joint name="j_rocker" type="revolute">',
                           '<joint name="j_rocker" type="revolute"><physics><simbody>'
                           '<must_be_loop_joint>true</must_be_loop_joint></simbody></physics>')
    m = mb.load_sdf(loop)  # j_rocker is cut: the rocker hangs from the coupler by j_close
    assert m.hinge("j_close").parent.name == "coupler" and m.constraint("j_rocker").kind == "pin"
    assert np.abs(m.pose_error(m.neutral_q())).max() < 1e-15
    gear = FOURBAR.replace("</model>", """<link name="rotor"/>
      <joint name="j_rotor" type="revolute"><parent>base</parent><child>rotor</child>
        <axis><xyz>0 0 -1</xyz></axis></joint>
      <joint name="gear" type="gearbox"><parent>rotor</parent><child>crank</child>
        <gearbox_reference_body>base</gearbox_reference_body><gearbox_ratio>0.25</gearbox_ratio>
        <axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 0 1</xyz></axis2></joint></model>""")
    g = mb.load_sdf(gear).constraint("gear")
    # theta_2 = -0.25 theta_1 with theta_1 = -q_rotor (its axis is -z): q_crank = 0.25 q_rotor
    assert (g.category, g.hinge_a.name, g.hinge_b.name, g.ratio) == ("coordinate", "j_crank", "j_rotor", 0.25)


@pytest.mark.parametrize("change,match", [
    (('type="continuous"', 'type="revolute3"'), r"joint 'j_coupler' has type 'revolute3', which is not supported"),
    (("<parent>base</parent><child>crank</child>", "<parent>base</parent><child>crank</child></axis>"),
     r"malformed XML at line"),
    (("<parent>base</parent><child>rocker</child>", "<parent>nowhere</parent><child>rocker</child>"),
     r"joint 'j_rocker' <parent> names 'nowhere', which is not a link or frame"),
    (('version="1.7"', 'version="1.2"'), r"SDFormat version 1.2 is not supported"),
    (('<pose relative_to="tip"/>\n      <inertial>', '<pose relative_to="ghost"/>\n      <inertial>'),
     r"pose is relative to 'ghost', which is not a link, joint or frame"),
    (('attached_to="crank"><pose>', 'attached_to="crank"><pose relative_to="tip">'), r"frames tip -> tip .*cycle"),
    (("<mass>1.5</mass>", "<mass>heavy</mass>"), r"link 'coupler' <inertial> <mass>: expected 1 numbers"),
    (('<?xml version="1.0"?>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>'), r"entity/DTD"),
    (("<parent>base</parent><child>crank</child>", "<parent>crank</parent><child>crank</child>"),
     r"joint 'j_crank' connects link 'crank' to itself"),
    (("</model>", '<model name="inner"><link name="x"/></model></model>'), r"nested and included models"),
])
def test_malformed_files_name_the_element(change, match):
    with pytest.raises(ValueError, match=match):
        mb.load_sdf(FOURBAR.replace(*change))


def test_unreachable_links_and_bad_gearboxes_are_refused():
    orphan = FOURBAR.replace("</model>", '<link name="lost"/><link name="lost2"/>'
                             '<joint name="jl" type="fixed"><parent>lost2</parent><child>lost</child></joint></model>')
    with pytest.raises(ValueError, match=r"links \['base', 'lost2'\] are moved by no joint"):
        mb.load_sdf(orphan)
    gear = FOURBAR.replace("</model>", """<joint name="gear" type="gearbox"><parent>coupler</parent>
        <child>crank</child><gearbox_reference_body>base</gearbox_reference_body></joint></model>""")
    with pytest.raises(ValueError, match=r"gearbox joint 'gear': its parent link 'coupler' must hang from "
                                         r"the reference body 'base'"):
        mb.load_sdf(gear)
    with pytest.raises(ValueError, match=r"floating_base must be False, True or 'quaternion'"):
        mb.load_sdf(FOURBAR, floating_base="yes")


# ---------------------------------------------------------------------------- Cassie

CASSIE = cassie_sdf()
needs_cassie = pytest.mark.skipif(CASSIE is None, reason="example-robot-data's cassie.sdf not installed")


@pytest.fixture(scope="module")
def cassie():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # two rotor inertias break the triangle inequality
        m = mb.load_sdf(CASSIE, floating_base=True)
    # The knee-spring slider loop (R-R-P in a plane) locks the knee-spring and knee-shin
    # hinges at their file values, through a nearly singular Jacobian (smallest singular
    # value ~1e-6): from some starts Newton on all coordinates stalls at a 1.5e-11 residual,
    # so those four hinges are held at their (exact) 0 while the other loops close.
    locked = [f"{s}-{j}" for s in ("left", "right") for j in ("knee-spring-joint", "knee-shin-joint")]
    rng = np.random.default_rng(7)
    q = m.integrate(m.neutral_q(), 0.05 * rng.normal(size=m.nu), 1.0)
    for h in locked:
        q[m.q_slice(h)] = 0.0
    return m, close_loops(m, q, frozen=locked)


@needs_cassie
def test_cassie_loads_with_its_loops_and_gears(cassie):
    m, q = cassie
    assert (m.nq, m.nu) == (44, 44)
    loops = {c.name: c.kind for c in m.enabled_constraints if c.category == "loop"}
    assert loops == {f"{s}-{j}": k for s in ("left", "right") for j, k in
                     (("shin-spring-joint", "slider"), ("achilles-spring-joint", "pin"), ("plantar-foot-joint", "spherical"))}
    gears = {c.name: (c.hinge_a.name, c.hinge_b.name, c.ratio) for c in m.enabled_constraints if c.category == "coordinate"}
    assert len(gears) == 10 and gears["left-knee-joint"] == ("left-knee-op", "left-knee-ip", -0.0625)
    assert m.hinge("left-pitch-rod-joint").kind == "spherical"
    assert m.body("pelvis").visuals[0]["resolved"] and m.body("pelvis").visuals[0]["type"] == "mesh"
    assert np.abs(m.pose_error(m.neutral_q())).max() < 1e-14  # the file's configuration is closed
    assert np.abs(m.pose_error(q, "residual")).max() < 1e-12  # and the solver closes a perturbed one
    assert np.abs(q - m.neutral_q()).max() > 0.01


@needs_cassie
def test_cassie_constrained_accelerations_match_pinocchio(cassie):
    pin = pytest.importorskip("pinocchio")
    sys.path.insert(0, str(Path(__file__).parent))
    from pin_convert import point_constraints, q_to_pin, to_pinocchio, u_perm
    m, q = cassie
    # Pinocchio's rigid constraints are points and welds: our slider loops and gearboxes
    # (coordinate constraints) have no counterpart there and are left out of this comparison
    for con in m.enabled_constraints:
        if con.category == "coordinate" or con.kind == "slider":
            m.disable_constraint(con.name)
    try:
        rng = np.random.default_rng(3)
        u, tau = admissible_state(m, q, rng)
        udot = m.forward_dynamics(q, u, tau)
        scale = max(1.0, np.abs(udot).max())
        np.testing.assert_allclose(m.constrained_dynamics(q, u, tau).udot, udot, atol=1e-12 * scale)
        model = to_pinocchio(m)
        data = model.createData()
        cms = point_constraints(m, model)
        cds = pin.StdVec_RigidConstraintData([cm.createData() for cm in cms])
        pin.initConstraintDynamics(model, data, cms, cds)
        P = u_perm(m)
        a = pin.constraintDynamics(model, data, q_to_pin(m, q), u[P], tau[P], cms, cds,
                                   pin.ProximalSettings(1e-14, 1e-8, 50))
        assert np.abs(a - udot[P]).max() < 1e-8 * scale
        assert np.abs(dense_kkt(m, q, u, tau) - udot).max() < 1e-8 * scale
    finally:
        for con in m.constraints.values():
            m.enable_constraint(con.name)


@needs_cassie
def test_cassie_gearboxes_in_the_dynamics(cassie):
    """With the gearbox coordinate constraints (no Pinocchio counterpart): a dense KKT solve,
    and the geared hinges accelerate at the gear ratio."""
    m, q = cassie
    for con in m.enabled_constraints:
        if con.category == "loop" and con.kind == "slider":  # the slider loops are nearly singular
            m.disable_constraint(con.name)                   # here (see the report); left out
    try:
        rng = np.random.default_rng(4)
        u, tau = admissible_state(m, q, rng)
        udot = m.forward_dynamics(q, u, tau)
        scale = max(1.0, np.abs(udot).max())
        assert np.abs(dense_kkt(m, q, u, tau) - udot).max() < 1e-8 * scale
        g = m.constraint("left-roll-joint")
        ia, ib = m.u_slice(g.hinge_a.name).start, m.u_slice(g.hinge_b.name).start
        assert udot[ia] == pytest.approx(g.ratio * udot[ib], abs=1e-9 * scale)
    finally:
        for con in m.constraints.values():
            m.enable_constraint(con.name)
