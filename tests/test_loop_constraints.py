"""Loop, convel and coordinate constraints: rows, Jacobians, TA dynamics against a dense KKT solve.

Everything here is checked against something the constraint code does not use: finite
differences of the residuals (Gc and its rate), a dense KKT solve built from the tree's
own mass matrix and bias forces, and the squeeze-force identity.
"""
import numpy as np
import pytest

import multibody as mb
from test_dynamics_vs_pinocchio import random_transform, random_tree

LOOP_KINDS = ["pin", "slider", "screw", "cylindrical", "universal", "spherical", "gimbal",
              "planar", "translational", "locked"]
TREE_KINDS = ["spherical", "free", "universal", "cylindrical", "spherical_quat", "pin", "free_quat", "planar",
              "slider", "screw"]


def _with_loops(seed, n_loops, kinds, convel=False, coordinate=False):
    """A random tree with loops whose rows are independent (full row rank at the random q):
    redundant rows with random (inconsistent) data have no solution to compare with."""
    for attempt in range(50):
        out = _draw(seed + 1000 * attempt, n_loops, kinds, convel, coordinate)
        G = out[0].constraint_jacobian(out[1])
        if np.linalg.matrix_rank(G) == G.shape[0]:
            return out
    raise AssertionError("no full-rank draw")


def _draw(seed, n_loops, kinds, convel, coordinate):
    rng = np.random.default_rng(seed)
    m = random_tree(rng, TREE_KINDS, n_bodies=12)
    bodies = m.body_names
    for k in range(n_loops):
        b, a = rng.choice(len(bodies), 2, replace=False)
        fa = bodies[a] if rng.random() < 0.8 else "world"
        fb = bodies[b]
        m.add_node(f"na{k}", fa if fa != "world" else None, random_transform(rng))
        m.add_node(f"nb{k}", fb, random_transform(rng))
        kind = kinds[k % len(kinds)]
        m.add_loop_constraint(f"loop{k}", f"na{k}", f"nb{k}", kind, axis=rng.normal(size=3), pitch=0.2)
    if convel:
        m.add_convel_constraint("cv", bodies[2], bodies[5], rng.normal(size=6))
    if coordinate:
        one_dof = [h.name for h in m.hinges if h.nq == 1 and h.nu == 1]
        m.add_coordinate_constraint("gear", one_dof[0], one_dof[1], ratio=-1.7, offset=0.3)
    m.gravity = rng.normal(size=3) * 5
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    tau = rng.normal(size=m.nu)
    return m, q, u, tau, rng


def _step(m, q, du, eps):
    return m.integrate(q, du, eps)


def _cases():
    for kind in LOOP_KINDS:
        yield pytest.param(kind, 1, [kind], False, False, id=f"{kind}")
    yield pytest.param("mixed3", 3, LOOP_KINDS, True, True, id="three-loops-convel-gear")
    yield pytest.param("mixed5", 5, LOOP_KINDS[::-1], True, True, id="five-loops-convel-gear")


@pytest.mark.parametrize("name,n_loops,kinds,convel,coordinate", list(_cases()))
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_jacobian_bias_and_ta_against_dense_kkt(name, n_loops, kinds, convel, coordinate, seed):
    m, q, u, tau, rng = _with_loops(seed + 10 * n_loops, n_loops, kinds, convel, coordinate)
    G = m.constraint_jacobian(q)
    rows = G.shape[0]
    assert rows == sum(c.n_rows for c in m.enabled_constraints)
    # Gc against finite differences of the residuals along random tangent directions
    holonomic = np.array([m.constraint_residual_at(i)[0].category != "convel" for i in range(rows)])
    eps = 1e-6
    for _ in range(3):
        du = rng.normal(size=m.nu)
        fd = (m.pose_error(_step(m, q, du, eps), "residual") - m.pose_error(_step(m, q, du, -eps), "residual")) / (2 * eps)
        np.testing.assert_allclose(fd[holonomic], (G @ du)[holonomic], atol=2e-7 * max(1, np.abs(fd).max()))
    # velocity error is Gc u; the bias kappa = d/dt (Gc u) at fixed u
    np.testing.assert_allclose(m.velocity_error(q, u, "residual"), G @ u, atol=1e-12)
    fd_bias = (m.constraint_jacobian(_step(m, q, u, eps)) @ u - m.constraint_jacobian(_step(m, q, u, -eps)) @ u) / (2 * eps)
    np.testing.assert_allclose(m.constraint_bias(q, u), fd_bias, atol=2e-6 * max(1, np.abs(fd_bias).max()))
    # TA dynamics against a dense KKT solve from the tree's M and bias forces
    M = m.mass_matrix(q)
    b = m.bias_forces(q, u)
    kappa = m.constraint_bias(q, u)
    A = np.block([[M, G.T], [G, np.zeros((rows, rows))]])
    sol = np.linalg.lstsq(A, np.concatenate([tau - b, -kappa]), rcond=1e-12)[0]
    res = m.constrained_dynamics(q, u, tau)
    scale = max(1.0, np.abs(sol[:m.nu]).max())
    assert np.abs(res.udot - sol[:m.nu]).max() < 1e-10 * scale
    np.testing.assert_allclose(m.forward_dynamics(q, u, tau), res.udot, rtol=0, atol=1e-12 * scale)
    # the accelerations keep the constraints' acceleration level, and M udot + b = tau + Gc^T lambda
    assert np.abs(m.acceleration_error(q, u, res.udot, "residual")).max() < 1e-9 * scale
    np.testing.assert_allclose(M @ res.udot + b, tau + res.constraint_force, atol=1e-9 * scale * np.abs(M).max())
    np.testing.assert_allclose(sum(res.forces.values()), res.constraint_force, atol=1e-12 * scale)
    # squeeze forces Gc^T y cause no motion
    y = rng.normal(size=rows)
    squeezed = m.constrained_dynamics(q, u, tau + G.T @ y)
    assert np.abs(squeezed.udot - res.udot).max() < 1e-9 * scale
    # Q J = Gc, and the error form is E times the residual form
    Q, J = m.constraint_q_matrix(q)
    np.testing.assert_allclose(Q @ J, G, atol=1e-12 * max(1, np.abs(G).max()))
    from multibody.algorithms.constraints import error_map
    np.testing.assert_allclose(m.pose_error(q), error_map(m) @ m.pose_error(q, "residual"), atol=1e-15)


@pytest.mark.parametrize("kind,rows", [("pin", 5), ("slider", 5), ("screw", 5), ("cylindrical", 4),
                                       ("universal", 4), ("spherical", 3), ("planar", 3),
                                       ("translational", 3), ("locked", 6), ("fixed", 6), ("ball", 3)])
def test_rows_per_kind_and_error_layout(kind, rows):
    m, q, *_ = _with_loops(3, 1, [kind])
    (c,) = m.enabled_constraints
    assert c.n_rows == rows and c.nu == 6 - rows
    assert m.pose_error(q).shape == (6,) and m.pose_error(q, "residual").shape == (rows,)
    assert m.constraint_jacobian(q, "error").shape == (6, m.nu)


def test_redundant_rows_get_zero_multipliers():
    """The same loop twice: the second copy's rows are redundant (consistent), the motion is
    that of one loop, and the copies' multipliers are not both loaded."""
    m, q, u, tau, rng = _with_loops(7, 1, ["pin"])
    one = m.constrained_dynamics(q, u, tau)
    c = m.constraint("loop0")
    m.add_loop_constraint("copy", c.node_a, c.node_b, "pin", axis=c.axis)
    two = m.constrained_dynamics(q, u, tau)
    assert two.multipliers.shape == (10,)
    assert np.abs(two.udot - one.udot).max() < 1e-9 * max(1, np.abs(one.udot).max())
    np.testing.assert_allclose(two.constraint_force, one.constraint_force, atol=1e-8 * max(1, np.abs(one.constraint_force).max()))


def test_closed_loop_has_zero_error_at_coincident_nodes():
    m = mb.Multibody("two")
    for k in range(2):
        m.add_body(f"b{k}", 1.0, (0.3, 0, 0), np.eye(3) * 0.1)
    m.add_hinge(None, "b0", "pin", axis=(0, 0, 1))
    m.add_hinge("b0", "b1", "slider", axis=(1, 0, 0))
    m.add_node("a", None, np.eye(4))
    m.add_node("b", "b1", np.eye(4))
    m.add_loop_constraint("weld", "a", "b", "locked")
    assert np.abs(m.pose_error(np.zeros(2))).max() == 0.0
    err = m.pose_error(np.array([0.01, 0.02]))
    s, c = np.sin(0.01), np.cos(0.01)  # rotation error sin(angle) about z; b's origin in a's axes
    np.testing.assert_allclose(err, [0, 0, s, 0.02 * c, 0.02 * s, 0], atol=1e-16)


def test_lookups_and_row_order():
    m, q, *_ = _with_loops(4, 2, ["pin", "spherical"], convel=True, coordinate=True)
    names = [c.name for c in m.enabled_constraints]
    assert names == ["loop0", "loop1", "cv", "gear"]  # hinge loops, convel, coordinate
    assert m.constraint_residual_at(0) == (m.constraint("loop0"), 0)
    assert m.constraint_residual_at(5) == (m.constraint("loop1"), 0)
    assert m.constraint_residual_at(8) == (m.constraint("cv"), 0)
    assert m.constraint_residual_at(9) == (m.constraint("gear"), 0)
    assert m.constraint_error_at(6) == (m.constraint("loop1"), 0)
    assert m.constraint_error_at(12) == (m.constraint("cv"), 0)
    with pytest.raises(IndexError, match="outside the 10 constraint rows"):
        m.constraint_residual_at(10)
    h, k = m.coord_at(m.u_slice(m.hinge_names[1]).start)
    assert h.name == m.hinge_names[1] and k == 0
    np.testing.assert_array_equal(m.complementary_indices(5, [1, 3]), [0, 2, 4])
    m.disable_constraint("loop1")
    assert [c.name for c in m.enabled_constraints] == ["loop0", "cv", "gear"]
    assert m.constraint_jacobian(q).shape[0] == 5 + 1 + 1
    m.enable_constraint("loop1")
    assert m.constraint_jacobian(q).shape[0] == 10
    c0 = m.constraint("loop0")
    assert c0 in m.body_constraints(c0.node_b.body)
    path = m.loop_bodies("loop0")
    assert c0.node_b.body in path


def test_bad_constraints_are_refused_with_their_names():
    m = mb.Multibody()
    m.add_body("a", 1.0, inertia=np.eye(3))
    m.add_body("b", 1.0, inertia=np.eye(3))
    m.add_hinge(None, "a", "pin")
    m.add_hinge("a", "b", "ball")
    m.add_node("na", "a")
    m.add_node("na2", "a")
    m.add_node("nb", "b")
    with pytest.raises(ValueError, match="'c1'.*same frame"):
        m.add_loop_constraint("c1", "na", "na", "pin")
    with pytest.raises(ValueError, match="'c2'.*same body"):
        m.add_loop_constraint("c2", "na", "na2", "pin")
    with pytest.raises(ValueError, match="'c3'.*no loop meaning"):
        m.add_loop_constraint("c3", "na", "nb", "free")
    with pytest.raises(ValueError, match="'c4'.*unknown kind"):
        m.add_loop_constraint("c4", "na", "nb", "hinge-ish")
    with pytest.raises(ValueError, match="'c5'.*neither a node nor a body"):
        m.add_loop_constraint("c5", "na", "nowhere", "pin")
    with pytest.raises(ValueError, match="'c6'.*perpendicular"):
        m.add_loop_constraint("c6", "na", "nb", "universal", axes=[(1, 0, 0), (1, 1, 0)])
    with pytest.raises(ValueError, match="'g'.*hinge_b 'b_hinge' has nq=3"):
        m.add_coordinate_constraint("g", "a_hinge", "b_hinge")
    with pytest.raises(ValueError, match="'cv'.*6-vector"):
        m.add_convel_constraint("cv", "na", "nb", (1, 0, 0))
    m.add_loop_constraint("ok", "na", "nb", "spherical")
    with pytest.raises(ValueError, match="already exists"):
        m.add_loop_constraint("ok", "na", "nb", "spherical")
    with pytest.raises(KeyError, match="unknown constraint 'nope'"):
        m.constraint("nope")


def test_pose_error_gradient_is_the_derivative_in_the_coordinates():
    """d(residual)/dq against central differences of q itself (no quaternion kinds: a raw
    step off the unit sphere is not a configuration)."""
    rng = np.random.default_rng(5)
    m = random_tree(rng, ["spherical", "free", "universal", "pin", "slider", "cylindrical"], n_bodies=10)
    bodies = m.body_names
    m.add_node("na", bodies[3], random_transform(rng))
    m.add_node("nb", bodies[8], random_transform(rng))
    m.add_loop_constraint("weld", "na", "nb", "locked")
    m.add_node("nc", None, random_transform(rng))
    m.add_loop_constraint("ball", "nc", "nb", "spherical")
    q = m.random_q(rng)
    P = m.pose_error_gradient(q, "residual")
    E = m.pose_error_gradient(q)
    eps = 1e-6
    fd = np.column_stack([(m.pose_error(q + eps * e, "residual") - m.pose_error(q - eps * e, "residual")) / (2 * eps)
                          for e in np.eye(m.nq)])
    np.testing.assert_allclose(P, fd, atol=1e-7 * max(1, np.abs(fd).max()))
    from multibody.algorithms.constraints import error_map
    np.testing.assert_allclose(E, error_map(m) @ P, atol=1e-14)


def test_forward_dynamics_with_loops_arguments():
    """The hot path (thread's data, out=) and the checked one (lists, data=, bad shapes) agree."""
    m, q, u, tau, rng = _with_loops(5, 2, ["pin", "spherical"])
    ref = m.constrained_dynamics(q, u, tau).udot
    out = np.empty(m.nu)
    assert m.forward_dynamics(q, u, tau, out=out) is out
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(m.forward_dynamics(list(q), list(u), list(tau)), ref)
    np.testing.assert_array_equal(m.forward_dynamics(q, u, tau, data=m.create_data()), ref)
    with pytest.raises(ValueError, match="out must"):
        m.forward_dynamics(q, u, tau, out=np.empty(m.nu + 1))
    with pytest.raises(ValueError, match="tau must have shape"):
        m.forward_dynamics(q, u, tau[:-1], out=np.empty(m.nu))
    stacked = m.forward_dynamics(np.stack([q, q]), np.stack([u, u]), np.stack([tau, tau]))  # the batched TA
    np.testing.assert_array_equal(stacked, np.stack([ref, ref]))
