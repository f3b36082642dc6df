"""The Coulomb contact solver (``kernels/contact_solver.py``) against an alternative, same run.

Ours (``solve_contacts``): projected block Gauss-Seidel with the exact 3x3 local solve, then
a semismooth Newton method where the sweeps have not converged. The alternatives: the sweeps
alone (``gauss_seidel_contacts``, the same iterations allowed), and SciPy's ``optimize.root``
(Powell's hybrid method, MINPACK) on the same natural-map equations
F(lambda) = lambda - proj_K(lambda - rho (w + mu ||w_t|| e_n)) = 0, started from zero.
Problems: a free cube on four corners (W rank deficient, 12 x 12) resting, sliding and on a
30 degree incline (mu 0.7: sticks; 0.4: slides), random SPD problems of 4 and 8 contacts, and
two of Solo12 dropped on the floor (``tests/data/solo12_contact_problems.npz``: landing, 24
contacts on 18 speeds; sitting on six, with the contact loop's compliance 1e-6 W_nn).
Reported per problem: time per solve [us] of each, the ratios to ours, and the residual each
reached (all by the same ``natural_residual``), with our iterations.

Run:  python bench/bench_contact_solver.py
"""
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from multibody.kernels.contact_solver import (  # noqa: E402
    gauss_seidel_contacts, natural_residual, project_cone, solve_contacts,
)
from test_contact_solver import random_problem  # noqa: E402


def cube_problems(h=1e-3, g=9.81):
    """(name, W, vfree, b, mu) of the cube on four corners."""
    a = 0.05
    Minv = np.zeros((6, 6))
    Minv[:3, :3] = np.eye(3) / (2 * 0.1 ** 2 / 12)
    Minv[3:, 3:] = np.eye(3)
    J = []
    for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        r = np.array([sx * a, sy * a, -a])
        for e in np.eye(3)[[2, 0, 1]]:
            J.append(np.concatenate([np.cross(r, e), e]))
    J = np.array(J)
    W = J @ Minv @ J.T
    th = math.radians(30.0)
    cases = [("cube resting", [0, 0, 0, 0, 0, -g * h], 0.5),
             ("cube sliding", [0, 0, 0, 1.0, 0, -g * h], 0.5),
             ("incline mu 0.7", [0, 0, 0, g * h * math.sin(th), 0, -g * h * math.cos(th)], 0.7),
             ("incline mu 0.4", [0, 0, 0, g * h * math.sin(th), 0, -g * h * math.cos(th)], 0.4)]
    return [(name, W, J @ np.array(uf), np.zeros(12), np.full(4, mu)) for name, uf, mu in cases]


def natural_map(lam, W, vfree, b, mu):
    v = vfree + W @ lam
    F = np.empty_like(lam)
    for c in range(len(mu)):
        k = slice(3 * c, 3 * c + 3)
        w = v[k] + b[k]
        rho = 1.0 / W[3 * c, 3 * c]
        x = lam[k] - rho * np.array([w[0] + mu[c] * math.hypot(w[1], w[2]), w[1], w[2]])
        F[k] = lam[k] - np.array(project_cone(mu[c], *x))
    return F


def timed(f, n):
    best = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            out = f()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6, out


def main():
    from scipy.optimize import root
    rng = np.random.default_rng(5)
    problems = cube_problems()
    for nc in (4, 8):
        W, vfree, b, mu = random_problem(rng, nc, 3 * nc + 2)
        problems.append((f"random, {nc} contacts", W, vfree, b, mu))
    z = np.load(os.path.join(HERE, "..", "tests", "data", "solo12_contact_problems.npz"))
    for name in ("landing", "sitting"):
        problems.append((f"Solo12 {name}",) + tuple(z[f"{name}_{k}"] for k in ("W", "vfree", "b", "mu")))
    print(f"{'problem':24s} {'ours [us]':>10s} {'GS/ours':>8s} {'scipy/ours':>10s} {'res ours':>9s} "
          f"{'res GS':>9s} {'res scipy':>9s} {'iters':>6s}")
    for name, W, vfree, b, mu in problems:
        m = len(vfree)
        comp = 1e-6 * np.diag(W)[0::3] if name == "Solo12 sitting" else np.zeros(m // 3)
        v = np.empty(m)

        def ours():
            lam = np.zeros(m)
            return lam, solve_contacts(W, vfree, b, mu, comp, lam, v, 5000, 1e-10)

        def sweeps_alone():
            lam = np.zeros(m)
            return lam, gauss_seidel_contacts(W, vfree, b, mu, comp, lam, v, 5000, 1e-10)

        def theirs():
            return root(natural_map, np.zeros(m), args=(W, vfree, b, mu), method="hybr").x

        ours()  # compiled
        sweeps_alone()
        t_ours, (lam, (res, its)) = timed(ours, 20)
        t_gs, (_, (res_gs, _)) = timed(sweeps_alone, 3)
        t_scipy, x = timed(theirs, 3)
        res_scipy = natural_residual(W, vfree, b, mu, comp, x, v)
        print(f"{name:24s} {t_ours:10.1f} {t_gs / t_ours:8.1f} {t_scipy / t_ours:10.1f} {res:9.1e} {res_gs:9.1e} "
              f"{res_scipy:9.1e} {its:6d}")


if __name__ == "__main__":
    main()
