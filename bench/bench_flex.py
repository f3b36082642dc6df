"""Flexible (modal) bodies at scale, measured in one run (issue 9's targets).

1. Forward dynamics time per call for serial chains of 10, 100 and 1000 modal bodies
   (pin hinges, 10 modes each: beam modes from ``multibody.flex.beam_modes`` with their
   modal integrals, built by
   ``add_serial_chain(..., modal_data=)``), and the ratios 1000/100 and 100/10 (O(N):
   target 1000/100 <= 11).
2. Memory of a chain of 10,000 modal bodies (10 modes each): model objects, compiled
   model, one Data and its flex work arrays, one forward dynamics call. Measured in fresh
   subprocesses (kernels loaded first, so that only the model's memory is counted), three
   ways: the growth of the resident set size (VmRSS from /proc/self/status; it includes
   freed temporaries the allocator keeps), the bytes of the NumPy arrays the compiled model
   and the Data hold (``nbytes``), and tracemalloc's held and peak bytes per stage (every
   Python and NumPy allocation). Target: under 1 GB.
3. Forward dynamics against a dense solve of the same M at 100 bodies (nu = 1100): our
   call vs ``mass_matrix`` + bias (``inverse_dynamics`` with udot = 0, which holds the
   elastic forces) + ``np.linalg.solve``, and vs the solve alone, as ratios.

Run:  python bench/bench_flex.py [--quick] [--modes K]   (--quick: fewer repeats, for a smoke
run; --modes: modes per body, 10 by default). A call that fails (a singular pivot) is reported
and the run goes on.
"""
import os
import subprocess
import sys
import time

import numpy as np

N_MODES = int(sys.argv[sys.argv.index("--modes") + 1]) if "--modes" in sys.argv else 10
QUICK = "--quick" in sys.argv


def best_time(f, n, repeats=5):
    """Best-of-repeats mean time per call [us]."""
    best = np.inf
    for _ in range(2 if QUICK else repeats):
        t = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def beam():
    """Modal data of one link: a 1 m, 1 kg/m beam (EI = 50 N m^2), cantilever modes (20
    elements), with the default modal integrals (M1, M2, geometric stiffening)."""
    from multibody.flex import beam_modes
    return beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=N_MODES)


def chain(n, data):
    """A chain of n modal bodies on pin hinges (about y), each hanging from the last's tip."""
    import multibody as mb
    m = mb.Multibody()
    m.add_serial_chain("b", n, modal_data=data)
    return m


def state(m, seed=0):
    """Hinge angles ~ 0.3 rad, modal coordinates ~ 1e-2 / k^2 for mode k (centimetre tip
    deflections, higher modes smaller as in a real motion), random u and tau. The kernels'
    work does not depend on the values."""
    rng = np.random.default_rng(seed)
    q = 0.3 * rng.normal(size=m.nq)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] = 1e-2 * rng.normal(size=b.n_modes) / np.arange(1, b.n_modes + 1) ** 2
    return q, 0.1 * rng.normal(size=m.nu), rng.normal(size=m.nu)


def bench_scaling(data):
    print(f"Forward dynamics of chains of modal bodies ({N_MODES} modes each, pin hinges):", flush=True)
    cases = {}
    for n in (10, 100, 1000):
        m = chain(n, data)
        q, u, tau = state(m)
        out = np.empty(m.nu)
        try:
            m.forward_dynamics(q, u, tau, out=out)
            cases[n] = (m, q, u, tau, out)
        except ValueError as e:
            print(f"  N = {n:5d} bodies  nu = {m.nu:6d}  forward_dynamics FAILED: {e}", flush=True)
    times = {n: np.inf for n in cases}
    for _ in range(1 if QUICK else 6):  # the sizes interleaved, to share the machine's noise; best of 18
        for n, (m, q, u, tau, out) in cases.items():
            calls = max((2000 if QUICK else 20000) // n, 3)
            times[n] = min(times[n], best_time(lambda: m.forward_dynamics(q, u, tau, out=out), calls, 3))
    for n, t in times.items():
        print(f"  N = {n:5d} bodies  nu = {cases[n][0].nu:6d}  forward_dynamics {t:10.1f} us  "
              f"({t / n * 1e3:7.0f} ns per body)", flush=True)
    if 100 in times and 1000 in times:
        print(f"  ratio 1000/100 = {times[1000] / times[100]:.2f} (target <= 11: O(N)); "
              f"100/10 = {times[100] / times.get(10, np.nan):.2f}", flush=True)


def rss_mb():
    """Resident set size of this process [MB] (VmRSS)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS in /proc/self/status")


def array_bytes(root, skip=()):
    """Bytes of the NumPy arrays held by ``root`` (a CompiledModel or a Data) through its
    attributes, dicts, lists and tuples and its FlexModel / flex work (each array once, a
    view counted as its base); model objects (bodies, subhinges) and ``skip`` are not entered."""
    walk = {"CompiledModel", "Data", "FlexModel"}
    seen = {id(x) for x in skip}
    stack, total = [root], 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            if obj.base is not None and isinstance(obj.base, np.ndarray):
                stack.append(obj.base)
            else:
                total += obj.nbytes
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif type(obj).__name__ in walk:
            stack.extend(vars(obj).values())
    return total


def memory_child(n, trace):
    """Run in a fresh subprocess: build, compile, make a Data, one forward dynamics, and print
    per stage the RSS growth (``trace`` False) or tracemalloc's current and peak bytes
    (``trace`` True: every Python and NumPy allocation, the stages attributed exactly)."""
    import tracemalloc
    data = beam()
    warm = chain(2, data)  # compile/load the kernels before measuring
    q, u, tau = state(warm)
    warm.forward_dynamics(q, u, tau)
    if trace:
        tracemalloc.start()

    def mark():
        if trace:
            cur, peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            return cur / 2**20, peak / 2**20
        return rss_mb(), rss_mb()

    m0 = mark()
    t = time.perf_counter()
    m = chain(n, data)
    m1, t1 = mark(), time.perf_counter() - t
    t = time.perf_counter()
    c = m.compiled
    m2, t2 = mark(), time.perf_counter() - t
    d = m.create_data()
    q, u, tau = state(m)
    t = time.perf_counter()
    try:
        m.forward_dynamics(q, u, tau, data=d)
        failed = ""
    except ValueError as e:  # the work is done (and allocated) before the singular pivot is reported
        failed = f"  [forward dynamics raised: {str(e)[:70]}...]"
    m3, t3 = mark(), time.perf_counter() - t
    if not trace:
        print(f"  N = {n} modal bodies, nq = nu = {m.nu}; build {t1:.1f} s, compile {t2:.1f} s, "
              f"Data + first forward dynamics {t3:.2f} s{failed}")
        print(f"  RSS growth [MB]: model objects {m1[0] - m0[0]:.0f}, compile {m2[0] - m1[0]:.0f}, Data + forward "
              f"dynamics {m3[0] - m2[0]:.0f}; total {m3[0] - m0[0]:.0f} MB (target < 1024 MB)")
        print(f"  NumPy arrays held (nbytes) [MB]: compiled model {array_bytes(c) / 2**20:.0f}, Data (buffer + "
              f"flex work) {array_bytes(d, skip=(c,)) / 2**20:.0f}")
    else:
        print(f"  tracemalloc [MB] (held after / peak during): model objects {m1[0] - m0[0]:.0f} / "
              f"{m1[1] - m0[0]:.0f}, compile +{m2[0] - m1[0]:.0f} / {m2[1] - m0[0]:.0f}, Data + forward dynamics "
              f"+{m3[0] - m2[0]:.0f} / {m3[1] - m0[0]:.0f}; held in all {m3[0] - m0[0]:.0f} MB")
        bodies = m.modal_bodies
        fields = ("M1", "M2", "modal_mass", "S", "S_rot")
        held = distinct_bytes(getattr(b, k) for b in bodies for k in fields)
        f = c.flex
        tables = {k: getattr(f, k).nbytes / 2**20 for k in ("fmass", "fm1", "fm2", "fnode") if hasattr(f, k)}
        print(f"  of which: the ModalBodies' integrals (M1, M2, modal mass, S, S_rot), each buffer once "
              f"(bodies share their ModalData's): {held / 2**20:.2f} MB for {len(bodies)} bodies; "
              f"compiled flex tables [MB] " + ", ".join(f"{k} {v:.2f}" for k, v in tables.items()))


def distinct_bytes(arrays):
    """Bytes of the buffers behind ``arrays``, each once (a view counted as the array it
    views, through NumPy bases and memoryviews)."""
    roots = {}
    for a in arrays:
        while True:
            base = a.obj if isinstance(a, memoryview) else a.base
            if base is None or not isinstance(base, (np.ndarray, memoryview)):
                break
            a = base
        roots[id(a)] = a.nbytes
    return sum(roots.values())


def bench_memory(n=10000):
    print(f"Memory of a chain of {n} modal bodies ({N_MODES} modes each), fresh processes:", flush=True)
    for flag in ("--rss", "--tracemalloc"):
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child", str(n), flag,
                            "--modes", str(N_MODES)],
                           capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode:
            sys.stdout.write(r.stderr[-3000:])
        sys.stdout.flush()


def bench_dense(data, n=100):
    m = chain(n, data)
    q, u, tau = state(m, 1)
    M = m.mass_matrix(q)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))
    try:
        ours = m.forward_dynamics(q, u, tau)
    except ValueError as e:
        print(f"Forward dynamics vs a dense solve, chain of {n} modal bodies: forward_dynamics FAILED: {e}")
        return
    dense = np.linalg.solve(M, tau - b)
    err = np.abs(M @ ours - (tau - b)).max() / np.abs(tau - b).max()
    err_dense = np.abs(M @ dense - (tau - b)).max() / np.abs(tau - b).max()

    def dense_fd():
        return np.linalg.solve(m.mass_matrix(q), tau - m.inverse_dynamics(q, u, np.zeros(m.nu)))

    calls = 20 if QUICK else 100
    t_ours = t_dense = t_solve = np.inf
    for _ in range(3):  # interleaved, to share the machine's noise
        t_ours = min(t_ours, best_time(lambda: m.forward_dynamics(q, u, tau), calls * 10, 3))
        t_dense = min(t_dense, best_time(dense_fd, calls, 3))
        t_solve = min(t_solve, best_time(lambda: np.linalg.solve(M, tau - b), calls, 3))
    print(f"Forward dynamics vs a dense solve, chain of {n} modal bodies (nu = {m.nu}):")
    print(f"  forward_dynamics {t_ours:9.1f} us   mass_matrix + bias + np.linalg.solve {t_dense:9.1f} us   "
          f"np.linalg.solve alone {t_solve:9.1f} us")
    print(f"  ratios: ours / (M + bias + solve) = {t_ours / t_dense:.3f}, ours / solve alone = "
          f"{t_ours / t_solve:.3f}")
    print(f"  residual |M udot - (tau - b)| / |tau - b|: ours {err:.1e}, dense {err_dense:.1e} "
          f"(cond(M) = {np.linalg.cond(M):.1e})", flush=True)


if __name__ == "__main__":
    if "--memory-child" in sys.argv:
        memory_child(int(sys.argv[sys.argv.index("--memory-child") + 1]), "--tracemalloc" in sys.argv)
        sys.exit(0)
    d = beam()
    bench_scaling(d)
    bench_dense(d)
    bench_memory()
