"""Many contacts at once (issue 21's scale check): the sweeps over W's nonzero blocks only
(``coulomb.coupling``), the sweeps-only path of large problems, the ladder of softer
compliances (``contact_loop.solve_step``) and a pile of boxes that settles on it.
``bench/bench_box_pile.py`` runs the 50-box pile and reports its time per step."""
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.kernels.contact_solver import NEWTON_MAX_ROWS, gauss_seidel_contacts, solve_contacts
from multibody.kernels.coulomb import coupling, natural_residual, natural_residual_coupled
from multibody.simulation import contact_loop as CL
from multibody.simulation.moreau import ContactWarning
from multibody.spatial import matrix_to_quat
from collision_rows import rot
from test_contact_solver import coulomb_violation


def bodies_problem(rng, n_bodies, n_contacts):
    """A contact problem of free bodies (6 speeds each, block-diagonal M^-1): each contact
    touches one body and the world or two bodies, so W has exact zero blocks."""
    nu = 6 * n_bodies
    blocks = [rng.standard_normal((6, 6)) for _ in range(n_bodies)]
    Minv = np.zeros((nu, nu))
    for k, B in enumerate(blocks):
        Minv[6 * k:6 * k + 6, 6 * k:6 * k + 6] = B @ B.T / 6 + 0.5 * np.eye(6)
    J = np.zeros((3 * n_contacts, nu))
    pairs = []
    for c in range(n_contacts):
        a, b = rng.choice(n_bodies + 1, 2, replace=False) - 1  # (-1: the world)
        pairs.append((a, b))
        for body, sign in ((a, -1.0), (b, 1.0)):
            if body >= 0:
                J[3 * c:3 * c + 3, 6 * body:6 * body + 6] = sign * rng.standard_normal((3, 6))
    W = J @ Minv @ J.T
    vfree = rng.standard_normal(3 * n_contacts)
    vfree[0::3] = -np.abs(vfree[0::3])
    return W, vfree, np.zeros(3 * n_contacts), rng.uniform(0.2, 1.0, n_contacts), pairs


def test_coupling_lists_the_contacts_that_share_a_body_and_the_sums_keep_their_bits():
    rng = np.random.default_rng(3)
    W, vfree, b, mu, pairs = bodies_problem(rng, 12, 40)
    assert len(coupling(W[:96, :96])[0]) == 0  # (up to DENSE_CONTACTS: all blocks)
    ptr, idx = coupling(W)
    for c, (a1, b1) in enumerate(pairs):
        shared = [d for d, (a2, b2) in enumerate(pairs) if {a1, b1} & {a2, b2} - {-1}]
        assert list(idx[ptr[c]:ptr[c + 1]]) == shared
    comp = 1e-6 * np.repeat(np.diag(W)[0::3], 3)
    for _ in range(5):
        lam = rng.standard_normal(120) * (rng.random(120) < 0.6)
        v1, v2 = np.empty(120), np.empty(120)
        r1 = natural_residual(W, vfree, b, mu, comp, lam, v1)
        r2 = natural_residual_coupled(W, vfree, b, mu, comp, lam, v2, ptr, idx)
        assert r1 == r2 and np.array_equal(v1, v2)


def test_a_large_problem_takes_the_sweeps_only_and_meets_coulombs_law():
    """Above NEWTON_MAX_ROWS rows no Newton iteration is made: the iterations are sweeps,
    the same as gauss_seidel_contacts' to the bit, and the answer satisfies Coulomb's law."""
    rng = np.random.default_rng(5)
    W, vfree, b, mu, _ = bodies_problem(rng, 60, 120)
    assert W.shape[0] > NEWTON_MAX_ROWS
    comp = 1e-3 * np.repeat(np.diag(W)[0::3], 3)
    results = []
    for solver in (solve_contacts, gauss_seidel_contacts):
        lam, v = np.zeros(360), np.empty(360)
        results.append((solver(W, vfree, b, mu, comp, lam, v, 3000, 1e-13), lam))
    (res, its), lam = results[0]
    assert res <= 1e-13 and results[1][0] == (res, its) and np.array_equal(results[1][1], lam)
    v = vfree + W @ lam
    assert coulomb_violation(v, b, mu, lam, comp) < 1e-6


def test_the_ladder_of_softer_compliances():
    copt = np.zeros(CL.N_COPT)
    copt[CL.P_REG], copt[CL.P_SOFT], copt[CL.P_SOFTEST] = 1e-6, 1e-4, 0.1
    levels = [CL.soft_level(copt, k) for k in range(6)]
    np.testing.assert_allclose(levels[:5], [1e-6, 1e-4, 1e-3, 1e-2, 1e-1], rtol=1e-15)
    assert levels[5] == -1.0
    copt[CL.P_SOFT] = 0.0  # retry_regularization=0: no retries
    assert CL.soft_level(copt, 0) == 1e-6 and CL.soft_level(copt, 1) == -1.0


def pile(columns, per_column=5, seed=0):
    """(model, q0) of boxes of 10 cm and 1 kg (mu 0.5) in columns on a floor, 1 cm apart and
    each turned a little (seeded): bench/bench_box_pile.py's scene."""
    rng = np.random.default_rng(seed)
    m = mb.Multibody()
    m.add_collision("world", mb.Plane(), name="floor", friction=0.5)
    q0 = []
    for k in range(columns * per_column):
        name = f"box{k}"
        m.add_body(name, mass=1.0, inertia=np.eye(3) / 600)
        m.add_hinge("world", name, kind="free_quat")
        m.add_collision(name, mb.Box((0.1, 0.1, 0.1)), friction=0.5)
        col, level = divmod(k, per_column)
        axis = rng.normal(size=3)
        angle = rng.uniform(0, 0.1)
        q0.append(np.r_[np.sin(angle / 2) * axis / np.linalg.norm(axis), np.cos(angle / 2),
                        0.12 * col, 0.0, 0.06 + 0.11 * level])
    return m, np.concatenate(q0)


def test_a_column_of_five_boxes_settles_without_sinking():
    """Boxes landing on boxes: redundant contacts that only the softer levels solve. The
    column comes to rest (speeds below 1 mm/s), nothing sinks more than 1 mm into the floor
    or into another box, the boxes stay stacked, and the softer steps are counted and warned.
    (Seed 3: seed 0's column, that needed them while rims' edge axes could win over faces,
    now settles at the run's own compliance.)"""
    m, q0 = pile(1, seed=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mb.simulate(m, q0, np.zeros(m.nu), 1.2, dt=1e-3)
    assert res.status == "finished"
    c = m.contacts(res.q[-1])
    assert np.min(c.distances) > -1e-3
    assert np.abs(res.u[-1]).max() < 1e-3
    z = np.sort(res.q[-1].reshape(5, 7)[:, 6])
    np.testing.assert_allclose(z, 0.05 + 0.1 * np.arange(5), atol=1e-3)
    soft = [w for w in caught if issubclass(w.category, ContactWarning) and "or softer" in str(w.message)]
    assert soft, "the softer steps are warned"


def test_a_box_turned_and_tilted_on_another_rests_on_four_points():
    """A box turned 0.6 rad and tilted 1e-3 rad on another, released 10 um above it: it
    lands face to face and rests. The rims' edge axes lie within the tilt of the face normal;
    when box_box let them win it stood on one edge point and rocked at 0.5 rad/s for 0.9 s,
    walking 0.4 mm (the 50-box pile's rocking column at dt = 1 ms)."""
    m = mb.Multibody()
    m.add_collision("world", mb.Plane(), name="floor", friction=0.5)
    for k in range(2):
        m.add_body(f"box{k}", mass=1.0, inertia=np.eye(3) / 600)
        m.add_hinge("world", f"box{k}", kind="free_quat")
        m.add_collision(f"box{k}", mb.Box((0.1, 0.1, 0.1)), friction=0.5)
    quat = matrix_to_quat(rot((1, 1, 0), 1e-3) @ rot((0, 0, 1), 0.6))
    q0 = np.r_[0, 0, 0, 1, 0, 0, 0.05, quat, 0.004, -0.003, 0.15 + 1e-5]
    res = mb.simulate(m, q0, np.zeros(12), 1.0, dt=1e-3, contact_output=True)
    assert np.all(res.contacts.count[100:] == 8)  # four on the floor, four box on box
    assert np.abs(res.u[500:]).max() < 1e-6
    np.testing.assert_allclose(res.q[-1, 11:13], [0.004, -0.003], atol=1e-4)


def test_softest_regularization_is_checked():
    m, q0 = pile(1, per_column=1)
    with pytest.raises(ValueError, match=r"softest_regularization must be in \[retry_regularization \(0.0001\), 1\)"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact_options=dict(softest_regularization=1e-5))
    with pytest.raises(ValueError, match="softest_regularization"):
        mb.simulate(m, q0, np.zeros(6), 0.01, contact_options=dict(softest_regularization=float("nan")))
