"""Modal (flexible) bodies in the tree: beam theory, identities, energy, finite differences.

The flex kernels (kernels/flex_*.py) are checked against things they do not share code
with: Euler-Bernoulli frequencies, finite differences of the link poses (velocities) and of
the energy along the motion (power balance: it catches any wrong velocity-product term),
and the three dynamics algorithms against one another.
"""
import numpy as np
import pytest

import multibody as mb
from flex_models import flex_state as _state, flexible_tree
from multibody.algorithms.energy import strain_energy
from multibody.spatial import rotvec_to_matrix

def test_cantilever_frequencies_from_the_library_mass_matrix_match_euler_bernoulli():
    pytest.importorskip("scipy")
    L, EI, rhoA = 2.0, 3.0e3, 1.5
    from multibody.flex import beam_modes
    data = beam_modes(L, EI, rhoA, n_elements=60, n_modes=4)
    m = mb.Multibody()
    beam = m.add_modal_body("beam", modal_data=data, nodes={"tip": data.node_positions.shape[0] - 1})
    m.add_hinge(None, beam, "locked")
    q = np.zeros(m.nq)
    M = m.mass_matrix(q)
    K = np.diag(beam.stiffness)
    w = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    theory = np.array([1.875104, 4.694091, 7.854757, 10.995541]) ** 2 * np.sqrt(EI / (rhoA * L ** 4))
    np.testing.assert_allclose(w, theory, rtol=1e-3)
    assert m.modal_slice("beam") == slice(0, 4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dynamics_identities_on_flexible_trees(seed):
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, gravity=(0.3, -0.2, -9.81))
    c = m.compiled
    q, u = _state(m, rng)
    udot = rng.normal(size=c.nu)
    M = m.mass_matrix(q)
    assert np.abs(M - M.T).max() <= 1e-12 * np.abs(M).max()
    assert np.linalg.eigvalsh(M).min() > 0
    tau = m.inverse_dynamics(q, u, udot)
    b = m.inverse_dynamics(q, u, np.zeros(c.nu))
    np.testing.assert_allclose(M @ udot + b, tau, rtol=0, atol=1e-9 * np.abs(tau).max())
    np.testing.assert_allclose(m.forward_dynamics(q, u, tau), udot, rtol=0, atol=1e-9 * np.abs(udot).max())
    assert abs(m.kinetic_energy(q, u) - 0.5 * u @ M @ u) <= 1e-12 * abs(u @ M @ u)


@pytest.mark.parametrize("coupling", [False, True])
def test_power_balance_along_the_motion(coupling):
    """d/dt (kinetic + strain energy) = 0 without gravity and damping: central differences
    of the energy along (u, udot) from forward dynamics."""
    rng = np.random.default_rng(5)
    m = flexible_tree(rng, coupling=coupling)
    q, u = _state(m, rng)
    ud = m.forward_dynamics(q, u, np.zeros(m.nu))

    def energy(q, u):
        return m.kinetic_energy(q, u) + strain_energy(m, q)

    h = 1e-5
    rate = (energy(m.integrate(q, u, h), u + h * ud) - energy(m.integrate(q, u, -h), u - h * ud)) / (2 * h)
    assert abs(rate) <= 1e-7 * energy(q, u)
    # the same with a modal force: the power is u^T tau
    tau = rng.normal(size=m.nu)
    ud = m.forward_dynamics(q, u, tau)
    rate = (energy(m.integrate(q, u, h), u + h * ud) - energy(m.integrate(q, u, -h), u - h * ud)) / (2 * h)
    assert abs(rate - u @ tau) <= 1e-7 * abs(u @ tau) + 1e-7


def _link_poses(m, q):
    """World poses (n_links, 4, 4) of the link frames at q: the flex kinematics' work array
    ``pose`` after a call that runs them (the centre of mass)."""
    from multibody.kernels import flex_layout as FL
    d = m.create_data()
    m.center_of_mass(q, data=d)
    pose = d.flex_work.pose
    T = np.zeros((m.compiled.n_links, 4, 4))
    T[:, :3, :3] = pose[:, FL.POSE_R:FL.POSE_R + 9].reshape(-1, 3, 3)
    T[:, :3, 3] = pose[:, FL.POSE_P:FL.POSE_P + 3]
    T[:, 3, 3] = 1.0
    return T


def test_link_velocities_are_the_derivatives_of_the_deformed_poses():
    rng = np.random.default_rng(7)
    m = flexible_tree(rng)
    c = m.compiled
    q, u = _state(m, rng)
    d = m.create_data()
    m.kinetic_energy(q, u, data=d)  # fills the flex work (V) of d
    from multibody.kernels import flex_layout as FL
    h = 1e-6
    Tp, Tm, T0 = (_link_poses(m, m.integrate(q, u, s)) for s in (h, -h, 0.0))
    for k in range(c.n_links):
        dT = (Tp[k] - Tm[k]) / (2 * h)
        W = T0[k][:3, :3].T @ dT[:3, :3]
        twist = np.r_[W[2, 1], W[0, 2], W[1, 0], T0[k][:3, :3].T @ dT[:3, 3]]
        vo = c.flex.fi[k, FL.VOFF]
        np.testing.assert_allclose(twist, d.flex_work.V[vo:vo + 6], atol=1e-7)


def test_deformed_node_pose_follows_its_mode_shapes():
    m = mb.Multibody()
    beam = m.add_modal_body("beam", 2, mass=1.0, stiffness=[1.0, 2.0])
    m.add_hinge(None, beam, "locked")
    Pi = np.array([[0, 0], [0, 0], [0.5, 0], [0, 0], [1.0, 0.2], [0, 0]], dtype=float)
    T = np.eye(4)
    T[:3, 3] = [2.0, 0, 0]
    m.add_node("tip", beam, T, mode_shapes=Pi)
    q = np.array([0.1, 0.3])
    P = m.body_pose(q, "tip")
    np.testing.assert_allclose(P[:3, 3], [2.0, 0.1 + 0.06, 0.0], atol=1e-15)
    np.testing.assert_allclose(P[:3, :3], rotvec_to_matrix([0.0, 0.0, 0.05]), atol=1e-15)


def test_bad_modal_input_names_the_body_or_node():
    m = mb.Multibody()
    with pytest.raises(ValueError, match="'b'.*stiffness must be >= 0"):
        m.add_modal_body("b", 2, mass=1.0, stiffness=[1.0, -1.0])
    with pytest.raises(ValueError, match="'b'.*stiffness must be 2 finite values"):
        m.add_modal_body("b", 2, mass=1.0, stiffness=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="'b'.*modal_mass must be positive definite"):
        m.add_modal_body("b", 2, mass=1.0, modal_mass=[[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="'b'.*n_modes"):
        m.add_modal_body("b", 0, mass=1.0)
    beam = m.add_modal_body("beam", 2, mass=1.0)
    with pytest.raises(ValueError, match="node 'n' on modal body 'beam'.*\\(6, 2\\)"):
        m.add_node("n", beam, np.eye(4), mode_shapes=np.zeros((6, 3)))
    rigid = m.add_body("r", mass=1.0)
    with pytest.raises(ValueError, match="'r' is rigid"):
        m.add_node("n2", rigid, np.eye(4), mode_shapes=np.zeros((6, 2)))
    with pytest.raises(ValueError, match="stiffness must be >= 0"):
        beam.stiffness = [-1.0, 0.0]


def test_non_finite_modal_coordinate_names_its_body_and_mode():
    """A NaN in a modal coordinate or rate is named by its body and mode (the rigid check
    runs first and used to answer 'index out of range' for these entries)."""
    m = mb.Multibody()
    m.add_serial_chain("b", 2, modal_data=mb.flex.beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=6, n_modes=3))
    q, u = np.zeros(m.nq), np.zeros(m.nu)
    bad_u = u.copy()
    bad_u[m.modal_u_slice("b0").start + 2] = np.nan
    with pytest.raises(ValueError, match=r"u\[3\] is not finite \(nan\); it is mode 2 of modal body 'b0'"):
        m.forward_dynamics(q, bad_u, u)
    bad_q = q.copy()
    bad_q[m.modal_slice("b1").start + 1] = np.inf
    with pytest.raises(ValueError, match=r"q\[6\] is not finite \(inf\); it is mode 1 of modal body 'b1'"):
        m.inverse_dynamics(bad_q, u, u)
    with pytest.raises(ValueError, match=r"tau\[0\] is not finite .*hinge 'b0_hinge'"):
        m.forward_dynamics(q, u, np.where(np.arange(m.nu) == 0, np.nan, 0.0))
