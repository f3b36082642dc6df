"""Python-level coordinate maps (not hot paths): N+(q) and global chart coordinates."""
import numpy as np

from ..kernels import layout as L


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _rotvec_matrix(v):
    th = np.linalg.norm(v)
    K = _skew(v)
    if th < 1e-8:
        return np.eye(3) + K + 0.5 * K @ K
    return np.eye(3) + np.sin(th) / th * K + (1 - np.cos(th)) / th**2 * K @ K


def _right_jacobian(v):
    """Jr(v): body angular velocity = Jr(v) v_dot for R = exp([v]x)."""
    th = np.linalg.norm(v)
    K = _skew(v)
    if th < 1e-6:
        return np.eye(3) - 0.5 * K + K @ K / 6.0
    return np.eye(3) - (1 - np.cos(th)) / th**2 * K + (th - np.sin(th)) / th**3 * K @ K


def _quat_matrix(x, y, z, w):
    n = x * x + y * y + z * z + w * w
    s = 2.0 / n
    return np.array([
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ])


def _quat_u_map(qq):
    """(3, 4) E with w_body = E q_dot for a unit quaternion (x, y, z, w)."""
    x, y, z, w = qq
    # w_body = 2 Im(conj(q) (x) q_dot) = 2 (w v_dot - w_dot v - v x v_dot)
    return 2.0 * np.array([
        [w, z, -y, -x],
        [-z, w, x, -y],
        [y, -x, w, -z],
    ])


def _chart_quat_rotation(c, j, v):
    x, y, z, w = c.mf[j, L.CHART:L.CHART + 4]
    return _quat_matrix(x, y, z, w) @ _rotvec_matrix(v)


def u_from_qdot_matrix(c, q):
    """(nu, nq) N+ with u = N+ q_dot, block-diagonal over links."""
    N = np.zeros((c.nu, c.nq))
    for j, s in enumerate(c.link_subhinges):
        i = c.mi[j, L.QOFF]
        k = c.mi[j, L.UOFF]
        if s.kind in ("spherical", "free"):
            v = q[i:i + 3]
            N[k:k + 3, i:i + 3] = _right_jacobian(v)
            if s.kind == "free":
                N[k + 3:k + 6, i + 3:i + 6] = _chart_quat_rotation(c, j, v).T
        elif s.kind in ("spherical_quat", "free_quat"):
            qq = q[i:i + 4] / np.linalg.norm(q[i:i + 4])
            N[k:k + 3, i:i + 4] = _quat_u_map(qq)
            if s.kind == "free_quat":
                N[k + 3:k + 6, i + 4:i + 7] = _quat_matrix(*qq).T
        else:
            N[k:k + s.nu, i:i + s.nq] = np.eye(s.nu)
    return N


def _matrix_to_rotvec(R):
    """log of a rotation matrix, angle in [0, pi] (via the quaternion for robustness)."""
    tr = np.trace(R)
    if tr > -0.99:
        w = 0.5 * np.sqrt(max(1.0 + tr, 0.0))
        x = (R[2, 1] - R[1, 2]) / (4 * w)
        y = (R[0, 2] - R[2, 0]) / (4 * w)
        z = (R[1, 0] - R[0, 1]) / (4 * w)
    else:
        k = int(np.argmax(np.diag(R)))
        i, j2, l = k, (k + 1) % 3, (k + 2) % 3
        t = 0.5 * np.sqrt(max(1.0 + R[i, i] - R[j2, j2] - R[l, l], 0.0))
        qv = np.zeros(3)
        qv[i] = t
        qv[j2] = (R[j2, i] + R[i, j2]) / (4 * t)
        qv[l] = (R[l, i] + R[i, l]) / (4 * t)
        w = (R[l, j2] - R[j2, l]) / (4 * t)
        x, y, z = qv
    if w < 0:
        x, y, z, w = -x, -y, -z, -w
    n = np.sqrt(x * x + y * y + z * z)
    if n < 1e-12:
        return 2.0 * np.array([x, y, z]) / max(w, 1e-300)
    return 2.0 * np.arctan2(n, w) / n * np.array([x, y, z])


def global_coordinates(c, q):
    """Copy of q with rotation vectors re-expressed about the identity chart."""
    out = np.array(q, dtype=float)
    for j, s in enumerate(c.link_subhinges):
        if s.kind in ("spherical", "free"):
            i = c.mi[j, L.QOFF]
            out[i:i + 3] = _matrix_to_rotvec(_chart_quat_rotation(c, j, q[i:i + 3]))
    return out
