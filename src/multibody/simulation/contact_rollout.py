"""``rollout`` of a model with contact (issue 21), or under "generalized_alpha" (issue 23):
each sample through its own run of that integrator.

The samples run one after the other, each with its own ``MoreauIntegrator`` or
``GeneralizedAlphaIntegrator`` (a compiled loop, no Python per step), so a sample's
trajectory equals its own ``simulate`` run. Not yet parallel across cores, and without a
control callback or per-row forces.
"""
import numpy as np

from ..kernels.status import FINISHED, Status
from . import kernels as K
from .failures import SimulationError
from .moreau import MoreauIntegrator

__all__ = ["contact_rollout"]


def contact_rollout(m, Q0, U0, t_final, dt, tau, save_every, inputs, cls=MoreauIntegrator, options=None):
    """(t, Q, U, status, t_failure) of B samples from Q0 (B, nq), U0 (B, nu) with constant
    joint forces tau (B, nu), the force models and inputs of ``inputs`` (``RunInputs``),
    each a run of the integrator class ``cls`` (its keyword ``options``); rows after a
    sample's failure are NaN (``RolloutResult``'s layout)."""
    c = m.compiled
    B = Q0.shape[0]
    n_steps = int(np.ceil(t_final / dt - 1e-9))
    n_rows = n_steps // save_every + (1 if n_steps % save_every else 0)
    T = np.minimum(np.arange(n_rows + 1) * dt * save_every, t_final)
    T[-1] = t_final
    QO = np.full((B, n_rows + 1, c.nq), np.nan)
    UO = np.full((B, n_rows + 1, c.nu), np.nan)
    status = np.full(B, FINISHED, dtype=np.int64)
    t_failure = np.full(B, np.nan)
    for b in range(B):
        integ = cls(m, Q0[b], U0[b], tau=tau[b], forces=inputs.forces, **(options or {}))
        inputs.attach(integ)
        try:
            integ.integrate(t_final, dt, save_every=save_every)
        except SimulationError:
            status[b] = Status(int(integ.ctr[K.C_STATUS]))
            t_failure[b] = float(integ.clk[K.K_TBAD])
        k = len(integ.sink.t)
        QO[b, :k], UO[b, :k] = integ.sink.q, integ.sink.u
        if status[b] == FINISHED and k == n_rows + 1:
            T = integ.sink.t.copy()  # the output times as the loop wrote them
    return T, QO, UO, status, t_failure


def refuse_contact_options(control, segmented, lie_group, what="with contact"):
    """NotImplementedError for the rollout options a contact (or generalized_alpha, ``what``)
    rollout does not take yet."""
    for given, given_what in ((control is not None, "a control callback"), (segmented, "tau of shape (B, N, nu)"),
                        (lie_group, "lie_group / munthe_kaas")):
        if given:
            raise NotImplementedError(f"rollout {what} does not take {given_what} yet: use simulate per sample"
                                      + (", or contact=False to ignore the contacts" if what == "with contact" else ""))
