"""A ladder of N loops (two pin chains joined by pin-loop rungs) and an extended-precision
reference for its constrained accelerations: shared by tests/test_loop_ladder.py and
bench/bench_constrained.py."""
import warnings

import numpy as np

import multibody as mb
from multibody.spatial import rpy_to_matrix


def ladder(n_loops, links_per_rung=3, length=0.3, width=0.4):
    """Two identical chains of pin links (axes x, y, z in turn, links bent by fixed
    rotations so that no configuration near q = 0 is singular) from the world, side by
    side at y = 0 and y = width, joined every ``links_per_rung`` links by a rung: a pin
    loop about y between nodes that coincide, half-way between the chains, at q = 0."""
    m = mb.Multibody(f"ladder{n_loops}")
    rng = np.random.default_rng(12345)
    n = n_loops * links_per_rung
    bends = [rpy_to_matrix(rng.uniform(-0.5, 0.5, 3)) for _ in range(n)]
    axes = np.eye(3)
    for side, y in (("a", 0.0), ("b", width)):
        parent = None
        for k in range(n):
            name = f"{side}{k}"
            m.add_body(name, 1.0, (0.0, 0.0, length / 2), np.diag([0.01, 0.01, 0.002]))
            T = np.eye(4)
            T[:3, :3] = bends[k]
            T[:3, 3] = (0.0, y, 0.0) if parent is None else (0.05, 0.0, length)
            m.add_hinge(parent, name, "pin", axis=axes[k % 3], T_parent_joint=T)
            parent = name
    q0 = m.neutral_q()
    for r in range(n_loops):
        k = (r + 1) * links_per_rung - 1
        Xa, Xb = m.body_pose(q0, f"a{k}"), m.body_pose(q0, f"b{k}")
        X = np.eye(4)
        X[:3, 3] = Xa[:3, :3] @ (0.0, 0.0, length) + Xa[:3, 3] + (0.0, width / 2, 0.0)
        m.add_node(f"rung{r}_a", f"a{k}", np.linalg.inv(Xa) @ X)
        m.add_node(f"rung{r}_b", f"b{k}", np.linalg.inv(Xb) @ X)
        m.add_loop_constraint(f"rung{r}", f"rung{r}_a", f"rung{r}_b", "pin", axis=(0.0, 1.0, 0.0))
    m.finalize()
    return m


def admissible(m, q, rng):
    """A random u with Gc u = 0 and random joint forces."""
    G = m.constraint_jacobian(q)
    u = rng.normal(size=m.nu)
    return u - np.linalg.pinv(G) @ (G @ u), rng.normal(size=m.nu)


def ladder_state(m, n_loops, step=0.3):
    """(q, u, tau) of the benchmark: from q = 0 (closed) a step of ``step`` rad (largest
    coordinate) along the loops' motion, closed again by the solver, and an admissible
    (u, tau) drawn with seed n_loops."""
    rng = np.random.default_rng(n_loops)
    q0 = m.neutral_q()
    G0 = m.constraint_jacobian(q0)
    du = rng.normal(size=m.nu)
    du -= np.linalg.pinv(G0) @ (G0 @ du)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        q = m.constraint_kinematics().solve_q(m.integrate(q0, step * du / np.abs(du).max(), 1.0))
    u, tau = admissible(m, q, rng)
    return q, u, tau


def kkt_system(m, q, u, tau):
    """The dense KKT system [[M, Gc^T], [Gc, 0]] [udot; -lambda] = [tau - b; -kappa] from our
    mass matrix, bias forces, Gc and its bias (K, rhs)."""
    M, G = m.mass_matrix(q), m.constraint_jacobian(q)
    nu, nc = m.nu, G.shape[0]
    K = np.zeros((nu + nc, nu + nc))
    K[:nu, :nu] = M
    K[:nu, nu:] = G.T
    K[nu:, :nu] = G
    return K, np.concatenate([tau - m.bias_forces(q, u), -m.constraint_bias(q, u)])


def reference_solve(K, rhs, steps=8):
    """x with K x = rhs to about the data's own precision: LU solves refined with residuals
    in extended precision (np.longdouble: 64-bit mantissa on x86). Converges while
    cond(K) eps < 1 (a ladder of 64 loops: 1e16 eps ~ 1, still converging, slowly)."""
    x = np.linalg.solve(K, rhs)
    Kl, rl = K.astype(np.longdouble), rhs.astype(np.longdouble)
    for _ in range(steps):
        r = rl - Kl @ x.astype(np.longdouble)
        x = (x.astype(np.longdouble) + np.linalg.solve(K, r.astype(np.float64))).astype(np.float64)
    return x
