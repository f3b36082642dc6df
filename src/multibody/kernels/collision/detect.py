"""Contact detection: shape poses, broad phase, narrow phase (issue 21).

``detect`` is the one entry: compiled, allocation-free, callable from another compiled
function (the stepping loop calls it once per step). Its scratch ``work`` is the tuple
``contact_work`` (``work.py``) makes once per model.
"""
from numba import njit

from .broad_phase import CUR_NPLANES, next_pair, start_sweep, update_aabbs
from .layout import SF_MU, SF_REST
from .manifold import emit
from .narrow_phase import is_plane_mesh, narrow_pair, plane_mesh_pair
from .poses import shape_poses

# work[STATS] entries, for tests and benchmarks
STAT_PAIRS = 0     # candidate pairs the broad phase passed to the narrow phase (last call)
STAT_NEEDED = 1    # contacts found (last call), also when they exceed the rows given
STAT_COLS = 2


@njit(cache=True)
def detect(si, sf, verts, allow, ws, work, ci, cf):
    """Contacts of the shapes (rows of si/sf; verts, allow: ``ContactModel``) at the link
    placements of ws (a data buffer's link rows with W_RW, W_PW filled by the kinematics
    pass), written to rows 0.. of ci (maxc, CI_COLS) and cf (maxc, CF_COLS).

    Returns the number of contacts nc >= 0; when they are more than ci's rows, returns
    -(the number found) (the first rows are written, the rest are not: the caller must
    give more rows and detect again, never go on with some dropped)."""
    poses, aabb, order, cur, cand, cfeat, man, mfeat, sep, adj_start, adj, stats = work
    nsweep = order.shape[0] - cur[CUR_NPLANES]
    shape_poses(si, sf, ws, poses)
    update_aabbs(si, sf, poses, aabb)
    start_sweep(aabb, order, nsweep, cur)
    nc = 0
    pairs = 0
    while True:
        i, j = next_pair(si, sf, allow, aabb, poses, order, nsweep, cur)
        if i < 0:
            break
        a, b = (i, j) if i < j else (j, i)
        pairs += 1
        if is_plane_mesh(si, a, b):  # (a robot on the floor: past narrow_pair's costly dispatch)
            count, flip = plane_mesh_pair(si, sf, verts, poses, a, b, cand, cfeat, man, mfeat, adj_start, adj, sep)
        else:
            count, flip = narrow_pair(si, sf, verts, poses, a, b, cand, cfeat, man, mfeat, adj_start, adj, sep)
        if count > 0:
            mu = max(sf[a, SF_MU], sf[b, SF_MU])
            rest = max(sf[a, SF_REST], sf[b, SF_REST])
            nc = emit(man, mfeat, count, a, b, flip, mu, rest, ci, cf, nc)
    stats[STAT_PAIRS] = pairs
    stats[STAT_NEEDED] = nc
    if nc > ci.shape[0]:
        return -nc
    return nc
