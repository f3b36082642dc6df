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
from .collision_compile import compile_contact
from .compiled import CompiledModel
from .flex_compile import compile_flex


def z_frame(axis):
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
    frames = [(z_frame(s.axis) if s.kind_info.axis else np.eye(3))
              for (_, s, _, _, _) in links]
    new_links = []
    new_inertia = []
    axes = []
    for j, (parent, s, T_tree, qo, uo) in enumerate(links):
        Cp = frames[parent] if parent >= 0 else np.eye(3)
        new_links.append((parent, s, _rot(Cp.T) @ T_tree @ _rot(frames[j]), qo, uo))
        X = motion_transform(_rot(frames[j]))
        new_inertia.append(X.T @ inertia[j] @ X)
        axes.append(frames[j].T @ s.axis if s.kind_info.axis else np.zeros(3))
    new_T = {}
    for name, T in T_link_body.items():
        link = body_link[name]
        new_T[name] = _rot(frames[link].T) @ T if link >= 0 else T
    return new_links, new_inertia, new_T, axes, frames


def _links_and_bodies(mb):
    """Walk the hinges in topological order: the links, their inertias, and where each body sits.

    Returns (links, inertia, body_link, T_link_body, hinge_order, q_slices, u_slices, nq, nu)
    with links as (parent link, subhinge, T_tree, q offset, u offset).
    """
    order = mb.topological_hinges()
    links = []
    body_link = {mb.world.name: -1}
    T_link_body = {mb.world.name: np.eye(4)}
    inertia = []
    hinge_order = []
    q_slices, u_slices, modal_slices = {}, {}, {}
    qoff = uoff = 0
    for h in order:
        pl = body_link[h.parent.name]
        T_pl_onode = T_link_body[h.parent.name] @ h.T_parent_joint
        moving = [s for s in h.subhinges if s.nq > 0 or s.nu > 0]
        n_modes = h.child.n_modes
        if n_modes and not moving:  # a welded modal body keeps a link: it owns coordinates
            moving = h.subhinges[:1]
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
            if n_modes:  # eta: the tail of the hinge's q and u slices
                modal_slices[h.child.name] = (slice(qoff, qoff + n_modes), slice(uoff, uoff + n_modes))
                qoff += n_modes
                uoff += n_modes
        lk = body_link[h.child.name]
        if lk >= 0:
            X = motion_transform(transform_inverse(T_link_body[h.child.name]))
            inertia[lk] += X.T @ h.child.spatial_inertia() @ X
    return links, inertia, body_link, T_link_body, hinge_order, q_slices, u_slices, modal_slices, qoff, uoff


def _topology_columns(parents, nus):
    """DEPTH, SUBTREE_END and the ragged addresses (U, G, D^-1, residual) of every link."""
    n = len(parents)
    depth = np.zeros(n, dtype=np.int64)
    end = np.arange(1, n + 1, dtype=np.int64)
    for j, p in enumerate(parents):
        if p >= 0:
            if p >= j:
                raise AssertionError("links are not in topological order")
            depth[j] = depth[p] + 1
    for j in range(n - 1, -1, -1):  # depth-first order: a subtree is a contiguous range
        p = parents[j]
        if p >= 0:
            end[p] = max(end[p], end[j])
    adr = np.zeros((n, 4), dtype=np.int64)
    z = 0
    for j, nu in enumerate(nus):
        adr[j] = (z, z + 6 * nu, z + 12 * nu, z + 12 * nu + nu * nu)
        z += 13 * nu + nu * nu
    return depth, end, adr, z


def compile_model(mb):
    """Build the ``CompiledModel`` of Multibody ``mb`` (validates the topology)."""
    links, inertia, body_link, T_link_body, hinge_order, q_slices, u_slices, modal_slices, nq, nu = _links_and_bodies(mb)
    n = len(links)
    links, inertia, T_link_body, axes, frames = _frame_axes_along_z(links, inertia, T_link_body, body_link)
    parents = [lk[0] for lk in links]
    depth, end, adr, zsize = _topology_columns(parents, [lk[1].nu for lk in links])
    frame_rows = {name: (body_link[name], T_link_body[name]) for name in body_link}
    for name, node in mb.nodes.items():
        link = body_link[node.body.name]
        frame_rows[name] = (link, T_link_body[node.body.name] @ node.T_body_node)
    for h in mb.hinges:  # a hinge's name is the frame of its p-frame (on the child), as Pinocchio's joints
        if h.name not in frame_rows:  # a body or node of the same name keeps it
            frame_rows[h.name] = (body_link[h.child.name], T_link_body[h.child.name] @ h.T_child_joint)
    nf = len(frame_rows)
    constraints = mb.enabled_constraints
    nc = sum(c.n_rows for c in constraints)
    mbuf = np.zeros((2 + 2 * n + nf + nc, L.BUF_COLS))
    mbuf[0, L.H_NCONSTRAINTS] = nc
    mbuf[0, L.H_NLINKS] = n
    mbuf[0, L.H_NFRAMES] = nf
    mbuf[0, L.H_NQ] = nq
    mbuf[0, L.H_NU] = nu
    mbuf[0, L.H_ZSIZE] = zsize
    mi = mbuf[1:1 + n].view(np.int64)
    mf = mbuf[1 + n:2 + 2 * n]
    fr = mbuf[2 + 2 * n:2 + 2 * n + nf]
    for j, (parent, s, T_tree, qo, uo) in enumerate(links):
        mi[j, L.PARENT] = parent
        mi[j, L.KIND] = s.code
        mi[j, L.QOFF] = qo
        mi[j, L.UOFF] = uo
        mi[j, L.NQ] = s.nq
        mi[j, L.NU] = s.nu
        mi[j, L.DEPTH] = depth[j]
        mi[j, L.SUBTREE_END] = end[j]
        mi[j, L.U_ADR], mi[j, L.G_ADR], mi[j, L.DINV_ADR], mi[j, L.RES_ADR] = adr[j]
        mi[j, L.BODY_NU] = s.hinge.child.n_modes if j == body_link[s.hinge.child.name] else 0
        mf[j, L.R_TREE:L.R_TREE + 9] = T_tree[:3, :3].ravel()
        mf[j, L.P_TREE:L.P_TREE + 3] = T_tree[:3, 3]
        mf[j, L.AXIS:L.AXIS + 3] = axes[j]
        mf[j, L.PITCH] = s.pitch
        k0 = uo - u_slices[s.hinge.name].start  # the link's speeds within its hinge's
        mf[j, L.ARMATURE:L.ARMATURE + s.nu] = s.hinge.armature[k0:k0 + s.nu]
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
    frame_index = {}
    for f, (name, (link, T)) in enumerate(frame_rows.items()):
        fr[f, L.FR_LINK] = link
        fr[f, L.FR_R:L.FR_R + 9] = T[:3, :3].ravel()
        fr[f, L.FR_P:L.FR_P + 3] = T[:3, 3]
        frame_index[name] = f
    subhinges = [lk[1] for lk in links]
    c = CompiledModel(mbuf, subhinges, body_link, T_link_body, frame_index, hinge_order, q_slices, u_slices)
    c.set_constraints(constraints, constraint_table(constraints, frame_index, frame_rows, q_slices, u_slices))
    c.modal_slices = modal_slices
    if modal_slices:  # the flex block joins the model buffer, the flex kernels serve it
        c.set_flex(compile_flex(mb, c))
    c.contact = compile_contact(mb, c)  # None without collision shapes
    return c


def constraint_table(constraints, frame_index, frame_rows, q_slices, u_slices):
    """The cr rows (layout CR_*) of the enabled constraints, in order: vectors fixed in a
    node frame are stored in the axes of the link that frame is fixed on."""
    rows = []
    for c in constraints:
        if c.category == "coordinate":
            qa, qb = q_slices[c.hinge_a.name].start, q_slices[c.hinge_b.name].start
            ua, ub = u_slices[c.hinge_a.name].start, u_slices[c.hinge_b.name].start
            for r in c.rows:
                row = np.zeros(L.CR_COLS)
                row[L.CR_TYPE] = r.type
                row[[L.CR_SCALAR, L.CR_OFFSET, L.CR_QA, L.CR_QB, L.CR_UA, L.CR_UB]] = (r.scalar, r.offset, qa, qb, ua, ub)
                rows.append(row)
            continue
        Ra = frame_rows[c.node_a.name][1][:3, :3]
        Rb = frame_rows[c.node_b.name][1][:3, :3]
        for r in c.rows:
            row = np.zeros(L.CR_COLS)
            row[L.CR_TYPE] = r.type
            row[L.CR_FA] = frame_index[c.node_a.name]
            row[L.CR_FB] = frame_index[c.node_b.name]
            row[L.CR_E:L.CR_E + 3] = Ra @ r.e
            row[L.CR_B:L.CR_B + 3] = Rb @ r.b
            row[L.CR_E2:L.CR_E2 + 3] = Ra @ r.e2
            row[L.CR_E3:L.CR_E3 + 3] = Ra @ r.b  # a screw's e1 as fixed in frame a
            row[L.CR_SCALAR] = r.scalar
            rows.append(row)
    return np.array(rows).reshape(len(rows), L.CR_COLS)
