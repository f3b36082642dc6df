"""Kinetic energy and centre of mass of trees with modal (flexible) bodies, from their
(6 + n_modes) mass blocks M_k(eta) (kernels/flex_body_inertia.py) and the flex kinematics:

* T = 1/2 sum_k [V_k; eta_k']^T M_k(eta) [V_k; eta_k'] (link frames);
* [m, c] with m = sum_k m_k and m c = sum_k m_k p_k + R_k (m c)_k(eta), the first moments
  (m c)_k read off each body's M_k(eta) (M[:3, 3:6] = [m c]x) and placed by the deformed
  link poses;
* the strain energy 1/2 sum_k eta_k^T K_k eta_k (K_k: the body's modal stiffness).
"""
from numba import njit

from . import flex_layout as FL
from .flex_body_inertia import body_masses
from .flex_kinematics import flex_kinematics


@njit(cache=True, inline="always")
def quadratic_form(A, a, x, o, n):
    """x^T A x of the n x n block of A at a (row-major) and x[o:o + n], row by row."""
    s = 0.0
    for r in range(n):
        ax = 0.0
        for c in range(n):
            ax += A[a + r * n + c] * x[o + c]
        s += x[o + r] * ax
    return s


@njit(cache=True)
def flex_kinetic_energy(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, q, u, phi, V, abias, pose, VN):
    """T [J] at (q, u)."""
    flex_kinematics(mi, mf, ws, fi, fnode, q, u, phi, V, abias, pose, VN)
    body_masses(fi, fmass, fm1, fm2, q, Mq)
    T = 0.0
    for k in range(mi.shape[0]):
        T += 0.5 * quadratic_form(Mq, fi[k, FL.MADR], V, fi[k, FL.VOFF], fi[k, FL.NB])
    return T


@njit(cache=True)
def flex_mass_and_com(mi, mf, ws, fi, fmass, fm1, fm2, Mq, fnode, q, u0, phi, V, abias, pose, VN, out):
    """out = [total mass, centre of mass in the world (3)] at q (u0: nu zeros)."""
    flex_kinematics(mi, mf, ws, fi, fnode, q, u0, phi, V, abias, pose, VN)
    body_masses(fi, fmass, fm1, fm2, q, Mq)
    for i in range(4):
        out[i] = 0.0
    for k in range(mi.shape[0]):
        nb, ma = fi[k, FL.NB], fi[k, FL.MADR]
        m = Mq[ma + 3 * nb + 3]
        mc = (Mq[ma + 2 * nb + 4], Mq[ma + 5], Mq[ma + nb + 3])  # M[:3, 3:6] = [m c]x
        out[0] += m
        for i in range(3):
            Rmc = 0.0
            for j in range(3):
                Rmc += pose[k, FL.POSE_R + 3 * i + j] * mc[j]
            out[1 + i] += m * pose[k, FL.POSE_P + i] + Rmc
    if out[0] > 0.0:
        for i in range(1, 4):
            out[i] /= out[0]


@njit(cache=True)
def flex_strain_energy(fi, stiffness, q):
    """1/2 sum over the modal bodies of eta^T K eta [J] (K at fi[k, STIFF], NM x NM row-major)."""
    V = 0.0
    for k in range(fi.shape[0]):
        V += 0.5 * quadratic_form(stiffness, fi[k, FL.STIFF], q, fi[k, FL.QM], fi[k, FL.NM])
    return V
