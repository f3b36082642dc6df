"""finalize(): turn the object model into flat arrays in topological order.

Bodies welded by locked hinges are merged into the link of their parent (their
inertia is added there and their frame becomes a fixed offset on that link).
Each moving subhinge becomes one link; a hinge of k moving subhinges gives k
links, the first placed at the hinge o-frame, the last carrying the child body
(its frame is the hinge p-frame).
"""
import numpy as np

from ..kernels import layout as L


def _motion_transform(T):
    """6x6 X mapping motion vectors in B coordinates to A coordinates, for T = T_AB."""
    R = T[:3, :3]
    p = T[:3, 3]
    P = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    X = np.zeros((6, 6))
    X[:3, :3] = R
    X[3:, 3:] = R
    X[3:, :3] = P @ R
    return X


def _inv(T):
    Ti = np.eye(4)
    Ti[:3, :3] = T[:3, :3].T
    Ti[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return Ti


class CompiledModel:
    """Immutable-by-convention bundle of model arrays (see ``kernels.layout``).

    Attributes: ``mi``, ``mf`` (kernel arrays), ``n_links``, ``nq``, ``nu``,
    ``link_subhinges`` (the subhinge object of each link), ``body_link`` and
    ``T_link_body`` (per body name: link index, -1 for the world, and the fixed
    4x4 pose of the body frame in that link frame), ``hinge_order``, ``q_slices``,
    ``u_slices`` (per hinge name).
    """


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
            T_link_body[h.child.name] = T_pl_onode @ _inv(h.T_child_joint)
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
            T_link_body[h.child.name] = _inv(h.T_child_joint)
        lk = body_link[h.child.name]
        if lk >= 0:
            X = _motion_transform(_inv(T_link_body[h.child.name]))
            inertia[lk] += X.T @ h.child.spatial_inertia() @ X
    n = len(links)
    mi = np.zeros((n, L.MI_COLS), dtype=np.int64)
    mf = np.zeros((n + 1, L.MF_COLS))
    for j, (parent, s, T_tree, qo, uo) in enumerate(links):
        mi[j, L.PARENT] = parent
        mi[j, L.KIND] = s.code
        mi[j, L.QOFF] = qo
        mi[j, L.UOFF] = uo
        mi[j, L.NQ] = s.nq
        mi[j, L.NU] = s.nu
        mf[j, L.R_TREE:L.R_TREE + 9] = T_tree[:3, :3].ravel()
        mf[j, L.P_TREE:L.P_TREE + 3] = T_tree[:3, 3]
        if hasattr(s, "axis"):
            mf[j, L.AXIS:L.AXIS + 3] = s.axis
        mf[j, L.PITCH] = getattr(s, "pitch", 0.0)
        mf[j, L.CHART:L.CHART + 4] = getattr(s, "chart_offset", (0.0, 0.0, 0.0, 1.0))
        mf[j, L.INERTIA:L.INERTIA + 36] = inertia[j].ravel()
        S = s.motion_subspace()
        mf[j, L.S_COLS:L.S_COLS + 6 * s.nu] = S.T.ravel()
    mf[n, L.GRAVITY:L.GRAVITY + 3] = mb.gravity
    c = CompiledModel()
    c.mi = mi
    c.mf = mf
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
