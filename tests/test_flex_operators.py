"""Operators of models with modal (flexible) bodies: M^-1, the operational-space compliance,
frame Jacobians, velocities and accelerations (deforming nodes included), f_ext at nodes.

Checked against what they share no code with: M from the composite-inertia kernel (M M^-1
= I), finite differences of ``body_pose`` (Jacobians, pose gradients) and of the
frame velocities along the motion (accelerations), the dense product J M^-1 J^T, and the
dynamics with the generalized forces J^T w added by hand.
"""
import numpy as np
import pytest

import multibody as mb
from flex_models import flex_state, flexible_tree
from multibody.spatial import matrix_to_rotvec


def tree_with_frames(seed, coupling=True):
    """A random flexible tree plus frames of every sort: deforming nodes with and without a
    child, a node without mode shapes, a node on the welded panel, a body on the world."""
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, coupling=coupling, gravity=(0.3, -0.2, -9.81))
    T = np.eye(4)
    T[:3, 3] = [0.4, -0.1, 0.2]
    m.add_node("beam_sensor", "beam", T, mode_shapes=0.3 * rng.normal(size=(6, 3)))
    m.add_node("beam_rigid_point", "beam", T)
    m.add_node("panel_tip", "tip_panel", T, mode_shapes=0.3 * rng.normal(size=(6, 2)))
    base = m.add_body("base", mass=1.0)
    m.add_hinge(None, base, "locked")
    q, u = flex_state(m, rng)
    return m, q, u, rng


FRAMES = ["b0", "beam", "n0", "n3", "c2", "c4", "tip_mount", "tip_panel", "beam_sensor", "beam_rigid_point",
          "panel_tip", "base"]


def rel_err(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


def body_twist(T0, Tp, Tm, h):
    """[w; v] in T0's axes from central differences of the poses Tp, Tm at +-h."""
    dT = (Tp - Tm) / (2 * h)
    W = T0[:3, :3].T @ dT[:3, :3]
    return np.r_[0.5 * (W[2, 1] - W[1, 2]), 0.5 * (W[0, 2] - W[2, 0]), 0.5 * (W[1, 0] - W[0, 1]),
                 T0[:3, :3].T @ dT[:3, 3]]


@pytest.mark.parametrize("seed, coupling", [(0, True), (1, True), (2, False)])
def test_inverse_mass_matrix_times_mass_matrix_is_identity(seed, coupling):
    m, q, _, _ = tree_with_frames(seed, coupling)
    M = m.mass_matrix(q)
    Minv = m.inverse_mass_matrix(q)
    assert np.abs(M @ Minv - np.eye(m.nu)).max() <= 1e-9
    assert np.array_equal(Minv, Minv.T)
    out = np.empty((m.nu, m.nu))
    assert m.inverse_mass_matrix(q, out=out) is out
    np.testing.assert_array_equal(out, Minv)


def test_inverse_mass_matrix_of_chains_and_welded_modal_bodies():
    """A chain of modal bodies hanging from one another's deforming tips, and a modal body
    welded to the world (no hinge speeds: its block is the modes alone)."""
    rng = np.random.default_rng(3)
    m = mb.Multibody()
    parent = None
    for i in range(5):
        b = m.add_modal_body(f"f{i}", 2, mass=1.0, com=[0.5, 0, 0], inertia=[0.1, 0, 0, 0.1, 0, 0.1],
                             stiffness=[10.0, 20.0], S=0.1 * rng.normal(size=(3, 2)))
        m.add_hinge(parent, b, "pin" if i else "locked", axis=(0, 0, 1))
        T = np.eye(4)
        T[:3, 3] = [1.0, 0, 0]
        parent = m.add_node(f"tip{i}", b, T, mode_shapes=0.3 * rng.normal(size=(6, 2))).name
    q = rng.normal(size=m.nq) * 0.3
    M = m.mass_matrix(q)
    assert np.abs(M @ m.inverse_mass_matrix(q) - np.eye(m.nu)).max() <= 1e-9


@pytest.mark.parametrize("seed", [0, 1])
def test_jacobians_are_the_derivatives_of_the_deformed_frame_poses(seed):
    m, q, _, _ = tree_with_frames(seed)
    h = 1e-6
    for name in FRAMES:
        J = m.body_jacobian(q, name)
        T0 = m.body_pose(q, name)
        Jfd = np.zeros_like(J)
        for i in range(m.nu):
            e = np.zeros(m.nu)
            e[i] = 1.0
            Jfd[:, i] = body_twist(T0, m.body_pose(m.integrate(q, e, h), name),
                                   m.body_pose(m.integrate(q, e, -h), name), h)
        assert rel_err(J, Jfd) <= 1e-7, name
        np.testing.assert_allclose(m.body_pose(q, name), T0, rtol=0, atol=1e-14)
        R, p = T0[:3, :3], T0[:3, 3]
        Jwa = m.body_jacobian(q, name, "world_aligned")
        np.testing.assert_allclose(Jwa, np.vstack([R @ J[:3], R @ J[3:]]), atol=1e-13)
        Jw = m.body_jacobian(q, name, "world")
        np.testing.assert_allclose(Jw[3:], Jwa[3:] + np.cross(p, Jwa[:3], axis=0), atol=1e-13)
    us = m.modal_u_slice("beam")
    assert np.abs(m.body_jacobian(q, "beam_sensor")[:, us]).max() > 0.1  # a deforming node's modal columns
    assert np.abs(m.body_jacobian(q, "beam_rigid_point")[:, us]).max() == 0.0
    assert np.abs(m.body_jacobian(q, "base")).max() == 0.0


def test_pose_gradient_against_finite_differences_in_q():
    """G dq = [rotation vector of R(q + dq) R(q)^T; dp] (world axes); every coordinate of the
    tree is a chart or a scalar (no quaternion), so each q_i may be varied alone."""
    m, q, _, _ = tree_with_frames(4)
    h = 1e-6
    for name in ("n3", "panel_tip", "beam_sensor", "c4"):
        G = m.pose_gradient(q, name)
        assert G.shape == (6, m.nq)
        Gfd = np.zeros_like(G)
        for i in range(m.nq):
            dq = np.zeros(m.nq)
            dq[i] = h
            Tp, Tm = m.body_pose(q + dq, name), m.body_pose(q - dq, name)
            Gfd[:3, i] = (matrix_to_rotvec(Tp[:3, :3] @ Tm[:3, :3].T)) / (2 * h)
            Gfd[3:, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        assert rel_err(G, Gfd) <= 1e-7, name


@pytest.mark.parametrize("seed", [0, 5])
def test_frame_velocities_and_accelerations_against_central_differences(seed):
    m, q, u, rng = tree_with_frames(seed)
    udot = rng.normal(size=m.nu)
    h = 1e-5
    qp, qm = m.integrate(q, u, h), m.integrate(q, u, -h)
    for name in FRAMES:
        v = m.body_velocity(q, u, name)
        np.testing.assert_allclose(v, m.body_jacobian(q, name) @ u, rtol=0, atol=1e-12 * max(1, np.abs(v).max()))
        vfd = body_twist(m.body_pose(q, name), m.body_pose(qp, name), m.body_pose(qm, name), h)
        assert rel_err(v, vfd) <= 1e-7, name
        a = m.body_acceleration(q, u, udot, name)
        afd = (m.body_velocity(qp, u + h * udot, name) - m.body_velocity(qm, u - h * udot, name)) / (2 * h)
        assert rel_err(a, afd) <= 1e-7, name
        ac = m.body_acceleration(q, u, udot, name, kind="classical")
        np.testing.assert_allclose(ac[3:], a[3:] + np.cross(v[:3], v[3:]), atol=1e-12 * max(1, np.abs(a).max()))


@pytest.mark.parametrize("seed", [0, 2])
def test_operational_space_compliance_is_j_minv_jt(seed):
    m, q, _, _ = tree_with_frames(seed)
    Minv = np.linalg.inv(m.mass_matrix(q))  # from the composite-inertia kernel, not ours
    for frames in (FRAMES, ["beam_sensor"], ["panel_tip", "n3", "panel_tip"], ["c2", "c4"]):
        J = np.vstack([m.body_jacobian(q, f) for f in frames])
        Y = m.operational_space_compliance(q, frames)
        assert rel_err(Y, J @ Minv @ J.T) <= 1e-9, frames
    assert np.abs(m.operational_space_compliance(q, FRAMES)[-6:]).max() == 0.0  # the world's frame


@pytest.mark.parametrize("seed", [0, 1])
def test_external_wrenches_at_nodes_are_generalized_forces_j_transpose_w(seed):
    m, q, u, rng = tree_with_frames(seed)
    tau = rng.normal(size=m.nu)
    f_ext = {name: rng.normal(size=6) for name in ("beam_sensor", "n2", "c1", "panel_tip", "beam", "base")}
    tau_ext = sum(m.body_jacobian(q, name).T @ w for name, w in f_ext.items())
    assert np.abs(tau_ext[m.modal_u_slice("tip_panel")]).max() > 0.01  # panel_tip's wrench works on the modes
    udot = m.forward_dynamics(q, u, tau, f_ext=f_ext)
    ref = m.forward_dynamics(q, u, tau + tau_ext)
    assert rel_err(udot, ref) <= 1e-10
    back = m.inverse_dynamics(q, u, udot, f_ext=f_ext)
    assert rel_err(back, tau) <= 1e-9
    np.testing.assert_allclose(m.inverse_dynamics(q, u, udot), tau + tau_ext, rtol=0,
                               atol=1e-9 * np.abs(tau + tau_ext).max())
    # a wrench at a node: its power on the motion is w . V_node (virtual work)
    w = f_ext["beam_sensor"]
    x = m.body_jacobian(q, "beam_sensor").T @ w
    assert abs(x @ u - w @ m.body_velocity(q, u, "beam_sensor")) <= 1e-12 * np.abs(x).max() * np.abs(u).max() * 10


def test_bad_input_names_the_argument():
    m, q, u, _ = tree_with_frames(0)
    with pytest.raises(KeyError, match="nope"):
        m.operational_space_compliance(q, ["beam", "nope"])
    with pytest.raises(KeyError, match="nope"):
        m.forward_dynamics(q, u, np.zeros(m.nu), f_ext={"nope": np.ones(6)})
    with pytest.raises(ValueError, match="f_ext\\['n0'\\] must be a finite \\(6,\\) wrench"):
        m.inverse_dynamics(q, u, np.zeros(m.nu), f_ext={"n0": np.ones(5)})
    with pytest.raises(ValueError, match="f_ext must be a dict"):
        m.forward_dynamics(q, u, np.zeros(m.nu), f_ext=[np.ones(6)])
    with pytest.raises(ValueError, match=r"q must have shape"):
        m.inverse_mass_matrix(q[:-1])
    with pytest.raises(ValueError, match="out must be"):
        m.inverse_mass_matrix(q, out=np.empty((3, 3)))
    with pytest.raises(ValueError, match="frames must name"):
        m.operational_space_compliance(q, [])
    bad = q.copy()
    bad[-1] = np.nan
    with pytest.raises(ValueError, match=r"q\[\d+\] is not finite"):
        m.body_jacobian(bad, "n0")
