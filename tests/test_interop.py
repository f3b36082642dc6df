"""multibody.interop against Pinocchio and MuJoCo models loaded from the same URDF.

Round trips ours -> peer -> ours: bit for bit where the map is a permutation or a copy
(Pinocchio's v, a, tau, M, J; quaternion q), to 1e-15 where a rotation is involved
(rotation vector <-> quaternion; MuJoCo's free-joint qvel, qacc, qfrc, rotated by the
base orientation), 5e-15 for MuJoCo's mass matrix (rotated on both sides). Dynamics through the converted states agree with pin.crba, rnea,
aba, getFrameJacobian and MuJoCo's mj_fullM, qfrc_bias, mj_forward, mj_inverse to 1e-9.
"""
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.interop import MujocoLayout, PinocchioLayout, mujoco_from_urdf
from robots import robot_urdf, robots_dir

pin = pytest.importorskip("pinocchio")
mujoco = pytest.importorskip("mujoco")
needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")

TOL = 1e-9
FLOATING = {"solo12": True, "talos": True, "kinova": False, "panda": False}
CASES = [("solo12", True), ("solo12", "quaternion"), ("talos", True), ("talos", "quaternion")]


def rel_err(a, b):
    return np.abs(np.asarray(a) - np.asarray(b)).max() / max(1.0, np.abs(b).max())


def assert_close(a, b, what, tol=TOL):
    err = rel_err(a, b)
    assert err <= tol, f"{what}: relative difference {err:.3e}"


def load(name, floating):
    path = robot_urdf(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # undefined mimic targets in some files
        m = mb.load_urdf(path, floating_base=floating)
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    return m, pm, mujoco_from_urdf(path, floating_base=bool(floating))


def random_state(m, rng):
    q = m.random_q(rng, scale=1.5)
    return (q, *rng.normal(size=(3, m.nu)))


# ---------------------------------------------------------------------- round trips
@needs_robots
@pytest.mark.parametrize("name,floating", CASES)
def test_round_trips(name, floating):
    m, pm, mm = load(name, floating)
    rng = np.random.default_rng(7)
    exact_q = floating == "quaternion"
    for L, rotated in ((PinocchioLayout(m, pm), False), (MujocoLayout(m, mm), True)):
        for _ in range(5):
            q, u, udot, tau = random_state(m, rng)
            qp = L.q_to(q)
            if exact_q:
                assert np.array_equal(L.q_from(qp), q)
            else:
                assert np.abs(L.q_from(qp) - q).max() <= 1e-15
            vp = L.v_to(q, u)
            back = [(L.v_from(qp, vp), u), (L.a_from(qp, vp, L.a_to(q, u, udot)), udot),
                    (L.tau_from(qp, L.tau_to(q, tau)), tau)]
            M = m.mass_matrix(q)
            back.append((L.mass_matrix_from(qp, L.mass_matrix_to(q, M)), M))
            if isinstance(L, PinocchioLayout):
                J = m.body_jacobian(q, m.body_names[-1])
                back.append((L.jacobian_from(qp, L.jacobian_to(q, J)), J))
            for got, want in back:
                if rotated:  # R^T R = I to a few ulps; M is rotated twice on each side
                    assert rel_err(got, want) <= (5e-15 if got.ndim == 2 else 1e-15)
                else:
                    assert np.array_equal(got, want)


@needs_robots
def test_coordinate_order_differs_and_is_matched_by_name():
    m, pm, mm = load("talos", "quaternion")
    L = MujocoLayout(m, mm)
    assert not np.array_equal(L.P[6:], np.arange(6, m.nu))  # MuJoCo orders Talos' joints otherwise
    q = m.random_q(1)
    qpos = L.q_to(q)
    for i in range(1, mm.njnt):
        name = mm.joint(i).name
        assert qpos[mm.jnt_qposadr[i]] == q[m.q_slice(name)][0]


@needs_robots
def test_rotation_vector_uses_the_chart_offset_of_the_data():
    m, pm, mm = load("solo12", True)
    d = m.create_data()
    q = m.random_q(3, scale=1.0)
    q[:3] = [2.0, -1.0, 0.5]  # past the chart's max angle: sanitize moves the offset
    before = PinocchioLayout(m, pm, data=d).q_to(q)
    assert m.sanitize(q, data=d)
    for L in (PinocchioLayout(m, pm, data=d), MujocoLayout(m, mm, data=d)):
        assert np.abs(L.q_from(L.q_to(q)) - q).max() <= 1e-15
    after = PinocchioLayout(m, pm, data=d).q_to(q)
    assert np.allclose(after[:3], before[:3]) and abs(abs(after[3:7] @ before[3:7]) - 1) < 1e-14
    assert np.array_equal(after[7:], before[7:])


# ---------------------------------------------------------------------- dynamics
@needs_robots
@pytest.mark.parametrize("name,floating", CASES + [("kinova", False), ("panda", False)])
def test_dynamics_match_pinocchio(name, floating):
    m, pm, _ = load(name, floating)
    pd = pm.createData()
    L = PinocchioLayout(m, pm)
    rng = np.random.default_rng(11)
    body = m.body_names[-1]
    fid = pm.getFrameId(body, pin.FrameType.BODY)
    for _ in range(3):
        q, u, udot, tau = random_state(m, rng)
        qp, vp = L.q_to(q), L.v_to(q, u)
        Mp = pin.crba(pm, pd, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        assert_close(L.mass_matrix_to(q, m.mass_matrix(q)), Mp, "crba")
        assert_close(L.mass_matrix_from(qp, Mp), m.mass_matrix(q), "crba (back)")
        ap = L.a_to(q, u, udot)
        assert_close(L.tau_to(q, m.inverse_dynamics(q, u, udot)), pin.rnea(pm, pd, qp, vp, ap), "rnea")
        taup = L.tau_to(q, tau)
        assert_close(L.a_to(q, u, m.forward_dynamics(q, u, tau)), pin.aba(pm, pd, qp, vp, taup), "aba")
        assert_close(m.forward_dynamics(q, u, tau), L.a_from(qp, vp, pin.aba(pm, pd, qp, vp, taup)), "aba (back)")
        pin.computeJointJacobians(pm, pd, qp)
        pin.updateFramePlacements(pm, pd)
        Jp = pin.getFrameJacobian(pm, pd, fid, pin.LOCAL)
        assert_close(L.jacobian_to(q, m.body_jacobian(q, body)), Jp, "frame Jacobian")
        assert_close(L.jacobian_from(qp, Jp), m.body_jacobian(q, body), "frame Jacobian (back)")


def mujoco_checks(m, mm, L, rng, trials=3):
    """Mass matrix, bias, forward and inverse dynamics of ours vs MuJoCo, through L."""
    md = mujoco.MjData(mm)
    M = np.zeros((mm.nv, mm.nv))
    for _ in range(trials):
        q, u, udot, tau = random_state(m, rng)
        qpos, qvel = L.q_to(q), L.v_to(q, u)
        md.qpos[:], md.qvel[:], md.qfrc_applied[:] = qpos, qvel, L.tau_to(q, tau)
        mujoco.mj_forward(mm, md)
        mujoco.mj_fullM(mm, md, M)
        assert_close(L.mass_matrix_to(q, m.mass_matrix(q)), M, "mj_fullM")
        assert_close(L.mass_matrix_from(qpos, M), m.mass_matrix(q), "mj_fullM (back)")
        # qfrc_bias is the inverse dynamics at qacc = 0, which is not udot = 0 for a free joint
        zero_qacc = L.a_from(qpos, qvel, np.zeros(mm.nv))
        assert_close(L.tau_to(q, m.inverse_dynamics(q, u, zero_qacc)), md.qfrc_bias, "qfrc_bias")
        assert_close(L.a_to(q, u, m.forward_dynamics(q, u, tau)), md.qacc, "mj_forward qacc")
        assert_close(m.forward_dynamics(q, u, tau), L.a_from(qpos, qvel, md.qacc), "mj_forward qacc (back)")
        md.qacc[:] = L.a_to(q, u, udot)
        mujoco.mj_inverse(mm, md)
        assert_close(L.tau_from(qpos, md.qfrc_inverse), m.inverse_dynamics(q, u, udot), "mj_inverse")


@needs_robots
@pytest.mark.parametrize("name,floating", CASES + [("kinova", False), ("panda", False)])
def test_dynamics_match_mujoco(name, floating):
    m, _, mm = load(name, floating)
    mujoco_checks(m, mm, MujocoLayout(m, mm), np.random.default_rng(13))


# ---------------------------------------------------------------------- ball joints
INERTIA = np.array([[0.3, 0.01, -0.02], [0.01, 0.2, 0.03], [-0.02, 0.03, 0.25]])


def ball_model(kind):
    """A ball-jointed body with a pin-jointed body below it (and its MJCF)."""
    m = mb.Multibody("ball")
    m.add_body("a", 2.0, (0.1, 0.2, -0.3), INERTIA)
    m.add_body("b", 1.5, (0.0, 0.1, -0.2), 0.5 * INERTIA)
    T = np.eye(4)
    T[:3, 3] = (0.0, 0.1, -0.5)
    m.add_hinge(None, "a", kind=kind, name="ball")
    m.add_hinge("a", "b", kind="pin", name="elbow", axis=(0.0, 1.0, 0.0), T_parent_joint=T)
    fi = " ".join(map(str, INERTIA[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]))
    fi_b = " ".join(map(str, 0.5 * INERTIA[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]))
    xml = f"""<mujoco><option><flag contact="disable"/></option><worldbody>
      <body name="a"><joint name="ball" type="ball"/>
        <inertial pos="0.1 0.2 -0.3" mass="2" fullinertia="{fi}"/>
        <body name="b" pos="0 0.1 -0.5"><joint name="elbow" type="hinge" axis="0 1 0"/>
          <inertial pos="0 0.1 -0.2" mass="1.5" fullinertia="{fi_b}"/></body>
      </body></worldbody></mujoco>"""
    pm = pin.Model()
    j = pm.addJoint(0, pin.JointModelSpherical(), pin.SE3.Identity(), "ball")
    pm.appendBodyToJoint(j, pin.Inertia(2.0, np.array([0.1, 0.2, -0.3]), INERTIA), pin.SE3.Identity())
    k = pm.addJoint(j, pin.JointModelRY(), pin.SE3(np.eye(3), T[:3, 3]), "elbow")
    pm.appendBodyToJoint(k, pin.Inertia(1.5, np.array([0.0, 0.1, -0.2]), 0.5 * INERTIA), pin.SE3.Identity())
    return m, pm, mujoco.MjModel.from_xml_string(xml)


@pytest.mark.parametrize("kind", ["spherical", "spherical_quat"])
def test_ball_joints(kind):
    m, pm, mm = ball_model(kind)
    rng = np.random.default_rng(5)
    mujoco_checks(m, mm, MujocoLayout(m, mm), rng)
    L, pd = PinocchioLayout(m, pm), pm.createData()
    for _ in range(3):
        q, u, udot, tau = random_state(m, rng)
        qp, vp = L.q_to(q), L.v_to(q, u)
        assert np.abs(L.q_from(qp) - q).max() <= 1e-15
        assert_close(L.tau_to(q, m.inverse_dynamics(q, u, udot)), pin.rnea(pm, pd, qp, vp, L.a_to(q, u, udot)), "rnea")
        assert_close(L.a_to(q, u, m.forward_dynamics(q, u, tau)), pin.aba(pm, pd, qp, vp, L.tau_to(q, tau)), "aba")


# ---------------------------------------------------------------------- errors
@needs_robots
def test_wrong_shapes_name_the_argument():
    m, pm, mm = load("solo12", "quaternion")
    P, M = PinocchioLayout(m, pm), MujocoLayout(m, mm)
    q, u = m.neutral_q(), np.zeros(m.nu)
    for call, arg in [(lambda: P.q_to(q[:-1]), "q"), (lambda: P.q_from(q[:-1]), "qp"),
                      (lambda: P.v_to(q, u[:-1]), "u"), (lambda: P.a_from(q, u, u[:-1]), "a"),
                      (lambda: P.jacobian_to(q, np.zeros((3, m.nu))), "J"),
                      (lambda: P.mass_matrix_to(q, np.zeros((m.nu, 3))), "M"),
                      (lambda: M.q_from(q[:-1]), "qpos"), (lambda: M.v_to(q[:-1], u), "q"),
                      (lambda: M.a_from(M.q_to(q), u[:-1], u), "qvel"), (lambda: M.tau_from(M.q_to(q), u[:3]), "qfrc")]:
        with pytest.raises(ValueError, match=rf"^{arg} must have shape"):
            call()


@needs_robots
def test_models_from_other_files_are_refused():
    m, pm, mm = load("solo12", True)
    fixed_pm = pin.buildModelFromUrdf(robot_urdf("solo12"))  # no root_joint, nv differs
    with pytest.raises(ValueError, match="pin_model"):
        PinocchioLayout(m, fixed_pm)
    _, talos_pm, talos_mm = load("talos", True)
    with pytest.raises(ValueError, match="pin_model"):
        PinocchioLayout(m, talos_pm)
    with pytest.raises(ValueError, match="mj_model"):
        MujocoLayout(m, talos_mm)
    spec = mujoco.MjSpec.from_file(robot_urdf("solo12"))
    for g in list(spec.geoms):
        spec.delete(g)
    for mesh in list(spec.meshes):
        spec.delete(mesh)
    spec.joints[0].name = "renamed"
    spec.worldbody.first_body().add_freejoint().name = "root_joint"
    with pytest.raises(ValueError, match=r"mj_model: joint names differ.*\['renamed'\]"):
        MujocoLayout(m, spec.compile())


def test_hinges_without_counterpart_are_refused():
    m = mb.Multibody("screw")
    m.add_body("a", 1.0, inertia=INERTIA)
    m.add_hinge(None, "a", kind="screw", name="j", axis=(0.0, 0.0, 1.0), pitch=0.1)
    mm = mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><joint name="j" type="hinge"/>'
                                        '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></worldbody></mujoco>')
    with pytest.raises(ValueError, match=r"mj_model: hinge 'j' of kind 'screw' has no counterpart"):
        MujocoLayout(m, mm)
    pm = pin.Model()
    pm.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "j")
    p = mb.Multibody("planar")
    p.add_body("a", 1.0, inertia=INERTIA)
    p.add_hinge(None, "a", kind="planar", name="j", axis=(0.0, 0.0, 1.0))
    with pytest.raises(ValueError, match=r"pin_model: hinge 'j' of kind 'planar' has no counterpart"):
        PinocchioLayout(p, pm)


@needs_robots
def test_mujoco_from_urdf_takes_our_actuators_with_the_same_force_law(tmp_path, monkeypatch):
    """``actuators=m.actuators``: position and velocity servos and a motor become MuJoCo's
    actuators on the same joints, in order; at a random state and ctrl its actuator forces
    (qfrc_actuator) are ours, f = gain ctrl + b0 + b1 q + b2 u (gear 1), to rounding, and a
    force range clips both alike."""
    monkeypatch.chdir(tmp_path)
    path = robot_urdf("solo12")
    m = mb.load_urdf(path, floating_base="quaternion")
    names = [n for n in m.hinge_names if n != "root_joint"]
    m.actuators = [mb.Actuator.position(names[0], names[0], kp=6.0, kv=0.3),
                   mb.Actuator.velocity(names[1], names[1], kv=2.0),
                   mb.Actuator.motor(names[2], names[2], force_range=(-0.5, 0.5))]
    mm = mujoco_from_urdf(path, actuators=m.actuators)
    assert [mm.actuator(k).name for k in range(mm.nu)] == names[:3]
    d = mujoco.MjData(mm)
    rng = np.random.default_rng(1)
    layout = MujocoLayout(m, mm)
    q, u = m.neutral_q(), rng.normal(size=m.nu)
    q[7:] = rng.uniform(-1, 1, 12)
    d.qpos[:], d.qvel[:] = layout.q_to(q), layout.v_to(q, u)
    ctrl = np.array([0.3, -0.7, 2.0])
    d.ctrl[:] = ctrl
    mujoco.mj_forward(mm, d)
    qi = [m.compiled.q_slices[n].start for n in names[:3]]
    ui = [m.compiled.u_slices[n].start for n in names[:3]]
    expected = [6.0 * (ctrl[0] - q[qi[0]]) - 0.3 * u[ui[0]], 2.0 * (ctrl[1] - u[ui[1]]), 0.5]
    got = [d.qfrc_actuator[mm.joint(n).dofadr[0]] for n in names[:3]]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
