"""The check of each stepping-loop variant a process loads (``simulation/loop_check.py``).

Its recorded runs (``data/loop_check.npz``; run this file as a script to record them anew
after a change of the loop's arguments) are checked here: every variant of the loop runs
its family's recording to the recorded numbers, the fixed-step runs of PIN links agree with
classic RK4 on the facade's forward dynamics, every run keeps its energy, the contact loop's
runs are simulate's; and a poisoned
cache entry (the PIN-only loop's code in the general variant's entry) is caught, repaired
with a warning, and gone in the next process.
"""
import copy
import itertools
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.algorithms.kernel_check import layout_signature, relative_error, stored_values
from multibody.simulation import kernels as K
from multibody.simulation import loop_check
from multibody.simulation.galpha import GeneralizedAlphaIntegrator
from multibody.simulation.integrators import RungeKuttaIntegrator
from multibody.simulation.moreau import MoreauIntegrator
from multibody.simulation.radau import RadauIntegrator

from flex_models import flex_state, flexible_tree
from test_contact_flex import RADIUS, beam_on_supports
from test_contact_flex_loops import RADIUS as RADIUS_FB
from test_contact_flex_loops import four_bar_on_floor
from test_contact_loops import a_frame
from test_kernel_check import check_model

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from four_bar import four_bar  # noqa: E402
from flexible_four_bar import flexible_four_bar  # noqa: E402

STORED = Path(mb.__file__).parent / "data" / "loop_check.npz"
STEPS, DT = 10, 2e-3


def family_model(kind):
    """(model, q0, u0) of a family's recorded run."""
    rng = np.random.default_rng(4)
    if kind in ("pins", "general"):
        m = check_model(kind == "pins")
        return m, m.random_q(rng, scale=1.0), rng.normal(size=m.nu)
    if kind == "ta":
        m = four_bar()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a planar loop: redundant rows
            cks = m.constraint_kinematics()
            q = cks.solve_q([1.67, -1.46, 1.54])
            return m, q, cks.solve_u(q, [2.0, 0.0, 0.0], frozen=["crank_joint"])
    if kind == "flexta":
        m, q = flexible_four_bar(EI=5.0)
        u = np.zeros(m.nu)
        u[0] = 2.0
        return m, q, m.constraint_kinematics().solve_u(q, u, frozen=[0])
    m = flexible_tree(rng, gravity=(0.0, 0.0, -9.81))
    return (m, *flex_state(m, rng))


def recorded(m, integ, dt, name):
    """(model, family name, loop variant, recorded values) of integrator ``integ``'s run of
    STEPS steps of dt from its start, whose loop variant must be of family ``name``."""
    n = integ.setup(STEPS * dt, dt)
    integ.ctr[K.C_WRITTEN] = 0
    run, args = integ.loop_call(np.zeros(n), np.zeros((n, m.nq)), np.zeros((n, m.nu)))
    assert loop_check.family(run) == name
    start = copy.deepcopy(args)
    out = loop_check.outputs(args, run(*args), loop_check.argument_places(name))
    return m, name, run, loop_check.pack(name, start, out)


def recorded_run(kind, lie, adaptive):
    """(model, family name, loop variant, recorded values) of a family's run from its start."""
    m, q0, u0 = family_model(kind)
    integ = RungeKuttaIntegrator(m, q0, u0, tableau="dopri5" if adaptive else "rk4", lie_group=bool(lie),
                                 rtol=1e-7, atol=1e-9, stabilization_gains=(0.0, 0.0) if kind.endswith("ta") else None)
    return recorded(m, integ, DT, f"{kind}_lie{lie}_adaptive{adaptive}")


FAMILIES = list(itertools.product(("pins", "general", "ta", "flex", "flexta"), (0, 1), (0, 1)))
MOREAU = ("moreau_tree", "moreau_loops", "moreau_flex", "moreau_flexloops")
IMPLICIT = list(itertools.product(("galpha", "radau"), ("tree", "ta", "flex", "flexta")))


def recorded_implicit_run(method, kind):
    """(model, family name, loop variant, recorded values) of an implicit loop family's run:
    generalized-alpha's fixed steps or Radau's adaptive ones from the Runge-Kutta families'
    start (``family_model``; the tree of all kinds for "tree"), at their default options."""
    m, q0, u0 = family_model("general" if kind == "tree" else kind)
    integ = (GeneralizedAlphaIntegrator if method == "galpha" else RadauIntegrator)(m, q0, u0)
    return recorded(m, integ, DT, f"{method}_{kind}")


def moreau_model(kind):
    """(model, q0, u0) of a contact loop family's recorded run: a cube sliding and spinning on
    a floor (friction acting), the A-frame of test_contact_loops standing (its tie closed by
    a pin loop) with its base pushed sideways, the flexible beam of test_contact_flex
    landing on its supports, one end first, the flexible four-bar of
    test_contact_flex_loops with its coupler's sphere moving down onto the floor."""
    if kind == "moreau_tree":
        m = mb.Multibody("cube")
        m.add_body("cube", mass=1.0, inertia=np.eye(3) / 600)
        m.add_hinge("world", "cube", kind="free")
        m.add_collision("cube", mb.Box((0.1, 0.1, 0.1)), friction=0.5)
        m.add_collision("world", mb.Plane(), friction=0.5)
        q0 = m.neutral_q()
        q0[-1] = 0.05
        return m, q0, np.array([0.0, 0.0, 3.0, 2.0, 0.5, 0.0])
    if kind == "moreau_loops":
        m, q0 = a_frame()
        u0 = np.zeros(m.nu)
        u0[m.u_slice("base").start + 3] = 0.3
        return m, q0, u0
    if kind == "moreau_flexloops":  # (the floor 1 mm under the sphere, the crank turning it down)
        m, q0 = four_bar_on_floor()
        m, q0 = four_bar_on_floor(floor=m.frame_pose(q0, "coupler_mid")[2, 3] - RADIUS_FB - 1e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a planar loop: redundant rows)
            return m, q0, m.constraint_kinematics().solve_u(q0, np.r_[2.0, np.zeros(m.nu - 1)], frozen=[0])
    m, _ = beam_on_supports(4)
    q0 = np.zeros(m.nq)  # (x, y, z, pitch, eta)
    q0[2] = RADIUS  # its end spheres on the floor
    u0 = np.zeros(m.nu)
    u0[2], u0[3] = -0.2, 0.5  # landing, one end first
    return m, q0, u0


def moreau_dt(kind):
    """The step [s] of a contact loop family's recorded run (the beam's modes need 0.1 ms)."""
    return 1e-4 if kind == "moreau_flex" else 1e-3 if kind == "moreau_flexloops" else DT


def recorded_moreau_run(kind):
    """(model, family name, loop variant, recorded values) of a contact loop family's run."""
    m, q0, u0 = moreau_model(kind)
    return recorded(m, MoreauIntegrator(m, q0, u0), moreau_dt(kind), kind)


def write_recordings(path=STORED):
    values = {"layout": layout_signature()}
    for kind, lie, adaptive in FAMILIES:
        values.update(recorded_run(kind, lie, adaptive)[3])
    for kind in MOREAU:
        values.update(recorded_moreau_run(kind)[3])
    for method, kind in IMPLICIT:
        values.update(recorded_implicit_run(method, kind)[3])
    np.savez_compressed(path, **values)


@pytest.mark.parametrize("kind,lie,adaptive", FAMILIES)
def test_recorded_runs_are_todays_and_keep_energy(kind, lie, adaptive):
    m, name, run, values = recorded_run(kind, lie, adaptive)
    args, out = loop_check.unpack(name, values)
    stored_args, stored = loop_check.unpack(name, stored_values("loop_check", name + "."))
    assert np.array_equal(values[f"{name}.spec"], stored_values("loop_check", name + ".")[f"{name}.spec"])
    # today's flexible four-bar is built through LAPACK (eigh for its beam's modes, a least-squares
    # closing of its loop), whose last bits move with the library's version: q 3.3e-12 and u
    # 2.2e-10 off after the numpy/scipy of 2026-11-27, the same at 582d18c as now (the check at
    # run time replays the recorded inputs themselves, bit for bit)
    tol = 1e-9 if kind == "flexta" else 1e-12
    for k in loop_check.OUTPUTS:
        assert relative_error(out[k], stored[k]) < tol, f"{name}: {k}"
    assert out["status"][1] >= (STEPS if not adaptive else 1)
    energy = [m.kinetic_energy(q, u) + m.potential_energy(q) for q, u in zip(out["Q"], out["U"])]
    assert np.ptp(energy) < 1e-5 * max(1.0, np.abs(energy).max()), f"{name}: energy moves by {np.ptp(energy)}"


@pytest.mark.parametrize("kind", MOREAU)
def test_recorded_contact_runs_are_todays_and_simulates(kind):
    """The contact loop's recordings: today's run of each family gives them, and they are
    the samples ``simulate`` gives on the same scene (the public path, to the bit)."""
    m, name, run, values = recorded_moreau_run(kind)
    args, out = loop_check.unpack(name, values)
    stored = stored_values("loop_check", name + ".")
    assert np.array_equal(values[f"{name}.spec"], stored[f"{name}.spec"])
    _, recorded = loop_check.unpack(name, stored)
    tol = 1e-9 if kind.startswith("moreau_flex") else 0.0  # (the beams' modes come from LAPACK, as flexta's)
    for k in loop_check.OUTPUTS:
        assert relative_error(out[k], recorded[k]) <= tol, f"{name}: {k}"
    assert out["status"][1] == STEPS and np.all(np.isfinite(out["Q"]))
    _, q0, u0 = moreau_model(kind)
    res = mb.simulate(m, q0, u0, STEPS * moreau_dt(kind), dt=moreau_dt(kind))
    np.testing.assert_array_equal(res.q[1:], out["Q"])
    np.testing.assert_array_equal(res.u[1:], out["U"])
    assert res.contacts is None and len(res.contact_warm_start) > 0  # (contacts were made)


#: (q, u) agreement of each implicit recording's end state with dopri5 at 1e-11, ten times
#: what was measured: Radau's at rtol 1e-6 to 2.5e-10 and 8.7e-8; generalized-alpha (second
#: order, 2 ms steps) to 1e-7-6e-7 and 2e-7-3.6e-6, on the flexible four-bar's fast modes
#: to 1.1e-3 and 4.4e-2 (16x less at 0.5 ms and again at 0.125 ms: its order, not a fault)
AGREE = {"galpha_tree": (1e-6, 2e-6), "galpha_ta": (1e-6, 2e-6), "galpha_flex": (6e-6, 4e-5),
         "galpha_flexta": (1.1e-2, 0.44), "radau_tree": (1e-8, 1e-6), "radau_ta": (1e-8, 1e-6),
         "radau_flex": (1e-8, 1e-6), "radau_flexta": (1e-8, 1e-6)}


@pytest.mark.parametrize("method,kind", IMPLICIT)
def test_recorded_implicit_runs_are_todays_and_follow_the_dynamics(method, kind):
    """The implicit loops' recordings: today's run of each family gives them, and its end
    state is the dynamics' (dopri5 at 1e-11 on the same model, the same Baumgarte gains)."""
    m, name, run, values = recorded_implicit_run(method, kind)
    args, out = loop_check.unpack(name, values)
    stored = stored_values("loop_check", name + ".")
    assert np.array_equal(values[f"{name}.spec"], stored[f"{name}.spec"])
    _, recorded = loop_check.unpack(name, stored)
    tol = 1e-9 if kind.startswith("flex") else 1e-12  # (LAPACK-built models, as flexta's above)
    for k in loop_check.OUTPUTS:
        assert relative_error(out[k], recorded[k]) < tol, f"{name}: {k}"
    w = int(out["status"][1])
    assert w >= 1 and np.all(np.isfinite(out["Q"])) and out["T"][-1] == pytest.approx(STEPS * DT, rel=1e-12)
    _, q0, u0 = family_model("general" if kind == "tree" else kind)
    ref = mb.simulate(m, q0, u0, STEPS * DT, dt=STEPS * DT, integrator="dopri5", rtol=1e-11, atol=1e-11)
    assert relative_error(out["q"], ref.q[-1]) < AGREE[name][0], f"{name}: q"
    assert relative_error(out["u"], ref.u[-1]) < AGREE[name][1], f"{name}: u"


def test_pin_runs_agree_with_classic_rk4_on_the_facade():
    m, name, run, values = recorded_run("pins", 0, 0)
    args, out = loop_check.unpack(name, values)
    state = np.concatenate(args[12:14])  # q0, u0
    nq = m.nq

    def rate(x):
        return np.concatenate([x[nq:], m.forward_dynamics(x[:nq], x[nq:], np.zeros(m.nu))])  # PIN links: q' = u

    for k in range(STEPS):
        k1 = rate(state)
        k2 = rate(state + 0.5 * DT * k1)
        k3 = rate(state + 0.5 * DT * k2)
        k4 = rate(state + DT * k3)
        state = state + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        assert relative_error(np.concatenate([out["Q"][k], out["U"][k]]), state) < 1e-13


_PRIME = """
import numpy as np, multibody as mb
from test_kernel_check import check_model
for pins in (True, False):
    m = check_model(pins)
    mb.simulate(m, m.neutral_q(), np.zeros(m.nu), 0.01, dt=1e-3)
"""

_USE = """
import warnings
import numpy as np, multibody as mb
from test_kernel_check import check_model
m = check_model(False)
q0 = m.random_q(np.random.default_rng(5), scale=1.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    res = mb.simulate(m, q0, np.zeros(m.nu), 0.05, dt=1e-3)
print("WARNINGS", len([w for w in caught if "compiled afresh" in str(w.message)]), "FINAL", *res.q[-1], *res.u[-1])
"""


def test_a_poisoned_loop_entry_is_caught_and_replaced(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), MULTIBODY_NO_PREFETCH="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    subprocess.run([sys.executable, "-c", textwrap.dedent(_PRIME)], env=env, check=True, timeout=600)
    stem = "kernels.run_lie0_ta0_links0_adaptive0_controlled0_flex0_pins"
    general, pins = (list(cache.rglob(f"{stem}{p}-*.nbc")) for p in "01")
    assert len(general) == len(pins) == 1, sorted(p.name for p in cache.rglob("kernels.run_*"))
    general[0].write_bytes(pins[0].read_bytes())  # the general loop's entry now holds PIN-only code
    m = check_model(False)  # the same run in this process, on its own cache
    res = mb.simulate(m, m.random_q(np.random.default_rng(5), scale=1.0), np.zeros(m.nu), 0.05, dt=1e-3)
    expected = np.r_[res.q[-1], res.u[-1]]
    seen = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(_USE)], env=env, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        warned, final = out.stdout.split("WARNINGS")[-1].split("FINAL")
        seen.append((int(warned), relative_error(np.array(final.split(), dtype=float), expected)))
    assert seen[0][0] == 1 and seen[0][1] < 1e-12, seen  # caught, recompiled, right
    assert seen[1][0] == 0 and seen[1][1] < 1e-12, seen  # the replaced entry serves the next process


def test_a_recording_of_other_arguments_is_skipped_never_run():
    """A recording whose arguments have another structure than the run's own (an array
    added to a work tuple, a matrix where a vector was) is skipped with a warning: handed to
    today's loop it would be read past its end."""
    m, q0, u0 = moreau_model("moreau_tree")
    integ = MoreauIntegrator(m, q0, u0)
    n = integ.setup(STEPS * DT, DT)
    run, args = integ.loop_call(np.zeros(n), np.zeros((n, m.nq)), np.zeros((n, m.nu)))
    loop_check.verify(run, args)  # (its own structure: checked, silently)
    grown = list(args)
    i = next(k for k, a in enumerate(args) if isinstance(a, tuple))
    grown[i] = args[i] + (np.zeros(3),)
    flat = list(args)
    j = next(k for k, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim == 1)
    flat[j] = args[j][None, :]
    for other in (grown, flat):
        with pytest.warns(RuntimeWarning, match="no recording of this version's arguments.*moreau_tree"):
            loop_check.verify(run, tuple(other))
    assert loop_check.structure(args) != loop_check.structure(grown)


if __name__ == "__main__":
    write_recordings()
    print(f"wrote {STORED}")
