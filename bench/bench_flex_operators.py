"""Operators of models with modal (flexible) bodies, measured in one run (ratios only).

A chain of N modal bodies (4 modes each, pin hinges, each hanging from a tip node of the
one before; nu = 5 N). The timed chain's tip nodes carry no mode shapes (the kernels do
the same work either way): along chains hanging from *deforming* nodes the articulated-body
recursion (forward dynamics as well as these operators) loses accuracy geometrically with
the chain's length, so part 3 prints that accuracy instead of timing it.

1. ``m.inverse_mass_matrix(q)`` (O(N nu) articulated-body recursion with (6 + n_modes)
   blocks) against ``np.linalg.inv(m.mass_matrix(q))`` (our composite-inertia M, then
   LAPACK), and against ``np.linalg.inv`` of a given M alone.
2. ``m.operational_space_compliance(q, frames)`` at 1-4 tip nodes (recursion, no M^-1)
   against the dense J M^-1 J^T from our M and Jacobians (Cholesky solve).
3. Accuracy of M^-1 and of forward dynamics against LAPACK on M (relative to the largest
   entry) for chains hanging from deforming nodes (mode shapes of scale 0.01 and 0.1),
   with cond(M).

Run:  python bench/bench_flex_operators.py [N ...]   (default 100)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_core import best_time  # noqa: E402


def flexible_chain(n, n_modes=4, seed=0, shape_scale=0.0):
    import multibody as mb
    rng = np.random.default_rng(seed)
    m = mb.Multibody()
    parent = None
    for i in range(n):
        b = m.add_modal_body(f"f{i}", n_modes, mass=1.0, com=[0.5, 0, 0], inertia=[0.05, 0, 0, 0.1, 0, 0.1],
                             stiffness=rng.uniform(10, 100, n_modes), S=0.02 * rng.normal(size=(3, n_modes)),
                             S_rot=0.02 * rng.normal(size=(3, n_modes)))
        m.add_hinge(parent, b, "pin", axis=(0, 0, 1))
        T = np.eye(4)
        T[:3, 3] = [1.0, 0, 0]
        parent = m.add_node(f"tip{i}", b, T, mode_shapes=shape_scale * rng.normal(size=(6, n_modes))).name
    q = rng.normal(size=m.nq) * 0.2
    return m, q


def interleaved(ours, theirs, n):
    a, b = [], []
    for _ in range(3):
        a.append(best_time(ours, n=n, repeats=3))
        b.append(best_time(theirs, n=n, repeats=3))
    return min(a), min(b)


def dense_compliance(m, q, frames):
    M = m.mass_matrix(q)
    J = np.vstack([m.body_jacobian(q, f) for f in frames])
    L = np.linalg.cholesky(M)
    X = np.linalg.solve(L, J.T)
    return X.T @ X


def main(sizes):
    for n in sizes:
        m, q = flexible_chain(n)
        M = m.mass_matrix(q)
        Minv = m.inverse_mass_matrix(q)
        err = np.abs(M @ Minv - np.eye(m.nu)).max()
        reps = max(3, 2000 // n)
        a, b = interleaved(lambda: m.inverse_mass_matrix(q), lambda: np.linalg.inv(m.mass_matrix(q)), reps)
        _, c = interleaved(lambda: None, lambda: np.linalg.inv(M), reps)
        print(f"chain N={n:4d} nu={m.nu:4d}  M^-1 ours {a:9.1f} us   inv(mass_matrix) {b:9.1f} us  ratio {a / b:5.2f}"
              f"   inv(M) alone {c:9.1f} us  ratio {a / c:5.2f}   |M M^-1 - I| {err:.1e}", flush=True)
        for k in (1, 2, 4):
            frames = [f"tip{i}" for i in np.linspace(n // 3, n - 1, k).astype(int)]
            Y = m.operational_space_compliance(q, frames)
            e = np.abs(Y - dense_compliance(m, q, frames)).max() / np.abs(Y).max()
            a, b = interleaved(lambda: m.operational_space_compliance(q, frames),
                               lambda: dense_compliance(m, q, frames), reps)
            print(f"    Upsilon at {k} node(s): ours {a:9.1f} us  dense J M^-1 J^T {b:9.1f} us  ratio {a / b:5.3f}"
                  f"   rel. diff {e:.1e}", flush=True)


def accuracy_on_deforming_chains():
    for scale in (0.01, 0.1):
        for n in (10, 20, 40, 60, 80):
            m, q = flexible_chain(n, shape_scale=scale)
            M = m.mass_matrix(q)
            z = np.zeros(m.nu)
            ref = np.linalg.inv(M)
            try:
                e1 = f"{np.abs(m.inverse_mass_matrix(q) - ref).max() / np.abs(ref).max():.1e}"
            except ValueError:
                e1 = "singular D"
            try:
                ud = m.forward_dynamics(q, z, z)
                x = np.linalg.solve(M, -m.inverse_dynamics(q, z, z))
                e2 = f"{np.abs(ud - x).max() / np.abs(x).max():.1e}"
            except ValueError:
                e2 = "singular D"
            print(f"deforming nodes (mode shapes x{scale}) N={n:3d}: cond(M) {np.linalg.cond(M):.1e}  "
                  f"M^-1 rel. error {e1:>10s}  forward dynamics rel. error {e2:>10s}", flush=True)


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [100])
    accuracy_on_deforming_chains()
