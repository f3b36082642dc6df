"""Contact on modal (flexible) bodies (issue 21; kernels/flex_contact.py, the contact loop's
flex variant): shapes pinned to nodes follow the deformed node frames (against the model's
own frame poses), their contact rows are the material points' velocities (against central
differences of the frame poses along ``integrate``), and a free-free beam resting with
spheres at its end nodes on a plane settles to Euler-Bernoulli's simply supported sag."""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.kernels.collision.layout import CF_COLS, CF_N, CF_P, CF_T1, CF_T2, CI_A, CI_B, CI_COLS
from multibody.kernels.flex_contact import flex_contact_jacobian

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
import beam_on_supports as bs  # noqa: E402  (the example's beam and its modal static sag: one definition)

L, EI, RHOA, G, RADIUS = bs.L, bs.EI, bs.RHOA, bs.G, bs.RADIUS
N_MODES = 10


def beam_on_supports(n_modes=N_MODES):
    """The example's model: a free-free beam_modes beam (x from 0 to L, bending along z,
    modal damping 0.7) free in its bending plane (a massless carriage on a translational
    hinge, the beam on a pin about y: a free base would have no inertia about the beam's
    axis, which beam_modes' thin beam lacks), a sphere pinned to each end node, a
    frictionless floor. Nodes left, mid, right; q = (x, y, z, pitch, eta)."""
    return bs.model(n_modes)


modal_static_sag = bs.modal_static_sag


def test_shapes_on_nodes_follow_the_deformed_nodes():
    m, _ = beam_on_supports(n_modes=4)
    rng = np.random.default_rng(3)
    q = np.r_[0.1, -0.2, -0.1, 0.01, 0.005 * rng.normal(size=4)]  # both ends in the floor, bent
    found = m.contacts(q)
    assert len(found) == 2
    for (a, b), p, d in zip(found.shape_index, found.points, found.distances):
        s = m.collision_shapes[a]
        assert m.collision_shapes[b].name == "floor" and s.node is not None
        centre = (m.frame_pose(q, s.node.name) @ s.pose)[:3, 3]
        assert d == pytest.approx(centre[2] - RADIUS, abs=1e-12)
        assert np.allclose(p, centre - [0.0, 0.0, RADIUS + d / 2], atol=1e-12)


def test_contact_rows_are_the_material_points_velocities():
    """J u against central differences of the shapes' material points along integrate."""
    m, _ = beam_on_supports(n_modes=4)
    c = m.compiled
    rng = np.random.default_rng(5)
    q = np.r_[0.2, 0.1, -0.3, 0.4, 0.03 * rng.normal(size=4)]
    u = rng.normal(size=m.nu)
    ci = np.zeros((4, CI_COLS), dtype=np.int64)
    cf = np.zeros((4, CF_COLS))
    for k in range(4):  # made-up contacts at points near each sphere (a, b: the floor, on the world, adds no rows)
        ci[k, CI_A], ci[k, CI_B] = (k % 2, 2) if k < 2 else (2, k % 2)
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        t1 = np.cross(n, [0.3, 0.4, 0.5])
        t1 /= np.linalg.norm(t1)
        cf[k, CF_N:CF_N + 3], cf[k, CF_T1:CF_T1 + 3], cf[k, CF_T2:CF_T2 + 3] = n, t1, np.cross(n, t1)
        s = m.collision_shapes[k % 2]
        cf[k, CF_P:CF_P + 3] = (m.frame_pose(q, s.node.name) @ s.pose)[:3, 3] + 0.01 * rng.normal(size=3)
    J = np.zeros((12, m.nu))
    shape = [int(ci[k, CI_A]) if k < 2 else int(ci[k, CI_B]) for k in range(4)]
    flex_contact_jacobian(c.create_data().buf, q, c.contact.frames, ci, cf, 4, J, np.zeros((6, m.nu)),
                          np.zeros((4, 4)))
    eps = 1e-6
    for k in range(4):
        node = m.collision_shapes[shape[k]].node.name
        sign = -1.0 if k < 2 else 1.0  # rows: b's point minus a's
        T0 = m.frame_pose(q, node)
        x = np.linalg.solve(T0, np.r_[cf[k, CF_P:CF_P + 3], 1.0])  # the material point in the node frame
        v = ((m.frame_pose(m.integrate(q, u, eps), node) @ x)[:3]
             - (m.frame_pose(m.integrate(q, u, -eps), node) @ x)[:3]) / (2 * eps)
        for r, col in enumerate((CF_N, CF_T1, CF_T2)):
            assert J[3 * k + r] @ u == pytest.approx(sign * cf[k, col:col + 3] @ v, abs=1e-8 * np.linalg.norm(v))
    assert np.abs(J[:, 4:]).max() > 1e-2  # the modal columns take part


def test_beam_on_two_supports_sags_as_euler_bernoulli():
    """Resting on spheres at its end nodes (frictionless: rollers, as the simply supported
    beam's theory), the beam settles to its modal model's static sag to 1e-6 (measured
    7e-10), and that is Euler-Bernoulli's 5 w L^4 / (384 E I) within the truncation of 10
    free-free modes: the modal series of the point reactions at the free ends converges as
    the modes' stiffness (k^-4), -3.5e-4 with 10 modes (-1.3e-3 with 6), so the bound is
    5e-4. The floor carries the weight to 1e-6. dt = 1e-4 s: the explicit free motion needs
    omega h of order 1 for the stiffest mode kept (7729 rad/s), damped (architecture.md)."""
    m, data = beam_on_supports()
    q0 = np.zeros(m.nq)
    q0[2] = RADIUS  # the spheres touch the floor
    res = mb.simulate(m, q0, np.zeros(m.nu), 1.0, dt=1e-4, save_every=1000, contact_output=True)
    assert res.status == "finished"
    q = res.q[-1]
    z = [m.frame_pose(q, node)[2, 3] for node in ("left", "mid", "right")]
    sag = 0.5 * (z[0] + z[2]) - z[1]
    theory = 5 * RHOA * G * L ** 4 / (384 * EI)
    truncation = modal_static_sag(data) / theory - 1
    assert abs(truncation) < 5e-4
    assert sag / modal_static_sag(data) - 1 == pytest.approx(0.0, abs=1e-6)
    assert abs(sag / theory - 1) < 5e-4
    weight = RHOA * L * G
    # the force on b (the floor, shapes a < b) is the weight
    assert res.contacts.total_force()[-1] == pytest.approx([0.0, 0.0, -weight], abs=1e-6 * weight)
    assert np.abs(res.u[-1, 2:]).max() < 1e-6  # at rest (but for a drift along the frictionless floor)


def test_a_point_load_at_a_deforming_node_reaches_the_supports():
    """A world-axes load P = 2 N down at the mid node (``simulation/flex_link_forces`` in the
    contact loop's flex variant): the floor carries the weight and P to 1e-6, and the beam
    settles to its modal model's static sag under both loads (end reactions (w L + P) / 2) to
    1e-6 (measured 7e-10); Euler-Bernoulli adds P L^3 / (48 E I) to the sag, within the
    modes' truncation (-3.4e-4 with 10 modes)."""
    m, data = beam_on_supports()
    P = 2.0
    q0 = np.zeros(m.nq)
    q0[2] = RADIUS
    res = mb.simulate(m, q0, np.zeros(m.nu), 1.0, dt=1e-4, save_every=1000, contact_output=True,
                      forces=[mb.ExternalForce("mid", (0.0, 0.0, 0.0, 0.0, 0.0, -P), axes="world")])
    assert res.status == "finished"
    q = res.q[-1]
    z = [m.frame_pose(q, node)[2, 3] for node in ("left", "mid", "right")]
    sag = 0.5 * (z[0] + z[2]) - z[1]
    Pi = data.mode_shapes[:, 3:6]  # the nodes' translations (left, mid, right) per mode
    f = (data.S.T @ np.array([0.0, 0.0, -G]) + (Pi[0].T + Pi[2].T) @ np.array([0.0, 0.0, (RHOA * G * L + P) / 2])
         + Pi[1].T @ np.array([0.0, 0.0, -P]))
    zm = Pi[:, 2] @ (f / data.stiffness)
    modal = 0.5 * (zm[0] + zm[2]) - zm[1]
    theory = 5 * RHOA * G * L ** 4 / (384 * EI) + P * L ** 3 / (48 * EI)
    print(f"sag {sag:.9e}: modal static {sag / modal - 1:.1e}, Euler-Bernoulli {sag / theory - 1:.1e}")
    assert sag / modal - 1 == pytest.approx(0.0, abs=1e-6)
    assert abs(sag / theory - 1) < 1e-3
    load = RHOA * L * G + P
    assert res.contacts.total_force()[-1] == pytest.approx([0.0, 0.0, -load], abs=1e-6 * load)


def test_friction_moments_reach_the_modes_through_the_node_rotations():
    """With friction (mu = 1) the end spheres' contact points, r below the end nodes, are
    held while the ends rotate: the floor pushes them inwards (equal and opposite, 2.98 N)
    and these forces' moments about the nodes (r F_t, through the nodes' rotation shapes
    Pi_r) take 2.9 % off the sag (the closed form r F_t L^2 / (8 E I) of two end moments
    says 2.91 %). The settled sag is the modal model's static sag under the gravity and the
    recorded contact forces at the recorded points, each end's wrench through its node's
    Pi_t and Pi_r (body axes), to 1e-5 (measured 1.2e-6: the linear reference leaves out
    the rotation's Jr(theta), theta = 8e-3 at the ends)."""
    m, data = beam_on_supports()
    for s in m.collision_shapes:
        s.friction = 1.0
    q0 = np.zeros(m.nq)
    q0[2] = RADIUS
    res = mb.simulate(m, q0, np.zeros(m.nu), 1.0, dt=1e-4, save_every=1000, contact_output=True)
    q = res.q[-1]
    found = res.contacts.at(len(res.contacts) - 1)
    assert found["forces"][0, 0] == pytest.approx(-found["forces"][1, 0]) and abs(found["forces"][0, 0]) > 1.0
    R = m.body_pose(q, "beam")[:3, :3]
    Pi = data.mode_shapes  # (node, 6, modes): rotation rows, then translation rows
    f = data.S.T @ np.array([0.0, 0.0, -G])
    for (a, _), point, force in zip(found["shapes"], found["points"], found["forces"]):
        node = m.collision_shapes[a].node.name
        row = 0 if node == "left" else 2
        F = R.T @ -force  # on the sphere, body axes
        lever = R.T @ (point - m.frame_pose(q, node)[:3, 3])
        f += Pi[row, 3:6].T @ F + Pi[row, 0:3].T @ np.cross(lever, F)
    z = Pi[:, 5] @ (f / data.stiffness)
    z_sim = [m.frame_pose(q, node)[2, 3] for node in ("left", "mid", "right")]
    sag = 0.5 * (z_sim[0] + z_sim[2]) - z_sim[1]
    assert sag / (0.5 * (z[0] + z[2]) - z[1]) - 1 == pytest.approx(0.0, abs=1e-5)
    assert sag / modal_static_sag(data) - 1 == pytest.approx(-0.029, abs=1e-3)


def test_rollout_with_contact_is_each_samples_simulate():
    m, _ = beam_on_supports(n_modes=4)
    Q0 = np.zeros((2, m.nq))
    Q0[:, 2] = RADIUS + np.array([0.0, 0.002])  # resting, and dropped from 2 mm
    U0 = np.zeros((2, m.nu))
    U0[1, 3] = 0.1  # pitching
    out = mb.rollout(m, Q0, U0, 0.05, dt=1e-4, save_every=50, progress=False)
    for b in range(2):
        res = mb.simulate(m, Q0[b], U0[b], 0.05, dt=1e-4, save_every=50)
        assert np.array_equal(out.q[b], res.q) and np.array_equal(out.u[b], res.u)
    assert np.ptp(out.q[1, :, 4]) > 1e-5  # the drop bends the beam


def test_model_file_keeps_the_node(tmp_path):
    m, _ = beam_on_supports(n_modes=2)
    m.save(tmp_path / "beam.yaml")
    back = mb.load_model(tmp_path / "beam.yaml")
    assert [s.node.name for s in back.collision_shapes[:2]] == ["left", "right"]
    assert np.array_equal(back.compiled.contact.sf_frame, m.compiled.contact.sf_frame)
    assert np.array_equal(back.compiled.contact.frames, m.compiled.contact.frames)


def test_add_collision_node_is_checked_and_constraints_hold_under_contact():
    m, _ = beam_on_supports(n_modes=2)
    other = m.add_body("other", mass=1.0, inertia=np.eye(3))
    m.add_hinge("beam", other, "pin", axis=(0, 1, 0))
    m.add_collision(other, mb.Sphere(0.1))
    with pytest.raises(ValueError, match="node 'left' is on body 'beam', not on body 'other'"):
        m.add_collision(other, mb.Sphere(0.1), node="left")
    with pytest.raises(ValueError, match="node='nowhere'"):
        m.add_collision("beam", mb.Sphere(0.1), node="nowhere")
    m.add_coordinate_constraint("gear", "beam_hinge", "other_hinge")  # (loops on modal models: contact_flex_loops)
    q0 = np.zeros(m.nq)
    q0[2] = RADIUS
    u0 = np.zeros(m.nu)
    u0[3] = u0[-1] = 0.5  # the beam's pitch and the other body's hinge, geared
    res = mb.simulate(m, q0, u0, 0.05, dt=1e-4)
    assert res.status == "finished"
    assert max(np.abs(m.pose_error(q, "residual")).max() for q in res.q) < 1e-9
