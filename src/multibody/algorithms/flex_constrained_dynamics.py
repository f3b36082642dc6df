"""Constrained forward dynamics of models with modal (flexible) bodies, constraint nodes on
deforming nodes included (the rows: algorithms/flex_constraints.py).

``constrained_dynamics``: udot = udot_f + M^-1 Gc^T lambda with Gamma = Gc M^-1 Gc^T from the
flex operational-space compliance at the constraint nodes (Gamma = Q Upsilon Q^T, O(N + k^2
d)); a coordinate row's column of Gamma is Gc M^-1 g^T from one flex forward dynamics at
u = 0 (the difference with the bias). The multipliers solve Gamma lambda = -(Gc udot_f +
kappa) - kd r_dot - kp r with the rigid TA's LDL^T and its rule for redundant rows
(kernels/constrained_dynamics.factor_gamma: lambda = 0); the correction is one more flex
forward dynamics with tau + Gc^T lambda, then one step of iterative refinement as in TA.
"""
from types import SimpleNamespace

import numpy as np

from ..kernels.constrained_dynamics import REFINE_TOL, factor_gamma, ldl_solve
from ..kernels.constraint_rows import COORD
from ..kernels.constraint_work import WC_ROW, row_offset
from ..kernels.layout import CR_FA, CR_FB, CR_TYPE, FR_LINK
from . import flex, flex_operators
from .checks import check_vector, data_object
from .constraints import constraint_work
from .flex_constraints import rows

_row_offset = row_offset.py_func


def _gamma(m, q, G, C, d):
    """Gamma = Gc M^-1 Gc^T (rows, rows): the node rows' block Q Upsilon Q^T from the flex
    operational-space compliance at the constraint nodes (rotated to world axes), a
    coordinate row's column Gc M^-1 g^T from the flex forward dynamics at u = 0 under
    tau = g^T less its bias. C: the rows' coefficients (``rows``' C block at (q, u))."""
    c = m.compiled
    cr = c.cr
    coord = [i for i in range(c.nc) if int(cr[i, CR_TYPE]) == COORD]
    node_rows = [i for i in range(c.nc) if int(cr[i, CR_TYPE]) != COORD]
    Gam = np.zeros((c.nc, c.nc))
    if node_rows:
        nodes = []
        for i in node_rows:
            for col in (CR_FA, CR_FB):
                f = int(cr[i, col])
                if f not in nodes and int(c.fr[f, FR_LINK]) >= 0:  # a world frame does not move
                    nodes.append(f)
        frame_name = {row: name for name, row in c.frame_rows.items()}
        names = [frame_name[f] for f in nodes]
        Ups = flex_operators.operational_space_compliance(m, q, names, d)
        Rb = np.zeros((6 * len(nodes), 6 * len(nodes)))
        for k, name in enumerate(names):
            R = flex.frame_pose(m, q, name, d)[:3, :3]
            Rb[6 * k:6 * k + 3, 6 * k:6 * k + 3] = Rb[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = R
        Q = np.zeros((len(node_rows), 6 * len(nodes)))
        for r, i in enumerate(node_rows):
            for col, k in ((CR_FA, 1), (CR_FB, 7)):
                f = int(cr[i, col])
                if f in nodes:
                    Q[r, 6 * nodes.index(f):6 * nodes.index(f) + 6] += C[i, k:k + 6]
        QR = Q @ Rb
        Gam[np.ix_(node_rows, node_rows)] = QR @ Ups @ QR.T
    if coord:
        zero = np.zeros(c.nu)
        bias = flex.forward_dynamics(m, q, zero, zero, None, d)
        for i in coord:
            Gam[:, i] = G @ (flex.forward_dynamics(m, q, zero, G[i], None, d) - bias)
            Gam[i, :] = Gam[:, i]
    return Gam


def constrained_dynamics(m, q, u, tau, gains, f_ext=None, data=None):
    """Constrained forward dynamics of a flex model (see the module docstring): a namespace
    with ``udot``, ``multipliers`` (rows,), ``forces`` {constraint name: Gc_k^T lambda_k} and
    ``constraint_force`` (nu,) = Gc^T lambda. ``gains`` (rows, 2): Baumgarte [kp, kd] per row
    (constraints.baumgarte_gains); f_ext as in ``forward_dynamics``."""
    c = m.compiled
    d = data_object(c, data)
    q, u = check_vector(q, c.nq, "q"), check_vector(u, c.nu, "u")
    tau = check_vector(tau, c.nu, "tau").copy()
    if f_ext is not None:
        tau += flex_operators.external_generalized_forces(m, q, f_ext, d)
    W = rows(m, q, u, constraint_work(c, d), d)
    G = W[:, :c.nu].copy()
    Cf = W[:, _row_offset(c.nu, c.nc) + WC_ROW:][:, :16]
    r, rdot, kappa = Cf[:, 0].copy(), Cf[:, 13].copy(), Cf[:, 14].copy()
    udot_f = flex.forward_dynamics(m, q, u, tau, None, d)
    target = -gains[:, 1] * rdot - gains[:, 0] * r  # the rows' wanted acceleration Gc udot + kappa
    rhs = target - (G @ udot_f + kappa)
    A = np.zeros((c.nc, c.nc + 1))
    A[:, :c.nc] = _gamma(m, q, G, Cf, d)
    factor_gamma(A, 0, c.nc)  # Gamma's LDL^T in place, redundant rows dropped (lambda = 0)
    A[:, c.nc] = rhs
    ldl_solve(A, 0, c.nc, c.nc)
    lam = A[:, c.nc].copy()
    udot = flex.forward_dynamics(m, q, u, tau + G.T @ lam, None, d)
    # one step of iterative refinement (kernels/constrained_dynamics.py, step 6): what the
    # corrected motion misses of each kept row's wanted acceleration, solved with the factors
    miss = target - (G @ udot + kappa)
    kept = np.diagonal(A[:, :c.nc]) != 0.0
    miss[~kept] = 0.0
    size = np.abs(target) + np.abs(G) @ np.abs(udot) + np.abs(kappa)
    if np.any(np.abs(miss) > REFINE_TOL * np.maximum(size, 1e-300)):
        A[:, c.nc] = miss
        ldl_solve(A, 0, c.nc, c.nc)
        lam += A[:, c.nc]
        udot = flex.forward_dynamics(m, q, u, tau + G.T @ lam, None, d)
    forces = {con.name: G[s].T @ lam[s] for con, s in c.constraint_rows.items()}
    return SimpleNamespace(udot=udot, multipliers=lam, forces=forces, constraint_force=G.T @ lam)
