"""Poses, skeleton lines and camera placement of the viewer (NumPy only, no viser)."""
import numpy as np

#: colour of the skeleton lines drawn for bodies without visuals
SKELETON_RGB = (235, 120, 30)


def poses_of(m, Q, names):
    """``{name: (B, 4, 4)}`` world poses of bodies/nodes for stacked configurations Q (B, nq)."""
    Q = np.ascontiguousarray(Q, dtype=float)
    if Q.shape[0] == 1:
        return {n: m.body_pose(Q[0], n)[None] for n in names}
    return {n: np.asarray(m.body_pose(Q, n)) for n in names}


def wxyz_xyz(T):
    """Quaternions (B, 4) as (w, x, y, z) and positions (B, 3) of poses T (B, 4, 4)."""
    T = np.asarray(T, dtype=float)
    R = T[:, :3, :3]
    tr = np.trace(R, axis1=1, axis2=2)
    q = np.empty((T.shape[0], 4))
    # Shepperd's method: the largest of w, x, y, z is computed first, the rest from it
    cand = np.stack([tr, R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]], axis=1)
    k = np.argmax(cand, axis=1)
    for i in range(T.shape[0]):
        r = R[i]
        if k[i] == 0:
            s = 2.0 * np.sqrt(max(1.0 + tr[i], 1e-300))
            q[i] = (0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s)
        elif k[i] == 1:
            s = 2.0 * np.sqrt(max(1.0 + r[0, 0] - r[1, 1] - r[2, 2], 1e-300))
            q[i] = ((r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s)
        elif k[i] == 2:
            s = 2.0 * np.sqrt(max(1.0 - r[0, 0] + r[1, 1] - r[2, 2], 1e-300))
            q[i] = ((r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s)
        else:
            s = 2.0 * np.sqrt(max(1.0 - r[0, 0] - r[1, 1] + r[2, 2], 1e-300))
            q[i] = ((r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q, T[:, :3, 3].copy()


def deforming_line(m, body):
    """Names of the nodes of a modal body, ordered by their undeformed distance from its
    origin (the line the skeleton draws through them, which bends with the body); [] for a
    rigid body or a modal body without nodes away from its origin."""
    if not getattr(body, "n_modes", 0):
        return []
    nodes = [(float(np.linalg.norm(n.T_body_node[:3, 3])), n.name) for n in m.nodes.values() if n.body is body]
    return [name for dist, name in sorted(nodes) if dist > 0.0]


def skeleton_segments(m, skeleton, drawn=None):
    """Segments ``(frame_a, point_a, frame_b, point_b)`` (points in the frames' axes; frames are
    body or node names) of the skeleton: parent origin to child origin, a leaf's origin to
    twice its centre of mass, and for a modal body a line from its origin through its nodes
    (deformed poses: it bends with the body). ``skeleton``: None (the bodies not in ``drawn``,
    the names of those whose visuals are drawn; None: the bodies with visuals), True (all
    bodies) or False (none)."""
    if skeleton is False:
        return []
    names = set(m.body_names)
    zero = np.zeros(3)
    out = []
    for b in m.bodies:
        if skeleton is None and (b.name in drawn if drawn is not None else any(
                isinstance(v, dict) and v.get("type") for v in (getattr(b, "visuals", None) or []))):
            continue
        children = [h.child.name for h in b.child_hinges if h.child.name in names]
        for c in children:
            out.append((b.name, zero, c, zero))
        line = deforming_line(m, b)
        for a, c in zip([b.name] + line, line):
            out.append((a, zero, c, zero))
        com = np.asarray(b.com, dtype=float)
        if not children and not line and np.linalg.norm(com) > 0:
            out.append((b.name, zero, b.name, 2.0 * com))
    return out


def skeleton_frames(m):
    """Body and node names the skeleton's segments (of every body) need poses of."""
    return list(dict.fromkeys(n for a, _, b, _ in skeleton_segments(m, True) for n in (a, b)))


def segment_points(segments, pose):
    """(S, 2, 3) world end points of ``segments`` for ``{name: T (4, 4)}``."""
    pts = np.empty((len(segments), 2, 3), dtype=np.float32)
    for i, (a, pa, b, pb) in enumerate(segments):
        Ta, Tb = pose[a], pose[b]
        pts[i, 0] = Ta[:3, :3] @ pa + Ta[:3, 3]
        pts[i, 1] = Tb[:3, :3] @ pb + Tb[:3, 3]
    return pts


def bounds_camera(m, poses):
    """``(size, look_at, camera_position)`` framing every body origin and every leaf's
    skeleton tip over the samples (the same for any drawing options)."""
    segments = skeleton_segments(m, True)
    B = next(iter(poses.values())).shape[0]
    pts = [P[:, :3, 3] for P in poses.values()]
    pts += [segment_points(segments, {n: P[j] for n, P in poses.items()}).reshape(-1, 3)
            for j in np.unique(np.linspace(0, B - 1, 20).astype(int))]
    pts = np.concatenate(pts)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    size = float(max(np.linalg.norm(hi - lo), 0.5))
    direction = np.array([0.9, -2.0, 0.45])
    direction /= np.linalg.norm(direction)
    right = np.cross(-direction, [0.0, 0.0, 1.0])
    # the control panel covers the right third of the page: the model's centre sits left of
    # the view's, so that the camera frames it in the part that shows
    look_at = 0.5 * (lo + hi) + 0.15 * size * right / np.linalg.norm(right)
    position = look_at + 1.1 * size * direction
    return size, look_at, position, float(lo[2])


#: the grid on the viewer's dark theme (a near-black scene, on which the pale meshes of most
#: robot files stand out, as in RViz and MuJoCo's viewer): a few shades above the background
GRID_COLOURS = dict(cell_color=(58, 62, 70), section_color=(92, 98, 110))
