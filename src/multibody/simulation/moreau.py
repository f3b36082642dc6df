"""The "moreau" integrator: fixed-step Moreau-Jean time stepping with hard frictional contact.

``MoreauIntegrator`` runs the compiled contact loop (``contact_loop``) with the
``RungeKuttaIntegrator``'s state, sinks, control hand-over and run interface; only the
loop and its contact arrays differ. ``contact_integrator`` is ``simulate``'s choice of
integrator for a model with or without collision shapes.
"""
import math
import warnings

import numpy as np

from ..kernels.collision.detect import detect
from ..kernels.collision.layout import CF_DIST, CI_A, CI_B, SF_MARGIN
from ..kernels.common import data_start, link_rows
from ..kernels.joint_transform import forward_kinematics_pass
from ..kernels.collision.work import contact_work
from ..kernels.flex_contact import flex_shape_placements
from ..kernels.status import CONTACT_ROWS, Status
from . import contact_loop as CL
from . import kernels as K
from .contact_records import ContactRecords
from .contact_step import RECOVERY_SPEED
from .contact_warm_start import ContactWarmStart, warm_start_of
from .integrators import RungeKuttaIntegrator

__all__ = ["MoreauIntegrator", "contact_integrator", "contact_settings", "ContactRecords", "ContactWarmStart",
           "ContactWarning"]

#: The solver's default tolerance on its natural-map residual and most sweeps per step.
CONTACT_TOL = 1e-9
MAX_SWEEPS = 2000
#: A solve that stops at max_sweeps above CONTACT_TOL but at most this goes on, counted and
#: warned at the end of the run (``ContactWarning``): Coulomb's law has no potential, and
#: nearly singular scenes stall a little above the tolerance.
CONTACT_ACCEPT = 1e-5
#: Each contact's compliance, relative to its W_nn (so in no unit): the impulse lambda lets
#: the contact in at the rate 1e-6 W_nn lambda, a millionth of the speed the impulse alone
#: would make there. Without it, a robot resting on more contacts than its speeds tell apart
#: (Solo12 fallen onto its knees: 12 contacts, 36 rows on 18 speeds) has internal forces that
#: hardly move anything, so the impulses are nearly undetermined: the rigid solve of such a
#: step took 239 iterations, and with 50 Newton iterations a start it failed and stopped the
#: run; with the compliance they are determined (W + C is definite): 71 iterations. Its
#: effects are of its size: a resting contact sits 1e-9 m deeper, a sticking one creeps by
#: nanometres per second.
CONTACT_REGULARIZATION = 1e-6
#: The compliance (relative to W_nn) of a further try on a step that no solve met to contact_tol
#: (``contact_loop.solve_step``): boxes landing on boxes and dm_control's humanoid sunk in the
#: floor give redundant contacts push-out targets that the bodies can only nearly meet; their
#: problem has a solution at 1e-4 (measured: 10 boxes in two columns, humanoid), not at 1e-6.
#: Such steps are counted and warned at the end of the run.
RETRY_REGULARIZATION = 1e-4
#: The softest of the retries (10, 100, ... times RETRY_REGULARIZATION): 50 boxes in a pile
#: (199 contacts, 597 rows of rank 297) have none within 1e-9 below 1e-2 in 2000 sweeps, and one
#: in 145 sweeps at 0.1, about as soft as MuJoCo's default contacts.
SOFTEST_REGULARIZATION = 0.1
#: [m] Detection reaches this far beyond the shapes' own margins in a "moreau" run: a contact
#: found before the surfaces meet may approach up to them in the step (its target b_n =
#: dist / h), and a resting contact (dist = 0) stays found, so that it neither chatters nor
#: sinks. It costs nothing else: such contacts separate when nothing presses them.
CONTACT_MARGIN = 1e-3
#: [m] Initial interpenetrations deeper than this are warned (``ContactWarning``).
PENETRATION_WARNING = 1e-4


def contact_integrator(m, integrator, contact):
    """``simulate``'s integrator for model ``m``: "moreau" where contacts are on (``contact``
    True and the model has collision shapes) and no integrator is named, "rk4" where they
    are off; an explicit Runge-Kutta method with contacts on is refused (ValueError)."""
    has = m.compiled.contact is not None
    on = bool(contact) and has
    moreau = isinstance(integrator, str) and integrator.lower() == "moreau"
    if integrator is None:
        return "moreau" if on else "rk4"
    if moreau and not on:
        why = "the model has no collision shapes" if not has else "contact=False"
        raise ValueError(f"integrator='moreau' steps contacts, but {why}: use a Runge-Kutta method ('rk4')")
    if on and not moreau:
        name = getattr(integrator, "name", integrator)
        raise ValueError(f"integrator={name!r} cannot step the model's contacts: a Runge-Kutta method (or "
                         f"generalized_alpha) assumes smooth motion, and contact impulses change the speeds inside a "
                         f"step; use integrator='moreau' (the default with collision shapes), or contact=False")
    return "moreau" if moreau else integrator


#: the settings ``simulate(contact_options=)`` hands to ``MoreauIntegrator``
CONTACT_OPTIONS = ("contact_tol", "contact_accept", "max_sweeps", "max_contacts", "contact_margin",
                   "contact_regularization", "retry_regularization", "softest_regularization", "warm_start")


def contact_settings(options, moreau):
    """``contact_options`` (None or a dict of ``CONTACT_OPTIONS``) as keyword arguments of
    ``MoreauIntegrator``; a ValueError names an unknown key, or options without contact."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"contact_options must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - set(CONTACT_OPTIONS))
    if unknown:
        raise ValueError(f"contact_options: unknown {', '.join(map(repr, unknown))}; they are {', '.join(CONTACT_OPTIONS)}")
    if not moreau and options:
        raise ValueError("contact_options: the run has no contacts (no collision shapes, contact=False, or a "
                         "Runge-Kutta integrator)")
    return dict(options)


class ContactWarning(UserWarning):
    """A run with contact starts with shapes inside each other, or some of its contact solves
    stopped above their tolerance (within ``contact_accept``)."""


class MoreauIntegrator(RungeKuttaIntegrator):
    """Moreau-Jean time stepping (fixed steps) of a model with collision shapes.

    Parameters as ``RungeKuttaIntegrator`` (``tableau``, ``adaptive``, ``rtol``, ``atol``,
    ``h_min``, ``h_max``, ``lie_group`` are ignored), and:

    contact_tol : float
        The contact solver's tolerance on its natural-map residual (dimensionless, relative
        to the impulses; see ``kernels/contact_solver.natural_residual``).
    contact_accept : float
        A step whose solve stops (at ``max_sweeps``) above ``contact_tol`` but at most this
        goes on; such steps are counted (``short_solves``) and warned about at the end of the
        run (``ContactWarning``, with the worst residual and its time). Above it the run stops
        with a ``SimulationError`` that gives the residual. ``contact_accept=contact_tol``
        makes every solve above the tolerance an error.
    max_sweeps : int
        The solver's most iterations per step (Gauss-Seidel sweeps and Newton iterations:
        ``kernels/contact_solver.solve_contacts``).
    contact_output : bool
        Keep the contacts of every stored sample in ``contact_records`` (``ContactRecords``).
    max_contacts : int, optional
        Rows for contacts to start with (more are made when a step finds more).
    contact_margin : float
        [m] How far beyond the shapes' margins contacts are found (``CONTACT_MARGIN``).
    contact_regularization : float
        Each contact's compliance relative to its W_nn (``CONTACT_REGULARIZATION``, 1e-6);
        0 solves the rigid problem, which nearly singular scenes may not meet to contact_tol.
    retry_regularization : float
        The compliance, relative to W_nn, of a further try on a step that no solve met
        (``RETRY_REGULARIZATION``, 1e-4; 0: no such try); where it does not meet it either,
        10, 100, ... times it, up to ``softest_regularization``. Such steps are counted
        (``soft_solves``) and warned about at the end of the run; the run stays at the softest
        level a step needed (``contact_loop.solve_step`` says why).
    softest_regularization : float
        The softest compliance of those tries (``SOFTEST_REGULARIZATION``, 0.1: MuJoCo's
        default contacts, solimp's d = 0.9-0.95, are that soft). A box resting on a box at
        0.1 W_nn sits about 0.05 mm deeper than a hard one.
    warm_start : ContactWarmStart or SimulationResult, optional
        The first step's contact solve starts from these contacts' impulses (a contact run's
        ``contact_warm_start``, or its result; ``simulation.contact_warm_start``), as every
        later step starts from the step before's; None: from zero. ``contact_warm_start``
        gives the run's own at its end.

    Enabled constraints (loops, convel and coordinate rows) act as bilateral impulses
    eliminated from the contact problem (``kernels/loop_impulses``): the step's speeds meet
    Gc u+ = -LOOP_RECOVERY r / h (``simulation/contact_step.py``), which takes the place of
    Baumgarte's ``stabilization_gains`` (only None and "default" are accepted).

    Models with modal bodies run the loop's ``flex`` variant: shapes pinned to nodes
    (``m.add_collision(..., node=)``) follow the nodes' deformation and their contact rows
    include the modal columns (``kernels/flex_contact``); wrenches and spring-dampers at
    frames (nodes too) are applied once per step with the joint forces
    (``flex_link_forces``). With enabled constraints as well, the
    loop rows come from the flex constraint kernel (frames on deforming nodes included).
    """

    LOOP_NAME = "the contact simulation loop"
    CHECKED_LOOP = True  # (loop_check's "moreau_*" recordings)

    def __init__(self, m, q0, u0, tableau=None, sink=None, control=None, tau=None, forces=(), adaptive=None,
                 rtol=1e-6, atol=1e-9, h_min=None, h_max=math.inf, t0=0.0, stabilization_gains=None,
                 lie_group=None, *, contact_tol=CONTACT_TOL, max_sweeps=MAX_SWEEPS, contact_output=False,
                 max_contacts=None, contact_margin=CONTACT_MARGIN, contact_accept=CONTACT_ACCEPT,
                 contact_regularization=CONTACT_REGULARIZATION, retry_regularization=RETRY_REGULARIZATION,
                 softest_regularization=SOFTEST_REGULARIZATION, warm_start=None):
        c = m.compiled
        if c.contact is None:
            raise ValueError("integrator 'moreau' needs collision shapes (m.add_collision); the model has none")
        if not (stabilization_gains is None or isinstance(stabilization_gains, str)
                and stabilization_gains == "default"):
            raise ValueError(f"stabilization_gains={stabilization_gains!r}: integrator 'moreau' keeps the loops "
                             f"closed at the velocity level (Gc u+ = -LOOP_RECOVERY r / h, "
                             f"simulation/contact_step.py), not by Baumgarte gains; leave it as None or 'default'")
        super().__init__(m, q0, u0, "euler", sink, control, tau, forces, adaptive=False, t0=t0)
        self._lw = CL.allocate_loop_work(self.constraint_work, c.nu)  # (None for a tree)
        self._fx = CL.allocate_flex_work(c.contact if self.flex else None, c.nu)
        margin = float(contact_margin)
        if not margin >= 0 or not math.isfinite(margin):
            raise ValueError(f"contact_margin must be finite and >= 0, got {contact_margin!r}")
        sf = (c.contact.sf_frame if self.flex else c.contact.sf).copy()  # (flex: shapes placed by their frames)
        sf[:, SF_MARGIN] += 0.5 * margin  # (a pair's margin is the sum of its two shapes')
        self._cm = (c.contact.si_frame if self.flex else c.contact.si, sf, c.contact.verts, c.contact.allow)
        tol = float(contact_tol)
        if not tol > 0 or not math.isfinite(tol):
            raise ValueError(f"contact_tol must be positive and finite, got {contact_tol!r}")
        if int(max_sweeps) != max_sweeps or max_sweeps < 1:
            raise ValueError(f"max_sweeps must be a positive integer, got {max_sweeps!r}")
        accept = float(contact_accept)
        if not accept >= tol or not math.isfinite(accept):
            raise ValueError(f"contact_accept must be finite and >= contact_tol ({tol:g}), got {contact_accept!r}")
        reg = float(contact_regularization)
        if not 0 <= reg < 1:
            raise ValueError(f"contact_regularization must be in [0, 1), got {contact_regularization!r}")
        soft = float(retry_regularization)
        if not 0 <= soft < 1:
            raise ValueError(f"retry_regularization must be in [0, 1), got {retry_regularization!r}")
        softest = float(softest_regularization)
        if not soft <= softest < 1:
            raise ValueError(f"softest_regularization must be in [retry_regularization ({soft:g}), 1), got "
                             f"{softest_regularization!r}")
        self.copt = np.array([tol, float(max_sweeps), accept, reg, soft, softest])
        self.contact_records = ContactRecords(c.contact.shape_names) if contact_output else None
        self._warm = warm_start_of(warm_start, c.contact.shape_names)  # (taken by the first setup)
        rows = int(max_contacts) if max_contacts else max(8, 4 * c.contact.n_shapes)
        self._make_rows(max(rows, 0 if self._warm is None else len(self._warm)))
        self._R = np.zeros((0, 1, CL.RECORD_COLS))
        self._NR = np.zeros(0, dtype=np.int64)
        self._warn_interpenetration()

    def _warn_interpenetration(self):
        """A ContactWarning naming the shapes and bodies that interpenetrate by more than
        PENETRATION_WARNING at the initial state (the run pushes them apart, 20 % per step at most
        ``contact_step.RECOVERY_SPEED``)."""
        c = self._c
        n = c.mi.shape[0]
        ws = link_rows(self.data.buf, data_start(self.data.buf, n), n)
        if self.flex:  # each shape's (deformed) frame in its own row
            ws = self._fx[1]
            flex_shape_placements(self.data.buf, self._q, self._fx[0], ws, self._fx[3])
        else:
            forward_kinematics_pass(c.mi, self.mf, ws, self._q)
        ci, cf = self._cw[0], self._cw[1]
        nc = detect(*self._cm, ws, self._dwork, ci, cf)
        deep = [k for k in range(max(nc, 0)) if cf[k, CF_DIST] < -PENETRATION_WARNING]
        if deep:
            names, bodies = c.contact.shape_names, c.contact.body_names
            pairs = sorted({(ci[k, CI_A], ci[k, CI_B]) for k in deep})
            text = "; ".join(f"{names[a]!r} (body {bodies[a]!r}) and {names[b]!r} (body {bodies[b]!r}) by "
                             f"{-min(cf[k, CF_DIST] for k in deep if (ci[k, CI_A], ci[k, CI_B]) == (a, b)):.3g} m"
                             for a, b in pairs[:5])
            more = f" (and {len(pairs) - 5} more pairs)" if len(pairs) > 5 else ""
            depth = -min(cf[k, CF_DIST] for k in deep)
            warnings.warn(f"the initial state interpenetrates: {text}{more}; the contacts push them apart "
                          f"(a fifth of the depth per step, at most {RECOVERY_SPEED:g} m/s: the deepest takes "
                          f"{depth / RECOVERY_SPEED:.2g} s or more)", ContactWarning, stacklevel=3)

    def _make_rows(self, maxc, keep=None):
        """Contact arrays with room for ``maxc`` contacts (``keep``: the warm start to carry)."""
        c = self._c
        self._maxc = maxc
        self._dwork = contact_work(c.contact, maxc)[0]
        self._cw, cst = CL.allocate_contact_work(c.nq, c.nu, c.mi.shape[0], maxc,
                                                 c.minv_work_shape if self.flex else None)
        if keep is None:
            self.cst = cst
        else:  # the last step's contacts: rows 0..S_NPREV of ci_prev, lam_prev
            n = int(keep[0][CL.S_NPREV])
            self._cw[2][:n] = keep[1][2][:n]
            self._cw[3][:3 * n] = keep[1][3][:3 * n]
            cst[:] = keep[0]
            self.cst = cst

    def setup(self, t_final, dt, stride=1):
        """``RungeKuttaIntegrator.setup``; the first run of an integrator made with a
        ``warm_start`` seeds its first step's warm start with it (scaled to this dt)."""
        n = super().setup(t_final, dt, stride)
        warm, self._warm = self._warm, None
        if warm is not None and len(warm):
            k = len(warm)
            self._cw[2][:k] = warm.contacts
            self._cw[3][:3 * k] = warm.impulses_for(float(self.fopt[K.F_DT])).ravel()
            self.cst[CL.S_NPREV] = k
        return n

    @property
    def contact_warm_start(self):
        """The warm start the run's next step would take (its last step's contacts and
        impulses, with that step's length: a run's last step may be shorter than dt;
        ``ContactWarmStart``), for another run of this model to start from."""
        k = int(self.cst[CL.S_NPREV])
        h = float(self.clk[K.K_STEP]) if self.clk[K.K_STEP] > 0 else float(self.fopt[K.F_DT]) or 1.0
        return ContactWarmStart(self._cw[2][:k], self._cw[3][:3 * k], h, self._c.contact.shape_names)

    @property
    def contact_residual(self):
        """The last contact solve's residual (natural map, dimensionless)."""
        return float(self.cst[CL.S_RESIDUAL])

    @property
    def worst_residual(self):
        """The largest residual of the run's contact solves."""
        return float(self.cst[CL.S_WORST])

    @property
    def short_solves(self):
        """The run's steps whose contact solve stopped above ``contact_tol`` (at most
        ``contact_accept``): they went on."""
        return int(self.cst[CL.S_SHORT])

    def integrate(self, t_final, dt, *args, **kwargs):
        """``RungeKuttaIntegrator.integrate``, then a ContactWarning if some solves stopped
        above ``contact_tol`` (how many, the worst residual and its time)."""
        try:
            return super().integrate(t_final, dt, *args, **kwargs)
        finally:
            self.warn_short_solves()

    @property
    def soft_solves(self):
        """Steps solved with a softer compliance than ``contact_regularization``
        (``retry_regularization`` or more: no solve at the run's own met contact_tol)."""
        return int(self.cst[CL.S_SOFT])

    def warn_short_solves(self):
        """Warn (once per count) about the steps solved with the softer compliance, and about
        those whose solve stopped above contact_tol."""
        k = self.soft_solves
        self._warn_once("_warned_soft", k, lambda: (
            f"{k} contact step{'s' * (k != 1)} (the first at t = {self.cst[CL.S_TSOFT]:.6g} s) had no solution "
            f"within contact_tol = {self.copt[CL.P_TOL]:g} at contact_regularization = {self.copt[CL.P_REG]:g} and "
            f"{'were' if k != 1 else 'was'} solved with each contact's compliance retry_regularization = "
            f"{self.copt[CL.P_SOFT]:g} of its W_nn or softer (up to {self.cst[CL.S_SOFTEST]:g}; "
            f"softest_regularization = {self.copt[CL.P_SOFTEST]:g})"))
        n = self.short_solves
        self._warn_once("_warned_short", n, lambda: (
            f"the contact solver stopped above contact_tol = {self.copt[CL.P_TOL]:g} on {n} step{'s' * (n != 1)} "
            f"(worst residual {self.worst_residual:.3g} at t = {self.cst[CL.S_TSHORT]:.6g} s, accepted up to "
            f"contact_accept = {self.copt[CL.P_ACCEPT]:g}); more max_sweeps or a smaller dt tighten it"))

    def _warn_once(self, attr, count, message):
        """A ContactWarning message() when count is nonzero and not the count last warned
        (kept in attribute attr): a run integrated in pieces warns once per new count."""
        if count and count != getattr(self, attr, 0):
            setattr(self, attr, count)
            warnings.warn(message(), ContactWarning, stacklevel=5)

    def loop_call(self, T, Q, U):
        c = self._c
        R, NR = self._R, self._NR
        if self.contact_records is not None:
            if R.shape[0] < len(T) or R.shape[1] != self._maxc:
                R = self._R = np.zeros((len(T), self._maxc, CL.RECORD_COLS))
                NR = self._NR = np.zeros(len(T), dtype=np.int64)
        args = (c.mi, self.mf, self.data.buf, self.fmi, self.fmf, self.tau0, self.iopt, self.fopt,
                self.max_angles, self.chart0, self._q, self._u, self.clk, self.ctr, self._ctl, T, Q, U,
                self._cm, self._dwork, self._cw, self.copt, self.cst, R, NR, self._lw)
        if self.flex:  # (wrenches and springs at frames: in the flex stage rates, flex_link_forces)
            return CL.contact_entry_point(False, self.control is not None, self.constraint_work is not None,
                                          True), args + (self._fx,)
        return CL.contact_entry_point(self._links, self.control is not None, self.constraint_work is not None), args

    def advance(self, T, Q, U):
        """Run until the buffers (T, Q, U) are full or the end; return (Status, rows). Grows
        the contact rows when a step finds more contacts than they hold."""
        self.ctr[K.C_WRITTEN] = 0
        while True:
            st = self.run_loop(*self.loop_call(T, Q, U))
            if st != CONTACT_ROWS:
                break
            written = int(self.ctr[K.C_WRITTEN])
            old_R, old_NR = self._R, self._NR
            self._make_rows(2 * int(self.cst[CL.S_NEEDED]), keep=(self.cst.copy(), self._cw))
            if self.contact_records is not None:  # the rows of this buffer recorded so far
                self._R = np.zeros((len(T), self._maxc, CL.RECORD_COLS))
                self._NR = np.zeros(len(T), dtype=np.int64)
                self._R[:written, :old_R.shape[1]] = old_R[:written]
                self._NR[:written] = old_NR[:written]
        n = int(self.ctr[K.C_WRITTEN])
        if self.contact_records is not None and n:
            self.contact_records.add(T[:n], self._NR[:n], self._R[:n])
        return Status(st), n
