"""Contact together with closed loops (issue 21): the loop rows eliminated from the Moreau
step (kernels/loop_impulses.py, simulation/contact_loop.py).

* An A-frame: two legs pinned at the apex, held open by a tie rod (a pin loop: a planar loop,
  3 of its 5 rows redundant), standing on a capsule foot each on a plane. Its foot forces are
  statics (moments about a foot: the friction forces act at ground level and take no part),
  which the step must meet with its loop exact, also after a drop far from the origin.
* The four-bar swinging with a floor out of reach: the Moreau step with its loop rows
  converges to RK4's tree-augmented run at first order.
* Cassie is in tests/test_cassie_standing.py.
"""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import closed_start, four_bar  # noqa: E402  (the example's model and start)

G = 9.81
LEG, HALF_ANGLE, TIE_AT = 1.0, math.radians(25.0), 0.5    # [m], [rad], the tie's place on the legs
FOOT_RADIUS, FOOT_WIDTH = 0.02, 0.2                        # [m] the capsule feet, along y
M1, M2, MT = 3.0, 1.0, 0.5                                 # [kg] leg 1, leg 2, tie


def _rod_inertia(mass, d, length):
    """A thin rod along unit d, about its centre (plus a small isotropic part)."""
    d = np.asarray(d, float)
    return mass * length ** 2 / 12 * (np.eye(3) - np.outer(d, d)) + 1e-4 * np.eye(3)


def _at(p):
    T = np.eye(4)
    T[:3, 3] = p
    return T


def a_frame(mu=1.0):
    """(model, q at rest on the plane): leg 1 on a free hinge (its frame at the apex), leg 2
    pinned to it at the apex about y, the tie pinned to leg 1 at TIE_AT of its length and
    closed on leg 2 by a pin loop; a capsule along y at each leg's foot; the plane z = 0."""
    s, c = math.sin(HALF_ANGLE), math.cos(HALF_ANGLE)
    d1, d2 = np.array([-s, 0, -c]), np.array([s, 0, -c])
    tie = 2 * TIE_AT * LEG * s
    m = mb.Multibody("a_frame")
    m.add_body("leg1", M1, LEG / 2 * d1, _rod_inertia(M1, d1, LEG))
    m.add_body("leg2", M2, LEG / 2 * d2, _rod_inertia(M2, d2, LEG))
    m.add_body("tie", MT, (tie / 2, 0, 0), _rod_inertia(MT, (1, 0, 0), tie))
    m.add_hinge(None, "leg1", "free", name="base")
    m.add_hinge("leg1", "leg2", "pin", name="apex", axis=(0, 1, 0))
    m.add_hinge("leg1", "tie", "pin", name="tie_pin", axis=(0, 1, 0), T_parent_joint=_at(TIE_AT * LEG * d1))
    m.add_node("tie_end", "tie", _at((tie, 0, 0)))
    m.add_node("leg2_tie", "leg2", _at(TIE_AT * LEG * d2))
    m.add_loop_constraint("tie_loop", "tie_end", "leg2_tie", "pin", axis=(0, 1, 0))
    along_y = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])  # (a capsule's axis is its frame's z)
    for leg, d in (("leg1", d1), ("leg2", d2)):
        P = _at(LEG * d)
        P[:3, :3] = along_y
        m.add_collision(leg, mb.Capsule(FOOT_RADIUS, FOOT_WIDTH), P, name=f"{leg}_foot", friction=mu)
    m.add_collision(m.world, mb.Plane(), name="floor", friction=mu)
    q = m.neutral_q()
    q[m.q_slice("base").start + 5] = LEG * c + FOOT_RADIUS
    return m, q


def foot_forces_by_statics():
    """(N1, N2) [N]: the feet at x = -/+ LEG sin, the legs' centres of mass at -/+ LEG sin / 2,
    the tie's at 0; moments about foot 1 give N2, the weight gives N1."""
    n2 = G * (M1 / 4 + 3 * M2 / 4 + MT / 2)
    return G * (M1 + M2 + MT) - n2, n2


def _feet(res, k):
    """The vertical forces [N] on the two feet at record k (each foot's points summed)."""
    r = res.contacts.at(k)
    up = -r["forces"][:, 2]  # (the force on b, the floor, is -f on the foot)
    return up[r["shapes"][:, 0] == 0].sum(), up[r["shapes"][:, 0] == 1].sum()


def _loop_speed(m, res):
    return max(np.abs(m.constraint_jacobian(q) @ u).max() for q, u in zip(res.q, res.u))


@pytest.fixture(scope="module")
def frame():
    return a_frame()


def test_a_frame_at_rest_carries_its_weight_by_statics_with_its_loop_exact(frame):
    m, q = frame
    res = mb.simulate(m, q, np.zeros(m.nu), 0.5, dt=1e-3, contact_output=True)
    assert res.status == "finished" and res.integrator == "moreau"
    n1, n2 = _feet(res, len(res.t) - 2)
    e1, e2 = foot_forces_by_statics()
    assert n1 == pytest.approx(e1, rel=1e-6) and n2 == pytest.approx(e2, rel=1e-6)
    assert abs(n1 - n2) > 9.0  # (asymmetric: a wrong moment arm would show)
    assert max(np.abs(m.pose_error(x, "residual")).max() for x in res.q) < 1e-12
    assert _loop_speed(m, res) < 1e-12
    z = res.q[:, m.q_slice("base").start + 5]
    assert np.abs(z - q[m.q_slice("base").start + 5]).max() < 1e-8  # (the compliance: nanometres)


def test_a_frame_dropped_far_from_the_origin_lands_and_rests_with_its_loop_exact(frame):
    m, q = frame
    base = m.q_slice("base").start
    q0 = q.copy()
    q0[base + 3:base + 6] += (1000.0, -2000.0, 0.02)  # 2 cm above the floor, 2.2 km out
    res = mb.simulate(m, q0, np.zeros(m.nu), 1.5, dt=1e-3, contact_output=True)
    assert res.status == "finished"
    n1, n2 = _feet(res, len(res.t) - 2)
    e1, e2 = foot_forces_by_statics()
    assert n1 == pytest.approx(e1, rel=1e-6) and n2 == pytest.approx(e2, rel=1e-6)
    assert max(np.abs(m.pose_error(x, "residual")).max() for x in res.q) < 1e-12  # through the impact
    assert _loop_speed(m, res) < 1e-10
    assert abs(res.q[-1, base + 5] - q[base + 5]) < 1e-8 and np.abs(res.u[-1]).max() < 1e-8


def test_four_bar_under_moreau_converges_to_the_tree_augmented_run_at_first_order():
    m = four_bar()
    m.add_collision(m.world, mb.Plane(), _at((0, 0, -10.0)), name="floor")  # out of reach: no contact
    q, u = closed_start(m)
    ref = mb.simulate(m, q, u, 0.5, dt=1e-4, contact=False)  # RK4, TA
    errors, closures, speeds = [], [], []
    for h in (1e-3, 5e-4):
        res = mb.simulate(m, q, u, 0.5, dt=h)
        assert res.integrator == "moreau"
        errors.append(np.abs(res.q[-1] - ref.q[-1]).max())
        closures.append(max(np.abs(m.pose_error(x, "residual")).max() for x in res.q))
        speeds.append(_loop_speed(m, res))
    assert 1.8 < errors[0] / errors[1] < 2.2 and errors[1] < 1e-3  # (measured 1.45e-3, 7.2e-4)
    assert 3.5 < closures[0] / closures[1] < 4.5 and closures[1] < 1e-5  # the drift: O(h^2) (1.5e-5, 3.8e-6)
    # u+ meets the rows at the step's start, Gc(q) u+ = -LOOP_RECOVERY r / h; at the sample's q+
    # the rows have turned by O(h): Gc(q+) u+ is first order (measured 6.3e-4 at h = 1e-3)
    assert 1.6 < speeds[0] / speeds[1] < 2.4 and speeds[0] < 1e-3


def test_rollout_with_contact_and_loops_is_each_sample_simulated(frame):
    m, q = frame
    Q0 = np.stack([q, q])
    Q0[1, m.q_slice("base").start + 5] += 0.01
    out = mb.rollout(m, Q0, np.zeros((2, m.nu)), 0.2, 1e-3)
    for b in range(2):
        res = mb.simulate(m, Q0[b], np.zeros(m.nu), 0.2, dt=1e-3)
        assert np.array_equal(out.q[b], res.q)


def test_baumgarte_gains_with_moreau_are_refused_by_name(frame):
    m, q = frame
    with pytest.raises(ValueError, match="stabilization_gains"):
        mb.simulate(m, q, np.zeros(m.nu), 0.01, dt=1e-3, stabilization_gains=(100.0, 20.0))


def test_sampled_control_torque_inside_the_closed_frame_leaves_the_foot_forces_as_statics(frame):
    """A torque at the apex hinge acts inside the loop the tie closes: an internal load,
    which moves no foot force (``control_period`` with "moreau": once per period, held)."""
    m, q = frame
    apex = m.u_slice("apex").start
    calls = []

    def squeeze(t, q, u, tau):
        calls.append(t)
        tau[:] = 0.0
        tau[apex] = 5.0  # [N m]

    res = mb.simulate(m, q, np.zeros(m.nu), 0.3, dt=1e-3, control=squeeze, control_period=0.01,
                      contact_output=True)
    assert res.status == "finished" and len(calls) == 30
    assert np.abs(res.u).max() < 1e-8  # the tie holds the 5 N m (an open frame would fold)
    n1, n2 = _feet(res, len(res.t) - 2)
    e1, e2 = foot_forces_by_statics()
    assert n1 == pytest.approx(e1, rel=1e-6) and n2 == pytest.approx(e2, rel=1e-6)
    assert max(np.abs(m.pose_error(x, "residual")).max() for x in res.q) < 1e-12
