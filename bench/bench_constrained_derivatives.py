"""Constrained forward dynamics derivatives: ours vs Pinocchio's, measured in one run.

Cassie (example-robot-data's ``cassie.sdf``, free base) with its leg loops, as
tests/test_constrained_derivatives.py sets it up for Pinocchio (the loops as 3-D point
constraints on the Pinocchio model of our tree; the knee-spring slider loops and the
gearboxes left out, which Pinocchio cannot express; q closed, u consistent). Ours:
``m.forward_dynamics_derivatives(q, u, tau)`` (the constrained udot and its three
derivatives in one call). Pinocchio's: ``constraintDynamics`` (its derivatives need it run
first at the state) then ``computeConstraintDynamicsDerivatives`` (proximal solver, mu = 1e-8,
as few iterations as reach our udot to 1e-10). Our time with every constraint (sliders and
gearboxes too) is printed as well. Times: the best of interleaved timed loops (bench_core).

Run:  python bench/bench_constrained_derivatives.py
"""
import os
import sys
import warnings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread for NumPy's LAPACK too, as our kernels and Pinocchio

import numpy as np  # noqa: E402  (after the thread settings)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from bench_constrained import fewest_proximal_iterations, paired  # noqa: E402  (sys.path first)


def main():
    import pinocchio as pin
    from pin_convert import q_to_pin, u_perm
    from robots import cassie_sdf
    from test_constrained_derivatives import cassie_loops_for_pinocchio
    if cassie_sdf() is None:
        print("Cassie: example-robot-data's cassie.sdf not installed; skipped")
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m, q, u, tau, model, data, cms, cds, _ = cassie_loops_for_pinocchio()
    P = u_perm(m)
    qp, vp, tp = q_to_pin(m, q), u[P], tau[P]
    udot = m.forward_dynamics(q, u, tau)
    settings, iters, _ = fewest_proximal_iterations(model, data, (qp, vp, tp), cms, cds, udot[P])

    def theirs():
        pin.constraintDynamics(model, data, qp, vp, tp, cms, cds, settings)
        return pin.computeConstraintDynamicsDerivatives(model, data, cms, cds, settings)

    back = np.argsort(P)
    ref = np.array(theirs()[2])[back][:, back]
    agree = np.abs(ref - m.forward_dynamics_derivatives(q, u, tau)[2]).max() / np.abs(ref).max()
    ours_us, theirs_us = paired(lambda: m.forward_dynamics_derivatives(q, u, tau), theirs)
    rows = m.constraint_jacobian(q).shape[0]
    print(f"Cassie nu={m.nu}: loops {rows} rows (ours) / {3 * len(cms)} rows (Pinocchio, {len(cms)} points), "
          f"Pinocchio mu=1e-8, {iters} iteration(s); dudot_dtau agreement {agree:.1e} (relative)", flush=True)
    print(f"Cassie constrained FD derivatives: ours {ours_us:8.2f} us  pinocchio {theirs_us:8.2f} us  "
          f"ratio {ours_us / theirs_us:5.2f}", flush=True)
    return ours_us / theirs_us


if __name__ == "__main__":
    main()
