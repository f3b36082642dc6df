"""Test helper: the world poses of a model's collision shapes, from the compiled contact
tables (``kernels/collision/layout.py``) and the link placements of the forward kinematics."""
import numpy as np

from multibody.kernels import layout as L
from multibody.kernels.collision import layout as CL


def shape_world_poses(m, q):
    """(ns, 4, 4) world poses of ``m``'s collision shapes at ``q``."""
    c = m.compiled
    d = m.create_data()
    m.body_pose(q, m.body_names[0], data=d)  # runs the forward kinematics pass: W_RW, W_PW of every link
    out = []
    for si, sf in zip(c.contact.si, c.contact.sf):
        T_ls = np.eye(4)
        T_ls[:3, :3] = sf[CL.SF_R:CL.SF_R + 9].reshape(3, 3)
        T_ls[:3, 3] = sf[CL.SF_P:CL.SF_P + 3]
        T_wl = np.eye(4)
        link = si[CL.SI_LINK]
        if link >= 0:
            T_wl[:3, :3] = d.ws[link, L.W_RW:L.W_RW + 9].reshape(3, 3)
            T_wl[:3, 3] = d.ws[link, L.W_PW:L.W_PW + 3]
        out.append(T_wl @ T_ls)
    return np.array(out)
