"""Explicit constraints on a Multibody: configuration space, locked hinge, mimic, relative pose."""
import itertools
import os
import sysconfig

import numpy as np
import pytest

import multibody as mb
from multibody.planning import (EqualToZero, Equality, ExplicitConstraintSet,
                                FunctionFromCallables, ImplicitFunction, LiegroupSpace,
                                check_jacobian)
from multibody.planning.liegroup import configuration_space
from multibody.planning.multibody_constraints import (LockedHinge, Mimic, RelativePose,
                                                      mimic_constraints)
from multibody.spatial import so3_exp, transform_inverse

ROBOTS = os.environ.get("EXAMPLE_ROBOT_DATA_ROBOTS", os.path.join(
    sysconfig.get_paths()["purelib"], "cmeel.prefix", "share", "example-robot-data", "robots"))
PANDA = os.path.join(ROBOTS, "panda_description", "urdf", "panda.urdf")
needs_panda = pytest.mark.skipif(not os.path.exists(PANDA),
                                 reason="example-robot-data (test extra) not installed")


def T(rotvec, p):
    """4x4 transform from a rotation vector and a position."""
    t = np.eye(4)
    t[:3, :3] = so3_exp(rotvec)
    t[:3, 3] = p
    return t


def box(m, name, parent=None, kind="free", **kw):
    m.add_body(name, mass=1.0, inertia=np.eye(3) * 0.01)
    return m.add_hinge(parent, name, kind, **kw)


def projector_error(cs, p):
    f = FunctionFromCallables(cs.space, cs.space, cs.solve, jacobian=cs.jacobian)
    return check_jacobian(f, p).max_abs_error


# ------------------------------------------------------------ configuration space
def every_kind_model():
    m = mb.Multibody("kinds")
    box(m, "a", None, "free", T_parent_joint=T([0.1, 0.2, 0.3], [0, 0, 1]))
    box(m, "b", "a", "spherical_quat")
    box(m, "c", "b", "cylindrical", axis=(1, 0, 0))
    box(m, "d", "c", "spherical")
    box(m, "e", "d", "screw", pitch=0.1)
    box(m, "f", "e", "locked")
    box(m, "g", "f", "translational")
    box(m, "h", None, "free_quat")
    box(m, "i", "h", "universal")
    return m


def test_configuration_space_of_every_hinge_kind():
    m = every_kind_model()
    space = m.configuration_space()
    assert space == configuration_space(m)
    assert (space.nq, space.nv) == (m.nq, m.nu)
    assert space.names == ("a_hinge", "b_hinge", "c_hinge", "d_hinge", "e_hinge", "g_hinge",
                           "h_hinge", "i_hinge")
    assert repr(space) == ("LiegroupSpace(SE(3)[rotvec] x SO(3) x R^2 x SO(3)[rotvec] x R^1 x "
                           "R^3 x SE(3) x R^2)")
    rng = np.random.default_rng(0)
    for _ in range(5):
        q, u = m.random_q(rng), rng.normal(size=m.nu)
        # the space moves like the multibody: q (+) u is the same configuration
        np.testing.assert_allclose(space.difference(m.integrate(q, u), space.integrate(q, u)),
                                   0.0, atol=1e-12)
        np.testing.assert_allclose(m.body_pose(space.integrate(q, u), "i"),
                                   m.body_pose(m.integrate(q, u), "i"), atol=1e-12)


def test_configuration_space_follows_recentred_charts():
    m = every_kind_model()
    q = m.neutral_q()
    q[m.q_slice("a_hinge")][:3] = [2.0, 0.5, -0.4]        # beyond max_chart_angle
    q[m.q_slice("a_hinge")][3:] = [0.3, -0.2, 0.1]
    pose = m.body_pose(q, "a")
    assert m.sanitize(q)
    np.testing.assert_allclose(m.body_pose(q, "a"), pose, atol=1e-12)
    space = m.configuration_space()
    assert space.factors[0].chart_offset is not None
    u = np.random.default_rng(1).normal(size=m.nu)
    np.testing.assert_allclose(space.integrate(q, u), m.integrate(q, u), atol=1e-12)



def test_configuration_space_with_modal_bodies():
    """A modal body's eta is an R^n after its hinge's factors (a universal hinge on a
    free-floating beam, and a welded beam whose LOCKED hinge has no factor), sampled
    undeformed; the space moves like the multibody, the deformed tip pose included."""
    from multibody.flex import beam_modes
    data = beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=6, n_modes=3)
    m = mb.Multibody()
    m.add_serial_chain("b", 2, kind="universal", modal_data=data)
    w = m.add_modal_body("w", modal_data=data)
    m.add_hinge("b1", w, "locked")
    space = m.configuration_space()
    assert (space.nq, space.nv) == (m.nq, m.nu)
    assert space.names == ("b0_hinge", "b0.modes", "b1_hinge", "b1.modes", "w.modes")
    assert repr(space) == "LiegroupSpace(R^2 x R^3 x R^2 x R^3 x R^3)"
    rng = np.random.default_rng(2)
    q = space.random(rng)
    for b in m.modal_bodies:
        assert np.all(q[m.modal_slice(b)] == 0.0)
    q = m.random_q(rng, modal_scale=1e-3)
    u = rng.normal(size=m.nu)
    np.testing.assert_allclose(space.integrate(q, u), m.integrate(q, u), atol=1e-12)
    np.testing.assert_allclose(m.frame_pose(space.integrate(q, u), "b1_tip"),
                               m.frame_pose(m.integrate(q, u), "b1_tip"), atol=1e-12)

# ----------------------------------------------------------- locked hinges: panda
@pytest.fixture(scope="module")
def panda():
    return mb.load_urdf(PANDA)


@needs_panda
def test_locked_joints_on_panda(panda):
    m = panda
    space = m.configuration_space()
    assert space.is_vector_space and space.nq == 9
    cs = ExplicitConstraintSet(space)
    lock3 = LockedHinge(m, "panda_joint3", value=0.4, space=space)
    assert cs.add(lock3) == 0
    assert cs.add(lock3) == -1                                        # same one twice
    assert cs.add(LockedHinge(m, "panda_joint3", value=0.1, space=space)) == -1
    rng = np.random.default_rng(2)
    q = cs.solve(m.random_q(rng))
    assert q[m.q_slice("panda_joint3")][0] == pytest.approx(0.4, abs=1e-15)
    cs.set_right_hand_side([-0.7], lock3)
    q = cs.solve(q)
    assert q[m.q_slice("panda_joint3")][0] == pytest.approx(-0.7, abs=1e-15)
    assert cs.is_satisfied(q)
    # joint5 follows joint4 (A -> B), then B -> A closes a cycle
    assert cs.add(Mimic(m, "panda_joint5", "panda_joint4", 2.0, 0.1, space=space)) == 1
    assert cs.add(Mimic(m, "panda_joint4", "panda_joint5", 0.5, 0.0, space=space)) == -1
    # a locked joint on an existing output is rejected
    assert cs.add(LockedHinge(m, "panda_joint5", space=space)) == -1
    q = cs.solve(m.random_q(rng))
    j4, j5 = q[m.q_slice("panda_joint4")][0], q[m.q_slice("panda_joint5")][0]
    assert j5 == pytest.approx(2.0 * j4 + 0.1, abs=1e-15)
    np.testing.assert_array_equal(cs.out_q, [m.q_slice("panda_joint3").start,
                                             m.q_slice("panda_joint5").start])
    np.testing.assert_array_equal(cs.in_q, [m.q_slice("panda_joint4").start])
    assert projector_error(cs, m.random_q(rng)) < 1e-8
    with pytest.raises(ValueError, match="no coordinates"):
        LockedHinge(m, "panda_hand_joint")
    with pytest.raises(KeyError, match="panda_joint9"):
        LockedHinge(m, "panda_joint9")


@needs_panda
def test_urdf_mimic_fingers(panda):
    m = panda
    (mimic,) = mimic_constraints(m)
    assert (mimic.follower, mimic.leader) == ("panda_finger_joint2", "panda_finger_joint1")
    assert mimic.comparison == (EqualToZero,)
    cs = ExplicitConstraintSet(mimic.space)
    cs.add(mimic)
    q = cs.solve(m.random_q(3, scale=0.04))
    assert q[m.q_slice("panda_finger_joint2")][0] == q[m.q_slice("panda_finger_joint1")][0]
    h = mimic.implicit_function()
    np.testing.assert_allclose(h(q), 0.0, atol=1e-15)
    assert np.abs(h.jacobian(q) @ cs.jacobian(q)).max() < 1e-15
    with pytest.raises(ValueError, match="EqualToZero"):
        cs.set_right_hand_side([0.01], mimic)


def test_locked_spherical_and_free_hinges_use_the_group():
    m = every_kind_model()
    space = m.configuration_space()
    target = space.random(4)
    cs = ExplicitConstraintSet(space)
    for name in ("a_hinge", "d_hinge", "h_hinge", "c_hinge"):
        value = target[m.q_slice(name)]
        assert cs.add(LockedHinge(m, name, value=value, space=space)) >= 0
    q = cs.solve(space.random(5))
    for name in ("a_hinge", "d_hinge", "h_hinge", "c_hinge"):
        sub = space.select(range(m.q_slice(name).start, m.q_slice(name).stop))[0]
        np.testing.assert_allclose(sub.difference(target[m.q_slice(name)], q[m.q_slice(name)]),
                                   0.0, atol=1e-12)


# ---------------------------------------------------------------- relative pose
def two_free_bodies():
    m = mb.Multibody("two")
    box(m, "gripper", None, "free_quat", T_parent_joint=T([0.2, -0.1, 0.3], [0.5, 0, 0.2]))
    box(m, "object", None, "free", T_parent_joint=T([-0.3, 0.2, 0.1], [0, 0.4, 0]),
        T_child_joint=T([0.1, 0.1, -0.2], [0.02, -0.03, 0.05]))
    return m


def test_relative_pose_two_free_bodies_every_mask():
    m = two_free_bodies()
    space = m.configuration_space()
    rng = np.random.default_rng(6)
    t_go = T([0.4, -0.3, 0.2], [0.1, 0.05, -0.2])
    configs = [space.random(rng) for _ in range(100)]
    worst = 0.0
    for mask in itertools.product((Equality, EqualToZero), repeat=6):
        rp = RelativePose(m, "object", "gripper", T_ref_body=t_go, comparison=mask, space=space)
        cs = ExplicitConstraintSet(space, error_threshold=1e-10)
        assert cs.add(rp) == 0
        rhs = np.where(rp.rhs_mask, rng.uniform(-0.5, 0.5, 6), 0.0)
        cs.set_right_hand_side(rhs[rp.rhs_mask])
        h = rp.implicit_function()
        for p in configs:
            q = cs.solve(p)
            assert cs.is_satisfied(q)
            np.testing.assert_allclose(q[:7], p[:7])          # the gripper did not move
            worst = max(worst, np.abs(h(q) - rhs).max(), np.linalg.norm(cs.error(q)))
    assert worst < 1e-10, worst
    # with rhs = 0 the object sits exactly at T_world_gripper @ t_go
    rp = RelativePose(m, "object", "gripper", T_ref_body=t_go, space=space)
    cs = ExplicitConstraintSet(space)
    cs.add(rp)
    q = cs.solve(configs[0])
    np.testing.assert_allclose(m.body_pose(q, "object"), m.body_pose(q, "gripper") @ t_go,
                               atol=1e-12)


def test_relative_pose_rhs_from_input_grasps_where_it_is():
    m = two_free_bodies()
    space = m.configuration_space()
    rng = np.random.default_rng(7)
    rp = RelativePose(m, "object", "gripper", space=space)
    cs = ExplicitConstraintSet(space)
    cs.add(rp)
    grasp = space.random(rng)
    rhs = cs.right_hand_side_from_input(grasp)
    assert cs.is_satisfied(grasp)
    t_rel = transform_inverse(m.body_pose(grasp, "gripper")) @ m.body_pose(grasp, "object")
    for _ in range(5):
        q = cs.solve(space.random(rng))
        np.testing.assert_allclose(transform_inverse(m.body_pose(q, "gripper"))
                                   @ m.body_pose(q, "object"), t_rel, atol=1e-12)
    np.testing.assert_allclose(rp.implicit_function()(grasp), rhs, atol=1e-12)


def test_relative_pose_implicit_forms_agree_and_jacobians_match_fd():
    # reference on an arm (node on a free_quat wrist), object hinged on a moving link
    m = mb.Multibody("arm")
    box(m, "a", None, "pin", axis=(0, 0, 1), T_parent_joint=T([0.1, 0.2, 0.3], [0, 0, 0.5]))
    box(m, "b", "a", "spherical", T_parent_joint=T([0.3, 0, 0], [0.4, 0, 0]))
    box(m, "c", "b", "slider", axis=(1, 0, 0), T_parent_joint=T([0, 0.5, 0], [0.3, 0.1, 0]))
    box(m, "d", "c", "free_quat", T_parent_joint=T([0, 0.2, 0.1], [0.2, 0, 0]))
    box(m, "side", None, "pin", axis=(0, 1, 0))
    box(m, "obj", "a", "free", T_parent_joint=T([0.2, 0.1, -0.3], [0.1, 0.2, 0.3]),
        T_child_joint=T([-0.2, 0.4, 0.1], [0.05, 0.1, 0.2]))
    m.add_node("tcp", "d", T([0.1, 0, 0.2], [0, 0, 0.1]))
    space = m.configuration_space()
    rp = RelativePose(m, "obj", "tcp", T_ref_body=T([0.3, -0.2, 0.1], [0.1, 0.0, 0.05]),
                      space=space)
    # inputs: the hinges moving tcp (a, b, c, d) and the object's parent (a); not "side"
    def q_range(*hinges):
        return np.concatenate([np.arange(m.q_slice(h).start, m.q_slice(h).stop) for h in hinges])

    np.testing.assert_array_equal(np.sort(rp.input_q),
                                  np.sort(q_range("a_hinge", "b_hinge", "c_hinge", "d_hinge")))
    np.testing.assert_array_equal(rp.output_q, q_range("obj_hinge"))
    cs = ExplicitConstraintSet(space)
    cs.add(rp)
    rng = np.random.default_rng(8)
    cs.set_right_hand_side(rng.normal(size=6) * 0.3)
    h_mb, h_gen = rp.implicit_function(), ImplicitFunction(rp)
    errs = {"f": 0.0, "h_mb": 0.0, "h_gen": 0.0, "projector": 0.0}
    for _ in range(5):
        p = space.random(rng)
        np.testing.assert_allclose(h_mb(p), h_gen(p), atol=1e-12)      # two implicit forms
        errs["f"] = max(errs["f"], check_jacobian(rp.function, p[rp.input_q]).max_abs_error)
        errs["h_mb"] = max(errs["h_mb"], check_jacobian(h_mb, p).max_abs_error)
        errs["h_gen"] = max(errs["h_gen"], check_jacobian(h_gen, p).max_abs_error)
        errs["projector"] = max(errs["projector"], projector_error(cs, p))
        q = cs.solve(p)
        np.testing.assert_allclose(h_mb(q), cs.right_hand_side(0), atol=1e-12)
        np.testing.assert_allclose(h_mb.jacobian(q) @ cs.jacobian(q), 0.0, atol=1e-10)
    assert max(errs.values()) < 1e-7, errs


def test_relative_pose_errors():
    m = mb.Multibody("bad")
    box(m, "base", None, "pin")
    box(m, "obj", None, "free")
    box(m, "child", "obj", "pin")
    with pytest.raises(ValueError, match="free"):
        RelativePose(m, "base", "obj")
    with pytest.raises(ValueError, match="moves with"):
        RelativePose(m, "obj", "child")
    with pytest.raises(KeyError, match="gripper"):
        RelativePose(m, "obj", "gripper")
    with pytest.raises(ValueError, match="T_ref_body"):
        RelativePose(m, "obj", "base", T_ref_body=np.eye(3))
    with pytest.raises(ValueError, match="vector-space"):
        Mimic(m, "obj_hinge", "base_hinge")
    with pytest.raises(ValueError, match="itself"):
        Mimic(m, "base_hinge", "base_hinge")
    with pytest.raises(ValueError, match="space"):
        LockedHinge(m, "base_hinge", space=LiegroupSpace.Rn(2))


@needs_panda
def test_panda_holds_a_box(panda):
    m = mb.load_urdf(PANDA)
    box(m, "box", None, "free_quat")
    space = m.configuration_space()
    cs = ExplicitConstraintSet(space)
    grip = RelativePose(m, "box", "panda_hand_tcp", T_ref_body=T([0, 0, 0], [0, 0, 0.02]),
                        space=space)
    for c in [grip, *mimic_constraints(m, space=space),
              LockedHinge(m, "panda_finger_joint1", value=0.02, space=space)]:
        assert cs.add(c) >= 0
    np.testing.assert_array_equal(cs.in_q, np.arange(0, 7))       # the 7 arm joints
    rng = np.random.default_rng(9)
    for _ in range(10):
        q = cs.solve(space.random(rng, scale=2.0))
        assert cs.is_satisfied(q)
        np.testing.assert_allclose(m.body_pose(q, "box"),
                                   m.body_pose(q, "panda_hand_tcp") @ T([0, 0, 0], [0, 0, 0.02]),
                                   atol=1e-12)
    assert projector_error(cs, space.random(rng)) < 1e-7


@needs_panda
def test_gripper_example_runs(capsys):
    import runpy
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "planning_gripper.py")
    runpy.run_path(example, run_name="planning_example")["main"](PANDA)
    out = capsys.readouterr().out
    assert "box pose error" in out and "projector Jacobian" in out
