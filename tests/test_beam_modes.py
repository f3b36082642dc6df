"""Beam modes by finite elements (multibody.flex): frequencies against closed forms and
the exact Timoshenko frequency equation, unit modal mass, static deflection (and the tip's
attachment modes, ``static_modes``), the modal
integrals, centrifugal stiffening (Southwell), and the modal data file format."""
import numpy as np
import pytest

pytest.importorskip("scipy")
from scipy.linalg import eigh, expm  # noqa: E402
from scipy.integrate import simpson  # noqa: E402
from scipy.optimize import brentq  # noqa: E402

from multibody.flex import ModalData, beam_modes, load_modal_data  # noqa: E402
from multibody.flex.beam_element import BeamElement, assemble  # noqa: E402

CANTILEVER_BL = np.array([1.875104, 4.694091, 7.854757, 10.995541])
FREE_FREE_BL = np.array([4.730041, 7.853205, 10.995608, 14.137165])

# steel bar with a square 0.1 m section (Timoshenko cases)
E, NU, RHO, KAPPA, B = 2.1e11, 0.3, 7850.0, 5.0 / 6.0, 0.1


def section(h):
    """(EI, rhoA, kappa G A, rhoI) of a B x h rectangle bending about its B side."""
    A, I = B * h, B * h**3 / 12.0
    return E * I, RHO * A, KAPPA * E / (2.0 * (1.0 + NU)) * A, RHO * I


def closed_form(bl, L, EI, rhoA):
    return bl**2 * np.sqrt(EI / (rhoA * L**4))


# --- the exact Timoshenko frequency equation (our derivation) --------------------------
# State y = (w, psi, Q, M) with shear force Q = kGA (w' - psi) and moment M = EI psi'.
# Harmonic motion at omega: w' = psi + Q/kGA, psi' = M/EI, Q' = -rhoA omega^2 w,
# M' = -rhoI omega^2 psi - Q; so y(L) = expm(A L) y(0). Clamped-free: (w, psi)(0) = 0 and
# (Q, M)(L) = 0, i.e. det T[2:, 2:] = 0; free-free: (Q, M) = 0 at both ends, det T[2:, :2] = 0.

def _frequency_equation(omega, L, EI, rhoA, shear_compliance, rhoI, boundary):
    w2 = omega * omega
    A = np.array([[0.0, 1.0, shear_compliance, 0.0], [0.0, 0.0, 0.0, 1.0 / EI],
                  [-rhoA * w2, 0.0, 0.0, 0.0], [0.0, -rhoI * w2, -1.0, 0.0]])
    T = expm(A * L)
    return np.linalg.det(T[2:, 2:] if boundary == "cantilever" else T[2:, :2])


def exact_frequencies(n, omega_max, L, EI, rhoA, kGA, rhoI, boundary):
    args = (L, EI, rhoA, 0.0 if kGA is None else 1.0 / kGA, rhoI, boundary)
    grid = np.linspace(omega_max * 1e-4, omega_max, 3000)
    f = np.array([_frequency_equation(w, *args) for w in grid])
    roots = [brentq(_frequency_equation, grid[i], grid[i + 1], args=args, xtol=1e-12, rtol=1e-14)
             for i in np.nonzero(np.sign(f[:-1]) != np.sign(f[1:]))[0]]
    assert len(roots) >= n
    return np.array(roots[:n])


# --- (a), (b): Euler-Bernoulli frequencies ---------------------------------------------

@pytest.mark.parametrize("boundary, bl", [("cantilever", CANTILEVER_BL), ("free-free", FREE_FREE_BL)])
def test_euler_bernoulli_frequencies_match_closed_form(boundary, bl):
    L, EI, rhoA = 2.0, 350.0, 1.7
    md = beam_modes(L, EI, rhoA, n_elements=40, n_modes=4, boundary=boundary)
    np.testing.assert_allclose(md.frequencies, closed_form(bl, L, EI, rhoA), rtol=1e-3)
    np.testing.assert_allclose(md.frequencies, closed_form(bl, L, EI, rhoA), rtol=3e-5)  # measured 1e-5
    np.testing.assert_allclose(md.stiffness, md.frequencies**2)
    np.testing.assert_array_equal(md.modal_mass, np.eye(4))
    np.testing.assert_array_equal(md.damping, np.zeros(4))


def test_exact_frequency_equation_reproduces_euler_bernoulli():
    """The transfer-matrix solver itself, with no shear compliance and no rotary inertia."""
    for boundary, bl in (("cantilever", CANTILEVER_BL), ("free-free", FREE_FREE_BL)):
        ref = closed_form(bl, 1.0, 1.0, 1.0)
        got = exact_frequencies(4, 1.1 * ref[-1], 1.0, 1.0, 1.0, None, 0.0, boundary)
        np.testing.assert_allclose(got, ref, rtol=2e-6)


def test_free_free_rigid_modes():
    L, EI, rhoA = 1.5, 10.0, 2.0
    md = beam_modes(L, EI, rhoA, n_modes=5, boundary="free-free", include_rigid=True,
                    bending_axis="y", nodes=[0.0, L / 2, L])
    assert md.frequencies[:2].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(md.frequencies[2:], closed_form(FREE_FREE_BL[:3], L, EI, rhoA), rtol=1e-4)
    m = rhoA * L
    # translation along y: every node moves 1/sqrt(m), no rotation
    np.testing.assert_allclose(md.mode_shapes[:, 4, 0], 1 / np.sqrt(m))
    np.testing.assert_allclose(md.mode_shapes[:, :3, 0], 0.0, atol=1e-14)
    np.testing.assert_allclose(md.S[:, 0], [0, np.sqrt(m), 0])
    # rotation about the centre of mass about +z: the middle node does not move
    assert abs(md.mode_shapes[1, 4, 1]) < 1e-12 and md.mode_shapes[1, 2, 1] > 0
    np.testing.assert_allclose(md.S[:, 1:], 0.0, atol=1e-8)  # elastic modes move no mass


# --- (c): Timoshenko ----------------------------------------------------------------------

@pytest.mark.parametrize("boundary", ["cantilever", "free-free"])
def test_timoshenko_matches_exact_frequency_equation_for_a_stubby_beam(boundary):
    L, h = 0.5, 0.1  # L/h = 5
    EI, rhoA, kGA, rhoI = section(h)
    eb = beam_modes(L, EI, rhoA, n_elements=40, n_modes=4, boundary=boundary).frequencies
    md = beam_modes(L, EI, rhoA, n_elements=160, n_modes=4, boundary=boundary,
                    theory="timoshenko", GA_kappa=kGA, rhoI=rhoI)
    exact = exact_frequencies(4, 1.1 * eb[-1], L, EI, rhoA, kGA, rhoI, boundary)
    np.testing.assert_allclose(md.frequencies, exact, rtol=1e-3)  # measured <= 1.7e-4
    assert np.all(md.frequencies < 0.98 * eb)  # shear and rotary inertia lower them (3% to 46%)
    assert np.all(np.diff(md.frequencies / eb) < 0)  # more so for higher modes


def test_timoshenko_converges_to_euler_bernoulli_for_a_slender_beam():
    L, h = 10.0, 0.01  # L/h = 1000
    EI, rhoA, kGA, rhoI = section(h)
    md = beam_modes(L, EI, rhoA, n_elements=40, n_modes=4, theory="timoshenko", GA_kappa=kGA, rhoI=rhoI)
    np.testing.assert_allclose(md.frequencies, closed_form(CANTILEVER_BL, L, EI, rhoA), rtol=1e-4)


# --- (d): normalisation, static deflection, mode shapes and modal integrals --------------

@pytest.mark.parametrize("theory", ["euler-bernoulli", "timoshenko"])
def test_unit_modal_mass_on_the_finite_element_mass_matrix(theory):
    L, EI, rhoA, kGA, rhoI, n_el = 1.2, 40.0, 3.0, 900.0, 0.02, 20
    grid = np.linspace(0.0, L, n_el + 1)
    md = beam_modes(L, EI, rhoA, n_elements=n_el, n_modes=6, theory=theory, nodes=grid,
                    GA_kappa=kGA if theory == "timoshenko" else None, rhoI=rhoI)
    phi = np.empty((2 * (n_el + 1), 6))  # nodal (w, psi); d = z, n = x cross z = -y
    phi[0::2] = md.mode_shapes[:, 5, :]
    phi[1::2] = -md.mode_shapes[:, 1, :]
    element = BeamElement(L / n_el, EI / kGA if theory == "timoshenko" else 0.0)
    K, M, _ = assemble(element, n_el, EI, rhoA, rhoI)
    np.testing.assert_allclose(phi.T @ M @ phi, np.eye(6), atol=1e-10)
    np.testing.assert_allclose(phi.T @ K @ phi, np.diag(md.stiffness), rtol=1e-9, atol=1e-8 * md.stiffness[-1])
    assert np.all(md.mode_shapes[-1, 5, :] > 0)  # sign convention: tip deflection positive


@pytest.mark.parametrize("theory", ["euler-bernoulli", "timoshenko"])
def test_tip_deflection_under_a_tip_load_from_the_modes(theory):
    L, EI, rhoA, kGA, P, n_el = 1.5, 200.0, 2.0, 5e3, 3.0, 20
    extra = dict(theory="timoshenko", GA_kappa=kGA) if theory == "timoshenko" else {}
    exact = P * L**3 / (3 * EI) + (P * L / kGA if extra else 0.0)
    # Euler-Bernoulli: 8 modes within 0.1%; all modes (either theory): the exact FE solution
    for n_modes, rtol in (((8, 1e-3),) if not extra else ()) + ((2 * n_el, 1e-8),):
        md = beam_modes(L, EI, rhoA, n_elements=n_el, n_modes=n_modes, **extra)
        tip = md.mode_shapes[0, 5, :]  # z translation of the tip per mode
        eta = tip * P / md.stiffness  # modal static response to the generalized force
        assert tip @ eta == pytest.approx(exact, rel=rtol)


@pytest.mark.parametrize("n_modes, kGA", [(2, None), (5, None), (3, 900.0)])
def test_static_modes_hold_the_exact_tip_response_and_keep_the_normal_modes(n_modes, kGA):
    """static_modes: the modes stay M-orthonormal and K-diagonal on the FE model, the lowest
    n_modes - 2 are the plain normal modes, and the basis holds the exact static deflection
    and slope under a tip force P and a tip moment C (P L^3 / 3EI, P L^2 / 2EI; C L^2 / 2EI,
    C L / EI; Timoshenko: + P L / kGA), which the normal modes alone only approach."""
    L, EI, rhoA, n_el, P, C = 1.2, 40.0, 3.0, 12, 2.0, 0.7
    grid = np.linspace(0.0, L, n_el + 1)
    extra = dict(theory="timoshenko", GA_kappa=kGA) if kGA else {}
    md = beam_modes(L, EI, rhoA, n_elements=n_el, n_modes=n_modes, nodes=grid, static_modes=True, **extra)
    phi = np.empty((2 * (n_el + 1), n_modes))  # nodal (w, psi); d = z, n = -y
    phi[0::2], phi[1::2] = md.mode_shapes[:, 5, :], -md.mode_shapes[:, 1, :]
    K, M, _ = assemble(BeamElement(L / n_el, EI / kGA if kGA else 0.0), n_el, EI, rhoA, 0.0)
    np.testing.assert_allclose(phi.T @ M @ phi, np.eye(n_modes), atol=1e-10)
    np.testing.assert_allclose(phi.T @ K @ phi, np.diag(md.stiffness), rtol=1e-9, atol=1e-9 * md.stiffness[-1])
    assert np.all(np.diff(md.stiffness) > 0) and md.meta["static_modes"]
    plain = beam_modes(L, EI, rhoA, n_elements=n_el, n_modes=n_modes - 2 or 1, nodes=grid, **extra)
    k = n_modes - 2
    np.testing.assert_allclose(md.stiffness[:k], plain.stiffness[:k], rtol=1e-12)
    np.testing.assert_allclose(md.mode_shapes[..., :k], plain.mode_shapes[..., :k], atol=1e-10)
    shear = P * L / kGA if kGA else 0.0
    for load, exact in (([P, 0.0], [P * L**3 / (3 * EI) + shear, P * L**2 / (2 * EI)]),
                        ([0.0, C], [C * L**2 / (2 * EI), C * L / EI])):
        tip = phi[-2:]  # (w, psi) at x = L per mode
        eta = (tip.T @ load) / md.stiffness  # modal static response to the generalized force
        np.testing.assert_allclose(tip @ eta, exact, rtol=1e-8)
    alone = beam_modes(L, EI, rhoA, n_elements=n_el, n_modes=n_modes, nodes=[L], **extra)
    tip = alone.mode_shapes[0, [5, 1], :] * [[1.0], [-1.0]]
    assert abs(tip[1] @ (tip[1] * C / alone.stiffness) / (C * L / EI) - 1.0) > 1e-2  # the moment's slope


def test_mode_shape_rotation_is_the_slope_in_a_right_handed_frame():
    L, EI, rhoA = 1.0, 5.0, 1.0
    x = np.linspace(0.1, 0.9, 9)
    for axis, bend in (("x", "z"), ("x", "y"), ("y", "z"), ("z", "x")):
        a = np.eye(3)["xyz".index(axis)]
        dx = 1e-6
        nodes = np.concatenate([x - dx, x + dx, x])
        md = beam_modes(L, EI, rhoA, n_modes=3, axis=axis, bending_axis=bend, nodes=nodes)
        np.testing.assert_allclose(md.node_positions, nodes[:, None] * a[None, :])
        t = md.mode_shapes[:, 3:, :]
        slope = (t[9:18] - t[:9]) / (2 * dx)  # d(translation)/ds along the beam
        rot = np.cross(a[None, :, None], slope, axis=1)  # the small rotation a x u'
        np.testing.assert_allclose(md.mode_shapes[18:, :3, :], rot, rtol=1e-6, atol=1e-6)


def test_modal_integrals_against_quadrature_of_the_mode_shapes():
    L, EI, rhoA, rhoI = 2.0, 30.0, 1.5, 0.05
    s = np.linspace(0.0, L, 4001)
    md = beam_modes(L, EI, rhoA, n_modes=4, rhoI=rhoI, nodes=s, bending_axis="y")
    w = md.mode_shapes[:, 4, :]  # y translation
    psi = md.mode_shapes[:, 2, :]  # rotation about z = x cross y
    trap = lambda f: simpson(f, x=s, axis=0)  # noqa: E731
    np.testing.assert_allclose(md.S[1], trap(rhoA * w), rtol=1e-6)
    np.testing.assert_allclose(md.S_rot[2], trap(rhoA * s[:, None] * w + rhoI * psi), rtol=1e-6)
    np.testing.assert_array_equal(md.S[[0, 2]], 0.0)
    np.testing.assert_allclose(trap(rhoA * w * w + rhoI * psi * psi), np.ones(4), rtol=1e-6)
    assert md.mass == pytest.approx(rhoA * L)
    np.testing.assert_allclose(md.com, [L / 2, 0, 0])
    m = rhoA * L
    np.testing.assert_allclose(md.inertia, np.diag([0.0, m * L**2 / 12, m * L**2 / 12 + rhoI * L]))


# --- (e): centrifugal stiffening -------------------------------------------------------

def test_spinning_cantilever_follows_southwell():
    """omega^2 = omega_0^2 + k1 Omega^2 with k1 = 1.193 (first mode, clamped at the spin axis);
    the full rotating-beam frequencies agree with published values for a uniform blade
    (dimensionless omega at Omega = 1..5, e.g. Hodges and Rutkowski, AIAA J. 1981)."""
    md = beam_modes(1.0, 1.0, 1.0, n_elements=40, n_modes=8)
    assert md.Kg_centrifugal[0, 0] == pytest.approx(1.193, rel=1e-2)  # measured 1.19332
    np.testing.assert_allclose(md.Kg_centrifugal, md.Kg_centrifugal.T)
    published = [3.6816, 4.1373, 4.7973, 5.5850, 6.4495]
    for spin, ref in zip(range(1, 6), published):
        lam = eigh(np.diag(md.stiffness) + spin**2 * md.Kg_centrifugal, md.modal_mass, eigvals_only=True)
        k1 = (lam[0] - md.stiffness[0]) / spin**2
        if spin <= 3:  # the relation is a small-spin one: k1 drifts to 1.177 at spin 4
            assert k1 == pytest.approx(1.193, rel=1e-2)
        assert np.sqrt(lam[0]) == pytest.approx(ref, rel=1e-4)
    # scales as rhoA L^2 / (modal mass): the same for any units
    md2 = beam_modes(3.0, 7.0, 2.0, n_elements=40, n_modes=8)
    np.testing.assert_allclose(md2.Kg_centrifugal, md.Kg_centrifugal, rtol=1e-9, atol=1e-9)


# --- (f): the file format and bad input ------------------------------------------------

def _sample_data():
    return beam_modes(1.0, 2.0, 3.0, n_modes=3, nodes=[0.25, 0.5, 1.0], damping_ratio=0.02,
                      theory="timoshenko", GA_kappa=100.0, rhoI=0.01)


def _assert_same(a, b):
    for name, value in a.arrays().items():
        got = getattr(b, name)
        assert got.dtype == value.dtype and got.shape == value.shape, name
        assert got.tobytes() == value.tobytes(), name  # bit for bit
    assert b.meta == a.meta


@pytest.mark.parametrize("suffix", [".npz", ".h5", ".hdf5"])
def test_save_load_round_trip_is_bit_exact(tmp_path, suffix):
    if suffix != ".npz":
        pytest.importorskip("h5py")
    md = _sample_data()
    path = tmp_path / f"beam{suffix}"
    md.save(path)
    back = load_modal_data(path)
    _assert_same(md, back)
    assert back.meta["theory"] == "timoshenko"
    np.testing.assert_allclose(back.damping, 2 * 0.02 * md.frequencies)
    assert not list(tmp_path.glob(".modal-*"))
    no_kg = md.replace(Kg_centrifugal=None)
    no_kg.save(path)
    assert load_modal_data(path).Kg_centrifugal is None


def test_hdf5_without_h5py_says_how_to_install_it(tmp_path, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_h5py(name, *args, **kwargs):
        if name == "h5py":
            raise ImportError("No module named 'h5py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_h5py)
    with pytest.raises(ImportError, match="pip install h5py"):
        _sample_data().save(tmp_path / "beam.h5")
    assert not list(tmp_path.iterdir())


def test_bad_files_name_the_field(tmp_path):
    md = _sample_data()
    fields = {k: np.asarray(v) for k, v in md.arrays().items()}
    good = dict(format=np.array("multibody.modal_data"), version=np.array(1), meta=np.array("{}"))
    cases = {
        "mode_shapes": dict(fields, mode_shapes=fields["mode_shapes"][:, :5]),
        "stiffness": dict(fields, stiffness=-fields["stiffness"]),
        "modal_mass": dict(fields, modal_mass=np.diag([1.0, 1.0, -1.0])),
        "node_positions": {k: v for k, v in fields.items() if k != "node_positions"},
    }
    for field, arrays in cases.items():
        path = tmp_path / f"bad_{field}.npz"
        np.savez(path, **good, **arrays)
        with pytest.raises(ValueError, match=field):
            load_modal_data(path)
    path = tmp_path / "other.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(ValueError, match="format"):
        load_modal_data(path)
    with pytest.raises(ValueError, match="path"):
        md.save(tmp_path / "beam.txt")
    with pytest.raises(FileNotFoundError, match="path"):
        load_modal_data(tmp_path / "missing.npz")


def test_construction_validates_and_names_the_field():
    md = _sample_data()
    f = dict(md.arrays(), meta=md.meta)
    n = md.n_modes
    bad = {
        "mode_shapes": np.zeros((3, 3, n)),
        "stiffness": np.ones(n + 1),
        "modal_mass": np.triu(np.ones((n, n))),  # not symmetric
        "damping": -np.ones(n),
        "inertia": -np.eye(3),
        "mass": 0.0,
        "S": np.zeros((2, n)),
        "Kg_centrifugal": np.full((n, n), np.nan),
        "meta": {"x": object()},
    }
    for field, value in bad.items():
        with pytest.raises(ValueError, match=field):
            ModalData(**dict(f, **{field: value}))
    with pytest.raises(ValueError, match="modal_mass"):
        ModalData(**dict(f, modal_mass=np.diag([1.0, 0.0, 1.0])))  # symmetric, not definite
    with pytest.raises(ValueError, match="color"):
        md.replace(color=1)
    assert not md.stiffness.flags.writeable


@pytest.mark.parametrize("kwargs, field", [
    (dict(length=-1.0), "length"), (dict(EI=0.0), "EI"), (dict(rhoA=np.nan), "rhoA"),
    (dict(n_elements=0), "n_elements"), (dict(n_modes=2.5), "n_modes"),
    (dict(n_modes=100, n_elements=10), "n_modes"), (dict(boundary="pinned"), "boundary"),
    (dict(theory="rayleigh"), "theory"), (dict(theory="timoshenko"), "GA_kappa"),
    (dict(theory="timoshenko", GA_kappa=-1.0), "GA_kappa"), (dict(rhoI=-0.1), "rhoI"),
    (dict(axis="w"), "axis"), (dict(bending_axis="x"), "bending_axis"),
    (dict(nodes=[0.5, 1.5]), "nodes"), (dict(nodes=[]), "nodes"),
    (dict(include_rigid=True), "include_rigid"), (dict(damping_ratio=-0.1), "damping_ratio"),
    (dict(static_modes=True, boundary="free-free"), "static_modes"), (dict(static_modes=1), "static_modes"),
    (dict(static_modes=True, n_modes=1), "n_modes"), (dict(static_modes=True, n_elements=2, n_modes=5), "n_modes"),
])
def test_beam_modes_bad_arguments_name_the_argument(kwargs, field):
    args = dict(length=1.0, EI=1.0, rhoA=1.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=field):
        beam_modes(**args)


def test_docs_page_code_runs(tmp_path, monkeypatch):
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "modal_data.md").read_text(encoding="utf-8")
    blocks = [b.split("```")[0] for b in text.split("```python\n")[1:]]
    assert blocks
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for code in blocks:
        exec(compile(code, "modal_data.md", "exec"), namespace)
    assert (tmp_path / "tube.npz").is_file()
