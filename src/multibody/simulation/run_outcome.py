"""How a ``simulate`` run ends: its status and message, the results file finished, and the
exception that leaves ``simulate`` carrying every sample computed (``SimulationError``,
KeyboardInterrupt, SIGTERM's ``SimulationTerminated``)."""
from .failures import SimulationTerminated, blow_up
from .integrators import SimulationError

__all__ = ["outcome", "close_output", "attach_result"]


def outcome(err, integ, writer):
    """(status, message, exception to raise) of a run that ended with ``err`` (None:
    finished). An ``Exception`` from the loop (the control's, a force model's, a write
    error) becomes a ``SimulationError`` caused by it; signals stay what they are."""
    at = f"at t = {integ.t:.6g} s"
    if err is None:  # a state grown huge but still finite (an unstable step) is no result either
        blown = blow_up(integ, integ.t, (integ.q, integ.u))
        return ("finished", "", None) if blown is None else ("failed", str(blown), blown)
    if isinstance(err, SimulationError):
        return "failed", str(err), err
    if isinstance(err, KeyboardInterrupt):
        return "interrupted", f"interrupted by SIGINT (Ctrl-C) {at}", err
    if isinstance(err, SimulationTerminated):
        return "interrupted", f"terminated by signal {err.signum} (SIGTERM) {at}", err
    if not isinstance(err, Exception):
        return "interrupted", f"stopped by {type(err).__name__} {at}", err
    blown = blow_up(integ, integ.t) if isinstance(err, ArithmeticError) else None
    if blown is not None:  # a division by zero of a state grown past 1e200 (a quaternion's norm
        blown.__cause__ = err  # overflowed) is the blow-up, not a fault of the control's
        return "failed", str(blown), blown
    if writer is not None and writer.error is err:
        message = f"writing the results file {str(writer.path)!r} failed {at}: {err}"
    else:
        message = (f"the run stopped {at} (its last whole step): {type(err).__name__} raised in the "
                   f"stepping loop (by the control, a force model or an event; see the traceback above): {err}")
    new = SimulationError(message, integ.t)
    new.__cause__ = err
    return "failed", message, new


def close_output(writer, status, message, err, t, events=()):
    """Finish the results file (with the records of the ``events`` that fired); a failure to
    is an error (never a success) that says where the samples are. Returns (status,
    message, exception to raise)."""
    if writer is None:
        return status, message, err
    try:
        path = writer.close(status, message, events)
    except OSError as e:
        if err is None:
            message = f"writing the results file {str(writer.path)!r} failed at the end of the run: {e}"
            err = SimulationError(message, t)
            err.__cause__ = e
            return "failed", message, err
        return status, f"{message}; the results file could not be finished: {e.strerror or e}", err
    if err is not None and writer.n:
        message += f"; the {writer.n} samples up to t = {writer.t_last:.6g} s are in {str(path)!r}"
    return status, message, err


def attach_result(err, res, message):
    """Give the exception leaving ``simulate`` the run's result and the final message."""
    err.result = res
    err.t = float(res.t[-1]) if len(res) else None
    text = message + "; every sample computed is in this exception's .result"
    if isinstance(err, SimulationError):
        err.args = (text,)
    elif isinstance(err, SimulationTerminated):
        err.message = text
    elif hasattr(err, "add_note"):  # KeyboardInterrupt ... (Python >= 3.11)
        err.add_note(text)
