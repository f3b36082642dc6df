"""A contact run's warm start carried from one ``simulate`` call to the next.

Inside a run, each step's contact solve starts from the impulses of the step before, matched
by contact (shapes and feature: ``contact_step.warm_start``); a resting robot then needs 2-3
sweeps. A new run started cold: its first solve began from zero impulses, and on a robot
standing on more contacts than its speeds tell apart (Solo12 on its four feet and two knees:
18 rows on 18 speeds) that took 157 iterations, about 3 ms, i.e. the time of 150 steps.
A model-predictive controller that calls ``simulate`` for a few steps from each new state
paid it on every call. MuJoCo keeps its warm start in ``mjData``; here a finished run hands
it out in ``result.contact_warm_start`` and the next run takes it through
``contact_options={"warm_start": result}``: continuing a run in two calls then gives the
samples of one call, bit for bit.
"""
import numpy as np

from ..kernels.collision.layout import CI_A, CI_B, CI_COLS

__all__ = ["ContactWarmStart", "warm_start_of"]


class ContactWarmStart:
    """The contacts of a contact run's last step and their impulses: the next run's first
    contact solve starts from them (contacts matched by shapes and feature, new ones at zero).

    ``contacts`` (n, 3) int64: the shape pair (a < b) and the feature id of each contact;
    ``impulses`` (n, 3) [N s]: each contact's impulse over the step (normal, t1, t2 of its
    contact frame); ``dt`` [s]: the step they were made with (a run with another step takes
    them scaled by its dt / this dt: the same forces); ``shape_names``: the model's collision
    shapes, by which a warm start made on another model is refused.
    """

    __slots__ = ("contacts", "impulses", "dt", "shape_names")

    def __init__(self, contacts, impulses, dt, shape_names):
        self.contacts = np.array(contacts, dtype=np.int64).reshape(-1, CI_COLS)
        self.impulses = np.array(impulses, dtype=float).reshape(-1, 3)
        self.dt = float(dt)
        self.shape_names = tuple(shape_names)
        if self.contacts.shape[0] != self.impulses.shape[0]:
            raise ValueError(f"ContactWarmStart: {self.contacts.shape[0]} contacts but {self.impulses.shape[0]} "
                             "impulses")
        if not (self.dt > 0 and np.isfinite(self.dt)):
            raise ValueError(f"ContactWarmStart: dt must be a positive step [s], got {dt!r}")
        if not np.all(np.isfinite(self.impulses)):
            raise ValueError("ContactWarmStart: the impulses must be finite")
        shapes = self.contacts[:, [CI_A, CI_B]]
        if shapes.size and (shapes.min() < 0 or shapes.max() >= len(self.shape_names)):
            raise ValueError(f"ContactWarmStart: a contact names a shape outside 0..{len(self.shape_names) - 1}")

    def __len__(self):
        return self.contacts.shape[0]

    def __repr__(self):
        return f"ContactWarmStart({len(self)} contacts, dt = {self.dt:g} s)"

    def impulses_for(self, dt):
        """The impulses (n, 3) for a run of step ``dt`` [s]: the same forces over dt (the
        stored ones themselves at the same step, so that a continued run is the same run)."""
        return self.impulses if dt == self.dt else self.impulses * (dt / self.dt)


def warm_start_of(value, shape_names):
    """``contact_options["warm_start"]`` as a ContactWarmStart of the model whose collision
    shapes are ``shape_names`` (None: none). It may be a ContactWarmStart, or a
    ``SimulationResult`` of a contact run (its ``contact_warm_start``); anything else, or one
    made on a model with other shapes, is a ValueError naming the option."""
    if value is None:
        return None
    warm = getattr(value, "contact_warm_start", value)
    if not isinstance(warm, ContactWarmStart):
        what = "a result of a run without contacts" if hasattr(value, "contact_warm_start") else \
            type(value).__name__
        raise ValueError(f"contact_options['warm_start'] must be a ContactWarmStart or the SimulationResult of a "
                         f"contact run (its contact_warm_start), got {what}")
    if warm.shape_names != tuple(shape_names):
        raise ValueError("contact_options['warm_start'] was made on a model with other collision shapes "
                         f"({len(warm.shape_names)} shapes, this model has {len(shape_names)}): a warm start "
                         "carries over between runs of one model only")
    return warm
