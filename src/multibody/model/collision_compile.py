"""Compile the collision shapes into the contact constants ``m.compiled.contact`` (issue 21).

The columns are those of ``kernels/collision/layout.py``. A shape goes on the link its
body sits on (a body welded to its parent shares the parent's link, its pose composed
with the body's fixed pose there), so detection needs only the link placements.

Models with modal bodies place each shape through its frame instead (``frames``: the model
frame row of its node, or of its body; ``si_frame``, ``sf_frame``: the shape as if on a
link of its own, row k of a placement array that ``kernels/flex_contact`` fills with the
frames' deformed world poses), so that a shape pinned to a node follows the deformation.
"""
import numpy as np

from ..kernels import layout as L
from ..kernels.collision import layout as CL
from ..kernels.collision.hull_walk import hull_adjacency


def _completed(attr, doc):
    """A read-only ``ContactModel`` property: its array ``attr``, the meshes' columns filled on
    first read (``ContactModel._complete``)."""
    return property(lambda self: getattr(self._complete(), attr), doc=doc)


class ContactModel:
    """The compiled contact constants (see ``kernels/collision/layout.py`` for the columns).

    ``si`` (ns, SI_COLS) int64, ``sf`` (ns, SF_COLS) float64, ``verts`` (nv, 3) float64 (hull
    vertices of the meshes in their shape frames), ``allow`` (ns, ns) uint8 (1: the pair may
    touch; symmetric, zero diagonal). For messages: ``shape_names`` and ``body_names`` (the
    body of each shape, "world" for scenery), and ``shapes`` (the ``CollisionShape`` objects).

    The meshes' columns of ``si`` and ``sf`` and ``verts`` are filled when one of the three is
    first read: a mesh read from a file makes its hull then (``shapes.ConvexMesh.vertices``),
    so a model compiled for its dynamics alone never runs Qhull.
    """

    def __init__(self, si, sf, allow, shapes, frames=None, sf_frame=None):
        self._si = si
        self._sf = sf
        self._verts = None
        self.allow = allow
        ns = si.shape[0]
        #: (ns,) int64: the model frame row each shape is fixed in (its node's, or its body's;
        #: -1 on the world); sf_frame: sf with the shape's pose in that frame; si_frame: si with
        #: each non-world shape on "link" k (row k of the flex placement array)
        self.frames = np.full(ns, -1, dtype=np.int64) if frames is None else frames
        self._sf_frame = sf.copy() if sf_frame is None else sf_frame
        self._si_frame = si.copy()
        self._si_frame[:, CL.SI_LINK] = np.where(si[:, CL.SI_LINK] >= 0, np.arange(ns), -1)
        self.shapes = tuple(shapes)
        self.shape_names = tuple(s.name for s in shapes)
        self.body_names = tuple(s.body.name for s in shapes)

    si = _completed("_si", """(ns, SI_COLS) int64 shape rows.""")
    sf = _completed("_sf", """(ns, SF_COLS) float64 shape rows.""")
    si_frame = _completed("_si_frame", """si with each non-world shape on "link" k (row k of the flex placement
        array).""")
    sf_frame = _completed("_sf_frame", """sf with each shape's pose in its frame (``frames``).""")
    verts = _completed("_verts", """(nv, 3) float64: the meshes' hull vertices (a height field's grid
        points), in their shape frames, one after another.""")

    def _complete(self):
        """self, its meshes' columns filled (on the first call)."""
        return self if self._verts is not None else self._with_meshes()

    def _with_meshes(self):
        """Fill the meshes' columns (SI_VADR, SI_VNUM, SF_SIZE, SF_CENTRE, SF_RBOUND) and ``verts``
        (and a height field's SI_VADR, SI_VNUM: its grid points in ``verts``)."""
        verts = []
        nv = 0
        for k, s in enumerate(self.shapes):
            if s.shape.type_code not in (CL.MESH, CL.HFIELD):
                continue
            v = s.shape.vertices  # (a height field's grid points)
            for si in (self._si, self._si_frame):
                si[k, CL.SI_VADR] = nv
                si[k, CL.SI_VNUM] = len(v)
            verts.append(v)
            nv += len(v)
            if s.shape.type_code == CL.HFIELD:
                continue  # (its box and sphere: compile_contact's, from the shape)
            # a hull's sphere about its box's middle: robot meshes sit off their origin; the box's
            # half extents too, for the broad phase's boxes (a long link's sphere is far looser)
            centre = 0.5 * (v.min(axis=0) + v.max(axis=0))
            for sf in (self._sf, self._sf_frame):
                sf[k, CL.SF_CENTRE:CL.SF_CENTRE + 3] = centre
                sf[k, CL.SF_SIZE:CL.SF_SIZE + 3] = 0.5 * (v.max(axis=0) - v.min(axis=0))
                sf[k, CL.SF_RBOUND] = np.linalg.norm(v - centre, axis=1).max()
        self._verts = np.ascontiguousarray(np.vstack(verts)) if verts else np.zeros((0, 3))
        return self

    @property
    def hull_adjacency(self):
        """(adj_start, adj): the edge graph of the meshes' hulls over the rows of ``verts``
        (``kernels/collision/hull_walk.py``), made on first use."""
        if getattr(self, "_adjacency", None) is None:
            self._adjacency = hull_adjacency(self.si, self.verts)
        return self._adjacency

    @property
    def n_shapes(self):
        """Number of collision shapes (rows of ``si`` and ``sf``)."""
        return len(self.shapes)

    @property
    def n_pairs(self):
        """Number of shape pairs the filters allow."""
        return int(self.allow.sum()) // 2

    def __repr__(self):
        return f"ContactModel(shapes={self.n_shapes}, allowed pairs={self.n_pairs}, hull vertices={len(self.verts)})"


def _softness(s, row):
    """Shape ``s``'s soft surface into its sf ``row`` (``CollisionShape``), or ValueError
    naming the shape where its parameters do not go together."""
    if s.stiffness is not None and s.solref is not None:
        raise ValueError(f"collision shape {s.name!r}: give stiffness/damping or solref/solimp, not both")
    if s.stiffness is None and s.damping > 0.0:
        raise ValueError(f"collision shape {s.name!r}: damping {s.damping:g} needs a stiffness (a hard contact "
                         f"has none)")
    if s.stiffness is not None:
        row[CL.SF_KP] = s.stiffness
        row[CL.SF_KD] = s.damping
    if s.solref is not None:
        row[CL.SF_SOLREF:CL.SF_SOLREF + 2] = s.solref
        row[CL.SF_SOLIMP:CL.SF_SOLIMP + 5] = s.solimp


def compile_contact(mb, c):
    """The ``ContactModel`` of Multibody ``mb`` with compiled model ``c`` (its ``body_link``,
    ``T_link_body`` and link parents), or None when ``mb`` has no collision shapes."""
    shapes = mb.collision_shapes
    if not shapes:
        return None
    body_index = {name: k for k, name in enumerate(mb.body_names)}
    body_index[mb.world.name] = -1
    ns = len(shapes)
    si = np.zeros((ns, CL.SI_COLS), dtype=np.int64)
    sf = np.zeros((ns, CL.SF_COLS))
    frames = np.full(ns, -1, dtype=np.int64)
    sf_frame = np.zeros((ns, CL.SF_COLS))
    for k, s in enumerate(shapes):
        T_frame = s.pose if s.node is None else s.node.T_body_node @ s.pose  # (in the body frame)
        T = c.T_link_body[s.body.name] @ T_frame  # the shape frame in its link's frame
        si[k, CL.SI_TYPE] = s.shape.type_code
        si[k, CL.SI_LINK] = c.body_link[s.body.name]
        si[k, CL.SI_BODY] = body_index[s.body.name]
        si[k, CL.SI_CONTYPE] = s.contype
        si[k, CL.SI_CONAFF] = s.conaffinity
        sf[k, CL.SF_R:CL.SF_R + 9] = T[:3, :3].ravel()
        sf[k, CL.SF_P:CL.SF_P + 3] = T[:3, 3]
        sf[k, CL.SF_SIZE:CL.SF_SIZE + 3] = s.shape.size
        if s.shape.type_code != CL.MESH:  # (a mesh's, from its hull: ContactModel._with_meshes)
            sf[k, CL.SF_RBOUND] = s.shape.bounding_radius
        if s.shape.type_code == CL.HFIELD:  # (its grid points: ContactModel._with_meshes)
            si[k, CL.SI_NCOL] = s.shape.grid_shape[1]
            sf[k, CL.SF_CENTRE:CL.SF_CENTRE + 3] = s.shape.centre
        sf[k, CL.SF_MU] = s.friction
        sf[k, CL.SF_REST] = s.restitution
        sf[k, CL.SF_MARGIN] = s.margin
        _softness(s, sf[k])
        sf_frame[k] = sf[k]
        if si[k, CL.SI_LINK] >= 0:  # the pose in its frame (node or body): the flex placements'
            frames[k] = c.frame_rows[s.frame_name]
            sf_frame[k, CL.SF_R:CL.SF_R + 9] = s.pose[:3, :3].ravel()
            sf_frame[k, CL.SF_P:CL.SF_P + 3] = s.pose[:3, 3]
    excluded = _excluded(shapes, mb.collision_excludes) | _fixed_base_pairs(shapes, mb, c)
    allow = allowed_pairs(si, body_parent_links(c), excluded, _self_pairs(shapes, mb.self_collision_bodies))
    return ContactModel(si, sf, allow, shapes, frames, sf_frame)


def body_parent_links(c):
    """(n_links,) int64: per link, its nearest ancestor link that carries a body (-1: the
    world). A hinge of several subhinges (universal, gimbal ...) moves links that carry no
    body between its parent body's link and its child's: the child's parent is the body's."""
    n = c.mi.shape[0]
    carries = np.zeros(n, dtype=bool)
    for link in c.body_link.values():
        if link >= 0:
            carries[link] = True
    out = np.full(n, -1, dtype=np.int64)
    for j in range(n):  # (depth-first order: a parent comes before its children)
        p = int(c.mi[j, L.PARENT])
        out[j] = p if p < 0 or carries[p] else out[p]
    return out


def _self_pairs(shapes, bodies):
    """(ns, ns) bool: True for two shapes of one body of ``bodies`` (modal bodies whose
    self-collision is on) fixed in different frames (``CollisionShape.frame_name``)."""
    ns = len(shapes)
    if not bodies:
        return np.zeros((ns, ns), dtype=bool)
    names = [s.body.name for s in shapes]
    _, body = np.unique(names, return_inverse=True)
    _, frame = np.unique([s.frame_name for s in shapes], return_inverse=True)
    on = np.isin(names, list(bodies))
    return (body[:, None] == body[None, :]) & on[:, None] & (frame[:, None] != frame[None, :])


def allowed_pairs(si, parent_link, excluded, self_pairs=None):
    """(ns, ns) uint8: 1 where shapes a and b may touch.

    A pair may touch when ``contype_a & conaffinity_b or contype_b & conaffinity_a`` (MuJoCo's
    rule), the two are on different links (or are a ``self_pairs`` pair: two frames of a
    modal body whose self-collision is on, ``_self_pairs``), neither link is the other's parent link
    (``parent_link``: per link, its parent body's, ``body_parent_links``), and the pair is not
    in ``excluded`` ((ns, ns) bool). The world is no link's parent here (as in
    MuJoCo): a floor touches a floating base; a fixed robot base and its first links are
    parted by ``_fixed_base_pairs``, in ``excluded``. Two shapes on the world are on one link (-1).
    """
    link = si[:, CL.SI_LINK]
    ct, ca = si[:, CL.SI_CONTYPE], si[:, CL.SI_CONAFF]
    bits = ((ct[:, None] & ca[None, :]) | (ct[None, :] & ca[:, None])) != 0
    same_link = link[:, None] == link[None, :]
    plink = np.where(link >= 0, parent_link[np.maximum(link, 0)] if len(parent_link) else -1, -1)
    parent_child = ((plink[:, None] == link[None, :]) | (plink[None, :] == link[:, None])) \
        & (link[:, None] >= 0) & (link[None, :] >= 0)
    if self_pairs is not None:
        same_link &= ~self_pairs
    allow = bits & ~same_link & ~parent_child & ~excluded
    np.fill_diagonal(allow, False)
    return allow.astype(np.uint8)


def _welded_below(body):
    """``body`` and the bodies hanging from it by hinges without moving subhinges."""
    out, stack = [], [body]
    while stack:
        b = stack.pop()
        out.append(b)
        stack += [h.child for h in b.child_hinges if h.nq == 0 and h.nu == 0 and not h.child.n_modes]
    return out


def fixed_base_pairs(mb, c):
    """[(base body, link body)] name pairs that do not touch although both sides' links differ
    and neither is the other's parent link: a root link (its parent link the world) against
    the body its hinge hangs from when that body is welded to the world (a fixed robot base)
    and what is welded below it. The world's own shapes and other bodies welded to the world
    (a floor, a table) are not among them."""
    on_link = {}
    for name, link in c.body_link.items():
        on_link.setdefault(link, []).append(name)
    pairs = []
    parent = body_parent_links(c)
    for j in range(c.n_links):
        base = c.link_subhinges[j].hinge.parent
        if parent[j] >= 0 or base is mb.world or c.body_link[base.name] >= 0:
            continue
        pairs += [(b.name, name) for b in _welded_below(base) for name in on_link.get(j, ())]
    return pairs


def _fixed_base_pairs(shapes, mb, c):
    """(ns, ns) bool: the shape pairs of ``fixed_base_pairs``."""
    ns = len(shapes)
    out = np.zeros((ns, ns), dtype=bool)
    body = np.array([s.body.name for s in shapes])
    for a, b in fixed_base_pairs(mb, c):
        on_a, on_b = body == a, body == b
        out |= (on_a[:, None] & on_b[None, :]) | (on_b[:, None] & on_a[None, :])
    return out


def _excluded(shapes, excludes):
    """(ns, ns) bool: the pairs ``excludes`` (frozensets of two body or shape names) name."""
    ns = len(shapes)
    out = np.zeros((ns, ns), dtype=bool)
    if not excludes:
        return out
    keys = [(s.name, s.body.name) for s in shapes]
    for pair in excludes:
        x, y = tuple(pair)
        in_x = np.array([x in k for k in keys])
        in_y = np.array([y in k for k in keys])
        out |= (in_x[:, None] & in_y[None, :]) | (in_y[:, None] & in_x[None, :])
    return out
