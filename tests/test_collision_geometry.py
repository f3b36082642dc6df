"""Collision shapes, their filters and the compiled contact constants (issue 21).

Checked against hand-computed values (sizes, bounding radii, poses), scipy's and trimesh's
hulls, and the frame table the kinematics already uses (a node at the shape's pose).
"""
import numpy as np
import pytest

import multibody as mb
from collision_scenes import shape_world_poses
from multibody.kernels import layout as L
from multibody.kernels.collision import layout as CL


def _rot_x(a):
    T = np.eye(4)
    c, s = np.cos(a), np.sin(a)
    T[1:3, 1:3] = [[c, -s], [s, c]]
    return T


def _at(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def chain3(**kw):
    """World -> l0 -> l1 -> l2 (pins about y), one sphere on each link (shape names l0/s ...)."""
    m = mb.Multibody()
    m.add_serial_chain("l", 3)
    for b in m.body_names:
        m.add_collision(b, mb.Sphere(0.1), name=f"{b}/s", **kw)
    return m


# ---------------------------------------------------------------- shapes
def test_shape_sizes_codes_and_bounding_radii():
    cases = [
        (mb.Sphere(0.2), CL.SPHERE, (0.2, 0, 0), 0.2),
        (mb.Capsule(0.1, 0.6), CL.CAPSULE, (0.1, 0.3, 0), 0.4),
        (mb.Cylinder(0.4, 0.6), CL.CYLINDER, (0.4, 0.3, 0), 0.5),
        (mb.Box((0.2, 0.4, 0.4)), CL.BOX, (0.1, 0.2, 0.2), 0.3),
        (mb.Ellipsoid((0.1, 0.3, 0.2)), CL.ELLIPSOID, (0.1, 0.3, 0.2), 0.3),
        (mb.Plane(), CL.PLANE, (0, 0, 0), np.inf),
    ]
    for shape, code, size, r in cases:
        assert shape.type_code == code
        assert CL.TYPE_NAMES[code] == shape.type_name
        np.testing.assert_allclose(shape.size, size, rtol=1e-15)
        assert shape.bounding_radius == pytest.approx(r, rel=1e-15)


@pytest.mark.parametrize("make, arg", [
    (lambda: mb.Sphere(0.0), "radius"), (lambda: mb.Sphere(-1), "radius"),
    (lambda: mb.Sphere(np.nan), "radius"), (lambda: mb.Sphere("a"), "radius"),
    (lambda: mb.Capsule(0.1, 0.0), "length"), (lambda: mb.Cylinder(np.inf, 1), "radius"),
    (lambda: mb.Box((1, 1)), "size"), (lambda: mb.Box((1, -1, 1)), "size"),
    (lambda: mb.Ellipsoid((1, 1, 0)), "radii"),
])
def test_bad_shape_sizes_name_the_shape_and_argument(make, arg):
    with pytest.raises(ValueError, match=arg):
        make()


def test_convex_mesh_keeps_the_hull_vertices():
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * 0.5
    inner = np.random.default_rng(0).uniform(-0.4, 0.4, (20, 3))
    mesh = mb.ConvexMesh(np.vstack([inner, cube]))
    assert mesh.type_code == CL.MESH
    assert sorted(map(tuple, mesh.vertices)) == sorted(map(tuple, cube))
    assert mesh.bounding_radius == pytest.approx(np.sqrt(0.75), rel=1e-15)


def test_convex_mesh_from_file_matches_trimesh_hull(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    box = trimesh.creation.box(extents=(0.2, 0.4, 0.6))
    path = tmp_path / "box.stl"
    box.export(path)
    mesh = mb.ConvexMesh.from_file(path, scale=2.0)
    assert len(mesh.vertices) == 8
    np.testing.assert_allclose(np.abs(mesh.vertices), np.tile([0.2, 0.4, 0.6], (8, 1)), atol=1e-7)
    assert mesh.source == str(path)


def test_degenerate_or_missing_meshes_are_value_errors_naming_them(tmp_path):
    flat = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.5, 0]], float)
    with pytest.raises(ValueError, match="degenerate mesh"):
        mb.ConvexMesh(flat, source="flat.obj")
    with pytest.raises(ValueError, match="flat.obj"):
        mb.ConvexMesh(flat, source="flat.obj")
    with pytest.raises(ValueError, match="at least 4"):
        mb.ConvexMesh(flat[:3])
    with pytest.raises(ValueError, match="non-finite"):
        mb.ConvexMesh(np.vstack([flat, [[np.nan, 0, 1]]]))
    with pytest.raises(ValueError, match="nothere.stl"):
        mb.ConvexMesh.from_file(tmp_path / "nothere.stl")


# ---------------------------------------------------------------- add_collision
@pytest.mark.parametrize("kw, arg", [
    (dict(friction=-0.1), "friction"), (dict(friction=np.nan), "friction"),
    (dict(restitution=1.5), "restitution"), (dict(restitution=-0.1), "restitution"),
    (dict(margin=-1e-3), "margin"), (dict(contype=1.5), "contype"), (dict(conaffinity=-1), "conaffinity"),
    (dict(pose=np.zeros((4, 4))), "pose"), (dict(pose=np.eye(3)), "pose"),
])
def test_bad_collision_arguments_name_the_argument_and_shape(kw, arg):
    m = mb.Multibody()
    m.add_serial_chain("l", 1)
    with pytest.raises(ValueError, match=f"'foot'.*{arg}|{arg}.*'foot'"):
        m.add_collision("l0", mb.Sphere(0.1), name="foot", **kw)
    assert m.collision_shapes == ()


def test_add_collision_names_bodies_and_edits_recompile():
    m = mb.Multibody()
    m.add_serial_chain("l", 2)
    assert m.compiled.contact is None  # a model without shapes compiles as before
    c0 = m.compiled
    a = m.add_collision("l0", mb.Sphere(0.1))
    assert m.compiled is not c0  # an edit invalidates the compiled model
    b = m.add_collision(m.body("l1"), mb.Box((1, 1, 1)))
    floor = m.add_collision(m.world, mb.Plane(), name="floor")
    assert (a.name, b.name) == ("l0/collision0", "l1/collision0")
    assert m.collision_shapes == (a, b, floor)
    assert m.compiled.contact.shape_names == ("l0/collision0", "l1/collision0", "floor")
    assert m.compiled.contact.body_names == ("l0", "l1", "world")
    with pytest.raises(ValueError, match="already exists"):
        m.add_collision("l0", mb.Sphere(0.1), name="floor")
    with pytest.raises(KeyError, match="nobody"):
        m.add_collision("nobody", mb.Sphere(0.1))
    with pytest.raises(TypeError, match="shape"):
        m.add_collision("l0", 0.1)
    c1 = m.compiled
    floor.friction = 0.25  # a parameter changed later: checked, and the model recompiles
    assert m.compiled is not c1 and m.compiled.contact.sf[2, CL.SF_MU] == 0.25
    with pytest.raises(ValueError, match="'floor'.*restitution"):
        floor.restitution = 2.0
    with pytest.raises(AttributeError, match="'floor'.*fixed"):
        floor.body = m.body("l0")
    b.shape = mb.Sphere(0.3)
    assert m.compiled.contact.sf[1, CL.SF_RBOUND] == 0.3
    m.remove_collision("floor")
    assert m.compiled.contact.shape_names == ("l0/collision0", "l1/collision0")
    m.clear_collisions()
    assert m.compiled.contact is None


# ---------------------------------------------------------------- filters
def _allowed(m):
    c = m.compiled.contact
    names = c.shape_names
    return {frozenset((names[i], names[j])) for i in range(len(names)) for j in range(i) if c.allow[i, j]}


def _pairs(*pairs):
    return {frozenset(p) for p in pairs}


def test_parent_child_pairs_off_grandparent_on_and_floor_on():
    m = chain3()
    m.add_collision("world", mb.Plane(), name="floor")
    m.add_collision("world", mb.Box((1, 1, 1)), pose=_at(3, 0, 0), name="wall")
    assert _allowed(m) == _pairs(("l0/s", "l2/s"), ("floor", "l0/s"), ("floor", "l1/s"), ("floor", "l2/s"),
                                 ("wall", "l0/s"), ("wall", "l1/s"), ("wall", "l2/s"))
    allow = m.compiled.contact.allow
    assert allow.dtype == np.uint8 and np.array_equal(allow, allow.T) and not allow.diagonal().any()


def test_contype_conaffinity_rule():
    m = mb.Multibody()
    m.add_serial_chain("l", 1)
    m.add_collision("world", mb.Plane(), name="p", contype=1, conaffinity=0)
    m.add_collision("l0", mb.Sphere(0.1), name="a", contype=0, conaffinity=1)  # p's type meets a's affinity
    m.add_collision("l0", mb.Sphere(0.1), name="b", contype=2, conaffinity=2)  # no common bit with p
    m.add_collision("l0", mb.Sphere(0.1), name="c", contype=0, conaffinity=0)
    assert _allowed(m) == _pairs(("p", "a"))


def test_excludes_by_body_and_by_shape_name():
    m = chain3()
    m.add_collision("world", mb.Plane(), name="floor")
    m.add_collision("l2", mb.Sphere(0.05), name="tip")
    m.exclude_collision("l0", "l2")  # bodies: all their shapes
    m.exclude_collision("floor", "tip")
    got = _allowed(m)
    assert frozenset(("l0/s", "l2/s")) not in got and frozenset(("l0/s", "tip")) not in got
    assert frozenset(("floor", "tip")) not in got and frozenset(("floor", "l2/s")) in got
    with pytest.raises(ValueError, match="nothing"):
        m.exclude_collision("nothing", "l0")
    m.remove_collision("tip")
    assert m.collision_excludes == (frozenset(("l0", "l2")),)


def test_a_hinge_of_several_subhinges_keeps_parent_and_child_apart():
    """A universal or gimbal hinge moves links that carry no body between the parent body's
    link and the child's: the pair is still parent and child (it was allowed through them)."""
    for kind, axes, free_base in (("universal", [(1, 0, 0), (0, 1, 0)], False),
                                  ("gimbal", None, False), ("universal", [(1, 0, 0), (0, 1, 0)], True)):
        m = mb.Multibody()
        m.add_body("a", mass=1.0, inertia=np.eye(3) * 0.01)
        m.add_body("b", mass=1.0, inertia=np.eye(3) * 0.01)
        m.add_body("c", mass=1.0, inertia=np.eye(3) * 0.01)
        if free_base:
            m.add_hinge("world", "a", kind="free")
        else:
            m.add_hinge("world", "a", kind="pin", axis=(0, 0, 1))
        m.add_hinge("a", "b", kind=kind, **({} if axes is None else {"axes": axes}))
        m.add_hinge("b", "c", kind="pin", axis=(0, 0, 1))
        for name in "abc":
            m.add_collision(name, mb.Sphere(0.1), name=name)
        assert m.compiled.n_links > 3  # (links without a body between a and b)
        assert _allowed(m) == _pairs(("a", "c")), kind


def test_welded_bodies_share_their_parents_link():
    m = chain3()
    m.add_body("w", mass=1.0)
    m.add_hinge("l1", "w", kind="fixed", T_parent_joint=_at(0.5, 0, 0))
    m.add_collision("w", mb.Sphere(0.1), name="w/s")
    # w sits on l1's link: off with l1 (same link), l2 (child link) and l0 (parent *link* of w's)
    assert _allowed(m) == _pairs(("l0/s", "l2/s"))
    c = m.compiled.contact
    k = c.shape_names.index("w/s")
    assert c.si[k, CL.SI_LINK] == m.compiled.body_link["l1"]
    assert c.si[k, CL.SI_BODY] == m.body_names.index("w")


def test_a_fixed_base_is_its_first_links_parent_but_scenery_is_not():
    m = mb.Multibody()
    for name in ("base", "mount", "table", "l1", "box"):
        m.add_body(name, mass=1.0)
    m.add_hinge("world", "base", kind="fixed")
    m.add_hinge("base", "mount", kind="fixed")
    m.add_hinge("world", "table", kind="fixed", T_parent_joint=_at(1, 0, 0))
    m.add_hinge("mount", "l1", kind="pin")
    m.add_hinge("world", "box", kind="free")
    for name in ("base", "mount", "table", "l1", "box"):
        m.add_collision(name, mb.Sphere(0.1), name=name)
    m.add_collision("world", mb.Plane(), name="floor")
    # mount is l1's hinge parent; base is above it (welded to the world like the table and floor)
    assert _allowed(m) == _pairs(("base", "l1"), ("table", "l1"), ("floor", "l1"), ("l1", "box"),
                                 ("base", "box"), ("mount", "box"), ("table", "box"), ("floor", "box"))


# ---------------------------------------------------------------- compiled tables
def test_compiled_tables_by_hand():
    m = mb.Multibody()
    b = m.add_body("b", mass=1.0)
    m.add_hinge("world", b, kind="pin", axis=(0, 0, 1), T_parent_joint=_at(0, 0, 1))
    m.add_body("w", mass=1.0)
    m.add_hinge("b", "w", kind="fixed", T_parent_joint=_at(0.5, 0, 0) @ _rot_x(np.pi / 2))
    m.add_collision("w", mb.Capsule(0.05, 0.2), pose=_at(0, 0.1, 0), friction=0.7, restitution=0.2,
                    margin=1e-3, contype=3, conaffinity=5)
    m.add_collision("world", mb.Plane(), pose=_at(0, 0, -0.5), name="floor")
    c = m.compiled.contact
    assert c.si.dtype == np.int64 and c.si.shape == (2, CL.SI_COLS)
    assert c.sf.dtype == np.float64 and c.sf.shape == (2, CL.SF_COLS)
    np.testing.assert_array_equal(c.si[0], [CL.CAPSULE, 0, 1, 3, 5, 0, 0, 0])
    np.testing.assert_array_equal(c.si[1], [CL.PLANE, -1, -1, 1, 1, 0, 0, 0])
    # the pin's axis is z: its link frame is b's frame; w's capsule frame is b <- w <- pose
    R = _rot_x(np.pi / 2)[:3, :3]
    np.testing.assert_allclose(c.sf[0, CL.SF_R:CL.SF_R + 9], R.ravel(), atol=1e-15)
    np.testing.assert_allclose(c.sf[0, CL.SF_P:CL.SF_P + 3], [0.5, 0.0, 0.1], atol=1e-15)
    np.testing.assert_allclose(c.sf[0, CL.SF_SIZE:CL.SF_KP], [0.05, 0.1, 0.0, 0.15, 0.7, 0.2, 1e-3, 0, 0, 0], rtol=1e-15)
    assert not c.sf[:, CL.SF_KP:].any()  # hard: no stiffness, no solref/solimp
    m.collision_shapes[0].stiffness, m.collision_shapes[0].damping = 2e4, 30.0
    m.collision_shapes[1].solref = (-1e4, -20.0)
    sf = m.compiled.contact.sf
    np.testing.assert_array_equal(sf[0, CL.SF_KP:], [2e4, 30.0] + [0.0] * 7)
    np.testing.assert_array_equal(sf[1, CL.SF_KP:], [0.0, 0.0, -1e4, -20.0, 0.9, 0.95, 0.001, 0.5, 2.0])
    np.testing.assert_allclose(c.sf[1, CL.SF_P:CL.SF_P + 3], [0, 0, -0.5])
    assert c.sf[1, CL.SF_RBOUND] == np.inf and c.sf[1, CL.SF_MU] == 1.0
    assert c.verts.shape == (0, 3)


def test_shape_world_poses_equal_the_frame_tables(tmp_path):
    """Shapes on re-framed links (pin axes not z), welded bodies and a mesh: the world pose from
    si/sf and the link placements equals the pose of a node at the shape (the frame table)."""
    m = mb.Multibody()
    m.add_serial_chain("l", 3, axis=(0.3, 1.0, -0.2))
    m.add_body("w", mass=1.0)
    m.add_hinge("l1", "w", kind="fixed", T_parent_joint=_at(0.2, 0.1, 0) @ _rot_x(0.3))
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * 0.1
    poses = {"l0": _rot_x(0.4) @ _at(0.1, 0.2, 0.3), "w": _at(0, 0, 0.1), "l2": _rot_x(-1.0)}
    for body, T in poses.items():
        m.add_collision(body, mb.ConvexMesh(cube) if body == "w" else mb.Box((0.1, 0.2, 0.3)), pose=T)
        m.add_node(f"{body}_at_shape", body, T)
    q = np.random.default_rng(1).uniform(-2, 2, m.nq)
    got = shape_world_poses(m, q)
    for k, body in enumerate(poses):
        np.testing.assert_allclose(got[k], m.body_pose(q, f"{body}_at_shape"), atol=1e-14)
    c = m.compiled.contact
    np.testing.assert_array_equal(c.si[:, CL.SI_VNUM], [0, 8, 0])
    np.testing.assert_array_equal(c.verts, m.collision_shapes[1].shape.vertices)


def test_a_shifted_model_gives_the_same_tables_but_the_world_shapes():
    def scene(shift):
        m = mb.Multibody()
        m.add_body("base", mass=1.0)
        m.add_hinge("world", "base", kind="free", T_parent_joint=_at(*shift))
        m.add_serial_chain("l", 2, parent="base")
        m.add_collision("world", mb.Plane(), pose=_at(*shift), name="floor")
        m.add_collision("world", mb.Box((1, 1, 1)), pose=_at(*shift) @ _at(2, 0, 0), name="wall")
        for b in ("base", "l0", "l1"):
            m.add_collision(b, mb.Sphere(0.1), pose=_at(0.1, 0, 0))
        return m.compiled.contact
    a, b = scene((0, 0, 0)), scene((1e5, -1e5, 1e5))
    np.testing.assert_array_equal(a.si, b.si)
    np.testing.assert_array_equal(a.allow, b.allow)
    np.testing.assert_array_equal(a.sf[2:], b.sf[2:])  # shapes on bodies: in their link frames
    np.testing.assert_array_equal(a.sf[:2, CL.SF_R:CL.SF_P], b.sf[:2, CL.SF_R:CL.SF_P])
    np.testing.assert_allclose(b.sf[:2, CL.SF_P:CL.SF_P + 3] - a.sf[:2, CL.SF_P:CL.SF_P + 3],
                               [(1e5, -1e5, 1e5)] * 2, rtol=1e-15)


def test_a_mesh_bounding_sphere_is_about_its_middle():
    """A hull far from its shape origin (a robot part's mesh in its link frame): the compiled
    bounding sphere is about the middle of its box (SF_CENTRE), its radius the farthest vertex
    from there, not the far larger sphere about the origin (it let leg pairs through to GJK)."""
    rng = np.random.default_rng(2)
    v = rng.uniform(-0.02, 0.02, (40, 3)) + [0.0, 0.0, -0.15]
    m = mb.Multibody()
    m.add_body("leg", mass=1.0, inertia=np.eye(3))
    m.add_hinge("world", "leg", kind="pin", axis=(0, 1, 0))
    m.add_collision("leg", mb.ConvexMesh(v))
    sf = m.compiled.contact.sf[0]
    hull = m.collision_shapes[0].shape.vertices
    centre = 0.5 * (hull.min(axis=0) + hull.max(axis=0))
    np.testing.assert_allclose(sf[CL.SF_CENTRE:CL.SF_CENTRE + 3], centre, rtol=1e-15)
    assert sf[CL.SF_RBOUND] == pytest.approx(np.linalg.norm(hull - centre, axis=1).max(), rel=1e-15)
    assert sf[CL.SF_RBOUND] < 0.04 < m.collision_shapes[0].shape.bounding_radius
    np.testing.assert_allclose(sf[CL.SF_SIZE:CL.SF_SIZE + 3], 0.5 * (hull.max(axis=0) - hull.min(axis=0)), rtol=1e-15)


def test_a_mesh_broad_phase_box_holds_its_hull_and_is_tighter_than_its_sphere():
    """The broad phase's box of a mesh (its hull's box, SF_SIZE about SF_CENTRE, turned into
    the world, or its bounding sphere's where that is tighter) holds every hull vertex at
    any rotation, and for a long thin hull (a robot's leg or base) is far tighter along the
    thin axes than the bounding sphere's (which let Solo12's leg pairs through to GJK)."""
    from multibody.kernels.collision.broad_phase import AABB_HI, AABB_LO, update_aabbs
    from multibody.kernels.collision.poses import POSE_COLS, shape_poses
    from scipy.spatial.transform import Rotation
    rng = np.random.default_rng(4)
    v = rng.uniform(-1.0, 1.0, (60, 3)) * [0.15, 0.01, 0.02] + [0.05, 0.0, -0.1]
    m = mb.Multibody()
    m.add_body("leg", mass=1.0, inertia=np.eye(3))
    m.add_hinge("world", "leg", kind="pin", axis=(0, 1, 0))
    m.add_collision("leg", mb.ConvexMesh(v))
    cm = m.compiled.contact
    hull = m.collision_shapes[0].shape.vertices
    ws = np.zeros((1, 64))
    poses, aabb = np.zeros((1, POSE_COLS)), np.zeros((1, 6))
    for R in Rotation.random(20, random_state=5).as_matrix():
        ws[0, L.W_RW:L.W_RW + 9] = R.ravel()
        ws[0, L.W_PW:L.W_PW + 3] = rng.normal(size=3)
        shape_poses(cm.si, cm.sf, ws, poses)
        update_aabbs(cm.si, cm.sf, poses, aabb)
        world = (hull @ cm.sf[0, CL.SF_R:CL.SF_R + 9].reshape(3, 3).T + cm.sf[0, CL.SF_P:CL.SF_P + 3]) @ R.T \
            + ws[0, L.W_PW:L.W_PW + 3]
        assert np.all(world >= aabb[0, AABB_LO:AABB_LO + 3] - 1e-15)
        assert np.all(world <= aabb[0, AABB_HI:AABB_HI + 3] + 1e-15)
    ws[0, L.W_RW:L.W_RW + 9] = np.eye(3).ravel()
    shape_poses(cm.si, cm.sf, ws, poses)
    update_aabbs(cm.si, cm.sf, poses, aabb)
    half = 0.5 * (aabb[0, AABB_HI:AABB_HI + 3] - aabb[0, AABB_LO:AABB_LO + 3]) - cm.sf[0, CL.SF_MARGIN]
    assert half[1] < 0.02 < 0.1 < cm.sf[0, CL.SF_RBOUND]
