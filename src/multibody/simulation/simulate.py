"""``simulate``: integrate a Multibody from an initial state, the one-call entry point."""
import math
import time

from ..algorithms.checks import check_positive
from ..results import ResultWriter, SimulationResult, check_output_path, coordinate_labels
from ..result_writer import BLOCK_SAMPLES, BLOCK_SECONDS
from ..progress import ProgressBar
from .forces import limit_model, warn_outside_limits
from .run_inputs import RunInputs
from .integrator_choice import INTEGRATORS, choose
from .moreau import contact_integrator, contact_settings
from .run_outcome import attach_result, close_output, outcome
from .run_signals import RunSignals
from .segments import SegmentedRun
from .sinks import ExpandingStorage, GuardedOutputs, RingBufferStorage

__all__ = ["simulate", "SimulationResult", "INTEGRATORS", "ModelView"]

class ModelView:
    """Base of the views of a Multibody that integrate their own coordinates (the sub-trees
    and sub-graphs of ``multibody.views``, a layer above): ``simulate(view, ...)`` is
    ``view.simulate(...)``, which a view defines with ``simulate``'s arguments."""

    def simulate(self, q0, u0, t_final, dt=1e-3, **options):
        """Integrate the view's coordinates (see the subclass)."""
        raise NotImplementedError


def _simulated_time(bar):
    """The integrator's ``progress(t, t_final)`` drawing simulated time on ``bar``."""
    return lambda t, t_final: bar.update(t / t_final, f"{100 * t / t_final:5.1f}%  t = {t:.4g} s")


def simulate(m, q0, u0, t_final, dt=1e-3, integrator=None, control=None, *, contact=True, contact_output=False,
             contact_options=None,
             rtol=1e-8, atol=1e-10, tableau=None, tau=None, forces=(), stabilization_gains="default",
             project_every=None, save_every=1, h_min=None, h_max=math.inf, output=None, progress=False, output_every=None,
             keep_in_memory=True, limits=True, control_period=None, events=(), event_tol=1e-12,
             joint_dynamics=True, efforts=True, ctrl=None, implicit_damping="auto", integrator_options=None):
    """Integrate the dynamics of ``m`` from (q0, u0) at t = 0 to ``t_final``.

    Parameters
    ----------
    m : Multibody or ModelView
        The model, or a sub-tree or sub-graph (a ``ModelView``: its own ``simulate`` runs,
        integrating its own coordinates).
    q0, u0 : (nq,), (nu,) array_like
        Initial configuration and generalized speeds (read-only arrays are fine; q0's
        quaternions are normalised, a zero one raises ValueError naming q0 and its hinge).
    t_final : float
        End time [s] (> 0).
    dt : float
        Step size [s]; for the adaptive integrators ("dopri5", "bs32", "radau") the output
        interval.
    integrator : None, str or ButcherTableau
        None (default): "moreau" where contacts are on, else "rk4"; "moreau" (Moreau-Jean
        time stepping with hard frictional contact, fixed steps: ``simulation.moreau``),
        "euler", "midpoint", "heun", "rk4", "rk38" ("3/8"), "bs32", "dopri5", "munthe_kaas"
        (Lie-group RK, RK4 tableau unless ``tableau=``), "generalized_alpha" (implicit,
        order 2, fixed steps, its control called once per step; rigid trees and loops,
        modal bodies without constraints: ``simulation.galpha``), "radau" (Radau IIA, implicit, order 5, adaptive, its control
        called once per step; rigid trees and modal bodies: ``simulation.radau``), or a
        tableau. Any but "moreau" with contacts on is refused.
    integrator_options : dict, optional
        generalized_alpha's rho_inf, newton_rtol, newton_atol, max_iterations; radau's
        adaptive, max_iterations, newton_tol, jacobian_rate (their classes).
    control : callable, optional
        ``control(t, q, u, tau_out)`` writing the joint forces tau_out (nu,) in place (it
        holds ``tau`` when called); called at every Runge-Kutta stage (the compiled loop
        pauses for it), unless ``control_period`` is given. With ``events``, also at the
        stages of the trial steps that locate an event: let it depend on (t, q, u) only.
    contact : bool
        True (default): a model with collision shapes (``m.compiled.contact``) touches:
        its shapes' contacts with Coulomb friction act (integrator "moreau"); False: they
        are ignored. The control is called once per step (at its start) with "moreau".
    contact_output : bool
        Keep the contacts of every stored sample in ``result.contacts`` (a
        ``simulation.moreau.ContactRecords``: shape pairs, world points, normals, forces).
    contact_options : dict, optional
        The contact step's settings (``simulation.moreau.MoreauIntegrator``): ``contact_tol``
        (1e-9), ``contact_accept`` (1e-5), ``max_sweeps`` (2000), ``max_contacts``,
        ``contact_margin`` [m] (1e-3), ``contact_regularization`` (1e-6),
        ``retry_regularization`` (1e-4), ``softest_regularization`` (0.1), ``warm_start`` (a contact run's result or its
        ``result.contact_warm_start``: the first step's contact solve starts from the impulses
        of that run's last step, so a run continued in pieces is one run;
        ``simulation.contact_warm_start``).
    rtol, atol : float
        Tolerances of the adaptive integrators (radau: rtol > 0).
    tableau : str or ButcherTableau, optional
        The tableau of "munthe_kaas".
    tau : (nu,) array_like, optional
        Constant joint forces.
    forces : sequence
        Force models (``JointSpringDamper``, ``ExternalForce``, ``LinearSpringDamper``, ...).
    stabilization_gains : "default", None, (kp, kd) or dict
        Baumgarte gains of the model's enabled constraints (loops, convel, coordinate
        constraints; their forward dynamics is tree-augmented): "default" (critically damped
        PD, kp = 100 1/s^2, kd = 20 1/s, Featherstone 2008 section 8.3), None (off), (kp, kd)
        for all, or {constraint name: (kp, kd)}. Ignored by trees.
    project_every : int, optional
        With constraints, every this many stored samples the state is moved back onto the
        constraint manifold by the constraint kinematics solver (q by ``solve_q``, u by
        ``solve_u``; default None: never).
    save_every : int
        Fixed step: keep every n-th step (the last step is always kept).
    h_min, h_max : float, optional
        Adaptive step bounds [s].
    output : str or path, optional
        A .npz or .csv file the samples are streamed to while the run goes on; checked
        before the run (a missing or read-only folder, an unknown suffix, or another run
        writing that file: ``ValueError`` at once). Columns are named after the hinges with
        units (``shoulder_pan_joint [rad]``); ``load_result`` reads the file back. Durable:
        the samples go to ``<output>.partial`` in blocks of at most 8192 samples and about
        1 s of wall time (``result_writer.BLOCK_SAMPLES``, ``BLOCK_SECONDS``; with
        ``project_every``, of that many samples), each written when computed and fsync'ed
        at least every second; the file is made from it atomically however the run ends
        (finished, failed, SIGINT, SIGTERM; if writing fails, the error says where the
        samples written are). After a SIGKILL or a power loss ``load_result(output)``
        recovers the samples up to the last block written (fsync'ed). ``<output>.lock``
        keeps a second writer out while the run goes on.
    progress : bool
        Show a progress bar on stderr for runs longer than a second.
    output_every : float, optional
        Keep a sample every ``output_every`` seconds (a multiple of dt for the fixed-step
        integrators; the output interval of the adaptive ones, instead of dt); None: every
        step (fixed) or every dt (adaptive). Long runs stay small.
    keep_in_memory : bool
        False (needs ``output=``): the returned result holds only the last sample and
        memory stays bounded however long the run; read the samples back with
        ``load_result(output)``.
    limits : bool or JointLimits
        True (default): enforce the hinges' position limits (``Hinge.lower`` / ``upper``,
        e.g. from URDF) by a ``JointLimits`` force model (stiff one-sided spring-dampers, at
        most 0.1 / dt Hz for the fixed-step integrators; see ``simulation.forces.JointLimits``
        for the equations and the penetration); a ``JointLimits`` for other settings; False:
        not enforced, and a ``JointLimitWarning`` names the hinge, time and value if a kept
        sample leaves them.
    control_period : float, optional
        Sampled control [s]: ``control`` is called only at t = 0, T, 2T, ... (k T < t_final;
        none at t_final, whose forces would act on nothing: a 1 s run at T = 0.01 s calls it
        100 times, the first at t = 0) with the state at the sample, and its joint forces are
        held until the next sample (zero-order hold), whatever the integrator's stages and
        steps. No step crosses a sample: each sample starts the step grid anew (steps, or
        for the adaptive integrators output times, at t_k + j dt) and the last step before
        the next one ends on it exactly; so the state at a sample is a stored sample. See
        ``docs/tutorials/events.md``.
    events : sequence of Event
        State events (zero crossings of ``g(t, q, u)``, checked at the ends of every accepted
        step, located to ``event_tol`` on states the integrator computes: one step from the
        step's start to the trial time, the method's own order, no interpolant) and timed
        events (``Event(at=...)``, steps end at their times exactly). At an event the state
        just before it is stored, then its action runs; a new state it returns is stored at
        the same time and the run goes on from it (the step grid starts anew at the event);
        an action may change the model (enable or disable a constraint). A terminal event
        (or an action returning "stop") ends the run there. ``result.events`` lists the
        events that fired (``EventRecord``); an NPZ results file keeps them too.
    event_tol : float
        Tolerance [s] of the located event times (default 1e-12 s; at least 4 ulps of the time).
    joint_dynamics : bool or JointDynamics
        True (default): the hinges' own ``damping``, ``spring_stiffness`` and Coulomb
        ``friction`` (from URDF, SDFormat and MJCF files) act (``simulation.joint_dynamics``:
        the friction law, its slip speed); False: they do not.
    implicit_damping : "auto", True or False
        For fixed steps: "auto" (default) treats the damping of the coordinates where it is
        too stiff for the step (c dt / I > 2) implicitly in the velocity, as MuJoCo does, at
        explicit cost; True every damped coordinate, False none (see
        ``simulation.joint_dynamics`` for the trade-off).
    efforts : bool
        True (default): ``tau`` and the control's joint forces are clamped to the hinges'
        ``effort`` limits, with an ``EffortLimitWarning`` naming the hinges and the result's
        ``clamped`` saying how often; False: applied as given.
    ctrl : None, (n_actuators,) array_like or callable
        The controls of the model's actuators (``m.actuators``, e.g. from MJCF
        ``<actuator>``; ``simulation.actuators``): None (zeros, as MuJoCo's default), a
        constant, or ``ctrl(t, q, u)`` returning them, called where the loop pauses for a
        control (every stage, or every ``control_period``). Clipped to the actuators' control ranges.

    Returns
    -------
    SimulationResult
        ``t`` (N,) [s], ``q`` (N, nq), ``u`` (N, nu); t[0] = 0; its ``q_names``/``q_units``/
        ``u_names``/``u_units`` name the columns; ``events``, the events that fired.

    Raises
    ------
    SimulationError
        Its ``result`` holds every sample computed, and so does the file: when the state
        blows up (grows huge or non-finite: the message names the time and the coordinate
        and suggests a smaller step), the mass matrix becomes singular, the adaptive step
        falls below h_min, anything in the loop raises (the control, a force model: the
        error is its ``__cause__``) or the results file cannot be written (at the block
        that fails: a full disk, its folder deleted or made read-only; the message says
        where the samples that were written are).
    KeyboardInterrupt, SimulationTerminated
        On SIGINT, and on SIGTERM (a ``SystemExit``, exit status 143), both with ``result``
        and ``t`` (the last sample), the file complete up to it (handlers installed for the
        run only, in the main thread, where Python's defaults are).
    ValueError
        Bad arguments.
    """
    if isinstance(m, ModelView):  # a sub-tree or sub-graph integrates its own coordinates
        if control_period is not None or events:
            raise ValueError("control_period and events are not available for sub-tree and sub-graph views; "
                             "simulate the Multibody itself")
        return m.simulate(q0, u0, t_final, dt, integrator=integrator, control=control, rtol=rtol, atol=atol,
                          tableau=tableau, tau=tau, forces=forces, stabilization_gains=stabilization_gains,
                          project_every=project_every, save_every=save_every, h_min=h_min, h_max=h_max,
                          output=output, progress=progress, output_every=output_every,
                          keep_in_memory=keep_in_memory, limits=limits, joint_dynamics=joint_dynamics,
                          efforts=efforts, ctrl=ctrl, implicit_damping=implicit_damping)
    t_final_f, dt_f = _checked_run(t_final, dt, save_every, output, keep_in_memory)
    c = m.compiled
    integrator = contact_integrator(m, integrator, contact)
    moreau = integrator == "moreau"
    how = choose(integrator, tableau, integrator_options, implicit_damping, dt_f)
    cls, tab = how.cls, how.tableau
    more = dict(contact_settings(contact_options, moreau), **(dict(contact_output=contact_output) if moreau else
                                                              how.settings))
    store = ExpandingStorage(c.nq, c.nu, capacity=1) if keep_in_memory else RingBufferStorage(c.nq, c.nu, 1)
    lim = limit_model(m, limits, how.step)
    inputs = RunInputs(m, control, tuple(forces or ()) + (() if lim is None else (lim,)), ctrl=ctrl,
                       joint_dynamics=joint_dynamics, efforts=efforts, dt=None if how.implicit else how.step,
                       implicit_damping=how.implicit_damping)
    sampled = control_period is not None

    def make(q, u, t0):  # the run's integrator (made anew when an event's action changes the model)
        new = cls(m, q, u, tableau=tab, sink=store, control=None if sampled else inputs.control, tau=tau,
                  forces=inputs.forces, t0=t0, rtol=rtol, atol=atol, h_min=h_min, h_max=h_max,
                  stabilization_gains=stabilization_gains, **more)
        more.pop("warm_start", None)  # (the first run's only: one remade after an event starts from its state)
        inputs.attach(new)
        return new
    integ = make(q0, u0, 0.0)
    if sampled or events:
        integ = SegmentedRun(integ, make, inputs.control, control_period, events, event_tol)
    stride, dt_f = _output_stride(output_every, save_every, dt_f, t_final_f, integ.adaptive)
    n_out = int(math.ceil(t_final_f / dt_f - 1e-9))
    if not integ.adaptive:
        n_out = n_out // stride + (1 if n_out % stride else 0)
    if keep_in_memory:
        store.reserve(n_out + 1)
    block = max(64, n_out // 200) if (progress or integ.control is None and n_out > 200000) else None
    if output is not None:  # stream in blocks: the file grows as the run goes on
        block = min(block or n_out, BLOCK_SAMPLES)
    block, after_block = _projection(m, project_every, block)
    labels = coordinate_labels(m)
    writer = None if output is None else ResultWriter(output, c.nq, c.nu, labels)
    signals = RunSignals()
    integ.sink = GuardedOutputs(store, writer, signals)
    bar = ProgressBar(after=1.0) if progress else None
    wall0 = time.perf_counter()
    with signals:  # installed until the file is finished
        err = _loop(integ, signals, bar, t_final_f, dt_f, save_every=stride, block=block, after_block=after_block,
                    block_seconds=BLOCK_SECONDS if writer is not None and after_block is None else None)
        status, message, err = outcome(signals.late(err), integ, writer)
        message = message or getattr(integ, "stop_message", "")
        status, message, err = close_output(writer, status, message, err, integ.t, getattr(integ, "records", ()))
        late = signals.late(err)  # a signal while the file was being finished
        if late is not err:
            message, err = f"{message or 'finished'}; then {type(late).__name__} (a signal)", late
    name = how.name
    res = SimulationResult(store.t.copy(), store.q.copy(), store.u.copy(), status, message,
                           integ.n_steps, integ.n_rejected, time.perf_counter() - wall0, name,
                           integ.n_chart_resets, labels=labels, events=getattr(integ, "records", ()))
    res.clamped = inputs.report()
    res.contacts = getattr(integ, "contact_records", None) if moreau else None
    res.contact_warm_start = getattr(getattr(integ, "integ", integ), "contact_warm_start", None)
    if lim is None and limits is not True:
        warn_outside_limits(m, res.t, res.q)
    if err is not None:
        attach_result(err, res, message)
        raise err
    return res


def _checked_run(t_final, dt, save_every, output, keep_in_memory):
    """(t_final, dt) as floats, with ``simulate``'s checks of its run arguments (ValueError
    naming the bad one)."""
    t_final_f = check_positive(t_final, "t_final")
    dt_f = check_positive(dt, "dt")
    if dt_f > t_final_f:
        raise ValueError(f"dt ({dt_f}) must not exceed t_final ({t_final_f})")
    if int(save_every) != save_every or save_every < 1:
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    if output is not None:
        check_output_path(output, "output")
    elif not keep_in_memory:
        raise ValueError("keep_in_memory=False needs output= (a file to stream the samples to)")
    return t_final_f, dt_f


def _projection(m, project_every, block):
    """(block, after_block): with ``project_every`` (steps), runs go in blocks of that many
    steps, each followed by a projection onto the constraints; else ``block`` and None."""
    if project_every is None:
        return block, None
    if int(project_every) != project_every or project_every < 1:
        raise ValueError(f"project_every must be a positive integer, got {project_every!r}")
    if not m.compiled.nc:
        raise ValueError("project_every: the model has no enabled constraints to project onto")
    solver = m.constraint_kinematics()
    return int(project_every), lambda integ: integ.project_onto_constraints(solver)


def _loop(integ, signals, bar, t_final, dt, **options):
    """Run the stepping loop (``integrate``) and return the exception it ended with (None:
    finished). From its end on, signals are held for ``RunSignals.late``."""
    try:
        integ.integrate(t_final, dt, progress=None if bar is None else _simulated_time(bar), **options)
        if bar is not None:  # the integrator reports between blocks only: the end is drawn here
            _simulated_time(bar)(integ.t, t_final)
    except BaseException as e:  # every way out keeps the samples (see run_outcome.outcome)
        return e
    finally:
        signals.hold()
        if bar is not None:
            bar.close()
    return None


def _output_stride(output_every, save_every, dt, t_final, adaptive):
    """(steps per stored sample, step or output interval [s]) for ``output_every``."""
    if output_every is None:
        return int(save_every), dt
    every = check_positive(output_every, "output_every")
    if save_every != 1:
        raise ValueError("give output_every= or save_every=, not both")
    if every > t_final:
        raise ValueError(f"output_every ({every}) must not exceed t_final ({t_final})")
    if adaptive:
        return 1, every
    k = max(1, int(round(every / dt)))
    if abs(k * dt - every) > 1e-9 * every:
        raise ValueError(f"output_every ({every} s) must be a multiple of dt ({dt} s)")
    return k, dt
