"""Height fields (``mb.Heightfield``, issue 21): terrain as a grid of heights.

* Its surface is MuJoCo's: an MJCF ``<hfield>`` loads with the heights MuJoCo's own ray
  casts find, and our field exported to MuJoCo (``mujoco_from_urdf(collisions=m)``) has ours.
* On a flat or tilted planar field, Coulomb's closed forms hold as on a plane (the scenes of
  test_contact_dynamics written with an ``<hfield>``): a thrown cube stops after
  v0^2 / (2 mu g), a cube on a 30 degree incline holds at mu = 0.7 and slides 0.75336 m in
  1 s at mu = 0.4; a ball rolls down it at 5/7 g sin 30. Also 1e5 m from the origin.
* A ball dropped into a bowl (a curved field) rests at its bottom with a total contact force
  of m g; a cube dropped on rough terrain settles without sinking.
"""
import math

import numpy as np
import pytest

import multibody as mb
from multibody.io.model_file import save_model
from multibody.kernels.collision import layout as CL
from multibody.viz._contacts import heightfield_faces, shape_visual

from contact_scenes import BALL_I, CUBE_I, G, HALF, RADIUS

SHIFTS = [(0.0, 0.0, 0.0), (1e5, -1e5, 1e5)]
TILT = math.radians(30.0)


def _elevation(heights):
    """MJCF's elevation text: MuJoCo's first row is its field's last (+y) row."""
    return " ".join(repr(float(v)) for v in heights[::-1].ravel())


def field_scene(folder, heights, lengths, body, mu, shift=(0.0, 0.0, 0.0), name="field"):
    """An MJCF scene of a height field (heights (nrow, ncol) [m]) over lengths (Lx, Ly), at
    shift, with the ``body`` element; loaded with ``mb.load_mjcf``. MuJoCo scales the
    elevation to [0, 1] and the size's third number: the geom sits at the lowest height."""
    low, span = float(heights.min()), float(np.ptp(heights)) or 1.0
    nrow, ncol = heights.shape
    x, y, z = shift
    xml = f"""<mujoco model="{name}">
  <option gravity="0 0 -{G}"/>
  <asset><hfield name="terrain" nrow="{nrow}" ncol="{ncol}" size="{lengths[0] / 2!r} {lengths[1] / 2!r} {span!r} 0.5"
    elevation="{_elevation((heights - low) / span)}"/></asset>
  <worldbody>
    <geom name="ground" type="hfield" hfield="terrain" pos="{x!r} {y!r} {z + low!r}" friction="{mu!r}"/>
    {body}
  </worldbody>
</mujoco>"""
    path = folder / f"{name}.xml"
    path.write_text(xml)
    return mb.load_mjcf(path), path


def cube(mu):
    return (f'<body name="box"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="{CUBE_I!r} {CUBE_I!r} '
            f'{CUBE_I!r}"/><geom type="box" size="{HALF} {HALF} {HALF}" friction="{mu!r}"/></body>')


def ball(mu):
    return (f'<body name="ball"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="{BALL_I!r} {BALL_I!r} '
            f'{BALL_I!r}"/><geom type="sphere" size="{RADIUS}" friction="{mu!r}"/></body>')


def incline(n=21, length=2.0):
    """Heights of a plane rising at 30 degrees along +x over [-length/2, length/2], lowest 0.1 m."""
    x = np.linspace(-0.5, 0.5, n) * length
    return np.tile(0.1 + math.tan(TILT) * (x + 0.5 * length), (n, 1))


def on_slope(shift, lift):
    """q0 of a body on the incline's middle, tilted with it, its centre lift [m] off the surface."""
    normal = np.array([-math.sin(TILT), 0.0, math.cos(TILT)])
    surface = np.array([0.0, 0.0, 0.1 + math.tan(TILT) * 1.0])
    return np.r_[0.0, -math.sin(TILT / 2), 0.0, math.cos(TILT / 2), np.asarray(shift) + surface + lift * normal]


def test_mjcf_field_has_the_heights_mujoco_casts_rays_on(tmp_path):
    import mujoco
    rng = np.random.default_rng(3)
    heights = rng.uniform(0.0, 0.3, (7, 9))
    heights -= heights.min()  # (MuJoCo's elevation starts at 0: as given, and the geom at 0)
    m, path = field_scene(tmp_path, heights, (1.6, 1.2), ball(0.5), 0.5)
    (shape,) = [s.shape for s in m.collision_shapes if s.name == "ground"]
    assert isinstance(shape, mb.Heightfield) and shape.grid_shape == (7, 9)
    assert shape.bottom == pytest.approx(-0.5)
    np.testing.assert_allclose(shape.heights, heights, atol=1e-7)  # (MuJoCo's floats)
    mm = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mm)
    d.qpos[:3] = [5.0, 5.0, 5.0]  # (the ball away)
    mujoco.mj_forward(mm, d)
    xy = rng.uniform(-1.0, 1.0, (200, 2)) * [0.8, 0.6]
    geomid = np.zeros(1, np.int32)
    theirs = [10.0 - mujoco.mj_ray(mm, d, np.r_[p, 10.0], np.array([0.0, 0.0, -1.0]), None, 1, -1, geomid)
              for p in xy]
    np.testing.assert_allclose(shape.height_at(xy[:, 0], xy[:, 1]), theirs, atol=1e-7)  # (MuJoCo's floats)
    np.testing.assert_allclose(shape.height_at([0.8, -0.8, 0.0], [0.6, -0.6, 0.0]),
                               [heights[-1, -1], heights[0, 0], heights[3, 4]], atol=1e-12)
    assert np.isnan(shape.height_at(0.81, 0.0))


def test_our_field_exported_to_mujoco_has_our_heights(tmp_path):
    import mujoco
    from multibody.interop import mujoco_from_urdf
    path = tmp_path / "ball.urdf"
    path.write_text('<robot name="b"><link name="ball"><inertial><mass value="1"/><inertia ixx="0.004" iyy="0.004" '
                    'izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>')
    m = mb.load_urdf(path)
    m.add_collision("ball", mb.Sphere(0.1))
    rng = np.random.default_rng(5)
    field = mb.Heightfield(rng.uniform(-0.2, 0.1, (6, 5)), (1.0, 2.0), bottom=-0.7)
    T = np.eye(4)
    T[:3, 3] = [0.3, -0.2, 0.05]
    m.add_collision("world", field, T)
    mm = mujoco_from_urdf(path, collisions=m)
    d = mujoco.MjData(mm)
    d.qpos[:3] = [5.0, 5.0, 5.0]  # (the ball away)
    mujoco.mj_forward(mm, d)
    xy = rng.uniform(-1.0, 1.0, (100, 2)) * [0.5, 1.0]
    geomid = np.zeros(1, np.int32)
    theirs = [10.0 - mujoco.mj_ray(mm, d, np.r_[p + T[:2, 3], 10.0], np.array([0.0, 0.0, -1.0]), None, 1, -1, geomid)
              for p in xy]
    np.testing.assert_allclose(T[2, 3] + field.height_at(xy[:, 0], xy[:, 1]), theirs, atol=1e-6)
    k = int(mm.geom_dataid[geomid[0]])
    assert mm.hfield_size[k][3] == pytest.approx(field.heights.min() + 0.7)


@pytest.mark.parametrize("shift", SHIFTS)
def test_thrown_cube_on_a_flat_field_stops_at_the_coulomb_distance(tmp_path, monkeypatch, shift):
    monkeypatch.chdir(tmp_path)
    v0, mu, dt = 2.0, 0.5, 1e-4
    m, _ = field_scene(tmp_path, np.full((21, 21), 0.2), (2.0, 2.0), cube(mu), mu, shift)
    q0 = np.r_[0.0, 0.0, 0.0, 1.0, np.asarray(shift) + [-0.3, 0.1, 0.2 + HALF]]
    res = mb.simulate(m, q0, np.r_[0, 0, 0, v0, 0, 0], 0.6, dt=dt)
    x = res.q[:, 4] - q0[4]
    t_stop = res.t[np.argmax(np.abs(res.u[:, 3]) < 1e-9)]
    assert t_stop == pytest.approx(v0 / (mu * G), rel=1e-3)
    assert x[-1] == pytest.approx(v0 ** 2 / (2 * mu * G), rel=1e-3)  # 0.40775 m
    assert np.ptp(x[res.t >= t_stop]) < 1e-9
    assert np.max(np.abs(res.q[:, 6] - shift[2] - 0.2 - HALF)) < 1e-3
    assert np.max(np.abs(res.q[:, 5] - q0[5])) < 1e-6  # (straight: no sideways push from the cells)


def cube_on_field(field, mu, shift=(0.0, 0.0, 0.0)):
    """A Multibody: the cube (a free hinge: q = rotation vector, position) over ``field`` at shift."""
    m = mb.Multibody("cube_on_field")
    T = np.eye(4)
    T[:3, 3] = shift
    m.add_collision("world", field, T, friction=mu)  # (first: the pairs' shape a)
    m.add_body("box", mass=1.0, inertia=CUBE_I * np.eye(3))
    m.add_hinge("world", "box", kind="free")
    m.add_collision("box", mb.Box((2 * HALF, 2 * HALF, 2 * HALF)), friction=mu)
    return m


@pytest.mark.parametrize("shift", SHIFTS)
def test_cube_on_an_inclined_field_holds_or_slides_as_coulomb_says(shift):
    """Built in code: the heights of an MJCF field are MuJoCo's float32 numbers, 1e-8 m off
    the plane, and four sticking corners on a field that bumpy take the solver 30 sweeps a
    step where a plane takes one (0.5 ms against 0.07 ms; the results agree)."""
    downhill = np.array([-math.cos(TILT), 0.0, -math.sin(TILT)])
    q0 = np.r_[0.0, -TILT, 0.0, on_slope(shift, HALF)[4:]]
    for mu, expected in ((0.7, 0.0), (0.4, 0.5 * G * (math.sin(TILT) - 0.4 * math.cos(TILT)))):
        m = cube_on_field(mb.Heightfield(incline(), (2.0, 2.0)), mu, shift)
        res = mb.simulate(m, q0, np.zeros(6), 1.0, dt=1e-4)
        along = (res.q[:, 3:6] - q0[3:6]) @ downhill
        if expected == 0.0:
            assert abs(along[-1]) < 1e-8  # holds (the issue asks less than 1 mm in 1 s)
        else:
            assert along[-1] == pytest.approx(expected, rel=1e-3)  # 0.75336 m
        normal = (res.q[:, 3:6] - q0[3:6]) @ [-math.sin(TILT), 0.0, math.cos(TILT)]
        assert np.max(np.abs(normal)) < 1e-3


def test_ball_rolls_down_an_inclined_field_at_five_sevenths_g_sin_theta(tmp_path, monkeypatch):
    """A sphere touches the field's prisms at points (no vertex points): rolling without
    slipping, s = 5/14 g sin 30 t^2, the same as down a tilted plane."""
    monkeypatch.chdir(tmp_path)
    m, _ = field_scene(tmp_path, incline(41), (2.0, 2.0), ball(0.8), 0.8)
    q0 = on_slope((0.0, 0.1, 0.0), RADIUS)
    res = mb.simulate(m, q0, np.zeros(6), 0.5, dt=1e-4)
    downhill = np.array([-math.cos(TILT), 0.0, -math.sin(TILT)])
    s = (res.q[:, 4:7] - q0[4:7]) @ downhill
    assert s[-1] == pytest.approx(5.0 / 14.0 * G * math.sin(TILT) * 0.25, rel=1e-3)
    normal = (res.q[:, 4:7] - q0[4:7]) @ [-math.sin(TILT), 0.0, math.cos(TILT)]
    assert np.max(np.abs(normal)) < 1e-3


def bowl(n=31, size=1.0, curvature=1.0):
    """Heights of the paraboloid z = curvature (x^2 + y^2) over a size x size square."""
    x = np.linspace(-0.5, 0.5, n) * size
    return curvature * (x[None, :] ** 2 + x[:, None] ** 2)


def test_ball_dropped_into_a_bowl_rests_at_its_bottom_with_m_g(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = mb.Multibody("bowl")
    m.add_body("ball", mass=1.0, inertia=BALL_I * np.eye(3))
    m.add_hinge("world", "ball", kind="free")
    m.add_collision("world", mb.Heightfield(bowl(), (1.0, 1.0)), friction=0.8)  # (first: the pairs' shape a)
    m.add_collision("ball", mb.Sphere(RADIUS), friction=0.8)
    q0 = np.r_[0.0, 0.0, 0.0, 0.0, 0.0, 0.3]  # (a free hinge: rotation vector, position)
    res = mb.simulate(m, q0, np.zeros(6), 4.0, dt=1e-3, contact_output=True)
    f = res.contacts.total_force()
    assert f[-1, 2] == pytest.approx(G, rel=1e-6)
    np.testing.assert_allclose(f[-1, :2], 0.0, atol=1e-6)
    assert np.hypot(res.q[-1, 3], res.q[-1, 4]) < 1e-9  # (on the grid point at the bottom)
    late = res.t >= 3.0
    assert np.ptp(res.q[late, 3:6], axis=0).max() < 1e-6
    e = sum(res.energy(m))
    assert np.max(e - e[0]) <= 1e-9


def rough_drop(shift):
    """A cube dropped on rough terrain at shift: the model, its run, and q relative to shift."""
    rng = np.random.default_rng(16)
    field = mb.Heightfield(rng.uniform(0.0, 0.03, (15, 15)), (1.4, 1.4))  # (bumps of 3 cm on 10 cm cells)
    m = cube_on_field(field, 0.8, shift)
    q0 = np.r_[0.0, 0.0, 0.0, np.asarray(shift) + [0.05, 0.02, 0.2]]
    res = mb.simulate(m, q0, np.zeros(6), 1.5, dt=1e-3, contact_output=True)
    return m, res, res.q - np.r_[np.zeros(3), shift]


def test_cube_dropped_on_rough_terrain_settles_without_sinking_anywhere():
    m, res, q = rough_drop(SHIFTS[0])
    assert np.all(np.isfinite(res.q))
    assert res.contacts.total_force()[-1, 2] == pytest.approx(G, rel=1e-6)
    late = res.t >= 1.0
    assert np.ptp(res.q[late, 3:6], axis=0).max() < 1e-9  # at rest
    depth = [m.contacts(x).distances.min(initial=0.0) for x in res.q[::20]]
    assert min(depth) > -1e-3  # never 1 mm into the terrain
    # 1e5 m away (the field's own frame keeps the digits): the bounces on the bumps amplify
    # the roundings of the far coordinates (3.7e-5 m at most, measured); the same rest
    _, far, q_far = rough_drop(SHIFTS[1])
    np.testing.assert_allclose(q_far, q, atol=1e-3)
    assert far.contacts.total_force()[-1, 2] == pytest.approx(G, rel=1e-6)
    assert np.ptp(far.q[late, 3:6], axis=0).max() < 1e-9


def test_contacts_on_a_field_and_what_it_does_not_touch():
    """Detection: a cube resting on a flat field has its four corners (normals up); a field
    does not collide with a plane or another field; outside its rectangle nothing touches."""
    m = mb.Multibody("pairs")
    m.add_body("box", mass=1.0, inertia=CUBE_I * np.eye(3))
    m.add_hinge("world", "box", kind="free")
    m.add_collision("box", mb.Box((0.1, 0.1, 0.1)))
    m.add_body("slab", mass=1.0, inertia=np.eye(3))
    m.add_hinge("world", "slab", kind="free")
    m.add_collision("slab", mb.Heightfield(np.zeros((3, 3)), (0.5, 0.5)))
    m.add_collision("world", mb.Heightfield(np.zeros((21, 21)), (2.0, 2.0)))
    m.add_collision("world", mb.Plane())
    q = m.neutral_q()
    q[3:6] = [0.0, 0.0, HALF - 1e-4]  # the cube 0.1 mm in
    q[9:12] = [0.5, 0.5, 0.0]  # the slab's field on the ground's (and the plane)
    c = m.contacts(q)
    assert {tuple(b) for b in c.bodies} == {("box", "world")}
    on_field = np.array([s[1] == "world/collision0" for s in c.shapes])
    assert np.sum(~on_field) == 4  # (the plane's: the four corners)
    corners = [[x, y, -5e-5] for x in (-HALF, HALF) for y in (-HALF, HALF)]
    for p in corners:  # the field's: the corners, and the grid point and edges under the face
        assert np.min(np.linalg.norm(c.points[on_field] - p, axis=1)) < 1e-12
    np.testing.assert_allclose(c.distances, -1e-4, atol=1e-12)
    np.testing.assert_allclose(c.normals, np.tile([0, 0, -1.0], (len(c), 1)), atol=1e-12)
    q[3:6] = [1.3, 0.0, HALF - 1e-4]  # over the plane only: past the field's edge
    c = m.contacts(q)
    assert len(c) == 4 and all(s[1] == "world/collision1" for s in c.shapes)


def test_rollout_on_a_field_equals_simulate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m, _ = field_scene(tmp_path, bowl(21), (1.0, 1.0), cube(0.6), 0.6)
    Q0 = np.array([np.r_[0.0, 0.0, 0.0, 1.0, x, 0.05, 0.35] for x in (-0.1, 0.12)])
    out = mb.rollout(m, Q0, np.zeros((2, 6)), 0.3, dt=1e-3)
    for b in range(2):
        res = mb.simulate(m, Q0[b], np.zeros(6), 0.3, dt=1e-3)
        np.testing.assert_array_equal(out.q[b], res.q)


def test_field_in_the_model_file_and_the_viewer(tmp_path):
    m = mb.Multibody("file")
    m.add_body("box", mass=1.0, inertia=CUBE_I * np.eye(3))
    m.add_hinge("world", "box", kind="free")
    m.add_collision("box", mb.Box((0.1, 0.1, 0.1)))
    field = mb.Heightfield(np.random.default_rng(2).uniform(0, 0.1, (4, 6)), (1.0, 0.6), bottom=-0.3)
    m.add_collision("world", field, friction=0.3)
    path = tmp_path / "m.yaml"
    save_model(m, path)
    back = mb.load_model(path)
    (shape,) = [s.shape for s in back.collision_shapes if s.body.name == "world"]
    assert shape == field and shape.bottom == -0.3
    np.testing.assert_array_equal(back.compiled.contact.verts, m.compiled.contact.verts)
    np.testing.assert_array_equal(back.compiled.contact.si, m.compiled.contact.si)
    assert m.compiled.contact.si[1, CL.SI_NCOL] == 6 and m.compiled.contact.si[1, CL.SI_VNUM] == 24
    vis = shape_visual(field, np.eye(4))
    faces = heightfield_faces(4, 6)
    assert vis["type"] == "trimesh" and faces.shape == (30, 3)
    centroids = vis["vertices"][vis["faces"]].mean(axis=1)  # on the collision surface
    np.testing.assert_allclose(field.height_at(centroids[:, 0], centroids[:, 1]), centroids[:, 2], atol=1e-12)


def test_bad_heightfields_name_what_is_wrong():
    with pytest.raises(ValueError, match="nrow, ncol >= 2"):
        mb.Heightfield(np.zeros(5), (1.0, 1.0))
    with pytest.raises(ValueError, match="nrow, ncol >= 2"):
        mb.Heightfield(np.zeros((1, 4)), (1.0, 1.0))
    with pytest.raises(ValueError, match="non-finite"):
        mb.Heightfield([[0.0, np.nan], [0.0, 0.0]], (1.0, 1.0))
    with pytest.raises(ValueError, match="size must be 2 finite numbers"):
        mb.Heightfield(np.zeros((2, 2)), (1.0, -1.0))
    with pytest.raises(ValueError, match="size must be 2"):
        mb.Heightfield(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="below the lowest height"):
        mb.Heightfield(np.ones((2, 2)), (1.0, 1.0), bottom=1.0)
    with pytest.raises(ValueError, match="heights must be"):
        mb.Heightfield("flat", (1.0, 1.0))
    f = mb.Heightfield(np.array([[0.0, 1.0], [2.0, 3.0]]), (2.0, 1.0))
    assert f.bottom == pytest.approx(-3.0)  # (the lowest less the heights' range)
    assert "2x2 grid" in repr(f)
