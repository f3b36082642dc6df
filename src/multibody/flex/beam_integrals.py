"""The configuration-dependent modal integrals (``modal_integrals``) of a beam's finite-
element modes, by Gauss quadrature along the beam.

The distributed mass is replaced by mass points at the 4 Gauss points of every element
(weights ``rhoA w_g``), which integrates every term of the kinetic energy exactly: the
integrands are polynomials of degree <= 6 in an element. The sections' rotary inertia
``rhoI`` becomes rotary inertias at the same points, turning with the section rotation
``psi``. With ``stiffening`` each point also moves back along the beam by the
foreshortening ``-1/2 eta^T G(s) eta``, ``G(s) = int_0^s w'^T w' dx`` (the slopes ``w'`` of
the modes), computed exactly with a 3-point rule on each partial element.
"""
import numpy as np

from .modal_integrals import nodal_integrals

_GX4, _GW4 = np.polynomial.legendre.leggauss(4)
_GX3, _GW3 = np.polynomial.legendre.leggauss(3)


def _slope_products(element, phi_e, x0, x1):
    """int_x0^x1 w'(x)^T w'(x) dx (n, n) in one element (local x), exact for cubic w."""
    xs = x0 + (_GX3 + 1.0) * (x1 - x0) / 2.0
    _, dw, _, _ = element.shape(xs)
    slopes = dw @ phi_e  # (3, n)
    return np.einsum("g,gi,gj->ij", _GW3 * (x1 - x0) / 2.0, slopes, slopes)


def beam_mass_points(element, n_elements, phi, rhoA, rhoI, axis, bending, normal, stiffening):
    """The beam as mass points: ``nodal_integrals``' keyword arguments (positions, masses,
    translational and rotational shapes, rotary inertias, foreshortening ``shortening`` and
    ``axis`` with ``stiffening``) of a beam along ``axis`` bending along ``bending`` (section
    rotation about ``normal``) with global modal vectors ``phi`` (2 (n_elements + 1), n)."""
    h = element.h
    n = phi.shape[1]
    xg = (_GX4 + 1.0) * h / 2.0
    wg = _GW4 * h / 2.0
    w, _, psi, _ = element.shape(xg)
    pos, mass, trans, rot, short = [], [], [], [], []
    G_start = np.zeros((n, n))
    for e in range(n_elements):
        phi_e = phi[2 * e:2 * e + 4]
        for g in range(4):
            pos.append((e * h + xg[g]) * axis)
            mass.append(rhoA * wg[g])
            trans.append(np.outer(bending, w[g] @ phi_e))
            rot.append(np.outer(normal, psi[g] @ phi_e))
            if stiffening:
                short.append(G_start + _slope_products(element, phi_e, 0.0, xg[g]))
        if stiffening:
            G_start = G_start + _slope_products(element, phi_e, 0.0, h)
    J = np.array([rhoI * wq * np.outer(normal, normal) for _ in range(n_elements) for wq in wg])
    return dict(positions=np.array(pos), trans_shapes=np.array(trans), masses=np.array(mass),
                rotary_inertia=J if rhoI > 0.0 else None, rot_shapes=np.array(rot),
                shortening=np.array(short) if stiffening else None, axis=axis)


def beam_integrals(element, n_elements, phi, rhoA, rhoI, axis, bending, normal, stiffening):
    """(M0, M1, M2) of the beam's mass points (``beam_mass_points``, same arguments)."""
    return nodal_integrals(**beam_mass_points(element, n_elements, phi, rhoA, rhoI, axis, bending, normal,
                                              stiffening))
