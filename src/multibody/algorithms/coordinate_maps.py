"""Python-level coordinate maps (not hot paths): N+(q) and global chart coordinates.

``c`` is a CompiledModel, ``d`` a Data of it (the chart offsets are data state)."""
import numpy as np

from ..kernels import layout as L
from ..spatial import quat_to_matrix, so3_exp, so3_log, so3_right_jacobian


def _quat_u_map(qq):
    """(3, 4) E with w_body = E q_dot for a unit quaternion (x, y, z, w)."""
    x, y, z, w = qq
    # w_body = 2 Im(conj(q) (x) q_dot) = 2 (w v_dot - w_dot v - v x v_dot)
    return 2.0 * np.array([
        [w, z, -y, -x],
        [-z, w, x, -y],
        [y, -x, w, -z],
    ])


def _chart_quat_rotation(d, j, v):
    return quat_to_matrix(d.ws[j, L.W_CHART:L.W_CHART + 4]) @ so3_exp(v)


def u_from_qdot_matrix(c, d, q):
    """(nu, nq) N+ with u = N+ q_dot, block-diagonal over links."""
    N = np.zeros((c.nu, c.nq))
    for j, s in enumerate(c.link_subhinges):
        i = c.mi[j, L.QOFF]
        k = c.mi[j, L.UOFF]
        kind = s.kind_info
        if kind.chart:
            v = q[i:i + 3]
            N[k:k + 3, i:i + 3] = so3_right_jacobian(v)
            if kind.translation == "vector":
                N[k + 3:k + 6, i + 3:i + 6] = _chart_quat_rotation(d, j, v).T
        elif kind.quaternion:
            qq = q[i:i + 4] / np.linalg.norm(q[i:i + 4])
            N[k:k + 3, i:i + 4] = _quat_u_map(qq)
            if kind.translation == "vector":
                N[k + 3:k + 6, i + 4:i + 7] = quat_to_matrix(qq).T
        else:
            N[k:k + s.nu, i:i + s.nq] = np.eye(s.nu)
    return N


def global_coordinates(c, d, q):
    """Copy of q with rotation vectors re-expressed about the identity chart."""
    out = np.array(q, dtype=float)
    for j, s in enumerate(c.link_subhinges):
        if s.kind_info.chart:
            i = c.mi[j, L.QOFF]
            out[i:i + 3] = so3_log(_chart_quat_rotation(d, j, q[i:i + 3]))
    return out
