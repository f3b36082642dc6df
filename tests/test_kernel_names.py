"""Every cached kernel of the package has a name of its own (issue 18).

Numba names a cached function's machine code after its module, qualname and a per-process
counter; two variants sharing a qualname, compiled in two processes with equal counters,
got one symbol, and a process that loaded both linked every caller to the first one loaded
(the PIN-only ABA on a free-floating robot: NaN). Here: the package's cached dispatchers
are enumerated (every module imported, every stepping-loop variant made) and none shares a
module + qualname with another; and the collision is provoked: two processes compile the
general and the PIN-only variants with Numba's counter pinned to one value, and a third
one, which loads both from that cache, must still get UR5 then Talos right, and every
example-robot-data URDF (fixed and free base, alphabetical) against Pinocchio, twice.
"""
import collections
import gc
import importlib
import itertools
import os
import pkgutil
import subprocess
import sys
import textwrap

import pytest
from numba.core.registry import CPUDispatcher

import multibody
from multibody.kernels.variants import variant
from multibody.simulation import kernels as loop_kernels
from multibody.simulation.contact_loop import contact_entry_point
from multibody.simulation.contact_rollout_kernels import contact_rollout_kernel
from multibody.simulation.galpha_loop import galpha_entry_point
from multibody.simulation.radau_loop import radau_entry_point
from multibody.simulation.rollout_kernels import rollout_entry

from robots import robots_dir


def cached_package_dispatchers():
    """Every Numba dispatcher of the package that caches to disk, after importing every
    module and making every variant of the stepping loops (Runge-Kutta, contact,
    generalized-alpha, Radau) and of the rollout kernels."""
    for info in pkgutil.walk_packages(multibody.__path__, "multibody."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    for key in itertools.product((False, True), repeat=7):
        loop_kernels.entry_point(*key)
    for key in itertools.product((False, True), repeat=4):  # the contact and implicit loops' variants
        for maker in (contact_entry_point, galpha_entry_point, radau_entry_point):
            try:
                maker(*key)
            except NotImplementedError:  # (a combination the loop refuses: flex contact with link forces)
                pass
    for key in itertools.product((False, True), repeat=3):
        rollout_entry(*key)
    for links in (False, True):
        contact_rollout_kernel(links)
    return [d for d in gc.get_objects() if _is_cached_package_dispatcher(d)]


def _is_cached_package_dispatcher(d):
    try:
        return (isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("multibody.")
                and type(d._cache).__name__ != "NullCache")
    except ReferenceError:  # a weak proxy among the collector's objects whose referent is gone
        return False


def test_no_two_cached_kernels_share_a_name():
    found = cached_package_dispatchers()
    assert len(found) > 100  # the enumeration sees the package (325 at the time of writing)
    by_name = collections.defaultdict(list)
    for d in found:
        by_name[(d.py_func.__module__, d.py_func.__qualname__)].append(d)
    shared = {k: len(v) for k, v in by_name.items() if len(v) > 1}
    assert not shared, f"cached kernels sharing a module + qualname: {shared}"
    unnamed = sorted(q for _, q in by_name if "<locals>" in q)
    assert not unnamed, f"cached closures without a name of their own: {unnamed}"


def test_a_variant_name_cannot_be_taken_twice():
    def factory(general):
        @variant("test_kernel_names_probe" if general else "test_kernel_names_probe")
        def probe(x):
            return x + 1.0 if general else x
        return probe

    first = factory(True)
    assert first.py_func.__qualname__ == "test_kernel_names_probe"
    assert factory(True).py_func.__qualname__ == "test_kernel_names_probe"  # the same variant again: allowed
    with pytest.raises(RuntimeError, match="test_kernel_names_probe"):
        factory(False)


_PRIME = """
import itertools, sys
import numba.core.bytecode as bc
from multibody.algorithms import entry
bc.FunctionIdentity._unique_ids = itertools.repeat(5000)  # every function gets the same counter
pins = sys.argv[1] == "pins"
for name in ("forward_dynamics", "inverse_dynamics", "mass_matrix"):
    entry.kernel_dispatcher(name, pins=pins).compile(entry._SIGNATURES[name][1])
"""

_CHECK = """
import warnings
import numpy as np
import pinocchio as pin
import multibody as mb
from robots import robot_urdf, robots_dir, urdf_files
from test_robots_vs_pinocchio import state_maps

def rel(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max()) if np.size(b) else 0.0

# UR5 first (its PIN-only variants loaded first), then Talos on a free base: the issue's case
rng = np.random.default_rng(0)
ur5 = mb.load_urdf(robot_urdf("ur5"))
q, u, tau = ur5.random_q(rng), rng.normal(size=ur5.nu), rng.normal(size=ur5.nu)
ur5.forward_dynamics(q, u, tau), ur5.mass_matrix(q), ur5.inverse_dynamics(q, u, tau)
worst = 0.0
for floating in ("quaternion", True):
    talos = mb.load_urdf(robot_urdf("talos"), floating_base=floating)
    q, u, tau = talos.random_q(rng), rng.normal(size=talos.nu), rng.normal(size=talos.nu)
    udot = talos.forward_dynamics(q, u, tau)
    b = talos.inverse_dynamics(q, u, np.zeros(talos.nu))
    worst = max(worst, rel(talos.mass_matrix(q) @ udot + b, tau), rel(talos.inverse_dynamics(q, u, udot), tau))
# then every example-robot-data URDF that Pinocchio loads, in alphabetical order, fixed and free
cases = 0
for path in urdf_files():
    for floating in (False, "quaternion"):
        try:
            pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(str(path))
        except Exception:
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = mb.load_urdf(path, floating_base=floating)
        if any("semi-definite" in str(w.message) for w in caught):
            continue  # inertias we project and Pinocchio keeps: not comparable
        pd = pm.createData()
        to_pin, P = state_maps(m, pm)
        q, u, udot, tau = m.random_q(rng), *rng.normal(size=(3, m.nu))
        qp = to_pin(q)
        Mp = pin.crba(pm, pd, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        worst = max(worst, rel(m.mass_matrix(q)[np.ix_(P, P)], Mp),
                    rel(m.inverse_dynamics(q, u, udot)[P], pin.rnea(pm, pd, qp, u[P], udot[P])))
        try:
            worst = max(worst, rel(m.forward_dynamics(q, u, tau)[P], pin.aba(pm, pd, qp, u[P], tau[P])))
        except ValueError:  # a massless body at the end of a moving hinge: M singular, no aba
            pass
        cases += 1
print("CASES", cases, "WORST", worst)
"""


@pytest.mark.skipif(robots_dir() is None, reason="example-robot-data is not installed")
def test_variants_compiled_in_separate_processes_do_not_collide(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), MULTIBODY_NO_PREFETCH="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    prime, check = tmp_path / "prime.py", tmp_path / "check.py"
    prime.write_text(textwrap.dedent(_PRIME))
    check.write_text(textwrap.dedent(_CHECK))
    primers = [subprocess.Popen([sys.executable, str(prime), which], env=env, stderr=subprocess.PIPE, text=True)
               for which in ("general", "pins")]
    for p in primers:
        assert p.wait(timeout=600) == 0, p.stderr.read()
    for run in ("loads both variants from the primed cache", "again, warm"):
        out = subprocess.run([sys.executable, str(check)], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        cases, worst = out.stdout.split("CASES")[-1].split("WORST")
        print(f"{run}: {int(cases)} robot cases, worst {float(worst):.2e}")
        assert int(cases) >= 100 and float(worst) < 1e-9, f"{run}: {cases} robots, off by {worst} (relative)"
