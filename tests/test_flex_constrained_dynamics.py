"""Constrained forward dynamics of models with modal (flexible) bodies, loops closed at
deforming nodes included (algorithms/flex_constrained_dynamics.py): against a dense KKT
solve built from the flex mass matrix, inverse dynamics and the constraint rows (whose own
checks are in test_flex_constraints.py), with Baumgarte gains, wrenches at deforming nodes,
and the squeeze-force identity.
"""
import numpy as np
import pytest

from test_flex_constraints import _cases, _with_loops


@pytest.mark.parametrize("n_loops,kinds,convel,coordinate", list(_cases()))
def test_constrained_dynamics_against_dense_kkt(n_loops, kinds, convel, coordinate):
    m, q, u, tau, rng = _with_loops(11 * n_loops + len(kinds[0]), n_loops, kinds, convel, coordinate)
    G = m.constraint_jacobian(q)
    rows = G.shape[0]
    M = m.mass_matrix(q)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))  # M udot + b = tau (gravity, stiffness, damping)
    kappa = m.constraint_bias(q, u)
    A = np.block([[M, -G.T], [G, np.zeros((rows, rows))]])
    sol = np.linalg.solve(A, np.concatenate([tau - b, -kappa]))
    res = m.constrained_dynamics(q, u, tau)
    scale = max(1.0, np.abs(sol[:m.nu]).max())
    assert np.abs(res.udot - sol[:m.nu]).max() < 1e-9 * scale
    assert np.abs(res.multipliers - sol[m.nu:]).max() < 1e-9 * max(1.0, np.abs(sol[m.nu:]).max())
    np.testing.assert_array_equal(m.forward_dynamics(q, u, tau), res.udot)
    np.testing.assert_allclose(sum(res.forces.values()), res.constraint_force, atol=1e-12 * scale)
    # squeeze forces Gc^T y cause no motion
    y = rng.normal(size=rows)
    assert np.abs(m.constrained_dynamics(q, u, tau + G.T @ y).udot - res.udot).max() < 1e-9 * scale
    # Baumgarte: the rows' acceleration is -kd r_dot - kp r
    kp, kd = 30.0, 7.0
    r, rdot = m.pose_error(q, "residual"), m.velocity_error(q, u, "residual")
    sol = np.linalg.solve(A, np.concatenate([tau - b, -kappa - kd * rdot - kp * r]))
    stab = m.constrained_dynamics(q, u, tau, stabilization_gains=(kp, kd))
    assert np.abs(stab.udot - sol[:m.nu]).max() < 1e-9 * max(1.0, np.abs(sol[:m.nu]).max())


def test_constrained_dynamics_with_a_wrench_at_a_deforming_node():
    m, q, u, tau, rng = _with_loops(3, 2, ["pin", "spherical"])
    w = rng.normal(size=6)
    res = m.constrained_dynamics(q, u, tau, f_ext={"bx": w})
    tau_ext = m.inverse_dynamics(q, u, np.zeros(m.nu)) - m.inverse_dynamics(q, u, np.zeros(m.nu), f_ext={"bx": w})
    np.testing.assert_allclose(res.udot, m.constrained_dynamics(q, u, tau + tau_ext).udot, rtol=0,
                               atol=1e-11 * max(1, np.abs(res.udot).max()))
    assert np.abs(tau_ext[m.modal_slice("beam")]).max() > 1e-3  # the wrench reaches the modal rates
    np.testing.assert_array_equal(m.forward_dynamics(q, u, tau, f_ext={"bx": w}), res.udot)
