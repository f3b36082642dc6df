"""Models and references for tests/test_subgraph.py: a small lettered tree, random trees
with sub-trees and with constraints around a root, and references computed from the full
model alone (its M and bias with the other speeds zero, a dense KKT solve, RK4)."""
import numpy as np

import multibody as mb
from multibody.model.subtree_select import descendants
from test_dynamics_vs_pinocchio import KINDS, random_transform, random_tree

TREE_KINDS = [k for k in KINDS if k != "locked"] + ["locked", "pin"]


def close(a, b, tol=1e-10):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    err = np.abs(a - b).max() if a.size else 0.0
    assert err <= tol * max(1.0, np.abs(b).max()), err


def letters():
    """world - a - b - c ; b - d - e ; a - f - g ; world - h (pins), node n_e on e, n_a on a."""
    m = mb.Multibody("letters")
    for child, parent in [("a", None), ("b", "a"), ("c", "b"), ("d", "b"), ("e", "d"), ("f", "a"),
                          ("g", "f"), ("h", None)]:
        m.add_body(child, mass=1.0, com=(0.3, 0, 0), inertia=np.eye(3) * 0.1)
        T = np.eye(4)
        T[0, 3] = 0.6
        m.add_hinge(parent, child, "pin", axis=(0, 1, 0) if child != "f" else (0, 0, 1), T_parent_joint=T)
    m.add_node("n_e", "e")
    m.add_node("n_a", "a")
    return m


def frozen_reference(m, q, u, idx):
    """(M_ss, b_s, u with the speeds outside idx zero) of the full model: the locked-others
    mass matrix block and bias forces."""
    uz = np.zeros(m.nu)
    uz[idx] = u[idx]
    return m.mass_matrix(q)[np.ix_(idx, idx)], m.bias_forces(q, uz)[idx], uz


def random_sub(seed, n_bodies=12):
    """(model, sub-tree at a random root (a body with children, or the world), rng)."""
    rng = np.random.default_rng(seed)
    m = random_tree(rng, TREE_KINDS, n_bodies=n_bodies)
    m.gravity = rng.normal(size=3) * 5
    if seed % 2:
        for h in m.hinges:
            h.armature = rng.uniform(0.0, 0.5, h.nu)
    candidates = [b for b in m.bodies if b.child_hinges] + [m.world]
    root = candidates[rng.integers(len(candidates))]
    return m, m.sub_tree("s", root), rng


def rk4_reference(m, s, q0, tau, x, dt, n):
    """Classic RK4 of x = (q_s, u_s) on the locked model from the full model's M and bias
    alone (scalar coordinates: q_dot = u)."""
    idx, qi, q, u = s.u_index, s.q_index, q0.copy(), np.zeros(m.nu)

    def f(x):
        q[qi], u[idx] = x[:qi.size], x[qi.size:]
        M, b, _ = frozen_reference(m, q, u, idx)
        return np.concatenate([x[qi.size:], np.linalg.solve(M, tau - b)])

    for _ in range(n):
        k1 = f(x)
        k2 = f(x + dt / 2 * k1)
        k3 = f(x + dt / 2 * k2)
        k4 = f(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def ball_model():
    m = mb.Multibody("ball")
    m.add_body("base", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, "base", "pin", axis=(0, 0, 1))
    m.add_body("ball", mass=1.0, com=(0.2, 0, 0), inertia=np.diag([0.1, 0.2, 0.3]))
    m.add_hinge("base", "ball", "spherical")
    return m


def loop_model(seed):
    """A random tree with constraints around a root that has at least 5 bodies below it:
    ``to_root`` (a node on the root to one below), ``cv`` (convel between bodies below),
    ``to_root_body`` (the root body's own frame to one below) and ``outside`` (a body outside
    to one below); drawn again until the rows are independent at a random q."""
    for attempt in range(100):
        rng = np.random.default_rng(1000 * attempt + seed)
        m = random_tree(rng, ["spherical", "universal", "free", "pin"], n_bodies=12)
        roots = [b for b in m.bodies if len(descendants(b)) >= 5]
        if not roots:
            continue
        root = roots[0]
        inside = descendants(root)
        outside = [b for b in m.bodies if b not in inside and b is not root]
        if not outside:
            continue
        m.add_node("r_node", root, random_transform(rng))
        m.add_node("i0", inside[-1], random_transform(rng))
        m.add_node("i1", inside[1], random_transform(rng))
        m.add_loop_constraint("to_root", "r_node", "i0", "spherical")
        m.add_convel_constraint("cv", inside[0], inside[2], rng.normal(size=6))
        m.add_loop_constraint("to_root_body", root, "i1", "universal", axes=((1, 0, 0), (0, 1, 0)))
        m.add_loop_constraint("outside", outside[0], inside[0], "pin")
        m.gravity = rng.normal(size=3) * 5
        g = m.sub_graph("probe", root)
        g.inherit_constraints()
        q = m.random_q(rng)
        if np.linalg.matrix_rank(g.constraint_jacobian(q)) == 3 + 1 + 4:
            return m, root, rng
    raise AssertionError("no full-rank draw")


def kkt(m, g, q, u, tau, names):
    """udot of the full model's locked-others KKT system with constraints ``names`` only."""
    for c in m.constraints:
        (m.enable_constraint if c in names else m.disable_constraint)(c)
    idx = g.u_index
    M, b, uz = frozen_reference(m, q, u, idx)
    G = m.constraint_jacobian(q)[:, idx]
    k = m.constraint_bias(q, uz)
    n = G.shape[0]
    A = np.block([[M, G.T], [G, np.zeros((n, n))]])
    return np.linalg.solve(A, np.concatenate([tau - b, -k]))[:len(idx)], G
