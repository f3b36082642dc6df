"""Bad input gets a clear error naming the argument (and the hinge that owns the entry),
never a raw Numba TypeError, a bare ZeroDivisionError or a silent inf/NaN (issue 18):

* read-only arrays (q.setflags(write=False), views of a read-only buffer) are inputs like
  any other: the result is the writeable copy's, single and stacked states, ``simulate``
  and ``rollout`` included, and no kernel is compiled again for them;
* a zero quaternion in q is no rotation: refused by every function that reads q's
  rotations, naming q (q0, Q0) and the hinge; a non-finite one names its hinge too;
* finite arguments whose result overflows raise "overflow: ... too large" naming the
  largest entry (the kernels' OVERFLOW status; Python-side results checked alike).
"""
import numpy as np
import pytest

import multibody as mb
from multibody.kernels import batch as KB
from multibody.kernels import flex_entry

Y = (0.0, 1.0, 0.0)


def quat_chain():
    """A free_quat root 'root' (q[0:7]), a spherical_quat 'ball' (q[7:11]) and a pin 'elbow'."""
    m = mb.Multibody()
    parent = None
    for name, kind in (("b", "free_quat"), ("c", "spherical_quat"), ("d", "pin")):
        body = m.add_body(name, mass=1.0, inertia=np.eye(3) * 0.1, com=[0.1, 0, 0])
        m.add_hinge(parent, body, kind, name={"b": "root", "c": "ball", "d": "elbow"}[name], axis=(0, 0, 1))
        parent = body
    return m


def state(m, seed=0):
    rng = np.random.default_rng(seed)
    return m.random_q(seed), rng.normal(size=m.nu), rng.normal(size=m.nu)


def read_only(x):
    x = np.array(x, dtype=float)
    x.setflags(write=False)
    return x


#: every single-state facade function that takes q (u, and a third u-sized vector x)
CALLS = {
    "forward_dynamics": lambda m, q, u, x: m.forward_dynamics(q, u, x),
    "inverse_dynamics": lambda m, q, u, x: m.inverse_dynamics(q, u, x),
    "mass_matrix": lambda m, q, u, x: m.mass_matrix(q),
    "inverse_mass_matrix": lambda m, q, u, x: m.inverse_mass_matrix(q),
    "bias_forces": lambda m, q, u, x: m.bias_forces(q, u),
    "gravity_forces": lambda m, q, u, x: m.gravity_forces(q),
    "operational_space_compliance": lambda m, q, u, x: m.operational_space_compliance(q, ["d"]),
    "body_pose": lambda m, q, u, x: m.body_pose(q, "d"),
    "body_jacobian": lambda m, q, u, x: m.body_jacobian(q, "d"),
    "body_jacobian_world": lambda m, q, u, x: m.body_jacobian(q, "d", "world"),
    "body_velocity": lambda m, q, u, x: m.body_velocity(q, u, "d"),
    "body_acceleration": lambda m, q, u, x: m.body_acceleration(q, u, x, "d", kind="classical"),
    "u_from_qdot_matrix": lambda m, q, u, x: m.u_from_qdot_matrix(q),
    "pose_gradient": lambda m, q, u, x: m.pose_gradient(q, "d"),
    "qdot": lambda m, q, u, x: m.qdot(q, u),
    "integrate": lambda m, q, u, x: m.integrate(q, u, 0.01),
    "global_q": lambda m, q, u, x: m.global_q(q),
    "kinetic_energy": lambda m, q, u, x: m.kinetic_energy(q, u),
    "potential_energy": lambda m, q, u, x: m.potential_energy(q),
    "center_of_mass": lambda m, q, u, x: m.center_of_mass(q),
}


@pytest.mark.parametrize("name", CALLS)
def test_read_only_inputs_give_the_results_of_writeable_copies(name):
    m = quat_chain()
    q, u, x = state(m)
    want = CALLS[name](m, q, u, x)
    np.testing.assert_array_equal(CALLS[name](m, read_only(q), read_only(u), read_only(x)), want)
    buf = read_only(np.concatenate([q, u, x]))  # views of a read-only buffer
    views = buf[:m.nq], buf[m.nq:m.nq + m.nu], buf[m.nq + m.nu:]
    np.testing.assert_array_equal(CALLS[name](m, *views), want)


def test_read_only_stacked_states_take_the_kernels_compiled_for_writeable_ones():
    from multibody.algorithms.energy import trajectory_energies
    m = quat_chain()
    rng = np.random.default_rng(1)
    Q = np.array([m.random_q(rng) for _ in range(3)])
    U, X = rng.normal(size=(3, m.nu)), rng.normal(size=(3, m.nu))
    calls = {
        "forward_dynamics": lambda Q, U, X: m.forward_dynamics(Q, U, X),
        "inverse_dynamics": lambda Q, U, X: m.inverse_dynamics(Q, U, X),
        "mass_matrix": lambda Q, U, X: m.mass_matrix(Q),
        "inverse_mass_matrix": lambda Q, U, X: m.inverse_mass_matrix(Q),
        "body_pose": lambda Q, U, X: m.body_pose(Q, "d"),
        "body_jacobian": lambda Q, U, X: m.body_jacobian(Q, "d"),
        "kinetic_energy": lambda Q, U, X: m.kinetic_energy(Q, U),
        "potential_energy": lambda Q, U, X: m.potential_energy(Q),
        "center_of_mass": lambda Q, U, X: m.center_of_mass(Q),
        "integrate": lambda Q, U, X: m.integrate(Q, U, 0.01),
        "trajectory_energies": lambda Q, U, X: np.array(trajectory_energies(m, Q, U)),
    }
    for name, call in calls.items():
        want = call(Q, U, X)
        compiled = {k: len(getattr(KB, k).signatures) for k in dir(KB) if k.endswith("_batch") and k[0] != "_"}
        np.testing.assert_array_equal(call(read_only(Q), read_only(U), read_only(X)), want, err_msg=name)
        assert {k: len(getattr(KB, k).signatures) for k in compiled} == compiled, name


def test_read_only_initial_states_of_simulate_and_rollout():
    from multibody.simulation import rollout_kernels
    m = quat_chain()
    q, u, tau = state(m, 2)
    want = mb.simulate(m, q, u, 0.02, dt=0.01, tau=tau)
    got = mb.simulate(m, read_only(q), read_only(u), 0.02, dt=0.01, tau=read_only(tau))
    np.testing.assert_array_equal(got.q, want.q)
    Q, U, TAU = np.array([q, q]), np.array([u, -u]), np.array([tau, tau])
    want = mb.rollout(m, Q, U, 0.02, dt=0.01, tau=TAU, progress=False)
    compiled = len(rollout_kernels.rollout_entry(0, False, False).signatures)
    got = mb.rollout(m, read_only(Q), read_only(U), 0.02, dt=0.01, tau=read_only(TAU), progress=False)
    np.testing.assert_array_equal(got.q, want.q)
    assert len(rollout_kernels.rollout_entry(0, False, False).signatures) == compiled  # no read-only variant of the loop


def flex_four_bar():
    """The flexible four-bar (a modal coupler, a pin loop): constrained dynamics on flex models."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent.parent / "examples"))
    from flexible_four_bar import flexible_four_bar
    return flexible_four_bar()


def test_read_only_state_of_a_flex_model_with_a_loop():
    m, q = flex_four_bar()
    u, tau = np.full(m.nu, 0.1), np.zeros(m.nu)
    want = m.constrained_dynamics(q, u, tau)
    before = len(flex_entry.constrained_forward_dynamics_flex.signatures)
    got = m.constrained_dynamics(read_only(q), read_only(u), read_only(tau))
    np.testing.assert_array_equal(got.udot, want.udot)
    assert len(flex_entry.constrained_forward_dynamics_flex.signatures) == before  # no read-only variant compiled
    np.testing.assert_array_equal(m.pose_error(read_only(q)), m.pose_error(q))


# ---------------------------------------------------------------- quaternions
@pytest.mark.parametrize("i0,hinge", [(0, "root"), (7, "ball")])
@pytest.mark.parametrize("name", [k for k in CALLS if k != "global_q"])  # (global_q reads charts only)
def test_a_zero_quaternion_is_named_with_its_hinge(name, i0, hinge):
    m = quat_chain()
    q, u, x = state(m)
    q[i0:i0 + 4] = 0.0
    message = rf"^q\[{i0}:{i0 + 4}\] is a zero quaternion \(it belongs to hinge '{hinge}'\)"
    with pytest.raises(ValueError, match=message):
        CALLS[name](m, q, u, x)


def test_a_zero_quaternion_in_the_initial_state_of_simulate_and_rollout():
    m = quat_chain()
    q, u, _ = state(m)
    q[7:11] = 0.0
    for integrator in ("rk4", "munthe_kaas"):
        with pytest.raises(ValueError, match=r"^q0\[7:11\] is a zero quaternion \(it belongs to hinge 'ball'\)"):
            mb.simulate(m, q, u, 0.01, integrator=integrator)
    Q = np.array([m.random_q(1), q])
    with pytest.raises(ValueError, match=r"^sample 1: Q0\[7:11\] is a zero quaternion \(it belongs to hinge 'ball'\)"):
        mb.rollout(m, Q, np.zeros((2, m.nu)), 0.01, progress=False)


@pytest.mark.parametrize("name", CALLS)
def test_a_non_finite_quaternion_names_its_hinge(name):
    m = quat_chain()
    q, u, x = state(m)
    q[8] = np.nan
    with pytest.raises(ValueError, match=r"^q\[8\] is not finite \(nan\); it belongs to hinge 'ball'"):
        CALLS[name](m, q, u, x)


def test_qdot_and_integrate_refuse_a_non_unit_quaternion_as_the_dynamics_do():
    m = quat_chain()
    q, u, _ = state(m)
    q[7:11] *= 2.0
    for call in (lambda: m.qdot(q, u), lambda: m.integrate(q, u), lambda: m.forward_dynamics(q, u, u)):
        with pytest.raises(ValueError, match=r"q\[7:11\] is not a unit quaternion \(norm 2; .*'ball'\): normalise"):
            call()


# ---------------------------------------------------------------- overflow
OVERFLOWS = [  # (call, which argument is made huge, its entries, the message's argument names)
    ("forward_dynamics", "u", 1e200, "q/u/tau"),
    ("inverse_dynamics", "u", 1e200, "q/u/udot"),
    ("bias_forces", "u", 1e200, "q/u/udot"),
    ("body_acceleration", "u", 1e200, "q/u/udot"),
    ("integrate", "u", 1e200, "q/u/dt"),
    ("kinetic_energy", "u", 1e200, "q/u"),
]


@pytest.mark.parametrize("name,arg,size,names", OVERFLOWS)
def test_finite_arguments_whose_result_overflows_are_named(name, arg, size, names):
    m = quat_chain()
    q, u, x = state(m)
    if arg == "u":
        u = u * size
        where = rf"u\[{np.argmax(np.abs(u))}\] = [\d.]+e\+\d+; it belongs to hinge"
    else:
        q[4:7] = size  # the root's position
        where = r"q\[4\] = 1e\+200; it belongs to hinge 'root'"
    with pytest.raises(ValueError, match=rf"^overflow: {names} too large: .*\(largest entry {where}"):
        CALLS[name](m, q, u, x)


def test_the_mass_matrix_and_compliance_of_a_root_1e200_m_away_are_those_at_the_origin():
    # (they overflowed while CRBA and the compliance worked about the world origin: m p p^T)
    m = quat_chain()
    q, u, x = state(m)
    far = q.copy()
    far[4:7] = 1e200  # the root's position
    assert np.array_equal(m.mass_matrix(far), m.mass_matrix(q))
    frames = m.body_names[-1:]
    assert np.array_equal(m.operational_space_compliance(far, frames), m.operational_space_compliance(q, frames))


def test_a_velocity_is_not_refused_for_the_overflow_of_its_unused_acceleration():
    m = quat_chain()
    q, u, x = state(m)
    assert np.isfinite(m.body_velocity(q, 1e160 * u, "d")).all()  # its velocity products overflow
    with pytest.raises(ValueError, match="^overflow: q/u/udot too large"):
        m.body_acceleration(q, 1e160 * u, x, "d")


def test_overflow_of_a_stacked_sample_names_the_sample():
    from multibody.algorithms.energy import trajectory_energies
    m = quat_chain()
    rng = np.random.default_rng(3)
    Q = np.array([m.random_q(rng) for _ in range(3)])
    U = rng.normal(size=(3, m.nu))
    U[1] *= 1e200
    for call in (lambda: m.forward_dynamics(Q, U, U), lambda: m.kinetic_energy(Q, U),
                 lambda: m.integrate(Q, U), lambda: trajectory_energies(m, Q, U)):
        with pytest.raises(ValueError, match=r"^sample 1: overflow: q/u(/tau)? too large"):
            call()


def rigid_four_bar():
    """Crank, coupler, rocker on pins about y, closed by a pin loop."""
    m = mb.Multibody()
    rows = (("crank", None, 0.3, 0.0), ("coupler", "crank_tip", 1.0, 0.0), ("rocker", None, 0.8, 1.0))
    for name, parent, length, x in rows:
        body = m.add_body(name, mass=0.5, com=(length / 2, 0, 0), inertia=np.diag([1e-4, 0.01, 0.01]))
        T = np.eye(4)
        T[0, 3] = x
        m.add_hinge(parent, body, "pin", axis=Y, T_parent_joint=T)
        T = np.eye(4)
        T[0, 3] = length
        m.add_node(f"{name}_tip", body, T)
    m.add_loop_constraint("closure", "coupler_tip", "rocker_tip", "pin", axis=Y)
    return m


def test_overflow_in_the_constraint_functions_and_on_flex_models():
    m = rigid_four_bar()
    q, u = np.array([-1.2, 1.0, -1.0]), np.ones(3)
    m.constraint_bias(q, u)
    for call in (lambda: m.constraint_bias(q, 1e200 * u), lambda: m.constrained_dynamics(q, 1e200 * u, u),
                 lambda: m.forward_dynamics(q, 1e200 * u, u)):
        with pytest.raises(ValueError, match=r"^overflow: q/u(/tau)? too large"):
            call()
    m, q = flex_four_bar()
    u = np.ones(m.nu)
    for call in (lambda: m.constrained_dynamics(q, 1e200 * u, u), lambda: m.inverse_dynamics(q, 1e200 * u, u),
                 lambda: m.kinetic_energy(q, 1e200 * u), lambda: m.body_acceleration(q, 1e200 * u, u, "coupler_tip")):
        with pytest.raises(ValueError, match=r"^overflow: q/u(/tau|/udot)? too large"):
            call()
