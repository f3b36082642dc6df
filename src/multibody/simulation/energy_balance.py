"""Where a run's energy went: the work of its joint force models (damping, friction,
limits), from the stored samples, beside the drift of the mechanical energy.

E(t) - E(0) = W(t) + (integration error), W the work of the non-conservative and
non-potential forces: ``force_work`` integrates their power tau . u over the samples (the
trapezoidal rule: exact to O(h^2) in the output interval h, so keep every step for the
balance to show the integration error)."""
import numpy as np

from .force_kernels import joint_force_samples
from .forces import pack_force_models

__all__ = ["force_work"]


def force_work(m, res, forces):
    """(N,) the cumulative work [J] of the joint-level force models ``forces`` (JointLimits,
    JointDynamics, JointSpringDamper, ...) along the samples of ``res`` (a SimulationResult
    of ``m``): 0 at the first sample. Link-level force models are not counted."""
    c = m.compiled
    fmi, fmf, _ = pack_force_models(m, [f for f in forces if f is not None])
    n = len(res.t)
    if n == 0 or fmi.shape[0] == 0:
        return np.zeros(n)
    tau = np.zeros((n, c.nu))
    data = c.create_data()
    joint_force_samples(c.mi, c.mf, data.ws, fmi, fmf, np.ascontiguousarray(res.t), np.ascontiguousarray(res.q),
                        np.ascontiguousarray(res.u), tau)
    power = np.einsum("ki,ki->k", tau, res.u)
    return np.concatenate(([0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(res.t))))
