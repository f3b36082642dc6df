"""Where one Solo12 standing step's time goes (issue 21): the pieces of the contact loop timed
one by one at the standing state, against whole runs of ``mb.simulate``.

Pieces (each called ``REPEATS`` times in a compiled loop, at the same state): the kinematics
pass and detection, M^-1, the contact rows J, W = J M^-1 J^T with the targets, and the
Coulomb solve on the problem a run's step made (W, v_free, b as the run formed them),
warm-started from the step before's impulses, as in a run, and cold. Whole runs:
2000 steps with the PD as a Python callback, and with the PD as compiled position actuators
(``m.actuators``, ctrl = the pose); their difference is the control hand-over. The free
motion (ABA and force models) and the rest of the step are what the run with actuators has
left over.

Run:  python bench/profile_contact_step.py
"""
import os
import sys
import time

import numpy as np
from numba import njit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import solo12_drop as solo  # noqa: E402
from _timing import best_of  # noqa: E402
from multibody.kernels.collision.detect import detect  # noqa: E402
from multibody.kernels.contact_solver import solve_contacts  # noqa: E402
from multibody.kernels.inverse_mass_matrix import minv_core  # noqa: E402
from multibody.kernels.joint_transform import world_placements  # noqa: E402
from multibody.simulation.contact_step import contact_jacobian, delassus, velocity_targets, warm_start  # noqa: E402

REPEATS = 2000


@njit
def _detect(mi, mf, ws, q, cm, dwork, ci, cf, n):
    nc = 0
    for _ in range(n):
        world_placements(mi, mf, ws, q)
        nc = detect(cm[0], cm[1], cm[2], cm[3], ws, dwork, ci, cf)
    return nc


@njit
def _minv(mi, mf, ws, z, q, Mwork, Minv, n):
    for _ in range(n):
        minv_core(mi, mf, ws, z, q, Mwork, Minv)


@njit
def _rows(mi, mf, ws, si, ci, cf, nc, J, n):
    for _ in range(n):
        contact_jacobian(mi, mf, ws, si, ci, cf, nc, J)


@njit
def _delassus(J, Minv, m, MJt, W, u, uf, cf, nc, h, vfree, b, n):
    for _ in range(n):
        delassus(J, Minv, m, MJt, W)
        velocity_targets(J, u, uf, cf, nc, h, vfree, b)


@njit
def _solve(W, vfree, b, mu, comp, lam, lam0, v, sweeps, tol, n):
    res, it = 0.0, 0
    for _ in range(n):
        lam[:] = lam0
        res, it = solve_contacts(W, vfree, b, mu, comp, lam, v, sweeps, tol)
    return res, it


def per_call(f, *args):
    """Microseconds per call of piece f (its loop of REPEATS), best of 3, after a warm-up."""
    f(*args[:-1], 1)
    t, out = best_of(lambda: f(*args))
    return 1e6 * t / args[-1], out


def main():
    import multibody as mb
    from multibody.kernels.common import data_start, link_rows, ragged
    from multibody.simulation import contact_loop as CL
    from multibody.simulation.actuators import Actuator
    from multibody.simulation.moreau import MoreauIntegrator
    m, q0 = solo.solo12_scene()
    landed = mb.simulate(m, q0, np.zeros(m.nu), 2.0, dt=1e-3, control=solo.pd)
    qs, us = landed.q[-1].copy(), landed.u[-1].copy()
    steps = 2000
    t_py, _ = best_of(lambda: mb.simulate(m, qs, us, steps * 1e-3, dt=1e-3, control=solo.pd))
    names = [n for n in m.hinge_names if n != "root_joint"]
    m.actuators = [Actuator.position(n, n, solo.KP, solo.KD) for n in names]
    mb.simulate(m, qs, us, 0.01, dt=1e-3, ctrl=solo.POSE)
    t_act, _ = best_of(lambda: mb.simulate(m, qs, us, steps * 1e-3, dt=1e-3, ctrl=solo.POSE))
    m.actuators = []
    # one step's problem at the standing state, from a run of two steps: the second step's W,
    # v_free, b, mu and compliance as the run made them, and its warm start (the first step's
    # impulses matched by contact, as the run does)
    integ = MoreauIntegrator(m, qs, us, control=solo.pd)
    integ.integrate(1e-3, 1e-3)
    ci, cf, ci_prev, lam_prev, J, MJt, W, vfree, b, lam, v, mu, comp, Minv, Mwork, uf = integ._cw[:16]
    ci1, lam1, n1 = ci_prev.copy(), lam_prev.copy(), int(integ.cst[CL.S_NPREV])
    integ.integrate(2e-3, 1e-3)
    nc = int(integ.cst[CL.S_NPREV])
    mrows = 3 * nc
    lam0 = np.zeros(mrows)
    warm_start(ci, nc, ci1, lam1, n1, lam0)
    Wr, vr, br = W[:mrows, :mrows].copy(), vfree[:mrows].copy(), b[:mrows].copy()
    mur, compr = mu[:nc].copy(), comp[:nc].copy()
    c = m.compiled
    n = c.mi.shape[0]
    buf = integ.data.buf
    d0 = data_start(buf, n)
    ws, z = link_rows(buf, d0, n), ragged(buf, d0, n)
    q, u = integ._q.copy(), integ._u.copy()
    uf[:] = u
    R = REPEATS
    t_det, _ = per_call(_detect, c.mi, integ.mf, ws, q, integ._cm, integ._dwork, ci, cf, R)
    t_minv, _ = per_call(_minv, c.mi, integ.mf, ws, z, q, Mwork, Minv, R)
    world_placements(c.mi, integ.mf, ws, q)
    t_rows, _ = per_call(_rows, c.mi, integ.mf, ws, integ._cm[0], ci, cf, nc, J, R)
    t_w, _ = per_call(_delassus, J, Minv, mrows, MJt, W, u, uf, cf, nc, 1e-3, vfree, b, R)
    args = (Wr, vr, br, mur, compr, lam[:mrows])
    t_warm, (res_w, it_w) = per_call(_solve, *args, lam0, v[:mrows], 2000, 1e-9, R)
    t_cold, (res_c, it_c) = per_call(_solve, *args, np.zeros(mrows), v[:mrows], 2000, 1e-9, R)
    step_py, step_act = 1e6 * t_py / steps, 1e6 * t_act / steps
    pieces = t_det + t_minv + t_rows + t_w + t_warm
    print(f"Solo12 standing, {nc} contacts ({mrows} rows on {c.nu} speeds), us per step:")
    print(f"  whole step, PD as a Python callback   {step_py:8.1f}")
    print(f"  whole step, PD as position actuators  {step_act:8.1f}  (control hand-over {step_py - step_act:.1f})")
    print(f"  kinematics + detection                {t_det:8.1f}")
    print(f"  M^-1                                  {t_minv:8.1f}")
    print(f"  contact rows J                        {t_rows:8.1f}")
    print(f"  W = J M^-1 J^T and targets            {t_w:8.1f}")
    print(f"  solve, warm ({it_w} it, {res_w:.1e})        {t_warm:8.1f}")
    print(f"  solve, cold ({it_c} it, {res_c:.1e})        {t_cold:8.1f}")
    print(f"  free motion and the rest (actuators)  {step_act - pieces:8.1f}")


if __name__ == "__main__":
    main()
