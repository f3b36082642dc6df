"""Contact detection: shape poses, broad phase, narrow phase (issue 21).

``detect`` is the one entry: compiled, allocation-free, callable from another compiled
function (the stepping loop calls it once per step). Its scratch ``work`` is the tuple
``contact_work`` (``work.py``) makes once per model.
"""
from numba import njit

from .broad_phase import CUR_NPLANES, next_pair, start_sweep, update_aabbs
from .layout import CF_KD, CF_KP, CF_SOLIMP, CF_SOLREF, SF_KD, SF_KP, SF_MU, SF_REST, SF_SOLIMP, SF_SOLREF
from .manifold import emit
from .narrow_phase import is_plane_mesh, narrow_pair, plane_mesh_pair
from .poses import shape_poses

# work[STATS] entries, for tests and benchmarks
STAT_PAIRS = 0     # candidate pairs the broad phase passed to the narrow phase (last call)
STAT_NEEDED = 1    # contacts found (last call), also when they exceed the rows given
STAT_COLS = 2


@njit(cache=True, inline="always")
def _series(x, y):
    """x and y combined in series (springs, dampers); 0 stands for rigid (nothing added)."""
    if x > 0.0 and y > 0.0:
        return x * y / (x + y)
    return x if x > 0.0 else y


@njit(cache=True, inline="always")
def pair_softness(sf, a, b, cf, c):
    """Contact c's softness from its shapes a and b: stiffness and damping (per contact
    point) in series (1/k = 1/k_a + 1/k_b over the soft shapes; a hard one adds nothing);
    MuJoCo's solref and solimp the mean of the two shapes' where both have them (its default
    solmix; a direct, negative, solref: the element-wise minimum, as MuJoCo), else the one's
    that has them. A pair with both kinds takes the spring (``soft_targets``)."""
    ka = sf[a, SF_KP]
    kb = sf[b, SF_KP]
    cf[c, CF_KP] = _series(ka, kb)
    cf[c, CF_KD] = _series(sf[a, SF_KD] if ka > 0.0 else 0.0, sf[b, SF_KD] if kb > 0.0 else 0.0)
    has_a = sf[a, SF_SOLREF] != 0.0 or sf[a, SF_SOLREF + 1] != 0.0
    has_b = sf[b, SF_SOLREF] != 0.0 or sf[b, SF_SOLREF + 1] != 0.0
    both = has_a and has_b
    wa = 0.5 if both else (1.0 if has_a else 0.0)
    wb = 0.5 if both else (1.0 if has_b else 0.0)
    direct = both and (sf[a, SF_SOLREF] < 0.0 or sf[b, SF_SOLREF] < 0.0)
    for i in range(2):
        if direct:  # (MuJoCo: a direct (negative) solref is not averaged; the pair takes the minimum)
            cf[c, CF_SOLREF + i] = min(sf[a, SF_SOLREF + i], sf[b, SF_SOLREF + i])
        else:
            cf[c, CF_SOLREF + i] = wa * sf[a, SF_SOLREF + i] + wb * sf[b, SF_SOLREF + i]
    for i in range(5):
        cf[c, CF_SOLIMP + i] = wa * sf[a, SF_SOLIMP + i] + wb * sf[b, SF_SOLIMP + i]


@njit(cache=True)
def detect(si, sf, verts, allow, ws, work, ci, cf):
    """Contacts of the shapes (rows of si/sf; verts, allow: ``ContactModel``) at the link
    placements of ws (a data buffer's link rows with W_RW, W_PW filled by the kinematics
    pass), written to rows 0.. of ci (maxc, CI_COLS) and cf (maxc, CF_COLS).

    Returns the number of contacts nc >= 0; when they are more than ci's rows, returns
    -(the number found) (the first rows are written, the rest are not: the caller must
    give more rows and detect again, never go on with some dropped)."""
    poses, aabb, order, cur, cand, cfeat, man, mfeat, sep, adj_start, adj, stats, hverts = work
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
            count, flip = narrow_pair(si, sf, verts, poses, a, b, cand, cfeat, man, mfeat, adj_start, adj, sep,
                                      hverts)
        if count > 0:
            mu = max(sf[a, SF_MU], sf[b, SF_MU])
            rest = max(sf[a, SF_REST], sf[b, SF_REST])
            first = nc
            nc = emit(man, mfeat, count, a, b, flip, mu, rest, ci, cf, nc)
            for c in range(first, min(nc, cf.shape[0])):
                pair_softness(sf, a, b, cf, c)
    stats[STAT_PAIRS] = pairs
    stats[STAT_NEEDED] = nc
    if nc > ci.shape[0]:
        return -nc
    return nc
