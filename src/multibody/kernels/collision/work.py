"""The scratch arrays of ``detect`` and its output rows, made once per model (issue 21)."""
import numpy as np

from .broad_phase import AABB_COLS, CUR_COLS, CUR_NPLANES
from .detect import STAT_COLS
from .hull_walk import hull_adjacency
from .heightfield import PRISM_ROWS
from .layout import CF_COLS, CI_COLS, HFIELD, HFIELD_MANIFOLD, MAX_MANIFOLD, PLANE, SI_TYPE, SI_VNUM
from .manifold import CAND_COLS, MAN_COLS
from .poses import POSE_COLS
from .separation import SEP_COLS

#: a pair with a height field keeps this many candidate points at most (``heightfield.py``)
HFIELD_CANDIDATES = 64
#: work[STATS]: the statistics (``detect.STAT_*``); work[HVERTS]: the height fields' scratch
STATS, HVERTS = 11, 12


def contact_work(contact_model, max_contacts):
    """(work, ci, cf) for ``detect`` on ``contact_model`` (a ``ContactModel``: its ``si``):
    work, the tuple of its scratch arrays (poses, boxes, the sweep's order and cursor, a
    pair's candidate and manifold rows, each pair's last separating direction and
    support vertices, ``separation.py``, the hulls' edges adj_start, adj, ``hull_walk.py``:
    constants of the model, statistics, and the height fields' scratch: a copy of ``verts``
    with the rows of one prism more, ``heightfield.py``); ci (max_contacts, CI_COLS) int64 and
    cf (max_contacts, CF_COLS) float64, the rows it writes contacts to."""
    if isinstance(max_contacts, bool) or not isinstance(max_contacts, (int, np.integer)) or max_contacts < 1:
        raise ValueError(f"contact_work: max_contacts must be a positive integer, got {max_contacts!r}")
    si = contact_model.si
    ns = si.shape[0]
    kinds = si[:, SI_TYPE]
    planes = np.flatnonzero(kinds == PLANE)
    # the shapes other than planes first (the sweep sorts them in place), the planes last
    order = np.concatenate([np.flatnonzero(kinds != PLANE), planes]).astype(np.int64)
    cur = np.zeros(CUR_COLS, dtype=np.int64)
    cur[CUR_NPLANES] = len(planes)
    # flat contacts' candidates: 8 box corners, 8 rim points, a mesh's vertices, 8 clipped points;
    # a height field's (HFIELD_CANDIDATES at most per pair, ``heightfield.py``)
    adjacency = getattr(contact_model, "hull_adjacency", None)  # (a ContactModel keeps its own)
    if adjacency is None:
        adjacency = hull_adjacency(si, contact_model.verts)
    fields = kinds == HFIELD
    ncand = max([8] + [int(v) for v in si[~fields, SI_VNUM]] + [HFIELD_CANDIDATES] * int(fields.any()))
    hverts = np.vstack([contact_model.verts, np.zeros((PRISM_ROWS, 3))])
    nman = HFIELD_MANIFOLD if fields.any() else MAX_MANIFOLD
    work = (np.zeros((ns, POSE_COLS)), np.zeros((ns, AABB_COLS)), order, cur,
            np.zeros((ncand, CAND_COLS)), np.zeros(ncand, dtype=np.int64),
            np.zeros((nman, MAN_COLS)), np.zeros(nman, dtype=np.int64),
            np.zeros((ns, ns, SEP_COLS)), *adjacency, np.zeros(STAT_COLS, dtype=np.int64), hverts)
    ci = np.zeros((int(max_contacts), CI_COLS), dtype=np.int64)
    cf = np.zeros((int(max_contacts), CF_COLS))
    return work, ci, cf
