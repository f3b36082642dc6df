"""The constraint work array W of tree-augmented dynamics: ``work_shape`` float64, made by the
facade (a Data's) or by a simulation run (its own); nc residual rows, nu speeds, n links.

Row i (constraint row i) holds, at these offsets:

| columns | content |
| --- | --- |
| [0, nu) | row i of Gc (zero off the row's support; TA writes a coordinate row's only) |
| [nu, 2 nu) | the row's innovations eps^i (zero off its support) |
| [2 nu, 3 nu) | D^-1 eps^i (read on the support only) |
| [3 nu, 3 nu + nc) | Gamma's row, then its LDL^T factor |
| c0 = 3 nu + nc + WC_* | the per-row columns below |
| c0 + WC_COLS + [0, 2 n) | the row's support: the links of a's chain alone, of b's chain alone, then of both (each descending: children first; WC_NA, WC_NB, WC_NSUP in all) |
| c0 + WC_COLS + 2 n + [0, nu) | the speeds of those links, root first (WC_NDOF of them) |
| row 0, after them | the correction's generalized force Gc^T lambda (nu) |

The support (the links whose speeds the row's Gc touches and their ancestors) depends on
the model alone: it is computed on the first call with a work array (WC_NSUP = 0) and kept.
"""
from numba import njit

# The constraint kernels allocate nothing and run without Numba's reference counting (as the
# inverse mass matrix's): no atomic increments and decrements around their many row views,
# and a cheaper entry (each array argument unboxes in about half the time: bench/README.md).
NO_NRT = dict(cache=True, _nrt=False)

K_COLS = 27      # per-frame kinematics (constraint_rows.frame_kinematics)
WC_KP = 0        # Baumgarte position gain [1/s^2] (written by the caller)
WC_KD = 1        # Baumgarte velocity gain [1/s] (written by the caller)
WC_ROW = 2       # 28: the row's coefficients (constraint_rows.row_coefficients: r, alpha, beta,
#                  gamma, delta, r_dot, kappa, -) then its wrenches at frames a and b (12)
ROW_COLS = 28
R_RDOT = 13      # offsets inside WC_ROW
R_KAPPA = 14
R_WA = 16        # 6, the row's wrench [moment about the root origin of a's tree; force], world axes, at frame a
R_WB = 22        # 6, the same at frame b (its tree's): Gc_i u = w_a . V_a + w_b . V_b (tree coordinates)
WC_LAMBDA = 30   # the multiplier
WC_RHS = 31      # right-hand side: the rows' wanted acceleration minus their acceleration in the
#                  unconstrained motion
WC_NSUP = 32     # the number of links in the row's support (0: not computed yet)
WC_LA = 33       # the two links whose chains make the support (-1: the world)
WC_LB = 34
WC_NA = 35       # the support's links only a's chain holds (they come first), then only b's
WC_NB = 36
WC_NDOF = 37     # the number of speeds of the support's links
WC_GEND = 38     # one past the last row of the row's constraint (its rows share the support)
WC_TEND = 39     # Gamma's scratch: how many of the current row's support speeds this row reaches
WC_DRHS = 40     # the refinement step's right-hand side (what the corrected motion still misses),
#                  then its multipliers
WC_KIN = 41      # 2 * K_COLS, frame kinematics scratch (row 0 only)
WC_COLS = WC_KIN + 2 * K_COLS


def work_shape(nu, nc, n_links):
    """Shape of the work array of a model with nu speeds, nc constraint rows and n links."""
    return nc, 3 * nu + nc + WC_COLS + 2 * n_links + 2 * nu


@njit(cache=True, inline="always")
def row_offset(nu, nc):
    """c0: where the per-row WC_* columns begin (Python: ``row_offset.py_func``)."""
    return 3 * nu + nc
