"""Long chains of ten-mode modal bodies: the articulated-body recursion stays backward
stable, like a dense solve.

Such chains are badly conditioned by nature (cond(M) ~ 1e12 at 10 bodies, 1e16 at 100: a
tip node's high modes swing the next body through large rotations, while the cantilever
modes nearly reproduce the hinge's rigid rotation), so udot and M^-1 are compared by their
residuals relative to |M| |x|, which do not depend on the conditioning. With P+ = P - G U^T
computed in full, its rounding differed on the two sides of the diagonal and the modal
blocks amplified the skew part 5-10x per body: udot's residual was 6e-13 and M^-1's 7.6e-8
at 10 bodies, and every D was reported singular from about 20 bodies on.
"""
import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes


@pytest.fixture(scope="module")
def beam():
    return beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=20, n_modes=10)


def _chain_state(beam, n, seed=0):
    m = mb.Multibody()
    m.add_serial_chain("b", n, modal_data=beam)
    rng = np.random.default_rng(seed)
    q = 0.3 * rng.normal(size=m.nq)
    for b in m.modal_bodies:  # ~2 cm at each tip, mode k ~ 1/k^2 (as in bench_flex)
        q[m.modal_slice(b)] = 1e-2 * rng.normal(size=b.n_modes) / np.arange(1, b.n_modes + 1) ** 2
    return m, q, 0.1 * rng.normal(size=m.nu), rng.normal(size=m.nu)


@pytest.mark.parametrize("n", [10, 100])
def test_forward_dynamics_residual_is_at_rounding_level(beam, n):
    m, q, u, tau = _chain_state(beam, n)
    udot = m.forward_dynamics(q, u, tau)
    M = m.mass_matrix(q)
    rhs = tau - m.inverse_dynamics(q, u, np.zeros(m.nu))
    residual = np.abs(M @ udot - rhs).max() / (np.abs(M).max() * np.abs(udot).max() + np.abs(rhs).max())
    assert residual < 1e-15
    assert np.linalg.cond(M) > 1e11  # the case is the badly conditioned one described above


@pytest.mark.parametrize("n", [10, 100])
def test_inverse_mass_matrix_residual_is_at_rounding_level(beam, n):
    m, q, _, _ = _chain_state(beam, n, seed=1)
    M, Minv = m.mass_matrix(q), m.inverse_mass_matrix(q)
    assert np.array_equal(Minv, Minv.T)
    residual = np.abs(M @ Minv - np.eye(m.nu)).max() / (np.abs(M).max() * np.abs(Minv).max())
    assert residual < 1e-13  # 4e-15 at 10 bodies, 1.9e-14 at 100 (LAPACK's inv: 3e-17; before: 7.6e-8 at 10)


def test_articulated_inertias_stay_exactly_symmetric(beam):
    """The work arrays after a call: every D^-1 and P+ block symmetric bit for bit (the
    inverse mass matrix keeps whole blocks per link; the forward dynamics keeps P+[:6, :6],
    row stride 6, for the parent)."""
    from multibody.kernels import flex_layout as FL
    m, q, u, tau = _chain_state(beam, 30)
    d = m.create_data()
    fi, nbmax = m.compiled.flex.fi, 6 + beam.n_modes
    m.forward_dynamics(q, u, tau, data=d)
    w = d.flex_work
    for k in range(fi.shape[0]):
        X = w.P[fi[k, FL.PADR]:fi[k, FL.PADR] + 36].reshape(6, 6)
        assert np.array_equal(X, X.T) and np.any(X), k
    m.inverse_mass_matrix(q, data=d)
    for k in range(fi.shape[0]):
        nb, nk = fi[k, FL.NB], fi[k, FL.NUALL]
        P = w.P[fi[k, FL.PADR]:fi[k, FL.PADR] + nb * nb].reshape(nb, nb)
        D = w.Dinv[fi[k, FL.DADR]:fi[k, FL.DADR] + nk * nk].reshape(nk, nk)
        assert nb == nbmax and np.array_equal(P, P.T) and np.array_equal(D, D.T), k
