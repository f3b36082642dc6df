"""Energies and the centre of mass. Free functions of a Multibody ``m``."""
import numpy as np

from .checks import check_vector, data_object, run_kernel, raise_status
from .entry import KERNELS


def kinetic_energy(m, q, u, data=None):
    """Kinetic energy [J] = 1/2 u^T M(q) u."""
    c = m.compiled
    dbuf = data_object(c, data).buf
    q, u = check_vector(q, c.nq, "q"), check_vector(u, c.nu, "u")
    out = np.empty(1)
    st = run_kernel(c, q, KERNELS.kinetic_energy, dbuf, q, u, out)
    if st:
        raise_status(c, st, ("q", "u"), (q, u))
    return float(out[0])


def mass_and_com(m, q, data=None):
    """[total mass, centre of mass (3)] (4,) at q."""
    c = m.compiled
    dbuf = data_object(c, data).buf
    q = check_vector(q, c.nq, "q")
    out = np.empty(4)
    st = run_kernel(c, q, KERNELS.mass_and_com, dbuf, q, out)
    if st:
        raise_status(c, st, ("q",), (q,))
    return out


def potential_energy(m, q, data=None):
    """Gravitational potential energy [J] = -m_total g . c (zero at the world origin)."""
    out = mass_and_com(m, q, data)
    return float(-out[0] * m.gravity @ out[1:])


def center_of_mass(m, q, data=None):
    """Centre of mass (3,) [m] of all bodies, in the world frame."""
    return mass_and_com(m, q, data)[1:].copy()
