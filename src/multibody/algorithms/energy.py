"""Energies and the centre of mass. Free functions of a Multibody ``m``."""
import numpy as np

from ..kernels.status import MODAL, OVERFLOW
from . import flex
from .checks import check_vector, data_object, run_kernel, raise_status
from .entry import stacked


def kinetic_energy(m, q, u, data=None):
    """Kinetic energy [J] = 1/2 u^T M(q) u; stacked q (B, nq), u (B, nu) give (B,) (``batch``)."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.kinetic_energy(m, q, u, single=kinetic_energy)
    c = m.compiled
    dbuf = data_object(c, data).buf
    q, u = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c)
    out = np.empty(1)
    st = run_kernel(c, q, c.kernels.kinetic_energy, dbuf, q, u, out)
    if st:  # (a model with modal bodies: its c.kernels are the flex ones)
        raise_status(c, st, ("q", "u"), (q, u))
    return float(out[0])


def mass_and_com(m, q, data=None):
    """[total mass, centre of mass (3)] (4,) at q."""
    c = m.compiled
    dbuf = data_object(c, data).buf
    q = check_vector(q, c.nq, "q", c)
    out = np.empty(4)
    st = run_kernel(c, q, c.kernels.mass_and_com, dbuf, q, out)
    if st:
        raise_status(c, st, ("q",), (q,))
    return out


def potential_energy(m, q, data=None):
    """Gravitational potential energy [J] = -m_total g . c (zero at the world origin);
    stacked q (B, nq) gives (B,). With modal (flexible) bodies: the deformed centres of mass,
    plus the strain energy 1/2 eta^T K eta, so that kinetic + potential is the energy a run
    without damping conserves."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        V = flex.gravity_potential(batch.mass_and_com(m, q, single=mass_and_com), m.gravity)
        return V if m.compiled.flex is None else V + np.array([flex.strain_energy(m, x) for x in q])
    V = float(flex.gravity_potential(mass_and_com(m, q, data)[None], m.gravity)[0])
    return V + flex.strain_energy(m, q) if m.compiled.flex is not None else V


def center_of_mass(m, q, data=None):
    """Centre of mass (3,) [m] of all bodies, in the world frame; stacked q (B, nq) gives (B, 3)."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.mass_and_com(m, q, single=mass_and_com)[:, 1:].copy()
    return mass_and_com(m, q, data)[1:].copy()


def trajectory_energies(m, Q, U, data=None):
    """(kinetic, potential) energies (N,), (N,) [J] at the samples Q (N, nq), U (N, nu) of a
    trajectory, in one kernel call (one velocity pass per sample; with modal bodies one
    ``kinetic_energy`` and ``potential_energy`` call per sample, strain energy included)."""
    c = m.compiled
    d = data_object(c, data)
    if np.ndim(Q) != 2 or np.ndim(U) != 2 or np.shape(Q)[0] != np.shape(U)[0]:
        raise ValueError(f"Q (N, nq) and U (N, nu) must hold the same number of samples, "
                         f"got {np.shape(Q)} and {np.shape(U)}")
    Q, U = stacked(Q, (len(Q), c.nq), "Q"), stacked(U, (len(U), c.nu), "U")  # (read-only ones copied)
    out = np.empty((Q.shape[0], 5))
    st, k = c.kernels.trajectory_energies(d.buf, Q, U, out)
    if st:  # the first bad sample raises its own error (or, for modal bodies, takes their path)
        if st == OVERFLOW:
            try:
                raise_status(c, st, ("q", "u"), (Q[k], U[k]))
            except ValueError as e:
                raise ValueError(f"sample {k}: {e}") from None
        if st != MODAL:
            kinetic_energy(m, Q[k], U[k], data)
        ke = np.array([kinetic_energy(m, q, u, data) for q, u in zip(Q, U)])
        return ke, np.array([potential_energy(m, q, data) for q in Q])
    return out[:, 0].copy(), flex.gravity_potential(out[:, 1:], m.gravity)
