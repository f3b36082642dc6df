"""Runge-Kutta and Munthe-Kaas integrators of a Multibody's state (q, u).

``RungeKuttaIntegrator(m, q0, u0, tableau, sink)`` integrates the dynamics
u_dot = M(q)^-1 (tau - b(q, u) + J^T f_ext), q_dot = N(q) u with any explicit
``ButcherTableau``; ``MuntheKaasIntegrator`` does the same in local exponential
coordinates around the configuration at the start of each step (RKMK with the
dexp^-1 correction), so quaternions stay unit by construction.

One compiled stepping loop (``simulation.kernels.entry_point``) serves every run. With a
``control(t, q, u, tau_out)`` callback it pauses at every stage of every step
(status NEED_CONTROL); the integrator calls the control and resumes the loop.
"""
import math
import time
from contextlib import nullcontext

import numpy as np

from ..algorithms.checks import check_positive, check_vector, refuse_zero_quaternions
from ..algorithms.constraints import simulation_work
from ..kernels import layout as L
from ..kernels.kinds import KINDS
from ..kernels.status import NEED_CONTROL, Status
from ..progress import compiling_notice
from . import flex_stepping, loop_check, loop_resume
from . import kernels as K
from .failures import SimulationError, failure
from .force_kernels import link_forces
from .forces import pack_force_models
from .lie import error_scale_map, to_start_charts
from .stages import normalize_quaternions
from .sinks import ExpandingStorage
from .tableaus import get_tableau

__all__ = ["RungeKuttaIntegrator", "MuntheKaasIntegrator", "SimulationError", "step", "integrate"]
_LOADED = set()  # the loop variants a run has called in this process (compiled or loaded, checked: run_loop)


class RungeKuttaIntegrator:
    """Explicit Runge-Kutta integrator of a Multibody's dynamics.

    Parameters
    ----------
    m : Multibody
        The model.
    q0, u0 : (nq,), (nu,) array_like
        Initial state (q in the model's current charts; its quaternions are normalised, a
        zero one raises ValueError naming q0 and its hinge).
    tableau : ButcherTableau or str
        The method, or its name ("rk4", "dopri5", ... see ``TABLEAUS``).
    sink : OdeResultsSink, optional
        Where the samples go (default: a new ``ExpandingStorage``).
    control : callable, optional
        ``control(t, q, u, tau_out)`` writing the joint forces tau_out (nu,) in place; called
        at every stage. tau_out holds ``tau`` when called (add to it to keep it). q (in the
        start charts), u and tau_out are arrays the integrator reuses: copy what you keep.
    tau : (nu,) array_like, optional
        Constant joint forces, added to the control's.
    forces : sequence
        Force models (``JointSpringDamper``, ``ExternalForce``, ``LinearSpringDamper``, ...).
    adaptive : bool, optional
        Step-size control with the tableau's embedded estimate (default: when the tableau
        has one).
    rtol, atol, h_min, h_max : float
        Tolerances and step bounds [s] of the adaptive steps (h_min None: 1e-14 of the span).
    t0 : float
        Initial time [s].
    stabilization_gains : None, "default", (kp, kd) or dict
        Baumgarte gains of the enabled constraints (``multibody.algorithms.constraints.
        baumgarte_gains``): None (off: the accelerations keep the constraints' acceleration
        level exactly), "default" (critically damped PD, kp = 100 1/s^2, kd = 20 1/s, as in
        Featherstone 2008 section 8.3), (kp, kd) for all, or {constraint name: (kp, kd)}.
    lie_group : bool
        Integrate in local exponential coordinates (Munthe-Kaas).

    Notes
    -----
    The integrator owns a private copy of the model arrays: rotation-vector charts are
    re-centred on that copy between steps, and ``q`` and stored samples are always
    expressed in the charts the model had when the integrator was made.

    Models with modal (flexible) bodies step through the loop's flex variant
    (``simulation.flex_stepping``; its tables and work in the run's data buffer): joint forces
    (tau, control, ``JointSpringDamper``, ``JointLimits``) and every tableau, adaptive or
    Munthe-Kaas; enabled constraints in the loop's constrained (``ta``) flex variant; link
    wrenches and springs between frames (nodes too) are compiled into every flex variant
    (``simulation.flex_link_forces``).
    """

    lie_group = False
    #: the loop's name in the "compiling" notice; whether its variants have recorded checks
    LOOP_NAME = "the simulation loop"
    CHECKED_LOOP = True

    def __init__(self, m, q0, u0, tableau="rk4", sink=None, control=None, tau=None, forces=(),
                 adaptive=None, rtol=1e-6, atol=1e-9, h_min=None, h_max=math.inf, t0=0.0,
                 stabilization_gains=None, lie_group=None):
        self.model = m
        c = m.compiled
        self._c = c
        self.tableau = get_tableau(tableau)
        if lie_group is not None:
            self.lie_group = bool(lie_group)
        q0 = check_vector(q0, c.nq, "q0", c).copy()
        refuse_zero_quaternions(c, q0, "q0")  # (normalised below; a zero one is no rotation)
        u0 = check_vector(u0, c.nu, "u0", c).copy()
        self._q = q0
        self._u = u0
        self.mf = c.mf  # the model rows the loop reads (a run's own copy with implicit damping)
        # the run's own data; q0 is read in the charts of the calling thread's data
        self.data = c.create_data()
        self.data.chart_offsets[:] = c.thread_data().chart_offsets
        self.chart0 = np.ascontiguousarray(self.data.chart_offsets).copy()
        if control is not None and not callable(control):
            raise TypeError(f"control must be callable as control(t, q, u, tau_out), got {type(control).__name__}")
        self.control = control
        self.tau0 = np.zeros(c.nu) if tau is None else check_vector(tau, c.nu, "tau", c).copy()
        self.fmi, self.fmf, world = pack_force_models(m, forces)
        self._links = link_forces(self.fmi)  # the loop variant with link-level force models
        self.constraint_work = simulation_work(m, stabilization_gains)  # with its gains (None: a tree, no TA)
        self.flex = c.flex is not None  # modal bodies: the loop's flex variant
        if adaptive is None:
            adaptive = self.tableau.is_embedded
        if adaptive and not self.tableau.is_embedded:
            raise ValueError(f"adaptive stepping needs an embedded tableau (dopri5, bs32), "
                             f"not {self.tableau.name!r}")
        self.adaptive = bool(adaptive)
        self.rtol = check_positive(rtol, "rtol", allow_zero=True)
        self.atol = check_positive(atol, "atol", allow_zero=True)
        if self.adaptive and self.rtol == 0 and self.atol == 0:
            raise ValueError("rtol and atol cannot both be zero")
        self.h_min = h_min
        self.h_max = check_positive(h_max, "h_max") if h_max != math.inf else math.inf
        self.sink = ExpandingStorage(c.nq, c.nu) if sink is None else sink
        self.tab = np.ascontiguousarray(self.tableau.packed())
        self.iopt = np.zeros(K.N_IOPT, dtype=np.int64)
        self.iopt[K.O_LIE] = int(self.lie_group)
        self.iopt[K.O_ADAPT] = int(self.adaptive)
        self.iopt[K.O_STRIDE] = 1
        self.iopt[K.O_WORLDF] = world
        self.iopt[K.O_CONTROL] = int(self.control is not None)
        self.fopt = np.zeros(K.N_FOPT)
        self.fopt[K.F_RTOL] = self.rtol
        self.fopt[K.F_ATOL] = self.atol
        self.fopt[K.F_HMAX] = self.h_max
        emb = min(self.tableau.order, self.tableau.embedded_order or self.tableau.order)
        self.fopt[K.F_EXPO] = 1.0 / (emb + 1)
        self.smap = error_scale_map(c)
        if c.flex is not None:
            flex_stepping.error_scale(c, self.smap)
        self.max_angles = np.ascontiguousarray(c.max_chart_angles, dtype=float)
        self.clk = np.zeros(K.N_CLK)
        self.clk[K.K_T] = float(t0)
        self.ctr = np.zeros(K.N_CTR, dtype=np.int64)
        self._work, self._ctl = K.allocate_work(c.nq, c.nu, self.tab.shape[1], self.lie_group)
        self._initialized = False
        if not self.lie_group and any(KINDS[k].quaternion for k in c.mi[:, L.KIND]):
            normalize_quaternions(c.mi, self._q)

    # ------------------------------------------------------------------ state
    @property
    def t(self):
        """Current time [s]."""
        return float(self.clk[K.K_T])

    @property
    def q(self):
        """Current configuration (nq,), in the charts the run started with."""
        if np.array_equal(self.data.chart_offsets, self.chart0):  # still those charts: q itself
            return self._q.copy()
        out = np.empty_like(self._q)
        to_start_charts(self._c.mi, self.data.ws, self.chart0, self._q, out)
        return out

    @property
    def u(self):
        """Current generalized speeds (nu,)."""
        return self._u.copy()

    @property
    def n_steps(self):
        """Accepted steps so far."""
        return int(self.ctr[K.C_STEP])

    @property
    def n_chart_resets(self):
        """Rotation-vector chart re-centrings so far."""
        return int(self.ctr[K.C_CHARTS])

    @property
    def n_rejected(self):
        """Rejected (adaptive) steps so far."""
        return int(self.ctr[K.C_REJECT])

    def _initialize_sink(self):
        if not self._initialized:
            self.sink.initialize(self.t, self.q, self.u)
            self._initialized = True

    # ------------------------------------------------------------------ running
    def setup(self, t_final, dt, stride=1):
        """Prepare a run from the current time to ``t_final`` [s] with output interval ``dt``
        (fixed step: the step) storing every ``stride``-th step; return the number of
        output rows the run will write after the initial one."""
        t0 = self.t
        span = t_final - t0
        if not span > 0:
            raise ValueError(f"t_final ({t_final!r}) must be after the current time ({t0!r})")
        self.fopt[K.F_T0] = t0
        self.fopt[K.F_DT] = dt
        self.fopt[K.F_TEND] = t_final
        n = int(math.ceil(span / dt - 1e-9))
        self.iopt[K.O_NSTEPS] = n
        self.iopt[K.O_NOUT] = n
        self.iopt[K.O_STRIDE] = max(int(stride), 1)
        hmin = self.h_min if self.h_min is not None else 1e-14 * max(1.0, abs(t_final))
        self.fopt[K.F_HMIN] = hmin
        if self.adaptive and not self.clk[K.K_H] > 0:
            self.clk[K.K_H] = min(dt, 1e-3, self.h_max)
        self.ctr[K.C_STEP] = 0
        self.ctr[K.C_OUT] = 0
        self.ctr[K.C_STATUS] = Status.RUNNING
        self.ctr[K.C_STAGE] = -1  # a run starts with a new step
        n_out = n if self.adaptive else n // self.iopt[K.O_STRIDE] + (1 if n % self.iopt[K.O_STRIDE] else 0)
        return n_out

    def loop_call(self, T, Q, U):
        """(the stepping loop's variant for this run, its arguments) to run into the output
        buffers (T, Q, U)."""
        c = self._c
        args = (c.mi, self.mf, self.data.buf, self.tab, self.fmi, self.fmf, self.tau0, self.iopt, self.fopt,
                self.smap, self.max_angles, self.chart0, self._q, self._u, self.clk, self.ctr,
                self._work, self._ctl, T, Q, U) + (() if self.constraint_work is None else (self.constraint_work,))
        if not self.flex:
            run = K.entry_point(self.lie_group, self.constraint_work is not None, self._links, self.adaptive,
                                self.control is not None, pins=c.all_pins)
        else:  # modal bodies: the loop's flex variant (joint force models only)
            run = K.entry_point(self.lie_group, self.constraint_work is not None, False, self.adaptive,
                                self.control is not None, flex=True)
        return run, args

    def advance(self, T, Q, U):
        """Run until the buffers (T, Q, U) are full or the end; return (Status, rows)."""
        self.ctr[K.C_WRITTEN] = 0
        st = self.run_loop(*self.loop_call(T, Q, U))
        return Status(st), int(self.ctr[K.C_WRITTEN])

    def run_loop(self, run, args):
        """Run the loop variant ``run`` on ``args`` (``loop_call``'s) until it stops, calling the
        control where it asks; returns its status. A variant's first run compiles (or loads) it
        under a ``LOOP_NAME`` notice, checked on its recorded run if ``CHECKED_LOOP`` (loop_check)."""
        first = run not in _LOADED and not run.signatures  # (signatures: ~45 us, more under load)
        _LOADED.add(run)
        if first and self.CHECKED_LOOP:
            with compiling_notice(self.LOOP_NAME):
                loop_check.verify(run, args)  # (compiles or loads it, then runs its recorded check)
        with compiling_notice(self.LOOP_NAME) if first and not self.CHECKED_LOOP else nullcontext():
            st = run(*args)
        clk, (tau_out, q, u) = self.clk, self._ctl
        resume = loop_resume.loop_resume(run, args) if st == NEED_CONTROL else run
        while st == NEED_CONTROL:
            r = self.control(clk[K.K_TSTAGE], q, u, tau_out)
            if r is not None and r is not tau_out:
                raise TypeError(f"control returned a {type(r).__name__} at t = {clk[K.K_TSTAGE]:.6g} s; "
                                f"the returned value would be ignored: write the joint forces into "
                                f"its 4th argument in place (tau_out[:] = ...) and return None")
            st = resume(*args)
        return st

    def step(self, t, dt):
        """Take one step of size dt [s] from time t (fixed step; no error control) and
        pass the new state to the sink. Returns the new time."""
        dt = check_positive(dt, "dt")
        self._initialize_sink()
        self.clk[K.K_T] = float(t)
        adaptive = self.iopt[K.O_ADAPT]
        self.iopt[K.O_ADAPT] = 0
        try:
            self.setup(float(t) + dt, dt)
            T, Q, U = np.empty(1), np.empty((1, self._c.nq)), np.empty((1, self._c.nu))
            st, n = self.advance(T, Q, U)
        finally:
            self.iopt[K.O_ADAPT] = adaptive
        if st not in (Status.FINISHED, Status.BUFFER_FULL):
            raise failure(self, st)
        self.sink.process_block(T[:n], Q[:n], U[:n])
        return self.t

    def project_onto_constraints(self, solver):
        """Move the current state onto the constraint manifold: q by ``solver.solve_q`` and u by
        ``solver.solve_u`` (a ``ConstraintKinematicsSolver`` of the model), in the charts the run
        started with (the run's charts are reset to those)."""
        q = solver.solve_q(self.q)
        self.set_state(self.t, q, solver.solve_u(q, self._u))

    def set_state(self, t, q, u):
        """Go on from time ``t`` [s] with q (nq,) in the charts the run started with (the run's
        charts are reset to those) and u (nu,); a step in progress is dropped."""
        self.data.chart_offsets[:] = self.chart0
        self._q[:] = q
        self._u[:] = u
        self.clk[K.K_T] = t
        self.ctr[K.C_STAGE] = -1

    def integrate(self, t_final, dt, max_realtime_rate=math.inf, save_every=1, block=None, progress=None,
                  after_block=None, block_seconds=None):
        """Integrate from the current time to ``t_final`` [s], handing samples to the sink.

        dt : fixed step size [s], or the output interval when the integrator is adaptive.
        max_realtime_rate : at most this many simulated seconds per wall-clock second
            (sleeps between blocks of steps); inf: as fast as possible.
        save_every : fixed step: pass every n-th step to the sink.
        block : samples per compiled call (default: all at once when unthrottled).
        progress : optional ``progress(t, t_final)`` called between blocks.
        after_block : optional ``after_block(integrator)`` called between blocks (it may change
            the state, e.g. ``project_onto_constraints``).
        block_seconds : optional wall time [s] a block should take at most: blocks start at
            64 samples (at most ``block``) and are halved when one takes longer, doubled
            (up to ``block``) when one takes under a quarter of it.

        Raises ``SimulationError`` on failure (the sink keeps what was computed). Any
        exception in a block (a control's, KeyboardInterrupt) first hands the samples the
        block completed to the sink, then propagates.
        """
        dt = check_positive(dt, "dt")
        t_final = float(t_final)
        if not math.isfinite(t_final):
            raise ValueError(f"t_final must be finite, got {t_final!r}")
        rate = float(max_realtime_rate)
        if not rate > 0:
            raise ValueError(f"max_realtime_rate must be positive, got {max_realtime_rate!r}")
        self._initialize_sink()
        n_out = self.setup(t_final, dt, save_every)
        c = self._c
        if block is None:
            block = n_out if (rate == math.inf and progress is None) else 64
        block = max(1, min(int(block), n_out))
        size = block if block_seconds is None else min(block, 64)
        T, Q, U = np.empty(block), np.empty((block, c.nq)), np.empty((block, c.nu))
        wall0, sim0 = time.perf_counter(), self.t
        while True:
            start = time.perf_counter()
            st, n = self._block(T[:size], Q[:size], U[:size])
            if st is Status.FINISHED:
                return self.t
            if st is not Status.BUFFER_FULL:
                raise failure(self, st)
            if block_seconds is not None:
                size = _next_size(size, block, time.perf_counter() - start, block_seconds)
            if progress is not None:
                progress(self.t, t_final)
            if after_block is not None:
                after_block(self)
            if rate != math.inf:
                ahead = (self.t - sim0) / rate - (time.perf_counter() - wall0)
                if ahead > 0:
                    time.sleep(ahead)

    def _block(self, T, Q, U):
        """One block: run into the buffers and hand the rows written to the sink, also when
        the block ends in an exception. Returns (Status, rows)."""
        try:
            st, n = self.advance(T, Q, U)
        except BaseException:
            n = int(self.ctr[K.C_WRITTEN])
            self.sink.process_block(T[:n], Q[:n], U[:n])
            raise
        self.sink.process_block(T[:n], Q[:n], U[:n])
        return st, n


def _next_size(size, most, took, target):
    """The next block's size after one of ``size`` samples took ``took`` s (``target``: the most)."""
    if took > target:
        return max(1, size // 2)
    if took < target / 4:
        return min(most, 2 * size)
    return size


class MuntheKaasIntegrator(RungeKuttaIntegrator):
    """Lie-group (Runge-Kutta-Munthe-Kaas) integrator: each step works in local exponential
    coordinates phi around the configuration q0 at its start, q = q0 (+) phi, with the
    stage rates phi_dot = dexp^-1_{-phi}(u). Takes any ``ButcherTableau`` (default RK4).
    Quaternion spherical and free joints stay on the unit sphere without renormalisation."""

    lie_group = True


def step(integrator, t, dt):
    """Take one integration step of size dt from time t; see ``RungeKuttaIntegrator.step``."""
    return integrator.step(t, dt)


def integrate(integrator, t_final, dt, max_realtime_rate=math.inf):
    """Integrate to t_final with step (or output interval) dt; see ``RungeKuttaIntegrator.integrate``."""
    return integrator.integrate(t_final, dt, max_realtime_rate=max_realtime_rate)
