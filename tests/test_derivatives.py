"""Analytic dynamics derivatives (inverse_dynamics_derivatives, forward_dynamics_derivatives,
linearize): against central differences along ``integrate`` (the tangent convention), the
identities with M and M^-1, closed forms of pendulums, stacked states, bad input.
(Pinocchio's derivatives: test_derivatives_pinocchio.py.)"""
import numpy as np
import pytest

import multibody as mb
from flex_models import flexible_tree
from loop_ladder import ladder
from robots import robots_dir
from test_dynamics_vs_pinocchio import KINDS, random_tree
from test_robots_vs_pinocchio import load_pair

H = 1e-5
TOL = 1e-6  # central differences of step 1e-5: their own error is ~1e-9 here, 2e-7 on a chain of
#            8 free bodies (cond(M) 1e6, |udot| 5e3), where a step of 1e-6 loses 4e-5 to rounding


def assert_close(a, b, tol, what):
    assert a.shape == b.shape, what
    if not b.size:  # (a tree of locked hinges: no speeds)
        return
    err = np.abs(a - b).max()
    assert err <= tol * max(1.0, np.abs(b).max()), f"{what}: max difference {err:.3e}"


def central(f, x, step, n):
    """Columns (f(step(x, +h e_k)) - f(step(x, -h e_k))) / 2h, k < n."""
    cols = [(f(step(x, e)) - f(step(x, -e))) / (2 * H) for e in np.eye(n) * H]
    return np.array(cols).T.reshape(n, n)  # (outputs are nu long)


def differences(m, fn, q, u, x, f_ext=None):
    """d fn(q, u, x) / dq (tangent, along integrate) and / du by central differences."""
    dq = central(lambda qq: fn(qq, u, x, f_ext=f_ext), q, lambda qq, e: m.integrate(qq, e, 1.0), m.nu)
    du = central(lambda uu: fn(q, uu, x, f_ext=f_ext), u, lambda uu, e: uu + e, m.nu)
    return dq, du


def check_against_differences(m, rng, f_ext=None, what=""):
    q = m.random_q(rng)
    u, udot, tau = rng.normal(size=(3, m.nu))
    dq, du, M = m.inverse_dynamics_derivatives(q, u, udot, f_ext=f_ext)
    Dq, Du = differences(m, m.inverse_dynamics, q, u, udot, f_ext)
    assert_close(dq, Dq, TOL, f"{what} dtau/dq")
    assert_close(du, Du, TOL, f"{what} dtau/du")
    dq, du, Minv = m.forward_dynamics_derivatives(q, u, tau, f_ext=f_ext)
    Dq, Du = differences(m, m.forward_dynamics, q, u, tau, f_ext)
    assert_close(dq, Dq, TOL, f"{what} dudot/dq")
    assert_close(du, Du, TOL, f"{what} dudot/du")


@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_random_trees_match_central_differences(kind):
    for seed in range(2):
        rng = np.random.default_rng(seed)
        m = random_tree(rng, KINDS if kind == "mixed" else [kind])
        f_ext = {"b2": rng.normal(size=6), "tool": rng.normal(size=6)} if seed else None
        check_against_differences(m, rng, f_ext, f"{kind} seed {seed}")


def test_armature_and_gravity_off_match_central_differences():
    rng = np.random.default_rng(7)
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    parent = None
    for k in range(5):
        b = m.add_body(f"b{k}", mass=1.0 + k, com=(0.2, 0.1, 0.0), inertia=np.diag([0.1, 0.2, 0.3]))
        T = np.eye(4)
        T[:3, 3] = (0.4, 0.0, 0.1)
        m.add_hinge(parent, b, "pin", axis=rng.normal(size=3), T_parent_joint=T, armature=0.05 * (k + 1))
        parent = b
    check_against_differences(m, rng, None, "chain with armature")
    q = m.random_q(rng)
    assert_close(m.inverse_dynamics_derivatives(q, np.zeros(5), np.zeros(5))[2], m.mass_matrix(q), 1e-12, "M")


@pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")
@pytest.mark.parametrize("name,floating", [("talos", True), ("talos", "quaternion"), ("solo12", True),
                                           ("solo12", "quaternion")])
def test_robots_with_free_bases_match_central_differences(name, floating):
    m, _ = load_pair(name, floating)
    rng = np.random.default_rng(3)
    f_ext = {m.body_names[-1]: rng.normal(size=6), m.body_names[len(m.body_names) // 2]: rng.normal(size=6)}
    check_against_differences(m, rng, f_ext, name)


def test_identities_with_mass_matrix_and_its_inverse():
    rng = np.random.default_rng(11)
    m = random_tree(rng, KINDS, n_bodies=12)
    q = m.random_q(rng)
    u, tau = rng.normal(size=(2, m.nu))
    fdq, fdu, Minv = m.forward_dynamics_derivatives(q, u, tau)
    udot = m.forward_dynamics(q, u, tau)
    dq, du, M = m.inverse_dynamics_derivatives(q, u, udot)
    assert_close(M, m.mass_matrix(q), 1e-12, "dtau/dudot = M")
    assert_close(Minv, m.inverse_mass_matrix(q), 1e-12, "dudot/dtau = M^-1")
    assert_close(fdq, -Minv @ dq, 1e-12, "dudot/dq = -M^-1 dtau/dq")
    assert_close(fdu, -Minv @ du, 1e-12, "dudot/du = -M^-1 dtau/du")


def pendulum(masses, lengths):
    """Point masses on massless rods, pins about y, hanging along -z at q = 0."""
    m = mb.Multibody("pendulum")
    parent = None
    for k, (mass, length) in enumerate(zip(masses, lengths)):
        T = np.eye(4)
        if k:
            T[2, 3] = -lengths[k - 1]
        b = m.add_body(f"b{k}", mass=mass, com=(0.0, 0.0, -length), inertia=np.zeros((3, 3)))
        m.add_hinge(parent, b, "pin", axis=(0.0, 1.0, 0.0), T_parent_joint=T)
        parent = b
    return m


DOUBLE = ([1.5, 0.8], [0.6, 0.9])  # masses, lengths


def double_pendulum_at_rest(masses, lengths, g=9.81):
    """Closed forms, in relative angles, hanging at rest: M and the Hessian K of
    V = -(m1 + m2) g l1 cos t1 - m2 g l2 cos(t1 + t2)."""
    (m1, m2), (l1, l2) = masses, lengths
    M = np.array([[m1 * l1 ** 2 + m2 * (l1 + l2) ** 2, m2 * (l2 ** 2 + l1 * l2)],
                  [m2 * (l2 ** 2 + l1 * l2), m2 * l2 ** 2]])
    K = np.array([[(m1 + m2) * g * l1 + m2 * g * l2, m2 * g * l2], [m2 * g * l2, m2 * g * l2]])
    return M, K


@pytest.mark.parametrize("inverted", [False, True])
def test_linearize_simple_pendulum(inverted):
    mass, length, g = 2.0, 0.7, 9.81
    m = pendulum([mass], [length])
    A, B = m.linearize(np.array([np.pi if inverted else 0.0]), np.zeros(1))
    k = g / length * (1.0 if inverted else -1.0)
    assert_close(A, np.array([[0.0, 1.0], [k, 0.0]]), 1e-12, "A")
    assert_close(B, np.array([[0.0], [1.0 / (mass * length ** 2)]]), 1e-12, "B")


@pytest.mark.parametrize("inverted", [False, True])
def test_linearize_double_pendulum(inverted):
    m = pendulum(*DOUBLE)
    M, K = double_pendulum_at_rest(*DOUBLE)
    if inverted:
        K = -K
    sel = np.array([[1.0], [0.0]])  # a motor at the shoulder only
    A, B = m.linearize(np.array([np.pi if inverted else 0.0, 0.0]), np.zeros(2), B=sel)
    expected = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(M, K), np.zeros((2, 2))]])
    assert_close(A, expected, 1e-12, "A")
    assert_close(B, np.vstack([np.zeros((2, 1)), np.linalg.solve(M, sel)]), 1e-12, "B")


def test_linearize_kinematic_rows_follow_integrate():
    """K = d(dq_dot)/d(dq) at u != 0: the tangent coordinates' rate, by differences of integrate
    (a free_quat body: dq(t) with integrate(q, dq(t)) = integrate(integrate(q, dq0), u t))."""
    from scipy.spatial.transform import Rotation
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    m.add_hinge(None, m.add_body("b", mass=1.0, inertia=np.eye(3)), "free_quat")
    rng = np.random.default_rng(5)
    q = m.random_q(rng)
    u = rng.normal(size=6)
    A, _ = m.linearize(q, u)

    def tangent(q1):  # the dq with integrate(q, dq) = q1 (body-frame SE(3) log)
        R0 = Rotation.from_quat(q[:4])
        dR = R0.inv() * Rotation.from_quat(q1[:4])
        w = dR.as_rotvec()
        W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        t = np.linalg.norm(w)
        V = np.eye(3) + (1 - np.cos(t)) / t ** 2 * W + (t - np.sin(t)) / t ** 3 * W @ W
        return np.r_[w, np.linalg.solve(V, R0.inv().apply(q1[4:] - q[4:]))]

    def rate(dq0, h=1e-5):
        q0 = m.integrate(q, dq0, 1.0)
        return (tangent(m.integrate(q0, u, h)) - tangent(m.integrate(q0, u, -h))) / (2 * h)

    K = np.array([(rate(e * 1e-4) - rate(-e * 1e-4)) / 2e-4 for e in np.eye(6)]).T
    assert_close(A[:6, :6], K, 1e-6, "kinematic block")
    assert np.abs(A[:6, :6]).max() > 0.5  # (u is not small: the block is not zero)
    assert_close(rate(np.zeros(6)), u, 1e-8, "rate at dq = 0")


def test_stacked_states_are_bit_identical_to_single_calls():
    rng = np.random.default_rng(2)
    m = random_tree(rng, KINDS)
    Q = np.stack([m.random_q(rng) for _ in range(5)])
    U, X = rng.normal(size=(2, 5, m.nu))
    for fn in (m.inverse_dynamics_derivatives, m.forward_dynamics_derivatives):
        stacked = fn(Q, U, X)
        assert all(s.shape == (5, m.nu, m.nu) for s in stacked)
        for b in range(5):
            for s, single in zip(stacked, fn(Q[b], U[b], X[b])):
                assert np.array_equal(s[b], single)


def test_bad_input_is_named():
    rng = np.random.default_rng(4)
    m = random_tree(rng, KINDS)
    q = m.random_q(rng)
    u = np.zeros(m.nu)
    quaternion_start = next(m.q_slice(h).start for h in m.hinge_names if len(range(m.nq)[m.q_slice(h)]) == 4)
    for fn, third in ((m.inverse_dynamics_derivatives, "udot"), (m.forward_dynamics_derivatives, "tau")):
        with pytest.raises(ValueError, match=r"^q must have shape"):
            fn(q[:-1], u, u)
        with pytest.raises(ValueError, match=r"\bu\b"):
            fn(q, np.r_[u, 0.0], u)
        bad = u.copy()
        bad[1] = np.nan
        with pytest.raises(ValueError, match=third):
            fn(q, u, bad)
        with pytest.raises(ValueError, match="u"):
            fn(q, bad, u)
        with pytest.raises(ValueError, match="quaternion"):
            fn(np.where(np.arange(m.nq) == quaternion_start, 5.0, q), u, u)
        with pytest.raises(ValueError, match="sample 1"):
            fn(np.stack([q, q[::-1] * np.nan]), np.zeros((2, m.nu)), np.zeros((2, m.nu)))
        with pytest.raises(ValueError, match="f_ext"):
            fn(np.stack([q, q]), np.zeros((2, m.nu)), np.zeros((2, m.nu)), f_ext={"b1": np.zeros(6)})
    with pytest.raises(ValueError, match="B must be"):
        m.linearize(q, u, B=np.ones((m.nu + 1, 2)))


def test_modal_models_are_served_and_constrained_ones_too():
    """Modal bodies: served (tests/test_flex_derivatives.py checks them); enabled constraints:
    inverse_dynamics_derivatives are those of inverse_dynamics, the tree's (the same with the
    constraints disabled); the constrained forward derivatives are
    tests/test_constrained_derivatives.py's."""
    m = flexible_tree(np.random.default_rng(0))
    z = np.zeros(m.nu)
    assert m.linearize(m.neutral_q(), z)[0].shape == (2 * m.nu, 2 * m.nu)
    loops = ladder(1)
    rng = np.random.default_rng(1)
    q, u, udot = loops.neutral_q(), rng.normal(size=loops.nu), rng.normal(size=loops.nu)
    served = loops.inverse_dynamics_derivatives(q, u, udot)
    for con in list(loops.enabled_constraints):
        loops.disable_constraint(con.name)
    for a, b in zip(served, loops.inverse_dynamics_derivatives(q, u, udot)):
        assert np.array_equal(a, b)


def test_modal_analysis_of_pendulums():
    mass, length, g = 2.0, 0.7, 9.81
    omega, modes = pendulum([mass], [length]).modal_analysis(np.zeros(1))
    assert_close(omega, np.array([np.sqrt(g / length)]), 1e-12, "pendulum frequency")
    omega, _ = pendulum([mass], [length]).modal_analysis(np.array([np.pi]))
    assert_close(omega, np.array([-np.sqrt(g / length)]), 1e-12, "inverted: the exponential rate, negative")
    M, K = double_pendulum_at_rest(*DOUBLE)
    expected = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    omega, modes = pendulum(*DOUBLE).modal_analysis(np.zeros(2))
    assert_close(omega, expected, 1e-12, "double pendulum frequencies")
    assert_close(modes.T @ M @ modes, np.eye(2), 1e-12, "M-orthonormal modes")
    assert_close(K @ modes, M @ modes * omega ** 2, 1e-10, "K v = w^2 M v")


def test_modal_analysis_rigid_body_modes_and_non_equilibrium():
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    m.add_hinge(None, m.add_body("b", mass=1.0, inertia=np.diag([1.0, 2.0, 3.0])), "free_quat")
    omega, _ = m.modal_analysis(m.neutral_q())
    assert np.array_equal(omega, np.zeros(6))
    omega, _ = m.modal_analysis(m.neutral_q(), stiffness=np.diag([0, 0, 0, 4.0, 0, 0]))
    assert_close(omega, np.array([0, 0, 0, 0, 0, 2.0]), 1e-12, "a spring on x")
    with pytest.warns(RuntimeWarning, match="not an equilibrium"):
        pendulum([1.0], [1.0]).modal_analysis(np.array([0.3]))
    with pytest.raises(ValueError, match="stiffness"):
        m.modal_analysis(m.neutral_q(), stiffness=np.eye(3))


def test_derivatives_do_not_depend_on_where_the_tree_is():
    """Tree coordinates (about the root link's origin): the same free-floating tree 7e6 m out
    gives the same derivatives (to the rounding of its position)."""
    rng = np.random.default_rng(9)
    m = random_tree(rng, ["free_quat"] + KINDS[:4], n_bodies=6)
    q = m.random_q(rng)
    u, x = rng.normal(size=(2, m.nu))
    far = q.copy()
    far[4:7] += 7e6
    for fn in (m.inverse_dynamics_derivatives, m.forward_dynamics_derivatives):
        for near_part, far_part in zip(fn(q, u, x), fn(far, u, x)):
            assert_close(far_part, near_part, 1e-8, fn.__name__)
