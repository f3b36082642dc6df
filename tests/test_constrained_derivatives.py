"""Derivatives of the constrained forward dynamics (closed loops, convel and coordinate constraints).

Checked against what the derivative kernel does not use: central finite differences of
``forward_dynamics`` itself (along ``integrate`` for q), the constrained inverse mass formed
densely from M, Gc and numpy's inverse, and the identities of the KKT system.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from test_loop_constraints import LOOP_KINDS, _with_loops

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

H = 1e-6
RTOL = 1e-6


def finite_differences(m, q, u, tau, h=H):
    """Central differences of forward_dynamics in q (along integrate), u and tau, (nu, nu) each."""
    f = lambda q, u, tau: np.array(m.forward_dynamics(q, u, tau))  # noqa: E731
    eye = np.eye(m.nu)
    fq = np.array([(f(m.integrate(q, h * e, 1.0), u, tau) - f(m.integrate(q, -h * e, 1.0), u, tau)) / (2 * h)
                   for e in eye]).T
    fu = np.array([(f(q, u + h * e, tau) - f(q, u - h * e, tau)) / (2 * h) for e in eye]).T
    ft = np.array([(f(q, u, tau + h * e) - f(q, u, tau - h * e)) / (2 * h) for e in eye]).T
    return fq, fu, ft


def assert_matches_finite_differences(m, q, u, tau, rtol=RTOL):
    ours = m.forward_dynamics_derivatives(q, u, tau)
    for name, a, b in zip(("dudot_dq", "dudot_du", "dudot_dtau"), ours, finite_differences(m, q, u, tau)):
        err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-12)
        assert err < rtol, f"{name}: relative error {err:.2e}"
    return ours


def _four_bar_state():
    from four_bar import four_bar
    m = four_bar()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a planar loop has redundant rows
        cks = m.constraint_kinematics()
        q = cks.solve_q(np.array([1.6707963267948966, -1.4591054166649482, 1.5397303602625536]))
        u = cks.solve_u(q, [2.0, 0.0, 0.0], frozen=["crank_joint"])
    return m, q, u, np.array([0.3, -0.2, 0.1])


def _slider_crank_state():
    from slider_crank import slider_crank
    m = slider_crank()
    m.gravity = (0.0, -9.81, 0.0)  # in the crank's plane, so that the rows' q terms matter
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the planar loop's out-of-plane rows are redundant
        cks = m.constraint_kinematics()
        q = cks.solve_q([0.4, -0.3, 1.2], frozen=["crank_joint"])
        u = cks.solve_u(q, [2 * np.pi, 0, 0], frozen=["crank_joint"])
    return m, q, u, np.array([1.5, -0.4, 0.7])


@pytest.mark.parametrize("state", [_four_bar_state, _slider_crank_state], ids=["four_bar", "slider_crank"])
def test_examples_against_finite_differences(state):
    m, q, u, tau = state()
    assert_matches_finite_differences(m, q, u, tau)


def _random_loops(seed):
    return _with_loops(seed, 5, LOOP_KINDS, convel=True, coordinate=True)[:4]


@pytest.mark.parametrize("seed", [0, 1])
def test_random_tree_with_every_kind_against_finite_differences(seed):
    """Five loops of LOOP_KINDS (pin, slider, screw, ..., locked), a convel and a coordinate
    constraint on a random tree of every subhinge kind, random state off the manifold."""
    for kinds in (LOOP_KINDS[:5], LOOP_KINDS[5:]):
        m, q, u, tau, _ = _with_loops(seed + 7, 5, kinds, convel=True, coordinate=True)
        assert_matches_finite_differences(m, q, u, tau)
