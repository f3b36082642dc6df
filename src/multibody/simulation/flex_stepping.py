"""Stepping models with modal (flexible) bodies: the stage rates of the compiled loop's
``flex`` variants (``simulation.kernels.entry_point(..., flex=True)``).

The loop itself is the rigid models' one (stage states, combination, error control,
charts, output, control pauses); only a stage's rates differ:

* generalized forces: ``tau0`` (or the control's) plus the joint force models (springs,
  limits; ``force_kernels.apply_forces`` without link-level entries);
* udot from the articulated-body recursion with (6 + n_modes) blocks
  (``kernels.flex_articulated.flex_forward_dynamics``, called only through ``flex_udot``:
  the one place that knows its argument list);
* q_dot = N(q) u (``qdot_from_u`` copies eta' as eta's rate), or the Munthe-Kaas rates:
  ``dexp_inv`` of the hinges, and phi_dot = eta' for the modal coordinates (Euclidean).

The flex tables and work arrays travel as one tuple ``fx = (fi, ff, fw, fo)`` (``pack``):
the link table ``fi``, one float array ``ff`` of the constants (mass blocks, node
records, stiffness, damping), one float array ``fw`` of the work arrays, and ``fo`` the
offsets of the pieces of both. Four arrays whatever the kernels take: a call of the
loop pays Numba's dispatch per array, and a rollout gives each worker its own ``fw``.
"""
import numpy as np
from numba import njit

from ..kernels import flex_layout as FL
from ..kernels.coordinates import qdot_from_u
from ..kernels.flex_articulated import flex_forward_dynamics
from ..kernels.layout import BODY_NU, NU, UOFF
from .force_kernels import apply_forces
from .lie import dexp_inv

__all__ = ["pack", "flex_udot", "flex_stage_rates", "error_scale"]

#: the constants in ``ff`` and the work arrays in ``fw``, in order (names of ``FlexModel``
#: attributes and of ``FlexModel.work()`` keys); ``fo`` holds their start offsets, each
#: group followed by its end.
CONSTANTS = ("fmass", "fm1", "fm2", "fnode", "stiffness", "damping")
WORK = ("M", "phi", "V", "A", "F", "abias", "P", "G", "Dinv", "eps", "scratch", "pose", "VN")
# fo entries (module constants: Numba folds them)
_MASS, _M1, _M2, _NODE, _K, _C, _CEND = range(7)
_MQ, _PHI, _V, _A, _F, _AB, _P, _G, _DINV, _EPS, _SCR, _POSE, _VN, _WEND = range(7, 21)
#: columns of the 2-D work arrays (reshaped from their flat pieces)
_WIDTH = {"pose": FL.POSE_COLS, "VN": 6}


def pack(c):
    """``fx = (fi, ff, fw, fo)`` of compiled model ``c`` (c.flex not None): fresh work."""
    f = c.flex
    work = f.work()
    for name, width in _WIDTH.items():  # the kernels' 2-D work arrays, as the reshape reads them
        if work[name].shape[1:] != (width,):
            raise AssertionError(f"flex work array {name!r} has shape {work[name].shape}, expected (n, {width})")
    consts = [np.ascontiguousarray(getattr(f, name), dtype=np.float64).ravel() for name in CONSTANTS]
    works = [np.ascontiguousarray(work[name], dtype=np.float64).ravel() for name in WORK]
    sizes = [a.size for a in consts] + [a.size for a in works]
    starts_c = np.concatenate([[0], np.cumsum(sizes[:len(consts)])])
    starts_w = np.concatenate([[0], np.cumsum(sizes[len(consts):])])
    fo = np.concatenate([starts_c, starts_w]).astype(np.int64)
    ff = np.concatenate(consts) if consts else np.zeros(0)
    fw = np.concatenate(works)
    return (np.ascontiguousarray(f.fi, dtype=np.int64), ff, fw, fo)


@njit(cache=True, _nrt=False)
def flex_udot(mi, mf, ws, fx, q, u, tau, udot):
    """udot of a model with modal bodies at (q, u, tau) (its own link rows ws: placements
    and charts); False if some articulated inertia is singular. The one caller of the flex
    forward dynamics in the simulation (``fx`` as ``pack`` makes it). Compiled without
    Numba's reference counting: it only makes views, and with counting its 20 views cost
    1.2 us per call (a pendulum's flex ABA is ~4 us); without, 0.1-0.3 us."""
    fi, ff, fw, fo = fx
    n = mi.shape[0]
    return flex_forward_dynamics(
        mi, mf, ws, fi, ff[fo[_MASS]:fo[_M1]], ff[fo[_M1]:fo[_M2]], ff[fo[_M2]:fo[_NODE]], fw[fo[_MQ]:fo[_PHI]],
        ff[fo[_NODE]:fo[_K]], ff[fo[_K]:fo[_C]], ff[fo[_C]:fo[_CEND]], q, u, tau,
        fw[fo[_PHI]:fo[_V]], fw[fo[_V]:fo[_A]], fw[fo[_A]:fo[_F]], fw[fo[_F]:fo[_AB]], fw[fo[_AB]:fo[_P]],
        fw[fo[_POSE]:fo[_VN]].reshape((n, FL.POSE_COLS)), fw[fo[_VN]:fo[_WEND]].reshape((n, 6)),
        fw[fo[_P]:fo[_G]], fw[fo[_G]:fo[_DINV]], fw[fo[_DINV]:fo[_EPS]], fw[fo[_EPS]:fo[_SCR]],
        fw[fo[_SCR]:fo[_POSE]], udot)


@njit(cache=True, inline="always")
def flex_stage_rates(mi, mf, ws, lie, fmi, fmf, t, qs, us, phi, tau0, tau, kq, ku, fx):
    """Rates of one stage of a model with modal bodies: ku = udot, kq = q_dot (classic) or
    phi_dot (Munthe-Kaas). Force models: joint springs and limits only (link-level ones and
    constraints arrive in tau0 from ``flex_stage_forces`` through the control hand-over).
    Returns False when an articulated inertia is singular."""
    apply_forces(mi, mf, ws, fmi, fmf, qs, us, t, tau0, tau, False)
    ok = flex_udot(mi, mf, ws, fx, qs, us, tau, ku)
    if lie:
        dexp_inv(mi, phi, us, kq)  # the hinges' rates
        for j in range(mi.shape[0]):  # eta is Euclidean: phi_dot = eta'
            k = mi[j, UOFF] + mi[j, NU]
            for r in range(mi[j, BODY_NU]):
                kq[k + r] = us[k + r]
    else:
        qdot_from_u(mi, ws, qs, us, kq)
    return ok


def error_scale(c, smap):
    """Set the Munthe-Kaas error scale of the modal coordinates (``integrators.
    _error_scale_map`` leaves them -1, a rotation's scale 1): each is scaled by its own
    eta, as classic stepping does."""
    fi = c.flex.fi
    for j in range(c.n_links):
        nm = int(fi[j, FL.NM])
        smap[fi[j, FL.UM]:fi[j, FL.UM] + nm] = np.arange(fi[j, FL.QM], fi[j, FL.QM] + nm)
    return smap
