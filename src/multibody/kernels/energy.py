"""Link velocities, kinetic and potential energy, centre of mass."""
from numba import njit

from .common import first_nonfinite, joint_motion_add, rigid_inertia_times
from .joint_transform import forward_kinematics_pass
from .layout import GRAVITY, INERTIA, PARENT, W_C, W_P, W_PW, W_R, W_RW, W_V
from .spatial_inline import motion_to_child


@njit(cache=True)
def velocity_pass(mi, mf, ws, q, u):
    """World placements and link spatial velocities v_j (W_V, link frame)."""
    forward_kinematics_pass(mi, mf, ws, q)
    for j in range(mi.shape[0]):
        p = mi[j, PARENT]
        v = ws[j, W_V:W_V + 6]
        if p < 0:
            for k in range(6):
                v[k] = 0.0
        else:
            motion_to_child(ws[j, W_R:W_R + 9], ws[j, W_P:W_P + 3], ws[p, W_V:W_V + 6], v)
        joint_motion_add(mi, mf, j, u, v)


@njit(cache=True)
def kinetic_energy(mi, mf, ws, q, u, out):
    """out[0] = 1/2 sum_j v_j^T I_j v_j. Returns 0, or 1/2 for non-finite q/u."""
    if first_nonfinite(q) >= 0:
        return 1
    if first_nonfinite(u) >= 0:
        return 2
    velocity_pass(mi, mf, ws, q, u)
    e = 0.0
    for j in range(mi.shape[0]):
        hv = ws[j, W_C:W_C + 6]
        rigid_inertia_times(mf, j, ws[j, W_V:W_V + 6], hv)
        for k in range(6):
            e += ws[j, W_V + k] * hv[k]
    out[0] = 0.5 * e
    return 0


@njit(cache=True)
def mass_and_com(mi, mf, ws, q, out):
    """out = [total mass, centre of mass in the world (3)], after a kinematics pass."""
    if first_nonfinite(q) >= 0:
        return 1
    forward_kinematics_pass(mi, mf, ws, q)
    m = 0.0
    c0 = 0.0
    c1 = 0.0
    c2 = 0.0
    for j in range(mi.shape[0]):
        mj = mf[j, INERTIA + 35]
        # m c in the link frame, read off the lower-left block -m[c]x of the inertia
        h0 = mf[j, INERTIA + 6 * 4 + 2]
        h1 = mf[j, INERTIA + 6 * 5 + 0]
        h2 = mf[j, INERTIA + 6 * 3 + 1]
        R = ws[j, W_RW:W_RW + 9]
        c0 += mj * ws[j, W_PW] + R[0] * h0 + R[1] * h1 + R[2] * h2
        c1 += mj * ws[j, W_PW + 1] + R[3] * h0 + R[4] * h1 + R[5] * h2
        c2 += mj * ws[j, W_PW + 2] + R[6] * h0 + R[7] * h1 + R[8] * h2
        m += mj
    out[0] = m
    if m > 0.0:
        out[1] = c0 / m
        out[2] = c1 / m
        out[3] = c2 / m
    else:
        out[1] = 0.0
        out[2] = 0.0
        out[3] = 0.0
    return 0
