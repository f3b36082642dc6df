"""A flexible pendulum (one modal body, cantilever beam modes) converges to chains of rigid
segments with torsional springs k = EI / h as the chain is refined (issue 9).

Coarse version of examples/flexible_vs_rigid_chain.py (whose docstring says why the two
converge only down to the modal model's own error): 0.1 s of the swing from horizontal,
8 modes, N = 4, 8, 16. The chain is an independent model of the same beam (rigid bodies,
springs, no modes), so agreement checks the modal body's kinematics, mass integrals and
stiffness against it. Measured: 2.3e-6, 2.8e-7, 4.3e-8 m (1.9e-2, 2.3e-3, 3.5e-4 of the
0.12 mm tip deflection).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")
sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))

from flexible_vs_rigid_chain import convergence  # noqa: E402


def test_tip_difference_shrinks_as_the_chain_is_refined():
    out = convergence([4, 8, 16], t_final=0.1, n_modes=8, n_samples=101)
    e = [out["error"][n] for n in (4, 8, 16)]
    d = out["deflection"]
    assert 1e-4 < d < 1.5e-4  # the beam bends (0.12 mm): the comparison is not of two rigid rods
    # each halving of h shrinks the difference at least 4x (second order; measured 8.1x, 6.6x)
    assert e[1] < e[0] / 4 and e[2] < e[1] / 4, e
    # the N = 16 chain's tip stays within 1e-3 of the tip deflection of the modal model's
    assert e[2] < 1e-3 * d, (e, d)
    # and the coarsest chain is visibly different (the test can fail the other way too)
    assert e[0] > 1e-2 * d, (e, d)
