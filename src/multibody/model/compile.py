"""finalize(): turn the object model into flat arrays in topological order.

Bodies welded by locked hinges are merged into the link of their parent (their
inertia is added there and their frame becomes a fixed offset on that link).
Each moving subhinge becomes one link; a hinge of k moving subhinges gives k
links, the first placed at the hinge o-frame, the last carrying the child body
(its frame is the hinge p-frame).
"""
import numpy as np

from ..kernels import layout as L
from ..spatial import motion_transform, transform_inverse


class CompiledModel:
    """Immutable-by-convention bundle of model arrays (see ``kernels.layout``).

    Attributes: ``buf`` (the model buffer) and its views ``mi``, ``mf``, ``ws`` (kernel
    arrays and workspace), ``n_links``, ``nq``, ``nu``,
    ``link_subhinges`` (the subhinge object of each link), ``body_link`` and
    ``T_link_body`` (per body name: link index, -1 for the world, and the fixed
    4x4 pose of the body frame in that link frame), ``hinge_order``, ``q_slices``,
    ``u_slices`` (per hinge name).
    """


def _z_frame(axis):
    """Rotation C = [e1, e2, a] (columns) of a right-handed frame whose z axis is ``axis``."""
    a = np.asarray(axis, dtype=float)
    if np.allclose(a, (0.0, 0.0, 1.0), atol=0.0, rtol=0.0):
        return np.eye(3)
    t = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = t - a * (a @ t)
    e1 /= np.linalg.norm(e1)
    return np.column_stack([e1, np.cross(a, e1), a])


def _rot(C):
    T = np.eye(4)
    T[:3, :3] = C
    return T


def _frame_axes_along_z(links, inertia, T_link_body, body_link):
    """Re-frame every PIN/SLIDER/SCREW link so that its joint axis is the link's z axis.

    The new link frame L' and joint o-frame O' are rotated by C = [e1, e2, a] from the
    old ones (R_LL' = R_OO' = C), so the joint rotation becomes Rz(q) and a PIN
    placement costs one planar rotation of two columns of R_tree. Everything that
    refers to a link frame follows: the tree transforms of the link and of its
    children, its inertia, its motion subspace and the poses of the bodies on it.
    Returns the new (links, inertia, T_link_body, axes, frames).
    """
    frames = [(_z_frame(s.axis) if s.kind in ("pin", "slider", "screw") else np.eye(3))
              for (_, s, _, _, _) in links]
    new_links = []
    new_inertia = []
    axes = []
    for j, (parent, s, T_tree, qo, uo) in enumerate(links):
        Cp = frames[parent] if parent >= 0 else np.eye(3)
        new_links.append((parent, s, _rot(Cp.T) @ T_tree @ _rot(frames[j]), qo, uo))
        X = motion_transform(_rot(frames[j]))
        new_inertia.append(X.T @ inertia[j] @ X)
        axes.append(frames[j].T @ s.axis if hasattr(s, "axis") else np.zeros(3))
    new_T = {}
    for name, T in T_link_body.items():
        link = body_link[name]
        new_T[name] = _rot(frames[link].T) @ T if link >= 0 else T
    return new_links, new_inertia, new_T, axes, frames


def compile_model(mb):
    """Build the ``CompiledModel`` of Multibody ``mb`` (validates the topology)."""
    order = mb._topological_hinges()
    links = []  # (parent link, subhinge, T_tree)
    body_link = {mb.world.name: -1}
    T_link_body = {mb.world.name: np.eye(4)}
    inertia = []
    hinge_order = []
    q_slices, u_slices = {}, {}
    qoff = uoff = 0
    for h in order:
        pl = body_link[h.parent.name]
        T_pl_onode = T_link_body[h.parent.name] @ h.T_parent_joint
        moving = [s for s in h.subhinges if s.nq > 0 or s.nu > 0]
        hinge_order.append(h.name)
        q_slices[h.name] = slice(qoff, qoff + h.nq)
        u_slices[h.name] = slice(uoff, uoff + h.nu)
        if not moving:
            body_link[h.child.name] = pl
            T_link_body[h.child.name] = T_pl_onode @ transform_inverse(h.T_child_joint)
        else:
            T_tree = T_pl_onode
            parent = pl
            for s in moving:
                links.append((parent, s, T_tree, qoff, uoff))
                inertia.append(np.zeros((6, 6)))
                parent = len(links) - 1
                T_tree = np.eye(4)
                qoff += s.nq
                uoff += s.nu
            body_link[h.child.name] = parent
            T_link_body[h.child.name] = transform_inverse(h.T_child_joint)
        lk = body_link[h.child.name]
        if lk >= 0:
            X = motion_transform(transform_inverse(T_link_body[h.child.name]))
            inertia[lk] += X.T @ h.child.spatial_inertia() @ X
    n = len(links)
    links, inertia, T_link_body, axes, frames = _frame_axes_along_z(links, inertia, T_link_body, body_link)
    # one buffer holds mi (as int64), mf and the workspace ws: see kernels.layout
    buf = np.zeros((3 * n + 1, L.BUF_COLS))
    mi = buf[:n].view(np.int64)
    mf = buf[n:2 * n + 1]
    for j, (parent, s, T_tree, qo, uo) in enumerate(links):
        mi[j, L.PARENT] = parent
        mi[j, L.KIND] = s.code
        mi[j, L.QOFF] = qo
        mi[j, L.UOFF] = uo
        mi[j, L.NQ] = s.nq
        mi[j, L.NU] = s.nu
        mf[j, L.R_TREE:L.R_TREE + 9] = T_tree[:3, :3].ravel()
        mf[j, L.P_TREE:L.P_TREE + 3] = T_tree[:3, 3]
        mf[j, L.AXIS:L.AXIS + 3] = axes[j]
        mf[j, L.PITCH] = getattr(s, "pitch", 0.0)
        mf[j, L.CHART:L.CHART + 4] = getattr(s, "chart_offset", (0.0, 0.0, 0.0, 1.0))
        I6 = inertia[j]
        mf[j, L.INERTIA:L.INERTIA + 36] = I6.ravel()
        mf[j, L.RB_MASS] = I6[5, 5]
        mf[j, L.RB_H:L.RB_H + 3] = (I6[4, 2], I6[5, 0], I6[3, 1])  # lower-left block is -[h]x
        Io = I6[:3, :3]
        mf[j, L.RB_I:L.RB_I + 6] = (Io[0, 0], Io[0, 1], Io[0, 2], Io[1, 1], Io[1, 2], Io[2, 2])
        C = np.eye(6)
        C[:3, :3] = C[3:, 3:] = frames[j].T
        S = C @ s.motion_subspace()  # in the re-framed link axes
        mf[j, L.S_COLS:L.S_COLS + 6 * s.nu] = S.T.ravel()
    mf[n, L.GRAVITY:L.GRAVITY + 3] = mb.gravity
    mf[n, L.DENSE_M] = float(all(mi[j, L.PARENT] == j - 1 for j in range(n)))
    c = CompiledModel()
    c.buf = buf
    c.mi = mi
    c.mf = mf
    c.ws = buf[2 * n + 1:]
    c.n_links = n
    c.nq = qoff
    c.nu = uoff
    c.link_subhinges = [lk[1] for lk in links]
    c.body_link = body_link
    c.T_link_body = T_link_body
    c.hinge_order = hinge_order
    c.q_slices = q_slices
    c.u_slices = u_slices
    return c
