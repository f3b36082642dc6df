"""Stacked states of a model with modal (flexible) bodies, measured in one run.

A serial chain of 10 modal bodies (pin hinges, 10 beam modes each: ``beam_modes(1.0,
EI=50.0, rhoA=1.0, n_elements=20, n_modes=10)``, nu = 110), B = 1000 random states
(angles uniform in [-pi, pi], modal coordinates ~1e-6): each stacked call
(``m.forward_dynamics(Q, U, TAU, out=)`` etc., into arrays made once: the batched flex kernels, Numba's threads, or a
Python loop of single calls where there is no batched kernel) against a Python loop of
the single calls, as the ratio stacked / loop (below 1: the stacked call is faster), and
for the batched kernels their time on one thread (against the loop: what the loop's
Python and dispatch cost; against the stacked call: what the threads gain, ideally the
thread count). On a machine whose cores are busy with other work a parallel region waits
for its threads to be scheduled (milliseconds): then the threaded call gains nothing.

Run:  python bench/bench_flex_batch.py [--quick]   (--quick: fewer repeats)
"""
import sys
import time

import numpy as np

QUICK = "--quick" in sys.argv


def best(f, repeats):
    """Best wall time [s] of f() over repeats."""
    t_best = np.inf
    for _ in range(2 if QUICK else repeats):
        t = time.perf_counter()
        f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def chain():
    import multibody as mb
    m = mb.Multibody()
    m.add_serial_chain("b", 10, modal_data=mb.flex.beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=10))
    return m


def main(B=1000):
    import numba
    threads = numba.get_num_threads()
    m = chain()
    rng = np.random.default_rng(0)
    Q = np.array([m.random_q(rng, modal_scale=1e-6) for _ in range(B)])
    U, X = rng.normal(size=(B, m.nu)), rng.normal(size=(B, m.nu))
    V, M = np.empty((B, m.nu)), np.empty((B, m.nu, m.nu))  # out= (a new 100 MB M would time page faults)
    calls = {  # name: (stacked call, single call of sample i, batched kernel?)
        "forward_dynamics": (lambda: m.forward_dynamics(Q, U, X, out=V),
                             lambda i: m.forward_dynamics(Q[i], U[i], X[i]), 1),
        "inverse_dynamics": (lambda: m.inverse_dynamics(Q, U, X, out=V),
                             lambda i: m.inverse_dynamics(Q[i], U[i], X[i]), 1),
        "mass_matrix": (lambda: m.mass_matrix(Q, out=M), lambda i: m.mass_matrix(Q[i]), 1),
        "inverse_mass_matrix": (lambda: m.inverse_mass_matrix(Q, out=M), lambda i: m.inverse_mass_matrix(Q[i]), 1),
        "kinetic_energy": (lambda: m.kinetic_energy(Q, U), lambda i: m.kinetic_energy(Q[i], U[i]), 1),
        "body_pose": (lambda: m.body_pose(Q, "b9_tip"), lambda i: m.body_pose(Q[i], "b9_tip"), 1),
        "body_jacobian": (lambda: m.body_jacobian(Q, "b9_tip"), lambda i: m.body_jacobian(Q[i], "b9_tip"), 1),
        "integrate": (lambda: m.integrate(Q, U, 0.01), lambda i: m.integrate(Q[i], U[i], 0.01), 1),
    }
    print(f"10-body chain of 10-mode beams (nq = nu = {m.nu}), B = {B} states, {threads} Numba threads")
    for name, (stacked, single, batched) in calls.items():
        stacked()  # compile or load the kernels
        t_stacked = best(stacked, 7)

        def loop():
            for i in range(B):
                single(i)
        t_loop = best(loop, 3)
        line = (f"{name:20s} stacked {t_stacked / B * 1e6:8.2f} us/state | loop of single calls "
                f"{t_loop / B * 1e6:8.2f} | stacked / loop = {t_stacked / t_loop:5.3f}")
        if batched:  # the kernel on one thread: the loop's own cost without the threads' gain
            numba.set_num_threads(1)
            stacked()
            t_one = best(stacked, 5)
            numba.set_num_threads(threads)
            line += (f" | on 1 thread {t_one / B * 1e6:8.2f} (1 thread / loop = {t_one / t_loop:5.3f}, "
                     f"stacked / ideal (1 thread / {threads}) = {t_stacked * threads / t_one:4.2f})")
        print(line, flush=True)


if __name__ == "__main__":
    main()
