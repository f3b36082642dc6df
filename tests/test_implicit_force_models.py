"""The implicit methods (radau, generalized_alpha) with the force models fixed in the world:
ExternalForce in world axes and LinearSpringDamper (issue 23).

Their share of Newton's matrix (``simulation/link_force_jacobian.py``) is checked against
central differences of the residual itself (``galpha_step.residual``, which applies the
entries through ``apply_forces``), and the runs against dopri5 at tight tolerances (the
answer is the residual's: the share only steers the iteration).
"""
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.kernels.common import data_start, link_rows
from multibody.kernels.coordinates import integrate_q
from multibody.simulation.galpha import GeneralizedAlphaIntegrator
from multibody.simulation.galpha_step import iteration_matrix, residual
from multibody.simulation.link_force_jacobian import link_force_jacobian

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import four_bar  # noqa: E402  (the example's model)
from test_radau import chain as rods  # noqa: E402  (one home for the three rods)

GA = "generalized_alpha"


def chain():
    """test_radau's three rods (pin, ball (quaternion), pin) hanging from the world, with nodes
    off their axes: 'mid' on rod0, 'side' on rod1, 'tip' on rod2; 'anchor' fixed in the world
    below."""
    m = rods()
    for name, body, p in (("mid", "rod0", (0.05, 0.02, -0.6)), ("side", "rod1", (0.1, -0.05, -0.4)),
                          ("tip", "rod2", (0.05, 0.03, -1.0)), ("anchor", None, (0.3, 0.2, -3.2))):
        T = np.eye(4)
        T[:3, 3] = p
        m.add_node(name, body, T)
    return m


def start():
    """A state off every symmetry: the ball turned, every speed non-zero."""
    q = np.array([0.3, 0.05, -0.1, 0.02, 0.0, -0.4])
    q[4] = math.sqrt(1.0 - q[1] ** 2 - q[2] ** 2 - q[3] ** 2)
    return q, np.array([0.2, 0.1, -0.3, 0.2, 0.5])


def spring_length(m, q, a, b):
    """|p_b - p_a| at q, read off a probe spring's energy (k = 2, l0 = 0: energy = l^2)."""
    return math.sqrt(mb.LinearSpringDamper(a, b, stiffness=2.0).energy(m, q))


@pytest.fixture(scope="module")
def model():
    return chain()


def force_sets(m):
    """name -> force models: springs (one to the world, one inside the tree, stretched and
    moving: tension, geometric stiffness and the damper's placement terms all non-zero),
    world-axes wrenches (constant and sinusoidal, at a node and at a body origin)."""
    q, _ = start()
    return {
        "springs": [mb.LinearSpringDamper("anchor", "tip", stiffness=400.0, damping=30.0,
                                          rest_length=0.7 * spring_length(m, q, "anchor", "tip")),
                    mb.LinearSpringDamper("mid", "side", stiffness=250.0, damping=12.0, rest_length=0.3)],
        "world wrenches": [mb.ExternalForce("side", [0.4, -0.3, 0.2, 3.0, -1.0, 2.0], axes="world"),
                           mb.ExternalForce("rod2", [0.0, 0.1, 0.0, -2.0, 1.5, 0.5],
                                            amplitude=[0.2, 0, 0.1, 1.0, 2.0, 0], frequency=5.0, phase=0.3,
                                            axes="world")],
    }


def _arrays(integ):
    c = integ._c
    n = c.mi.shape[0]
    dbuf = integ.data.buf
    return c.mi, integ.mf, link_rows(dbuf, data_start(dbuf, n), n), integ.fmi, integ.fmf


def _share_check(m, q, u, forces):
    """(|K - fd|, |C - fd|, scale, |share K|, |share C|): K = dr/dq (tangent) and C = dr/du of
    ``iteration_matrix`` against central differences of ``residual`` (r = M x + b - J^T f -
    tau, the entries applied exactly) at (q, u), and the largest entries of the share alone
    (``link_force_jacobian``)."""
    integ = GeneralizedAlphaIntegrator(m, q, u, forces=forces)
    mi, mf, ws, fmi, fmf = _arrays(integ)
    nu, t = u.size, 0.37
    x = np.linspace(-0.5, 0.7, nu)
    src, tau = np.zeros(nu), np.zeros(nu)
    K, C, S = np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros((nu, nu))
    iteration_matrix(mi, mf, ws, fmi, fmf, True, t, q, u, x, src, tau, 0.0, 0.0, K, C, S)
    Kfd, Cfd = np.zeros((nu, nu)), np.zeros((nu, nu))
    rp, rm, qs, eps = np.zeros(nu), np.zeros(nu), np.zeros(q.size), 1e-6
    for j in range(nu):
        e = np.zeros(nu)
        e[j] = eps
        integrate_q(mi, ws, q, e, 1.0, qs)
        residual(mi, mf, ws, fmi, fmf, True, t, qs.copy(), u, x, src, tau, rp)
        integrate_q(mi, ws, q, -e, 1.0, qs)
        residual(mi, mf, ws, fmi, fmf, True, t, qs.copy(), u, x, src, tau, rm)
        Kfd[:, j] = (rp - rm) / (2 * eps)
        residual(mi, mf, ws, fmi, fmf, True, t, q, u + e, x, src, tau, rp)
        residual(mi, mf, ws, fmi, fmf, True, t, q, u - e, x, src, tau, rm)
        Cfd[:, j] = (rp - rm) / (2 * eps)
    Ks, Cs = np.zeros((nu, nu)), np.zeros((nu, nu))
    link_force_jacobian(mi, mf, ws, fmi, fmf, t, q, u, Ks, Cs)
    return (np.abs(K - Kfd).max(), np.abs(C - Cfd).max(), max(np.abs(K).max(), np.abs(C).max()), np.abs(Ks).max(),
            np.abs(Cs).max())


def _assert_share(label, errors, spring):
    """The derivatives within 1e-7 of the largest entry, the share far above that (leaving it,
    or any of its terms, out fails); a spring's damper in C too."""
    dk, dc, scale, ks, cs = errors
    print(f"{label}: |K - fd| {dk:.2e}, |C - fd| {dc:.2e}, scale {scale:.3g}, share |K| {ks:.3g} |C| {cs:.3g}")
    assert dk < 1e-7 * scale and dc < 1e-7 * scale
    assert ks > 1e4 * 1e-7 * scale
    if spring:
        assert cs > 1e4 * 1e-7 * scale


@pytest.mark.parametrize("which", ["springs", "world wrenches"])
def test_newton_matrix_share_is_the_residuals_derivative(model, which):
    """The chain (pin, quaternion ball, pin): springs, world wrenches (``_share_check``)."""
    q, u = start()
    _assert_share(which, _share_check(model, q, u, force_sets(model)[which]), which == "springs")


@pytest.mark.parametrize("kind", ["free_quat", "free"])
def test_newton_matrix_share_on_a_floating_base(kind):
    """A free body (quaternion, or rotation vector in its chart) carrying a pin-jointed rod:
    a spring from the world to the rod, one between the two bodies and a world wrench on the
    rod, at a state turned and moving in every coordinate."""
    m = mb.Multibody("floating", gravity=(0.0, 0.0, -9.81))
    base = m.add_body("base", mass=2.0, com=(0.05, 0.0, 0.02), inertia=np.diag([0.1, 0.2, 0.3]))
    m.add_hinge(None, base, kind)
    rod = m.add_body("rod", mass=0.7, com=(0.0, 0.0, -0.4), inertia=np.diag([0.05, 0.05, 0.01]))
    T = np.eye(4)
    T[:3, 3] = (0.2, 0.1, -0.1)
    m.add_hinge(base, rod, "pin", axis=(1.0, 0.0, 0.0), T_parent_joint=T)
    for name, body, p in (("rod_end", "rod", (0.02, 0.03, -0.8)), ("corner", "base", (0.3, -0.2, 0.1)),
                          ("hook", None, (1.0, 0.5, 1.5))):
        T = np.eye(4)
        T[:3, 3] = p
        m.add_node(name, body, T)
    forces = [mb.LinearSpringDamper("hook", "rod_end", stiffness=300.0, damping=20.0, rest_length=0.5),
              mb.LinearSpringDamper("corner", "rod_end", stiffness=150.0, damping=8.0, rest_length=0.2),
              mb.ExternalForce("rod_end", [0.3, -0.2, 0.1, 2.0, 1.0, -3.0], axes="world")]
    integ = GeneralizedAlphaIntegrator(m, m.neutral_q(), np.zeros(7), forces=forces)
    mi, _, ws, _, _ = _arrays(integ)
    q = np.zeros(m.neutral_q().size)
    integrate_q(mi, ws, m.neutral_q(), np.array([0.4, -0.3, 0.5, 0.2, -0.1, 0.3, 0.6]), 1.0, q)
    u = np.array([0.3, -0.5, 0.2, 0.4, 0.1, -0.2, 0.8])
    _assert_share(kind, _share_check(m, q, u, forces), True)


def _state_error(res, ref):
    """The largest difference of (q, u) at the runs' ends."""
    return max(np.abs(res.q[-1] - ref.q[-1]).max(), np.abs(res.u[-1] - ref.u[-1]).max())


@pytest.fixture(scope="module")
def stiff(model):
    """The chain held by a stiff, heavily damped spring from its tip to the world anchor (at
    rest length at the start: k = 1e6 N/m, c = 1e4 N s/m, eigenvalues near -k/c = -100 and
    -c/m ~ -1e4 1/s), 0.3 s; dopri5 at rtol 1e-10 as the reference."""
    m = model
    q, u = start()
    spring = mb.LinearSpringDamper("anchor", "tip", stiffness=1e6, damping=1e4,
                                   rest_length=spring_length(m, q, "anchor", "tip"))
    ref = mb.simulate(m, q, u, 0.3, dt=0.3, integrator="dopri5", rtol=1e-10, atol=1e-12, forces=[spring])
    return m, q, u, [spring], ref


def test_stiff_spring_radau_agrees_with_dopri5_in_far_fewer_steps(stiff):
    """radau at rtol 1e-8 ends within 1e-6 of dopri5 at rtol 1e-10, in a small fraction of
    its steps (dopri5 is held by the stability of the -1e4 1/s mode)."""
    m, q, u, forces, ref = stiff
    res = mb.simulate(m, q, u, 0.3, dt=0.3, integrator="radau", rtol=1e-8, atol=1e-10, forces=forces)
    err = _state_error(res, ref)
    print(f"stiff spring: radau {res.n_steps} steps, dopri5 {ref.n_steps} steps; radau - dopri5 {err:.2e}")
    assert res.status == "finished"
    assert err < 1e-6
    assert res.n_steps * 10 < ref.n_steps


def test_stiff_spring_generalized_alpha_agrees_with_dopri5(stiff):
    """generalized_alpha (rho_inf 0.8) at dt = 5e-5 s ends within 1e-5 of dopri5 (1.2e-5 at
    dt = 1e-4 s: second order, ``test_generalized_alpha_is_second_order_...``)."""
    m, q, u, forces, ref = stiff
    res = mb.simulate(m, q, u, 0.3, dt=5e-5, integrator=GA, forces=forces)
    err = _state_error(res, ref)
    print(f"stiff spring: generalized_alpha dt 5e-5 - dopri5 {err:.2e}")
    assert res.status == "finished"
    assert err < 1e-5


@pytest.mark.parametrize("which", ["constant", "sinusoidal"])
def test_world_wrench_runs_agree_with_dopri5(model, which):
    """An ExternalForce in world axes at a node of the ball's rod (constant, or sinusoidal at 4
    Hz), 1 s: radau (rtol 1e-9) and generalized_alpha (dt 2e-4 s) against dopri5 at rtol 1e-11."""
    m = model
    q, u = start()
    amp = dict(amplitude=[0.3, 0.0, -0.2, 4.0, 2.0, -1.0], frequency=4.0, phase=0.2) if which == "sinusoidal" else {}
    forces = [mb.ExternalForce("side", [0.2, -0.1, 0.3, 5.0, -2.0, 3.0], axes="world", **amp)]
    ref = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="dopri5", rtol=1e-11, atol=1e-12, forces=forces)
    rad = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="radau", rtol=1e-9, atol=1e-11, forces=forces)
    gal = mb.simulate(m, q, u, 1.0, dt=2e-4, integrator=GA, forces=forces)
    e_r, e_g = _state_error(rad, ref), _state_error(gal, ref)
    moved = np.abs(ref.q[-1] - q).max()
    print(f"world wrench ({which}): radau {rad.n_steps} steps, error {e_r:.2e}; generalized_alpha error {e_g:.2e}; "
          f"moved {moved:.2f}")
    assert moved > 0.1
    assert e_r < 1e-7
    assert e_g < 1e-4


def test_generalized_alpha_is_second_order_with_these_force_models(model):
    """Springs (one to the world, one inside the tree) and world wrenches together, 0.5 s at
    dt = 4e-3, 2e-3, 1e-3 s against dopri5 at rtol 1e-11: each halving divides the error by
    about 4."""
    m = model
    q, u = start()
    forces = force_sets(m)["springs"] + force_sets(m)["world wrenches"]
    ref = mb.simulate(m, q, u, 0.5, dt=0.5, integrator="dopri5", rtol=1e-11, atol=1e-12, forces=forces)
    errors = [_state_error(mb.simulate(m, q, u, 0.5, dt=h, integrator=GA, forces=forces), ref)
              for h in (4e-3, 2e-3, 1e-3)]
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    print(f"generalized_alpha errors {errors}, ratios {ratios}")
    assert np.all((ratios > 3.5) & (ratios < 4.5))


def test_closed_loop_with_a_spring_and_a_world_wrench_agrees_with_dopri5():
    """The four-bar (enabled loop constraint, the tree-augmented dynamics with the default
    Baumgarte gains: the same ODE for every method) with a spring from a world anchor to
    the crank's tip and a world-axes force on the coupler, 1 s: radau (rtol 1e-9) and
    generalized_alpha (dt 5e-4 s) against dopri5 at rtol 1e-11."""
    m = four_bar()
    T = np.eye(4)
    T[:3, 3] = (0.5, 0.0, 0.0)
    m.add_node("crank_tip", "crank", T)
    T[:3, 3] = (0.2, 0.0, 0.9)
    m.add_node("anchor", None, T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop: 3 of its 5 rows are redundant
        cks = m.constraint_kinematics()
        q = cks.solve_q([1.6707963267948966, -1.4591054166649482, 1.5397303602625536])
        u = cks.solve_u(q, [2.0, 0.0, 0.0], frozen=["crank_joint"])
    forces = [mb.LinearSpringDamper("anchor", "crank_tip", stiffness=400.0, damping=5.0, rest_length=0.3),
              mb.ExternalForce("coupler", [0.0, 0.0, 0.0, 3.0, 0.0, -2.0], amplitude=[0, 0, 0, 2.0, 0, 1.0],
                               frequency=2.0, axes="world")]
    ref = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="dopri5", rtol=1e-11, atol=1e-12, forces=forces)
    rad = mb.simulate(m, q, u, 1.0, dt=1.0, integrator="radau", rtol=1e-9, atol=1e-11, forces=forces)
    gal = mb.simulate(m, q, u, 1.0, dt=5e-4, integrator=GA, forces=forces)
    e_r, e_g = _state_error(rad, ref), _state_error(gal, ref)
    print(f"four-bar: radau {rad.n_steps} steps error {e_r:.2e}; generalized_alpha error {e_g:.2e}; "
          f"moved {np.abs(ref.q[-1] - q).max():.2f}")
    assert rad.status == "finished" and gal.status == "finished"
    assert e_r < 1e-7
    assert e_g < 1e-4
