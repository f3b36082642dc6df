"""Joint limits (issue 12 item 4): hinge properties, random_q and the configuration-space
sampler within the limits, the JointLimits force model in simulate, the warning when
limits are off, and ``multibody info``."""
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.algorithms.coordinates import q_limits
from multibody.cli import main
from multibody.simulation import simulate
from multibody.simulation.forces import JointLimits, JointLimitWarning, limit_model
from robots import robot_urdf, robots_dir

needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")


@pytest.fixture(scope="module")
def panda():
    return mb.load_urdf(robot_urdf("panda"))


def two_pins():
    m = mb.Multibody()
    m.add_serial_chain("l", 2, kind="pin", axis=(0, 1, 0), mass=1.0, length=0.3, inertia=np.diag([0.01] * 3))
    return m


def slider_model(lower=0.0, upper=None):
    """A 1 kg body on a vertical slider (gravity -z), limits on its coordinate."""
    m = mb.Multibody()
    m.add_body("b", mass=1.0, inertia=np.diag([0.1] * 3))
    h = m.add_hinge(None, "b", "slider", name="s", axis=(0, 0, 1))
    h.set_limits(lower, upper)
    return m, h


# ---------------------------------------------------------------- hinge properties
@needs_robots
def test_urdf_limits_on_the_hinges(panda):
    h = panda.hinge("panda_joint4")
    assert (h.lower, h.upper, h.effort, h.velocity) == (-3.0718, -0.0698, 87.0, 2.175)
    assert h.has_limits
    lo, hi = q_limits(panda)
    assert lo.shape == hi.shape == (panda.nq,) and lo[3] == -3.0718 and hi[8] == 0.04


def test_limits_validation_names_the_hinge():
    m = two_pins()
    h = m.hinge(m.hinge_names[0])
    assert h.lower is None and h.upper is None and not h.has_limits
    h.set_limits(-1.0, 2.0)
    assert (h.lower, h.upper) == (-1.0, 2.0)
    with pytest.raises(ValueError, match=f"hinge '{h.name}'.*lower limit 3 > upper limit 2"):
        h.lower = 3.0
    assert h.lower == -1.0
    for bad in (np.nan, -np.inf, "abc"):
        with pytest.raises(ValueError, match=f"hinge '{h.name}': upper limit"):
            h.upper = bad
    h.lower = -np.inf                                               # -inf: unbounded below
    assert h.q_limits()[0][0] == -np.inf and h.has_limits
    h.lower = -1.0
    with pytest.raises(ValueError, match="needs 1 values"):
        h.lower = (0.0, 1.0)
    with pytest.raises(ValueError, match="effort limit must be >= 0"):
        h.effort = -1.0
    h.upper = None
    assert h.q_limits()[1][0] == np.inf and h.has_limits
    m.add_body("ball", mass=1.0, inertia=np.eye(3))
    s = m.add_hinge(None, "ball", "spherical", name="sph")
    with pytest.raises(ValueError, match="hinge 'sph' \\(spherical\\) has rotation coordinates"):
        s.lower = -1.0


def test_per_coordinate_limits_of_a_planar_hinge():
    m = mb.Multibody()
    m.add_body("b", mass=1.0, inertia=np.eye(3))
    h = m.add_hinge(None, "b", "planar", name="p")
    h.set_limits((-1.0, None, -0.5), (1.0, None, 0.5))
    lo, hi = h.q_limits()
    assert np.array_equal(lo, [-1.0, -np.inf, -0.5]) and np.array_equal(hi, [1.0, np.inf, 0.5])
    assert h.limits_text().startswith("[-1, 1] m, [-inf, inf] m, [-0.5, 0.5] rad")


# ---------------------------------------------------------------- sampling
@needs_robots
def test_random_q_never_leaves_the_limits(panda):
    rng = np.random.default_rng(0)
    lo, hi = q_limits(panda)
    Q = np.array([panda.random_q(rng) for _ in range(10000)])
    assert np.all(Q >= lo) and np.all(Q <= hi)
    # uniform over the whole range: each end is reached
    assert np.all(Q.min(axis=0) - lo < 0.01 * (hi - lo)) and np.all(hi - Q.max(axis=0) < 0.01 * (hi - lo))


def test_random_q_unbounded_coordinates_unchanged():
    m = two_pins()
    q_free = m.random_q(7)
    m.hinge(m.hinge_names[1]).set_limits(0.1, 0.2)
    q = m.random_q(7)
    assert q[0] == q_free[0] and 0.1 <= q[1] <= 0.2
    m.hinge(m.hinge_names[1]).set_limits(0.5, None)  # one-sided: a 2 scale window
    Q = np.array([m.random_q(i, scale=1.0) for i in range(500)])
    assert Q[:, 1].min() >= 0.5 and Q[:, 1].max() <= 2.5 and Q[:, 1].max() > 2.0


@needs_robots
def test_configuration_space_sampler_within_limits(panda):
    S = panda.configuration_space()
    lo, hi = q_limits(panda)
    assert np.array_equal(S.lower, lo) and np.array_equal(S.upper, hi)
    rng = np.random.default_rng(1)
    Q = np.array([S.random(rng, scale=10.0) for _ in range(10000)])
    assert np.all(Q >= lo) and np.all(Q <= hi)
    sub, _, _ = S.select([7, 8])
    assert np.all(sub.upper == 0.04) and np.all(sub.random(2) <= 0.04)


def test_space_bounds_only_on_vector_coordinates():
    from multibody.planning import LiegroupSpace
    with pytest.raises(ValueError, match=r"lower\[1\] bounds a coordinate of the SO"):
        LiegroupSpace([LiegroupSpace.Rn(1), LiegroupSpace.SO3("rotvec")], lower=[0, 0, -np.inf, -np.inf])
    with pytest.raises(ValueError, match=r"lower\[0\] = 2.0 > upper\[0\] = 1.0"):
        LiegroupSpace([LiegroupSpace.Rn(1)], lower=[2.0], upper=[1.0])


# ---------------------------------------------------------------- the limit force model
def test_steady_penetration_is_load_over_stiffness():
    m, _ = slider_model(lower=0.0)
    p = JointLimits().parameters(m)
    k = p["stiffness"][0]
    assert k == pytest.approx(1.0 * (2 * np.pi * 50.0) ** 2)       # I = 1 kg, 50 Hz
    assert p["damping"][0] == pytest.approx(2 * 1.0 * 2 * np.pi * 50.0)
    r = simulate(m, [0.0], [0.0], 1.0)
    assert r.q[-1, 0] == pytest.approx(-9.81 / k, rel=1e-3)        # d = F / k
    assert abs(r.u[-1, 0]) < 1e-6


def test_impact_penetration_bound_and_no_pull():
    m, _ = slider_model(lower=0.0)
    m.gravity = (0.0, 0.0, 0.0)
    r = simulate(m, [0.01], [-1.0], 0.2, dt=1e-4)                   # hits at 1 m/s
    w = JointLimits().parameters(m)["omega"][0]
    assert 0.98 / (np.e * w) < -r.q[:, 0].min() <= 1.02 / (np.e * w)    # v / (e omega), + omega dt / 3
    assert r.u[-1, 0] >= 0 and r.q[-1, 0] >= 0                      # left the limit, no pull back


@needs_robots
def test_panda_stays_within_limits_to_the_documented_penetration(panda):
    rng = np.random.default_rng(3)
    q0, u0 = panda.random_q(rng), rng.normal(0.0, 1.0, panda.nu)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JointLimitWarning)
        r = simulate(panda, q0, u0, 5.0, contact=False)
    assert r.status == "finished"
    lo, hi = q_limits(panda)
    pen = np.maximum(lo - r.q, r.q - hi).max(axis=0)
    assert np.any(pen > 0)                                          # the limits were hit
    # documented: d <= F / k + v / omega_eff, omega_eff = sqrt(k / I(q)), over the run
    p = JointLimits(frequency=50.0).parameters(panda)
    k = p["stiffness"]
    F = np.array([np.abs(panda.bias_forces(q, u)) for q, u in zip(r.q[::5], r.u[::5])]).max(axis=0)
    inertia = np.array([1.0 / np.diag(panda.inverse_mass_matrix(q)) for q in r.q[::5]]).max(axis=0)
    tol = F / k + np.abs(r.u).max(axis=0) / np.sqrt(k / inertia)
    assert np.all(pen <= tol), (pen, tol)
    assert np.all(pen < 0.1)                                        # at most a few degrees / mm


@needs_robots
def test_limits_off_warns_with_hinge_time_and_value(panda):
    q0 = panda.neutral_q()
    q0[3], q0[5] = -1.5, 1.5
    with pytest.warns(JointLimitWarning, match=r"hinge 'panda_finger_joint1' left its position limits "
                                               r"\[0, 0.04\] at t = 0.00\d+ s: q\[7\] = -"):
        r = simulate(panda, q0, np.zeros(panda.nu), 1.0, limits=False, contact=False)
    assert abs(r.q[-1, 7]) > 1.0                                    # the finger slid away
    with warnings.catch_warnings():
        warnings.simplefilter("error", JointLimitWarning)
        r = simulate(panda, q0, np.zeros(panda.nu), 1.0, contact=False)
    assert r.q[:, 7].min() > -5e-3


def test_limits_switch_and_arguments():
    m = two_pins()
    assert limit_model(m, True, 1e-3) is None                      # no limits: nothing added
    with warnings.catch_warnings():
        warnings.simplefilter("error", JointLimitWarning)
        simulate(m, [0.5, 0.0], [0.0, 0.0], 0.01, limits=False)
    m.hinge(m.hinge_names[0]).set_limits(-0.1, 0.1)
    assert limit_model(m, True, 1e-3).frequency == 50.0
    assert limit_model(m, True, 1e-2).frequency == pytest.approx(10.0)  # 0.1 / dt for a fixed step
    assert limit_model(m, True, None).frequency == 50.0
    with pytest.raises(ValueError, match="limits must be True, False or a JointLimits"):
        simulate(m, [0.0, 0.0], [0.0, 0.0], 0.01, limits="yes")
    with pytest.raises(ValueError, match=f"hinge '{m.hinge_names[1]}' has no position limits"):
        JointLimits([m.hinge_names[1]]).parameters(m)
    with pytest.raises(ValueError, match="frequency must be > 0"):
        JointLimits(frequency=0.0)
    r = simulate(m, [0.0, 0.0], [3.0, 0.0], 0.5, limits=JointLimits(stiffness=1e4, damping=50.0),
                 integrator="dopri5")
    assert r.status == "finished" and 0.1 < r.q[:, 0].max() < 0.15    # given k, c: a soft stop


@needs_robots
def test_info_prints_the_limits(capsys):
    assert main(["info", robot_urdf("panda")]) == 0
    out = capsys.readouterr().out
    assert "limits (9 hinges; enforced by simulate):" in out
    assert "panda_joint4                   [-3.0718, -0.0698] rad, effort 87 N m, velocity 2.175 rad/s" in out
    assert "panda_finger_joint1            [0, 0.04] m, effort 100 N, velocity 0.2 m/s" in out
