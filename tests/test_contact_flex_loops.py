"""Contact on a modal body inside a closed loop (issue 21): the flexible four-bar of
examples/flexible_four_bar.py (a beam_modes coupler, the loop closed by a pin between its
tip node and the rocker) with a sphere pinned to the coupler's midspan node, released
above a floor. The contact loop's flex variant takes the loop rows from the flex
constraint kernel (frames on deforming nodes) and eliminates them from each contact step.

Measured at dt = 1 ms (2026-11-28):
* Before the landing (0.36 s) it swings as dopri5 says on the model without contact: q
  to 1.3e-3 at 0.3 s (a first-order step), the loop closed to 5.4e-5 m (the velocity-level
  drift of its 1 ms steps, LOOP_RECOVERY) and to 1e-15 m at rest.
* The sphere lands 0.44 mm deep (its speed times h / 2) and rests on the surface (1e-9 m).
* At rest (1.5 s; speeds 2e-8) it is in the mechanism's static equilibrium: the generalized
  force that holds it (inverse dynamics at rest: gravity and the modes' stiffness) is the
  floor's recorded force on the sphere, through the node's Jacobian, plus a loop force
  Gc^T lambda, to 1.1e-8 of it.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.algorithms.kernel_check import relative_error

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from flexible_four_bar import flexible_four_bar  # noqa: E402

RADIUS = 0.03
FLOOR = 0.40  # [m]: below the coupler's midspan (0.54 m at the start), above its swing's lowest (0.26 m)


def four_bar_on_floor(mu=0.5, floor=FLOOR):
    """(model, q0): the flexible four-bar (EI = 20 N m^2, modes damped 5 %) with a sphere on
    its coupler's midspan node and a floor at z = ``floor``, the loop closed at rest."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a planar loop: redundant rows)
        m, q0 = flexible_four_bar(EI=20.0, damping_ratio=0.05)
    m.add_collision("coupler", mb.Sphere(RADIUS), node="coupler_mid", friction=mu, name="foot")
    T = np.eye(4)
    T[2, 3] = floor
    m.add_collision("world", mb.Plane(), T, name="floor", friction=mu)
    return m, q0


def test_flexible_four_bar_lands_and_rests_in_its_static_equilibrium():
    m, q0 = four_bar_on_floor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (redundant planar rows)
        res = mb.simulate(m, q0, np.zeros(m.nu), 1.5, dt=1e-3, contact_output=True)
    assert res.status == "finished"
    closure = np.array([np.abs(m.pose_error(q, "residual")).max() for q in res.q])
    assert closure.max() < 1e-4 and closure[-1] < 1e-12
    ref = mb.simulate(m, q0, np.zeros(m.nu), 0.3, dt=0.1, integrator="dopri5", rtol=1e-10, atol=1e-12,
                      contact=False)
    assert relative_error(res.q[300], ref.q[-1]) < 5e-3 and res.contacts.count[300] == 0
    z = np.array([m.frame_pose(q, "coupler_mid")[2, 3] for q in res.q])
    assert z.min() > FLOOR + RADIUS - 1e-3 and z[-1] == pytest.approx(FLOOR + RADIUS, abs=1e-6)
    E = [m.kinetic_energy(q, u) + m.potential_energy(q) for q, u in zip(res.q[[0, -1]], res.u[[0, -1]])]
    assert E[1] < E[0]  # (the landing took energy)
    q, u = res.q[-1], res.u[-1]
    assert np.abs(u).max() < 1e-6
    rec = res.contacts.at(len(res.contacts) - 1)
    assert len(rec["points"]) == 1
    f = -rec["forces"][0]  # (the record's force is on b, the floor: the sphere takes its opposite)
    J = m.frame_jacobian(q, "coupler_mid", frame="world_aligned")
    lever = rec["points"][0] - m.frame_pose(q, "coupler_mid")[:3, 3]
    tau_contact = J[:3].T @ np.cross(lever, f) + J[3:].T @ f
    tau_hold = m.inverse_dynamics(q, np.zeros(m.nu), np.zeros(m.nu))
    Gc = m.constraint_jacobian(q)
    rest = tau_hold - tau_contact
    lam = np.linalg.lstsq(Gc.T, rest, rcond=None)[0]
    assert np.abs(rest - Gc.T @ lam).max() < 1e-6 * np.abs(tau_hold).max()
    assert f[2] > 1.0  # [N]: the floor carries a real share


def test_rollout_of_the_four_bar_on_the_floor_is_each_samples_simulate():
    """``mb.rollout`` runs such samples each through its own integrator on threads: each is
    its own ``simulate`` run to the bit (two crank speeds, both landing within 0.5 s)."""
    m, q0 = four_bar_on_floor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (redundant planar rows)
        U0 = np.array([m.constraint_kinematics().solve_u(q0, np.r_[w, np.zeros(m.nu - 1)], frozen=[0])
                       for w in (0.5, 2.0)])
        out = mb.rollout(m, np.array([q0, q0]), U0, 0.5, dt=1e-3, save_every=10, progress=False)
        for b in range(2):
            res = mb.simulate(m, q0, U0[b], 0.5, dt=1e-3, save_every=10)
            np.testing.assert_array_equal(out.q[b], res.q)
            np.testing.assert_array_equal(out.u[b], res.u)
    z = [m.frame_pose(q, "coupler_mid")[2, 3] for q in out.q[:, -1]]
    assert np.allclose(z, FLOOR + RADIUS, atol=1e-3)  # (both landed: not a trivial run)
