"""GJK/EPA against the closed-form pairs, detection against MuJoCo's own collision on
random scenes, and the broad phase against brute force (issue 21)."""
import numpy as np
import pytest

from collision_rows import Scene, rot
from multibody.kernels.collision import layout as CL
from multibody.kernels.collision.box import capsule_box, sphere_box
from multibody.kernels.collision.box_box import box_box
from multibody.kernels.collision.convex import convex_convex
from multibody.kernels.collision.manifold import CAND_COLS, MAN_COLS, MAN_DIST, MAN_N, MAN_P
from multibody.kernels.collision.spheres import capsule_capsule, sphere_capsule
from multibody.kernels.collision.detect import STAT_PAIRS

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
    pairs = work[-1][STAT_PAIRS]
    assert pairs < 2000  # brute force: 200 * 201 / 2 = 20100
    # brute force: every pair within reach
    ps = s.sf[1:, CL.SF_P:CL.SF_P + 3]
    dist = np.linalg.norm(ps[:, None] - ps[None], axis=2) - 0.2
    iu = np.triu_indices(200, 1)
    want = {(1 + a, 1 + b) for a, b, d in zip(*iu, dist[iu]) if d <= 0}
    want |= {(0, 1 + a) for a in range(200) if ps[a, 2] - 0.1 <= 0}
    got = {tuple(r) for r in ci[:nc, :2]}
    assert got == want
