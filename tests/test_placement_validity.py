"""The link placements a data buffer holds say which state they belong to (issue 20, item 4;
``kernels/placements.py``): detection (``m.contacts``, the contact loop) keeps the
placements of a Data only when the data records them as its q's world placements, so what
ran before on that Data (M^-1, which uses W_RW/W_PW as scratch; a mass matrix at another q)
cannot change its contacts. Each result is compared with the same call on a fresh Data
and with the contacts the kinematics put where ``body_pose`` says (a sphere beside a wall).
"""
import numpy as np
import pytest

import multibody as mb
from multibody.kernels import layout as L


def chain_by_a_wall():
    """Three rods on pins (add_serial_chain; the first one turned by q[0], so the tree's root frame is
    not the world's), a sphere on each, a wall at x in [0.82, 0.92]."""
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    for b in m.body_names:
        m.add_collision(b, mb.Sphere(0.05), name=f"{b}/s")
    m.add_collision("world", mb.Box((0.1, 2.0, 2.0)), pose=_at(0.87, 0.0, 0.0), name="wall")
    return m


def _at(x, y, z):
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


Q1 = np.array([0.3, -0.5, 0.8])   # one sphere against the wall
Q2 = np.array([1.4, 0.9, -0.7])


def same(a, b):
    return (a.shapes == b.shapes and np.array_equal(a.points, b.points)
            and np.array_equal(a.distances, b.distances) and np.array_equal(a.normals, b.normals))


def test_the_contacts_are_those_the_kinematics_put_there():
    m = chain_by_a_wall()
    c = m.contacts(Q1, data=m.create_data())
    x = m.body_pose(Q1, "l1")[0, 3]
    assert len(c) == 1 and c.shapes[0] == ("l1/s", "wall")
    assert c.distances[0] == pytest.approx((0.82 - x) - 0.05 if x < 0.87 else (x - 0.92) - 0.05, abs=1e-14)


def test_inverse_mass_matrix_between_two_detections_changes_nothing():
    m = chain_by_a_wall()
    d = m.create_data()
    first = m.contacts(Q1, data=d)
    m.inverse_mass_matrix(Q1, data=d)  # W_RW/W_PW: each link in its tree's root frame
    assert same(m.contacts(Q1, data=d), first)
    assert same(first, m.contacts(Q1, data=m.create_data()))


@pytest.mark.parametrize("other", ["mass_matrix", "forward_dynamics", "body_pose", "kinetic_energy"])
def test_another_algorithm_at_another_q_between_two_detections_changes_nothing(other):
    m = chain_by_a_wall()
    d = m.create_data()
    first = m.contacts(Q1, data=d)
    u = np.array([0.4, -0.2, 0.9])
    {"mass_matrix": lambda: m.mass_matrix(Q2, data=d),
     "forward_dynamics": lambda: m.forward_dynamics(Q2, u, u, data=d),
     "body_pose": lambda: m.body_pose(Q2, "l2", data=d),
     "kinetic_energy": lambda: m.kinetic_energy(Q2, u, data=d)}[other]()
    assert same(m.contacts(Q1, data=d), first)


def test_detection_at_another_q_on_the_same_data_is_that_q_s():
    m = chain_by_a_wall()
    d = m.create_data()
    m.contacts(Q1, data=d)
    assert same(m.contacts(Q2, data=d), m.contacts(Q2, data=m.create_data()))
    q = Q1.copy()
    q[2] = np.nextafter(q[2], 1.0)  # one bit of one coordinate is another state
    assert same(m.contacts(q, data=d), m.contacts(q, data=m.create_data()))


def test_placements_recorded_as_q_s_are_kept():
    """The record is trusted (what makes the tests above able to fail): placements moved
    10 m away behind the record's back are read as they are."""
    m = chain_by_a_wall()
    d = m.create_data()
    assert len(m.contacts(Q1, data=d)) == 1
    d0 = m.compiled.buf.shape[0]
    ws = d.buf[d0 + 1:d0 + 1 + m.compiled.n_links]
    assert np.all(ws[:, L.W_PLACED] == 1.0)
    ws[:, L.W_PW] += 10.0
    assert len(m.contacts(Q1, data=d)) == 0
    m.inverse_mass_matrix(Q1, data=d)
    assert np.all(ws[:, L.W_PLACED] == 0.0)
    assert len(m.contacts(Q1, data=d)) == 1
