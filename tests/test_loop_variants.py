"""The stepping loop's compiled variants (``simulation.kernels.entry_point``): each run takes
the leanest variant that serves it, and every variant gives the same trajectory as the
general one (all flags on, as iopt says) bit for bit."""
import os
import subprocess
import sys

import numpy as np
import pytest

import multibody as mb
from multibody.simulation import ExternalForce, JointSpringDamper, simulate
from multibody.simulation import force_kernels as F
from multibody.simulation import kernels as K


def arm():
    """A 4-link arm with a spherical wrist and a slider: PIN, SPHERICAL and SLIDER links."""
    m = mb.Multibody()
    m.add_serial_chain("l", 3, kind="pin", axis=(0, 1, 0), mass=1.0, length=0.4, inertia=np.diag([0.02] * 3))
    w = m.add_body("wrist", mass=0.5, com=(0.0, 0.0, -0.1), inertia=np.diag([0.01, 0.02, 0.03]))
    m.add_hinge("l2", w, kind="spherical")
    s = m.add_body("finger", mass=0.2, com=(0.0, 0.0, -0.05), inertia=np.eye(3) * 1e-3)
    m.add_hinge(w, s, kind="slider", axis=(0, 0, 1))
    return m


_ENTRY_POINT = K.entry_point


def _general(lie, ta=False, links=True, adaptive=True, control=True, pins=False):
    return _ENTRY_POINT(lie, ta, True, True, True)  # (arm() is not a model of pins only)


RUNS = [
    dict(integrator="rk4"),
    dict(integrator="dopri5", rtol=1e-9, atol=1e-11),
    dict(integrator="munthe_kaas"),
    dict(integrator="rk4", forces=lambda m: [JointSpringDamper("l0_hinge", stiffness=5.0, damping=0.3)]),
    dict(integrator="rk4", forces=lambda m: [ExternalForce("l1", (0.0, 0.0, 0.0, 1.0, 0.0, 2.0))]),
    dict(integrator="rk4", forces=lambda m: [ExternalForce("wrist", (0.1, 0.0, 0.0, 0.0, 0.0, 2.0), axes="world")]),
    dict(integrator="rk4", control=lambda t, q, u, tau: tau.__setitem__(slice(None), -0.5 * u)),
]


@pytest.mark.parametrize("run", RUNS, ids=["rk4", "dopri5", "munthe_kaas", "spring", "wrench", "world_wrench", "control"])
def test_each_variant_equals_the_general_loop(run, monkeypatch):
    m = arm()
    q0 = m.neutral_q()
    q0[:3] = (0.4, -0.3, 0.2)
    q0[3:6] = (0.2, -0.1, 0.3)
    kw = dict(run)
    if "forces" in kw:
        kw["forces"] = kw["forces"](m)
    lean = simulate(m, q0, np.zeros(m.nu), 0.3, dt=1e-3, **kw)
    monkeypatch.setattr(K, "entry_point", _general)
    full = simulate(m, q0, np.zeros(m.nu), 0.3, dt=1e-3, **kw)
    assert lean.n_steps == full.n_steps > 0
    np.testing.assert_array_equal(lean.q, full.q)
    np.testing.assert_array_equal(lean.u, full.u)


def test_link_forces_flag():
    fmi = np.zeros((3, F.N_FMI), dtype=np.int64)
    fmi[:, F.FMI_TYPE] = (F.FM_SPRING, F.FM_LIMIT, F.FM_SPRING)
    assert not F.link_forces(fmi) and not F.link_forces(fmi[:0])
    for typ in (F.FM_WRENCH, F.FM_WORLD, F.FM_LINEAR):
        fmi[1, F.FMI_TYPE] = typ
        assert F.link_forces(fmi)


def test_entry_point_variants_are_made_once():
    a = K.entry_point(0, False, False, False, False)
    assert K.entry_point(0, 0, 0, 0, 0) is a
    assert K.entry_point(1, False, False, False, False) is not a


def test_one_abi_compile_for_the_loop_and_the_facade(tmp_path):
    """The loop passes its external-force flag as a bool, as forward_dynamics does: one
    compiled ABA (here the PIN-only one: the model is a chain of pins) serves both (a
    literal 0 once made Numba compile it a second time). On an
    empty cache of its own: kernels loaded from a cache never compile aba_core at all."""
    code = ("import numpy as np, multibody as mb\n"
            "from multibody.kernels.forward_dynamics import aba_core, aba_pin_core\n"
            "m = mb.Multibody(); m.add_serial_chain('l', 2)\n"
            "mb.simulate(m, np.zeros(2), np.zeros(2), 0.01)\n"
            "m.forward_dynamics(np.zeros(2), np.zeros(2), np.zeros(2))\n"
            "print(len(aba_core.signatures) + len(aba_pin_core.signatures))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split()[-1] == "1"
