"""Coordinate maps of the subhinges over a model: q_dot = N(q) u, q (+) u dt, and the
re-centring of rotation-vector charts. Each kind's maps are in its module of ``joints/``
(``joints.dispatch`` switches on the kind); these loops add a modal body's eta (Euclidean,
after its link's hinge coordinates).

``qdot`` and ``integrate`` are the facade's checked entry points (the simulation calls the
maps themselves on states it keeps valid): q's quaternions must be unit, as for the
dynamics (``check_state``), and a non-finite result is OVERFLOW.
"""
from numba import njit

from .common import check_state_modal_ok, result_status
from .joints.dispatch import joint_integrate, joint_qdot, joint_recentre_chart
from .layout import BODY_NU, NQ, NU, QOFF, UOFF


@njit(cache=True)
def qdot_from_u(mi, ws, q, u, qdot):
    """qdot = N(q) u for every link."""
    for j in range(mi.shape[0]):
        joint_qdot(mi, ws, q, u, qdot, j)
        i = mi[j, QOFF]
        k = mi[j, UOFF]
        for r in range(mi[j, BODY_NU]):  # a modal body's eta: Euclidean, after the hinge's
            qdot[i + mi[j, NQ] + r] = u[k + mi[j, NU] + r]


@njit(cache=True)
def qdot(mi, ws, q, u, out):
    """Checked entry point of ``qdot_from_u``: a status for (q, u), or OVERFLOW."""
    st = check_state_modal_ok(mi, q, u, u, 1, -1)  # (a modal body's eta: Euclidean, qdot_from_u knows it)
    if st == 0:
        qdot_from_u(mi, ws, q, u, out)
    return result_status(st, out)


@njit(cache=True)
def integrate_q(mi, ws, q, u, dt, qout):
    """qout = q (+) u dt on each subhinge's manifold (its kind's ``integrate``). qout may alias q."""
    for j in range(mi.shape[0]):
        joint_integrate(mi, ws, q, u, dt, qout, j)
        i = mi[j, QOFF]
        k = mi[j, UOFF]
        for r in range(mi[j, BODY_NU]):
            qout[i + mi[j, NQ] + r] = q[i + mi[j, NQ] + r] + u[k + mi[j, NU] + r] * dt


@njit(cache=True)
def integrate(mi, ws, q, u, dt, out):
    """Checked entry point of ``integrate_q``: a status for (q, u), or OVERFLOW."""
    st = check_state_modal_ok(mi, q, u, u, 1, -1)
    if st == 0:
        integrate_q(mi, ws, q, u, dt, out)
    return result_status(st, out)


@njit(cache=True)
def sanitize_charts(mi, ws, q, max_angles):
    """Re-centre the chart of every link with one (SPHERICAL/FREE) whose |v| > max_angles[j].

    The chart offset becomes offset (x) exp(v) and v becomes 0, so the rotation is
    unchanged. Writes the chart offsets (ws W_CHART, data state) and q in place; returns how many moved.
    """
    moved = 0
    for j in range(mi.shape[0]):
        if joint_recentre_chart(mi, ws, q, max_angles[j], j):
            moved += 1
    return moved
