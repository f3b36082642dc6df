"""Tree-augmented (TA) dynamics on a ladder of 32 loops, an ill-conditioned closed chain,
against an extended-precision solve of the dense KKT system built from the same M, Gc, b
and kappa (tests/loop_ladder.py, the ladder of bench/bench_constrained.py).

Why not against numpy.linalg.solve of the KKT system, as test_loop_constraints does on
small trees: at the benchmark's state the ladder is near a singular configuration
(Gc's singular values 2.8e2 .. 2.8e-5, cond(K) ~ 2e15, cond(Gamma) ~ 1e13), and an LU of K
is itself off the exact answer by 1.4e-7 of |udot| (its LAPACK thread count alone moves it
by 7e-7). The exact answer of the data is much better determined than that: it moves by
about 2e-11 of |udot| when q is perturbed by 1e-15 (relative), and by as much when the
entries of K are. So the reference is the solve refined with residuals in extended
precision, and TA must reach it to the data's own precision.

TA's first solve (Gamma lambda = rhs, then one sweep) is off by 5.6e-7 here: Gamma =
Gc M^-1 Gc^T squares Gc's conditioning. Its refinement step (the rows' miss measured from
the corrected motion itself, solved with the same factors) brings it to 3-5e-11; the test
would have failed before that step.
"""
import numpy as np
import pytest

from loop_ladder import kkt_system, ladder, ladder_state, reference_solve

pytestmark = pytest.mark.skipif(np.finfo(np.longdouble).eps > 1e-18,
                                reason="np.longdouble is no wider than float64 here: no extended-precision reference")


@pytest.fixture(scope="module")
def ladder32():
    m = ladder(32)
    q, u, tau = ladder_state(m, 32)
    return m, q, u, tau


def test_ladder_is_ill_conditioned_but_determined_by_its_data(ladder32):
    m, q, u, tau = ladder32
    K, rhs = kkt_system(m, q, u, tau)
    s = np.linalg.svd(m.constraint_jacobian(q), compute_uv=False)
    assert s[-1] / s[0] < 1e-6  # near a singular configuration: the case the test is about
    x = reference_solve(K, rhs)[:m.nu]
    scale = max(1.0, np.abs(x).max())
    rng = np.random.default_rng(5)
    qp = q * (1.0 + 1e-15 * rng.uniform(-1.0, 1.0, q.shape))
    moved = np.abs(reference_solve(*kkt_system(m, qp, u, tau))[:m.nu] - x).max() / scale
    assert moved < 1e-10  # the reference is what the data determine, to about this
    lu = np.abs(np.linalg.solve(K, rhs)[:m.nu] - x).max() / scale
    assert lu > 1e-9  # and a plain LU of the same system is not (why the reference is refined)


def test_ta_matches_the_extended_precision_kkt_solve(ladder32):
    m, q, u, tau = ladder32
    x = reference_solve(*kkt_system(m, q, u, tau))[:m.nu]
    udot = m.forward_dynamics(q, u, tau)
    scale = max(1.0, np.abs(x).max())
    assert np.abs(udot - x).max() < 5e-10 * scale  # measured 3-5e-11 (5.6e-7 before the refinement step)
    G, kappa = m.constraint_jacobian(q), m.constraint_bias(q, u)
    assert np.abs(G @ udot + kappa).max() < 1e-11 * scale  # the rows' acceleration level: 2e-12 (1.6e-8 before)
