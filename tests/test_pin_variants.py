"""The PIN-only kernel variants (``joint_transform.pin_variant``): models whose links are all
PIN take kernels that leave out the code of the other joint kinds (seconds of a cold start);
they must give the general kernels' numbers bit for bit, serve exactly those models, and
really leave that code uncompiled."""
import os
import subprocess
import sys

import numpy as np
import pytest

import multibody as mb
from multibody.algorithms.entry import KERNELS, PIN_KERNELS, kernel_names
from multibody.kernels.joint_transform import pin_variant
from multibody.kernels.layout import H_NFRAMES
from multibody.simulation import ExternalForce, JointSpringDamper, simulate
from multibody.simulation import kernels as K

from robots import robot_urdf, robots_dir


def pin_tree():
    """A branching tree of PIN links about assorted axes (with armature on one)."""
    m = mb.Multibody()
    m.add_serial_chain("a", 4, kind="pin", axis=(0, 1, 0), mass=1.0, length=0.3, inertia=np.diag([0.02, 0.03, 0.01]))
    for name, parent, axis in (("b", "a1", (1, 0, 0)), ("c", "b", (0.6, 0.0, 0.8)), ("d", "a3", (0, 0, 1))):
        body = m.add_body(name, mass=0.7, com=(0.05, -0.02, -0.1), inertia=np.diag([0.01, 0.02, 0.015]))
        T = np.eye(4)
        T[:3, 3] = (0.1, 0.05, -0.2)
        m.add_hinge(parent, body, "pin", axis=axis, T_parent_joint=T)
    return m


def model(name):
    if name == "pin_tree":
        return pin_tree()
    if name == "pendulum":
        from multibody.cli import _demo_model_path
        return mb.load_urdf(str(_demo_model_path()))
    if robots_dir() is None:
        pytest.skip("example-robot-data is not installed")
    return mb.load_urdf(robot_urdf(name))


def test_which_models_take_the_pin_variants():
    m = pin_tree()
    assert pin_variant(m.compiled.mi) and m.compiled.kernels is PIN_KERNELS
    for kind in ("slider", "spherical", "free", "screw"):
        other = pin_tree()
        b = other.add_body("x", mass=1.0, com=(0.0, 0.0, -0.1), inertia=np.eye(3) * 0.01)
        other.add_hinge("d", b, kind, **({"axis": (0, 0, 1)} if kind in ("slider", "screw") else {}))
        assert not pin_variant(other.compiled.mi) and other.compiled.kernels is KERNELS, kind
    free = mb.Multibody()
    free.add_serial_chain("l", 2)
    free_root = mb.Multibody()
    b = free_root.add_body("base", mass=1.0, com=(0, 0, 0), inertia=np.eye(3))
    free_root.add_hinge(None, b, "free")
    assert pin_variant(free.compiled.mi) and not pin_variant(free_root.compiled.mi)


@pytest.mark.parametrize("name", ["pin_tree", "pendulum", "ur5"])
def test_pin_variants_give_the_general_numbers_bit_for_bit(name):
    c = model(name).compiled
    rng = np.random.default_rng(7)
    buf = c.create_data().buf
    for _ in range(5):
        q, u, a = (rng.uniform(-2, 2, n) for n in (c.nq, c.nu, c.nu))
        for kname, args, shape in (("forward_dynamics", (q, u, a), (c.nu,)), ("inverse_dynamics", (q, u, a), (c.nu,)),
                                   ("mass_matrix", (q,), (c.nu, c.nu)), ("kinetic_energy", (q, u), (1,)),
                                   ("mass_and_com", (q,), (4,))):
            general, pins = np.full(shape, np.nan), np.full(shape, np.nan)
            assert getattr(KERNELS, kname)(buf, *args, general) == 0
            assert getattr(PIN_KERNELS, kname)(buf, *args, pins) == 0
            np.testing.assert_array_equal(pins, general, err_msg=f"{name} {kname}")
        last = int(buf[0, H_NFRAMES]) - 1
        frames = np.array([1, last], dtype=np.int64)
        for kname, args, shape in (("inverse_mass_matrix", (q, np.zeros(c.minv_work_shape)), (c.nu, c.nu)),
                                   ("operational_space_compliance", (q, frames, np.zeros(c.compliance_work_shape(2))),
                                    (12, 12)),
                                   ("frame_pose", (q, last), (4, 4))):
            general, pins = np.full(shape, np.nan), np.full(shape, np.nan)
            assert getattr(KERNELS, kname)(buf, *args, general) == 0
            assert getattr(PIN_KERNELS, kname)(buf, *args, pins) == 0
            np.testing.assert_array_equal(pins, general, err_msg=f"{name} {kname}")
        T, J = np.empty((2, 4, 4)), np.zeros((2, 6, c.nu))
        assert KERNELS.frame_jacobian(buf, q, last, T[0], J[0]) == 0
        assert PIN_KERNELS.frame_jacobian(buf, q, last, T[1], J[1]) == 0
        np.testing.assert_array_equal(T[1], T[0])
        np.testing.assert_array_equal(J[1], J[0])
    Q, U = rng.uniform(-2, 2, (20, c.nq)), rng.uniform(-2, 2, (20, c.nu))
    general, pins = np.empty((20, 5)), np.empty((20, 5))
    assert KERNELS.trajectory_energies(buf, Q, U, general) == (0, 20)
    assert PIN_KERNELS.trajectory_energies(buf, Q, U, pins) == (0, 20)
    np.testing.assert_array_equal(pins, general)


def test_every_pin_variant_is_a_different_kernel_and_the_rest_are_shared():
    assert set(kernel_names(pins=True)) <= set(kernel_names())
    for name in kernel_names(pins=True):
        assert getattr(PIN_KERNELS, name) is not getattr(KERNELS, name)
    assert PIN_KERNELS.frame_velocity_acceleration is KERNELS.frame_velocity_acceleration


def test_pin_variants_leave_the_general_code_uncompiled(tmp_path):
    """On an empty cache of its own: a model of PIN links gets its dynamics, energies, M^-1,
    compliance, frame pose and Jacobian and a simulation without compiling the general
    articulated-inertia step, placements, M^-1 steps or coordinate maps."""
    code = ("import numpy as np, multibody as mb\n"
            "from multibody.kernels.articulated_inertia import general_inertia_step\n"
            "from multibody.kernels.joint_transform import general_link_placement\n"
            "from multibody.kernels.inverse_mass_steps import general_first\n"
            "from multibody.kernels.coordinates import qdot_from_u, sanitize_charts\n"
            "from multibody.simulation.stages import normalize_quaternions\n"
            "from multibody.simulation.lie import to_start_charts\n"
            "m = mb.Multibody(); m.add_serial_chain('l', 2)\n"
            "z = np.zeros(2)\n"
            "m.forward_dynamics(z, z, z); m.inverse_dynamics(z, z, z); m.mass_matrix(z)\n"
            "m.inverse_mass_matrix(z); m.operational_space_compliance(z, ['l1']); m.body_jacobian(z, 'l1')\n"
            "m.kinetic_energy(z, z); m.potential_energy(z)\n"
            "mb.simulate(m, z, z, 0.01).energy(m)\n"
            "print([len(f.signatures) for f in (general_inertia_step, general_link_placement, general_first,\n"
            "                                   qdot_from_u, sanitize_charts, normalize_quaternions, to_start_charts)])\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.splitlines()[-1] == "[0, 0, 0, 0, 0, 0, 0]"


_ENTRY_POINT = K.entry_point


def _general(lie, ta=False, links=True, adaptive=True, control=True, pins=False, **flex):
    assert pins and not any(flex.values())  # the run asked for the PIN-only loop: it gets the general one
    return _ENTRY_POINT(lie, ta, links, adaptive, control, pins=False)


RUNS = [
    dict(integrator="rk4"),
    dict(integrator="dopri5", rtol=1e-9, atol=1e-11),
    dict(integrator="munthe_kaas"),
    dict(integrator="rk4", forces=lambda m: [JointSpringDamper("a0_hinge", stiffness=5.0, damping=0.3)]),
    dict(integrator="rk4", forces=lambda m: [ExternalForce("c", (0.1, 0.0, 0.0, 0.0, 0.0, 2.0), axes="world")]),
    dict(integrator="rk4", control=lambda t, q, u, tau: tau.__setitem__(slice(None), -0.5 * u)),
]


@pytest.mark.parametrize("run", RUNS, ids=["rk4", "dopri5", "munthe_kaas", "spring", "world_wrench", "control"])
def test_pin_loop_equals_the_general_loop(run, monkeypatch):
    m = pin_tree()
    q0 = np.linspace(-0.6, 0.8, m.nq)
    kw = dict(run)
    if "forces" in kw:
        kw["forces"] = kw["forces"](m)
    pins = simulate(m, q0, np.zeros(m.nu), 0.3, dt=1e-3, **kw)
    monkeypatch.setattr(K, "entry_point", _general)
    general = simulate(m, q0, np.zeros(m.nu), 0.3, dt=1e-3, **kw)
    assert pins.n_steps == general.n_steps > 0
    np.testing.assert_array_equal(pins.q, general.q)
    np.testing.assert_array_equal(pins.u, general.u)
