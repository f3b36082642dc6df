"""Python-level coordinate maps (not hot paths): N+(q) and global chart coordinates.

``c`` is a CompiledModel, ``d`` a Data of it (the chart offsets are data state)."""
import numpy as np

from ..kernels import layout as L
from ..kernels.joints.dispatch import KIND_MODULES
from ..spatial import quat_to_matrix, so3_exp, so3_log


def _chart_quat_rotation(d, j, v):
    return quat_to_matrix(d.ws[j, L.W_CHART:L.W_CHART + 4]) @ so3_exp(v)


def u_from_qdot_matrix(c, d, q):
    """(nu, nq) N+ with u = N+ q_dot, block-diagonal over links (each kind's ``u_from_qdot``),
    with the identity blocks of modal bodies' coordinates (eta' is u's modal rates)."""
    N = np.zeros((c.nu, c.nq))
    for j, s in enumerate(c.link_subhinges):
        i = c.mi[j, L.QOFF]
        k = c.mi[j, L.UOFF]
        chart = d.ws[j, L.W_CHART:L.W_CHART + 4]
        N[k:k + s.nu, i:i + s.nq] = KIND_MODULES[s.code].u_from_qdot(q[i:i + s.nq], chart)
    for qs, us in c.modal_slices.values():
        N[us, qs] = np.eye(us.stop - us.start)
    return N


def global_coordinates(c, d, q):
    """Copy of q with rotation vectors re-expressed about the identity chart."""
    out = np.array(q, dtype=float)
    for j, s in enumerate(c.link_subhinges):
        if s.kind_info.chart:
            i = c.mi[j, L.QOFF]
            out[i:i + 3] = so3_log(_chart_quat_rotation(d, j, q[i:i + 3]))
    return out
