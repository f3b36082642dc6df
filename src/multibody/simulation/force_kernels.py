"""Force models inside the compiled stepping loop: their packed layout and ``apply_forces``.

Each force-model entry is one row of ``fmi`` (int64, N_FMI columns) and one row of
``fmf`` (float64, N_FMF columns). ``simulation.forces`` packs them with the column names
below; ``apply_forces`` reads them with the same names.
"""
import math

from numba import njit

from ..kernels.layout import W_FEXT, W_RW
from ..kernels.spatial_inline import load9, mul33T_vec

__all__ = ["apply_forces"]

# --- entry types (fmi[e, FMI_TYPE])
FM_SPRING = 0    # tau[u_i] += -k (q[q_i] - q_ref) - c u[u_i]
FM_WRENCH = 1    # link wrench (link axes, about the link origin) w0 + w1 sin(omega t + phase)
FM_WORLD = 2     # world-axes wrench w0 + w1 sin(omega t + phase) at a point of the link

# --- integer columns (fmi)
FMI_TYPE = 0     # FM_SPRING, FM_WRENCH or FM_WORLD
FMI_U = 1        # FM_SPRING: index of the coordinate in u
FMI_LINK = 1     # FM_WRENCH, FM_WORLD: the link the wrench acts on
FMI_Q = 2        # FM_SPRING: index of the coordinate in q
N_FMI = 3

# --- float columns (fmf)
FM_K = 0         # FM_SPRING: stiffness
FM_C = 1         # FM_SPRING: damping
FM_QREF = 2      # FM_SPRING: rest position
FM_W0 = 0        # wrenches: constant part [moment; force] (6 columns)
FM_W1 = 6        # wrenches: amplitude of the sinusoidal part (6 columns)
FM_OMEGA = 12    # wrenches: angular frequency [rad/s]
FM_PHASE = 13    # wrenches: phase [rad]
FM_POINT = 14    # FM_WORLD: point of application in link axes (3 columns)
N_FMF = 17


@njit(cache=True, inline="always")
def _world_wrench_to_link(ws, j, fmf, e, s):
    """Add the FM_WORLD entry e (at sin value s) to ws[j, W_FEXT:+6]: world axes -> link
    axes (R_world_link^T), moment moved from the point to the link origin."""
    R = load9(ws, j, W_RW)
    n = mul33T_vec(R, fmf[e, FM_W0] + fmf[e, FM_W1] * s, fmf[e, FM_W0 + 1] + fmf[e, FM_W1 + 1] * s,
                   fmf[e, FM_W0 + 2] + fmf[e, FM_W1 + 2] * s)
    f = mul33T_vec(R, fmf[e, FM_W0 + 3] + fmf[e, FM_W1 + 3] * s, fmf[e, FM_W0 + 4] + fmf[e, FM_W1 + 4] * s,
                   fmf[e, FM_W0 + 5] + fmf[e, FM_W1 + 5] * s)
    px = fmf[e, FM_POINT]
    py = fmf[e, FM_POINT + 1]
    pz = fmf[e, FM_POINT + 2]
    ws[j, W_FEXT] += n[0] + py * f[2] - pz * f[1]
    ws[j, W_FEXT + 1] += n[1] + pz * f[0] - px * f[2]
    ws[j, W_FEXT + 2] += n[2] + px * f[1] - py * f[0]
    ws[j, W_FEXT + 3] += f[0]
    ws[j, W_FEXT + 4] += f[1]
    ws[j, W_FEXT + 5] += f[2]


@njit(cache=True, inline="always")
def apply_forces(mi, ws, fmi, fmf, q, u, t, tau0, tau):
    """tau = tau0 + spring-dampers; fill ws[:, W_FEXT]; return the use_fext flag."""
    for i in range(tau.shape[0]):
        tau[i] = tau0[i]
    nf = fmi.shape[0]
    if nf == 0:
        return 0
    use = 0
    for j in range(mi.shape[0]):
        for k in range(6):
            ws[j, W_FEXT + k] = 0.0
    for e in range(nf):
        typ = fmi[e, FMI_TYPE]
        if typ == FM_SPRING:
            ui = fmi[e, FMI_U]
            tau[ui] += -fmf[e, FM_K] * (q[fmi[e, FMI_Q]] - fmf[e, FM_QREF]) - fmf[e, FM_C] * u[ui]
            continue
        use = 1
        j = fmi[e, FMI_LINK]
        s = math.sin(fmf[e, FM_OMEGA] * t + fmf[e, FM_PHASE])
        if typ == FM_WRENCH:
            for k in range(6):
                ws[j, W_FEXT + k] += fmf[e, FM_W0 + k] + fmf[e, FM_W1 + k] * s
        else:
            _world_wrench_to_link(ws, j, fmf, e, s)
    return use
