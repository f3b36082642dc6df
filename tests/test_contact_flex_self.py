"""Self-collision of a modal (flexible) body (``m.enable_self_collision``, issue 21): shapes
pinned to two nodes of one body touch when its deformation brings them together.

The scene has a closed form: "tongs", a modal body locked to the world with two modes
(unit modal mass, stiffness K each, damped), the upper jaw's node moving down by eta_1 and
the lower jaw's up by eta_2, a sphere of radius R on each, GAP apart. Gravity loads each
mode with f = 9.81 N (S = (0, 0, -1) kg m per unit eta), which would close 2 f / K = 98 mm,
more than the gap: the jaws meet, and at rest eta_1 = eta_2 = GAP / 2 with a contact force
f - K GAP / 2 = 3.81 N on each. With self-collision off the spheres pass through each other
to eta = f / K.
"""
import numpy as np
import pytest

import multibody as mb
from multibody.io.model_file import dumps_model, loads_model

K, C, R, GAP, F = 200.0, 19.8, 0.02, 0.06, 9.81


def tongs(self_collision=True):
    """The module docstring's model: nodes jaw_a (above) and jaw_b, spheres "a" and "b"."""
    m = mb.Multibody("tongs")
    b = m.add_modal_body("tongs", n_modes=2, mass=1.0, com=(0.0, 0.0, 0.05), inertia=np.eye(3) * 0.01,
                         modal_mass=np.eye(2), stiffness=[K, K], damping=[C, C],
                         S=[[0.0, 0.0], [0.0, 0.0], [-1.0, -1.0]], S_rot=np.zeros((3, 2)))
    m.add_hinge(None, b, "locked")
    down, up = np.zeros((6, 2)), np.zeros((6, 2))
    down[5, 0] = -1.0  # jaw_a's translation along z per unit eta_1
    up[5, 1] = 1.0     # jaw_b's per unit eta_2
    T = np.eye(4)
    T[2, 3] = 2 * R + GAP
    m.add_node("jaw_a", b, T, mode_shapes=down)
    m.add_node("jaw_b", b, np.eye(4), mode_shapes=up)
    m.add_collision(b, mb.Sphere(R), node="jaw_a", name="a", friction=0.0)
    m.add_collision(b, mb.Sphere(R), node="jaw_b", name="b", friction=0.0)
    if self_collision:
        m.enable_self_collision("tongs")
    return m


def test_jaws_meet_and_rest_with_the_closed_form_force():
    m = tongs()
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), 2.0, dt=1e-3, contact_output=True)
    np.testing.assert_allclose(res.q[-1], [GAP / 2, GAP / 2], rtol=0, atol=1e-6)
    rec = res.contacts.at(-1)
    assert [m.compiled.contact.shape_names[i] for i in rec["shapes"][0]] == ["a", "b"]
    np.testing.assert_allclose(rec["normals"][0], [0, 0, -1], atol=1e-12)  # from a (above) to b
    assert rec["forces"][0, 2] == pytest.approx(-(F - K * GAP / 2), rel=1e-6)  # on b, down: 3.81 N
    found = m.contacts(res.q[-1])
    assert len(found) == 1 and abs(found.distances[0]) < 1e-6


def test_off_by_default_the_jaws_pass_through():
    m = tongs(self_collision=False)
    assert m.self_collision_bodies == () and m.compiled.contact.allow[0, 1] == 0
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), 2.0, dt=1e-3, contact_output=True)
    np.testing.assert_allclose(res.q[-1], [F / K, F / K], rtol=1e-6)
    assert res.contacts.count[-1] == 0 and len(m.contacts(res.q[-1])) == 0  # overlapping, not touching


def test_which_pairs_self_collision_allows():
    m = tongs()
    m.add_collision("tongs", mb.Sphere(R / 2), node="jaw_a", name="a2")  # a second shape on jaw_a
    m.add_collision("tongs", mb.Box((0.1, 0.1, 0.01)), name="frame")   # one on the body frame
    names = m.compiled.contact.shape_names
    allow = m.compiled.contact.allow
    i = {n: names.index(n) for n in ("a", "b", "a2", "frame")}
    assert m.self_collision_bodies == ("tongs",)
    assert allow[i["a"], i["b"]] and allow[i["a2"], i["b"]] and allow[i["frame"], i["a"]]
    assert not allow[i["a"], i["a2"]]  # one frame: they move together
    m.exclude_collision("a", "b")
    assert not m.compiled.contact.allow[i["a"], i["b"]] and m.compiled.contact.allow[i["a2"], i["b"]]
    m.enable_self_collision("tongs", False)
    assert m.self_collision_bodies == () and not m.compiled.contact.allow.any()
    m.enable_self_collision("tongs")
    m.clear_collisions()
    assert m.self_collision_bodies == ()


def test_a_rigid_body_has_no_self_collision():
    m = mb.Multibody()
    b = m.add_body("box", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, b, "free")
    with pytest.raises(ValueError, match="enable_self_collision: body 'box' is rigid"):
        m.enable_self_collision(b)
    with pytest.raises(KeyError, match="nothing"):
        m.enable_self_collision("nothing")


def test_the_model_file_keeps_self_collision():
    m = tongs()
    text = dumps_model(m)
    assert "self_collision" in text
    back = loads_model(text)
    assert back.self_collision_bodies == ("tongs",)
    np.testing.assert_array_equal(back.compiled.contact.allow, m.compiled.contact.allow)
    bad = text.replace("self_collision: [tongs]", "self_collision: [world]")
    assert bad != text
    with pytest.raises(ValueError, match=r"self_collision\[0\]: enable_self_collision: body 'world' is rigid"):
        loads_model(bad)


def test_rollout_samples_equal_their_simulate_runs():
    """Two starts of the tongs through ``rollout`` (the flex contact loop on threads): each
    sample's trajectory is its own ``simulate`` run's, to the bit."""
    m = tongs()
    Q0 = np.array([[0.0, 0.0], [0.01, -0.005]])
    out = mb.rollout(m, Q0, np.zeros((2, m.nu)), 0.5, dt=1e-3, progress=False)
    for k in range(2):
        res = mb.simulate(m, Q0[k], np.zeros(m.nu), 0.5, dt=1e-3)
        np.testing.assert_array_equal(out.q[k], res.q)
