"""The constraint work array W of tree-augmented dynamics: (nc + nu, work_shape) float64, made
by the facade (a Data's) or by a simulation run (its own); nc residual rows, nu speeds, n links.

Row i < nc (constraint row i) holds, at these offsets:

| columns | content |
| --- | --- |
| [0, nu) | row i of Gc (zero off the row's support) |
| [nu, nu + nc) | Gamma's row, then its LDL^T factor |
| c0 = nu + nc + WC_* | the per-row columns below |
| c0 + WC_COLS + [0, 2 n) | the row's support: its links, descending (cached: the model's) |
| row 0, after the supports | the correction's innovations (nu) |

Rows nc .. nc + nu hold the innovations transposed: W[nc + k, i] = eps^i_k (zero off row
i's support), so that Gamma's rows are sums of contiguous rows.

The support (the links whose speeds the row's Gc touches and their ancestors) depends on
the model alone: it is computed on the first call with a work array (WC_NSUP = 0) and kept.
"""
from numba import njit

K_COLS = 24      # per-frame kinematics (constraint_rows.frame_kinematics)
WC_KP = 0        # Baumgarte position gain [1/s^2] (written by the caller)
WC_KD = 1        # Baumgarte velocity gain [1/s] (written by the caller)
WC_ROW = 2       # 28: the row's coefficients (constraint_rows.row_coefficients: r, alpha, beta,
#                  gamma, delta, r_dot, kappa, -) then its wrenches at frames a and b (12)
ROW_COLS = 28
R_RDOT = 13      # offsets inside WC_ROW
R_KAPPA = 14
R_WA = 16        # 6, the row's wrench [moment about the world origin; force], world axes, at frame a
R_WB = 22        # 6, the same at frame b: Gc_i u = w_a . V_a + w_b . V_b (Pluecker world velocities)
WC_LAMBDA = 30   # the multiplier
WC_RHS = 31      # right-hand side, then the solve's intermediate
WC_NSUP = 32     # the number of links in the row's support (0: not computed yet)
WC_LA = 33       # the two links whose chains make the support (-1: the world)
WC_LB = 34
WC_H = 35        # 12: the row's running sums of G eps over its two chains (constraint_gamma.group_pass)
WC_GU = 47       # Gc_i udot (the unconstrained udot), summed on the support
WC_KIN = 48      # 2 * K_COLS, frame kinematics scratch (row 0 only)
WC_COLS = WC_KIN + 2 * K_COLS


def work_shape(nu, nc, n_links):
    """Shape of the work array of a model with nu speeds, nc constraint rows and n links."""
    return nc + nu, max(nu + nc + WC_COLS + 2 * n_links + nu, nc)


@njit(cache=True, inline="always")
def row_offset(nu, nc):
    """c0: where the per-row WC_* columns begin (Python: ``row_offset.py_func``)."""
    return nu + nc
