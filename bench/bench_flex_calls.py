"""Per-call cost of the facade's operators on a flexible model (issue 20: one compiled
model), as a ratio to forward dynamics measured in the same run.

A chain of N modal bodies (4 modes each, pin hinges, each hanging from a tip node of the
one before; ``bench_flex_operators.flexible_chain``). Timed: ``inverse_mass_matrix``,
``body_pose``, ``body_jacobian``, ``body_velocity`` of the last tip node and
``operational_space_compliance`` at it, each against ``forward_dynamics`` at the same
state (the same kernels' cost scale, so two runs on a shared machine compare by ratio).
Run it on two versions of ``src`` (``PYTHONPATH=<src> python bench/bench_flex_calls.py``)
for a before/after.

Run:  python bench/bench_flex_calls.py [N ...]   (default 3 20)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_core import best_time  # noqa: E402
from bench_flex_operators import flexible_chain  # noqa: E402


def main(sizes):
    import multibody as mb
    print(f"multibody from {os.path.dirname(mb.__file__)}")
    for n in sizes:
        m, q = flexible_chain(n, shape_scale=0.01)
        u = np.random.default_rng(1).normal(size=m.nu) * 0.1
        tau = np.zeros(m.nu)
        tip = f"tip{n - 1}"
        calls = {"forward_dynamics": lambda: m.forward_dynamics(q, u, tau),
                 "inverse_mass_matrix": lambda: m.inverse_mass_matrix(q),
                 "body_pose": lambda: m.body_pose(q, tip),
                 "body_jacobian": lambda: m.body_jacobian(q, tip),
                 "body_velocity": lambda: m.body_velocity(q, u, tip),
                 "operational_space_compliance": lambda: m.operational_space_compliance(q, tip)}
        for f in calls.values():
            f()  # compile / load
        reps = max(200, 20000 // (n * n))
        times = {name: min(best_time(f, n=reps, repeats=3) for _ in range(2)) for name, f in calls.items()}
        ref = times["forward_dynamics"]
        print(f"chain of {n} modal bodies (nu = {m.nu}):")
        for name, t in times.items():
            print(f"  {name:30s} {t:9.2f} us   {t / ref:6.2f} x forward_dynamics")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [3, 20])
