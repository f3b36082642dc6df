"""The shapes of the work arrays the facade lends a model's entry kernels (``W`` of the
inverse mass matrix and of the operational-space compliance), from its model (or data)
buffer: the header says whether the rigid kernels serve it or the flex ones
(kernels/flex_entry.py), which take the same arguments but cut other pieces from W.
"""
from . import flex_layout as FL
from .flex_views import constant_views
from .inverse_mass_matrix import work_shape as rigid_minv_shape
from .layout import H_FLEX_WORK, H_NLINKS, H_NU
from .operational_space import Y_COLS


def minv_work_shape(buf):
    """The shape of the inverse mass matrix's W: the rigid kernel's (n, 6 min(nu, 64)), or
    the flex one's (sum of nb, nu): the bias forces, then the accelerations, of every link's
    generalized block per unit force."""
    n, nu = int(buf[0, H_NLINKS]), int(buf[0, H_NU])
    if not buf[0, H_FLEX_WORK]:
        return rigid_minv_shape(n, nu)
    return max(int(constant_views(buf).fi[:, FL.NB].sum()), 1), max(nu, 1)


def compliance_work_shape(buf, k):
    """The shape of the operational-space compliance's W for k frames: the rigid kernel's
    (n + k + 9, max(6 nu, Y_COLS)), or the flex one's single row holding the Omega blocks
    (like P), the frames' maps (k, 6 max(nb)), the walk's four 6 x max(nb) blocks and a mark
    per link (int64 bits; ``flex_entry.operational_space_compliance_flex``)."""
    n, nu = int(buf[0, H_NLINKS]), int(buf[0, H_NU])
    if not buf[0, H_FLEX_WORK]:
        return n + k + 9, max(6 * nu, Y_COLS)
    nbm = int(constant_views(buf).fi[:, FL.NB].max())
    return 1, int(buf[0, FL.FH_PHI] - buf[0, FL.FH_P]) + 6 * nbm * k + 24 * nbm + n
