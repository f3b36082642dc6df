"""The check of each kernel variant a process loads (``algorithms/kernel_check.py``).

Its stored values are checked here against Pinocchio (computed outside this library), and
its stored data buffers against the check models' as built today (a changed buffer layout
fails here: then run ``python tests/test_kernel_check.py`` to write them anew); a poisoned
cache (the general mass matrix's cache entry holding the PIN-only variant's code) is caught
on load, repaired with a warning in that process, and gone in the next one.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pinocchio as pin
import pytest

import multibody as mb
from multibody.algorithms import entry, kernel_check

from flex_models import flexible_tree
from pin_convert import q_to_pin, to_pinocchio, u_perm

STORED = os.path.join(os.path.dirname(mb.__file__), "data", "kernel_check.npz")


def check_model(pins):
    """The check model of the PIN-only variants (``pins`` True: a branched tree of PIN links,
    one with armature), of the general ones (False: a quaternion free base carrying a pin, a
    rotation-vector spherical, a slider, a screw, a quaternion spherical and a
    rotation-vector free joint) or of the flex ones ("flex": a flexible tree of every kind,
    children hanging from deforming nodes, a modal body welded at a node, gravity)."""
    if pins == "flex":
        return flexible_tree(np.random.default_rng(4), gravity=(0.0, 0.0, -9.81))
    m = mb.Multibody()
    rot = np.array([[0.0, -0.6, 0.8], [1.0, 0.0, 0.0], [0.0, 0.8, 0.6]])

    def body(name, parent, kind, offset, **hinge):
        b = m.add_body(name, mass=0.8 + 0.1 * len(m.body_names), com=(0.05, -0.03, 0.12),
                       inertia=(0.02, 0.001, -0.002, 0.03, 0.0015, 0.025))
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = rot, offset
        m.add_hinge(parent, b, kind, T_parent_joint=T, **hinge)

    if pins:
        body("a", None, "pin", (0.0, 0.0, 0.1), axis=(0, 1, 0), armature=0.05)
        body("b", "a", "pin", (0.0, 0.1, -0.3), axis=(1, 0, 0))
        body("c", "b", "pin", (0.2, 0.0, -0.2), axis=(0.6, 0.0, 0.8))
        body("d", "a", "pin", (-0.1, 0.05, -0.25), axis=(0, 0, 1))
    else:
        body("base", None, "free_quat", (0.3, -0.2, 1.0))
        body("a", "base", "pin", (0.0, 0.1, -0.3), axis=(0, 1, 0), armature=0.05)
        body("b", "a", "spherical", (0.2, 0.0, -0.2))
        body("c", "base", "slider", (0.1, 0.2, 0.0), axis=(1, 0, 0))
        body("d", "c", "screw", (0.0, 0.1, 0.1), axis=(0, 0, 1), pitch=0.02)
        body("e", "base", "spherical_quat", (-0.2, 0.0, 0.1))
        body("f", "e", "free", (0.0, 0.0, -0.2))
    return m


def write_stored_values(path=STORED):
    """Write the check's data buffers, states and values, computed by today's kernels (run
    this file as a script; then the tests here check them against Pinocchio)."""
    values = {"layout": kernel_check.layout_signature()}
    for pins, key in ((True, "pins"), (False, "general"), ("flex", "flex")):
        m = check_model(pins)
        rng = np.random.default_rng({"pins": 1, "general": 2, "flex": 3}[key])
        state = (m.random_q(rng, scale=1.0, modal_scale=0.3 if key == "flex" else 0.0), *rng.normal(size=(3, m.nu)))
        values[f"{key}.data_buffer"] = m.create_data().buf.copy()
        values.update({f"{key}.{n}": v for n, v in zip(("q", "u", "udot", "tau"), state)})
        for name in entry.kernel_names(pins=key != "flex", flex=key == "flex"):  # (the general ones: as pins')
            kernel = entry.kernel_dispatcher(name, pins=key == "pins", flex=key == "flex")  # unchecked: compiled here
            value = kernel_check.evaluate(name, kernel, m.create_data().buf, state)
            if value is not None:  # (no check of the constraint rows: the check models have none)
                values[f"{key}.{name}"] = value
    np.savez_compressed(path, **values)


def test_the_stored_checks_are_of_todays_layout():
    assert kernel_check.current_layout("kernel_check") and kernel_check.current_layout("loop_check")


def test_checks_of_another_layout_are_skipped_with_a_warning(monkeypatch):
    monkeypatch.setattr(kernel_check, "layout_signature", lambda: np.array([12345]))
    monkeypatch.setattr(kernel_check, "_stale", set())
    with pytest.warns(RuntimeWarning, match="another buffer layout"):
        assert not kernel_check.current_layout("kernel_check")
    kernel_check.verify("mass_matrix", None, None, False)  # skipped: no kernel is run


def reference(pins):
    buf, state, ref = kernel_check.reference(pins)
    return check_model(pins), state, ref


@pytest.mark.parametrize("pins", [True, False, "flex"], ids=["pins", "general", "flex"])
def test_stored_data_buffers_are_the_check_models(pins):
    key = kernel_check.variant_key(pins)
    buf = kernel_check.stored_values("kernel_check", key + ".")[f"{key}.data_buffer"]  # (checks write into a copy)
    fresh = check_model(pins).create_data().buf
    # (to round-off, not to the bit: the check model's placements come from numpy's sin and cos,
    # whose last bits move with its version: one entry, -5.6e-17 stored against -8.2e-17 today;
    # the check at run time replays the stored buffer itself)
    assert buf.shape == fresh.shape and np.allclose(buf, fresh, rtol=1e-12, atol=1e-15, equal_nan=True), \
        "the buffer layout changed: write the stored values anew (python tests/test_kernel_check.py)"


@pytest.mark.parametrize("pins", [True, False], ids=["pins", "general"])
def test_stored_values_match_pinocchio(pins):
    m, (q, u, udot, tau), ref = reference(pins)
    pm = to_pinocchio(m)
    pd = pm.createData()
    qp, P = q_to_pin(m, q), u_perm(m)

    def close(ours, theirs, what):
        assert kernel_check.relative_error(ours, theirs) < 1e-12, what

    M = pin.crba(pm, pd, qp)
    close(ref["mass_matrix"][np.ix_(P, P)], np.triu(M) + np.triu(M, 1).T, "mass matrix")
    close(ref["inverse_dynamics"][P], pin.rnea(pm, pd, qp, u[P], udot[P]), "inverse dynamics")
    close(ref["forward_dynamics"][P], pin.aba(pm, pd, qp, u[P], tau[P]), "forward dynamics")
    ke = pin.computeKineticEnergy(pm, pd, qp, u[P]) + 0.5 * pm.armature @ u[P] ** 2  # rotors' energy: ours is 1/2 u^T M u
    com = pin.centerOfMass(pm, pd, qp)
    close(ref["kinetic_energy"], [ke], "kinetic energy")
    close(ref["mass_and_com"], np.r_[pd.mass[0], com], "mass and centre of mass")
    close(ref["trajectory_energies"], np.tile(np.r_[ke, pd.mass[0], com, 0.0], (2, 1)),
          "trajectory energies (no strain energy)")
    Minv = pin.computeMinverse(pm, pd, qp)
    close(ref["inverse_mass_matrix"][np.ix_(P, P)], np.triu(Minv) + np.triu(Minv, 1).T, "inverse mass matrix")
    # the frame operators by their identities with the values checked above (J u, J M^-1 J^T)
    nu = m.nu
    T, J = ref["frame_jacobian"][:16].reshape(4, 4), ref["frame_jacobian"][16:].reshape(6, nu)
    np.testing.assert_array_equal(T, ref["frame_pose"])
    assert np.abs(T[:3, :3] @ T[:3, :3].T - np.eye(3)).max() < 1e-14 and np.array_equal(T[3], [0, 0, 0, 1])
    close(ref["operational_space_compliance"][6:, 6:], J @ ref["inverse_mass_matrix"] @ J.T, "compliance")
    assert set(ref) == set(entry.kernel_names(pins=True))  # every kernel with a PIN-only variant is checked


def test_stored_flex_values_hold_the_equations_of_motion():
    """The flex variants' values (no peer library models modal bodies): M udot + b = tau,
    with b = ID(q, u, udot) - M udot, from the three recorded kernels at once."""
    m, (q, u, udot, tau), ref = reference("flex")
    M = ref["mass_matrix"]
    b = ref["inverse_dynamics"] - M @ udot
    assert np.array_equal(M, M.T)
    assert np.abs(M @ ref["forward_dynamics"] + b - tau).max() < 1e-10 * max(1.0, np.abs(tau).max(), np.abs(b).max())
    assert np.array_equal(ref["constrained_forward_dynamics"], ref["forward_dynamics"])  # (no constraint rows)
    # every flex variant is checked but the constraint rows' (the check model has none)
    assert set(ref) == set(entry.kernel_names(flex=True)) - {"constraint_rows"}


def test_stored_flex_operators_hold_their_identities():
    """The flex operators' values against the dynamics' and each other's (kernel_check's
    ``_evaluate_operator``): M^-1 M = I, velocity = J u, Upsilon at the last frame = J M^-1
    J^T, tau_ext = J^T (w1 + w2) of two wrenches there, the strain energy 1/2 eta^T K eta
    (from the model's K), and the trajectory's rows the single kernels' values."""
    m, (q, u, udot, tau), ref = reference("flex")
    c = m.compiled
    nu = c.nu
    Minv = ref["inverse_mass_matrix"]
    assert np.abs(Minv @ ref["mass_matrix"] - np.eye(nu)).max() < 1e-10
    T, J = ref["frame_jacobian"][:16].reshape(4, 4), ref["frame_jacobian"][16:].reshape(6, nu)
    np.testing.assert_allclose(T, ref["frame_pose"], rtol=0, atol=1e-14)
    np.testing.assert_allclose(ref["frame_velocity_acceleration"][:6], J @ u, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ref["operational_space_compliance"][6:, 6:], J @ Minv @ J.T, rtol=0, atol=1e-10)
    w = np.linspace(-1.0, 1.0, 12).reshape(2, 6)
    np.testing.assert_allclose(ref["external_generalized_forces"], J.T @ (w[0] + w[1]), rtol=0, atol=1e-12)
    strain = sum(0.5 * q[qs] @ c.flex.elastic_blocks(c.body_link[name])[0] @ q[qs]
                 for name, (qs, _) in c.modal_slices.items())
    assert strain > 0 and abs(ref["strain_energy"][0] - strain) <= 1e-14 * strain
    rows = ref["trajectory_energies"]
    np.testing.assert_array_equal(rows[0], np.r_[ref["kinetic_energy"], ref["mass_and_com"], ref["strain_energy"]])


@pytest.mark.parametrize("pins", [True, False, "flex"], ids=["pins", "general", "flex"])
def test_the_loaded_kernels_pass_their_check(pins):
    m, state, ref = reference(pins)
    flex = pins == "flex"
    for name in ref:
        kernel = getattr(entry.FLEX_KERNELS if flex else entry.PIN_KERNELS if pins else entry.KERNELS, name)
        assert kernel is entry.kernel_dispatcher(name, pins=pins is True, flex=flex)
        assert kernel_check.relative_error(kernel_check.evaluate(name, kernel, m.create_data().buf, state),
                                           ref[name]) < 1e-13


def test_the_callees_of_a_kernel_are_found():
    chain = kernel_check.package_callees(entry.kernel_dispatcher("mass_matrix"))
    names = [d.py_func.__name__ for d in chain]
    assert names[-1] == "mass_matrix" and {"crba_core", "place_links", "general_link_placement"} <= set(names)
    assert names.index("place_links") < names.index("crba_core")  # callees before their callers
    assert all(d.targetoptions.get("inline") != "always" for d in chain)  # inlined helpers have no code of their own


_PRIME = """
from multibody.algorithms import entry
for pins in (False, True):
    entry.kernel_dispatcher("mass_matrix", pins=pins).compile(entry._SIGNATURES["mass_matrix"][1])
"""

_USE = """
import warnings
import numpy as np
from test_kernel_check import check_model
m = check_model(False)   # a free base, a spherical, a screw ...: the general variant
q = m.random_q(np.random.default_rng(3))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    M = m.mass_matrix(q)
print("WARNINGS", len([w for w in caught if "compiled afresh" in str(w.message)]), "M", *M.ravel())
"""


def test_a_poisoned_cache_entry_is_caught_and_replaced(tmp_path):
    """Each process's mass matrix is compared with this one's, made on the suite's own cache
    (the PIN-only code gives another M on the general model: off by about its size); not
    with M udot + b = tau, which compiled forward and inverse dynamics afresh in the first
    process (the test measured 35-56 s before, 30-40 s after, 2026-11-27 on 2 shared cores)."""
    cache = tmp_path / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), MULTIBODY_NO_PREFETCH="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    run = [sys.executable, "-c"]
    subprocess.run(run + [textwrap.dedent(_PRIME)], env=env, check=True, timeout=600)
    general = list(cache.rglob("mass_matrix.mass_matrix-*.nbc"))
    pins = list(cache.rglob("mass_matrix.mass_matrix_pins-*.nbc"))
    assert len(general) == len(pins) == 1
    general[0].write_bytes(pins[0].read_bytes())  # the general entry now holds PIN-only code
    m = check_model(False)  # the same call in this process, on its own cache
    expected = m.mass_matrix(m.random_q(np.random.default_rng(3)))
    seen = []
    for _ in range(2):
        out = subprocess.run(run + [textwrap.dedent(_USE)], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        warned, M = out.stdout.split("WARNINGS")[-1].split("M")
        M = np.array(M.split(), dtype=float).reshape(expected.shape)
        seen.append((int(warned), np.abs(M - expected).max() / np.abs(expected).max()))
    assert seen[0][0] == 1 and seen[0][1] < 1e-12, seen  # caught, recompiled, right
    assert seen[1][0] == 0 and seen[1][1] < 1e-12, seen  # the replaced entry serves the next process


if __name__ == "__main__":
    write_stored_values()
    print(f"wrote {STORED}")
