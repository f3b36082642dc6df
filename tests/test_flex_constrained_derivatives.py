"""Derivatives of the constrained forward dynamics of models with modal (flexible) bodies
(kernels/flex_constrained_derivatives.py): central differences along ``integrate`` of
``forward_dynamics`` on random flexible trees closed by every loop kind (at deforming nodes,
on rigid links and on modal bodies' frames), convel and coordinate constraints; dudot_dtau
against the dense constrained inverse mass; a wrench at a deforming node; the flexible
four-bar's modal analysis and linearization; bad input as the dynamics refuses it.
"""
import numpy as np
import pytest

from flex_models import KINDS, flex_state, flexible_tree
from test_flex_constraints import LOOP_KINDS, _cases, _random_T, _with_loops

H = 1e-4
TOL = 1e-6


def _fd(m, f, q, u, tau):
    """(d/dq along integrate, d/du, d/dtau) of f(q, u, tau) by fourth-order central
    differences (tau: f is affine in it, so a unit step is exact)."""
    def diff(g):
        return (8 * (g(H) - g(-H)) - (g(2 * H) - g(-2 * H))) / (12 * H)
    eye = np.eye(m.nu)
    dq = np.array([diff(lambda h: f(m.integrate(q, h * e, 1.0), u, tau)) for e in eye]).T
    du = np.array([diff(lambda h: f(q, u + h * e, tau)) for e in eye]).T
    dtau = np.array([(f(q, u, tau + e) - f(q, u, tau - e)) / 2 for e in eye]).T
    return dq, du, dtau


def _errors(ours, theirs):
    """Largest differences relative to max(1, |theirs|), per result."""
    return [np.abs(a - b).max() / max(1.0, np.abs(b).max()) for a, b in zip(ours, theirs)]


def _dense_constrained_inverse_mass(m, q):
    """Mc^-1 = M^-1 - M^-1 G^T (G M^-1 G^T)^-1 G M^-1 from the dense M and Gc (rows independent)."""
    Mi = np.linalg.inv(m.mass_matrix(q))
    G = m.constraint_jacobian(q)
    return Mi - Mi @ G.T @ np.linalg.solve(G @ Mi @ G.T, G @ Mi)


def _off_nodes(seed, kind):
    """A random flexible tree closed by a ``kind`` loop between frames on rigid links (bodies
    hanging from the beam's deforming nodes, the root) or on the tip panel's (modal) frame,
    with a convel constraint and a gear."""
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, kinds=list(np.roll(KINDS, seed % 6)), gravity=rng.normal(size=3) * 3)
    a, b = rng.choice(["c0", "c1", "c2", "c3", "c4", "c5", "tip_panel", "b0"], 2, replace=False)
    m.add_node("la0", a, _random_T(rng))
    m.add_node("lb0", b, _random_T(rng))
    m.add_loop_constraint("loop0", "la0", "lb0", kind, axis=rng.normal(size=3), pitch=0.2)
    m.add_convel_constraint("cv", "c1", "tip_panel", rng.normal(size=6))
    one_dof = [h.name for h in m.hinges if h.nq == 1 and h.nu == 1 and h.name != "tip_panel_hinge"]
    m.add_coordinate_constraint("gear", one_dof[0], "tip_panel_hinge", ratio=-1.7, offset=0.3)
    q, u = flex_state(m, rng)
    return m, q, u, rng.normal(size=m.nu)


def _check(m, q, u, tau, f_ext=None):
    ours = m.forward_dynamics_derivatives(q, u, tau, f_ext=f_ext)
    theirs = _fd(m, lambda q, u, tau: m.forward_dynamics(q, u, tau, f_ext=f_ext), q, u, tau)
    err = _errors(ours, theirs)
    assert max(err) < TOL, f"dq, du, dtau relative errors {err}"
    assert np.abs(ours[0]).max() > 1e-2 and np.abs(ours[1]).max() > 1e-2  # (something to compare)
    Mc = _dense_constrained_inverse_mass(m, q)
    assert np.abs(ours[2] - Mc).max() < 1e-8 * np.abs(Mc).max()
    return ours


@pytest.mark.parametrize("n_loops,kinds,convel,coordinate", list(_cases()))
def test_loops_at_deforming_nodes_against_central_differences(n_loops, kinds, convel, coordinate):
    """test_flex_constraints' models: the first loop closes at a deforming node (of the beam
    or of the tip panel), the convel constraint's frame a is one too."""
    m, q, u, tau, _ = _with_loops(11 * n_loops + len(kinds[0]), n_loops, kinds, convel, coordinate)
    assert m.compiled.flex is not None and m.compiled.nc
    _check(m, q, u, tau)


@pytest.mark.parametrize("kind", LOOP_KINDS)
def test_frames_on_links_and_modal_bodies_against_central_differences(kind):
    m, q, u, tau = _off_nodes(3 + LOOP_KINDS.index(kind), kind)
    _check(m, q, u, tau)


def test_a_gear_alone():
    """Coordinate rows only (no constraint frame): Gc constant, its force turns nothing."""
    rng = np.random.default_rng(8)
    m = flexible_tree(rng, gravity=(0.0, -4.0, -9.81))
    one_dof = [h.name for h in m.hinges if h.nq == 1 and h.nu == 1 and h.name != "tip_panel_hinge"]
    m.add_coordinate_constraint("gear", one_dof[0], "tip_panel_hinge", ratio=-1.7, offset=0.3)
    q, u = flex_state(m, rng)
    _check(m, q, u, rng.normal(size=m.nu))


def test_a_wrench_at_a_deforming_node():
    """f_ext at a deforming node (held in its frame, moving with the modes) as forward_dynamics
    takes it: its change with eta goes through Mc^-1."""
    m, q, u, tau, rng = _with_loops(3, 2, ["pin", "spherical"])
    f_ext = {"bx": 5 * rng.normal(size=6)}
    ours = _check(m, q, u, tau, f_ext)
    assert np.abs(ours[0] - m.forward_dynamics_derivatives(q, u, tau)[0]).max() > 1e-3


def test_inverse_dynamics_derivatives_are_the_trees():
    """inverse_dynamics has no constraint force: its derivatives on a constrained flexible
    model are those of the tree (central differences)."""
    m, q, u, udot, _ = _with_loops(12, 1, ["pin"])
    dq, du, M = m.inverse_dynamics_derivatives(q, u, udot)
    Dq, Du, _ = _fd(m, lambda q, u, x: m.inverse_dynamics(q, u, x), q, u, udot)
    assert max(_errors((dq, du), (Dq, Du))) < TOL
    np.testing.assert_allclose(M, m.mass_matrix(q), rtol=0, atol=1e-12 * np.abs(M).max())


def _four_bar_at_rest():
    """The flexible four-bar (its loop closed at the coupler's deforming tip node) without
    gravity, closed, undeformed, at rest: an equilibrium (the multipliers are zero)."""
    from test_flex_link_forces import flexible_four_bar
    m, q0 = flexible_four_bar()
    m.gravity = (0.0, 0.0, 0.0)
    q0 = np.array(q0, dtype=float)
    q0[m.modal_slice("coupler")] = 0.0
    return m, q0


def test_modal_analysis_and_linearize_of_the_flexible_four_bar():
    """One mechanism mode (omega 0) and three bending modes, finite and positive, those of
    the stiffness and mass in Gc's null space X built from central differences of
    forward_dynamics (K_i = -X^T M dudot_dq X); linearize's eigenvalues +-i omega."""
    from scipy.linalg import eigh, null_space
    m, q = _four_bar_at_rest()
    zero = np.zeros(m.nu)
    omega, modes = m.modal_analysis(q, rtol=1e-9)
    assert omega.shape == (4,) and np.all(np.isfinite(omega))
    assert abs(omega[0]) < 1e-6 * omega[-1] and np.all(omega[1:] > 1.0)
    assert np.abs(m.constraint_jacobian(q) @ modes).max() < 1e-9
    X = null_space(m.constraint_jacobian(q))
    M = m.mass_matrix(q)
    dudot_dq = _fd(m, lambda q, u, tau: m.forward_dynamics(q, u, tau), q, zero, zero)[0]
    w2 = eigh(-X.T @ M @ dudot_dq @ X, X.T @ M @ X, eigvals_only=True)
    w2 = np.sort(w2)
    np.testing.assert_allclose(omega[1:] ** 2, w2[1:], rtol=1e-5)  # (differences of a stiff system)
    A, _ = m.linearize(q, zero)
    ev = np.linalg.eigvals(A)
    for w in omega[1:]:
        assert np.abs(np.abs(ev.imag) - w).min() < 1e-6 * w


def test_bad_input_as_the_dynamics():
    """The same errors as forward_dynamics (shapes, non-finite values, naming the argument);
    f_ext with stacked states refused."""
    m, q, u, tau, _ = _with_loops(12, 1, ["pin"])
    bad = [(q[:-1], u, tau), (q, np.zeros(m.nu + 1), tau), (q, u, np.full(m.nu, np.nan)),
           (np.full(m.nq, np.inf), u, tau)]
    for args in bad:
        with pytest.raises(ValueError) as want:
            m.forward_dynamics(*args)
        with pytest.raises(ValueError) as got:
            m.forward_dynamics_derivatives(*args)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="f_ext is not supported with stacked"):
        m.forward_dynamics_derivatives(np.stack([q, q]), np.stack([u, u]), np.stack([tau, tau]),
                                       f_ext={m.bodies[0].name: np.ones(6)})


def test_stacked_states_equal_single_calls_bit_for_bit():
    """Stacked states (the batch kernel around the single call's entry, each worker with its
    own constraint work, frame rows and scratch): each sample the single call's numbers, for
    both derivatives (inverse: the tree's), with the calling thread's Baumgarte gains set so
    that they show; a bad sample named by its index."""
    from multibody.algorithms.constraints import constraint_work, gains_of
    m, q, u, tau, _ = _with_loops(12, 2, ["pin", "spherical"], convel=True, coordinate=True)
    rng = np.random.default_rng(4)
    B = 5
    Q = np.array([m.integrate(q, 0.02 * rng.normal(size=m.nu), 1.0) for _ in range(B)])
    U, TAU = u + 0.2 * rng.normal(size=(B, m.nu)), tau + rng.normal(size=(B, m.nu))
    gains = gains_of(m.compiled, constraint_work(m.compiled, m.compiled.thread_data()))
    without = m.forward_dynamics_derivatives(Q[0], U[0], TAU[0])[0]
    gains[:] = (16.0, 8.0)
    try:
        for f in (m.forward_dynamics_derivatives, m.inverse_dynamics_derivatives):
            stacked = f(Q, U, TAU)
            for i in range(B):
                for a, b in zip(stacked, f(Q[i], U[i], TAU[i])):
                    assert np.array_equal(a[i], b), (f.__name__, i)
        assert np.abs(m.forward_dynamics_derivatives(Q[:1], U[:1], TAU[:1])[0][0] - without).max() > 1e-6
        U[3, 0] = np.nan
        with pytest.raises(ValueError, match="sample 3.*u"):
            m.forward_dynamics_derivatives(Q, U, TAU)
    finally:
        gains[:] = 0.0
