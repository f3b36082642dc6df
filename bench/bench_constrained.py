"""Constrained forward dynamics timings, measured in one run.

1. Cassie (example-robot-data's ``cassie.sdf``, floating base) with its closed loops:
   our tree-augmented (TA) ``m.forward_dynamics`` against Pinocchio's
   ``constraintDynamics`` on the Pinocchio model of our tree with the same loops as 3-D
   point constraints (a ball loop: its point; a pin loop: two points on its axis).
   Pinocchio has no slider loop and no gear, so the comparison leaves out Cassie's two
   knee-spring slider loops and ten gearboxes (coordinate constraints); our time with
   every constraint is printed too. Pinocchio's proximal solver runs the fewest
   iterations that reach our accelerations to 1e-10 (relative), found at run time.
2. A ladder of N loops (N = 2 ... 64; tests/loop_ladder.py): two parallel serial chains
   of pin joints (axes x, y, z in turn, three links per rung) joined at every third link
   by a rung, a pin loop constraint (5 rows, all independent): TA forward dynamics against
   a dense KKT solve in NumPy (M from ``m.mass_matrix``, Gc from ``m.constraint_jacobian``,
   the bias forces and constraint bias, then ``numpy.linalg.solve`` of the (nu + nc)
   system). Both are compared with the same KKT system solved to the data's own
   precision (LU refined with residuals in np.longdouble): the long ladders' states are
   near singular configurations (Gc's smallest singular value ~1e-7 of its largest), where
   the LU solve itself is off by ~1e-7 (tests/test_loop_ladder.py).

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
from loop_ladder import admissible, kkt_system, ladder, ladder_state, reference_solve  # noqa: E402


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


def fewest_proximal_iterations(model, data, state, cms, cds, udot):
    """(settings, iterations, error): the fewest proximal iterations (mu = 1e-8, at most 50)
    with which Pinocchio's ``constraintDynamics`` at ``state`` = (q, v, tau) (its coordinates)
    meets ``udot`` (ours, in its order) to 1e-10 relative, so that both sides are timed at
    the same accuracy."""
    import pinocchio as pin
    scale = max(1.0, np.abs(udot).max())
    for iters in range(1, 51):
        settings = pin.ProximalSettings(1e-14, 1e-8, iters)
        err = np.abs(pin.constraintDynamics(model, data, *state, cms, cds, settings) - udot).max() / scale
        if err < 1e-10:
            break
    return settings, iters, err


def close(m, q, frozen=()):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # redundant rows of planar loops
        return m.constraint_kinematics().solve_q(q, frozen=frozen)


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
    settings, iters, err = fewest_proximal_iterations(model, data, (qp, vp, tp), cms, cds, udot[P])
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

def dense_kkt(m, q, u, tau):
    K, rhs = kkt_system(m, q, u, tau)
    return np.linalg.solve(K, rhs)[:m.nu]


def bench_ladder():
    out = []
    prev = None
    for n in (2, 4, 8, 16, 32, 64):
        m = ladder(n)
        q, u, tau = ladder_state(m, n)
        G = m.constraint_jacobian(q)
        s = np.linalg.svd(G, compute_uv=False)
        udot = m.forward_dynamics(q, u, tau)
        K, rhs = kkt_system(m, q, u, tau)
        ref = reference_solve(K, rhs)[:m.nu]
        scale = max(1.0, np.abs(ref).max())
        err_ta = np.abs(udot - ref).max() / scale
        err_kkt = np.abs(dense_kkt(m, q, u, tau) - ref).max() / scale
        ta, kkt = paired(lambda: m.forward_dynamics(q, u, tau), lambda: dense_kkt(m, q, u, tau))
        growth = "" if prev is None else f"  growth x{ta / prev[0]:4.2f} (TA) x{kkt / prev[1]:4.2f} (KKT)"
        print(f"ladder N={n:2d} loops nu={m.nu:3d} rows={G.shape[0]:3d} (Gc singular values {s[0]:.1e}..{s[-1]:.1e}): "
              f"TA {ta:9.1f} us  dense KKT {kkt:9.1f} us  ratio TA/KKT {ta / kkt:5.2f}{growth}", flush=True)
        print(f"    error against the extended-precision KKT solve (relative to |udot|): TA {err_ta:.0e}  "
              f"dense KKT (LU) {err_kkt:.0e}", flush=True)
        prev = (ta, kkt)
        out.append((n, ta, kkt, err_ta, err_kkt))
    return out


if __name__ == "__main__":
    bench_cassie()
    bench_ladder()
