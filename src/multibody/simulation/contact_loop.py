"""The compiled Moreau-Jean stepping loop with hard frictional contact (issue 21).

Fixed steps h; per step, from (q, u) at time t:

1. the free motion u_f = u + h udot(q, u, tau, forces): the RK loop's stage rates
   (``stages.stage_rates``) at the step's start;
2. contacts at q (``kernels/collision/detect``), their rows J (``contact_step``), M^-1
   (``kernels/inverse_mass_matrix``), the Delassus matrix W = J M^-1 J^T and the targets b;
   with enabled constraints (the ``loops`` variant) their rows are eliminated first
   (``kernels/loop_impulses``): u_f is projected onto Gc u = g (g = -LOOP_RECOVERY r / h,
   ``contact_step.loop_targets``) and P, the constrained compliance, stands for M^-1 in W
   and in the impulses' speeds, so that u+ keeps Gc u+ = g;
3. the impulses lambda of the Coulomb problem (``kernels/contact_solver``), warm-started
   from the last step's contacts of the same shapes and feature;
4. u+ = u_f + M^-1 J^T lambda (P J^T lambda with loops, then u+ projected onto Gc u+ = g
   once more: rounding) and q+ = q (+) h (u + u+)/2 (the midpoint speed: a body
   that slides at constant deceleration moves by the trapezoid rule, exact for it), then
   quaternions re-normalised and charts re-centred as in the RK loop.

Models with modal bodies take the ``flex`` variants: the free motion from the flex stage
rates (``flex_stepping.flex_stage_rates``), M^-1 from the flex kernel, the shapes placed
through their (deformed) frames and the rows J from the flex frame Jacobians, modal columns
included (``kernels/flex_contact``), and with loops their rows from the flex constraint
kernel (``flex_entry.constraint_rows_flex``: frames on deforming nodes); the rest of the
step is the same.

It shares the RK loop's counters, clock and options (``kernels.py``: ``_begin_step``,
C_*, K_*, O_*, F_*), its Python control hand-over (once per step, at its start: the
control sees the step's (t, q, u)) and its sample storage. A solve that ends above its
tolerance but within its acceptance (copt[P_ACCEPT]) goes on, counted (cst[S_SHORT]); above
the acceptance it stops the run with CONTACT_UNSOLVED (the residual in cst[S_RESIDUAL]); more
contacts than the rows given stop it with CONTACT_ROWS before the step changes anything
(cst[S_NEEDED]: how many), for the caller to give more rows and go on. The entry releases
the GIL (``nogil``): a rollout runs the samples of models with loops or modal bodies on
threads at once (``sample_runs``).
"""
import numpy as np
from numba import njit

from ..kernels.collision.detect import detect
from ..kernels.collision.layout import CF_COLS, CF_MU, CI_COLS
from ..kernels.common import constraint_table, data_start, frame_table, link_rows, ragged
from ..kernels.contact_solver import natural_residual, solve_contacts
from ..kernels.coordinates import integrate_q
from ..kernels.flex_contact import PLACEMENT_COLS, flex_contact_jacobian, flex_shape_placements
from ..kernels.constrained_dynamics import constraint_rows_at
from ..kernels.flex_entry import constraint_rows_flex, inverse_mass_matrix_flex
from ..kernels.constraint_work import WC_ROW, row_offset
from ..kernels.inverse_mass_matrix import minv_core, work_shape
from ..kernels.joint_transform import world_placements
from ..kernels.status import CONTACT_ROWS, CONTACT_UNSOLVED, NONFINITE_STATE, OK, RUNNING, SINGULAR
from ..kernels.variants import variant
from .contact_step import apply_impulses, contact_jacobian, contact_record, delassus, drop_immobile, \
    eliminate_loop_rows, keep_contacts, project_loops, set_compliance, velocity_targets, warm_start
from .kernels import (
    C_BAD, C_CHARTS, C_OUT, C_STAGE, C_STEP, K_STEP, K_T, K_TBAD, K_TOUT,
    O_CONTROL, O_NSTEPS, O_STRIDE, O_WORLDF, _begin_step, _failed, _stop, control_at_step_start, write_sample,
)
from .flex_stepping import flex_stage_rates
from .stages import after_step, first_bad, stage_rates

__all__ = ["contact_entry_point", "allocate_contact_work", "allocate_loop_work", "allocate_flex_work", "RECORD_COLS"]

# --- contact options (float64 array copt)
P_TOL = 0        # the solver's tolerance on the natural-map residual
P_SWEEPS = 1     # the solver's most iterations per step (sweeps and Newton iterations)
P_ACCEPT = 2     # a solve that stops above P_TOL but at most this goes on (counted in S_SHORT)
P_REG = 3        # each contact's compliance, relative to its W_nn (``MoreauIntegrator``'s contact_regularization)
P_SOFT = 4       # the first softer compliance of a step no solve met (``retry_regularization``; 0: none)
P_SOFTEST = 5    # the softest: the ladder P_SOFT, 10 P_SOFT, ... up to it (``softest_regularization``)
N_COPT = 6

# --- contact state (float64 array cst)
S_RESIDUAL = 0   # the last solve's residual (CONTACT_UNSOLVED: the failed one's)
S_SWEEPS = 1     # the last solve's sweeps
S_NPREV = 2      # contacts of the last step (the warm start's rows)
S_NEEDED = 3     # CONTACT_ROWS: the contacts found
S_WORST = 4      # the largest residual of the run's solves
S_MOST = 5       # the most contacts of a step in the run
S_SHORT = 6      # solves that stopped above P_TOL (at most P_ACCEPT): the run goes on, counting them
S_TSHORT = 7     # the time of the step whose solve stopped furthest above P_TOL
S_SOFT = 8       # steps solved at a softer compliance level than P_REG (``solve_step``)
S_TSOFT = 9      # the time of the first of them
S_LOOPMISS = 10  # the largest |Gc u+ - g| a step's final projection found (loops: rounding)
S_DROPPED = 11   # the loop rows the last step dropped as redundant
S_LEVEL = 12     # the compliance level the run has reached (``soft_level``; 0: P_REG)
S_SOFTEST = 13   # the largest compliance (relative to W_nn) a step of the run took
N_CST = 14

#: Columns of a contact record (``contact_step.contact_record``): a, b, p (3), n (3), f (3).
RECORD_COLS = 11


def allocate_contact_work(nq, nu, n_links, maxc, minv_shape=None):
    """The arrays of a contact run with room for ``maxc`` contacts: (cw, cst); ``minv_shape``:
    the shape of M^-1's work (``c.minv_work_shape``; None: the rigid kernel's).

    cw = (ci, cf, ci_prev, lam_prev, J, MJt, W, vfree, b, lam, v, mu, comp, Minv, Mwork,
    uf, umid, kq, ku, tau, q1, u1, rec) (``contact_loop`` reads them in this order)."""
    m = 3 * max(maxc, 1)
    cw = (np.zeros((max(maxc, 1), CI_COLS), dtype=np.int64), np.zeros((max(maxc, 1), CF_COLS)),
          np.zeros((max(maxc, 1), CI_COLS), dtype=np.int64), np.zeros(m), np.zeros((m, max(nu, 1))),
          np.zeros((max(nu, 1), m)), np.zeros((m, m)), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m),
          np.zeros(m // 3), np.zeros(m), np.zeros((nu, nu)),
          np.zeros(work_shape(n_links, nu) if minv_shape is None else minv_shape),
          np.zeros(nu), np.zeros(nu), np.zeros(nq), np.zeros(nu), np.zeros(nu), np.zeros(nq), np.zeros(nu),
          np.zeros((max(maxc, 1), RECORD_COLS)))
    return cw, np.zeros(N_CST)


def allocate_loop_work(wc, nu):
    """The loop rows' arrays of a contact run (``kernels/loop_impulses``): (wc, LV, S, U, P, g,
    x), wc the run's constraint work (Gc, the rows' coefficients), or small placeholders for
    a model without enabled constraints (the loop variant without loops never reads them)."""
    if wc is None:
        wc, nu = np.zeros((1, 1)), 1
    nr = wc.shape[0]
    return (wc, np.zeros((nu, nu)), np.zeros(max(min(nr, nu), 1)), np.zeros((nr, nr)), np.zeros((nu, nu)),
            np.zeros(nr), np.zeros(nr))


@njit(cache=True)
def _cold_retry(W, vfree, b, mu, comp, lam, v, keep, max_sweeps, tol, res, sweeps):
    """A warm start can hold the sweeps back (new contacts, features that changed): a solve
    that ended above ``tol`` is made once more from zero impulses, and the better of the two
    is kept (``keep``: scratch of lam's size; the caller's last-step impulses, already read
    by the warm start). Returns (residual, sweeps of both)."""
    m = lam.shape[0]
    for r in range(m):
        keep[r] = lam[r]
        lam[r] = 0.0
    res2, sweeps2 = solve_contacts(W, vfree, b, mu, comp, lam, v, max_sweeps, tol)
    if res2 < res:
        return res2, sweeps + sweeps2
    for r in range(m):
        lam[r] = keep[r]
    natural_residual(W, vfree, b, mu, comp, lam, v)  # (v of the kept impulses)
    return res, sweeps + sweeps2


@njit(cache=True)
def soft_level(copt, level):
    """The compliance, relative to W_nn, of level ``level`` of the ladder: 0 the run's own
    (P_REG), j >= 1 the softer P_SOFT 10^(j-1) (at most P_SOFTEST); -1.0 past the last."""
    if level == 0:
        return copt[P_REG]
    if not copt[P_SOFT] > copt[P_REG]:
        return -1.0
    reg = copt[P_SOFT] * 10.0 ** (level - 1)
    return reg if reg <= copt[P_SOFTEST] * (1.0 + 1e-12) else -1.0


@njit(cache=True)
def _soft_retry(W, vfree, b, mu, cf, comp, lam, v, keep, max_sweeps, tol, res, sweeps, soft):
    """A step that no solve met (``res`` above tol) is solved once more, from zero impulses,
    with each contact's compliance ``soft`` W_nn (``set_compliance``; comp is overwritten):
    redundant contacts given push-out targets that the bodies can only nearly meet (boxes
    landing on boxes, dm_control's humanoid in the floor) have no solution within tol at the
    run's own compliance, but one at the softer, and the sweeps converge faster on the softer
    (W + C better conditioned). Kept if its residual (of the softer problem) is smaller than
    res. Returns (residual, iterations of all solves, whether it was kept)."""
    m = lam.shape[0]
    for r in range(m):
        keep[r] = lam[r]
        lam[r] = 0.0
    set_compliance(W, cf, soft, comp)
    res2, sweeps2 = solve_contacts(W, vfree, b, mu, comp, lam, v, max_sweeps, tol)
    if res2 < res:
        return res2, sweeps + sweeps2, True
    for r in range(m):
        lam[r] = keep[r]
    return res, sweeps + sweeps2, False


@njit(cache=True, inline="always")
def solve_step(W, vfree, b, mu, cf, comp, lam, v, keep, copt, cst, t):
    """The step's impulses (``solve_contacts``, warm-started in lam) at the compliance level
    the run has reached (cst[S_LEVEL]): a solve above contact_tol is made once more from zero
    (``_cold_retry``), then up the ladder of softer compliances (``soft_level``,
    ``_soft_retry``) until one meets it. Returns (residual, iterations); counts the steps
    solved above level 0 (S_SOFT; S_TSOFT the time t of the first).

    The level does not come down in a run: a try of the level below costs a failed solve of
    up to max_sweeps iterations wherever it still fails (the 50-box pile: about 4000 sweeps,
    0.3 s, on every try), and a resting contact sits deeper at a softer level (the compliance
    times its impulse over the push-out's 0.2 per step: 0.05 mm for a box under four at 0.1),
    which a harder step would push out at once."""
    tol = copt[P_TOL]
    sweeps_max = int(copt[P_SWEEPS])
    level = int(cst[S_LEVEL])
    reg = soft_level(copt, level)
    set_compliance(W, cf, reg, comp)
    res, sweeps = solve_contacts(W, vfree, b, mu, comp, lam, v, sweeps_max, tol)
    if res > tol:
        res, sweeps = _cold_retry(W, vfree, b, mu, comp, lam, v, keep, sweeps_max, tol, res, sweeps)
    while res > tol:
        softer = soft_level(copt, level + 1)
        if softer < 0.0:
            break
        level += 1
        reg = softer
        res, sweeps, _ = _soft_retry(W, vfree, b, mu, cf, comp, lam, v, keep, sweeps_max, tol, res, sweeps, reg)
    cst[S_LEVEL] = level
    if level > 0:
        if cst[S_SOFT] == 0:
            cst[S_TSOFT] = t
        cst[S_SOFT] += 1
        cst[S_SOFTEST] = max(cst[S_SOFTEST], reg)
    return res, sweeps


def _make_contact_loop(links, controlled, loops, flex=0):
    """The contact loop (module docstring) with four constants: ``links`` (link-level force
    models), ``controlled`` (a Python control, as iopt[O_CONTROL] says), ``loops`` (enabled
    constraints: their rows eliminated, ``kernels/loop_impulses``) and ``flex`` (modal
    bodies: the flex free motion, M^-1, placements and rows, and with ``loops`` the flex
    constraint rows; fx = (frames, wsx, Jf, T) of ``allocate_flex_work``; not with
    ``links``). Classic coordinates (quaternions re-normalised)."""
    name = f"run_moreau_links{int(links)}_controlled{int(controlled)}_loops{int(loops)}"

    @variant(name + "_flex1" if flex else name, nogil=True)
    def run(mi, mf, dbuf, fmi, fmf, tau0, iopt, fopt, max_angles, chart0, q, u, clk, ctr, ctl, T, Q, U,
            cm, dwork, cw, copt, cst, R, NR, lw, fx=None):
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        z = ragged(dbuf, d0, n)
        fr = frame_table(dbuf, n)
        cr = constraint_table(dbuf, n)
        si, sf, verts, allow = cm
        ci, cf, ci_prev, lam_prev, J, MJt, W, vfree, b, lam, v, mu, comp, Minv, Mwork, uf, umid, kq, ku, tau, \
            q1, u1, rec = cw
        tauc, qview, uview = ctl
        P = lw[4]  # the constrained compliance (loops)
        nr = cr.shape[0]
        col_r = row_offset(u.shape[0], nr) + WC_ROW  # each loop row's residual in lw[0]
        rank = 0  # (the loop rows' rank, each step's)
        nq = q.shape[0]
        nu = u.shape[0]
        control = 0
        if controlled:
            control = iopt[O_CONTROL]
        worldf = iopt[O_WORLDF]
        nrow = T.shape[0]
        records = R.shape[0] > 0
        while True:
            if ctr[C_STAGE] < 0:
                st = _begin_step(0, iopt, fopt, clk, ctr, nrow)
                if st != RUNNING:
                    return _stop(ctr, st)
            t = clk[K_T]
            h = clk[K_STEP]
            src = tau0
            if controlled and control:
                st = control_at_step_start(mi, ws, chart0, q, u, tau0, qview, uview, tauc, clk, ctr, t)
                if st != RUNNING:
                    return _stop(ctr, st)
                src = tauc
            # 1. the free motion
            if flex:
                ok = flex_stage_rates(mi, mf, ws, dbuf, 0, 0, None, fmi, fmf, t, q, u, umid, src, tau, kq, ku)
            else:
                ok = stage_rates(mi, mf, ws, z, 0, 0, links, 0, fr, cr, None, worldf, fmi, fmf, t, q, u, umid, src,
                                 tau, kq, ku)
            if not ok:
                clk[K_TBAD] = t
                return _failed(ctr, q, u, SINGULAR)
            for i in range(nu):
                uf[i] = u[i] + h * ku[i]
            # 2. contacts, their rows and the Delassus matrix
            if flex:
                ok = inverse_mass_matrix_flex(dbuf, q, Mwork, Minv) == OK
            else:
                ok = minv_core(mi, mf, ws, z, q, Mwork, Minv)
            if not ok:
                clk[K_TBAD] = t
                return _failed(ctr, q, u, SINGULAR)
            if loops:  # the loop rows eliminated: compliance P, free speeds on the loops (Gc u_f = g)
                if flex:  # (frames on deforming nodes: the flex rows, modal columns included)
                    rank = eliminate_loop_rows(lw, h, col_r, Minv, uf) if constraint_rows_flex(
                        dbuf, q, u, lw[0]) == OK else -1
                else:
                    constraint_rows_at(mi, mf, fr, cr, ws, q, u, lw[0])
                    rank = eliminate_loop_rows(lw, h, col_r, Minv, uf)
                if rank < 0:
                    clk[K_TBAD] = t
                    return _failed(ctr, q, u, SINGULAR)
                cst[S_DROPPED] = nr - rank
            if flex:  # each shape's frame, deformed, in its own row of wsx (si, sf: si_frame, sf_frame)
                flex_shape_placements(dbuf, q, fx[0], fx[1], fx[3])
                nc = detect(si, sf, verts, allow, fx[1], dwork, ci, cf)
            else:
                world_placements(mi, mf, ws, q)  # (M^-1 just used them as scratch: kernels/placements.py)
                nc = detect(si, sf, verts, allow, ws, dwork, ci, cf)
            if nc < 0:
                cst[S_NEEDED] = -nc
                ctr[C_STAGE] = -1
                return _stop(ctr, CONTACT_ROWS)
            m = 3 * nc
            for i in range(nu):
                u1[i] = uf[i]
            if nc > 0:
                if flex:
                    flex_contact_jacobian(dbuf, q, fx[0], ci, cf, nc, J, fx[2], fx[3])
                else:
                    contact_jacobian(mi, mf, ws, si, ci, cf, nc, J)
                if loops:
                    delassus(J, P, m, MJt, W)
                else:
                    delassus(J, Minv, m, MJt, W)
                velocity_targets(J, u, uf, cf, nc, h, W, vfree, b)
                drop_immobile(W, nc, vfree, b)
                warm_start(ci, nc, ci_prev, lam_prev, int(cst[S_NPREV]), lam)
                for c in range(nc):
                    mu[c] = cf[c, CF_MU]
                # 3. the impulses
                res, sweeps = solve_step(W[:m, :m], vfree[:m], b[:m], mu[:nc], cf, comp[:m], lam[:m], v[:m],
                                         lam_prev[:m], copt, cst, t)
                cst[S_RESIDUAL] = res
                cst[S_SWEEPS] = sweeps
                if not res <= copt[P_ACCEPT]:
                    clk[K_TBAD] = t
                    ctr[C_STAGE] = -1
                    return _stop(ctr, CONTACT_UNSOLVED)
                if res > copt[P_TOL]:
                    cst[S_SHORT] += 1
                    if res > cst[S_WORST]:
                        cst[S_TSHORT] = t
                cst[S_WORST] = max(cst[S_WORST], res)
                cst[S_MOST] = max(cst[S_MOST], nc)
                apply_impulses(MJt, lam, m, uf, u1)
                if loops:  # Gc P = 0 up to rounding: the rounding taken out of u+
                    cst[S_LOOPMISS] = max(cst[S_LOOPMISS], project_loops(lw, rank, u1))
            cst[S_NPREV] = keep_contacts(ci, lam, nc, ci_prev, lam_prev)
            # 4. the new state
            for i in range(nu):
                umid[i] = 0.5 * (u[i] + u1[i])
            integrate_q(mi, ws, q, umid, h, q1)
            t_end = clk[K_TOUT]
            bad = first_bad(q1, u1)
            if bad >= 0:
                ctr[C_BAD] = bad
                clk[K_TBAD] = t_end
                return _stop(ctr, NONFINITE_STATE)
            ctr[C_CHARTS] += after_step(mi, ws, 0, 0, max_angles, q1)
            for i in range(nq):
                q[i] = q1[i]
            for i in range(nu):
                u[i] = u1[i]
            clk[K_T] = t_end
            ctr[C_STEP] += 1
            if ctr[C_STEP] % iopt[O_STRIDE] == 0 or ctr[C_STEP] == iopt[O_NSTEPS]:
                ctr[C_OUT] += 1
                w = write_sample(mi, ws, chart0, clk[K_T], q, u, T, Q, U, ctr)
                if records:  # the contacts of the step that ends on the sample
                    NR[w] = contact_record(ci, cf, lam, min(nc, R.shape[1]), h, R[w])

    return run


def allocate_flex_work(contact_model, nu):
    """The flex variant's fx = (frames, wsx, Jf, T): each shape's frame row
    (``ContactModel.frames``), the placement array (a row per shape), the scratch of a frame
    Jacobian (6, nu) and of a pose (4, 4); small placeholders for a rigid model."""
    if contact_model is None:
        return np.full(1, -1, dtype=np.int64), np.zeros((1, PLACEMENT_COLS)), np.zeros((6, 1)), np.zeros((4, 4))
    ns = contact_model.n_shapes
    return contact_model.frames, np.zeros((ns, PLACEMENT_COLS)), np.zeros((6, nu)), np.zeros((4, 4))


_LOOPS = {}


def contact_entry_point(links=True, control=True, loops=False, flex=False):
    """The compiled contact loop ``run(mi, mf, dbuf, fmi, fmf, tau0, iopt, fopt, max_angles,
    chart0, q, u, clk, ctr, ctl, T, Q, U, cm, dwork, cw, copt, cst, R, NR, lw)`` (module
    docstring): cm = (si, sf, verts, allow) of ``m.compiled.contact``, dwork detection's
    work, cw and cst from ``allocate_contact_work``, copt the solver's options (P_*), R
    (rows, maxc, RECORD_COLS) and NR (rows,) the contact records per sample (R with no
    rows: none kept), lw the loop rows' arrays (``allocate_loop_work``), and for a model with
    modal bodies (``flex``; ``links`` must then be False) fx of
    ``allocate_flex_work``, cm then of ``si_frame`` and ``sf_frame``. Made (and compiled
    or loaded from the cache) on first use."""
    if flex and links:
        raise NotImplementedError("the flex contact loop takes no rigid link-level force models (a model with "
                                  "modal bodies packs its wrenches and springs at frames: flex_link_forces)")
    key = (int(bool(links)), int(bool(control)), int(bool(loops)), int(bool(flex)))
    run = _LOOPS.get(key)
    if run is None:
        run = _LOOPS.setdefault(key, _make_contact_loop(*key))
    return run
