"""Coordinates: neutral and random configurations, q_dot = N(q) u, integration on the
hinge manifolds, and the rotation-vector charts (a state held in the data).

Free functions of a Multibody ``m`` (its methods of the same names are these
functions); ``data`` as in ``dynamics``. Chart offsets go with q: ``sanitize`` moves
them in the data it is given (default: the calling thread's), and for the thread's
default data also in the subhinge objects, which new Data objects start from.
"""
import numpy as np

from ..kernels import layout as L
from ..model.hinge import sample_within_limits
from .checks import check_vector, data_object, raise_status
from .entry import KERNELS


def neutral_q(m):
    """The neutral configuration (nq,): zero angles/offsets, identity quaternions."""
    c = m.compiled
    q = np.zeros(c.nq)
    for h in m.hinges:
        q[c.q_slices[h.name]] = h.neutral_q()
    return q


def q_limits(m):
    """(lower (nq,), upper (nq,)): the hinges' position limits per coordinate of q [rad or
    m], -inf / +inf where unbounded (see ``Hinge.lower``)."""
    c = m.compiled
    lower, upper = np.full(c.nq, -np.inf), np.full(c.nq, np.inf)
    for h in m.hinges:
        if h.lower is not None or h.upper is not None:  # (the others' are the -inf / +inf already there)
            sl = c.q_slices[h.name]
            lower[sl], upper[sl] = h.q_limits()
    return lower, upper


def random_q(m, rng=None, scale=np.pi, modal_scale=0.0):
    """A random configuration (nq,): angles/offsets uniform in [-scale, scale], rotation
    vectors of random direction and angle up to min(scale, max_chart_angle), random unit
    quaternions; coordinates with position limits uniform in [lower, upper] (one-sided:
    a window of width 2 scale from the bound). ``rng``: a numpy Generator or seed.
    Modal coordinates (eta of modal bodies) are normal with standard deviation
    ``modal_scale``, 0 by default (undeformed): how large an eta is depends on how the
    modes are normalised, and a modal model holds only for small deflections."""
    rng = np.random.default_rng(rng)
    c = m.compiled
    q = rng.uniform(-scale, scale, c.nq)
    for j, s in enumerate(c.link_subhinges):
        i = c.mi[j, L.QOFF]
        if s.kind_info.chart:
            v = rng.normal(size=3)
            q[i:i + 3] = v / np.linalg.norm(v) * rng.uniform(0, min(scale, s.max_chart_angle))
        elif s.kind_info.quaternion:
            v = rng.normal(size=4)
            q[i:i + 4] = v / np.linalg.norm(v)
    for qs, _ in c.modal_slices.values():
        q[qs] = modal_scale * rng.normal(size=qs.stop - qs.start)
    return sample_within_limits(rng, q, *q_limits(m), scale)


def qdot(m, q, u, data=None):
    """q_dot (nq,) = N(q) u: coordinate rates of the generalized speeds. q's quaternions
    must be unit (to 1e-6, as for the dynamics: a zero one is no rotation); ValueError
    naming the argument and its hinge otherwise, and for a result that overflows."""
    c = m.compiled
    d = data_object(c, data)
    q, u = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c)
    out = np.empty(c.nq)
    st = KERNELS.qdot(c.mi, d.ws, q, u, out)
    if st:
        raise_status(c, st, ("q", "u"), (q, u))
    return out


def integrate(m, q, u, dt=1.0, data=None):
    """q (+) u dt (nq,): move along the constant speeds u for dt seconds, on each
    hinge's manifold (exact exponential for rotations and free hinges). Stacked q (B, nq)
    and u (B, nu) give (B, nq), computed in parallel (``batch``). q's quaternions must be
    unit, as for ``qdot``."""
    if getattr(q, "ndim", 1) == 2 and data is None:
        from . import batch
        return batch.integrate(m, q, u, dt)
    c = m.compiled
    d = data_object(c, data)
    q, u = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c)
    if not np.isfinite(dt):
        raise ValueError(f"dt must be finite, got {dt!r}")
    out = np.empty(c.nq)
    st = KERNELS.integrate(c.mi, d.ws, q, u, float(dt), out)
    if st:
        raise_status(c, st, ("q", "u", "dt"), (q, u, float(dt)))
    return out


def _store_charts(c, d):
    """Keep the default data's chart offsets in the subhinge objects (new data start there)."""
    if d is getattr(c.thread_local, "data", None):
        for j, s in enumerate(c.link_subhinges):
            if s.kind_info.chart:
                s.chart_offset = d.ws[j, L.W_CHART:L.W_CHART + 4].copy()


def sanitize(m, q, data=None):
    """Re-centre rotation-vector charts whose angle exceeds their max_chart_angle.

    Modifies q (a float64 (nq,) array) and the chart offsets (of ``data``, default the
    calling thread's) in place; the poses are unchanged. Returns True if any chart moved.
    """
    c = m.compiled
    d = data_object(c, data)
    if not (isinstance(q, np.ndarray) and q.dtype == np.float64 and q.shape == (c.nq,)
            and q.flags.c_contiguous and q.flags.writeable):
        raise ValueError(f"q must be a writeable C-contiguous float64 array of shape ({c.nq},)")
    moved = KERNELS.sanitize_charts(c.mi, d.ws, q, c.max_chart_angles)
    if moved:
        _store_charts(c, d)
    return bool(moved)


def chart_offsets(m, data=None):
    """{hinge name: chart offset quaternion (x, y, z, w)} for rotation-vector subhinges."""
    c = m.compiled
    d = data_object(c, data)
    return {s.hinge.name: d.ws[j, L.W_CHART:L.W_CHART + 4].copy()
            for j, s in enumerate(c.link_subhinges) if s.kind_info.chart}


def global_q(m, q, data=None):
    """q with every rotation-vector chart re-expressed about the identity (global coordinates)."""
    from .coordinate_maps import global_coordinates
    c = m.compiled
    return global_coordinates(c, data_object(c, data), check_vector(q, c.nq, "q", c))


def reset_charts(m, q=None, data=None):
    """Reset all chart offsets to the identity; if q is given, return it re-expressed so
    the poses are unchanged."""
    out = None if q is None else global_q(m, q, data)
    c = m.compiled
    d = data_object(c, data)
    for j, s in enumerate(c.link_subhinges):
        if s.kind_info.chart:
            d.ws[j, L.W_CHART:L.W_CHART + 4] = (0.0, 0.0, 0.0, 1.0)
    _store_charts(c, d)
    return out
