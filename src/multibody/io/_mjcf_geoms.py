"""The geoms of a compiled MuJoCo model as body visuals (the viewer's format, as the URDF
reader's ``body.visuals``): box, sphere, capsule, cylinder and mesh geoms, in the body
frame, with their colours. Planes and other kinds (ellipsoid, height fields) are left out.
"""
import numpy as np

from ._mjcf_build import quat_wxyz_to_matrix, transform

# mjtGeom codes (MuJoCo's enum): plane 0, hfield 1, sphere 2, capsule 3, ellipsoid 4,
# cylinder 5, box 6, mesh 7
_SPHERE, _CAPSULE, _CYLINDER, _BOX, _MESH = 2, 3, 5, 6, 7


def geom_visuals(mm, b):
    """[visual dict] of MuJoCo body b's geoms (sizes: MuJoCo's half sizes doubled)."""
    out = []
    for g in np.flatnonzero(mm.geom_bodyid == b):
        t, size = int(mm.geom_type[g]), mm.geom_size[g]
        if t == _BOX:
            vis = {"type": "box", "size": 2.0 * size[:3]}
        elif t == _SPHERE:
            vis = {"type": "sphere", "radius": float(size[0])}
        elif t in (_CAPSULE, _CYLINDER):
            vis = {"type": "capsule" if t == _CAPSULE else "cylinder", "radius": float(size[0]),
                   "length": 2.0 * float(size[1])}
        elif t == _MESH and mm.geom_dataid[g] >= 0:
            k = int(mm.geom_dataid[g])
            v0, nv = int(mm.mesh_vertadr[k]), int(mm.mesh_vertnum[k])
            f0, nf = int(mm.mesh_faceadr[k]), int(mm.mesh_facenum[k])
            vis = {"type": "trimesh", "vertices": np.array(mm.mesh_vert[v0:v0 + nv]),
                   "faces": np.array(mm.mesh_face[f0:f0 + nf])}
        else:
            continue
        vis["origin"] = transform(quat_wxyz_to_matrix(mm.geom_quat[g]), mm.geom_pos[g])
        vis["rgba"] = np.array(mm.geom_rgba[g], dtype=float)
        out.append(vis)
    return out
