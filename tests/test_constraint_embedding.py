"""Constraint embedding (issue 8, item 6): aggregation sub-graphs and embedded forward dynamics.

The embedded accelerations are checked against the tree-augmented ones
(``constrained_dynamics`` without stabilization), which do not use the embedding, on random
trees with 1-3 loops of every kind closed with the constraint kinematics solver, on the
four-bar of test_loop_simulation (redundant planar rows) and on hand-made nested loops.
"""
import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import multibody as mb
from multibody.algorithms.constraint_embedding import default_aggregations
from test_loop_simulation import ANGLES, closed_four_bar, four_bar  # noqa: F401  (a fixture)

TREE_KINDS = ["spherical", "free", "universal", "cylindrical", "spherical_quat", "pin", "free_quat", "planar",
              "slider", "screw", "gimbal"]
LOOP_KINDS = ["pin", "spherical", "universal", "slider", "cylindrical", "screw", "planar", "locked",
              "translational", "gimbal"]
TOL = 1e-9


def _transform(rng, scale=0.5):
    T = np.eye(4)
    T[:3, :3] = Rotation.random(random_state=rng.integers(1 << 31)).as_matrix()
    T[:3, 3] = rng.uniform(-scale, scale, 3)
    return T


def _tree(rng, n_bodies=12):
    m = mb.Multibody("random")
    names = [None]
    for k in range(n_bodies):
        mass = rng.uniform(0.5, 3.0)
        d = rng.uniform(0.1, 1.0, 3) ** 2
        R = _transform(rng)[:3, :3]
        m.add_body(f"b{k}", mass, rng.uniform(-0.3, 0.3, 3), R @ np.diag(mass / 12 * (d.sum() - d)) @ R.T)
        m.add_hinge(names[rng.integers(len(names))], f"b{k}", TREE_KINDS[k % len(TREE_KINDS)],
                    axis=rng.normal(size=3), pitch=0.1, T_parent_joint=_transform(rng), T_child_joint=_transform(rng))
        names.append(f"b{k}")
    return m


def _close_loop_at(m, q0, name, body_a, body_b, kind, rng):
    """A loop of ``kind`` whose node frames coincide at q0 (so q0 is closed)."""
    m.add_node(f"{name}_b", body_b, _transform(rng))
    Ta = np.eye(4) if body_a is None else m.frame_pose(q0, body_a)
    m.add_node(f"{name}_a", body_a, np.linalg.inv(Ta) @ m.frame_pose(q0, f"{name}_b"))
    return m.add_loop_constraint(name, f"{name}_a", f"{name}_b", kind, axis=rng.normal(size=3), pitch=0.2)


def _draw(seed, n_loops, kinds, extras=False):
    rng = np.random.default_rng(seed)
    m = _tree(rng)
    if seed % 2:  # rotor inertias on every other tree
        for h in m.hinges:
            h.armature = rng.uniform(0.0, 0.5, h.nu)
    q0 = m.random_q(rng)
    bodies = m.body_names
    for k in range(n_loops):
        b, a = rng.choice(len(bodies), 2, replace=False)
        _close_loop_at(m, q0, f"loop{k}", bodies[a] if rng.random() < 0.8 else None, bodies[b], kinds[k % len(kinds)], rng)
    if extras:  # a convel constraint and a gear: velocity-level and coordinate rows
        m.add_convel_constraint("cv", bodies[2], bodies[5], rng.normal(size=6))
        one_dof = [h.name for h in m.hinges if h.nu == 1]
        m.add_coordinate_constraint("gear", one_dof[0], one_dof[1], ratio=-1.7, offset=0.3)
    m.gravity = rng.normal(size=3) * 5
    return m, q0, rng


def _closed_state(seed, n_loops, kinds, extras=False):
    """A model with independent constraint rows, a configuration closed by ``solve_q`` from a
    perturbed one, consistent speeds from ``solve_u``, and random joint forces."""
    for attempt in range(60):
        m, q0, rng = _draw(seed + 1000 * attempt, n_loops, kinds, extras)
        G = m.constraint_jacobian(q0)
        if np.linalg.matrix_rank(G) < G.shape[0]:
            continue
        cks = m.constraint_kinematics()
        holonomic = [i for i in range(G.shape[0]) if m.constraint_residual_at(i)[0].category != "convel"]
        q = cks.solve_q(m.integrate(q0, rng.normal(size=m.nu), 1e-3))
        assert np.abs(m.pose_error(q, "residual")[holonomic]).max() < 1e-11
        u = cks.solve_u(q, rng.normal(size=m.nu))
        assert np.abs(m.constraint_jacobian(q) @ u).max() < 1e-10
        return m, q, u, rng.normal(size=m.nu), rng
    raise AssertionError("no full-rank draw")


def _assert_matches_ta(m, q, u, tau, f_ext=None, **kw):
    ta = m.constrained_dynamics(q, u, tau, f_ext=f_ext).udot
    scale = max(1.0, np.abs(ta).max())
    for method in ("recursive", "dense"):
        udot = m.embedded_forward_dynamics(q, u, tau, f_ext=f_ext, method=method, **kw)
        err = np.abs(udot - ta).max()
        assert err < TOL * scale, (method, err, scale)
        assert np.abs(m.acceleration_error(q, u, udot, "residual")).max() < TOL * scale
    return ta


def _cases():
    for k, kind in enumerate(LOOP_KINDS):
        yield pytest.param(1, [kind], id=f"one-{kind}")
    yield pytest.param(2, ["pin", "spherical"], id="two-pin-spherical")
    yield pytest.param(2, ["universal", "slider"], id="two-universal-slider")
    yield pytest.param(3, ["pin", "spherical", "universal"], id="three-pin-spherical-universal")
    yield pytest.param(3, ["slider", "cylindrical", "screw"], id="three-slider-cylindrical-screw")
    yield pytest.param(3, ["planar", "locked", "gimbal"], id="three-planar-locked-gimbal")


@pytest.mark.parametrize("n_loops,kinds", list(_cases()))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_embedding_equals_tree_augmented_dynamics_on_random_trees(n_loops, kinds, seed):
    m, q, u, tau, _ = _closed_state(100 * seed + 7 * n_loops, n_loops, kinds)
    _assert_matches_ta(m, q, u, tau)
    aggs = default_aggregations(m, q)
    assert sorted(c.name for a in aggs for c in a.constraints) == sorted(c.name for c in m.enabled_constraints)
    for a in aggs:  # the minimal coordinates: n_u - rank of the aggregation's rows
        assert a.n_independent == a.u_indices.size - a.rank
        assert a.rank == sum(c.n_rows for c in a.constraints)  # independent rows (drawn so)
        local = m.complementary_indices(a.u_indices.size, a.local(a.independent))
        np.testing.assert_array_equal(a.dependent, a.u_indices[local])


@pytest.mark.parametrize("seed", [0, 1])
def test_convel_gear_and_external_forces(seed):
    m, q, u, tau, rng = _closed_state(50 + seed, 2, ["pin", "universal"], extras=True)
    _assert_matches_ta(m, q, u, tau)
    f_ext = {m.body_names[3]: rng.normal(size=6), "loop0_b": rng.normal(size=6)}
    _assert_matches_ta(m, q, u, tau, f_ext=f_ext)


def test_four_bar_aggregation_is_its_three_bodies_and_embeds_exactly(closed_four_bar):
    m, q, u = closed_four_bar
    sg = m.aggregation_sub_graph("four_bar", ["closure"], q=q)
    assert sg.body_names == ["crank", "coupler", "rocker"]
    assert [h.name for h in sg.hinges] == ["crank_joint", "coupler_joint", "rocker_joint"]
    assert sg.parent is m.world and sg.constraints == [m.constraint("closure")]
    assert sg.u_indices.tolist() == [0, 1, 2] and sg.rank == 2 and sg.n_independent == 1
    np.testing.assert_array_equal(sg.complementary_indices, m.complementary_indices(3, sg.independent))
    tau = np.array([0.3, -0.2, 0.1])
    ta = _assert_matches_ta(m, q, u, tau, aggregations=[sg])
    for independent in ([0], [1], ["rocker_joint"]):  # any one pin spans the four-bar's motion here
        chosen = m.aggregation_sub_graph("fb", [m.constraint("closure")], independent=independent, q=q)
        for method in ("recursive", "dense"):
            udot = m.embedded_forward_dynamics(q, u, tau, aggregations=[chosen], method=method)
            assert np.abs(udot - ta).max() < TOL * max(1, np.abs(ta).max())


def _chain(kinds, axes):
    m = mb.Multibody("chain", gravity=(0.3, -0.2, -9.81))
    rng = np.random.default_rng(5)
    parent = None
    for k, (kind, axis) in enumerate(zip(kinds, axes)):
        m.add_body(f"c{k}", 1.0 + 0.1 * k, (0.2, 0.05, 0.0), np.diag([0.02, 0.03, 0.04]) * (1 + k))
        T = np.eye(4)
        T[:3, 3] = (0.4, 0.1 * (k % 2), 0.0) if parent else (0.0, 0.0, 0.0)
        m.add_hinge(parent, f"c{k}", kind, axis=axis, T_parent_joint=T)
        parent = f"c{k}"
    return m, rng


def test_nested_and_separate_aggregations():
    """loop a (world-c1) and loop b (c1-c3) share no body: two compound bodies, b hanging from c1
    inside a; loop c overlapping b merges into it; a convel constraint merges only when asked."""
    m, rng = _chain(["spherical", "pin", "universal", "spherical", "pin", "pin"],
                    [None, (1, 0, 0), None, None, (0, 1, 0), (0, 0, 1)])
    m.add_hinge("c0", m.add_body("side", 0.7, (0.1, 0, 0), np.eye(3) * 0.01), "pin", axis=(0, 1, 0))
    q0 = m.random_q(rng)
    _close_loop_at(m, q0, "a", None, "c1", "spherical", rng)
    _close_loop_at(m, q0, "b", "c1", "c3", "spherical", rng)
    _close_loop_at(m, q0, "c", "c2", "c5", "universal", rng)
    m.add_convel_constraint("cv", "c1", "side", (0.3, 1.0, -0.2, 0.1, 0.4, 0.0))  # its loop: side, c1
    aggs = default_aggregations(m, q0)
    assert [a.body_names for a in aggs] == [["c0", "c1", "side"], ["c2", "c3", "c4", "c5"]]
    assert [a.parent.name for a in aggs] == ["world", "c1"]
    assert [a.constraint_names for a in aggs] == [["a", "cv"], ["b", "c"]]
    no_cv = m.aggregation_sub_graph("a_only", ["a"], with_velocity_constraints=False)
    assert no_cv.body_names == ["c0", "c1"] and no_cv.constraint_names == ["a"]
    assert m.aggregation_sub_graph("a_cv", ["a"]).constraint_names == ["a", "cv"]
    cks = m.constraint_kinematics()
    u = cks.solve_u(q0, rng.normal(size=m.nu))
    tau = rng.normal(size=m.nu)
    _assert_matches_ta(m, q0, u, tau)
    mine = [m.aggregation_sub_graph("outer", ["a"], q=q0), m.aggregation_sub_graph("inner", ["c"], q=q0)]
    assert mine[1].constraint_names == ["b", "c"]
    _assert_matches_ta(m, q0, u, tau, aggregations=mine)
    with pytest.raises(ValueError, match=r"aggregations: the enabled constraints \['b', 'c'\] are in no"):
        m.embedded_forward_dynamics(q0, u, tau, aggregations=mine[:1])


def test_a_rigid_aggregation_has_no_independent_speed():
    """A spherical root body whose rotation a translational loop locks: 3 rows, 3 speeds; its
    child's pin stays free."""
    m, rng = _chain(["spherical", "pin"], [None, (0, 0, 1)])
    q0 = m.random_q(rng)
    _close_loop_at(m, q0, "hold", None, "c0", "translational", rng)
    (a,) = default_aggregations(m, q0)
    assert a.n_independent == 0 and a.body_names == ["c0"]
    u = m.constraint_kinematics().solve_u(q0, rng.normal(size=m.nu))
    _assert_matches_ta(m, q0, u, rng.normal(size=m.nu))


def test_bad_input_is_refused_by_name(closed_four_bar):
    m, q, u = closed_four_bar
    with pytest.raises(ValueError, match="constraints: the list is empty"):
        m.aggregation_sub_graph("x", [])
    with pytest.raises(ValueError, match="constraints: 'nope' is not a constraint"):
        m.aggregation_sub_graph("x", ["closure", "nope"])
    with pytest.raises(ValueError, match=r"independent: u indices \[0, 1\] do not span"):
        m.aggregation_sub_graph("x", ["closure"], independent=[0, 1], q=q)  # two where one is free
    with pytest.raises(ValueError, match=r"independent: u indices \[7\] are not coordinates of aggregation 'x'"):
        m.aggregation_sub_graph("x", ["closure"], independent=[7], q=q)
    with pytest.raises(ValueError, match="method must be one of"):
        m.embedded_forward_dynamics(q, u, np.zeros(3), method="fast")
    other = m.aggregation_sub_graph("again", ["closure"])
    with pytest.raises(ValueError, match="aggregations: constraint 'closure' is in both 'x' and 'again'"):
        m.embedded_forward_dynamics(q, u, np.zeros(3), aggregations=[m.aggregation_sub_graph("x", ["closure"]), other])
    with pytest.raises(ValueError, match="aggregations: 'closure' is not an aggregation sub-graph"):
        m.embedded_forward_dynamics(q, u, np.zeros(3), aggregations=["closure"])
    m.disable_constraint("closure")
    try:
        with pytest.raises(ValueError, match="constraints: 'closure' is disabled"):
            m.aggregation_sub_graph("x", ["closure"])
        with pytest.raises(ValueError, match="aggregations: 'again' was made before the model or its enabled"):
            m.embedded_forward_dynamics(q, u, np.zeros(3), aggregations=[other])
    finally:
        m.enable_constraint("closure")


def test_independent_coordinates_that_do_not_span_are_refused():
    """An arm (pin z), a carriage sliding along it and a spinner turning about the slide axis,
    whose origin a spherical loop holds: the spin never moves the point, so it must be independent;
    with the carriage at the arm's pivot the arm does not move it either (a singular configuration)."""
    s = mb.Multibody("spin")
    for name in ("arm", "carriage", "spinner"):
        s.add_body(name, 1.0, (0.1, 0, 0), np.eye(3) * 0.05)
    s.add_hinge(None, "arm", "pin", axis=(0, 0, 1))
    at = np.eye(4)
    at[0, 3] = 0.5
    s.add_hinge("arm", "carriage", "slider", axis=(1, 0, 0), T_parent_joint=at)
    s.add_hinge("carriage", "spinner", "pin", axis=(1, 0, 0))
    q0 = np.array([0.3, 0.0, 0.2])
    s.add_node("fixed", None, s.frame_pose(q0, "spinner"))
    s.add_node("tip", "spinner")
    s.add_loop_constraint("point", "fixed", "tip", "spherical")
    good = s.aggregation_sub_graph("ok", ["point"], q=q0)
    assert good.independent.tolist() == [2] and good.rank == 2  # the z row is always 0: redundant
    with pytest.raises(ValueError, match=r"independent: u indices \[0\] do not span the motion of aggregation 'bad'"):
        s.aggregation_sub_graph("bad", ["point"], independent=[0], q=q0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the redundant row
        u = s.constraint_kinematics().solve_u(q0, [0.0, 0.0, 1.0])
    tau = np.array([0.2, -0.1, 0.3])
    _assert_matches_ta(s, q0, u, tau, aggregations=[good])
    folded = np.array([0.3, -0.5, 0.2])
    with pytest.raises(ValueError, match=r"aggregation 'ok': its independent u indices \[2\] do not span its motion"):
        s.embedded_forward_dynamics(folded, np.zeros(3), tau, aggregations=[good])


def test_without_constraints_it_is_the_tree_forward_dynamics():
    m, rng = _chain(["free", "pin", "universal", "spherical"], [None, (1, 0, 0), None, None])
    q, u, tau = m.random_q(rng), rng.normal(size=m.nu), rng.normal(size=m.nu)
    assert default_aggregations(m, q) == []
    for method in ("recursive", "dense"):
        np.testing.assert_allclose(m.embedded_forward_dynamics(q, u, tau, method=method),
                                   m.forward_dynamics(q, u, tau), rtol=0, atol=1e-10)
