"""A constraint between two nodes of one modal body (a seam: a ring's finite-element model
cut open and closed again by a loop), which only the deformation can violate. Refused before
as "on the same body"; it still is for a rigid body."""
import numpy as np
import pytest

import multibody as mb
from flex_models import total_energy
from multibody.flex import beam_modes


def _seamed(rng):
    m = mb.Multibody()
    beam = m.add_modal_body("beam", modal_data=beam_modes(1.0, EI=20.0, rhoA=0.5, n_modes=4, nodes=[1.0]),
                            nodes={"tip": 0})
    m.add_hinge(None, beam, "pin", axis=(0, 1, 0))
    T = np.eye(4)
    T[0, 3] = 0.6  # both sides of the cut at the same point, with their own mode shapes
    m.add_node("cut_a", beam, T, mode_shapes=0.3 * rng.normal(size=(6, 4)))
    m.add_node("cut_b", beam, T, mode_shapes=0.3 * rng.normal(size=(6, 4)))
    m.add_loop_constraint("seam", "cut_a", "cut_b", "spherical")
    return m


def test_seam_rows_dynamics_and_run():
    rng = np.random.default_rng(0)
    m = _seamed(rng)
    q, u, tau = np.zeros(m.nq), rng.normal(size=m.nu), rng.normal(size=m.nu)
    q[0] = 0.3
    G = m.constraint_jacobian(q)
    assert G.shape == (3, m.nu) and np.all(G[:, 0] == 0.0)  # the pin moves both sides alike
    du, eps = rng.normal(size=m.nu), 1e-6
    fd = (m.pose_error(m.integrate(q, du, eps), "residual") - m.pose_error(m.integrate(q, du, -eps), "residual")) / (2 * eps)
    np.testing.assert_allclose(fd, G @ du, rtol=0, atol=1e-9)
    M, b, kappa = m.mass_matrix(q), m.inverse_dynamics(q, u, np.zeros(m.nu)), m.constraint_bias(q, u)
    A = np.block([[M, -G.T], [G, np.zeros((3, 3))]])
    sol = np.linalg.solve(A, np.concatenate([tau - b, -kappa]))
    np.testing.assert_allclose(m.constrained_dynamics(q, u, tau).udot, sol[:m.nu], rtol=0,
                               atol=1e-9 * np.abs(sol[:m.nu]).max())
    res = mb.simulate(m, q, np.zeros(m.nu), 0.3, dt=0.01, integrator="dopri5", rtol=1e-9, atol=1e-12)
    E = np.array([total_energy(m, a, c) for a, c in zip(res.q, res.u)])
    assert np.abs(E - E[0]).max() < 1e-9 * np.abs(E).max()
    assert max(np.abs(m.pose_error(a, "residual")).max() for a in res.q) < 1e-12
    assert np.abs(res.q[:, m.modal_slice("beam")]).max() > 1e-7  # it does bend


def test_rigid_body_seam_is_still_refused():
    m = mb.Multibody()
    m.add_body("box", mass=1.0, inertia=np.eye(3))
    m.add_node("a", "box", np.eye(4))
    m.add_node("b", "box", np.eye(4))
    with pytest.raises(ValueError, match="same body 'box', a rigid one"):
        m.add_loop_constraint("seam", "a", "b", "spherical")
