"""Analytic derivatives of the dynamics of trees with modal (flexible) bodies
(kernels/flex_dynamics_derivatives.py) and the modal analysis of flexible systems: central
differences along ``integrate`` on random flexible trees, the identities with M and M^-1,
Euler-Bernoulli's free-free beam (one body, and chains of cantilever segments), Southwell's
spinning cantilever, the spacecraft's modes."""
import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes, modal_data_from_nodes
from multibody.kernels import flex_layout as FL
from flex_models import flexible_tree
from test_derivatives import assert_close, differences

TOL = 1e-6
ROOTS = ["pin", "free", "free_quat", "spherical_quat"]


def flexible_model(rng, root, gravity=(0.0, 0.0, -9.81)):
    """A rigid root body (hinge ``root``), a modal body of random modes on a ball hinge with
    a rigid body hanging from it by a pin, a modal body of point masses (second-order
    integrals) on a universal hinge, and a beam_modes cantilever (geometric stiffening, full
    M2) on a slider: every link hangs from a rigid frame of its parent."""
    m = mb.Multibody(gravity=gravity)
    b0 = m.add_body("b0", mass=1.0, com=[0.1, 0, 0], inertia=[0.1, 0, 0, 0.2, 0, 0.3])
    m.add_hinge(None, b0, root, axis=(0, 0, 1))
    nm = 3
    A = rng.normal(size=(nm, nm))
    beam = m.add_modal_body("beam", nm, mass=2.0, com=[0.5, 0.02, 0], inertia=[0.1, 0.01, 0, 0.3, 0, 0.35],
                            modal_mass=np.eye(nm) + 0.1 * A @ A.T, stiffness=rng.uniform(5, 50, nm),
                            damping=rng.uniform(0.1, 1.0, nm),
                            S=0.1 * rng.normal(size=(3, nm)), S_rot=0.1 * rng.normal(size=(3, nm)))
    T = np.eye(4)
    T[:3, 3] = [0.3, 0, 0]
    m.add_hinge(b0, beam, "spherical", T_parent_joint=T)
    child = m.add_body("child", mass=0.5, com=[0.1, 0.05, 0], inertia=[0.01, 0, 0, 0.02, 0, 0.03])
    T2 = np.eye(4)
    T2[:3, 3] = [1.0, 0.1, 0]
    m.add_hinge(beam, child, "pin", axis=(0, 1, 0), T_parent_joint=T2)
    x, shapes = rng.normal(size=(5, 3)), 0.3 * rng.normal(size=(5, 3, 2))
    points = modal_data_from_nodes(x, shapes, stiffness=rng.uniform(10, 20, 2), masses=rng.uniform(0.5, 1.5, 5))
    m.add_hinge(b0, m.add_modal_body("points", modal_data=points), "universal", axes=[(1, 0, 0), (0, 1, 0)])
    cantilever = beam_modes(1.5, 80.0, 1.2, n_elements=12, n_modes=2, damping_ratio=0.02)
    m.add_hinge(b0, m.add_modal_body("cantilever", modal_data=cantilever), "slider", axis=(0, 0.6, 0.8))
    return m


def state(m, rng):
    q = np.asarray(m.random_q(rng), dtype=float)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] = 0.2 * rng.normal(size=b.n_modes)
    return q, *rng.normal(size=(2, m.nu))


@pytest.mark.parametrize("root", ROOTS)
@pytest.mark.parametrize("with_wrenches", [False, True])
def test_flexible_trees_match_central_differences(root, with_wrenches):
    rng = np.random.default_rng(ROOTS.index(root))
    m = flexible_model(rng, root)
    assert m.compiled.flex is not None and any(b.n_modes for b in m.modal_bodies)
    q, u, udot = state(m, rng)
    f_ext = {"child": rng.normal(size=6), "beam": rng.normal(size=6), "b0": rng.normal(size=6)} \
        if with_wrenches else None
    dq, du, M = m.inverse_dynamics_derivatives(q, u, udot, f_ext=f_ext)
    Dq, Du = differences(m, m.inverse_dynamics, q, u, udot, f_ext)
    assert_close(dq, Dq, TOL, f"{root} dtau/dq")
    assert_close(du, Du, TOL, f"{root} dtau/du")
    assert np.array_equal(M, m.mass_matrix(q))
    tau = rng.normal(size=m.nu)
    dq, du, Minv = m.forward_dynamics_derivatives(q, u, tau, f_ext=f_ext)
    Dq, Du = differences(m, m.forward_dynamics, q, u, tau, f_ext)
    assert_close(dq, Dq, TOL, f"{root} dudot/dq")
    assert_close(du, Du, TOL, f"{root} dudot/du")
    assert_close(Minv, m.inverse_mass_matrix(q), 1e-12, "M^-1")


@pytest.mark.parametrize("seed", [0, 1])
def test_links_on_deforming_nodes_match_central_differences(seed):
    """flex_models.flexible_tree: children of every hinge kind hanging from deforming nodes of
    a modal body (their Phi and node bias move with eta) and a modal body on one of them, with
    gravity and wrenches at bodies (and, seed 1, the same tree with pins only)."""
    rng = np.random.default_rng(seed)
    kinds = ["pin"] if seed else ["pin", "slider", "spherical", "universal", "free", "cylindrical"]
    m = flexible_tree(rng, kinds=kinds, gravity=(0.0, 0.0, -9.81))
    assert np.any(m.compiled.flex.fi[:, FL.NODE] >= 0)
    q, u, udot = state(m, rng)
    f_ext = {"c0": rng.normal(size=6), "tip_panel": rng.normal(size=6)}
    dq, du, M = m.inverse_dynamics_derivatives(q, u, udot, f_ext=f_ext)
    Dq, Du = differences(m, m.inverse_dynamics, q, u, udot, f_ext)
    assert_close(dq, Dq, TOL, "dtau/dq")
    assert_close(du, Du, TOL, "dtau/du")
    assert np.array_equal(M, m.mass_matrix(q))
    dq, du, _ = m.forward_dynamics_derivatives(q, u, udot, f_ext=f_ext)
    Dq, Du = differences(m, m.forward_dynamics, q, u, udot, f_ext)
    assert_close(dq, Dq, TOL, "dudot/dq")
    assert_close(du, Du, TOL, "dudot/du")


@pytest.mark.parametrize("root", ["free_quat", "spherical"])
def test_chain_of_modal_bodies_matches_central_differences(root):
    """add_serial_chain of three beam_modes cantilevers (geometric stiffening: full M2), each
    hanging from the previous one's tip node by a universal hinge, under a rigid body on
    ``root``, gravity on: the node transforms and biases of a chain move with every eta before."""
    rng = np.random.default_rng(11)
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    base = m.add_body("base", mass=2.0, inertia=[0.1, 0, 0, 0.1, 0, 0.1])
    m.add_hinge(None, base, root)
    data = beam_modes(0.8, 40.0, 1.0, n_elements=10, n_modes=3, damping_ratio=0.01)
    m.add_serial_chain("seg", 3, parent=base, kind="universal", modal_data=data)
    q, u, udot = state(m, rng)
    for b in m.modal_bodies:  # small deflections: the second-order foreshortening's range
        q[m.modal_slice(b)] *= 0.05
    dq, du, M = m.inverse_dynamics_derivatives(q, u, udot)
    Dq, Du = differences(m, m.inverse_dynamics, q, u, udot)
    assert_close(dq, Dq, TOL, "dtau/dq")
    assert_close(du, Du, TOL, "dtau/du")
    dq, du, _ = m.forward_dynamics_derivatives(q, u, udot)
    Dq, Du = differences(m, m.forward_dynamics, q, u, udot)
    assert_close(dq, Dq, TOL, "dudot/dq")
    assert_close(du, Du, TOL, "dudot/du")


def test_forward_derivatives_are_minus_inverse_mass_times_inverse_ones():
    rng = np.random.default_rng(7)
    m = flexible_model(rng, "free")
    q, u, tau = state(m, rng)
    dq, du, Minv = m.forward_dynamics_derivatives(q, u, tau)
    Tq, Tu, M = m.inverse_dynamics_derivatives(q, u, m.forward_dynamics(q, u, tau))
    assert_close(dq, -np.linalg.solve(M, Tq), 1e-10, "dudot/dq")
    assert_close(du, -np.linalg.solve(M, Tu), 1e-10, "dudot/du")
    assert_close(Minv @ M, np.eye(m.nu), 1e-10, "M^-1 M")


def test_stacked_states_equal_single_calls():
    """Stacked states (B = 5, more samples than workers) go through the batched flex kernels:
    each sample's three matrices equal its single call's bit for bit, inverse and forward."""
    rng = np.random.default_rng(11)
    m = flexible_model(rng, "free_quat")
    Q, U, X = (np.array(a) for a in zip(*(state(m, rng) for _ in range(5))))
    for name in ("inverse_dynamics_derivatives", "forward_dynamics_derivatives"):
        stacked = getattr(m, name)(Q, U, X)
        for b in range(5):
            single = getattr(m, name)(Q[b], U[b], X[b])
            for k in range(3):
                assert np.array_equal(stacked[k][b], single[k]), (name, b, k)


def test_modal_rows_hold_the_elastic_and_damping_forces():
    """At rest without gravity, dtau/dq's modal block is the modal stiffness K and dtau/du's the
    damping C (the inertial terms vanish at u = udot = 0 and eta = 0)."""
    rng = np.random.default_rng(3)
    m = flexible_model(rng, "pin", gravity=(0.0, 0.0, 0.0))
    z = np.zeros(m.nu)
    dq, du, _ = m.inverse_dynamics_derivatives(m.neutral_q(), z, z)
    for b in m.modal_bodies:
        s = m.modal_slice(b)  # q and u slices agree for the modal coordinates here (no quaternion before)
        us = slice(s.start - (m.nq - m.nu), s.stop - (m.nq - m.nu))
        K = np.diag(b.stiffness) if np.ndim(b.stiffness) == 1 else b.stiffness
        C = np.diag(b.damping) if np.ndim(b.damping) == 1 else b.damping
        assert_close(dq[us, us], K, 1e-12, f"{b.name} K")
        assert_close(du[us, us], C, 1e-12, f"{b.name} C")


def test_linearize_of_a_flexible_model_is_served():
    rng = np.random.default_rng(4)
    m = flexible_model(rng, "pin")
    q, u, tau = state(m, rng)
    A, B = m.linearize(q, u, tau)
    dq, du, Minv = m.forward_dynamics_derivatives(q, u, tau)
    assert np.array_equal(A[m.nu:, :m.nu], dq) and np.array_equal(B[m.nu:], Minv)


def test_free_free_beam_frequencies_match_euler_bernoulli():
    """A free-free beam_modes body on a planar hinge (its rigid motions in the bending plane):
    three zero frequencies, then Euler-Bernoulli's (beta L)^2 sqrt(EI / (rho A L^4))."""
    L, EI, rhoA = 2.0, 100.0, 1.5
    data = beam_modes(L, EI, rhoA, n_elements=40, n_modes=4, boundary="free-free")
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    m.add_hinge(None, m.add_modal_body("beam", modal_data=data), "planar", axis=(0, 1, 0))
    omega, modes = m.modal_analysis(np.zeros(m.nq))
    beta_L = np.array([4.730040745, 7.853204624, 10.99560784, 14.13716549])
    assert np.array_equal(omega[:3], np.zeros(3))
    assert np.abs(omega[3:] / (beta_L ** 2 * np.sqrt(EI / (rhoA * L ** 4))) - 1.0).max() < 1e-3
    assert_close(modes.T @ m.mass_matrix(np.zeros(m.nq)) @ modes, np.eye(m.nu), 1e-9, "M-orthonormal")


FREE_FREE_BL = np.array([4.730040745, 7.853204624, 10.99560784])


def beam_of_segments(data, n):
    """A free-free beam in the x-z plane: ``n`` modal bodies of ``data`` (cantilevers along
    x bending along z, sampled at their finite-element nodes), the first on a planar hinge,
    each next on a pin about y at the previous one's tip node. Returns (model, the pins' u
    indices)."""
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    tip = data.node_positions.shape[0] - 1
    for k in range(n):
        b = m.add_modal_body(f"seg{k}", modal_data=data, nodes={f"tip{k}": tip})
        m.add_hinge(f"tip{k - 1}" if k else None, b, "pin" if k else "planar", axis=(0, 1, 0))
    assert m.nq == m.nu  # the q and u slices agree
    return m, [m.modal_slice(f"seg{k}").start - 1 for k in range(1, n)]


@pytest.mark.parametrize("n", [2, 3])
def test_chain_of_cantilever_segments_is_a_free_free_beam(n):
    """Issue 22: n beam_modes cantilevers joined end to end by stiff pins (a weld: joint
    stiffness 1e6 EI / segment length), free in their plane, have Euler-Bernoulli's free-free
    frequencies to 1e-3 with 6 modes a segment: 4 normal modes and the tip's 2 attachment
    modes (static_modes); measured 5.2e-4 (n = 2), 7.7e-5 (n = 3). Six normal modes alone
    are 4.5e-2 and 4.9e-2 off. (rtol: the pins' own w^2 are some 4e9 times the first bending
    mode's, which the default rtol, 1e-9 of the largest, would report as a rigid motion.)"""
    L, EI, rhoA = 2.0, 100.0, 1.5
    exact = FREE_FREE_BL ** 2 * np.sqrt(EI / (rhoA * L ** 4))
    errors = []
    for static in (True, False):
        data = beam_modes(L / n, EI, rhoA, n_elements=24 // n, n_modes=6, static_modes=static)
        m, pins = beam_of_segments(data, n)
        weld = np.zeros((m.nu, m.nu))
        weld[pins, pins] = 1e6 * EI * n / L
        omega, _ = m.modal_analysis(np.zeros(m.nq), stiffness=weld, rtol=1e-13)
        assert np.array_equal(omega[:3], np.zeros(3))  # planar rigid motions
        errors.append(np.abs(omega[3:6] / exact - 1.0).max())
    assert errors[0] < 1e-3 < 1e-2 < errors[1], errors
    with pytest.warns(RuntimeWarning, match="set to 0 .* stand above round-off"):  # not silently rigid
        hidden, _ = m.modal_analysis(np.zeros(m.nq), stiffness=weld)
    assert np.count_nonzero(hidden == 0.0) > 3


def test_chain_of_segments_is_the_rayleigh_ritz_of_the_whole_beam():
    """Why plain cantilever modes converge slowly in a chain: the chain's linearization (pins
    held) is exactly the Rayleigh-Ritz reduction of the whole beam's finite-element model on
    the segments' modes carried rigidly by the segments before (the tip node's w and Psi hang
    the next segment exactly); the error is the basis's, whose modes all have zero moment and
    shear at the tip, where the next segment loads it."""
    from scipy.linalg import eigh
    from multibody.flex.beam_element import BeamElement, assemble
    L, EI, rhoA, n, n_el = 2.0, 100.0, 1.5, 2, 6
    data = beam_modes(L / n, EI, rhoA, n_elements=n_el, n_modes=3, nodes=np.linspace(0.0, L / n, n_el + 1))
    m, pins = beam_of_segments(data, n)
    z = np.zeros(m.nu)
    K, _, M = m.inverse_dynamics_derivatives(np.zeros(m.nq), z, z)
    held = [i for i in range(m.nu) if i not in pins]  # the pins held: welds
    chain = eigh(K[np.ix_(held, held)], M[np.ix_(held, held)], eigvals_only=True)[3:]  # 3 rigid motions
    shapes = np.stack([data.mode_shapes[:, 5, :], -data.mode_shapes[:, 1, :]], axis=1)  # (w, psi) per node
    x = np.linspace(0.0, L, n * n_el + 1)
    basis = [np.stack([np.ones_like(x), 0 * x], 1), np.stack([x, np.ones_like(x)], 1)]  # rigid
    for k in range(n):
        for j in range(shapes.shape[2]):
            v = np.zeros((x.size, 2))
            v[k * n_el:(k + 1) * n_el + 1] = shapes[:, :, j]
            w, psi = shapes[-1, :, j]
            after = slice((k + 1) * n_el + 1, None)
            v[after] = np.stack([w + psi * (x[after] - x[(k + 1) * n_el]), psi + 0 * x[after]], 1)
            basis.append(v)
    B = np.stack([v.ravel() for v in basis], 1)
    Kf, Mf, _ = assemble(BeamElement(L / (n * n_el), 0.0), n * n_el, EI, rhoA, 0.0)
    ritz = eigh(B.T @ Kf @ B, B.T @ Mf @ B, eigvals_only=True)[2:]  # 2 rigid motions (no axial one)
    np.testing.assert_allclose(chain, ritz, rtol=1e-9)
    assert abs(np.sqrt(ritz[0] * rhoA * L ** 4 / EI) / FREE_FREE_BL[0] ** 2 - 1.0) > 1e-2  # the basis's error


def spinning_frequency(bending_axis, spin_ratio):
    """(first bending frequency at spin Omega = spin_ratio omega0, omega0) of a cantilever
    (geometric stiffening on) clamped to a hub turning about z at the constant rate Omega: the
    modal rows of the derivatives at (eta, eta') = 0, u = (Omega, 0), udot = 0 give
    M_ee eta'' + G eta' + K eta = 0 (the hub's rate held, as a prescribed spin)."""
    data = beam_modes(2.0, 100.0, 1.5, n_elements=40, n_modes=3, axis="x", bending_axis=bending_axis)
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    hub = m.add_body("hub", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, hub, "pin", axis=(0, 0, 1))
    m.add_hinge(hub, m.add_modal_body("beam", modal_data=data), "locked")
    w0 = data.frequencies[0]
    q, u = np.zeros(m.nq), np.zeros(m.nu)
    u[0] = spin_ratio * w0
    assert np.abs(m.inverse_dynamics(q, u, np.zeros(m.nu))).max() < 1e-12  # a steady spin
    dq, du, M = m.inverse_dynamics_derivatives(q, u, np.zeros(m.nu))
    e = slice(1, m.nu)
    n = m.nu - 1
    A = np.block([[np.zeros((n, n)), np.eye(n)],
                  [-np.linalg.solve(M[e, e], dq[e, e]), -np.linalg.solve(M[e, e], du[e, e])]])
    return np.sort(np.abs(np.linalg.eigvals(A).imag))[0], w0


@pytest.mark.parametrize("bending_axis, southwell", [("z", 1.193), ("y", 0.193)])
def test_spinning_cantilever_follows_southwell(bending_axis, southwell):
    """omega^2 = omega0^2 + k Omega^2 for small spin: k = 1.193 out of the spin plane (bending
    along z, the spin axis), 1.193 - 1 in it (the centrifugal softening of in-plane motion)."""
    omega, w0 = spinning_frequency(bending_axis, 0.05)
    k = (omega ** 2 - w0 ** 2) / (0.05 * w0) ** 2
    assert abs(k - southwell) < 2e-3, k
    assert spinning_frequency(bending_axis, 0.0)[0] == pytest.approx(w0, rel=1e-12)


def test_spacecraft_modes():
    """The spacecraft slew's hub (free) and two panels: six rigid-body modes, then the panels'
    modes in pairs: the panels bending alike in their own coordinates (eta_a = eta_b, the
    hub turning about z against them) or opposite (eta_a = -eta_b, the hub moving along y),
    each pair above its clamped frequency and below the next (the free hub stiffens them)."""
    import importlib
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    try:
        slew = importlib.import_module("spacecraft_slew")
    finally:
        sys.path.pop(0)
    m, data = slew.spacecraft()
    omega, modes = slew.modes(m)
    assert np.array_equal(omega[:6], np.zeros(6))
    flexible = omega[6:]
    clamped = np.append(data.frequencies, np.inf)
    for i in range(3):
        assert clamped[i] < flexible[2 * i] < flexible[2 * i + 1] < clamped[i + 1]
    a, b = m.modal_slice("panel_a"), m.modal_slice("panel_b")
    assert m.nq == m.nu
    for x in modes[:, 6:].T:
        ea, eb = x[a], x[b]  # (a rotation-vector free hinge: nq = nu, the slices agree)
        if abs(x[2]) > 1e-9:  # the hub turns: the panels bend alike
            assert_close(ea, eb, 1e-9, "alike")
            assert abs(x[4]) < 1e-9
        else:
            assert_close(ea, -eb, 1e-9, "opposite")


def test_bad_input_and_refusals():
    rng = np.random.default_rng(5)
    m = flexible_model(rng, "free_quat")
    q, u, udot = state(m, rng)
    with pytest.raises(ValueError, match="q must have shape"):
        m.inverse_dynamics_derivatives(q[:-1], u, udot)
    bad = u.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="u"):
        m.forward_dynamics_derivatives(q, bad, udot)
    with pytest.raises(ValueError, match="quaternion"):
        m.inverse_dynamics_derivatives(np.zeros(m.nq), u, udot)
    with pytest.raises(ValueError, match="f_ext"):
        m.inverse_dynamics_derivatives(q, u, udot, f_ext={"child": np.ones(5)})
    with pytest.raises(ValueError, match="f_ext is not supported with stacked states"):
        m.inverse_dynamics_derivatives(np.array([q, q]), np.array([u, u]), np.array([udot, udot]),
                                       f_ext={"child": np.ones(6)})
    with pytest.raises(ValueError, match="sample 1: .*quaternion"):
        m.forward_dynamics_derivatives(np.array([q, np.zeros(m.nq)]), np.array([u, u]), np.array([udot, udot]))
    with pytest.raises(KeyError, match="nowhere"):
        m.inverse_dynamics_derivatives(q, u, udot, f_ext={"nowhere": np.ones(6)})


@pytest.mark.parametrize("seed", [0, 1])
def test_wrenches_at_deforming_nodes_match_central_differences(seed):
    """f_ext at deforming nodes (fixed in the node frames, which turn and move with eta): at
    nodes of random rotation and modes carrying children, at a node carrying a modal body,
    at a beam_modes cantilever's tip, with wrenches at bodies; gravity on. (Without the
    wrenches' change with eta, ``flex_node_wrenches``' E, dtau/dq misses by 23 and 7.7.)"""
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, kinds=["pin", "spherical", "free"], gravity=(0.0, 0.0, -9.81))
    data = beam_modes(1.0, 50.0, 1.0, n_elements=8, n_modes=2, nodes=[0.6, 1.0])
    m.add_hinge("c0", m.add_modal_body("arm", modal_data=data, nodes={"arm_tip": 1}), "pin", axis=(0, 1, 0))
    q, u, x = state(m, rng)
    q[m.modal_slice("arm")] *= 0.05  # small deflections: the second-order foreshortening's range
    f_ext = {name: rng.normal(size=6) for name in ("n0", "n1", "tip_mount", "arm_tip", "c0")}
    assert np.all(m.compiled.flex.frame_node[[m.compiled.frame_rows[n] for n in ("n0", "arm_tip")]] >= 0)
    for derivatives, dynamics in ((m.inverse_dynamics_derivatives, m.inverse_dynamics),
                                  (m.forward_dynamics_derivatives, m.forward_dynamics)):
        dq, du, _ = derivatives(q, u, x, f_ext=f_ext)
        Dq, Du = differences(m, dynamics, q, u, x, f_ext)
        assert_close(dq, Dq, TOL, f"{dynamics.__name__} d/dq")
        assert_close(du, Du, TOL, f"{dynamics.__name__} d/du")
