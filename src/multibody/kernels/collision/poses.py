"""World pose of every collision shape from its link's placement (issue 21).

A shape on link l sits at (SF_R, SF_P) in the link frame; the link at (W_RW, W_PW) in the
world, so R_world_shape = R_world_link SF_R and p = p_link + R_world_link SF_P. Shapes of
the world (SI_LINK = -1) hold their world pose in SF_R, SF_P. The bounding sphere's centre
(SF_CENTRE, in the shape frame) is placed likewise, for the broad phase and the culls.
"""
from numba import njit

from ..layout import W_PW, W_RW
from ..spatial_inline import load9, mul33, mul33_vec, store9
from .layout import SF_CENTRE, SF_P, SF_R, SI_LINK

POSE_R = 0   # 9: the shape's axes in the world, row-major (world <- shape)
POSE_P = 9   # 3: the shape's origin in the world [m]
POSE_C = 12  # 3: its bounding sphere's centre in the world [m] (SF_CENTRE placed)
POSE_COLS = 15


@njit(cache=True)
def shape_poses(si, sf, ws, poses):
    """Write the world pose of each shape (rows of si/sf) into poses (ns, POSE_COLS).

    ws: the data buffer's link rows, with W_RW and W_PW filled (the kinematics pass)."""
    for s in range(si.shape[0]):
        Rs = load9(sf, s, SF_R)
        l = si[s, SI_LINK]
        if l < 0:
            store9(poses, s, POSE_R, Rs)
            for k in range(3):
                poses[s, POSE_P + k] = sf[s, SF_P + k]
            continue
        Rl = load9(ws, l, W_RW)
        store9(poses, s, POSE_R, mul33(Rl, Rs))
        t = mul33_vec(Rl, sf[s, SF_P], sf[s, SF_P + 1], sf[s, SF_P + 2])
        for k in range(3):
            poses[s, POSE_P + k] = ws[l, W_PW + k] + t[k]
    for s in range(si.shape[0]):
        c = mul33_vec(load9(poses, s, POSE_R), sf[s, SF_CENTRE], sf[s, SF_CENTRE + 1], sf[s, SF_CENTRE + 2])
        for k in range(3):
            poses[s, POSE_C + k] = poses[s, POSE_P + k] + c[k]
