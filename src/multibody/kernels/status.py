"""Status codes: one numbering for kernels, the facade and the simulation.

Kernels return (or record) these integers; Python turns them into ``Status`` members
and into errors that name the argument or coordinate. Each code means one thing: no
arithmetic decoding. The argument codes refer to a kernel's state arguments in order
(for example q, u, tau for forward dynamics).
"""
from enum import IntEnum

OK = 0
NONFINITE_ARG0 = 1   # the first state argument holds NaN/inf
NONFINITE_ARG1 = 2
NONFINITE_ARG2 = 3
BAD_LENGTH_ARG0 = 4  # the first state argument has the wrong length
BAD_LENGTH_ARG1 = 5
BAD_LENGTH_ARG2 = 6
SINGULAR = 7         # a joint-space inertia block D_j is not positive definite
# simulation run states
RUNNING = 8          # the run goes on
FINISHED = 9         # the end time is reached
BUFFER_FULL = 10     # the output buffer is full: store it and call again
NONFINITE_STATE = 11  # q or u became NaN/inf during a run
MIN_STEP = 12        # the adaptive step fell below its minimum
NEED_CONTROL = 13    # paused at a stage: call the control with the stage state, then resume
CONTROL_NONFINITE = 14  # the control returned a non-finite joint force


BAD_QUATERNION = 15  # the first state argument (q) holds a quaternion whose norm is not 1 (1e-6)
MODAL = 16           # a rigid kernel was called for a model with modal (flexible) bodies (c.kernels has their own)
OVERFLOW = 17        # finite arguments gave a non-finite result: they are too large (1e200)
CONTACT_UNSOLVED = 18  # the contact solver stopped above its tolerance (the residual is kept)
CONTACT_ROWS = 19    # more contacts than the rows given: the caller gives more and goes on
BLOW_UP = 20         # a run reached its end with a finite but huge state (simulation.failures' bounds)


class Status(IntEnum):
    """Python view of the kernel status codes (same values)."""

    OK = OK
    NONFINITE_ARG0 = NONFINITE_ARG0
    NONFINITE_ARG1 = NONFINITE_ARG1
    NONFINITE_ARG2 = NONFINITE_ARG2
    BAD_LENGTH_ARG0 = BAD_LENGTH_ARG0
    BAD_LENGTH_ARG1 = BAD_LENGTH_ARG1
    BAD_LENGTH_ARG2 = BAD_LENGTH_ARG2
    SINGULAR = SINGULAR
    RUNNING = RUNNING
    FINISHED = FINISHED
    BUFFER_FULL = BUFFER_FULL
    NONFINITE_STATE = NONFINITE_STATE
    MIN_STEP = MIN_STEP
    BAD_QUATERNION = BAD_QUATERNION
    NEED_CONTROL = NEED_CONTROL
    CONTROL_NONFINITE = CONTROL_NONFINITE
    MODAL = MODAL
    OVERFLOW = OVERFLOW
    CONTACT_UNSOLVED = CONTACT_UNSOLVED
    CONTACT_ROWS = CONTACT_ROWS
    BLOW_UP = BLOW_UP

    @property
    def argument(self):
        """Index of the state argument a NONFINITE_ARG* / BAD_LENGTH_ARG* code names, else None."""
        if NONFINITE_ARG0 <= self <= NONFINITE_ARG2:
            return self - NONFINITE_ARG0
        if BAD_LENGTH_ARG0 <= self <= BAD_LENGTH_ARG2:
            return self - BAD_LENGTH_ARG0
        return None
