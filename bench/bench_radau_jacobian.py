"""radau's Newton matrix on modal bodies (issue 23): the analytic flex derivatives
(``simulation/flex_implicit.flex_iteration_matrix``, what radau forms) against forward
differences of the flex forward dynamics (``radau_step.fd_jacobian``, 2 nu + 1 forward
dynamics), per call on bench_radau.py's stiff beam (1 m, 40 elements, 3 clamped modes at 1.1
to 19.6 kHz, on a pin) at a swinging, deformed state, both timed in this run (best of 5 x
2000 calls); then radau's run of bench_radau.py (2 % modal damping, 1 s, rtol 1e-8): steps,
Jacobians, Newton iterations, wall (best of 3).

    python bench/bench_radau_jacobian.py
"""
import sys
import time
from pathlib import Path

import numpy as np

import multibody as mb
from multibody.kernels.common import data_start, link_rows
from multibody.simulation.flex_implicit import flex_iteration_matrix, flex_work
from multibody.simulation.radau import RadauIntegrator
from multibody.simulation.radau_step import fd_jacobian

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best_of  # noqa: E402
from bench_radau import beam_pendulum  # noqa: E402

CALLS = 2000


def jacobian_times(m):
    """(seconds per call of the analytic matrix, of the differences, the largest difference
    of their du_dot/dq and du_dot/du relative to its scale)."""
    nu = m.nu
    q, u = np.array([0.7, 2e-4, -3e-5, 1e-5]), np.array([2.0, 0.05, -0.02, 0.01])
    integ = RadauIntegrator(m, q, u)
    c, buf = m.compiled, integ.data.buf
    n = c.mi.shape[0]
    ws = link_rows(buf, data_start(buf, n), n)
    src, tau, x = np.zeros(nu), np.zeros(nu), m.forward_dynamics(q, u, np.zeros(nu))
    f0 = np.concatenate([u, x])
    Ma, Ca, Ka, Mf, Cf, Kf = (np.zeros((nu, nu)) for _ in range(6))
    scratch = [np.zeros(nu) for _ in range(4)] + [np.zeros(m.nq)]
    qs, us, phi, kq, ku = scratch[4], scratch[0], scratch[1], scratch[2], scratch[3]
    fw = flex_work(buf)

    def analytic():
        for _ in range(CALLS):
            flex_iteration_matrix(c.mi, integ.mf, ws, buf, fw, integ.fmi, integ.fmf, 0.0, q, u, x, src, tau, 0.0, 0.0,
                                  Ka, Ca, Ma)

    def differences():
        for _ in range(CALLS):
            fd_jacobian(c.mi, integ.mf, ws, buf, integ.fmi, integ.fmf, integ.smap, 0.0, q, u, f0, src, qs, us, phi,
                        tau, kq, ku, Mf, Cf, Kf)

    analytic()
    differences()
    ta, _ = best_of(analytic, 5)
    tf, _ = best_of(differences, 5)
    Minv = np.linalg.inv(Ma)
    err = max(np.abs(Minv @ Ka - Kf).max() / np.abs(Kf).max(), np.abs(Minv @ Ca - Cf).max() / np.abs(Cf).max())
    return ta / CALLS, tf / CALLS, err


def main():
    m = beam_pendulum(0.02)
    ta, tf, err = jacobian_times(m)
    print(f"stiff beam (nu = {m.nu}): analytic Newton matrix {ta * 1e6:.1f} us, forward differences "
          f"{tf * 1e6:.1f} us per call; differences / analytic {tf / ta:.2f}x; M^-1 (K, C) against the "
          f"differences' (-du_dot/dq, -du_dot/du): {err:.1e} of their scale")
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)

    def run():
        integ = RadauIntegrator(m, q0, u0, rtol=1e-8, atol=1e-10)
        integ.integrate(1.0, 1.0)
        return integ

    run()
    wall, integ = best_of(run, 3)
    print(f"radau, 1 s at rtol 1e-8: {integ.n_steps} steps ({integ.n_rejected} rejected), {integ.jacobians} "
          f"Jacobians, {integ.newton_iterations} Newton iterations, {wall:.4f} s; theta(1) {integ.q[0]:.12f}")


if __name__ == "__main__":
    t = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t:.0f} s)")
