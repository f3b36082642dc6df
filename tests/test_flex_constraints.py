"""Loop, convel and coordinate constraints on models with modal (flexible) bodies, their
frames on deforming nodes included (the flex entry kernels constraint_rows_flex and
constrained_forward_dynamics_flex, kernels/flex_entry.py).

Checked against what the constraint code does not use: finite differences of the
residuals (Gc and its rate) and the deformed node poses of ``frame_pose`` (the pose error).
The random models here serve test_flex_constrained_dynamics.py too.
"""
import numpy as np
import pytest

from flex_models import KINDS, flex_state, flexible_tree
from multibody.algorithms.constraints import error_map
from multibody.spatial import rotvec_to_matrix

LOOP_KINDS = ["pin", "spherical", "locked", "screw", "universal", "slider", "cylindrical", "planar"]
#: frames of flexible_tree: nodes of the beam (deforming), child bodies, the tip panel (modal)
BEAM_NODES = ["n0", "n1", "n2", "n3", "n4", "n5", "tip_mount"]
OTHERS = ["c0", "c1", "c2", "c3", "c4", "c5", "tip_panel", "b0", None]


def _random_T(rng):
    T = np.eye(4)
    T[:3, :3] = rotvec_to_matrix(rng.normal(size=3))
    T[:3, 3] = 0.3 * rng.normal(size=3)
    return T


def _draw(seed, n_loops, kinds, convel, coordinate):
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, kinds=list(np.roll(KINDS, seed % 6)), gravity=rng.normal(size=3) * 3)
    # a deforming node of the beam and one of the tip panel, for the loops to close at
    m.add_node("bx", "beam", _random_T(rng), mode_shapes=0.3 * rng.normal(size=(6, 3)))
    m.add_node("px", "tip_panel", _random_T(rng), mode_shapes=0.3 * rng.normal(size=(6, 2)))
    for k in range(n_loops):
        a = ["bx", "px", *BEAM_NODES][rng.integers(0, 2 + len(BEAM_NODES))] if k == 0 else \
            [*BEAM_NODES, *OTHERS][rng.integers(0, len(BEAM_NODES) + len(OTHERS))]
        body_a = m.nodes[a].body.name if a in m.nodes else a
        bs = [b for b in OTHERS if b is not None and b != body_a]
        b = bs[rng.integers(0, len(bs))]
        m.add_node(f"la{k}", None, _random_T(rng)) if a is None else None
        m.add_node(f"lb{k}", b, _random_T(rng))
        m.add_loop_constraint(f"loop{k}", a if a is not None else f"la{k}", f"lb{k}", kinds[k % len(kinds)],
                              axis=rng.normal(size=3), pitch=0.2)
    if convel:
        m.add_convel_constraint("cv", "bx", "c3", rng.normal(size=6))
    if coordinate:
        one_dof = [h.name for h in m.hinges if h.nq == 1 and h.nu == 1 and h.name != "tip_panel_hinge"]
        m.add_coordinate_constraint("gear", one_dof[0], "tip_panel_hinge", ratio=-1.7, offset=0.3)
    q, u = flex_state(m, rng)
    return m, q, u, rng.normal(size=m.nu), rng


def _with_loops(seed, n_loops, kinds, convel=False, coordinate=False):
    """A random flexible tree with loops whose rows are independent at the random q (random
    data on redundant rows has no solution to compare with)."""
    for attempt in range(50):
        out = _draw(seed + 1000 * attempt, n_loops, kinds, convel, coordinate)
        G = out[0].constraint_jacobian(out[1])
        if np.linalg.matrix_rank(G, tol=1e-8 * np.abs(G).max()) == G.shape[0]:
            return out
    raise AssertionError("no full-rank draw")


def _cases():
    for kind in LOOP_KINDS:
        yield pytest.param(1, [kind], False, False, id=kind)
    yield pytest.param(2, LOOP_KINDS[3:], True, False, id="two-loops-convel")
    yield pytest.param(3, LOOP_KINDS[::-1], True, True, id="three-loops-convel-gear")


@pytest.mark.parametrize("n_loops,kinds,convel,coordinate", list(_cases()))
def test_rows_jacobian_bias_against_finite_differences(n_loops, kinds, convel, coordinate):
    m, q, u, tau, rng = _with_loops(11 * n_loops + len(kinds[0]), n_loops, kinds, convel, coordinate)
    G = m.constraint_jacobian(q)
    rows = G.shape[0]
    holonomic = np.array([m.constraint_residual_at(i)[0].category != "convel" for i in range(rows)])
    eps = 1e-6
    for _ in range(3):
        du = rng.normal(size=m.nu)
        fd = (m.pose_error(m.integrate(q, du, eps), "residual")
              - m.pose_error(m.integrate(q, du, -eps), "residual")) / (2 * eps)
        np.testing.assert_allclose(fd[holonomic], (G @ du)[holonomic], rtol=0, atol=1e-8 * max(1, np.abs(fd).max()))
    np.testing.assert_allclose(m.velocity_error(q, u, "residual"), G @ u, rtol=0, atol=1e-12 * np.abs(G @ u).max())
    fd_bias = (m.constraint_jacobian(m.integrate(q, u, eps)) @ u
               - m.constraint_jacobian(m.integrate(q, u, -eps)) @ u) / (2 * eps)
    np.testing.assert_allclose(m.constraint_bias(q, u), fd_bias, rtol=0, atol=1e-7 * max(1, np.abs(fd_bias).max()))
    udot = rng.normal(size=m.nu)
    np.testing.assert_allclose(m.acceleration_error(q, u, udot, "residual"), G @ udot + m.constraint_bias(q, u),
                               rtol=0, atol=1e-12 * max(1, np.abs(G @ udot).max()))
    Q, J = m.constraint_q_matrix(q)
    np.testing.assert_allclose(Q @ J, G, rtol=0, atol=1e-12 * max(1, np.abs(G).max()))
    np.testing.assert_allclose(m.pose_error(q), error_map(m) @ m.pose_error(q, "residual"), atol=1e-15)


@pytest.mark.parametrize("kind", ["spherical", "locked"])
def test_pose_error_uses_the_deformed_node_poses(kind):
    """Closed at a deforming node: the translation error is b's origin in a's deformed axes,
    and a weld's rotation error is -(R_yz, R_zx, R_xy) of R = R_a^T R_b (rows y.z, z.x, x.y
    of model/constraints.py; both from frame_pose)."""
    m, q, *_ = _with_loops(5, 1, [kind])
    con = m.constraint("loop0")
    Ta, Tb = m.frame_pose(q, con.node_a.name), m.frame_pose(q, con.node_b.name)
    err = m.pose_error(q)
    np.testing.assert_allclose(err[3:], Ta[:3, :3].T @ (Tb[:3, 3] - Ta[:3, 3]), atol=1e-13)
    if kind == "locked":
        R = Ta[:3, :3].T @ Tb[:3, :3]
        np.testing.assert_allclose(err[:3], -np.array([R[1, 2], R[2, 0], R[0, 1]]), atol=1e-13)
    # the deformation moves the error: with eta = 0 it is another
    q0 = q.copy()
    for b in m.modal_bodies:
        q0[m.modal_slice(b)] = 0.0
    assert np.abs(m.pose_error(q0) - err).max() > 1e-3


def test_constraint_kinematics_with_modal_coordinates_free_or_frozen():
    """The solver runs on flex models through the flex rows: the modal coordinates are free
    like any coordinate (a loop may need the deformation to close), or held with the modal
    rates' u indices (``m.modal_u_slice``) in ``frozen``: then eta keeps its value and the
    hinges close the loop (here a spherical loop from a deforming beam node to a body on a
    free hinge, and a pin loop from another to a second one)."""
    rng = np.random.default_rng(2)
    m = flexible_tree(rng, gravity=(0, 0, -9.81))  # c4 hangs on a free hinge
    m.add_node("bx", "beam", _random_T(rng), mode_shapes=0.3 * rng.normal(size=(6, 3)))
    m.add_node("lb0", "c4", _random_T(rng))
    m.add_loop_constraint("loop0", "bx", "lb0", "spherical")
    m.add_body("c6", mass=0.4, com=[0.05, 0, 0], inertia=[0.01, 0, 0, 0.02, 0, 0.03])
    m.add_hinge("n1", "c6", "free")
    m.add_node("lb1", "c6", _random_T(rng))
    m.add_loop_constraint("loop1", "tip_mount", "lb1", "pin", axis=rng.normal(size=3))
    q, u = flex_state(m, rng)
    S = m.constraint_kinematics()
    modal_u = np.concatenate([np.arange(m.nu)[m.modal_u_slice(b)] for b in m.modal_bodies])
    for frozen in ([], list(modal_u)):
        qc = S.solve_q(q, frozen=frozen)
        assert np.abs(m.pose_error(qc, "residual")).max() <= 1e-12
        uc = S.solve_u(qc, u, frozen=frozen)
        assert np.abs(m.velocity_error(qc, uc, "residual")).max() <= 1e-11 * np.abs(u).max()
        udot = S.solve_udot(qc, uc, rng.normal(size=m.nu), frozen=frozen)
        assert np.abs(m.acceleration_error(qc, uc, udot, "residual")).max() <= 1e-10 * max(1, np.abs(udot).max())
        for b in m.modal_bodies:
            moved = np.abs(qc[m.modal_slice(b)] - q[m.modal_slice(b)]).max()
            assert (moved == 0.0) if frozen else True
            if frozen:
                assert np.abs(uc[m.modal_u_slice(b)] - u[m.modal_u_slice(b)]).max() == 0.0
    # the pin loop at the deforming tip_mount node: with eta free, the closure uses it
    qf = S.solve_q(q)
    assert np.abs(qf[m.modal_slice("beam")] - q[m.modal_slice("beam")]).max() > 1e-6


def _world_loop(seed=9):
    """A deforming beam node held by a spherical loop to a point of the world (a frame that
    does not move: no Jacobian, no compliance block) and a pin loop between two nodes of
    the beam's body and a child (one frame in two rows' pairs)."""
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, gravity=(0, 0, -9.81))
    m.add_node("bx", "beam", _random_T(rng), mode_shapes=0.3 * rng.normal(size=(6, 3)))
    m.add_node("anchor", None, _random_T(rng))
    m.add_loop_constraint("to_world", "anchor", "bx", "spherical")
    m.add_node("lb", "c2", _random_T(rng))
    m.add_loop_constraint("pin", "bx", "lb", "pin", axis=rng.normal(size=3))
    q, u = flex_state(m, rng)
    return m, q, u, rng.normal(size=m.nu), rng


def test_rows_with_a_world_frame_against_finite_differences():
    m, q, u, _, rng = _world_loop()
    G = m.constraint_jacobian(q)
    eps = 1e-6
    du = rng.normal(size=m.nu)
    fd = (m.pose_error(m.integrate(q, du, eps), "residual")
          - m.pose_error(m.integrate(q, du, -eps), "residual")) / (2 * eps)
    np.testing.assert_allclose(fd, G @ du, rtol=0, atol=1e-8 * max(1, np.abs(fd).max()))
    fd_bias = (m.constraint_jacobian(m.integrate(q, u, eps)) @ u
               - m.constraint_jacobian(m.integrate(q, u, -eps)) @ u) / (2 * eps)
    np.testing.assert_allclose(m.constraint_bias(q, u), fd_bias, rtol=0, atol=1e-7 * max(1, np.abs(fd_bias).max()))
    # the anchor's rows: b's origin in the world point's axes, from frame_pose
    Ta, Tb = m.frame_pose(q, "anchor"), m.frame_pose(q, "bx")
    np.testing.assert_allclose(m.pose_error(q)[3:6], Ta[:3, :3].T @ (Tb[:3, 3] - Ta[:3, 3]), atol=1e-13)


def test_rows_name_bad_input_and_keep_their_tables_per_data():
    m, q, u, *_ = _world_loop()
    bad = q.copy()
    bad[1] = np.inf
    with pytest.raises(ValueError, match=r"q\[1\] is not finite"):
        m.pose_error(bad)
    with pytest.raises(ValueError, match=r"u must have shape"):
        m.velocity_error(q, u[:-1])
    d = m.create_data()
    G = m.constraint_jacobian(q, data=d)
    work = d.constraint_work  # the rows' work array, made once per Data (their tables are the model's)
    np.testing.assert_array_equal(m.constraint_jacobian(q, data=d), G)
    assert d.constraint_work is work
    np.testing.assert_array_equal(m.constraint_jacobian(q), G)  # another Data: the same numbers
