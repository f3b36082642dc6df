"""GJK/EPA against the closed-form pairs, detection against MuJoCo's own collision on
random scenes, the broad phase against brute force, and the flat manifolds of cylinders
and meshes on boxes (issue 21)."""
import numpy as np
import pytest

from collision_rows import D, N, P, Scene, contacts, rot
from multibody.kernels.collision import layout as CL
from multibody.kernels.collision.box import capsule_box, sphere_box
from multibody.kernels.collision.box_box import _EDGE_FACE_ANGLE, box_box
from multibody.kernels.collision.convex import convex_convex
from multibody.kernels.collision.manifold import CAND_COLS, MAN_COLS, MAN_DIST, MAN_N, MAN_P
from multibody.kernels.collision.spheres import capsule_capsule, sphere_capsule
from multibody.kernels.collision.detect import STAT_PAIRS
from multibody.kernels.collision.work import STATS

VERTS = np.zeros((0, 3))


def _bufs():
    return (np.zeros((8, CAND_COLS)), np.zeros(8, dtype=np.int64), np.zeros((4, MAN_COLS)),
            np.zeros(4, dtype=np.int64))


def _t(x):
    return tuple(float(v) for v in np.asarray(x).reshape(-1))


def _gjk(ka, Ra, pa, sa, kb, Rb, pb, sb, margin=0.0):
    cand, cfeat, man, mfeat = _bufs()
    k = convex_convex(ka, _t(Ra), _t(pa), _t(sa), 0, 0, kb, _t(Rb), _t(pb), _t(sb), 0, 0, VERTS, margin, man, mfeat)
    return k, man


def _deepest(k, man):
    i = int(np.argmin(man[:k, MAN_DIST]))
    return man[i, MAN_DIST], man[i, MAN_N:MAN_N + 3], man[i, MAN_P:MAN_P + 3]


def _near_face_normal(n, Ra, Rb):
    return np.abs(np.concatenate([Ra, Rb], axis=1).T @ n).max() > np.cos(_EDGE_FACE_ANGLE)


def _random_pose(rng, spread):
    return rot(rng.normal(size=3), rng.uniform(0, np.pi)), rng.uniform(-spread, spread, size=3)


@pytest.mark.parametrize("seed", range(6))
def test_gjk_epa_matches_the_closed_forms(seed):
    rng = np.random.default_rng(seed)
    cand, cfeat, man, mfeat = _bufs()
    h = rng.uniform(0.05, 0.2, size=3)
    hb = rng.uniform(0.05, 0.2, size=3)
    Rb, pb = _random_pose(rng, 0.01)
    for trial in range(8):
        Ra, pa = _random_pose(rng, 0.35)
        r, half = rng.uniform(0.03, 0.1), rng.uniform(0.05, 0.2)
        for kind, size in ((CL.SPHERE, (r, 0, 0)), (CL.CAPSULE, (r, half, 0)), (CL.BOX, hb)):
            if kind == CL.SPHERE:
                k = sphere_box(_t(pa), r, _t(Rb), _t(pb), _t(h), 1.0, man, mfeat)
            elif kind == CL.CAPSULE:
                k = capsule_box(_t(Ra), _t(pa), r, half, _t(Rb), _t(pb), _t(h), 1.0, VERTS, man, mfeat)
            else:
                k = box_box(_t(Ra), _t(pa), _t(hb), _t(Rb), _t(pb), _t(h), 1.0, cand, cfeat, man, mfeat)
            d0, n0, _ = _deepest(k, man)
            kg, mg = _gjk(kind, Ra, pa, size, CL.BOX, Rb, pb, h, margin=1.0)
            d1, n1, _ = _deepest(kg, mg)
            if kind == CL.BOX and d0 > 0:
                continue  # SAT's separation is a lower bound of the distance apart: not comparable
            if kind == CL.BOX and _near_face_normal(n1, Ra, Rb):
                # box_box leaves out edge axes this near a face normal (the faces touch as faces):
                # a face axis's depth is deeper by at most the angle times the shapes' reach
                reach = np.linalg.norm(pa - pb) + np.linalg.norm(hb) + np.linalg.norm(h)
                assert d1 - reach * _EDGE_FACE_ANGLE <= d0 <= d1 + 1e-12, (kind, trial)
                continue
            assert d1 == pytest.approx(d0, abs=1e-9), (kind, trial)
            if abs(d0) > 1e-6:
                np.testing.assert_allclose(n1, n0, atol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_gjk_epa_sphere_and_capsule_pairs(seed):
    rng = np.random.default_rng(10 + seed)
    cand, cfeat, man, mfeat = _bufs()
    for trial in range(10):
        Ra, pa = _random_pose(rng, 0.2)
        Rb, pb = _random_pose(rng, 0.2)
        ra, rb, ha, hb = rng.uniform(0.03, 0.15, size=4)
        k = capsule_capsule(_t(Ra), _t(pa), ra, ha, _t(Rb), _t(pb), rb, hb, 1.0, man, mfeat)
        d0, n0, p0 = _deepest(k, man)
        kg, mg = _gjk(CL.CAPSULE, Ra, pa, (ra, ha, 0), CL.CAPSULE, Rb, pb, (rb, hb, 0), 1.0)
        d1, n1, p1 = _deepest(kg, mg)
        assert d1 == pytest.approx(d0, abs=1e-9)
        k = sphere_capsule(_t(pa), ra, _t(Rb), _t(pb), rb, hb, 1.0, man, mfeat)
        d0, n0, p0 = _deepest(k, man)
        kg, mg = _gjk(CL.SPHERE, Ra, pa, (ra, 0, 0), CL.CAPSULE, Rb, pb, (rb, hb, 0), 1.0)
        d1, n1, p1 = _deepest(kg, mg)
        assert d1 == pytest.approx(d0, abs=1e-9)
        np.testing.assert_allclose(p1, p0, atol=1e-9)


def test_gjk_epa_ellipsoid_as_a_sphere_and_a_cylinder_as_a_box():
    R = rot((1, 2, 3), 0.4)
    for gap in (0.02, -0.03):
        k, man = _gjk(CL.ELLIPSOID, R, (0, 0, 0), (0.1, 0.1, 0.1), CL.SPHERE, np.eye(3), (0, 0.25 + gap, 0),
                      (0.15, 0, 0), margin=0.05)
        assert man[0, MAN_DIST] == pytest.approx(gap, abs=1e-8)
        np.testing.assert_allclose(man[0, MAN_N:MAN_N + 3], [0, 1, 0], atol=1e-6)
    # a cylinder standing on a box's top face, 2 mm deep: depth along z
    k, man = _gjk(CL.BOX, np.eye(3), (0, 0, 0), (0.3, 0.3, 0.1), CL.CYLINDER, rot((0, 0, 1), 0.3), (0.05, 0, 0.1 + 0.1 - 0.002),
                  (0.05, 0.1, 0))
    assert man[0, MAN_DIST] == pytest.approx(-0.002, abs=1e-9)
    np.testing.assert_allclose(man[0, MAN_N:MAN_N + 3], [0, 0, 1], atol=1e-9)


def test_broad_phase_on_200_spheres_tests_few_pairs_and_misses_none():
    rng = np.random.default_rng(3)
    s = Scene()
    s.add(CL.PLANE)
    for i in range(10):
        for j in range(20):
            s.add(CL.SPHERE, (0.1, 0, 0), p=(0.21 * i, 0.21 * j, 0.099) + rng.uniform(-0.02, 0.02, size=3))
    nc, ci, cf, work = s.run(max_contacts=2000)
    assert nc > 150
    pairs = work[STATS][STAT_PAIRS]
    assert pairs < 2000  # brute force: 200 * 201 / 2 = 20100
    # brute force: every pair within reach
    ps = s.sf[1:, CL.SF_P:CL.SF_P + 3]
    dist = np.linalg.norm(ps[:, None] - ps[None], axis=2) - 0.2
    iu = np.triu_indices(200, 1)
    want = {(1 + a, 1 + b) for a, b, d in zip(*iu, dist[iu]) if d <= 0}
    want |= {(0, 1 + a) for a in range(200) if ps[a, 2] - 0.1 <= 0}
    got = {tuple(r) for r in ci[:nc, :2]}
    assert got == want


def test_a_mesh_cube_meets_shapes_as_the_box_does():
    h = np.array([0.1, 0.15, 0.05])
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * h
    rng = np.random.default_rng(7)
    for trial in range(6):
        R, p = _random_pose(rng, 0.2)
        for kind, size in ((CL.SPHERE, (0.08, 0, 0)), (CL.ELLIPSOID, (0.05, 0.08, 0.1)), (CL.CYLINDER, (0.06, 0.1, 0))):
            as_box, as_mesh = Scene(), Scene()
            as_box.add(kind, size, R=R, p=p, margin=0.5)
            as_box.add(CL.BOX, h, margin=0.5)
            as_mesh.add(kind, size, R=R, p=p, margin=0.5)
            as_mesh.add(CL.MESH, verts=cube, margin=0.5)
            nb, cib, cfb, _ = as_box.run()
            nm, cim, cfm, _ = as_mesh.run()
            assert nb == nm == 1
            assert cfm[0, CL.CF_DIST] == pytest.approx(cfb[0, CL.CF_DIST], abs=1e-9)
            np.testing.assert_allclose(cfm[0, :6], cfb[0, :6], atol=2e-5)  # EPA on a curved shape: ~sqrt(tol)


_MJ = {CL.SPHERE: "sphere", CL.CAPSULE: "capsule", CL.CYLINDER: "cylinder", CL.BOX: "box", CL.ELLIPSOID: "ellipsoid"}
_MJ_SIZES = {CL.SPHERE: 1, CL.CAPSULE: 2, CL.CYLINDER: 2}


def _random_scene(seed):
    rng = np.random.default_rng(seed)
    shapes = []
    for k in rng.choice(list(_MJ), size=5):
        size = {CL.SPHERE: (rng.uniform(.05, .12), 0, 0), CL.CAPSULE: (rng.uniform(.03, .08), rng.uniform(.05, .15), 0),
                CL.CYLINDER: (rng.uniform(.04, .1), rng.uniform(.04, .12), 0), CL.BOX: tuple(rng.uniform(.04, .12, 3)),
                CL.ELLIPSOID: tuple(rng.uniform(.04, .12, 3))}[k]
        shapes.append((int(k), size, rot(rng.normal(size=3), rng.uniform(0, np.pi)), rng.uniform(-.15, .15, 3)))
    return shapes


def _mujoco_contacts(shapes):
    """{(a, b): [(dist, pos, normal from a to b)]} of MuJoCo's mj_collision, one free body per shape."""
    import mujoco
    bodies = []
    for k, size, R, p in shapes:
        q = np.zeros(4)
        mujoco.mju_mat2Quat(q, R.reshape(-1))
        sz = " ".join(str(x) for x in size[:_MJ_SIZES.get(k, 3)])
        bodies.append(f'<body pos="{p[0]} {p[1]} {p[2]}" quat="{q[0]} {q[1]} {q[2]} {q[3]}"><freejoint/>'
                      f'<geom type="{_MJ[k]}" size="{sz}"/></body>')
    m = mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{''.join(bodies)}</worldbody></mujoco>")
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)
    out = {}
    for c in d.contact[:d.ncon]:
        a, b, s = (c.geom1, c.geom2, 1.0) if c.geom1 < c.geom2 else (c.geom2, c.geom1, -1.0)
        out.setdefault((a, b), []).append((c.dist, c.pos.copy(), s * c.frame[:3]))
    return out


@pytest.mark.parametrize("seed", range(16))
def test_detection_matches_mujoco_on_random_scenes(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MUJOCO_LOG.TXT
    shapes = _random_scene(100 + seed)
    s = Scene()
    for k, size, R, p in shapes:
        s.add(k, size, R=R, p=p)
    nc, ci, cf, _ = s.run(max_contacts=200)
    theirs = _mujoco_contacts(shapes)
    ours = {}
    for row_i, row_f in zip(ci[:nc], cf[:nc]):
        ours.setdefault(tuple(row_i[:2]), []).append(row_f)
    for pair in set(ours) | set(theirs):
        kinds = {shapes[pair[0]][0], shapes[pair[1]][0]}
        if pair not in ours or pair not in theirs:  # only a pair just touching may be seen by one alone
            d = min(r[CL.CF_DIST] for r in ours[pair]) if pair in ours else min(c[0] for c in theirs[pair])
            assert abs(d) < 1e-9, (pair, kinds)
            continue
        mine = min(ours[pair], key=lambda r: r[CL.CF_DIST])
        dist, pos, n = min(theirs[pair], key=lambda c: c[0])
        ours_n = mine[CL.CF_N:CL.CF_N + 3]
        # ours is the least translation apart: the overlap along our own normal (iterative
        # pairs: curved shapes by GJK/EPA, capsule-box by search or EPA, whose normals are
        # good to about the square root of their tolerances)
        iterative = bool(kinds & {CL.CYLINDER, CL.ELLIPSOID}) or kinds == {CL.CAPSULE, CL.BOX}
        assert -mine[CL.CF_DIST] == pytest.approx(_overlap(shapes, pair, ours_n), abs=1e-6 if iterative else 1e-12), (pair, kinds)
        if kinds <= {CL.SPHERE, CL.CAPSULE} or kinds == {CL.SPHERE, CL.BOX}:
            assert mine[CL.CF_DIST] == pytest.approx(dist, abs=1e-12)
            np.testing.assert_allclose(ours_n, n, atol=1e-12)
            np.testing.assert_allclose(mine[CL.CF_P:CL.CF_P + 3], pos, atol=1e-12)
        elif abs(mine[CL.CF_DIST] - dist) > 1e-4:
            # MuJoCo's box-box and capsule-box report a depth of their points, not the least
            # translation, and its EPA on deep curved pairs stops short: then ours is no
            # deeper than the overlap along their normal (the least translation is the
            # least of the overlaps over all directions)
            assert -mine[CL.CF_DIST] <= _overlap(shapes, pair, n) + 1e-12, (pair, kinds)
        else:  # the same contact; GJK/EPA on curved shapes converge to tolerances
            assert np.dot(ours_n, n) > np.cos(0.05), (pair, kinds)
            np.testing.assert_allclose(mine[CL.CF_P:CL.CF_P + 3], pos, atol=2e-3)


def _support_np(kind, size, R, p, d):
    """The farthest point of a shape along world direction d (NumPy, from the shapes'
    definitions: an implementation of its own, for the test)."""
    d = np.asarray(d, float) / np.linalg.norm(d)
    dl = R.T @ d
    if kind == CL.SPHERE:
        return p + size[0] * d
    if kind == CL.CAPSULE:
        return p + np.sign(dl[2]) * size[1] * R[:, 2] + size[0] * d
    if kind == CL.CYLINDER:
        rim = size[0] * np.array([dl[0], dl[1], 0.0]) / np.hypot(dl[0], dl[1])
        return p + R @ (rim + [0.0, 0.0, np.sign(dl[2]) * size[1]])
    if kind == CL.BOX:
        return p + R @ (np.sign(dl) * np.asarray(size))
    D = np.asarray(size, float)  # ellipsoid: x = D^2 d / |D d|
    return p + R @ (D * D * dl / np.linalg.norm(D * dl))


def _overlap(shapes, pair, n):
    """How far shape a reaches past shape b along n (from a to b): the depth along n."""
    (ka, sa, Ra, pa), (kb, sb, Rb, pb) = shapes[pair[0]], shapes[pair[1]]
    return float(np.dot(n, _support_np(ka, sa, Ra, pa, n) - _support_np(kb, sb, Rb, pb, -np.asarray(n))))


def test_fuzz_every_pair_gives_finite_unit_frames_within_the_margin():
    """Random scenes of every type (coincident and axis-aligned poses included): each contact
    finite, a < b, a unit normal in a right-handed orthonormal frame, within the margin."""
    rng = np.random.default_rng(5)
    u = rng.normal(size=(12, 3))
    hull = 0.08 * u / np.linalg.norm(u, axis=1)[:, None]  # points on a sphere: all on the hull
    sizes = {CL.SPHERE: (0.08, 0, 0), CL.CAPSULE: (0.05, 0.08, 0), CL.CYLINDER: (0.06, 0.07, 0),
             CL.BOX: (0.08, 0.06, 0.05), CL.ELLIPSOID: (0.08, 0.06, 0.05), CL.MESH: (0, 0, 0)}
    for trial in range(60):
        s = Scene()
        s.add(CL.PLANE, margin=0.01)
        for k in range(6):
            kind = int(rng.choice(list(sizes)))
            R = np.eye(3) if trial % 3 == 0 else rot(rng.normal(size=3), rng.uniform(0, np.pi))
            p = np.zeros(3) if trial % 5 == 0 else rng.uniform(-0.1, 0.1, 3)  # all at one point, sometimes
            s.add(kind, sizes[kind], R=R, p=p, margin=0.01, verts=hull if kind == CL.MESH else None)
        nc, ci, cf, _ = s.run(max_contacts=400)
        assert nc >= 0
        ci, cf = ci[:nc], cf[:nc]
        assert np.isfinite(cf).all()
        assert (ci[:, 0] < ci[:, 1]).all()
        assert (cf[:, CL.CF_DIST] <= 0.02 + 1e-12).all()
        F = np.stack([cf[:, CL.CF_N:CL.CF_N + 3], cf[:, CL.CF_T1:CL.CF_T1 + 3], cf[:, CL.CF_T2:CL.CF_T2 + 3]], axis=1)
        np.testing.assert_allclose(F @ F.transpose(0, 2, 1), np.broadcast_to(np.eye(3), F.shape), atol=1e-12)
        np.testing.assert_allclose(np.linalg.det(F), 1.0, atol=1e-12)


def test_broad_phase_misses_no_pair_of_any_type():
    """Each shape type's box (rotated, grown by the margins): a small sphere placed just
    touching each shape at its farthest point along a random direction (where a box too
    small would leave it out) is found by detect as by the narrow phase alone."""
    from multibody.kernels.collision.support import support
    rng = np.random.default_rng(11)
    u = rng.normal(size=(10, 3))
    hull = 0.1 * u / np.linalg.norm(u, axis=1)[:, None] * [1.0, 0.5, 2.0]
    sizes = {CL.SPHERE: (0.08, 0, 0), CL.CAPSULE: (0.03, 0.12, 0), CL.CYLINDER: (0.04, 0.12, 0),
             CL.BOX: (0.12, 0.03, 0.05), CL.ELLIPSOID: (0.12, 0.03, 0.05), CL.MESH: (0, 0, 0)}
    s = Scene()
    expected = 0
    for k in range(120):
        kind = list(sizes)[k % 6]
        R = rot(rng.normal(size=3), rng.uniform(0, np.pi))
        p = np.array([1.0 * k, 0.0, 0.0])
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        verts = hull if kind == CL.MESH else np.zeros((0, 3))
        x = np.array(support(kind, _t(R), _t(p), sizes[kind], verts, 0, len(verts), _t(d)))
        gap = rng.uniform(-0.002, 0.006)  # within the margins (0.005 in all) or not
        s.add(kind, sizes[kind], R=R, p=p, margin=0.002, verts=hull if kind == CL.MESH else None)
        s.add(CL.SPHERE, (0.01, 0, 0), p=x + (0.01 + gap) * d, margin=0.003)
        expected += gap <= 0.005 - 1e-9  # the sphere's centre is on the support line: its distance is the gap
    nc, ci, cf, work = s.run(max_contacts=1000)
    assert nc == expected > 40
    assert work[STATS][STAT_PAIRS] < 2 * len(s.rows)


def test_cylinder_flat_on_a_box_gives_its_rim_or_its_side():
    s = Scene()
    s.add(CL.BOX, (0.5, 0.5, 0.1))
    s.add(CL.CYLINDER, (0.05, 0.1, 0), R=rot((0, 0, 1), 0.4), p=(0.1, 0.2, 0.1 + 0.1 - 0.002))
    ci, cf = contacts(s)
    assert len(ci) == 4 and sorted(ci[:, CL.CI_FEATURE]) == [1, 2, 3, 4]
    np.testing.assert_allclose(D(cf), -0.002, atol=1e-12)
    np.testing.assert_allclose(N(cf), [[0, 0, 1]] * 4, atol=1e-9)  # from the box (a) to the cylinder
    np.testing.assert_allclose(np.linalg.norm(P(cf)[:, :2] - [0.1, 0.2], axis=1), 0.05, atol=1e-12)
    np.testing.assert_allclose(P(cf)[:, 2], 0.099, atol=1e-12)
    s = Scene()
    s.add(CL.BOX, (0.5, 0.5, 0.1))
    s.add(CL.CYLINDER, (0.05, 0.1, 0), R=rot((1, 0, 0), np.pi / 2), p=(0.1, 0.2, 0.1 + 0.05 - 0.002))
    ci, cf = contacts(s)
    assert len(ci) == 2
    np.testing.assert_allclose(D(cf), -0.002, atol=1e-12)
    np.testing.assert_allclose(sorted(P(cf)[:, 1]), [0.1, 0.3], atol=1e-12)


def test_mesh_face_flat_on_a_box_gives_its_corners():
    hexagon = [(0.1 * np.cos(t), 0.1 * np.sin(t), z) for t in np.arange(6) * np.pi / 3 for z in (-0.05, 0.05)]
    s = Scene()
    s.add(CL.BOX, (0.5, 0.5, 0.1))
    s.add(CL.MESH, verts=hexagon, R=rot((0, 0, 1), 0.3), p=(0.1, -0.1, 0.1 + 0.05 - 0.003))
    ci, cf = contacts(s)
    assert len(ci) == 4 and all(f % 2 == 1 for f in ci[:, CL.CI_FEATURE])  # bottom vertices (index + 1 odd: z = -0.05)
    np.testing.assert_allclose(D(cf), -0.003, atol=1e-12)
    np.testing.assert_allclose(N(cf), [[0, 0, 1]] * 4, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(P(cf)[:, :2] - [0.1, -0.1], axis=1), 0.1, atol=1e-12)
