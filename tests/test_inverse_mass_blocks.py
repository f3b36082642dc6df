"""The inverse mass matrix in blocks of columns (issue 19, memory): O(N) work beside its result.

The unit forces are taken k at a time; any k gives the M^-1 one block of all columns gives
(equal values: the same operations on each entry), on trees of every kind whose multi-speed
links straddle the blocks' edges, through the facade, ``data=`` and the batched path. A 10,000-link chain's call, measured in
a fresh process, peaks under 2 GB RSS (its M^-1 alone is 0.8 GB) and leaves the Data
holding O(N) work.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from multibody.kernels.inverse_mass_matrix import BLOCK, work_shape
from test_dynamics_vs_pinocchio import KINDS, random_tree


def _with_block(m, q, k):
    """M^-1 at q through a Data whose work array holds k columns."""
    d = m.create_data()
    d.minv_work = np.zeros((m.compiled.n_links, 6 * k))
    return m.inverse_mass_matrix(q, data=d)


@pytest.mark.parametrize("kinds", [KINDS[:-1], ["pin"], ["free", "pin", "spherical"], KINDS])
def test_any_block_width_gives_the_same_numbers(kinds):
    for seed in range(3):
        rng = np.random.default_rng(seed)
        m = random_tree(rng, kinds, n_bodies=25)
        q = m.random_q(rng)
        whole = _with_block(m, q, max(m.nu, 1))
        assert np.array_equal(whole, whole.T)
        if m.nu:
            M = m.mass_matrix(q)
            assert np.abs(M @ whole - np.eye(m.nu)).max() < 1e-8
        for k in (1, 2, 3, 5, 7, 13):
            assert np.array_equal(_with_block(m, q, k), whole), (seed, k)
        assert np.array_equal(m.inverse_mass_matrix(q), whole)
        assert np.array_equal(m.inverse_mass_matrix(np.stack([q, q]))[1], whole)


def test_work_is_one_block_of_columns():
    assert work_shape(10_000, 10_000) == (10_000, 6 * BLOCK)
    assert work_shape(7, 6) == (7, 36)
    assert work_shape(3, 0) == (3, 6)  # a tree of locked hinges
    import multibody as mb
    m = mb.Multibody()
    m.add_serial_chain("l", 100)
    m.inverse_mass_matrix(m.random_q(0))
    assert m.compiled.thread_data().minv_work.shape == (100, 6 * BLOCK)


_CHAIN = """
import numpy as np
import multibody as mb
m = mb.Multibody()
m.add_serial_chain("l", 10000, kind="pin")
q = m.random_q(np.random.default_rng(0))
small = mb.Multibody()
small.add_serial_chain("s", 70, kind="pin")  # two blocks, on a model whose M^-1 can be checked
qs = small.random_q(np.random.default_rng(1))
assert np.abs(small.mass_matrix(qs) @ small.inverse_mass_matrix(qs) - np.eye(70)).max() < 1e-9
m.compiled

def high_water():  # this process's own peak RSS [kB] (VmHWM: ru_maxrss keeps the forking parent's peak)
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("VmHWM:")).split()[1])

before = high_water()
Minv = m.inverse_mass_matrix(q)
peak = high_water()
rng = np.random.default_rng(2)
i, j = rng.integers(0, 10000, 2)
assert Minv[i, j] == Minv[j, i] and np.all(np.isfinite(Minv[::997]))
print("RSS", before * 1024, peak * 1024, m.compiled.thread_data().minv_work.nbytes)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status (VmHWM) is Linux's")
def test_ten_thousand_link_chain_peaks_under_2_gb():
    import multibody
    here = os.path.dirname(os.path.dirname(multibody.__file__))  # the child imports the package we test
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHAIN)], env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr
    before, peak, kept = (int(x) for x in out.stdout.split("RSS")[-1].split())
    print(f"peak RSS before the call {before / 1e9:.2f} GB, after {peak / 1e9:.2f} GB, work kept {kept / 1e6:.1f} MB")
    assert peak < 2e9
    assert kept <= 10_000 * 6 * BLOCK * 8  # O(N): one block of columns per link
