"""Energies and the centre of mass. Free functions of a Multibody ``m``."""
import numpy as np

from ..kernels.status import OVERFLOW
from .checks import check_vector, data_object, run_kernel, raise_status
from .entry import stacked


def kinetic_energy(m, q, u, data=None):
    """Kinetic energy [J] = 1/2 u^T M(q) u; stacked q (B, nq), u (B, nu) give (B,) (``batch``)."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.kinetic_energy(m, q, u)
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
        V = gravity_potential(batch.mass_and_com(m, q), m.gravity)
        return V if m.compiled.flex is None else V + batch.strain_energy(m, q)
    V = float(gravity_potential(mass_and_com(m, q, data)[None], m.gravity)[0])
    return V + strain_energy(m, q, data) if m.compiled.flex is not None else V


def gravity_potential(mc, g):
    """-m g . c [J] for the rows [m, c (3)] of mc (B, 4) and gravity g (3,): the one formula
    of the gravitational potential energy, for single and stacked, rigid and flexible states."""
    return -mc[:, 0] * (mc[:, 1] * g[0] + mc[:, 2] * g[1] + mc[:, 3] * g[2])


def strain_energy(m, q, data=None):
    """The modal bodies' strain energy 1/2 sum eta^T K eta [J] (K: each body's modal
    stiffness; 0 for a model without modal bodies); stacked q (B, nq) gives (B,) (``batch``)."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.strain_energy(m, q)
    c = m.compiled
    q = check_vector(q, c.nq, "q", c)
    if c.flex is None:  # (only modal bodies store elastic energy: no kernel for the others)
        return 0.0
    out = np.empty(1)
    st = run_kernel(c, q, c.kernels.strain_energy, data_object(c, data).buf, q, out)
    if st:
        raise_status(c, st, ("q",), (q,))
    return float(out[0])


def center_of_mass(m, q, data=None):
    """Centre of mass (3,) [m] of all bodies, in the world frame; stacked q (B, nq) gives (B, 3)."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.mass_and_com(m, q)[:, 1:].copy()
    return mass_and_com(m, q, data)[1:].copy()


def trajectory_energies(m, Q, U, data=None):
    """(kinetic, potential) energies (N,), (N,) [J] at the samples Q (N, nq), U (N, nu) of a
    trajectory, in one kernel call (one velocity pass per sample; with modal bodies the
    potential includes the strain energy, the kernel's last column)."""
    c = m.compiled
    d = data_object(c, data)
    if np.ndim(Q) != 2 or np.ndim(U) != 2 or np.shape(Q)[0] != np.shape(U)[0]:
        raise ValueError(f"Q (N, nq) and U (N, nu) must hold the same number of samples, "
                         f"got {np.shape(Q)} and {np.shape(U)}")
    Q, U = stacked(Q, (len(Q), c.nq), "Q"), stacked(U, (len(U), c.nu), "U")  # (read-only ones copied)
    out = np.zeros((Q.shape[0], 6))  # (kinetic, mass, centre of mass, strain: zero without modal bodies)
    st, k = c.kernels.trajectory_energies(d.buf, Q, U, out)
    if st:  # the first bad sample raises its own error
        if st != OVERFLOW:
            kinetic_energy(m, Q[k], U[k], data)
        try:
            raise_status(c, st, ("q", "u"), (Q[k], U[k]))
        except ValueError as e:
            raise ValueError(f"sample {k}: {e}") from None
    return out[:, 0].copy(), gravity_potential(out[:, 1:5], m.gravity) + out[:, 5]
