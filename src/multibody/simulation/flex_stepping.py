"""Stepping models with modal (flexible) bodies: the stage rates of the compiled loop's
``flex`` variants (``simulation.kernels.entry_point(..., flex=True)``).

The loop itself is the rigid models' one (stage states, combination, error control,
charts, output, control pauses); only a stage's rates differ:

* generalized forces: ``tau0`` (or the control's) plus the joint force models (springs,
  limits, friction, actuators) and the wrenches and spring-dampers at frames
  (``flex_link_forces.flex_forces``);
* udot from the articulated-body recursion with (6 + n_modes) blocks
  (``kernels.flex_entry.flex_udot``: the flex tables in the model rows of the run's data
  buffer, the flex work in its flex region, so the loop hands it that one buffer), or, with
  enabled constraints (the loop's ``ta`` variants), the tree-augmented constrained dynamics
  (``flex_constrained_udot``, the run's constraint work array Wc and its Baumgarte gains);
* q_dot = N(q) u (``qdot_from_u`` copies eta' as eta's rate), or the Munthe-Kaas rates:
  ``dexp_inv`` of the hinges, and phi_dot = eta' for the modal coordinates (Euclidean).
"""
import numpy as np
from numba import njit

from ..kernels import flex_layout as FL
from ..kernels.coordinates import qdot_from_u
from ..kernels.flex_entry import flex_constrained_udot, flex_udot
from ..kernels.status import OK
from ..kernels.layout import BODY_NU, NU, UOFF
from .flex_link_forces import flex_forces
from .lie import dexp_inv

__all__ = ["flex_stage_rates", "error_scale"]


@njit(cache=True, inline="always")
def flex_stage_rates(mi, mf, ws, dbuf, lie, ta, Wc, fmi, fmf, t, qs, us, phi, tau0, tau, kq, ku):
    """Rates of one stage of a model with modal bodies: ku = udot (with ``ta``, a constant of
    the loop's variant: the constrained udot, Wc the run's constraint work), kq = q_dot
    (classic) or phi_dot (Munthe-Kaas). Force models: the joint-level ones and the frame
    entries (``flex_link_forces.flex_forces``). Returns False when an articulated inertia is
    singular."""
    flex_forces(mi, mf, ws, dbuf, fmi, fmf, qs, us, t, tau0, tau)
    if ta:
        ok = flex_constrained_udot(dbuf, qs, us, tau, Wc, ku) == OK
    else:
        ok = flex_udot(dbuf, qs, us, tau, ku)
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
