"""Finite-element import (issue 24 item 3): sparse nodal mass matrices in
``modal_data_from_nodes``, full modal stiffness and damping matrices carried through the
dynamics, and reduced models read from Matrix Market / .npz files (``flex/fe_import.py``)."""
import importlib
import re
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.flex import ModalData, load_modal_data, load_reduced_model, modal_data_from_nodes, read_fe_matrix

sp = pytest.importorskip("scipy.sparse")
scipy_io = pytest.importorskip("scipy.io")
sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
try:
    fe = importlib.import_module("fe_solid_body")  # the mesh, matrices and modes of examples/fe_solid_body.py
finally:
    sys.path.pop(0)

FIELDS = ("modal_mass", "stiffness", "damping", "mass", "com", "inertia", "S", "S_rot", "M1", "M2")


def _solid(divisions, n_modes=6, size=(1.0, 0.1, 0.1)):
    """(nodes, K, M, omega^2, Phi (3k, n)) of a clamped brick of tetrahedra."""
    nodes, tets = fe.brick_mesh(size, divisions)
    K, M = fe.tet_matrices(nodes, tets, **fe.ALUMINIUM)
    lam, Phi = fe.clamped_modes(K, M, nodes[:, 0] == 0.0, n_modes)
    return nodes, K, M, lam, Phi


def _relative_difference(a, b):
    return max(float(np.abs(getattr(a, f) - getattr(b, f)).max() / max(1.0, np.abs(getattr(b, f)).max()))
               for f in FIELDS)


def _peak_mb(build):
    tracemalloc.start()
    try:
        result = build()
        return result, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_a_sparse_mass_matrix_matches_the_dense_build_without_densifying():
    nodes, _, M, lam, Phi = _solid((35, 7, 7))  # 2304 nodes, 6912 dofs: a dense M takes 382 MB
    k = len(nodes)
    shapes = Phi.reshape(k, 3, -1)
    sparse, sparse_peak = _peak_mb(lambda: modal_data_from_nodes(nodes, shapes, lam, mass_matrix=M))
    dense, dense_peak = _peak_mb(lambda: modal_data_from_nodes(nodes, shapes, lam, mass_matrix=M.toarray()))
    print(f"\n{k} nodes: peak traced memory {sparse_peak:.1f} MB sparse, {dense_peak:.1f} MB dense "
          f"(its matrix {M.shape[0] ** 2 * 8e-6:.0f} MB); largest relative difference "
          f"{_relative_difference(sparse, dense):.2e}")
    assert _relative_difference(sparse, dense) < 1e-12
    assert sparse_peak < 20.0 and dense_peak > 300.0
    np.testing.assert_allclose(sparse.modal_mass, np.eye(6), atol=1e-12)  # eigsh's unit modal mass
    assert float(sparse.mass) == pytest.approx(fe.ALUMINIUM["rho"] * 1e-2, rel=1e-12)


@pytest.mark.parametrize("fmt", ["coo", "csc", "lil", "bsr"])
def test_every_sparse_format_gives_the_csr_result(fmt):
    nodes, _, M, lam, Phi = _solid((6, 2, 2), n_modes=3)
    shapes = Phi.reshape(len(nodes), 3, -1)
    want = modal_data_from_nodes(nodes, shapes, lam, mass_matrix=M)
    for matrix in (M.asformat(fmt), sp.csr_matrix(M).asformat(fmt)):  # sparse arrays and matrices
        got = modal_data_from_nodes(nodes, shapes, lam, mass_matrix=matrix)
        assert _relative_difference(got, want) == 0.0


def test_bad_mass_matrices_are_refused_by_name():
    nodes, _, M, lam, Phi = _solid((3, 1, 1), n_modes=2)
    shapes = Phi.reshape(len(nodes), 3, -1)
    bad = M.tolil()
    bad[0, 0] = np.nan
    n = 3 * len(nodes)
    cases = [(M[:-3, :-3], rf"mass_matrix: expected a finite \({n}, {n}\) matrix"),
             (bad.tocsr(), "mass_matrix: expected a finite"),
             (M.astype(complex), "mass_matrix: complex values are not allowed"),
             (M.toarray().astype(complex), "mass_matrix: complex values are not allowed"),
             ("heavy", "mass_matrix: expected a")]
    for matrix, message in cases:
        with pytest.raises(ValueError, match=message):
            modal_data_from_nodes(nodes, shapes, lam, mass_matrix=matrix)


def _rotated_pair(rng):
    """(diagonal ModalData, the same body in the modal basis eta = T eta', T): a full K', C' and
    a full modal mass T^T T."""
    nodes, _, M, lam, Phi = _solid((8, 2, 2), n_modes=4)
    k, n = len(nodes), lam.size
    c = 2 * 0.02 * np.sqrt(lam)
    T = np.linalg.qr(rng.normal(size=(n, n)))[0] @ np.diag(rng.uniform(0.5, 2.0, n))
    shapes = Phi.reshape(k, 3, n)
    diagonal = modal_data_from_nodes(nodes, shapes, lam, mass_matrix=M, damping=c)
    full = modal_data_from_nodes(nodes, shapes @ T, T.T @ np.diag(lam) @ T, mass_matrix=M,
                                 damping=T.T @ np.diag(c) @ T)
    assert full.stiffness.shape == (n, n) and np.abs(full.stiffness - np.diag(np.diag(full.stiffness))).max() > 1.0
    return diagonal, full, T


def _pendulum(data, tip):
    """The body on a pin about y, a rigid bob on a pin at its node ``tip``."""
    m = mb.Multibody(gravity=(0.3, 0.0, -9.81))
    bar = m.add_modal_body("bar", modal_data=data, nodes={"tip": tip})
    m.add_hinge(None, bar, "pin", axis=(0.0, 1.0, 0.0))
    bob = m.add_body("bob", mass=0.5, com=(0.05, 0.0, 0.0), inertia=1e-3 * np.eye(3))
    m.add_hinge("tip", bob, "pin", axis=(0.0, 0.0, 1.0))
    return m


def test_a_full_stiffness_matrix_equals_the_diagonal_model_in_a_rotated_modal_basis():
    rng = np.random.default_rng(4)
    diagonal, full, T = _rotated_pair(rng)
    tip = int(np.argmax(diagonal.node_positions[:, 0] + diagonal.node_positions[:, 1]))
    md, mf = _pendulum(diagonal, tip), _pendulum(full, tip)
    qs, us = md.modal_slice("bar"), md.modal_u_slice("bar")
    P = np.eye(md.nu)  # u = P u': the modal rates eta' = T^-1 eta
    P[us, us] = T
    worst = 0.0
    for _ in range(5):
        q, u, tau = rng.normal(size=md.nq) * 0.1, rng.normal(size=md.nu), rng.normal(size=md.nu)
        qf, uf = q.copy(), np.linalg.solve(P, u)
        qf[qs] = np.linalg.solve(T, q[qs])
        pairs = [(P @ mf.forward_dynamics(qf, uf, P.T @ tau), md.forward_dynamics(q, u, tau)),
                 (mf.inverse_dynamics(qf, uf, np.linalg.solve(P, tau)), P.T @ md.inverse_dynamics(q, u, tau)),
                 (mf.mass_matrix(qf), P.T @ md.mass_matrix(q) @ P),
                 (mf.kinetic_energy(qf, uf), md.kinetic_energy(q, u)),
                 (mf.potential_energy(qf), md.potential_energy(q))]
        worst = max([worst] + [np.abs(a - b).max() / np.abs(b).max() for a, b in pairs])
    print(f"\nrotated modal basis: largest relative difference {worst:.2e}")
    assert worst < 1e-12
    # the compiled stepping loop (flex variants): fixed steps, so the two runs take the same ones
    q0 = np.zeros(md.nq)
    q0[qs] = 0.01 * rng.normal(size=qs.stop - qs.start)
    q0f = q0.copy()
    q0f[qs] = np.linalg.solve(T, q0[qs])
    rd = mb.simulate(md, q0, np.zeros(md.nu), 0.02, dt=1e-4)
    rf = mb.simulate(mf, q0f, np.zeros(md.nu), 0.02, dt=1e-4)
    eta = rf.q[:, qs] @ T.T
    assert np.abs(eta - rd.q[:, qs]).max() < 1e-10 * np.abs(rd.q[:, qs]).max()
    assert np.abs(rf.q[:, 0] - rd.q[:, 0]).max() < 1e-10
    # stacked calls take the same tables: bit for bit a loop of single calls
    Q, U = np.tile(qf, (3, 1)) + 0.01 * rng.normal(size=(3, md.nq)), rng.normal(size=(3, md.nu))
    stacked = mf.forward_dynamics(Q, U, U)
    assert all(np.array_equal(stacked[i], mf.forward_dynamics(Q[i], U[i], U[i])) for i in range(3))


def test_stiffness_and_damping_matrices_are_validated_by_name():
    rng = np.random.default_rng(1)
    diagonal, full, _ = _rotated_pair(rng)
    K = full.stiffness.copy()
    asymmetric = K.copy()
    asymmetric[0, 1] += 1e-6 * np.abs(K).max()
    indefinite = K - 1.01 * np.linalg.eigvalsh(K)[-1] * np.eye(K.shape[0])
    for name in ("stiffness", "damping"):
        with pytest.raises(ValueError, match=f"^{name}: must be symmetric"):
            full.replace(**{name: asymmetric})
        with pytest.raises(ValueError, match=f"^{name}: must be positive semi-definite"):
            full.replace(**{name: indefinite})
        with pytest.raises(ValueError, match=rf"^{name}: expected shape \(4, 4\), got \(3, 3\)"):
            full.replace(**{name: K[:3, :3]})
    nearly = K + 1e-13 * np.abs(K).max() * np.triu(np.ones_like(K), 1)  # symmetric to rounding: accepted
    assert full.replace(stiffness=nearly).stiffness.shape == K.shape
    m = mb.Multibody()
    b = m.add_modal_body("b", modal_data=full)
    with pytest.raises(ValueError, match="^modal body 'b': stiffness: must be symmetric"):
        b.stiffness = asymmetric
    with pytest.raises(ValueError, match="^modal body 'b': damping: must be positive semi-definite"):
        b.damping = indefinite
    assert np.array_equal(b.stiffness, full.stiffness) and np.array_equal(b.stiffness_matrix, full.stiffness)
    b.damping = np.ones(4)  # per mode again
    assert np.array_equal(b.damping_matrix, np.eye(4))
    # frequencies: of K phi = omega^2 modal_mass phi, the same in either basis
    np.testing.assert_allclose(full.frequencies, np.sort(diagonal.frequencies), rtol=1e-10)


def test_matrix_stiffness_and_damping_round_trip_through_a_modal_data_file(tmp_path):
    _, full, _ = _rotated_pair(np.random.default_rng(2))
    full.save(tmp_path / "full.npz")
    back = load_modal_data(tmp_path / "full.npz")
    assert all(np.array_equal(getattr(back, f), getattr(full, f)) for f in FIELDS)


def _export(tmp_path, nodes, M, Phi, K_red):
    files = {"positions": tmp_path / "nodes.mtx", "mode_shapes": tmp_path / "phi.mtx",
             "stiffness": tmp_path / "kred.mtx", "mass_matrix": tmp_path / "mass.npz"}
    scipy_io.mmwrite(files["positions"], nodes)
    scipy_io.mmwrite(files["mode_shapes"], Phi)
    scipy_io.mmwrite(files["stiffness"], K_red, symmetry="symmetric")
    sp.save_npz(files["mass_matrix"], M)
    return files


def test_a_reduced_model_from_matrix_market_and_npz_files(tmp_path):
    nodes, K, M, lam, Phi = _solid((8, 2, 2), n_modes=4)
    K_red = Phi.T @ (K @ Phi)
    K_red = 0.5 * (K_red + K_red.T)
    want = modal_data_from_nodes(nodes, Phi.reshape(len(nodes), 3, -1), K_red, mass_matrix=M)
    files = _export(tmp_path, nodes, M, Phi, K_red)
    got = load_reduced_model(files)
    assert _relative_difference(got, want) < 1e-14 and got.meta["files"]["mass_matrix"].endswith("mass.npz")
    scipy_io.mmwrite(tmp_path / "mass.mtx", M, symmetry="symmetric")
    assert sp.issparse(read_fe_matrix(tmp_path / "mass.mtx"))
    assert read_fe_matrix(tmp_path / "kred.mtx").shape == (4, 4)
    assert _relative_difference(load_reduced_model({**files, "mass_matrix": tmp_path / "mass.mtx"}), want) < 1e-14
    # one .npz of named (dense) arrays; (6k, n) shapes in the FE order ux, uy, uz, rx, ry, rz
    six = np.zeros((len(nodes), 6, 4))
    six[:, :3] = Phi.reshape(len(nodes), 3, -1)
    np.savez(tmp_path / "model.npz", positions=nodes, mode_shapes=six.reshape(-1, 4), stiffness=lam,
             masses=np.full(len(nodes), 0.1))
    one = load_reduced_model(tmp_path / "model.npz")
    np.testing.assert_array_equal(one.mode_shapes[:, 3:], Phi.reshape(len(nodes), 3, -1))
    assert np.array_equal(one.stiffness, lam) and isinstance(one, ModalData)


def test_reduced_model_files_are_read_bounded_and_errors_name_the_file(tmp_path):
    nodes, K, M, lam, Phi = _solid((3, 1, 1), n_modes=2)
    files = _export(tmp_path, nodes, M, Phi, np.diag(lam))
    kred = str(files["stiffness"])
    scipy_io.mmwrite(kred, np.array([[1.0, 2.0], [0.0, 1.0]]))  # an unsymmetric K_red
    with pytest.raises(ValueError, match=f"^{re.escape(kred)}: stiffness: must be symmetric"):
        load_reduced_model(files)
    with pytest.raises(FileNotFoundError):
        read_fe_matrix(tmp_path / "missing.mtx")
    with pytest.raises(ValueError, match="^path: expected a .mtx or .npz file, got .*k.txt"):
        read_fe_matrix(tmp_path / "k.txt")
    mass = re.escape(str(files["mass_matrix"]))
    with pytest.raises(ValueError, match=f"^{mass}: .*more than the limit of 100 bytes"):
        read_fe_matrix(files["mass_matrix"], max_bytes=100)
    bad = tmp_path / "bad.mtx"
    where = re.escape(str(bad))
    bad.write_text("%%MatrixMarket matrix coordinate real general\n1000000 1000000 999999999\n1 1 1.0\n")
    with pytest.raises(ValueError, match=f"^{where}: its header declares a 1000000 x 1000000"):
        read_fe_matrix(bad)
    bad.write_text("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.0 2.0\n")
    with pytest.raises(ValueError, match=f"^{where}: a complex matrix"):
        read_fe_matrix(bad)
    bad.write_text("not a matrix\n")
    with pytest.raises(ValueError, match=f"^{where}: not a Matrix Market file"):
        read_fe_matrix(bad)
    with pytest.raises(ValueError, match="^files: 'modes' is not a field"):
        load_reduced_model({"modes": kred})
    two = tmp_path / "two.npz"
    np.savez(two, a=np.eye(2), b=np.eye(2))
    with pytest.raises(ValueError, match=f"^{re.escape(str(two))}: expected one matrix"):
        read_fe_matrix(two)
    with pytest.raises(ValueError, match=f"^{re.escape(str(two))}: a: not a field of a reduced model"):
        load_reduced_model(two)
    short = tmp_path / "short.npz"
    np.savez(short, positions=nodes, stiffness=lam)
    with pytest.raises(ValueError, match=f"^{re.escape(str(short))}: mode_shapes: missing"):
        load_reduced_model(short)


def test_the_example_runs():
    res, data = fe.main(["--divisions", "10", "2", "2", "--modes", "3", "--t-final", "0.02"])
    assert res.status == "finished" and data.stiffness.shape == (3, 3) and res.q[-1, 0] > 0.0
