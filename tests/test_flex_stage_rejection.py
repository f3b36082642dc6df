"""An adaptive step whose trial stage leaves the region where the model's inertia is
positive is rejected and retried smaller, like a step with a non-finite error estimate;
only an accepted state outside it stops the run.

The model: one modal body with one mode (unit modal mass and stiffness) on a pin about z,
its inertia about the pin lowered by the mode as I(eta) = 1 - c eta^2 (an M2 term, as the
foreshortening of a stiffened beam gives). Released at eta = A with the pin at rest, the
pin stays at rest and eta = A cos t exactly, while I(eta) > 0 only for |eta| < 1/sqrt(c),
set 0.01-0.1 % above A: the trajectory never leaves the region, its trial stages do.
"""
import numpy as np
import pytest

import multibody as mb

A = 0.1


def _oscillator(margin):
    m = mb.Multibody()
    M2 = np.zeros((1, 1, 6, 6))
    M2[0, 0, 2, 2] = -1.0 / (margin * A) ** 2
    b = m.add_modal_body("b", 1, mass=1.0, inertia=np.eye(3), stiffness=1.0, M1=np.zeros((1, 6, 7)), M2=M2)
    m.add_hinge("world", "b", "pin", axis=(0, 0, 1))
    q0 = np.zeros(m.nq)
    q0[m.modal_slice(b)] = A
    return m, q0


@pytest.mark.parametrize("margin, rtol", [(1.0001, 1e-3), (1.001, 1e-5)])
def test_a_singular_trial_stage_rejects_the_step(margin, rtol):
    m, q0 = _oscillator(margin)
    q = q0.copy()
    q[1] = 1.01 * margin * A
    with pytest.raises(ValueError, match="singular"):  # the region's edge is where said
        m.forward_dynamics(q, np.zeros(m.nu), np.zeros(m.nu))
    res = mb.simulate(m, q0, np.zeros(m.nu), 20.0, dt=10.0, integrator="dopri5", rtol=rtol, atol=1e-6)
    assert res.t[-1] == 20.0 and res.n_rejected > 0  # (before: stopped at t = 3.06 s)
    assert np.abs(res.q[:, 1] - A * np.cos(res.t)).max() < 100 * rtol * A
    assert np.all(res.q[:, 0] == 0.0)


def test_an_accepted_state_outside_still_stops_the_run():
    """With rtol = 1e-2 an accepted step overshoots the turning point past the edge: that
    state is the run's, so it stops there and says why."""
    m, q0 = _oscillator(1.0001)
    with pytest.raises(mb.SimulationError, match="singular.*foreshortening"):
        mb.simulate(m, q0, np.zeros(m.nu), 20.0, dt=10.0, integrator="dopri5", rtol=1e-2, atol=1e-6)
