"""Runge-Kutta stage arithmetic of the compiled stepping loop (``simulation.kernels.run``).

The state is (q, u); ``tab`` is a packed ``ButcherTableau`` (rows 0..S-1: A, row S: b,
row S+1: b - b_hat, row S+2: c). Two ways of forming the stage configurations (``lie``):

* classic (0): Runge-Kutta on the coordinates, q_dot = N(q) u; quaternion blocks are
  re-normalised after each accepted step.
* Munthe-Kaas (1): the stage rates of q are those of local exponential coordinates
  phi around the configuration q0 at the start of the step (``lie.dexp_inv``), and
  q(phi) = q0 (+) phi (``integrate_q``). Quaternions stay unit by construction.

All helpers write into arrays the loop owns (no allocation) and are inlined into it.
``pins`` (a constant of the loop's variant: every link a PIN, ``joint_transform.pin_variant``)
takes the PIN-only ABA and drops the coordinate maps of the other kinds (q_dot = u, no
quaternion, no chart): the same numbers without compiling that code.
"""
import math

from numba import njit

from ..kernels.common import first_nonfinite
from ..kernels.coordinates import integrate_q, qdot_from_u, sanitize_charts
from ..kernels.constrained_dynamics import ta_core
from ..kernels.forward_dynamics import aba_core, aba_pin_core
from ..kernels.joint_transform import forward_kinematics_pass, forward_kinematics_pin_pass
from ..kernels.joints.dispatch import joint_normalize
from .force_kernels import apply_forces
from .lie import dexp_inv, to_start_charts

__all__ = ["stage_state", "stage_rates", "control_inputs", "combine", "error_norm", "after_step",
           "normalize_quaternions", "first_bad"]


@njit(cache=True)
def normalize_quaternions(mi, q):
    """Scale every quaternion block of q to unit length."""
    for j in range(mi.shape[0]):
        joint_normalize(mi, q, j)


@njit(cache=True)
def first_bad(q, u):
    """Index of the first non-finite entry of [q; u], or -1."""
    i = first_nonfinite(q)
    if i >= 0:
        return i
    i = first_nonfinite(u)
    if i >= 0:
        return q.shape[0] + i
    return -1


@njit(cache=True, inline="always")
def _tab_sum(tab, row, n, K, i):
    """sum_{r < n} tab[row, r] K[r, i]: a tableau row applied to column i of the rates K."""
    a = 0.0
    for r in range(n):
        a += tab[row, r] * K[r, i]
    return a


@njit(cache=True, inline="always")
def stage_state(mi, ws, tab, s, h, lie, q, u, Kq, Ku, phi, qs, us):
    """Configuration and speeds of stage s (rows 0..s-1 of Kq, Ku are known)."""
    if lie:
        for i in range(u.shape[0]):
            phi[i] = h * _tab_sum(tab, s, s, Kq, i)
        integrate_q(mi, ws, q, phi, 1.0, qs)
    else:
        for i in range(q.shape[0]):
            qs[i] = q[i] + h * _tab_sum(tab, s, s, Kq, i)
    for i in range(u.shape[0]):
        us[i] = u[i] + h * _tab_sum(tab, s, s, Ku, i)


@njit(cache=True, inline="always")
def control_inputs(mi, ws, pins, chart0, qs, us, tau0, qview, uview, tauc):
    """What a Python control sees at a stage: qview = qs in the start charts, uview = us
    (copies it may overwrite), and tauc = tau0 for it to add to."""
    if pins:  # no charts
        for i in range(qs.shape[0]):
            qview[i] = qs[i]
    else:
        to_start_charts(mi, ws, chart0, qs, qview)
    for i in range(us.shape[0]):
        uview[i] = us[i]
        tauc[i] = tau0[i]


@njit(cache=True, inline="always")
def stage_rates(mi, mf, ws, z, lie, ta, links, pins, fr, cr, Wc, worldf, fmi, fmf, t, qs, us, phi, tau0, tau, kq, ku):
    """Rates of one stage: ku = udot (tree ABA, or with ``ta`` the tree-augmented dynamics of
    the constraint rows cr, Baumgarte gains and work in Wc), kq = q_dot (classic) or
    phi_dot (Munthe-Kaas); force models with link-level ones only if ``links`` (a constant
    of the loop's variant); ``pins``: the PIN-only ABA and q_dot = u (a constant too).
    Returns False when the joint-space inertia is singular."""
    if links and worldf:
        if pins:
            forward_kinematics_pin_pass(mi, mf, ws, qs)
        else:
            forward_kinematics_pass(mi, mf, ws, qs)
    use = apply_forces(mi, mf, ws, fmi, fmf, qs, us, t, tau0, tau, links)
    if ta:
        if not ta_core(mi, mf, fr, cr, ws, z, qs, us, tau, use, Wc, ku):
            return False
    elif pins:
        if not aba_pin_core(mi, mf, ws, z, qs, us, tau, use, ku):
            return False
    elif not aba_core(mi, mf, ws, z, qs, us, tau, use, ku):
        return False
    if lie:
        dexp_inv(mi, phi, us, kq)
    elif pins:
        for i in range(us.shape[0]):
            kq[i] = us[i]
    else:
        qdot_from_u(mi, ws, qs, us, kq)
    return True


@njit(cache=True, inline="always")
def combine(mi, ws, tab, h, lie, adapt, q, u, Kq, Ku, phi, q1, u1, eq, eu):
    """q1, u1 = the propagated solution; eq, eu = the embedded error estimate (if adapt)."""
    S = tab.shape[1]
    for i in range(u.shape[0] if lie else q.shape[0]):
        a = h * _tab_sum(tab, S, S, Kq, i)
        if lie:
            phi[i] = a
        else:
            q1[i] = q[i] + a
        if adapt:
            eq[i] = h * _tab_sum(tab, S + 1, S, Kq, i)
    if lie:
        integrate_q(mi, ws, q, phi, 1.0, q1)
    for i in range(u.shape[0]):
        u1[i] = u[i] + h * _tab_sum(tab, S, S, Ku, i)
        if adapt:
            eu[i] = h * _tab_sum(tab, S + 1, S, Ku, i)


@njit(cache=True, inline="always")
def error_norm(lie, smap, q, q1, eq, u, u1, eu, rtol, atol):
    """RMS of the error estimate scaled by atol + rtol |y| (rotation coordinates: |y| = 1)."""
    acc = 0.0
    n = 0
    if lie:
        for i in range(smap.shape[0]):
            k = smap[i]
            y = 1.0 if k < 0 else max(abs(q[k]), abs(q1[k]))
            acc += (eq[i] / (atol + rtol * y)) ** 2
            n += 1
    else:
        for i in range(q.shape[0]):
            acc += (eq[i] / (atol + rtol * max(abs(q[i]), abs(q1[i])))) ** 2
            n += 1
    for i in range(u.shape[0]):
        acc += (eu[i] / (atol + rtol * max(abs(u[i]), abs(u1[i])))) ** 2
        n += 1
    return math.sqrt(acc / max(n, 1))


@njit(cache=True, inline="always")
def after_step(mi, ws, lie, pins, max_angles, q1):
    """Keep quaternions unit (classic mode) and re-centre charts; returns the number of
    charts re-centred (``pins``: none to keep)."""
    if pins:
        return 0
    if not lie:
        normalize_quaternions(mi, q1)
    return sanitize_charts(mi, ws, q1, max_angles)
