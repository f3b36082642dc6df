"""``m.contacts(q)`` (issue 21): the kinematics pass and the compiled detection on a model's
collision shapes, checked against the body poses the kinematics report and closed forms."""
import numpy as np
import pytest

import multibody as mb


def _at(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def _box_on_floor(shift=(0.0, 0.0, 0.0)):
    m = mb.Multibody()
    m.add_body("base", mass=1.0)
    m.add_hinge("world", "base", kind="free", T_parent_joint=_at(*shift))
    m.add_collision("world", mb.Plane(), pose=_at(*shift), name="floor", friction=0.3)
    m.add_collision("base", mb.Box((0.2, 0.2, 0.2)), name="box", friction=0.7, restitution=0.2)
    return m


def test_a_box_on_the_floor_touches_at_its_four_bottom_corners():
    m = _box_on_floor()
    q = np.zeros(m.nq)
    q[2] = 0.3  # a turn about z (the rotation's coordinates come first)
    q[5] = 0.099
    T = m.body_pose(q, "base")
    c = m.contacts(q)
    assert len(c) == 4
    assert c.shapes == [("floor", "box")] * 4 and c.bodies == [("world", "base")] * 4
    corners = [T[:3, :3] @ [sx, sy, -0.1] + T[:3, 3] for sx in (-0.1, 0.1) for sy in (-0.1, 0.1)]
    for p, d in zip(c.points, c.distances):
        k = int(np.argmin([np.linalg.norm(p[:2] - x[:2]) for x in corners]))
        assert d == pytest.approx(corners[k][2], abs=1e-15)
        np.testing.assert_allclose(p, corners[k] - [0, 0, d / 2], atol=1e-15)
    np.testing.assert_allclose(c.normals, [[0, 0, 1]] * 4)
    np.testing.assert_allclose(np.einsum("ki,kti->kt", c.normals, c.tangents), 0, atol=1e-15)
    np.testing.assert_allclose(c.friction, 0.7)
    np.testing.assert_allclose(c.restitution, 0.2)
    assert "floor - box" in repr(c)


def test_lifted_box_has_no_contact_and_a_shifted_scene_the_same_ones():
    m = _box_on_floor()
    q = np.zeros(m.nq)
    q[5] = 0.2
    assert len(m.contacts(q)) == 0
    q[0], q[5] = 0.2, 0.1
    base = m.contacts(q)
    far = _box_on_floor((1e5, -1e5, 1e5)).contacts(q)
    assert len(base) == len(far) == 2  # tilted about x: an edge down
    np.testing.assert_allclose(far.points - [1e5, -1e5, 1e5], base.points, atol=1e-9)
    np.testing.assert_allclose(far.distances, base.distances, atol=1e-9)


def test_a_chain_of_spheres_meets_a_wall_where_the_kinematics_put_it():
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    for b in m.body_names:
        m.add_collision(b, mb.Sphere(0.05), name=f"{b}/s")
    m.add_collision("world", mb.Box((0.1, 2.0, 2.0)), pose=_at(0.87, 0, 0), name="wall")  # x in [0.82, 0.92]
    q = np.array([0.3, -0.5, 0.8])

    def expected(body):  # (distance, normal from the sphere to the wall) of a sphere beside the wall
        x = m.body_pose(q, body)[0, 3]
        return ((x - 0.92) - 0.05, [-1, 0, 0]) if x > 0.87 else ((0.82 - x) - 0.05, [1, 0, 0])

    c = m.contacts(q)
    for (a, b), n, d in zip(c.shapes, c.normals, c.distances):
        assert b == "wall"
        want_d, want_n = expected(a.split("/")[0])
        assert d == pytest.approx(want_d, abs=1e-14)
        np.testing.assert_allclose(n, want_n, atol=1e-15)
    assert len(c) == sum(expected(b)[0] <= 0 for b in m.body_names) == 1


def test_no_shapes_no_contacts_and_bad_q_is_named():
    m = mb.Multibody()
    m.add_serial_chain("l", 2)
    assert len(m.contacts(np.zeros(2))) == 0
    m.add_collision("l0", mb.Sphere(0.1))
    with pytest.raises(ValueError, match="q"):
        m.contacts(np.zeros(3))
    with pytest.raises(ValueError, match="q"):
        m.contacts([np.nan, 0.0])
