"""The quadratic mass matrix M(eta) of a modal body with geometric stiffening is its mass
points' exact mass matrix to second order in eta (multibody.flex.modal_integrals).

The reference is the mass-weighted Gram sum_i m_i J_i^T J_i of the points' velocity
Jacobians with the foreshortening, written here from the point model alone: a point at
u_i = x_i + Phi_i eta - 1/2 a (eta^T G_i eta) moves with J_i [omega; v_o; eta'],
J_i = [-[u_i]x, I, Phi_i - a (G_i eta)^T]. M(eta) may differ from it by O(eta^3) only, so
the error must fall at least 8x per halving of eta (the truncation that kept the second
order in the rigid block only fell 4x).
"""
import numpy as np
import pytest

import multibody as mb
from multibody.flex.modal_integrals import check_integrals, mass_matrix_at, modal_data_from_integrals, \
    nodal_integrals
from multibody.spatial.so3 import skew

pytestmark = pytest.mark.filterwarnings("ignore:.*triangle inequality")  # a beam: a line of mass
pytest.importorskip("scipy")
from multibody.flex import beam_modes, load_modal_data  # noqa: E402


def _gram(points, eta):
    """sum_i m_i J_i^T J_i (+ the rotary inertias' J_r^T J J_r) of the deformed points."""
    x, P, m, G, a = (points[k] for k in ("positions", "trans_shapes", "masses", "shortening", "axis"))
    n = P.shape[2]
    M = np.zeros((6 + n, 6 + n))
    for i in range(m.size):
        g = G[i] @ eta
        u = x[i] + P[i] @ eta - 0.5 * (eta @ g) * a
        J = np.hstack([-skew(u), np.eye(3), P[i] - np.outer(a, g)])
        M += m[i] * J.T @ J
    if points.get("rotary_inertia") is not None:
        for Ji, R in zip(points["rotary_inertia"], points["rot_shapes"]):
            Jr = np.hstack([np.eye(3), np.zeros((3, 3)), R])
            M += Jr.T @ Ji @ Jr
    return M


def _cloud(rng, k=6, n=3):
    """Random mass points with shapes across the axis a and foreshortening matrices G_i."""
    a = rng.normal(size=3)
    a /= np.linalg.norm(a)
    P = rng.normal(size=(k, 3, n))
    P -= np.einsum("a,b,ibj->iaj", a, a, P)  # transverse to a
    B = rng.normal(size=(k, n, n))
    A = rng.normal(size=(k, 3, 3))
    return dict(positions=rng.normal(size=(k, 3)), trans_shapes=P, masses=rng.uniform(0.2, 1.0, k),
                shortening=B @ B.transpose(0, 2, 1), axis=a,
                rotary_inertia=0.01 * (A @ A.transpose(0, 2, 1) + np.eye(3)), rot_shapes=rng.normal(size=(k, 3, n)))


def _beam_points(n_modes=10, n_elements=20):
    """The Gauss-point mass points of beam_modes' 1 m cantilever (EI = 50, rhoA = 1)."""
    from scipy.linalg import eigh

    from multibody.flex.beam_element import BeamElement, assemble
    from multibody.flex.beam_integrals import beam_mass_points
    element = BeamElement(1.0 / n_elements, 0.0)
    K, M, _ = assemble(element, n_elements, 50.0, 1.0, 0.0, axial_force=lambda x: 0.0 * x)
    phi = np.zeros((K.shape[0], n_modes))
    _, phi[2:] = eigh(K[2:, 2:], M[2:, 2:], subset_by_index=[0, n_modes - 1])
    a, d = np.eye(3)[0], np.eye(3)[2]
    return beam_mass_points(element, n_elements, phi, 1.0, 0.0, a, d, np.cross(a, d), True)


def _errors(points, direction, sizes):
    M0, M1, M2 = nodal_integrals(**points)
    return [np.abs(mass_matrix_at(M0, M1, M2, s * direction) - _gram(points, s * direction)).max() for s in sizes]


@pytest.mark.parametrize("body", ["cloud", "beam"])
def test_quadratic_mass_matrix_is_the_gram_to_second_order(body):
    rng = np.random.default_rng(3)
    points = _cloud(rng) if body == "cloud" else _beam_points()
    sizes = [1e-2, 5e-3, 2.5e-3, 1.25e-3]
    for _ in range(3):
        direction = rng.normal(size=points["trans_shapes"].shape[2])
        err = _errors(points, direction, sizes)
        ratios = np.array(err[:-1]) / np.array(err[1:])
        assert np.all(ratios > 7.0), (err, ratios)  # O(eta^3) or better; 4 when a second-order term is off
    M0, M1, M2 = nodal_integrals(**points)
    np.testing.assert_allclose(mass_matrix_at(M0, M1, M2, np.zeros(M1.shape[0])), _gram(points, 0.0 * direction),
                               atol=1e-13 * np.abs(M0).max())


def test_pinned_beam_inertia_stays_positive_to_centimetre_deflections():
    """The pinned cantilever's [hinge; modes] block of M(eta) has an eigenvalue ~1e-5 at
    rest (its modes nearly reproduce the hinge's rotation). With every term to second
    order M(eta) stays positive definite at 5 cm tip deflection in the first mode and at
    5 mm with all ten modes at random (the rigid-block-only truncation failed from 14 mm
    and 0.8 mm on)."""
    points = _beam_points()
    M0, M1, M2 = nodal_integrals(**points)
    keep = [1] + list(range(6, 16))  # omega_y (the pin at the root) and the modes
    tip = points["trans_shapes"][-1, 2]
    rng = np.random.default_rng(0)
    for direction, deflection in ((np.eye(10)[0], 0.05), (rng.normal(size=10), 0.005)):
        eta = deflection / abs(tip @ direction) * direction
        assert np.linalg.eigvalsh(mass_matrix_at(M0, M1, M2, eta)[np.ix_(keep, keep)])[0] > 0.0


def test_full_second_order_integrals_validate_and_round_trip(tmp_path):
    rng = np.random.default_rng(4)
    points = _cloud(rng)
    M0, M1, M2 = nodal_integrals(**points)
    n = M1.shape[0]
    assert M2.shape == (n, n, 6 + n, 6 + n)
    S = M0[3:6, 6:]
    M1c, M2c = check_integrals("here", M1, M2, n, S)
    np.testing.assert_array_equal(M2c, M2)
    rigid_only = M2.copy()
    rigid_only[:, :, 6:] = rigid_only[:, :, :, 6:] = 0.0
    assert check_integrals("here", M1, rigid_only, n, S)[1].shape == (n, n, 6, 6)  # kept small
    bad = M2.copy()
    bad[0, 0, 3, 6] = bad[0, 0, 6, 3] = 1.0
    with pytest.raises(ValueError, match="here: M2\\[k, l\\]\\[3:6, 6:\\] \\(linear/modal\\) must be zero"):
        check_integrals("here", M1, bad, n, S)
    with pytest.raises(ValueError, match="here: M2 must be a finite array of shape"):
        check_integrals("here", M1, M2[:, :, :7, :7], n, S)
    data = modal_data_from_integrals(M0, M1, M2, np.ones(n), None, points["positions"][:1],
                                     np.zeros((1, 6, n)))
    data.save(tmp_path / "full.npz")
    back = load_modal_data(tmp_path / "full.npz")
    np.testing.assert_array_equal(back.M2, M2)
    m = mb.Multibody()
    body = m.add_modal_body("b", modal_data=back)
    eta = rng.normal(size=n)
    np.testing.assert_allclose(body.mass_matrix(eta), mass_matrix_at(M0, M1, M2, eta), atol=1e-12)


def test_foreshortening_needs_transverse_shapes():
    points = _cloud(np.random.default_rng(5))
    points["trans_shapes"] = points["trans_shapes"] + points["axis"][None, :, None]
    with pytest.raises(ValueError, match="shortening: the translational mode shapes must be transverse"):
        nodal_integrals(**points)


def test_beam_modes_carry_the_full_second_order_terms():
    data = beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=4)
    assert data.M2.shape == (4, 4, 10, 10) and np.any(data.M2[:, :, 6:, 6:])
    linear = beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=4, geometric_stiffening=False)
    assert linear.M2.shape == (4, 4, 6, 6)  # linear kinematics: the rigid block only


def _pinned_chain(n_bodies, eta_size, decay, seed=0):
    data = beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=10)
    m = mb.Multibody()
    m.add_serial_chain("b", n_bodies, modal_data=data)
    rng = np.random.default_rng(seed)
    q = 0.3 * rng.normal(size=m.nq)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] = eta_size * rng.normal(size=b.n_modes) / np.arange(1, 11) ** decay
    return m, q, 0.1 * rng.normal(size=m.nu), rng.normal(size=m.nu)


@pytest.mark.parametrize("eta_size, decay", [(1e-3, 0), (2e-2, 2)])
def test_pinned_chain_of_ten_mode_beams_at_centimetre_deflections(eta_size, decay):
    """bench_flex's chain of 10 beams (10 modes each), modal coordinates ~1e-3 in every mode
    (tip deflections ~1 cm), or 2e-2 / k^2 in mode k (~5 cm): forward dynamics runs (with the
    rigid-block-only M2 its inertia was singular from 5e-5 and 3e-3 on) and satisfies
    M udot + b = tau to rounding."""
    m, q, u, tau = _pinned_chain(10, eta_size, decay)
    udot = m.forward_dynamics(q, u, tau)
    M = m.mass_matrix(q)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))
    assert np.linalg.eigvalsh(M)[0] > 0.0
    scale = np.abs(M).max() * np.abs(udot).max() + np.abs(b).max() + np.abs(tau).max()
    assert np.abs(M @ udot + b - tau).max() <= 1e-12 * scale


@pytest.mark.parametrize("stiffening", [True, False])
def test_bias_force_is_lagrange_of_the_kernels_mass_matrix(stiffening):
    """b(q, u) - b(q, 0) = Mdot u - 1/2 d(u^T M u)/dq on a chain of pins and modes (q' = u),
    with dM/dq by central differences of the joint-space mass matrix: the kernel's bias
    (the packed M2 with and without modal rows) is the one of its own M(eta)."""
    data = beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=10, n_modes=4, geometric_stiffening=stiffening)
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    m.add_serial_chain("b", 3, modal_data=data)
    rng = np.random.default_rng(6)
    q = 0.3 * rng.normal(size=m.nq)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] = 0.02 * rng.normal(size=b.n_modes) / np.arange(1, 5) ** 2
    u = rng.normal(size=m.nu)
    h = 1e-5
    dM = []
    for i in range(m.nq):
        e = np.zeros(m.nq)
        e[i] = h
        dM.append((m.mass_matrix(q + e) - m.mass_matrix(q - e)) / (2 * h))
    dM = np.array(dM)
    want = np.einsum("i,iab,b->a", u, dM, u) - 0.5 * np.einsum("a,iab,b->i", u, dM, u)
    got = m.inverse_dynamics(q, u, np.zeros(m.nu)) - m.inverse_dynamics(q, np.zeros(m.nu), np.zeros(m.nu))
    np.testing.assert_allclose(got, want, atol=1e-7 * np.abs(want).max())
