"""Algorithm identities that hold for any model, checked on random trees of every hinge kind."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import multibody as mb
from test_dynamics_vs_pinocchio import KINDS, random_tree


def make(seed, kind):
    rng = np.random.default_rng(seed)
    kinds = KINDS if kind == "mixed" else ([kind, "pin"] if kind == "locked" else [kind])
    m = random_tree(rng, kinds)
    return m, rng


@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_dynamics_identities(kind):
    m, rng = make(3, kind)
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    tau = rng.normal(size=m.nu)
    M = m.mass_matrix(q)
    assert np.allclose(M, M.T, atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > 0
    b = m.bias_forces(q, u)
    udot = m.forward_dynamics(q, u, tau)
    # M udot + b = tau, and inverse dynamics inverts forward dynamics
    assert np.allclose(M @ udot + b, tau, atol=1e-9 * max(1, np.abs(tau).max()))
    assert np.allclose(m.inverse_dynamics(q, u, udot), tau, atol=1e-9)
    # M M^-1 = I through forward dynamics: columns of M^-1 are fd with unit forces minus the bias response
    Minv = np.column_stack([m.forward_dynamics(q, np.zeros(m.nu), e + m.gravity_forces(q))
                            for e in np.eye(m.nu)])
    assert np.allclose(M @ Minv, np.eye(m.nu), atol=1e-9)
    # kinetic energy = 1/2 u^T M u
    assert np.isclose(m.kinetic_energy(q, u), 0.5 * u @ M @ u, rtol=1e-12, atol=1e-12)


def _rotvec_of(R):
    return Rotation.from_matrix(R).as_rotvec()


@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_pose_gradient_and_jacobian_match_finite_differences(kind):
    m, rng = make(4, kind)
    q = m.random_q(rng, scale=1.0)
    h = 1e-6
    for body in ("b5", "tool"):
        T = m.body_pose(q, body)
        G = m.pose_gradient(q, body)
        Gfd = np.zeros_like(G)
        for i in range(m.nq):
            dq = np.zeros(m.nq)
            dq[i] = h
            Tp, Tm = m.body_pose(q + dq, body), m.body_pose(q - dq, body)
            Gfd[:3, i] = (_rotvec_of(Tp[:3, :3] @ T[:3, :3].T) - _rotvec_of(Tm[:3, :3] @ T[:3, :3].T)) / (2 * h)
            Gfd[3:, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        assert np.abs(G - Gfd).max() < 1e-6
        # body Jacobian: move along u with the exact exponential step
        J = m.body_jacobian(q, body)
        Jfd = np.zeros_like(J)
        for k in range(m.nu):
            du = np.zeros(m.nu)
            du[k] = 1.0
            Tp, Tm = m.body_pose(m.integrate(q, du, h), body), m.body_pose(m.integrate(q, du, -h), body)
            dR = T[:3, :3].T @ (Tp[:3, :3] - Tm[:3, :3]) / (2 * h)
            Jfd[:3, k] = [dR[2, 1], dR[0, 2], dR[1, 0]]
            Jfd[3:, k] = T[:3, :3].T @ (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        assert np.abs(J - Jfd).max() < 1e-6


def test_qdot_matches_integrate():
    m, rng = make(5, "mixed")
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    h = 1e-7
    fd = (m.integrate(q, u, h) - m.integrate(q, u, -h)) / (2 * h)
    assert np.allclose(m.qdot(q, u), fd, atol=1e-6)
    # u_from_qdot inverts qdot (for unit quaternions)
    assert np.allclose(m.u_from_qdot_matrix(q) @ m.qdot(q, u), u, atol=1e-10)


def test_a_changed_max_chart_angle_reaches_sanitize_after_compiling():
    """max_chart_angle is a compiled constant (max_chart_angles): set after the model was
    compiled, it is the one sanitize re-centres at (it used to keep the compiled angle)."""
    m = mb.Multibody()
    b = m.add_body("ball", mass=2.0, com=(0.0, 0.0, -0.5), inertia=np.diag([0.1, 0.2, 0.3]))
    h = m.add_hinge(None, b, "spherical", name="ball_joint")
    q = np.array([0.8, 0.0, 0.0])
    assert not m.sanitize(q.copy())  # |q| = 0.8 under pi/2
    h.subhinges[0].max_chart_angle = 0.5
    q2 = q.copy()
    assert m.sanitize(q2) and np.allclose(q2, 0.0)
    assert m.compiled.max_chart_angles[0] == 0.5


def test_chart_recentring_leaves_pose_and_dynamics_unchanged():
    m = mb.Multibody()
    b = m.add_body("ball", mass=2.0, com=(0.0, 0.0, -0.5), inertia=np.diag([0.1, 0.2, 0.3]))
    m.add_hinge(None, b, "spherical", name="ball_joint")
    c = m.add_body("tip", mass=1.0, com=(0.1, 0.0, 0.0), inertia=np.eye(3) * 0.01)
    m.add_hinge(b, c, "free", T_parent_joint=np.eye(4))
    q = np.array([1.2, -1.9, 0.7, 2.0, 0.3, -1.1, 0.1, 0.2, 0.3])
    u = np.linspace(-1, 1, m.nu)
    tau = np.zeros(m.nu)
    poses = {n: m.body_pose(q, n) for n in ("ball", "tip")}
    udot = m.forward_dynamics(q, u, tau)
    ke = m.kinetic_energy(q, u)
    q2 = q.copy()
    assert m.sanitize(q2)  # |q| > pi/2 for both charts
    assert np.allclose(q2[:3], 0) and np.allclose(q2[3:6], 0)
    assert not np.allclose(m.chart_offsets()["ball_joint"], [0, 0, 0, 1])
    for n, T in poses.items():
        assert np.allclose(m.body_pose(q2, n), T, atol=1e-12)
    # u is a quasi-velocity (angular velocity in the child frame): unchanged by the chart
    assert np.allclose(m.forward_dynamics(q2, u, tau), udot, atol=1e-10)
    assert np.isclose(m.kinetic_energy(q2, u), ke)
    assert not m.sanitize(q2)  # nothing left to re-centre
    # global coordinates and chart reset
    g = m.global_q(q2)
    q3 = m.reset_charts(q2)
    assert np.allclose(q3, g)
    for n, T in poses.items():
        assert np.allclose(m.body_pose(q3, n), T, atol=1e-12)


def test_gravity_energy_and_com():
    m = mb.Multibody()
    m.add_serial_chain("l", 3, mass=2.0, length=0.5)
    q = np.array([0.3, -0.4, 0.9])
    com = m.center_of_mass(q)
    pos = [m.body_pose(q, f"l{k}") @ np.array([0.25, 0, 0, 1]) for k in range(3)]
    assert np.allclose(com, np.mean(pos, axis=0)[:3])
    assert np.isclose(m.potential_energy(q), 6.0 * 9.81 * com[2])
    # gravity forces are the gradient of the potential energy
    h = 1e-6
    grad = [(m.potential_energy(q + h * e) - m.potential_energy(q - h * e)) / (2 * h) for e in np.eye(3)]
    assert np.allclose(m.gravity_forces(q), grad, atol=1e-6)
    m.gravity = (0.0, 0.0, 0.0)
    assert np.allclose(m.gravity_forces(q), 0)


def test_external_force_matches_jacobian_transpose():
    m, rng = make(6, "mixed")
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    udot = rng.normal(size=m.nu)
    w = rng.normal(size=6)
    tau0 = m.inverse_dynamics(q, u, udot)
    tau1 = m.inverse_dynamics(q, u, udot, f_ext={"tool": w})
    assert np.allclose(tau0 - tau1, m.body_jacobian(q, "tool").T @ w, atol=1e-10)
    tau = rng.normal(size=m.nu)
    assert np.allclose(m.inverse_dynamics(q, u, m.forward_dynamics(q, u, tau, f_ext={"tool": w}),
                                          f_ext={"tool": w}), tau, atol=1e-9)


def test_body_acceleration_is_the_derivative_of_the_body_velocity():
    m, rng = make(7, "mixed")
    q = m.random_q(rng, scale=1.0)
    u = rng.normal(size=m.nu)
    udot = rng.normal(size=m.nu)
    h = 1e-6
    for body in ("b5", "tool"):
        # d/dt of [w; v] expressed in the moving frame = spatial acceleration in that frame
        vp = m.body_velocity(m.integrate(q, u, h), u + h * udot, body)
        vm = m.body_velocity(m.integrate(q, u, -h), u - h * udot, body)
        assert np.allclose(m.body_acceleration(q, u, udot, body), (vp - vm) / (2 * h), atol=1e-6)
        # the classical acceleration is the second derivative of the origin's position
        p = [m.body_pose(m.integrate(m.integrate(q, u, t), udot, t * t / 2), body)[:3, 3] for t in (-h * 100, 0, h * 100)]
        R = m.body_pose(q, body)[:3, :3]
        a_fd = R.T @ (p[0] - 2 * p[1] + p[2]) / (h * 100) ** 2
        assert np.allclose(m.body_acceleration(q, u, udot, body, kind="classical")[3:], a_fd, atol=1e-4)
    with pytest.raises(ValueError, match="kind"):
        m.body_acceleration(q, u, udot, "b5", kind="local")


def test_out_arguments_are_filled_and_checked():
    m, rng = make(8, "mixed")
    q = m.random_q(rng)
    u, tau = rng.normal(size=(2, m.nu))
    M = np.empty((m.nu, m.nu))
    assert m.mass_matrix(q, out=M) is M and np.array_equal(M, m.mass_matrix(q))
    a = np.empty(m.nu)
    assert m.forward_dynamics(q, u, tau, out=a) is a and np.array_equal(a, m.forward_dynamics(q, u, tau))
    t = np.empty(m.nu)
    assert m.inverse_dynamics(q, u, a, out=t) is t and np.allclose(t, tau)
    assert m.inverse_dynamics(q, u, a, f_ext={"tool": np.ones(6)}, out=t) is t
    for bad in (np.empty(m.nu + 1), np.empty(m.nu, dtype=np.float32), np.empty(2 * m.nu)[::2]):
        with pytest.raises(ValueError, match="out must"):
            m.forward_dynamics(q, u, tau, out=bad)
    ro = np.empty((m.nu, m.nu))
    ro.flags.writeable = False
    for bad in (np.empty((m.nu, m.nu + 1)), ro, np.empty(m.nu)):
        with pytest.raises(ValueError, match="out must"):
            m.mass_matrix(q, out=bad)


def test_armature_is_honoured_by_every_algorithm():
    """Reflected rotor inertias on the diagonal of M: ABA, RNEA, CRBA, M^-1, energy agree."""
    m, rng = make(4, "mixed")
    for h in m.hinges:
        h.armature = rng.uniform(0.0, 1.0, h.nu)
    q, u, tau = m.random_q(rng), rng.normal(size=m.nu), rng.normal(size=m.nu)
    M = m.mass_matrix(q)
    udot = m.forward_dynamics(q, u, tau)
    assert np.allclose(m.inverse_dynamics(q, u, udot), tau, atol=1e-9)
    assert np.allclose(M @ m.inverse_mass_matrix(q), np.eye(m.nu), atol=1e-9)
    assert np.isclose(m.kinetic_energy(q, u), 0.5 * u @ M @ u, rtol=1e-12)
    arm = np.concatenate([h.armature for h in m.hinges])
    for h in m.hinges:
        h.armature = 0.0
    assert np.allclose(m.mass_matrix(q) + np.diag(arm), M, atol=1e-12)
    with pytest.raises(ValueError, match="armature must be"):
        m.hinges[0].armature = -1.0
    with pytest.raises(ValueError, match="armature must be"):
        m.hinges[0].armature = np.ones(m.hinges[0].nu + 1)
