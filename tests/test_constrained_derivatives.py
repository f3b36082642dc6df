"""Derivatives of the constrained forward dynamics (closed loops, convel and coordinate constraints).

Checked against what the derivative kernel does not use: central finite differences of
``forward_dynamics`` itself (along ``integrate`` for q), the constrained inverse mass formed
densely from M, Gc and numpy's inverse, and the identities of the KKT system.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from test_loop_constraints import LOOP_KINDS, _with_loops

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

H = 1e-6
RTOL = 1e-6


def finite_differences(m, q, u, tau, h=H, hu=None):
    """Central differences of forward_dynamics in q (along integrate; step h), u and tau (step
    hu, default h), (nu, nu) each."""
    f = lambda q, u, tau: np.array(m.forward_dynamics(q, u, tau))  # noqa: E731
    eye = np.eye(m.nu)
    fq = np.array([(f(m.integrate(q, h * e, 1.0), u, tau) - f(m.integrate(q, -h * e, 1.0), u, tau)) / (2 * h)
                   for e in eye]).T
    hu = h if hu is None else hu
    fu = np.array([(f(q, u + hu * e, tau) - f(q, u - hu * e, tau)) / (2 * hu) for e in eye]).T
    ft = np.array([(f(q, u, tau + hu * e) - f(q, u, tau - hu * e)) / (2 * hu) for e in eye]).T
    return fq, fu, ft


def richardson(m, q, u, tau, h, hu):
    """Fourth-order differences (4 D(h/2) - D(h)) / 3: for ill-conditioned loops (Cassie), whose
    forward dynamics carries rounding noise (~1e-10 of udot) that a step small enough for
    second-order central differences would amplify past 1e-6."""
    return tuple((4 * a - b) / 3 for a, b in zip(finite_differences(m, q, u, tau, h / 2, hu / 2),
                                                 finite_differences(m, q, u, tau, h, hu)))


def assert_matches_finite_differences(m, q, u, tau, rtol=RTOL, steps=None):
    ours = m.forward_dynamics_derivatives(q, u, tau)
    fd = finite_differences(m, q, u, tau) if steps is None else richardson(m, q, u, tau, *steps)
    for name, a, b in zip(("dudot_dq", "dudot_du", "dudot_dtau"), ours, fd):
        err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-12)
        assert err < rtol, f"{name}: relative error {err:.2e}"
    return ours


def _four_bar_state():
    from four_bar import closed_start, four_bar
    m = four_bar()
    return (m, *closed_start(m), np.array([0.3, -0.2, 0.1]))


def _slider_crank_state():
    from slider_crank import slider_crank
    m = slider_crank()
    m.gravity = (0.0, -9.81, 0.0)  # in the crank's plane, so that the rows' q terms matter
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the planar loop's out-of-plane rows are redundant
        cks = m.constraint_kinematics()
        q = cks.solve_q([0.4, -0.3, 1.2], frozen=["crank_joint"])
        u = cks.solve_u(q, [2 * np.pi, 0, 0], frozen=["crank_joint"])
    return m, q, u, np.array([1.5, -0.4, 0.7])


@pytest.mark.parametrize("state", [_four_bar_state, _slider_crank_state], ids=["four_bar", "slider_crank"])
def test_examples_against_finite_differences(state):
    m, q, u, tau = state()
    assert_matches_finite_differences(m, q, u, tau)


def _random_loops(seed):
    return _with_loops(seed, 5, LOOP_KINDS, convel=True, coordinate=True)[:4]


@pytest.mark.parametrize("seed", [0, 1])
def test_random_tree_with_every_kind_against_finite_differences(seed):
    """Five loops of LOOP_KINDS (pin, slider, screw, ..., locked), a convel and a coordinate
    constraint on a random tree of every subhinge kind, random state off the manifold."""
    for kinds in (LOOP_KINDS[:5], LOOP_KINDS[5:]):
        m, q, u, tau, _ = _with_loops(seed + 7, 5, kinds, convel=True, coordinate=True)
        assert_matches_finite_differences(m, q, u, tau)


def _cassie(floating_base):
    import cassie_standing as cs
    if cs.cassie_path() is None:
        pytest.skip("example-robot-data's cassie.sdf not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return mb.load_sdf(cs.cassie_path(), floating_base=floating_base)


@pytest.mark.parametrize("floating_base", [False, True], ids=["fixed", "free"])
def test_cassie_against_finite_differences(floating_base):
    """Cassie's leg loops (and gearboxes' coordinate constraints) near its standing pose."""
    m = _cassie(floating_base)
    assert m.compiled.nc > 0
    rng = np.random.default_rng(11)
    q = m.integrate(np.zeros(m.nq), 0.1 * rng.normal(size=m.nu), 1.0)  # q = 0: the file's pose
    assert_matches_finite_differences(m, q, rng.normal(size=m.nu), 10 * rng.normal(size=m.nu),
                                      steps=(4e-4, 1e-3))


def _dense_constrained_inverse_mass(m, q):
    """M^-1 - M^-1 G^T (G M^-1 G^T)^-1 G M^-1 from the public M and Gc (full row rank)."""
    Minv = np.linalg.inv(m.mass_matrix(q))
    G = m.constraint_jacobian(q)
    P = Minv @ G.T
    return Minv - P @ np.linalg.solve(G @ P, P.T), G


@pytest.mark.parametrize("seed", [2, 3])
def test_identities_of_the_kkt_system(seed):
    """dudot_dtau is the constrained inverse mass; Gc dudot_dx = -dC/dx with C the rows'
    acceleration (``acceleration_error``, differentiated here by central differences); and
    Mc^-1 M dudot_du = -Mc^-1 dtau_du (the tree's inverse dynamics derivative at the
    constrained udot: the constraint forces do not depend on u)."""
    m, q, u, tau, _ = _with_loops(seed, 3, LOOP_KINDS[::2], convel=True, coordinate=True)
    dq, du, dtau = m.forward_dynamics_derivatives(q, u, tau)
    Mc, G = _dense_constrained_inverse_mass(m, q)
    scale = np.abs(Mc).max()
    assert np.abs(dtau - Mc).max() < 1e-9 * scale
    assert np.abs(G @ dtau).max() < 1e-9 * scale * np.abs(G).max()
    udot = m.forward_dynamics(q, u, tau)
    acc = lambda q, u: m.acceleration_error(q, u, udot, "residual")  # noqa: E731
    eye = np.eye(m.nu)
    dC_dq = np.array([(acc(m.integrate(q, H * e, 1.0), u) - acc(m.integrate(q, -H * e, 1.0), u)) / (2 * H)
                      for e in eye]).T
    dC_du = np.array([(acc(q, u + H * e) - acc(q, u - H * e)) / (2 * H) for e in eye]).T
    for GdX, dC in ((G @ dq, dC_dq), (G @ du, dC_du)):
        assert np.abs(GdX + dC).max() < 1e-6 * np.abs(dC).max()
    dtau_dq, dtau_du, M = m.inverse_dynamics_derivatives(q, u, udot)
    lhs, rhs = Mc @ M @ du, -Mc @ dtau_du
    assert np.abs(lhs - rhs).max() < 1e-9 * np.abs(rhs).max()
    # in q, the constraint forces Gc^T lambda (lambda held) turn with the frames: by differences
    lam = m.constrained_dynamics(q, u, tau).multipliers
    force = lambda x: m.constraint_jacobian(x).T @ lam  # noqa: E731
    dforce = np.array([(force(m.integrate(q, H * e, 1.0)) - force(m.integrate(q, -H * e, 1.0))) / (2 * H)
                       for e in eye]).T
    lhs, rhs = Mc @ M @ dq, -Mc @ (dtau_dq - dforce)
    assert np.abs(lhs - rhs).max() < 1e-6 * np.abs(rhs).max()
    assert np.abs(Mc @ dforce).max() > 1e-3 * np.abs(rhs).max()  # (the constraint forces' term matters)


def test_external_wrench_and_bad_input():
    """f_ext (fixed in its body, as forward_dynamics takes it) against finite differences of
    forward_dynamics with the same f_ext; f_ext with stacked states and bad input refused by name."""
    m, q, u, tau = _four_bar_state()
    f_ext = {"coupler": np.array([0.2, -0.5, 0.3, 1.5, -2.0, 0.7])}
    ours = m.forward_dynamics_derivatives(q, u, tau, f_ext=f_ext)
    f = lambda q: np.array(m.forward_dynamics(q, u, tau, f_ext=f_ext))  # noqa: E731
    fq = np.array([(f(m.integrate(q, H * e, 1.0)) - f(m.integrate(q, -H * e, 1.0))) / (2 * H)
                   for e in np.eye(m.nu)]).T
    assert np.abs(ours[0] - fq).max() < RTOL * np.abs(fq).max()
    assert np.abs(ours[0] - m.forward_dynamics_derivatives(q, u, tau)[0]).max() > 1e-3 * np.abs(fq).max()
    with pytest.raises(ValueError, match="f_ext is not supported with stacked"):
        m.forward_dynamics_derivatives(np.stack([q, q]), np.stack([u, u]), np.stack([tau, tau]), f_ext=f_ext)
    with pytest.raises(ValueError, match="tau"):
        m.forward_dynamics_derivatives(q, u, np.full(m.nu, np.nan))
    with pytest.raises(ValueError, match="u"):
        m.forward_dynamics_derivatives(q, np.zeros(m.nu + 1), tau)


def test_stacked_states_equal_single_calls_bit_for_bit():
    """Stacked states on a random tree with loops, a convel and a coordinate constraint: the
    batch kernel gives each sample the single call's numbers exactly, with the calling
    thread's Baumgarte gains (set here, so that they show); a bad sample is named by index."""
    m, q, u, tau, _ = _with_loops(11, 5, LOOP_KINDS[:5], convel=True, coordinate=True)
    rng = np.random.default_rng(3)
    B = 7
    Q = np.array([m.integrate(q, 0.05 * rng.normal(size=m.nu), 1.0) for _ in range(B)])
    U, TAU = u + 0.3 * rng.normal(size=(B, m.nu)), tau + rng.normal(size=(B, m.nu))
    W = mb.algorithms.constraints.constraint_work(m.compiled, m.compiled.thread_data())
    gains = mb.algorithms.constraints.gains_of(m.compiled, W)
    without = m.forward_dynamics_derivatives(Q[0], U[0], TAU[0])
    gains[:] = (25.0, 10.0)
    try:
        stacked = m.forward_dynamics_derivatives(Q, U, TAU)
        for i in range(B):
            single = m.forward_dynamics_derivatives(Q[i], U[i], TAU[i])
            for a, b in zip(stacked, single):
                assert np.array_equal(a[i], b), i
        assert np.abs(stacked[0][0] - without[0]).max() > 1e-6 * np.abs(without[0]).max()  # (the gains show)
        TAU[5, 2] = np.inf
        with pytest.raises(ValueError, match="sample 5.*tau"):
            m.forward_dynamics_derivatives(Q, U, TAU)
        with pytest.raises(ValueError, match="data= is not supported with stacked"):
            m.forward_dynamics_derivatives(Q, U, TAU, data=m.create_data())
    finally:
        gains[:] = 0.0


def _four_bar_on_manifold(m, cks, crank):
    """(q, dq/dcrank) of the closed four-bar at crank angle ``crank``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = cks.solve_q(np.array([crank, 1.364, -1.471]), frozen=["crank_joint"])  # (the hanging branch)
        return q, cks.solve_u(q, [1.0, 0.0, 0.0], frozen=["crank_joint"])


def test_modal_analysis_of_a_closed_loop_against_its_energy():
    """The four-bar (one dof) hanging at rest: omega^2 = V''(s) / m(s) along the crank angle s,
    V the potential energy of the closed mechanism (second differences), m = u^T M u for the
    closed speeds of unit crank rate; the mode lies in Gc's null space."""
    from scipy.optimize import minimize_scalar
    m, _, _, _ = _four_bar_state()
    cks = m.constraint_kinematics()
    V = lambda s: m.potential_energy(_four_bar_on_manifold(m, cks, s)[0])  # noqa: E731
    s0 = minimize_scalar(V, bounds=(-2.0, -1.2), method="bounded", options={"xatol": 1e-10}).x
    q, dq = _four_bar_on_manifold(m, cks, s0)
    h = 1e-4
    omega2 = (V(s0 + h) - 2 * V(s0) + V(s0 - h)) / h ** 2 / (dq @ m.mass_matrix(q) @ dq)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        omega, modes = m.modal_analysis(q, rtol=1e-6)
    assert omega.shape == (1,) and modes.shape == (m.nu, 1)
    assert abs(omega[0] ** 2 - omega2) < 1e-5 * omega2
    assert np.abs(m.constraint_jacobian(q) @ modes).max() < 1e-9
    assert abs(modes[:, 0] @ m.mass_matrix(q) @ modes[:, 0] - 1.0) < 1e-12
    with pytest.warns(RuntimeWarning, match="not an equilibrium"):
        m.modal_analysis(_four_bar_on_manifold(m, cks, s0 + 0.3)[0])
    # linearize: the constrained rows; its eigenvalues are +-i omega and zeros (r_ddot = 0 across
    # the loop, without stabilization)
    A, Bmat = m.linearize(q, np.zeros(m.nu))
    assert np.array_equal(Bmat[m.nu:], m.forward_dynamics_derivatives(q, np.zeros(m.nu), np.zeros(m.nu))[2])
    ev = np.linalg.eigvals(A)
    assert abs(np.abs(ev.imag).max() - omega[0]) < 1e-6 * omega[0]
    assert np.abs(ev.real).max() < 1e-6 * omega[0]


def cassie_loops_for_pinocchio(seed=0):
    """(m, q, u, tau, Pinocchio model, data, constraint models and datas, settings) of Cassie
    with a free base and its leg loops only (Pinocchio has no slider loop and no gear: the
    coordinate and slider constraints are disabled; as bench/bench_constrained.py), the loops
    as 3-D point constraints (a pin loop: two points on its axis), q closed and u consistent,
    constraintDynamics already run. Pinocchio's proximal solver at mu = 1e-8."""
    pin = pytest.importorskip("pinocchio")
    from loop_ladder import admissible
    from pin_convert import point_constraints, q_to_pin, to_pinocchio, u_perm
    m = _cassie(True)
    locked = [f"{s}-{j}" for s in ("left", "right") for j in ("knee-spring-joint", "knee-shin-joint")]
    rng = np.random.default_rng(seed)
    q = m.integrate(m.neutral_q(), 0.05 * rng.normal(size=m.nu), 1.0)
    for h in locked:
        q[m.q_slice(h)] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        q = m.constraint_kinematics().solve_q(q, frozen=locked)
    for con in m.enabled_constraints:
        if con.category == "coordinate" or con.kind == "slider":
            m.disable_constraint(con.name)
    u, tau = admissible(m, q, rng)
    model = to_pinocchio(m)
    data = model.createData()
    cms = point_constraints(m, model)
    cds = pin.StdVec_RigidConstraintData([cm.createData() for cm in cms])
    pin.initConstraintDynamics(model, data, cms, cds)
    settings = pin.ProximalSettings(1e-14, 1e-8, 20)
    P = u_perm(m)
    pin.constraintDynamics(model, data, q_to_pin(m, q), u[P], tau[P], cms, cds, settings)
    return m, q, u, tau, model, data, cms, cds, settings


def test_cassie_against_pinocchio_constrained_dynamics_derivatives():
    """Against pin.computeConstraintDynamicsDerivatives (Cassie, free base, leg loops).

    Exact agreement of the whole matrices is impossible, by nature, not by convention: the
    two sides constrain the same motion with different rows (ours: a pin loop's five rows;
    Pinocchio's: two 3-D points), r' = A(q) r, and off the constraint manifold the
    acceleration-level constraint r_ddot = 0 depends on the rows: d(r'_ddot) = A d(r_ddot) +
    2 A_dot d(r_dot) + A_ddot dr. So they agree (i) on dudot_dtau, the constrained inverse
    mass; (ii) on dudot_du along consistent speeds (Gc du = 0); (iii) on the q derivative
    along the manifold with the speeds kept consistent: dudot_dq X + dudot_du Z, X a basis of
    Gc's null space and Z any du with Gc Z = -d(Gc u)/dq X (from velocity_error by central
    differences). Pinocchio's proximal solver (mu = 1e-8) limits the agreement to ~1e-7."""
    from scipy.linalg import null_space
    pin = pytest.importorskip("pinocchio")
    from pin_convert import u_perm
    m, q, u, tau, model, data, cms, cds, settings = cassie_loops_for_pinocchio()
    back = np.argsort(u_perm(m))
    theirs = [np.array(x)[back][:, back] for x in pin.computeConstraintDynamicsDerivatives(
        model, data, cms, cds, settings)[:3]]
    dq, du, dtau = m.forward_dynamics_derivatives(q, u, tau)
    G = m.constraint_jacobian(q)
    X = null_space(G)
    vel = lambda x: m.velocity_error(x, u, "residual")  # noqa: E731
    dGu = np.array([(vel(m.integrate(q, H * e, 1.0)) - vel(m.integrate(q, -H * e, 1.0))) / (2 * H)
                    for e in X.T]).T
    Z = -np.linalg.pinv(G) @ dGu
    rel = lambda a, b: np.abs(a - b).max() / np.abs(b).max()  # noqa: E731
    assert rel(dtau, theirs[2]) < 1e-6
    assert rel(du @ X, theirs[1] @ X) < 1e-6
    assert rel(dq @ X + du @ Z, theirs[0] @ X + theirs[1] @ Z) < 1e-6
    assert rel(du, theirs[1]) > 1e-2  # (the rows' parametrization shows off the manifold)


def test_baumgarte_terms_against_finite_differences():
    """With Baumgarte gains in a Data's constraint work array (as a simulation with
    stabilization has them), forward_dynamics(data=d) adds kd r_dot + kp r to the rows'
    wanted acceleration; its derivatives (data=d) follow, off the constraint manifold."""
    from multibody.algorithms.constraints import constraint_work, gains_of
    m, q, u, tau, _ = _with_loops(4, 3, LOOP_KINDS[1::2], convel=True, coordinate=True)
    d = m.create_data()
    gains_of(m.compiled, constraint_work(m.compiled, d))[:] = (100.0, 20.0)
    f = lambda q, u: np.array(m.forward_dynamics(q, u, tau, data=d))  # noqa: E731
    eye = np.eye(m.nu)
    fq = np.array([(f(m.integrate(q, H * e, 1.0), u) - f(m.integrate(q, -H * e, 1.0), u)) / (2 * H) for e in eye]).T
    fu = np.array([(f(q, u + H * e) - f(q, u - H * e)) / (2 * H) for e in eye]).T
    dq, du, _ = m.forward_dynamics_derivatives(q, u, tau, data=d)
    assert np.abs(dq - fq).max() < RTOL * np.abs(fq).max()
    assert np.abs(du - fu).max() < RTOL * np.abs(fu).max()
    plain = m.forward_dynamics_derivatives(q, u, tau)
    assert np.abs(plain[0] - dq).max() > 1e-3 * np.abs(fq).max()  # (the gains' terms matter)


def test_results_do_not_depend_on_where_the_model_sits():
    """The four-bar (a loop between two trees) built 1e5 m out: the same derivatives."""
    def four_bar_at(offset):
        m = mb.Multibody("four_bar", gravity=(0, 0, -9.81))
        axis = (0.0, -1.0, 0.0)
        for name, mass, com, inertia in (("crank", 0.5, 0.25, 0.333), ("coupler", 1.0, 0.60, 0.537),
                                         ("rocker", 0.75, 0.375, 0.4)):
            m.add_body(name, mass, (com, 0, 0), np.eye(3) * inertia)

        def at(x, base=np.zeros(3)):
            T = np.eye(4)
            T[:3, 3] = base + (x, 0, 0)
            return T
        m.add_hinge(None, "crank", "pin", axis=axis, T_parent_joint=at(0.0, offset))
        m.add_hinge("crank", "coupler", "pin", axis=axis, T_parent_joint=at(0.5))
        m.add_hinge(None, "rocker", "pin", axis=axis, T_parent_joint=at(1.10, offset))
        m.add_node("coupler_end", "coupler", at(1.2))
        m.add_node("rocker_end", "rocker", at(0.75))
        m.add_loop_constraint("closure", "coupler_end", "rocker_end", "pin", axis=axis)
        return m
    _, q, u, tau = _four_bar_state()
    here = four_bar_at(np.zeros(3)).forward_dynamics_derivatives(q, u, tau)
    there = four_bar_at(np.array([1e5, -2e5, 3e4])).forward_dynamics_derivatives(q, u, tau)
    for a, b in zip(here, there):
        assert np.abs(a - b).max() < 1e-9 * np.abs(a).max()
