"""Constrained forward dynamics of models with modal (flexible) bodies, constraint nodes on
deforming nodes included (the rows: algorithms/flex_constraints.py).

``constrained_dynamics``: udot = udot_f + M^-1 Gc^T lambda with Gamma = Gc M^-1 Gc^T from the
flex operational-space compliance at the constraint nodes (Gamma = Q Upsilon Q^T, O(N + k^2
d)); a coordinate row's column of Gamma is Gc M^-1 g^T from one flex forward dynamics at
u = 0. The multipliers solve Gamma lambda = -(Gc udot_f + kappa) - kd r_dot - kp r with the
rigid TA's LDL^T and its rule for redundant rows (lambda = 0); the correction is one more
flex forward dynamics with tau + Gc^T lambda, then one step of iterative refinement as in
TA. All of it is one compiled call (kernels/flex_constrained.py), which ``solve`` makes for
this facade and for the simulation's stages (simulation/flex_stage_forces.py).
"""
from types import SimpleNamespace

import numpy as np

from ..kernels.flex_constrained import flex_constrained_dynamics
from .checks import check_result, check_vector, data_object, raise_status, run_kernel
from .external_forces import generalized_external_forces
from .flex_constraints import work


def solve(c, d, q, u, tau, gains):
    """The compiled constrained dynamics at float64 C-contiguous q (nq,), u, tau (nu,) and
    Baumgarte gains (rows, 2) [kp, kd], in Data d: ``flex_constraints.work``'s namespace,
    whose views ``udot``, ``lam``, ``force`` (Gc^T lambda) and ``G`` hold the answer until
    the Data's next call. Non-finite entries and a singular inertia raise ValueError
    naming the argument."""
    w = work(c, d)
    st = run_kernel(c, q, flex_constrained_dynamics, *w.model, q, u, tau, gains, *w.flex)
    if st:
        raise_status(c, st, ("q", "u", "tau"), (q, u, tau))
    return w


def _vector(x, n, name):
    """x when it is a float64 C-contiguous writeable (n,) array (its finiteness is the kernel's
    check), else ``check_vector``'s coercion (a read-only array copied) and errors."""
    if (isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == (n,) and x.flags.c_contiguous
            and x.flags.writeable):
        return x
    return check_vector(x, n, name)


def constrained_dynamics(m, q, u, tau, gains, f_ext=None, data=None):
    """Constrained forward dynamics of a flex model (see the module docstring): a namespace
    with ``udot``, ``multipliers`` (rows,), ``forces`` {constraint name: Gc_k^T lambda_k} and
    ``constraint_force`` (nu,) = Gc^T lambda. ``gains`` (rows, 2): Baumgarte [kp, kd] per row
    (constraints.baumgarte_gains); f_ext as in ``forward_dynamics``."""
    c = m.compiled
    d = data_object(c, data)
    q, u, tau = _vector(q, c.nq, "q"), _vector(u, c.nu, "u"), _vector(tau, c.nu, "tau")
    gains = np.ascontiguousarray(gains, dtype=np.float64)
    if gains.shape != (c.nc, 2):
        raise ValueError(f"gains must have shape ({c.nc}, 2) [kp, kd] per constraint row, got {gains.shape}")
    if f_ext is not None:
        tau = tau + generalized_external_forces(c, d, q, f_ext)
    w = solve(c, d, q, u, tau, gains)
    for x in (w.udot, w.lam):
        check_result(c, x, ("q", "u", "tau"), (q, u, tau))
    G, lam = w.G, w.lam.copy()
    forces = {con.name: G[s].T @ lam[s] for con, s in c.constraint_rows.items()}
    return SimpleNamespace(udot=w.udot.copy(), multipliers=lam, forces=forces, constraint_force=w.force.copy())
