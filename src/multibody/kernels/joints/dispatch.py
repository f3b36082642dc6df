"""The per-link dispatchers: one function per joint operation, each switching on link j's
kind (``mi[j, KIND]``, a code of ``kinds``) to that kind's module. Adding a kind adds
one branch to each operation it does not leave to the default (see docs/architecture.md,
"Adding a joint kind").

Every dispatcher is inlined into the one loop that calls it (``inline="always"``); the kinds'
functions it calls are compiled once each without reference counting (``_nrt=False``: a
call with array arguments then costs no atomic counts, and LLVM may still inline it), since
every function inlined at Numba's level is compiled again at each call site (0.2-0.3 s
each: see docs/architecture.md, "Joint kinds"). The kind codes are module-level constants,
folded by Numba.

* ``joint_rotation_translation``: (R_J, p_J), the link frame in its joint o-frame at q;
* ``joint_qdot``, ``joint_integrate``: q_dot = N(q) u and q (+) u dt;
* ``joint_dexp_inv``: the Munthe-Kaas rate of the stepping loop's local coordinates;
* ``joint_recentre_chart``, ``joint_to_start_chart``: the rotation-vector charts;
* ``joint_unit_quaternion``, ``joint_normalize``: the quaternion coordinates.

``KIND_MODULES`` (by code) serves Python's calls of a kind's NumPy functions.

The kinds whose coordinates are a vector space take the default branch (``euclidean``),
with a modal body's eta handled by the loops that call these (after the hinge's own).
"""
from numba import njit

from ..kinds import FREE, FREE_QUAT, KINDS, LOCKED, PIN, SCREW, SLIDER, SPHERICAL, SPHERICAL_QUAT
from ..layout import KIND, NQ, NU, QOFF, UOFF
from . import euclidean, free, free_quat, locked, pin, screw, slider, spherical, spherical_quat, translational

_INL = dict(cache=True, inline="always")

#: the kinds' modules by code, for the Python side (``motion_subspace``, ``u_from_qdot``)
KIND_MODULES = (pin, slider, screw, spherical, spherical_quat, free, free_quat, translational, locked)
assert [m.__name__.rpartition(".")[2] for m in KIND_MODULES] == [k.name for k in KINDS]


@njit(**_INL)
def joint_rotation_translation(mi, mf, ws, q, j):
    """(R_J, p_J) of link j's subhinge at q: the link frame in the joint o-frame."""
    kind = mi[j, KIND]
    i = mi[j, QOFF]
    if kind == PIN:
        return pin.placement(mf, ws, q, i, j)
    if kind == SLIDER:
        return slider.placement(mf, ws, q, i, j)
    if kind == SCREW:
        return screw.placement(mf, ws, q, i, j)
    if kind == SPHERICAL:
        return spherical.placement(mf, ws, q, i, j)
    if kind == FREE:
        return free.placement(mf, ws, q, i, j)
    if kind == SPHERICAL_QUAT:
        return spherical_quat.placement(mf, ws, q, i, j)
    if kind == FREE_QUAT:
        return free_quat.placement(mf, ws, q, i, j)
    if kind == LOCKED:
        return locked.placement(mf, ws, q, i, j)
    return translational.placement(mf, ws, q, i, j)  # TRANSLATIONAL (the only kind left)


@njit(**_INL)
def joint_qdot(mi, ws, q, u, out, j):
    """out[q slice of j's subhinge] = N(q) u."""
    kind = mi[j, KIND]
    i = mi[j, QOFF]
    k = mi[j, UOFF]
    if kind == SPHERICAL:
        spherical.qdot(ws, q, u, out, i, k, j)
    elif kind == FREE:
        free.qdot(ws, q, u, out, i, k, j)
    elif kind == SPHERICAL_QUAT:
        spherical_quat.qdot(ws, q, u, out, i, k, j)
    elif kind == FREE_QUAT:
        free_quat.qdot(ws, q, u, out, i, k, j)
    else:
        euclidean.qdot(u, out, i, k, mi[j, NQ])


@njit(**_INL)
def joint_integrate(mi, ws, q, u, dt, out, j):
    """out[q slice of j's subhinge] = q (+) u dt on its manifold (out may alias q)."""
    kind = mi[j, KIND]
    i = mi[j, QOFF]
    k = mi[j, UOFF]
    if kind == SPHERICAL:
        spherical.integrate(ws, q, u, dt, out, i, k, j)
    elif kind == FREE:
        free.integrate(ws, q, u, dt, out, i, k, j)
    elif kind == SPHERICAL_QUAT:
        spherical_quat.integrate(ws, q, u, dt, out, i, k, j)
    elif kind == FREE_QUAT:
        free_quat.integrate(ws, q, u, dt, out, i, k, j)
    else:
        euclidean.integrate(q, u, dt, out, i, k, mi[j, NQ])


@njit(**_INL)
def joint_dexp_inv(mi, phi, u, out, j):
    """out[u slice of j's subhinge] = dexp^-1_{-phi}(u): the rate of the local exponential
    coordinates phi (u-sized) whose body velocity is u."""
    kind = mi[j, KIND]
    k = mi[j, UOFF]
    if kind == SPHERICAL:
        spherical.dexp_inv(phi, u, out, k)
    elif kind == FREE:
        free.dexp_inv(phi, u, out, k)
    elif kind == SPHERICAL_QUAT:
        spherical_quat.dexp_inv(phi, u, out, k)
    elif kind == FREE_QUAT:
        free_quat.dexp_inv(phi, u, out, k)
    else:
        euclidean.dexp_inv(u, out, k, mi[j, NU])


@njit(**_INL)
def joint_recentre_chart(mi, ws, q, max_angle, j):
    """Re-centre link j's rotation-vector chart unless its angle is within max_angle (kinds
    with a chart only); True when it moved. (One return: see "Performance rules", 3.)"""
    kind = mi[j, KIND]
    i = mi[j, QOFF]
    moved = False
    if kind == SPHERICAL:
        if not spherical.chart_angle(q, i) <= max_angle:
            spherical.recentre_chart(ws, q, i, j)
            moved = True
    elif kind == FREE:
        if not free.chart_angle(q, i) <= max_angle:
            free.recentre_chart(ws, q, i, j)
            moved = True
    return moved


@njit(**_INL)
def joint_to_start_chart(mi, ws, chart0, q, out, j):
    """out[q slice of j] (a copy of q's) re-expressed in the start-of-run chart chart0[j]
    (kinds with a chart only)."""
    kind = mi[j, KIND]
    if kind == SPHERICAL:
        spherical.to_start_chart(ws, chart0, q, out, mi[j, QOFF], j)
    elif kind == FREE:
        free.to_start_chart(ws, chart0, q, out, mi[j, QOFF], j)


@njit(**_INL)
def joint_unit_quaternion(mi, q, j):
    """False when link j's kind has a quaternion in q that is not unit (to 1e-6)."""
    kind = mi[j, KIND]
    unit = True
    if kind == SPHERICAL_QUAT:
        unit = spherical_quat.unit_quaternion(q, mi[j, QOFF])
    elif kind == FREE_QUAT:
        unit = free_quat.unit_quaternion(q, mi[j, QOFF])
    return unit


@njit(**_INL)
def joint_normalize(mi, q, j):
    """Scale link j's quaternion in q to unit length (kinds with a quaternion only)."""
    kind = mi[j, KIND]
    if kind == SPHERICAL_QUAT:
        spherical_quat.normalize(q, mi[j, QOFF])
    elif kind == FREE_QUAT:
        free_quat.normalize(q, mi[j, QOFF])
