"""Sub-trees and sub-graphs: body sets, lookups, and every algorithm on the sub-tree's own
coordinates against the full model with the other coordinates locked (frozen).

References use only the full model: its mass matrix and bias forces with the other speeds
zero (M_ss^-1 (tau_s - b_s)), its Jacobian's columns, a dense KKT solve with its constraint
Jacobian's columns, and a hand-written RK4 on those.
"""
import numpy as np
import pytest

import multibody as mb
from multibody.views import SubGraph, SubTree
from multibody.model.subtree_select import descendants
from multibody.results import coordinate_labels
from subgraph_models import (
    TREE_KINDS, ball_model, close, frozen_reference, kkt, letters, loop_model, random_sub, rk4_reference,
)
from test_dynamics_vs_pinocchio import random_tree


# ---------------------------------------------------------------------- body sets, lookups
def test_body_sets_of_root_branches_and_stops():
    m = letters()
    assert m.sub_tree("s", "a").body_names == ["b", "c", "d", "e", "f", "g"]
    assert m.sub_tree("s", None).body_names == m.body_names
    assert m.sub_tree("s", "world", use_branches=["h"]).body_names == ["h"]
    assert m.sub_tree("s", "a", use_branches="d").body_names == ["b", "d", "e"]
    assert m.sub_tree("s", "a", use_branches=["c", "g"]).body_names == ["b", "c", "f", "g"]
    assert m.sub_tree("s", "a", stop_at=["b"]).body_names == ["b", "f", "g"]
    assert m.sub_tree("s", "a", use_branches=["e"], stop_at=["d"]).body_names == ["b", "d"]
    s = m.sub_tree("s", m.body("b"))
    assert s.root is m.body("b") and s.hinge_names == ["c_hinge", "d_hinge", "e_hinge"]
    assert s.nodes == {"n_e": m.node("n_e")} and s.node_names == ["n_e"]
    assert s.body("e") is m.body("e") and s.hinge("d_hinge") is m.hinge("d_hinge")
    assert s.node("n_e") is m.node("n_e")
    assert "e" in s and m.body("e") in s and "a" not in s and "b" not in s
    assert s.nq == s.nu == 3
    for k, h in enumerate(s.hinges):
        assert s.u_index[k] == m.u_slice(h.name).start and s.q_index[k] == m.q_slice(h.name).start
    with pytest.raises(KeyError, match="a"):
        s.body("a")
    with pytest.raises(KeyError):
        s.hinge("f_hinge")
    with pytest.raises(KeyError):
        s.node("n_a")
    assert isinstance(s, SubTree) and not isinstance(s, SubGraph)
    assert "SubTree('s' of 'letters', root='b'" in repr(s)


def test_restrict_expand_and_nesting():
    m = letters()
    s = m.sub_tree("s", "d")
    q = np.arange(m.nq, dtype=float)
    assert s.restrict_q(q).tolist() == [m.q_slice("e_hinge").start]
    q2 = s.expand_q([7.0], q)
    assert q2[m.q_slice("e_hinge")][0] == 7.0 and np.delete(q2, s.q_index).tolist() == np.delete(q, s.q_index).tolist()
    u = s.expand_u([2.0])
    assert u.sum() == 2.0 and s.restrict_u(u).tolist() == [2.0]
    s = m.sub_tree("s", "a", stop_at=["d"])  # nested sub-trees stay inside their parent
    inner = s.sub_tree("inner", "b")
    assert inner.body_names == ["c", "d"] and inner.parent is s and inner.multibody is m
    assert s.sub_tree("all", "a").body_names == s.body_names
    with pytest.raises(ValueError, match="root"):
        s.sub_tree("x", "h")
    with pytest.raises(ValueError, match="use_branches"):
        s.sub_tree("x", "b", use_branches=["e"])


@pytest.mark.parametrize("args, match", [
    (("nope",), "root: 'nope' is not a body of multibody 'letters'"),
    ((mb.Multibody("other").add_body("a"),), "root: body 'a' does not belong"),
    ((3.5,), "root: 3.5"),
    (("c",), "root: body 'c' has no bodies below it"),
    (("a", ["h"]), "use_branches: body 'h' is not below the root 'a'"),
    (("a", ["a"]), "use_branches: body 'a'"),
    (("a", ["zz"]), "use_branches: 'zz' is not a body"),
    (("a", None, ["h"]), "stop_at: body 'h' is not in the sub-tree"),
    (("a", ["e"], ["g"]), "stop_at: body 'g' is not in the sub-tree"),
])
def test_bad_sub_tree_arguments_are_named(args, match):
    with pytest.raises(ValueError, match=match):
        letters().sub_tree("s", *args)


def test_bad_algorithm_input_names_the_argument():
    m = letters()
    with pytest.raises(ValueError, match="name"):
        m.sub_tree("", "a")
    s = m.sub_tree("s", "b")
    q, u = m.neutral_q(), np.zeros(m.nu)
    with pytest.raises(ValueError, match="body: 'g' is not a body or node of sub-tree 's'"):
        s.body_pose(q, "g")
    with pytest.raises(ValueError, match="body: 'world'"):
        s.body_jacobian(q, "world")
    with pytest.raises(ValueError, match=r"q must have shape \(8,\)"):
        s.mass_matrix(np.zeros(3))
    with pytest.raises(ValueError, match="tau"):
        s.forward_dynamics(q, u, np.zeros(m.nu))
    with pytest.raises(ValueError, match="u"):
        s.forward_dynamics(q, np.zeros(3), np.zeros(3))
    bad = q.copy()
    bad[m.q_slice("h_hinge")] = np.nan
    with pytest.raises(ValueError, match=r"q\[7\] is not finite"):  # indices of the full q
        s.forward_dynamics(bad, u, np.zeros(3))
    with pytest.raises(ValueError, match=r"q\[7\] is not finite"):
        m.sub_tree("w", None, use_branches=["c"]).mass_matrix(bad)
    with pytest.raises(ValueError, match="frame"):
        s.body_jacobian(q, "c", frame="nope")


# ---------------------------------------------------------------------- algorithms vs the full model
@pytest.mark.parametrize("seed", range(12))
def test_algorithms_equal_the_full_model_with_the_others_locked(seed):
    m, s, rng = random_sub(seed)
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    idx = s.u_index
    M_ss, b_s, uz = frozen_reference(m, q, u, idx)
    tau = rng.normal(size=s.nu)
    udot = s.forward_dynamics(q, u, tau)
    close(udot, np.linalg.solve(M_ss, tau - b_s))
    close(s.inverse_dynamics(q, u, udot), tau, 1e-9)
    close(s.mass_matrix(q), M_ss)
    close(s.inverse_mass_matrix(q), np.linalg.inv(M_ss), 1e-9)
    close(s.bias_forces(q, u), b_s)
    close(s.gravity_forces(q), m.gravity_forces(q)[idx])
    close(s.kinetic_energy(q, u), 0.5 * uz @ m.mass_matrix(q) @ uz)
    for name in s.body_names + s.node_names:
        close(s.body_pose(q, name), m.body_pose(q, name), 1e-12)
        for frame in ("body", "world_aligned", "world"):
            close(s.body_jacobian(q, name, frame), m.body_jacobian(q, name, frame)[:, idx], 1e-12)
        close(s.body_velocity(q, u, name), m.body_velocity(q, uz, name), 1e-12)
    if s.root is not m.world:
        close(s.body_pose(q, s.root.name), m.body_pose(q, s.root.name), 1e-12)
    f = {s.body_names[-1]: rng.normal(size=6)}
    J = m.body_jacobian(q, s.body_names[-1])[:, idx]
    close(s.forward_dynamics(q, u, tau, f_ext=f), np.linalg.solve(M_ss, tau - b_s + J.T @ f[s.body_names[-1]]))


def test_other_speeds_are_ignored_and_the_root_pose_is_followed():
    m, s, rng = random_sub(3)
    assert s.root is not m.world
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    tau = rng.normal(size=s.nu)
    u2 = u.copy()
    others = np.setdiff1d(np.arange(m.nu), s.u_index)
    u2[others] = rng.normal(size=others.size) * 10
    close(s.forward_dynamics(q, u2, tau), s.forward_dynamics(q, u, tau), 0.0)
    for _ in range(3):  # a new pose of the root: the derived model is placed again
        q = m.random_q(rng)
        M_ss, b_s, _ = frozen_reference(m, q, u, s.u_index)
        close(s.forward_dynamics(q, u, tau), np.linalg.solve(M_ss, tau - b_s))
    m.gravity = (0.0, 3.0, -1.0)  # gravity is followed too
    M_ss, b_s, _ = frozen_reference(m, q, u, s.u_index)
    close(s.forward_dynamics(q, u, tau), np.linalg.solve(M_ss, tau - b_s))
    m.body(s.body_names[0]).set_mass_properties(5.0)  # and a changed model
    M_ss, b_s, _ = frozen_reference(m, q, u, s.u_index)
    close(s.forward_dynamics(q, u, tau), np.linalg.solve(M_ss, tau - b_s))


def test_whole_tree_sub_tree_is_the_model():
    rng = np.random.default_rng(5)
    m = random_tree(rng, TREE_KINDS)
    s = m.sub_tree("all", None)
    q, u, tau = m.random_q(rng), rng.normal(size=m.nu), rng.normal(size=m.nu)
    assert s.q_index.tolist() == list(range(m.nq)) and s.u_index.tolist() == list(range(m.nu))
    close(s.forward_dynamics(q, u, tau), m.forward_dynamics(q, u, tau), 1e-13)
    close(s.potential_energy(q), m.potential_energy(q), 1e-13)
    close(s.center_of_mass(q), m.center_of_mass(q), 1e-13)


# ---------------------------------------------------------------------- simulation
def test_simulate_moves_only_the_sub_tree_and_matches_rk4_on_the_locked_model():
    rng = np.random.default_rng(11)
    m = random_tree(rng, ["pin", "slider", "screw"], n_bodies=10)
    s = m.sub_tree("s", max(m.bodies, key=lambda b: len(descendants(b))))
    q0, u0 = m.random_q(rng), rng.normal(size=m.nu)
    tau = rng.normal(size=s.nu)
    res = s.simulate(q0, u0, 0.05, 1e-3, tau=tau, limits=False)
    assert res.q.shape == (51, m.nq) and res.u.shape == (51, m.nu)
    others_q = np.setdiff1d(np.arange(m.nq), s.q_index)
    others_u = np.setdiff1d(np.arange(m.nu), s.u_index)
    assert np.all(res.q[:, others_q] == q0[others_q]) and np.all(res.u[:, others_u] == 0.0)
    assert res.q_names == coordinate_labels(m)[0]
    assert s.root is not m.world and s.nu < m.nu
    x = rk4_reference(m, s, q0, tau, np.concatenate([q0[s.q_index], u0[s.u_index]]), 1e-3, 50)
    close(np.concatenate([res.q[-1, s.q_index], res.u[-1, s.u_index]]), x, 1e-10)


def test_a_failed_sub_tree_run_returns_full_samples():
    m = letters()
    s = m.sub_tree("s", "b")

    def control(t, q, u, tau):
        assert q.shape == u.shape == tau.shape == (3,)
        if t > 0.01:
            tau[0] = np.nan

    with pytest.raises(mb.simulation.SimulationError, match="c_hinge") as err:
        s.simulate(m.neutral_q(), np.zeros(m.nu), 0.05, 1e-3, control=control)
    assert err.value.result.q.shape == (11, m.nq) and err.value.result.status == "failed"


def test_simulated_sub_tree_conserves_its_energy_under_a_moving_root():
    m, s, rng = random_sub(7, n_bodies=10)
    q0, u0 = m.random_q(rng), rng.normal(size=m.nu) * 0.3
    res = s.simulate(q0, u0, 0.5, 1e-3, integrator="munthe_kaas", limits=False)
    e = [s.kinetic_energy(q, u) + s.potential_energy(q) for q, u in zip(res.q[::50], res.u[::50])]
    assert np.ptp(e) < 1e-5 * max(1.0, abs(e[0])), np.ptp(e)


# ---------------------------------------------------------------------- charts
def test_enable_subhinge_charts_controls_recentring():
    m = ball_model()
    s = m.sub_tree("s", "base")
    q = m.neutral_q()
    qi = m.q_slice("ball_hinge")
    q[qi] = (2.5, 0.0, 0.0)  # past max_chart_angle (pi/2)
    T = m.body_pose(q, "ball")
    s.enable_subhinge_charts(False)
    assert not s.subhinge_charts_enabled and not s.sanitize(q) and q[qi][0] == 2.5
    s.enable_subhinge_charts(True)
    assert s.sanitize(q)
    assert np.all(q[qi] == 0.0)
    close(m.body_pose(q, "ball"), T, 1e-12)  # the full model sees the new chart
    close(s.body_pose(q, "ball"), T, 1e-12)
    assert abs(m.chart_offsets()["ball_hinge"][0]) > 0.5 and "ball_hinge" in s.chart_offsets()
    assert m.hinge("ball_hinge").subhinges[0].chart_offset[0] == m.chart_offsets()["ball_hinge"][0]
    back = s.reset_charts(q)
    close(back[qi], (2.5, 0.0, 0.0), 1e-12)
    close(m.chart_offsets()["ball_hinge"], (0, 0, 0, 1), 0.0)
    with pytest.raises(ValueError, match="writeable"):
        s.sanitize([0.0] * m.nq)
    u0 = np.zeros(m.nu)
    u0[m.u_slice("ball_hinge")] = (8.0, 0.0, 0.0)
    runs = {}
    for flag in (True, False):
        s.enable_subhinge_charts(flag)
        runs[flag] = s.simulate(m.neutral_q(), u0, 1.0, 1e-3, limits=False)
    assert runs[True].n_chart_resets > 0 and runs[False].n_chart_resets == 0
    for k in (200, 1000):  # the same motion either way
        close(m.body_pose(runs[False].q[k], "ball"), m.body_pose(runs[True].q[k], "ball"), 1e-8)


# ---------------------------------------------------------------------- sub-graphs
@pytest.mark.parametrize("seed", range(4))
def test_sub_graph_dynamics_honours_its_enabled_constraints(seed):
    m, root, rng = loop_model(seed)
    g = m.sub_graph("g", root, constraints=["to_root", m.constraint("cv")])
    assert [c.name for c in g.enabled_constraints] == ["to_root", "cv"]
    q, u, tau = m.random_q(rng), rng.normal(size=m.nu), rng.normal(size=len(g.u_index))
    ref, G = kkt(m, g, q, u, tau, ["to_root", "cv"])
    assert np.linalg.matrix_rank(G) == G.shape[0]
    close(g.forward_dynamics(q, u, tau), ref, 1e-9)
    close(g.constraint_jacobian(q), G, 1e-10)
    close(g.pose_error(q), m.pose_error(q), 1e-12)
    for frame in ("r_node", root.name, "i0"):  # nodes on the root and the root's own frame
        close(g.body_pose(q, frame), m.body_pose(q, frame), 1e-12)
    assert g.constrained_dynamics(q, u, tau).multipliers.shape == (G.shape[0],)
    g.disable_constraint("cv")
    ref, _ = kkt(m, g, q, u, tau, ["to_root"])
    close(g.forward_dynamics(q, u, tau), ref, 1e-9)
    for c in m.constraints:
        m.enable_constraint(c)  # inherited constraints come enabled as in the parent
    added = g.inherit_constraints()
    assert added == ["to_root_body"] and "outside" not in g.constraints
    assert [c.name for c in g.enabled_constraints] == ["to_root", "to_root_body"]
    ref, G = kkt(m, g, q, u, tau, ["to_root", "to_root_body"])
    assert np.linalg.matrix_rank(G) == G.shape[0]
    close(g.forward_dynamics(q, u, tau), ref, 1e-8)


def test_sub_graph_simulation_keeps_its_constraints_closed():
    m, root, rng = loop_model(1)
    g = m.sub_graph("g", root, constraints=["to_root"])
    for c in list(m.constraints):
        m.disable_constraint(c)  # the parent's state is its own
    assert m.enabled_constraints == [] and [c.name for c in g.enabled_constraints] == ["to_root"]
    q = m.random_q(rng)
    solver = g.as_multibody(q).constraint_kinematics()
    q = g.expand_q(solver.solve_q(g.restrict_q(q)), q)
    assert np.abs(g.pose_error(q)).max() < 1e-9
    res = g.simulate(q, np.zeros(m.nu), 0.2, 1e-3, limits=False)
    assert max(np.abs(g.pose_error(qk)).max() for qk in res.q[::20]) < 1e-5


def test_sub_graph_constraint_lookups_and_state():
    m, root, rng = loop_model(2)
    m.disable_constraint("cv")
    g = m.sub_graph("g", root)
    assert g.constraints == {} and g.enabled_constraints == []
    assert g.inherit_constraints() == ["to_root", "cv", "to_root_body"]
    assert [c.name for c in g.enabled_constraints] == ["to_root", "to_root_body"]  # as in the parent
    g.enable_constraint("cv")
    assert {c.name for c in g.enabled_constraints} == {"to_root", "cv", "to_root_body"}
    assert [c.category for c in g.enabled_constraints] == ["loop", "loop", "convel"]
    assert not m.constraint("cv").enabled
    g.disable_constraint(m.constraint("to_root"))
    assert g.constraint("to_root") is m.constraint("to_root")
    with pytest.raises(KeyError):
        g.disable_constraint("outside")
    inner = g.sub_graph("inner", root)
    assert inner.inherit_constraints() == ["to_root", "cv", "to_root_body"]
    assert {c.name for c in inner.enabled_constraints} == {"cv", "to_root_body"}  # as in g
    text = g.dump_tree()
    assert text.startswith("SubGraph 'g' of Multibody") and f"{root.name} (root)" in text
    assert "constraints: 2 enabled of 3" in text and "to_root: loop spherical" in text
    assert "disabled" in text and "outside" not in text
    assert all(b in text for b in g.body_names)


def test_sub_graph_refuses_constraints_outside_it():
    m, root, rng = loop_model(0)
    with pytest.raises(ValueError, match="constraint 'outside' has node_a"):
        m.sub_graph("g", root, constraints=["outside"])
    with pytest.raises(ValueError, match="constraints: 'nope' is not a constraint of multibody"):
        m.sub_graph("g", root, constraints=["nope"])
    with pytest.raises(ValueError, match="constraints: 'cv'"):
        m.sub_graph("g", root, constraints=[loop_model(0)[0].constraint("cv")])
    g = m.sub_graph("g", root, stop_at=[descendants(root)[0]])
    kept = set(g.bodies) | {root}
    names = [c for c in ("to_root", "cv", "to_root_body")
             if not {getattr(f, "body", f) for f in (m.constraint(c).node_a, m.constraint(c).node_b)} <= kept]
    assert names
    for c in names:
        with pytest.raises(ValueError, match=f"constraint '{c}'"):
            g.add_constraint(c)


def test_sub_graph_with_a_coordinate_constraint():
    m = letters()
    m.add_coordinate_constraint("gear", "c_hinge", "g_hinge", ratio=-2.0, offset=0.1)
    m.add_coordinate_constraint("gear_out", "c_hinge", "h_hinge")
    with pytest.raises(ValueError, match="constraint 'gear_out' has hinge 'h_hinge' outside sub-graph 'g'"):
        m.sub_graph("g", "a", constraints=["gear", "gear_out"])
    g = m.sub_graph("g", "a", constraints=["gear"])
    assert g.inherit_constraints() == [] and "gear_out" not in g.constraints
    rng = np.random.default_rng(0)
    q, u, tau = m.random_q(rng), rng.normal(size=m.nu), rng.normal(size=g.nu)
    ref, G = kkt(m, g, q, u, tau, ["gear"])
    close(g.forward_dynamics(q, u, tau), ref)
    close(g.constraint_jacobian(q), G)
    close(g.velocity_error(q, u), G @ u[g.u_index])


def test_dump_tree_of_a_sub_tree():
    m = letters()
    s = m.sub_tree("arm", "a", stop_at=["d"])
    text = s.dump_tree()
    lines = text.splitlines()
    assert lines[0].startswith("SubTree 'arm' of Multibody 'letters': root 'a', 5 bodies")
    assert lines[1] == "a (root)"
    assert [ln.split("─ ")[1].split()[0] for ln in lines[2:] if "<-" in ln] == ["b", "c", "d", "f", "g"]
    assert "─ e " not in text and "─ h " not in text and "constraints" not in text
    assert f"q[{m.q_slice('d_hinge').start}:" in text
    s.display_model()


def test_mb_simulate_accepts_a_sub_tree():
    """multibody.simulate(sub, ...) is sub.simulate(...): the sub-tree's coordinates move."""
    m = mb.Multibody("chain")
    m.add_serial_chain("l", 3, kind="pin", axis=(0, 1, 0))
    sub = m.sub_tree("tip", "l0")
    q0 = np.array([0.3, 0.2, -0.1])
    a = mb.simulate(sub, q0, np.zeros(3), 0.2, dt=1e-3)
    b = sub.simulate(q0, np.zeros(3), 0.2, dt=1e-3)
    np.testing.assert_array_equal(a.q, b.q)
    assert np.all(a.q[:, 0] == 0.3) and np.ptp(a.q[:, 1]) > 1e-3
