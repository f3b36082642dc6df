"""Model constants vs per-call data: Data objects, per-thread defaults, concurrent calls."""
import sys
import threading

import numpy as np
import pytest

import multibody as mb
from robots import ROBOTS, robot_urdf, robots_dir


def talos_or_tree():
    if robots_dir() is not None:
        return mb.load_urdf(robot_urdf("talos"), floating_base=True), "left_sole_link"
    m = mb.Multibody()
    m.add_tree("t", 3, 2, 3, kind="spherical")
    return m, m.body_names[-1]


def test_four_threads_give_the_sequential_results_exactly():
    # switch threads often, so that shared per-call state would show: with one Data
    # shared by the four threads (data=...), this check fails within a few hundred calls
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        _four_threads()
    finally:
        sys.setswitchinterval(old)


def _four_threads():
    m, frame = talos_or_tree()
    rng = np.random.default_rng(0)
    states = [(m.random_q(rng), rng.normal(size=m.nu), rng.normal(size=m.nu)) for _ in range(4)]
    expected = [(m.forward_dynamics(q, u, t), m.mass_matrix(q), m.body_jacobian(q, frame),
                 m.inverse_dynamics(q, u, t, f_ext={frame: np.arange(6.0)}))
                for q, u, t in states]
    results = [None] * 4
    start = threading.Barrier(4)

    def work(i):
        q, u, t = states[i]
        start.wait()
        out = []
        for _ in range(300):  # interleave many calls with the other threads
            out = [m.forward_dynamics(q, u, t), m.mass_matrix(q), m.body_jacobian(q, frame),
                   m.inverse_dynamics(q, u, t, f_ext={frame: np.arange(6.0)})]
            for a, b in zip(out, expected[i]):
                if not np.array_equal(a, b):
                    results[i] = out
                    return
        results[i] = out

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        for a, b in zip(results[i], expected[i]):
            assert np.array_equal(a, b)


def test_data_objects_hold_the_state_of_a_call():
    m = mb.Multibody()
    m.add_serial_chain("l", 4, kind="spherical")
    q = m.random_q(1)
    u = np.ones(m.nu)
    d1, d2 = m.create_data(), m.create_data()
    a = m.forward_dynamics(q, u, np.zeros(m.nu))
    assert np.array_equal(m.forward_dynamics(q, u, np.zeros(m.nu), data=d1), a)
    assert np.array_equal(m.mass_matrix(q, data=d2), m.mass_matrix(q))
    assert np.array_equal(m.inverse_mass_matrix(q, data=d1), m.inverse_mass_matrix(q))
    c = m.compiled
    assert d1.z.size >= c.zsize and d1.ws.shape[0] == c.n_links
    # chart offsets are data state: sanitizing one data leaves another untouched
    q_big = np.full(m.nq, 1.2)
    q1 = q_big.copy()
    assert m.sanitize(q1, data=d1)
    assert np.array_equal(d2.chart_offsets, m.create_data().chart_offsets)
    assert not np.array_equal(d1.chart_offsets, d2.chart_offsets)
    assert np.allclose(m.body_pose(q1, "l3", data=d1), m.body_pose(q_big, "l3", data=d2), atol=1e-12)


def test_data_of_another_model_or_an_older_compile_is_refused():
    m = mb.Multibody()
    m.add_serial_chain("l", 2)
    other = mb.Multibody()
    other.add_serial_chain("l", 2)
    q = np.zeros(2)
    with pytest.raises(ValueError, match="another"):
        m.mass_matrix(q, data=other.create_data())
    d = m.create_data()
    m.add_serial_chain("k", 1, parent="l1")  # recompiles on the next call
    with pytest.raises(ValueError, match="older"):
        m.forward_dynamics(np.zeros(3), np.zeros(3), np.zeros(3), data=d)


def test_model_buffer_is_not_written_by_the_algorithms():
    if robots_dir() is None:
        pytest.skip("example-robot-data not installed")
    m = mb.load_urdf(robot_urdf("solo12"), floating_base=ROBOTS["solo12"][1])
    c = m.compiled
    before = c.buf.copy()
    q = m.random_q(0)
    u = np.ones(m.nu)
    m.forward_dynamics(q, u, u, f_ext={"FL_FOOT": np.ones(6)})
    m.inverse_dynamics(q, u, u)
    m.mass_matrix(q)
    m.inverse_mass_matrix(q)
    m.operational_space_compliance(q, ["FL_FOOT", "HR_FOOT"])
    m.body_jacobian(q, "FL_FOOT")
    m.kinetic_energy(q, u)
    q2 = np.full(m.nq, 2.0)
    m.sanitize(q2)
    assert c.buf.tobytes() == before.tobytes()  # bit for bit (the int rows read as NaN floats)


def test_first_calls_from_several_threads_at_once():
    """The first call of each kernel compiles it once; threads starting together wait."""
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    errors = []

    def work():
        try:
            m.operational_space_compliance(np.zeros(3), ["l2"])
            m.inverse_mass_matrix(np.zeros(3))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_gravity_change_reaches_every_data():
    """Gravity is a model constant; a Data keeps a copy of the constants in step."""
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    q = m.random_q(2)
    z = np.zeros(3)
    d = m.create_data()
    g0 = m.gravity_forces(q, data=d)
    m.gravity = (0.0, 0.0, -2 * 9.81)
    assert np.allclose(m.gravity_forces(q, data=d), 2 * g0, rtol=1e-12, atol=1e-12)
    assert np.allclose(m.gravity_forces(q), 2 * g0, rtol=1e-12, atol=1e-12)
    assert np.allclose(m.forward_dynamics(q, z, z, data=d), m.forward_dynamics(q, z, z), rtol=0, atol=0)


def test_zero_quaternion_and_complex_input_are_named():
    m = mb.Multibody()
    b = m.add_body("b", mass=1.0, inertia=np.eye(3) * 0.1)
    m.add_hinge(None, b, "free_quat", name="root")
    z = np.zeros(6)
    q0 = np.zeros(7)
    for call in (lambda: m.forward_dynamics(q0, z, z), lambda: m.inverse_dynamics(q0, z, z),
                 lambda: m.mass_matrix(q0), lambda: m.inverse_mass_matrix(q0),
                 lambda: m.body_pose(q0, "b"), lambda: m.body_jacobian(q0, "b"),
                 lambda: m.kinetic_energy(q0, z), lambda: m.operational_space_compliance(q0, ["b"])):
        with pytest.raises(ValueError, match=r"q\[0:4\] is a zero quaternion .*hinge 'root'"):
            call()
    with pytest.raises(ValueError, match="q must be real"):
        m.forward_dynamics(m.neutral_q().astype(complex), z, z)


def test_inertia_violating_the_triangle_inequality_warns():
    m = mb.Multibody()
    with pytest.warns(UserWarning, match="'thin'.*triangle inequality"):
        m.add_body("thin", mass=1.0, inertia=np.diag([1.0, 1.0, 5.0]))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.add_body("rod", mass=1.0, inertia=np.diag([1e-9, 1.0, 1.0]))  # a thin rod is fine


def test_a_model_pickles_with_its_charts_and_rebuilds_its_constants():
    import pickle
    m = mb.Multibody()
    m.add_serial_chain("l", 3, kind="spherical")
    q = np.full(m.nq, 2.0)
    m.sanitize(q)  # charts moved: they travel with the model objects
    u = np.ones(m.nu)
    m2 = pickle.loads(pickle.dumps(m))
    assert "compiled" not in pickle.loads(pickle.dumps(m)).__dict__
    assert m2.compiled.buf.tobytes() == m.compiled.buf.tobytes()
    assert np.array_equal(m2.forward_dynamics(q, u, u), m.forward_dynamics(q, u, u))


def test_a_non_unit_quaternion_is_refused_not_normalised():
    m = mb.Multibody()
    b = m.add_body("b", mass=1.0, inertia=np.eye(3) * 0.1)
    m.add_hinge(None, b, "free_quat", name="root")
    z = np.zeros(6)
    q = np.r_[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0]
    for call in (lambda: m.forward_dynamics(q, z, z), lambda: m.mass_matrix(q),
                 lambda: m.body_pose(q, "b"), lambda: m.forward_dynamics(np.array([q, q]), np.zeros((2, 6)), np.zeros((2, 6)))):
        with pytest.raises(ValueError, match=r"q\[0:4\] is not a unit quaternion \(norm 2; .*'root'\): normalise"):
            call()
    q[3] = 1.0 + 1e-8  # within 1e-6: accepted as unit
    m.forward_dynamics(q, z, z)
