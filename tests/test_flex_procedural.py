"""Procedural flexible systems: ``add_serial_chain`` / ``add_tree`` with ``modal_data``.

A generated chain of modal bodies must be the chain one builds by hand (same coordinates,
same M, same udot), its rigid part the rigid chain of rods with the same mass properties
(M's hinge block at eta = 0), and a body's deformation must move every body after it.
"""
import numpy as np
import pytest

import multibody as mb

pytest.importorskip("scipy")
from multibody.flex import beam_modes  # noqa: E402

L, EI, RHOA = 0.8, 40.0, 1.3


@pytest.fixture(scope="module")
def data():
    # two sampled nodes: mid-span and the tip (the default tip_node is the last)
    return beam_modes(L, EI, RHOA, n_elements=16, n_modes=3, nodes=[L / 2, L])


def _random_state(m, rng):
    """Hinge angles ~ 0.5 rad, small modal coordinates (tip deflections of a few mm: the
    body's M(eta) stays positive definite; eta is in kg^1/2 m)."""
    q = 0.5 * rng.normal(size=m.nq)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] = 1e-3 * rng.normal(size=b.n_modes)
    return q, rng.normal(size=m.nu)


def _by_hand(data, n, kind="pin", axis=(0, 1, 0)):
    m = mb.Multibody(gravity=(0.1, 0.0, -9.81))
    parent = None
    for k in range(n):
        b = m.add_modal_body(f"beam{k}", modal_data=data, nodes={f"beam{k}_tip": 1})
        m.add_hinge(parent, b, kind, name=f"beam{k}_hinge", axis=axis)
        parent = f"beam{k}_tip"
    return m


@pytest.mark.parametrize("kind", ["pin", "universal"])  # (a beam has no inertia about its axis)
def test_generated_flexible_chain_is_the_chain_built_by_hand(data, kind):
    m = mb.Multibody(gravity=(0.1, 0.0, -9.81))
    bodies = m.add_serial_chain("beam", 4, kind=kind, modal_data=data)
    h = _by_hand(data, 4, kind)
    assert [b.name for b in bodies] == [f"beam{k}" for k in range(4)]
    assert m.hinge_names == h.hinge_names and m.node_names == h.node_names
    assert (m.nq, m.nu) == (h.nq, h.nu) == (4 * (data.n_modes + (1 if kind == "pin" else 2)),) * 2
    rng = np.random.default_rng(3)
    q, u = _random_state(m, rng)
    tau = rng.normal(size=m.nu)
    M, Mh = m.mass_matrix(q), h.mass_matrix(q)
    np.testing.assert_allclose(M, Mh, rtol=0, atol=1e-13 * np.abs(Mh).max())
    ud, udh = m.forward_dynamics(q, u, tau), h.forward_dynamics(q, u, tau)
    np.testing.assert_allclose(ud, udh, rtol=0, atol=1e-12 * np.abs(udh).max())
    # and the generated model's own identity M udot + b = tau (b holds the elastic forces K eta),
    # as a componentwise backward error: cond(M) is 5e7 here and |b| 1e4, so a bound on the
    # residual alone sits at rounding (4e-15 of the terms' scale; a dense solve 1e-16)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))
    scale = np.abs(M) @ np.abs(ud) + np.abs(b) + np.abs(tau)
    assert np.max(np.abs(M @ ud + b - tau) / scale) < 1e-13


def test_rigid_part_is_the_rigid_chain_of_the_same_mass_properties(data):
    """At eta = 0 the hinge block of M is the rigid chain's: rods of the beam's mass and
    inertia, as long as the distance to the tip node (a wrong attachment point fails)."""
    n = 5
    m = mb.Multibody()
    m.add_serial_chain("beam", n, modal_data=data)
    r = mb.Multibody()
    r.add_serial_chain("rod", n, mass=float(data.mass), length=L, inertia=data.inertia)
    rng = np.random.default_rng(4)
    q = np.zeros(m.nq)
    hinge_q = [m.q_slice(f"beam{k}_hinge").start for k in range(n)]
    q[hinge_q] = rng.uniform(-1.5, 1.5, size=n)
    M = m.mass_matrix(q)
    Mr = r.mass_matrix(q[hinge_q])
    np.testing.assert_allclose(M[np.ix_(hinge_q, hinge_q)], Mr, rtol=0, atol=1e-13 * np.abs(Mr).max())


def test_deformation_moves_every_following_body(data):
    """With the hinges at zero, body 1's origin sits at body 0's deformed tip, p0 + Pi_t eta_0,
    rotated by exp(Pi_r eta_0); body 2 follows both deformations."""
    m = mb.Multibody()
    m.add_serial_chain("beam", 3, modal_data=data)
    q = np.zeros(m.nq)
    eta0 = np.array([0.05, -0.02, 0.01])
    q[m.modal_slice("beam0")] = eta0
    Pi = data.mode_shapes[1]
    tip = data.node_positions[1] + Pi[3:] @ eta0
    np.testing.assert_allclose(m.body_pose(q, "beam1")[:3, 3], tip, atol=1e-14)
    R = mb.spatial.rotvec_to_matrix(Pi[:3] @ eta0)
    np.testing.assert_allclose(m.body_pose(q, "beam1")[:3, :3], R, atol=1e-14)
    np.testing.assert_allclose(m.body_pose(q, "beam2")[:3, 3], tip + R @ data.node_positions[1], atol=1e-14)


def test_generated_flexible_tree_and_mixed_chains(data):
    m = mb.Multibody()
    bodies = m.add_tree("t", branch_length=2, n_branches=2, depth=2, modal_data=data, kind="universal")
    assert len(bodies) == 6 and all(b.n_modes == data.n_modes for b in bodies)
    # each branch of the second level hangs from the tip node of the first branch's last body
    for b in ("t0_0", "t1_0"):
        assert m.hinge(f"{b}_hinge").parent_node is m.node("t_1_tip")
    # a rigid chain appended to a generated modal body hangs from its tip node too
    m.add_serial_chain("rod", 2, parent="t0_1", length=0.3)
    assert m.hinge("rod0_hinge").parent_node is m.node("t0_1_tip")
    assert m.hinge("rod1_hinge").parent_node is None
    rng = np.random.default_rng(6)
    q, u = _random_state(m, rng)
    udot = rng.normal(size=m.nu)
    tau = m.inverse_dynamics(q, u, udot)
    M = m.mass_matrix(q)
    np.testing.assert_allclose(M @ udot, tau - m.inverse_dynamics(q, u, np.zeros(m.nu)), rtol=0,
                               atol=1e-12 * np.abs(tau).max())
    ud = m.forward_dynamics(q, u, tau)  # M is ill-conditioned (stiff modes, light links): compare forces
    np.testing.assert_allclose(M @ ud, M @ udot, rtol=0, atol=1e-12 * np.abs(tau).max())


def test_tip_node_picks_the_attachment(data):
    m = mb.Multibody()
    m.add_serial_chain("beam", 2, modal_data=data, tip_node=0)
    q = np.zeros(m.nq)
    np.testing.assert_allclose(m.body_pose(q, "beam1")[:3, 3], data.node_positions[0], atol=1e-15)


def test_rigid_chains_are_unchanged():
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    m.add_serial_chain("k", 1, parent="l2", mass=2.0, length=0.5)
    q = np.zeros(m.nq)
    np.testing.assert_allclose(m.frame_pose(q, "k0")[:3, 3], [3.0, 0, 0], atol=1e-15)
    assert m.body("k0").mass == 2.0 and m.body("l0").rod_length == 1.0


def test_bad_procedural_arguments_say_which(data):
    m = mb.Multibody()
    with pytest.raises(ValueError, match="mass, length: .*from modal_data"):
        m.add_serial_chain("a", 2, modal_data=data, mass=1.0, length=2.0)
    with pytest.raises(ValueError, match="inertia: "):
        m.add_tree("a", 1, 1, 1, modal_data=data, inertia=np.eye(3))
    with pytest.raises(TypeError, match="modal_data: expected a multibody.flex.ModalData"):
        m.add_serial_chain("a", 2, modal_data={"mass": 1.0})
    with pytest.raises(ValueError, match="tip_node: .* 2 sampled nodes"):
        m.add_serial_chain("a", 2, modal_data=data, tip_node=2)
    with pytest.raises(ValueError, match="tip_node"):
        m.add_serial_chain("a", 2, modal_data=data, tip_node=1.0)
    with pytest.raises(ValueError, match="kind: a 'locked' hinge cannot hang from a deforming tip node"):
        m.add_serial_chain("a", 2, modal_data=data, kind="locked")
    with pytest.raises(ValueError, match="n_bodies must be a positive integer"):
        m.add_serial_chain("a", 0, modal_data=data)
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        m.add_tree("a", 1, 1, 0, modal_data=data)
    assert m.bodies == [] or all(b.name == "world" for b in m.bodies)  # nothing half-built
