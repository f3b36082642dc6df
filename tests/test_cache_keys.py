"""A cached kernel is found again by every later process: Numba keys a closure's cache entry by
a pickle of its closure cells, so those pickles must be the same in every process.

The batch kernels (``kernels/batch.batch_kernel``) capture their sample function, a dispatcher,
which pickled with a uuid drawn at random per process (and with the dispatchers its function
calls): each process compiled the 29 stacked kernels anew (a stacked flexible mass matrix 9-13 s,
a rigid forward dynamics 2-3 s, every time) and added an entry to their cache.
``kernels/variants.stable_uuid`` gives those dispatchers uuids made of their names. The loop
variants the rollout kernels capture reach a kernel whose fastmath flags were a set, pickled
in an order that depended on the process's string hash seed: now a dict.
"""
import json
import os
import subprocess
import sys
import textwrap

_KEYS = """
import hashlib, json, sys
sys.path.insert(0, {tests!r})
from numba.core.serialize import dumps
from test_kernel_names import cached_package_dispatchers
keys = {{}}
for d in cached_package_dispatchers():
    cells = tuple(c.cell_contents for c in d.py_func.__closure__ or ())
    if cells:
        keys[d.py_func.__module__ + "." + d.py_func.__qualname__] = hashlib.sha256(dumps(cells)).hexdigest()
print("KEYS" + json.dumps(keys))
"""

_STACKED = """
import numpy as np
import multibody as mb
from multibody.kernels import batch, pin_batch
m = mb.Multibody("chain")
parent = None
for i in range(3):
    m.add_body(f"b{i}", 1.0, (0, 0, -0.3), np.eye(3) * 0.01)
    m.add_hinge(parent, f"b{i}", "pin", axis=(0, 1, 0))
    parent = f"b{i}"
m.mass_matrix(np.zeros((4, 3)))
m.forward_dynamics(np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((4, 3)))
stats = [k.stats for k in (pin_batch.pin_mass_matrix_batch, pin_batch.pin_forward_dynamics_batch)]
print("HITS", sum(sum(s.cache_hits.values()) for s in stats), "MISSES", sum(sum(s.cache_misses.values()) for s in stats))
"""


def _run(script, env=None):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_every_kernel_closure_pickles_alike_in_two_processes():
    script = _KEYS.format(tests=os.path.dirname(__file__))
    # (two string hash seeds: a set among the pickled objects, fastmath's flags were one,
    # pickled in an order that depended on it)
    first, second = (json.loads(_run(script, dict(os.environ, PYTHONHASHSEED=seed)).split("KEYS")[-1])
                     for seed in ("1", "2"))
    batches = [k for k in first if k.endswith("_batch")]
    assert len(batches) >= 20  # the stacked calls' kernels, which capture their sample function
    differ = sorted(k for k in first if first[k] != second.get(k))
    assert not differ, f"cache keys that change from process to process: {differ}"


def test_a_stacked_call_loads_its_kernels_from_the_cache_in_a_new_process(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), MULTIBODY_NO_PREFETCH="1")
    assert "MISSES 2" in _run(_STACKED, env)  # compiled, then cached
    assert "HITS 2 MISSES 0" in _run(_STACKED, env)  # found again
