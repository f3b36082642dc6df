"""The same model translated in the world has the same dynamics (issue 18, "silent wrong answers").

Speeds are in body frames, so M, M^-1, the forward and inverse dynamics, the operational-space compliance
Upsilon, the body Jacobians, the constraint rows and the tree-augmented constrained dynamics
do not depend on where the model sits. Kernels that sum spatial quantities over links in one
set of axes work about each tree's root origin (tree coordinates, kernels/layout.py); about the
world origin they cancelled numbers that grow with the distance (UR5's and Talos's M on a
free base were off by 7e-3 to 1.1e-2 relative at 7e6 m and by 4e6 to 6e6 at 1.5e11 m, their
Upsilon by up to 4e65, TA on a free-floating four-bar by 77 %).

Each case compares a model far away with the same model at the origin to 1e-9 relative. The
translation is exact in floating point: a free base is moved through q (its position is an
input), a root hinge placed far away through T_parent_joint, and the reference at the origin
is built from the far placements minus the shift (exact by Sterbenz's lemma), so both hold
the very same geometry (1.1 m added to 1.5e11 m is 1.1 +- 1.5e-5 m: a different four-bar).
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from flex_models import flex_state, flexible_tree
from robots import robot_urdf, robots_dir

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from flexible_four_bar import flexible_four_bar  # noqa: E402  (the examples' models)
from four_bar import four_bar  # noqa: E402

TOL = 1e-9
FAR = [7e6, 1.5e11]  # a geostationary orbit's radius, an astronomical unit [m]
needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")


def assert_same(far, near, what):
    far, near = np.asarray(far), np.asarray(near)
    err = np.abs(far - near).max() / max(np.abs(near).max(), 1e-300)
    assert err <= TOL, f"{what}: relative difference {err:.1e}"


def placed(build, shift, back=False):
    """build() with every root hinge and every node on the world moved by ``shift``; with
    ``back`` moved back again (the far model's own geometry at the origin)."""
    m = build()
    items = [(h, "T_parent_joint") for h in m.hinges if h.parent is m.world]
    items += [(nd, "T_body_node") for nd in m.nodes.values() if nd.body is m.world]
    for obj, attr in items:
        T = getattr(obj, attr).copy()
        T[:3, 3] += shift
        if back:
            T[:3, 3] -= shift
        setattr(obj, attr, T)
    m.invalidate()
    return m


def direction(x):
    return np.array([x, -0.3 * x, 0.2 * x])


def assert_operators_same(m_far, q_far, m_near, q_near, frames, rng, what):
    u, tau = rng.normal(size=(2, m_near.nu))
    assert_same(m_far.mass_matrix(q_far), m_near.mass_matrix(q_near), f"{what}: M")
    assert_same(m_far.inverse_mass_matrix(q_far), m_near.inverse_mass_matrix(q_near), f"{what}: M^-1")
    assert_same(m_far.forward_dynamics(q_far, u, tau), m_near.forward_dynamics(q_near, u, tau), f"{what}: udot")
    assert_same(m_far.inverse_dynamics(q_far, u, tau), m_near.inverse_dynamics(q_near, u, tau), f"{what}: tau")
    assert_same(m_far.operational_space_compliance(q_far, frames),
                m_near.operational_space_compliance(q_near, frames), f"{what}: Upsilon")
    for f in frames:
        for axes in ("body", "world_aligned"):  # ("world" is about the world origin: it grows with x)
            assert_same(m_far.body_jacobian(q_far, f, axes), m_near.body_jacobian(q_near, f, axes),
                        f"{what}: {axes} Jacobian of {f}")
        assert_same(m_far.body_velocity(q_far, u, f), m_near.body_velocity(q_near, u, f), f"{what}: velocity of {f}")
        assert_same(m_far.body_acceleration(q_far, u, tau, f, kind="classical"),
                    m_near.body_acceleration(q_near, u, tau, f, kind="classical"), f"{what}: acceleration of {f}")


@needs_robots
@pytest.mark.parametrize("x", FAR)
@pytest.mark.parametrize("base", ["free", "free_quat"])
@pytest.mark.parametrize("name", ["ur5", "talos"])
def test_robot_on_a_free_base_far_away(name, base, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = mb.load_urdf(robot_urdf(name), floating_base="quaternion" if base == "free_quat" else True)
    rng = np.random.default_rng(len(name) + int(np.log10(x)))
    q = m.random_q(rng)
    p = slice(4, 7) if base == "free_quat" else slice(3, 6)
    q[p] = 0.0
    q_far = q.copy()
    q_far[p] = direction(x)
    bodies = m.body_names
    frames = [bodies[1], bodies[len(bodies) // 2], bodies[-1]]
    assert_operators_same(m, q_far, m, q, frames, rng, f"{name} {base} at {x:g} m")


def double_pendulum():
    m = mb.Multibody("double_pendulum")
    m.add_body("upper", 1.0, (0.5, 0.1, 0.0), np.diag([0.1, 0.2, 0.3]))
    m.add_body("lower", 2.0, (0.4, 0.0, 0.1), np.diag([0.2, 0.3, 0.1]))
    m.add_hinge(None, "upper", "pin", axis=(0, 1, 0))
    T = np.eye(4)
    T[0, 3] = 1.0
    m.add_hinge("upper", "lower", "pin", axis=(0, 1, 0), T_parent_joint=T)
    return m


def test_fixed_base_double_pendulum_with_its_root_joint_far_away():
    shift = direction(1e8)
    far, near = placed(double_pendulum, shift), placed(double_pendulum, shift, back=True)
    q = np.array([0.3, -0.7])
    assert_operators_same(far, q, near, q, ["upper", "lower"], np.random.default_rng(2), "pendulum at 1e8 m")


def _closed_four_bar(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop: 3 of its 5 rows are redundant
        cks = m.constraint_kinematics()
        q = cks.solve_q(np.array([1.6707963267948966, -1.4591054166649482, 1.5397303602625536]))
        u = cks.solve_u(q, [2.0, 0.0, 0.0], frozen=["crank_joint"])
    return q, u


def assert_constrained_same(far, near, q, u, tau, what):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = far.constrained_dynamics(q, u, tau), near.constrained_dynamics(q, u, tau)
    assert_same(a.udot, b.udot, f"{what}: TA udot")
    assert_same(a.constraint_force, b.constraint_force, f"{what}: constraint force")
    assert_same(far.constraint_jacobian(q), near.constraint_jacobian(q), f"{what}: Gc")
    assert_same(far.constraint_bias(q, u), near.constraint_bias(q, u), f"{what}: Gc_dot u")
    r_far, r_near = far.pose_error(q, "residual"), near.pose_error(q, "residual")
    assert np.abs(r_far - r_near).max() <= TOL * max(1.0, np.abs(r_near).max()), f"{what}: residuals"


@pytest.mark.parametrize("x", FAR)
def test_four_bar_on_the_world_far_away(x):
    """Two trees (crank, rocker) pinned to the world far away, closed by a loop between them."""
    far, near = placed(four_bar, direction(x)), placed(four_bar, direction(x), back=True)
    q, u = _closed_four_bar(near)
    q_far, _ = _closed_four_bar(far)
    assert_same(q_far, q, "constraint kinematics: closed q")
    assert_constrained_same(far, near, q, u, np.array([0.3, -0.2, 0.1]), f"four-bar at {x:g} m")


def floating_four_bar():
    """A four-bar whose ground is a free body: one tree with a loop inside (pivots 1.1 m apart,
    crank, coupler, rocker of 0.5, 1.2, 0.75 m; pins about -y)."""
    m = mb.Multibody("floating_four_bar")
    axis = (0.0, -1.0, 0.0)
    m.add_body("ground", 2.0, (0.55, 0.0, 0.0), np.diag([0.1, 0.3, 0.3]))
    m.add_hinge(None, "ground", "free_quat", name="ground_joint")
    for name, mass, com, inertia in (("crank", 0.5, 0.25, 0.333), ("coupler", 1.0, 0.60, 0.537),
                                     ("rocker", 0.75, 0.375, 0.4)):
        m.add_body(name, mass, (com, 0, 0), np.eye(3) * inertia)

    def at(x):
        T = np.eye(4)
        T[0, 3] = x
        return T
    m.add_hinge("ground", "crank", "pin", name="crank_joint", axis=axis)
    m.add_hinge("crank", "coupler", "pin", name="coupler_joint", axis=axis, T_parent_joint=at(0.5))
    m.add_hinge("ground", "rocker", "pin", name="rocker_joint", axis=axis, T_parent_joint=at(1.1))
    m.add_node("coupler_end", "coupler", at(1.2))
    m.add_node("rocker_end", "rocker", at(0.75))
    m.add_loop_constraint("closure", "coupler_end", "rocker_end", "pin", axis=axis)
    return m


@pytest.mark.parametrize("x", FAR)
def test_loop_inside_a_free_floating_tree_far_away(x):
    m = floating_four_bar()
    rng = np.random.default_rng(5)
    q = m.neutral_q()
    base = m.q_slice("ground_joint")
    rot = rng.normal(size=4)
    q[base] = np.r_[rot / np.linalg.norm(rot), 0.0, 0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop: 3 of its 5 rows are redundant
        cks = m.constraint_kinematics()
        q[m.q_slice("crank_joint")], q[m.q_slice("coupler_joint")], q[m.q_slice("rocker_joint")] = \
            1.6707963267948966, -1.4591054166649482, 1.5397303602625536
        q = cks.solve_q(q, frozen=["ground_joint"])
    q_far = q.copy()
    q_far[base.start + 4:base.stop] = direction(x)
    u, tau = rng.normal(size=(2, m.nu))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = m.constrained_dynamics(q_far, u, tau), m.constrained_dynamics(q, u, tau)
    what = f"floating four-bar at {x:g} m"
    assert_same(a.udot, b.udot, f"{what}: TA udot")
    assert_same(a.constraint_force, b.constraint_force, f"{what}: constraint force")
    assert_same(m.constraint_jacobian(q_far), m.constraint_jacobian(q), f"{what}: Gc")
    assert_same(m.constraint_bias(q_far, u), m.constraint_bias(q, u), f"{what}: Gc_dot u")
    assert_operators_same(m, q_far, m, q, ["crank", "coupler_end", "rocker_end"], rng, what)


@pytest.mark.parametrize("x", FAR)
def test_flexible_tree_far_away(x):
    shift = direction(x)
    far = placed(lambda: flexible_tree(np.random.default_rng(3)), shift)
    near = placed(lambda: flexible_tree(np.random.default_rng(3)), shift, back=True)
    q, u = flex_state(near, np.random.default_rng(4))
    frames = ["b0", "n1", "c3", "tip_panel"]
    assert_same(far.mass_matrix(q), near.mass_matrix(q), "flexible tree: M")
    assert_same(far.inverse_mass_matrix(q), near.inverse_mass_matrix(q), "flexible tree: M^-1")
    assert_same(far.operational_space_compliance(q, frames), near.operational_space_compliance(q, frames),
                "flexible tree: Upsilon")
    tau = np.random.default_rng(6).normal(size=near.nu)
    assert_same(far.forward_dynamics(q, u, tau), near.forward_dynamics(q, u, tau), "flexible tree: udot")


@pytest.mark.parametrize("x", FAR)
def test_flexible_four_bar_far_away(x):
    """A loop through a deforming node: the flex constrained dynamics (kernels/flex_constrained.py)."""
    shift = direction(x)
    far = placed(lambda: flexible_four_bar()[0], shift)
    near = placed(lambda: flexible_four_bar()[0], shift, back=True)
    _, q0 = flexible_four_bar()
    rng = np.random.default_rng(7)
    q = q0 + 0.05 * rng.normal(size=near.nq)
    modes = near.modal_slice("coupler")
    q[modes] = q0[modes] + 1e-3 * rng.normal(size=3)
    u, tau = 0.5 * rng.normal(size=near.nu), rng.normal(size=near.nu)
    assert_constrained_same(far, near, q, u, tau, f"flexible four-bar at {x:g} m")
    frames = ["coupler_tip", "rocker_tip", "crank"]
    assert_same(far.mass_matrix(q), near.mass_matrix(q), "flexible four-bar: M")
    assert_same(far.operational_space_compliance(q, frames), near.operational_space_compliance(q, frames),
                "flexible four-bar: Upsilon")


def sprung_double_pendulum():
    """The double pendulum with a spring-damper between points of its two links."""
    m = double_pendulum()
    T = np.eye(4)
    T[:3, 3] = (0.3, 0.0, 0.2)
    m.add_node("upper_point", "upper", T)
    T[:3, 3] = (0.5, 0.1, -0.1)
    m.add_node("lower_point", "lower", T)
    return m


@pytest.mark.parametrize("x", FAR)
def test_spring_damper_between_links_far_away(x):
    """A LinearSpringDamper inside one tree: the points' separation from offsets about the
    tree's root (force_kernels._point_state), not from world positions that keep 3e-5 m of
    a 1.5e11 m distance."""
    shift = direction(x)
    spring = mb.LinearSpringDamper("upper_point", "lower_point", stiffness=300.0, damping=2.0, rest_length=0.1)
    q0, u0 = np.array([0.3, -0.7]), np.array([0.5, -1.0])
    near = placed(sprung_double_pendulum, shift, back=True)
    runs = [mb.simulate(m, q0, u0, 0.2, dt=1e-3, forces=[spring])
            for m in (placed(sprung_double_pendulum, shift), near)]
    free = mb.simulate(near, q0, u0, 0.2, dt=1e-3)
    assert np.abs(free.q[-1] - runs[1].q[-1]).max() > 1e-2  # the spring acts
    assert_same(runs[0].q, runs[1].q, f"sprung pendulum at {x:g} m: q(t)")
    assert_same(runs[0].u, runs[1].u, f"sprung pendulum at {x:g} m: u(t)")


@pytest.mark.parametrize("x", FAR)
def test_forces_at_deforming_nodes_far_away(x):
    """A spring-damper between two nodes of one modal body and wrenches at them
    (``simulation/flex_link_forces``): the nodes' separation from their origins about the
    tree's root, as the rigid springs'; under dopri5 and generalized_alpha."""
    from test_implicit_flex_forces import pendulum
    m0, forces, q0 = pendulum()
    inside = [f for f in forces if not (isinstance(f, mb.LinearSpringDamper) and f.frame_a == "anchor")]
    shift = direction(x)
    for kw in (dict(integrator="dopri5", rtol=1e-8, atol=1e-10), dict(integrator="generalized_alpha")):
        far, near = (mb.simulate(placed(lambda: pendulum()[0], shift, back=b), q0, np.zeros(m0.nu), 0.1, dt=1e-3,
                                 forces=inside, **kw) for b in (False, True))
        free = mb.simulate(m0, q0, np.zeros(m0.nu), 0.1, dt=1e-3, **kw)
        assert np.abs(free.q[-1] - near.q[-1]).max() > 1e-3  # the forces act
        assert_same(far.q, near.q, f"tied flexible pendulum at {x:g} m, {kw['integrator']}: q(t)")
        assert_same(far.u, near.u, f"tied flexible pendulum at {x:g} m, {kw['integrator']}: u(t)")
