"""Constrained forward dynamics timings, measured in one run.

1. Cassie (example-robot-data's ``cassie.sdf``, floating base) with its closed loops:
   our tree-augmented (TA) ``m.forward_dynamics`` against Pinocchio's
   ``constraintDynamics`` on the Pinocchio model of our tree with the same loops as 3-D
   point constraints (a ball loop: its point; a pin loop: two points on its axis).
   Pinocchio has no slider loop and no gear, so the comparison leaves out Cassie's two
   knee-spring slider loops and ten gearboxes (coordinate constraints); our time with
   every constraint is printed too. Pinocchio's proximal solver runs the fewest
   iterations that reach our accelerations to 1e-10 (relative), found at run time.
2. A ladder of N loops (N = 2 ... 64): two parallel serial chains of pin joints (axes
   x, y, z in turn, three links per rung) joined at every third link by a rung, a pin
   loop constraint (5 rows, all independent): TA forward dynamics against a dense KKT
   solve in NumPy (M from ``m.mass_matrix``, Gc from ``m.constraint_jacobian``, the bias
   forces and constraint bias, then ``numpy.linalg.solve`` of the (nu + nc) system).

Times are the best of several repeats of a timed loop (interleaved, so both sides see
the same machine noise); NumPy's LAPACK runs on one thread (set OMP_NUM_THREADS to change). Run:  python bench/bench_constrained.py
"""
import os
import sys
import time
import warnings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread for NumPy's LAPACK too, as our kernels and Pinocchio

import numpy as np  # noqa: E402  (after the thread settings)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))


def best_time(f, seconds=0.2, repeats=5):
    """Best-of-repeats mean time per call [us], each repeat running about ``seconds``."""
    t = time.perf_counter()
    f()
    one = max(time.perf_counter() - t, 1e-7)
    n = max(1, int(seconds / one))
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def paired(ours, theirs, rounds=3):
    """(ours, theirs) [us]: the best of interleaved rounds."""
    a, b = [], []
    for _ in range(rounds):
        a.append(best_time(ours))
        b.append(best_time(theirs))
    return min(a), min(b)


def close(m, q, frozen=()):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # redundant rows of planar loops
        return m.constraint_kinematics().solve_q(q, frozen=frozen)


def admissible(m, q, rng):
    G = m.constraint_jacobian(q)
    u = rng.normal(size=m.nu)
    return u - np.linalg.pinv(G) @ (G @ u), rng.normal(size=m.nu)


# ---------------------------------------------------------------------------- Cassie

def bench_cassie():
    import pinocchio as pin
    from pin_convert import point_constraints, q_to_pin, to_pinocchio, u_perm

    import multibody as mb
    from robots import cassie_sdf
    path = cassie_sdf()
    if path is None:
        print("Cassie: example-robot-data's cassie.sdf not installed; skipped", flush=True)
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = mb.load_sdf(path, floating_base=True)
    locked = [f"{s}-{j}" for s in ("left", "right") for j in ("knee-spring-joint", "knee-shin-joint")]
    rng = np.random.default_rng(0)
    q = m.integrate(m.neutral_q(), 0.05 * rng.normal(size=m.nu), 1.0)
    for h in locked:
        q[m.q_slice(h)] = 0.0
    q = close(m, q, frozen=locked)
    u_all, tau = admissible(m, q, rng)
    t_all = best_time(lambda: m.forward_dynamics(q, u_all, tau))
    n_all = m.constraint_jacobian(q).shape[0]
    for con in m.enabled_constraints:
        if con.category == "coordinate" or con.kind == "slider":
            m.disable_constraint(con.name)
    u, tau = admissible(m, q, rng)
    udot = m.forward_dynamics(q, u, tau)
    model = to_pinocchio(m)
    data = model.createData()
    cms = point_constraints(m, model)
    cds = pin.StdVec_RigidConstraintData([cm.createData() for cm in cms])
    pin.initConstraintDynamics(model, data, cms, cds)
    P = u_perm(m)
    qp, vp, tp = q_to_pin(m, q), u[P], tau[P]
    scale = max(1.0, np.abs(udot).max())
    for iters in range(1, 51):
        settings = pin.ProximalSettings(1e-14, 1e-8, iters)
        err = np.abs(pin.constraintDynamics(model, data, qp, vp, tp, cms, cds, settings) - udot[P]).max() / scale
        if err < 1e-10:
            break
    ours, theirs = paired(lambda: m.forward_dynamics(q, u, tau),
                          lambda: pin.constraintDynamics(model, data, qp, vp, tp, cms, cds, settings))
    rows = m.constraint_jacobian(q).shape[0]
    print(f"Cassie nu={m.nu}: loops {rows} rows (ours) / {3 * len(cms)} rows (Pinocchio, {len(cms)} points), "
          f"Pinocchio mu=1e-8, {iters} iteration(s), agreement {err:.1e}", flush=True)
    print(f"Cassie constrained forward dynamics: ours {ours:7.2f} us  pinocchio {theirs:7.2f} us  "
          f"ratio {ours / theirs:5.2f}  (target <= 1.0)", flush=True)
    print(f"Cassie with every constraint ({n_all} rows: loops, sliders, gearboxes): ours {t_all:7.2f} us",
          flush=True)
    return ours / theirs


# ---------------------------------------------------------------------------- ladder

def ladder(n_loops, links_per_rung=3, length=0.3, width=0.4):
    """Two identical chains of pin links (axes x, y, z in turn, links bent by fixed
    rotations so that no configuration near q = 0 is singular) from the world, side by
    side at y = 0 and y = width, joined every ``links_per_rung`` links by a rung: a pin
    loop about y between nodes that coincide, half-way between the chains, at q = 0."""
    import multibody as mb
    from multibody.spatial import rpy_to_matrix
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


def dense_kkt(m, q, u, tau):
    M, G = m.mass_matrix(q), m.constraint_jacobian(q)
    n = G.shape[0]
    K = np.zeros((m.nu + n, m.nu + n))
    K[:m.nu, :m.nu] = M
    K[:m.nu, m.nu:] = G.T
    K[m.nu:, :m.nu] = G
    rhs = np.concatenate([tau - m.bias_forces(q, u), -m.constraint_bias(q, u)])
    return np.linalg.solve(K, rhs)[:m.nu]


def bench_ladder():
    prev = None
    out = []
    for n in (2, 4, 8, 16, 32, 64):
        m = ladder(n)
        rng = np.random.default_rng(n)
        q0 = m.neutral_q()  # closed; step along the loops' motion, then close again
        G0 = m.constraint_jacobian(q0)
        du = rng.normal(size=m.nu)
        du -= np.linalg.pinv(G0) @ (G0 @ du)
        q = close(m, m.integrate(q0, 0.3 * du / np.abs(du).max(), 1.0))
        G = m.constraint_jacobian(q)
        rank = np.linalg.matrix_rank(G)
        u, tau = admissible(m, q, rng)
        udot = m.forward_dynamics(q, u, tau)
        err = np.abs(dense_kkt(m, q, u, tau) - udot).max() / max(1.0, np.abs(udot).max())
        ta, kkt = paired(lambda: m.forward_dynamics(q, u, tau), lambda: dense_kkt(m, q, u, tau))
        growth = "" if prev is None else f"  growth x{ta / prev[0]:4.2f} (TA) x{kkt / prev[1]:4.2f} (KKT)"
        print(f"ladder N={n:2d} loops nu={m.nu:3d} rows={G.shape[0]:3d} (rank {rank:3d}): TA {ta:9.1f} us  "
              f"dense KKT {kkt:9.1f} us  ratio TA/KKT {ta / kkt:5.2f}  agreement {err:.0e}{growth}", flush=True)
        prev = (ta, kkt)
        out.append((n, ta, kkt))
    return out


if __name__ == "__main__":
    bench_cassie()
    bench_ladder()
