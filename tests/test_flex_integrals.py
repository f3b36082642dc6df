"""Configuration-dependent modal integrals (multibody.flex.modal_integrals) and the flex
kernels' use of them (kernels/flex_body_inertia.py).

Checked against what they do not share code with: the mass points' own kinetic and
potential energy (finite differences of deformed node positions), the finite-element
model's mass and geometric stiffness matrices, Southwell's coefficient of a spinning
cantilever, and the power balance of the whole tree under gravity.
"""
import numpy as np
import pytest

import multibody as mb
from flex_models import total_energy
from multibody.algorithms.energy import strain_energy
from multibody.flex.modal_integrals import mass_matrix_at, modal_data_from_nodes, nodal_integrals
from multibody.spatial.so3 import skew

pytestmark = pytest.mark.filterwarnings("ignore:.*triangle inequality")  # a beam: a line of mass

pytest.importorskip("scipy")
from multibody.flex import beam_modes, load_modal_data  # noqa: E402


def _cloud(rng, k=5, n=3):
    x = rng.normal(size=(k, 3))
    masses = rng.uniform(0.2, 1.0, k)
    shapes = 0.3 * rng.normal(size=(k, 6, n))
    A = rng.normal(size=(k, 3, 3))
    J = 0.01 * (A @ A.transpose(0, 2, 1) + np.eye(3))
    return x, masses, shapes, J


def test_point_mass_integrals_are_the_mass_points_mass_matrix():
    """M0 + eta M1 + eta eta M2 equals L(eta)^T M_n L(eta) of the deformed points exactly
    (lumped masses, and a consistent nodal mass matrix)."""
    rng = np.random.default_rng(0)
    x, masses, shapes, J = _cloud(rng)
    k, n = x.shape[0], shapes.shape[2]
    B = rng.normal(size=(k, k))
    for Mn in (np.kron(np.diag(masses), np.eye(3)), np.kron(B @ B.T + k * np.eye(k), np.eye(3))):
        lumped = np.allclose(Mn, np.diag(np.diag(Mn)))
        M0, M1, M2 = nodal_integrals(x, shapes[:, 3:], masses=masses if lumped else None,
                                     mass_matrix=None if lumped else Mn, rotary_inertia=J, rot_shapes=shapes[:, :3])
        for _ in range(3):
            eta = rng.normal(size=n)
            L = np.zeros((3 * k, 6 + n))
            for i in range(k):
                L[3 * i:3 * i + 3] = np.hstack([-skew(x[i] + shapes[i, 3:] @ eta), np.eye(3), shapes[i, 3:]])
            direct = L.T @ Mn @ L
            for i in range(k):
                Lr = np.hstack([np.eye(3), np.zeros((3, 3)), shapes[i, :3]])
                direct += Lr.T @ J[i] @ Lr
            np.testing.assert_allclose(mass_matrix_at(M0, M1, M2, eta), direct, atol=1e-12 * np.abs(direct).max())


def _cloud_body(m, name, rng):
    x, masses, shapes, _ = _cloud(rng)
    data = modal_data_from_nodes(x, shapes[:, 3:], rng.uniform(5, 50, shapes.shape[2]), masses=masses)
    body = m.add_modal_body(name, modal_data=data, nodes={f"{name}{i}": i for i in range(x.shape[0])})
    return body, masses


def test_energies_equal_those_of_the_deformed_mass_points():
    rng = np.random.default_rng(1)
    g = np.array([0.4, -0.3, -9.81])
    m = mb.Multibody(gravity=g)
    body, masses = _cloud_body(m, "A", rng)
    m.add_hinge(None, body, "free")
    q = np.asarray(m.random_q(rng), dtype=float)
    q[m.modal_slice(body)] = 0.3 * rng.normal(size=body.n_modes)
    u = rng.normal(size=m.nu)
    h = 1e-5

    def points(q):
        return np.array([m.body_pose(q, f"A{i}")[:3, 3] for i in range(masses.size)])

    v = (points(m.integrate(q, u, h)) - points(m.integrate(q, u, -h))) / (2 * h)
    T = 0.5 * np.sum(masses * np.sum(v * v, axis=1))
    assert abs(m.kinetic_energy(q, u) - T) <= 1e-8 * T
    V = -np.sum(masses * (points(q) @ g))
    assert abs(m.potential_energy(q) - strain_energy(m, q) - V) <= 1e-12 * (abs(V) + 1.0)  # gravity's part


def _tree(rng, gravity=(0.3, -0.2, -9.81)):
    """Rigid base - point-mass body (general integrals) - rigid body on a deforming node -
    a beam with geometric stiffening on another node - a rigid tip body."""
    m = mb.Multibody(gravity=gravity)
    b0 = m.add_body("b0", mass=1.0, com=[0.1, 0, 0], inertia=[0.1, 0, 0, 0.2, 0, 0.3])
    m.add_hinge(None, b0, "pin", axis=(0, 0, 1))
    A, _ = _cloud_body(m, "A", rng)
    m.add_hinge(b0, A, "spherical")
    c = m.add_body("c", mass=0.5, com=[0.05, 0.1, 0], inertia=[0.01, 0, 0, 0.02, 0, 0.03])
    m.add_hinge("A2", c, "pin", axis=(0, 1, 0))
    data = beam_modes(1.5, 80.0, 0.8, n_elements=12, n_modes=3, rhoI=0.002, nodes=[1.5])
    beam = m.add_modal_body("beam", modal_data=data, nodes={"beam_tip": 0})
    m.add_hinge("A4", beam, "universal", axes=[(0, 1, 0), (0, 0, 1)])  # not about its own axis
    tip = m.add_body("tip", mass=0.2, com=[0.02, 0, 0], inertia=[0.001, 0, 0, 0.001, 0, 0.001])
    m.add_hinge("beam_tip", tip, "pin", axis=(1, 0, 0))
    return m


def _state(m, rng):
    """Random state; the beam deflected as a load would (higher modes less, by (w1/w)^2)
    by about 2 cm: the second-order model of its foreshortening holds for small
    deflections (its M(eta) stays positive definite; see modal_integrals)."""
    q = np.asarray(m.random_q(rng), dtype=float)
    for b in m.modal_bodies:
        w2 = b.stiffness / b.stiffness[0]
        q[m.modal_slice(b)] = (0.02 / w2 if b.name == "beam" else 0.3) * rng.normal(size=b.n_modes)
    return q, rng.normal(size=m.nu)


@pytest.mark.parametrize("seed", [0, 1])
def test_identities_with_integrals(seed):
    rng = np.random.default_rng(seed)
    m = _tree(rng)
    q, u = _state(m, rng)
    udot = rng.normal(size=m.nu)
    M = m.mass_matrix(q)
    assert np.abs(M - M.T).max() <= 1e-12 * np.abs(M).max()
    tau = m.inverse_dynamics(q, u, udot)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))
    np.testing.assert_allclose(M @ udot + b, tau, rtol=0, atol=1e-9 * np.abs(tau).max())
    np.testing.assert_allclose(m.forward_dynamics(q, u, tau), udot, rtol=0, atol=1e-9 * np.abs(udot).max())
    assert abs(m.kinetic_energy(q, u) - 0.5 * u @ M @ u) <= 1e-12 * abs(u @ M @ u)


def test_power_balance_under_gravity_with_integrals():
    """d/dt (T + V_gravity + V_strain) = u^T tau along the motion (central differences):
    it fails for any missing Mdot v or dT/deta term, or gravity inconsistent with M(eta)."""
    rng = np.random.default_rng(3)
    m = _tree(rng)
    q, u = _state(m, rng)
    for tau in (np.zeros(m.nu), rng.normal(size=m.nu)):
        ud = m.forward_dynamics(q, u, tau)

        def rate(h):  # central difference along (u, udot); its error is O(h^2)
            E = [total_energy(m, m.integrate(q, u, s * h), u + s * h * ud) for s in (1, -1)]
            return (E[0] - E[1]) / (2 * h)

        richardson = (4 * rate(2.5e-5) - rate(5e-5)) / 3  # O(h^4): the beam's stiff modes
        assert abs(richardson - u @ tau) <= 1e-8 * (abs(total_energy(m, q, u)) + abs(u @ tau))


@pytest.mark.parametrize("theory", ["euler-bernoulli", "timoshenko"])
def test_beam_integrals_match_the_finite_element_model(theory):
    """The Gauss-point integrals at eta = 0 give the FE model's rigid inertia, S, S_rot and
    modal mass (from its consistent mass matrix); their foreshortening part equals the FE
    geometric stiffness of the centrifugal axial force: two routes to the same stiffening."""
    from scipy.linalg import eigh

    from multibody.flex.beam_element import BeamElement, assemble
    from multibody.flex.beam_integrals import beam_integrals
    L, EI, rhoA, rhoI, n_el = 2.0, 3.0e3, 1.5, 0.01, 30
    e = EI / 4.0e4 if theory == "timoshenko" else 0.0
    element = BeamElement(L / n_el, e)
    K, Mfe, Kg = assemble(element, n_el, EI, rhoA, rhoI, axial_force=lambda x: rhoA * (L * L - x * x) / 2.0)
    phi = np.zeros((K.shape[0], 4))
    _, phi[2:] = eigh(K[2:, 2:], Mfe[2:, 2:], subset_by_index=[0, 3])
    a, d = np.eye(3)[0], np.eye(3)[2]  # along x, bending along z, sections turning about -y
    M0, M1, M2 = beam_integrals(element, n_el, phi, rhoA, rhoI, a, d, np.cross(a, d), True)
    rigid = np.zeros((K.shape[0], 6))  # nodal (w, psi) of the rigid motions [omega; v]
    x = np.arange(n_el + 1) * element.h
    rigid[0::2, 1], rigid[1::2, 1] = -x, -1.0  # rotation about y: w = -x omega_y, psi = -omega_y
    rigid[0::2, 5] = 1.0  # translation along z
    Lfe = np.hstack([rigid, phi])
    keep = [1, 5] + list(range(6, 10))
    np.testing.assert_allclose(M0[np.ix_(keep, keep)], (Lfe.T @ Mfe @ Lfe)[np.ix_(keep, keep)], atol=1e-11)
    assert M0[3, 3] == pytest.approx(rhoA * L, rel=1e-13)
    np.testing.assert_allclose(M0[6:, 6:], np.eye(4), atol=1e-11)
    kg = phi.T @ Kg @ phi
    np.testing.assert_allclose(M2[:, :, 2, 2], -kg, atol=1e-10)  # spin about z, across the beam
    np.testing.assert_allclose(M2[:, :, 1, 1] - M2[:, :, 0, 0], -kg, atol=1e-10)


def _spinning_cantilever(stiffening, bending_axis):
    data = beam_modes(1.0, 1.0, 1.0, n_elements=40, n_modes=4, bending_axis=bending_axis,
                      geometric_stiffening=stiffening)
    m = mb.Multibody(gravity=(0, 0, 0))
    hub = m.add_body("hub", mass=1.0, inertia=[1e9, 0, 0, 1e9, 0, 1e9])
    m.add_hinge(None, hub, "pin", axis=(0, 0, 1))
    beam = m.add_modal_body("beam", modal_data=data)
    m.add_hinge(hub, beam, "locked")
    return m, beam, data


def _modal_frequencies_squared(m, beam, spin):
    """Eigenvalues of -d(eta'')/d(eta) about the steadily spinning undeformed beam."""
    q, u = np.zeros(m.nq), np.zeros(m.nu)
    u[0] = spin
    s = m.modal_slice(beam)
    A = np.zeros((beam.n_modes, beam.n_modes))
    h = 1e-6
    for j in range(beam.n_modes):
        qp, qm = q.copy(), q.copy()
        qp[s.start + j] += h
        qm[s.start + j] -= h
        A[:, j] = (m.forward_dynamics(qp, u, np.zeros(m.nu))[m.modal_u_slice(beam)]
                   - m.forward_dynamics(qm, u, np.zeros(m.nu))[m.modal_u_slice(beam)]) / (2 * h)
    return np.sort(np.linalg.eigvals(-A).real)


def test_spinning_cantilever_stiffens_by_southwells_coefficient():
    """Flapping (out of the spin plane) of a cantilever spun about its root: omega^2 =
    omega_0^2 + 1.193 Omega^2 for the first mode (Southwell's coefficient of a uniform
    beam, zero hub radius); the whole spectrum equals that of diag(k) + Omega^2 Kg from the
    FE geometric stiffness. Without geometric stiffening the flap modes do not stiffen, and
    in-plane bending softens by Omega^2 until it diverges past the first frequency."""
    from scipy.linalg import eigh
    spin = 4.0
    m, beam, data = _spinning_cantilever(True, "z")
    w2 = _modal_frequencies_squared(m, beam, spin)
    fe = eigh(np.diag(data.stiffness) + spin ** 2 * data.Kg_centrifugal, eigvals_only=True)
    np.testing.assert_allclose(w2, fe, rtol=1e-6)
    slow = 0.5  # Southwell's coefficient is the slope at small spin
    slope = (_modal_frequencies_squared(m, beam, slow)[0] - data.stiffness[0]) / slow ** 2
    assert slope == pytest.approx(1.193, abs=2e-3)
    m, beam, data = _spinning_cantilever(False, "z")
    np.testing.assert_allclose(_modal_frequencies_squared(m, beam, spin), data.stiffness, rtol=1e-6)
    m, beam, data = _spinning_cantilever(False, "y")  # in-plane: softening, unstable past omega_1
    fast = 1.2 * np.sqrt(data.stiffness[0])
    assert _modal_frequencies_squared(m, beam, fast)[0] < 0.0
    m, beam, data = _spinning_cantilever(True, "y")
    assert _modal_frequencies_squared(m, beam, fast)[0] > 0.0


def test_modal_data_from_nodes_round_trips_through_a_file(tmp_path):
    rng = np.random.default_rng(2)
    x, masses, shapes, J = _cloud(rng)
    data = modal_data_from_nodes(x, shapes, [1.0, 2.0, 3.0], masses=masses, rotary_inertia=J)
    assert data.mass == pytest.approx(masses.sum())
    np.testing.assert_allclose(data.com, masses @ x / masses.sum())
    data.save(tmp_path / "cloud.npz")
    back = load_modal_data(tmp_path / "cloud.npz")
    np.testing.assert_array_equal(back.M1, data.M1)
    np.testing.assert_array_equal(back.M2, data.M2)


def test_bad_integrals_name_the_body():
    m = mb.Multibody()
    S = np.array([[0.0, 0.1], [0.2, 0.0], [0.0, 0.0]])
    from multibody.flex.modal_integrals import default_integrals
    M1, M2 = default_integrals(S)
    with pytest.raises(ValueError, match="'b'.*M1 must be a finite array of shape"):
        m.add_modal_body("b", 2, mass=1.0, S=S, M1=M1[:, :, :7], M2=M2)
    with pytest.raises(ValueError, match="'b'.*cross-product matrix of S"):
        m.add_modal_body("b", 2, mass=1.0, S=2 * S, M1=M1, M2=M2)
    bad = M2.copy()
    bad[0, 1, 0, 0] = 1.0
    with pytest.raises(ValueError, match="'b'.*M2\\[k, l\\] must be symmetric"):
        m.add_modal_body("b", 2, mass=1.0, S=S, M1=M1, M2=bad)
    with pytest.raises(ValueError, match="'b'.*both M1 and M2"):
        m.add_modal_body("b", 2, mass=1.0, S=S, M1=M1)
    with pytest.raises(ValueError, match="masses="):
        modal_data_from_nodes(np.zeros((2, 3)), np.zeros((2, 3, 1)), [1.0])
