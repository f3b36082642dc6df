"""``rollout``: simulate many initial states at once, compiled and parallel across cores."""
import numba
import numpy as np

from ..algorithms.checks import check_positive, refuse_zero_quaternions
from ..algorithms.entry import real_array, stacked
from ..kernels.status import FINISHED, Status
from ..progress import ProgressBar
from . import kernels as K
from . import rollout_kernels as R
from .failures import first_blown_row
from .forces import limit_model
from .contact_rollout import contact_rollout, refuse_contact_options
from .integrators import RungeKuttaIntegrator
from .integrator_choice import choose
from .moreau import MoreauIntegrator, contact_integrator, contact_settings
from .run_inputs import RunInputs
from .events import EVENT_TOL, check_events
from .sample_runs import SampleFailure, own_runs
from .stages import normalize_quaternions

__all__ = ["rollout", "RolloutResult"]


class RolloutResult:
    """Trajectories of a rollout.

    ``t`` (N,) [s]; ``q`` (B, N, nq) in the charts the model had when the rollout started;
    ``u`` (B, N, nu); ``status`` (B,) ``Status`` codes (FINISHED, or why the sample
    stopped: SINGULAR, NONFINITE_STATE, MIN_STEP; BLOW_UP: it reached the end with a finite
    but huge state, speeds over ``failures.BLOW_UP_SPEED`` or coordinates over
    ``BLOW_UP_COORDINATE``, as ``simulate`` refuses to call finished); ``t_failure`` (B,) the
    time a failed sample stopped, or a blown-up one's first stored sample past the bounds
    (NaN for finished ones). Rows of a failed sample after its failure are NaN (a blown-up
    sample keeps its rows). ``failed`` lists the indices of failed samples. ``clamped``: {hinge: (times,
    largest |tau|)} of the joint forces clamped to an effort limit (empty when none was).
    ``events`` (B,): each sample's ``EventRecord`` tuple (empty without ``events``); ``stopped``
    the samples a terminal event ended.
    """

    def __init__(self, t, q, u, status, t_failure, events=None):
        self.t, self.q, self.u, self.status, self.t_failure = t, q, u, status, t_failure
        self.events = events if events is not None else tuple(() for _ in range(q.shape[0]))
        self.clamped = {}

    @property
    def failed(self):
        """Indices of the samples that did not finish."""
        return np.flatnonzero(self.status != FINISHED)

    @property
    def stopped(self):
        """Indices of the samples a terminal event (or an action returning "stop") ended
        before ``t_final``."""
        return np.array([b for b, records in enumerate(self.events) if records and records[-1].stop],
                        dtype=np.int64)

    def __repr__(self):
        B, N = self.q.shape[:2]
        return f"RolloutResult(samples={B}, rows={N}, failed={self.failed.size})"


def _stacked(x, shape, name):
    """``stacked`` (shape, coercion, a writeable copy of a read-only array) with finite values."""
    x = stacked(x, shape, name)
    if not np.all(np.isfinite(x)):
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(x))[0])
        raise ValueError(f"{name}[{', '.join(map(str, idx))}] is not finite ({x[idx]})")
    return x


def rollout(m, Q0, U0, t_final, dt=1e-3, integrator=None, tau=None, control=None, forces=(),
            save_every=1, lie_group=False, limits=True, progress=True, control_period=None, joint_dynamics=True,
            efforts=True, ctrl=None, implicit_damping="auto", contact=True, integrator_options=None,
            contact_options=None, stabilization_gains="default", rtol=1e-8, atol=1e-10, events=(),
            event_tol=EVENT_TOL):
    """Simulate B initial states from t = 0 to ``t_final`` across cores.

    Q0 (B, nq), U0 (B, nu): initial states (charts of the calling thread's default Data;
    quaternions normalised as in ``simulate``, a zero one raises ValueError naming the sample).
    ``dt`` [s] fixed step of the Runge-Kutta ``integrator`` (a tableau name or
    ButcherTableau; "munthe_kaas" or ``lie_group=True`` for the Lie-group stepper);
    ``tau``: None, (B, nu) constant generalized forces per sample, or (B, N, nu) open-loop
    inputs held over each output interval (N = number of output intervals); ``forces``:
    force models as in ``simulate``; ``limits``: the hinges' position limits as in
    ``simulate`` (on by default); ``joint_dynamics``, ``efforts``: the hinges' damping,
    springs and friction, and their effort limits clamping ``tau`` and the control's forces,
    as in ``simulate`` (on by default), ``implicit_damping`` as there; ``ctrl``: the
    controls (n_actuators,) of the model's actuators, the same for every sample (zeros by
    default); ``save_every``: store every k-th step. Each sample runs through the same
    compiled loop as ``simulate`` (so a sample's trajectory equals its own ``simulate`` run),
    on Numba's threads (``numba.get_num_threads()``), each with its own
    data and work arrays; a sample that fails stops alone (see ``RolloutResult``). A model
    with enabled constraints (loops, constant-velocity, coordinate) steps with its
    tree-augmented dynamics, as in ``simulate``, with ``stabilization_gains`` as there.

    ``control(t, Q, U, TAU_out)``: an optional Python callback called once per Runge-Kutta
    stage for all samples at once: Q (B, nq) (start charts), U (B, nu) and TAU_out (B, nu)
    (filled with ``tau``) are stacked; write the generalized forces into TAU_out in place.
    Rows of samples that have stopped are included and ignored; a non-finite row stops its
    sample (status CONTROL_NONFINITE). Every sample then pauses at every stage, so its step
    state stays with it (memory grows with B). ``progress``: a bar on stderr for rollouts
    longer than a second (the run then goes in blocks of rows; the results are the same).
    ``control_period`` [s]: sampled control as in ``simulate``: ``control`` is called only at
    t = 0, T, 2T, ... (< t_final) with the samples' states there and TAU_out is held until the
    next sample (a multiple of the output interval dt * save_every; not with a (B, N, nu) tau).
    ``contact``, ``integrator=None``: as in ``simulate`` (a model with collision shapes steps
    with "moreau": its samples then run across cores in one compiled call, ``contact_rollout``,
    each sample its own run on worker threads on a model with enabled constraints or modal
    bodies; no control callback or (B, N, nu) tau there yet); contact=False ignores the
    shapes; ``contact_options`` as in ``simulate``. ``integrator="generalized_alpha"`` or
    ``"radau"`` (with ``integrator_options`` as in ``simulate``; radau adaptive by default, to
    ``rtol`` and ``atol`` as there, its output every ``dt``): each sample through its own
    implicit run, with the model's enabled constraints and ``stabilization_gains`` as in
    ``simulate`` (no control callback, no (B, N, nu) tau); these runs go on worker threads at
    once (``numba.get_num_threads()`` of them, ``sample_runs``), each sample equal to its own
    ``simulate`` run. A sample whose run raises other than by failing (``SimulationError``:
    its status says why) raises ``sample_runs.SampleFailure`` naming it once every sample
    has run, the ``RolloutResult`` of all samples as its ``result``; KeyboardInterrupt stops
    every sample's run at its next block of rows before it propagates.

    ``events`` (``Event``), ``event_tol``: as in ``simulate``, watched in every sample's run:
    each sample then runs its own integrator (any of the above) on worker threads as the
    implicit runs do, g and the actions called from those threads. The rows stay on the
    output grid (a run goes back to it after an event, as ``simulate``'s does, so a sample's
    rows are its ``simulate`` run's samples at those times); the states at an event are in
    ``RolloutResult.events[b]``. A terminal event ends its sample there (FINISHED, later rows
    NaN, ``stopped`` lists it). An action may change the state only: the samples share the
    model, so one that enables or disables a constraint raises (``SampleFailure``). No
    control callback or (B, N, nu) tau with events.
    """
    c = m.compiled
    events = check_events(events)
    event_tol = check_positive(event_tol, "event_tol")
    integrator = contact_integrator(m, integrator, contact)
    Q0, U0 = _initial_states(c, Q0, U0, t_final, dt)
    B = Q0.shape[0]
    moreau = integrator == "moreau"
    choice = choose(integrator, None, integrator_options, implicit_damping, dt)
    implicit_run = choice.implicit  # (generalized_alpha or radau: each sample its own run)
    settings, implicit_damping = choice.settings, choice.implicit_damping
    if moreau or contact_options is not None:
        settings = contact_settings(contact_options, moreau)
    if integrator == "munthe_kaas":
        integrator, lie_group = "rk4", True
    # one integrator as the template of every sample's options and packed force models
    lim = limit_model(m, limits, choice.step if implicit_run else dt)
    inputs = RunInputs(m, control, tuple(forces or ()) + (() if lim is None else (lim,)), ctrl=ctrl,
                       joint_dynamics=joint_dynamics, efforts=efforts, dt=None if implicit_run else dt,
                       ctrl_function_ok=False, implicit_damping=implicit_damping)
    control = inputs.control
    tpl = RungeKuttaIntegrator(m, Q0[0], U0[0], tableau="euler" if moreau or implicit_run else integrator,
                               adaptive=False, lie_group=lie_group, forces=inputs.forces,
                               stabilization_gains=None if moreau or implicit_run else stabilization_gains)
    inputs.attach(tpl)
    n_rows = tpl.setup(t_final, dt, save_every)
    lie = int(tpl.lie_group)
    tau, segmented = _joint_forces(c, tau, B, n_rows, inputs)
    if control is not None and not callable(control):
        raise TypeError(f"control must be callable as control(t, Q, U, TAU_out), got {type(control).__name__}")
    if moreau or implicit_run:
        refuse_contact_options(control, segmented, lie_group, "with contact" if moreau else f"under {choice.name}")
    elif events:
        refuse_contact_options(control, segmented, False, "with events")
    if moreau or implicit_run or events:
        cls, options = MoreauIntegrator, settings
        if implicit_run:
            cls = choice.cls
            options = dict(settings, stabilization_gains=stabilization_gains, **(
                dict(rtol=rtol, atol=atol) if choice.name == "radau" else {}))
        elif not moreau:  # (an explicit method with events: each sample its own fixed-step run)
            cls, options = RungeKuttaIntegrator, dict(tableau=integrator, adaptive=False, lie_group=lie_group,
                                                      stabilization_gains=stabilization_gains)
        try:
            if events:
                out = own_runs(m, (Q0, U0, tau), (t_final, dt, int(save_every)), inputs, (cls, options),
                               numba.get_num_threads(), (events, event_tol))
            else:
                out = contact_rollout(m, Q0, U0, t_final, dt, tau, int(save_every), inputs, cls, options)
            result = RolloutResult(*out)
        except SampleFailure as e:  # (a sample's run raised: every sample's rows ride on the error)
            e.result = RolloutResult(*e.result)
            e.result.clamped = inputs.report()
            raise
        result.clamped = inputs.report()
        return result
    return _explicit_rollout(c, tpl, inputs, (Q0, U0, tau, segmented), control, control_period, (t_final, dt),
                             save_every, n_rows, lie, progress)


def _joint_forces(c, tau, B, n_rows, inputs):
    """(tau (B, nu) or (B, n_rows, nu), whether it is per output interval): ``rollout``'s tau
    checked (ValueError naming it) and clamped to the effort limits where ``inputs`` clamp."""
    if tau is None:
        tau = np.zeros((B, c.nu))
    tau = real_array(tau, "tau")
    segmented = tau.ndim == 3
    tau = _stacked(tau, (B, n_rows, c.nu) if segmented else (B, c.nu), "tau")
    if inputs.clamp is not None:
        tau = inputs.clamp.clamp(np.array(tau))  # (attach clamped only the template's own tau0)
    return tau, segmented


def _initial_states(c, Q0, U0, t_final, dt):
    """(Q0 (B, nq), U0 (B, nu)) checked as ``rollout`` takes them, with t_final and dt;
    ValueError naming the argument."""
    Q0 = np.atleast_2d(real_array(Q0, "Q0"))
    B = Q0.shape[0]
    Q0 = _stacked(Q0, (B, c.nq), "Q0")
    refuse_zero_quaternions(c, Q0, "Q0")  # (normalised later; a zero one is no rotation)
    U0 = _stacked(U0, (B, c.nu), "U0")
    if not (np.isfinite(t_final) and t_final > 0):
        raise ValueError(f"t_final must be a positive time, got {t_final!r}")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive step, got {dt!r}")
    return Q0, U0


def _explicit_rollout(c, tpl, inputs, states, control, control_period, times, save_every, n_rows, lie, progress):
    """``rollout`` with an explicit method: every sample through the compiled loop across
    cores (``rollout_kernels.rollout_entry``: the loop's variant of the model), from the
    template integrator ``tpl``;
    ``states`` (Q0, U0, tau, whether tau is (B, N, nu)), ``times`` (t_final, dt)."""
    Q0, U0, tau, segmented = states
    t_final, dt = times
    B = Q0.shape[0]
    rows_per_sample = _rows_per_sample(control_period, control, dt * save_every, segmented)
    sampled = control if rows_per_sample else None
    if rows_per_sample:  # sampled: the loop takes the held forces as its tau, no pause per stage
        control = None
    tpl.iopt[K.O_CONTROL] = int(control is not None)
    W = max(1, min(numba.get_num_threads(), B))
    dbufs = np.repeat(tpl.data.buf[None], W, axis=0)
    work, ctl = K.allocate_work(c.nq, c.nu, tpl.tab.shape[1], lie)
    rows = B if control is not None else W  # work arrays per sample (paused steps) or per worker
    WORK = tuple(np.repeat(a[None], rows, axis=0) for a in work)
    CTL = tuple(np.repeat(a[None], rows, axis=0) for a in ctl)
    Q, U = Q0.copy(), U0.copy()
    if not lie:
        for b in range(B):
            normalize_quaternions(c.mi, Q[b])
    CLK = np.zeros((B, K.N_CLK))
    CTR = np.zeros((B, K.N_CTR), dtype=np.int64)
    CTR[:, K.C_STAGE] = -1
    CTR[:, K.C_STATUS] = Status.RUNNING
    CHARTS = np.repeat(tpl.chart0[None], B, axis=0)
    T = np.full((B, n_rows + 1), np.nan)
    QO = np.full((B, n_rows + 1, c.nq), np.nan)
    UO = np.full((B, n_rows + 1, c.nu), np.nan)
    T[:, 0], QO[:, 0], UO[:, 0] = 0.0, Q0, U0
    wc = tpl.constraint_work  # the run's constraint work array (None for a tree): one copy per worker
    run = R.rollout_entry(lie, wc is not None, tpl.flex)
    WCS = np.zeros((W, 1, 1)) if wc is None else np.repeat(wc[None], W, axis=0)
    args = (c.mi, tpl.mf, dbufs, tpl.tab, tpl.fmi, tpl.fmf)
    opts = (tpl.iopt, tpl.fopt, tpl.smap, tpl.max_angles, tpl.chart0, Q, U, CLK, CTR, CHARTS, WORK, CTL)
    if segmented:
        blocks = [(np.ascontiguousarray(tau[:, k]), k, 1) for k in range(n_rows)]
    elif rows_per_sample:  # one block per sample; its forces from the control at the block's start
        blocks = [(None, r, min(rows_per_sample, n_rows - r)) for r in range(0, n_rows, rows_per_sample)]
    else:  # 50 blocks of rows when a bar may show (the loop resumes where a block ended)
        size = max(1, -(-n_rows // 50)) if progress else n_rows
        blocks = [(tau, r, min(size, n_rows - r)) for r in range(0, n_rows, size)]
    bar = ProgressBar(after=1.0) if progress else None
    loops = {}  # the loop's pointer by tau's type (a block's forces may come as another array type)
    for tau_k, row0, nrows in blocks:
        if tau_k is None:
            tau_k = _held(sampled, (row0 // rows_per_sample) * float(control_period), QO[:, row0], UO[:, row0], tau)
        CTR[:, K.C_WRITTEN] = 0
        block = (*args, tau_k, *opts, T[:, 1:], QO[:, 1:], UO[:, 1:], row0, nrows, WCS)
        key = numba.typeof(tau_k)
        if key not in loops:
            loops[key] = R.loop_pointer(lie, wc is not None, tpl.flex, *block[:16], *block[17:])  # (CHARTS aside)
        run(loops[key], *block)
        while control is not None and np.any(CTR[:, K.C_STATUS] == Status.NEED_CONTROL):
            waiting = int(np.argmax(CTR[:, K.C_STATUS] == Status.NEED_CONTROL))
            control(float(CLK[waiting, K.K_TSTAGE]), CTL[1], CTL[2], CTL[0])
            run(loops[key], *block)
        if bar is not None:
            bar.update((row0 + nrows) / n_rows, f"{row0 + nrows}/{n_rows} rows of {B} samples")
    if bar is not None:
        bar.close()
    status = CTR[:, K.C_STATUS].copy()
    status[status == Status.BUFFER_FULL] = FINISHED  # a segmented run ends on its last full row
    return _rollout_result(status, CLK, T, QO, UO, n_rows, dt * save_every, t_final, inputs)


def _rollout_result(status, CLK, T, QO, UO, n_rows, interval, t_final, inputs):
    """The ``RolloutResult`` of a finished compiled rollout (a finished sample with a huge
    state is BLOW_UP at its first such row)."""
    t_failure = np.where(status == FINISHED, np.nan, CLK[:, K.K_TBAD])
    done = np.flatnonzero(status == FINISHED)
    # the output times, as the loop wrote them (every sample's are the same grid)
    t = T[done[0]] if done.size else np.minimum(np.arange(n_rows + 1) * interval, t_final)
    blown = first_blown_row(QO[done], UO[done])  # finished, but not to be believed
    status[done[blown >= 0]] = Status.BLOW_UP
    t_failure[done[blown >= 0]] = t[blown[blown >= 0]]
    result = RolloutResult(t, QO, UO, status, t_failure)
    result.clamped = inputs.report()
    return result


def _rows_per_sample(control_period, control, interval, segmented):
    """Output rows per control sample of ``control_period`` (None: the control, if any, is
    called at every stage)."""
    if control_period is None:
        return None
    period = check_positive(control_period, "control_period")
    if control is None:
        raise ValueError("control_period needs a control (control=)")
    if segmented:
        raise ValueError("give tau (B, N, nu) open-loop inputs or control_period, not both")
    k = max(1, int(round(period / interval)))
    if abs(k * interval - period) > 1e-9 * period:
        raise ValueError(f"control_period ({period} s) must be a multiple of the output interval dt * save_every "
                         f"({interval} s) in rollout")
    return k


def _held(control, t, Q, U, tau):
    """The joint forces (B, nu) the sampled ``control`` writes at its sample t from the states
    Q, U (start charts; NaN rows for samples that stopped), ``tau`` when called."""
    out = tau.copy()
    control(float(t), Q.copy(), U.copy(), out)
    running = np.all(np.isfinite(Q), axis=1)
    bad = np.argwhere(~np.isfinite(out[running]))
    if bad.size:
        b, i = np.flatnonzero(running)[bad[0, 0]], bad[0, 1]
        raise ValueError(f"control_period: the control wrote a non-finite TAU_out[{b}, {i}] at the sample "
                         f"t = {t:.6g} s")
    return out
