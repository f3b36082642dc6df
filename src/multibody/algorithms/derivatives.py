"""Analytic first derivatives of the dynamics of rigid trees, and the linearization.

Derivatives with respect to q are *tangent*: along ``m.integrate(q, dq, 1.0)`` at dq = 0, so
they have nu columns (not nq), as Pinocchio's. ``integrate`` moves each link's frame by
exp(S dq_j) in that frame, so for every kind the column of a coordinate is the perturbation of
the matching speed: a pin, slider or screw adds dq to its angle or length; a ball or free
hinge turns (and moves) its child frame by the body-frame rotation vector dq (angular part
first, as u), whichever its coordinates: a quaternion q (x) exp(dq/2), or a rotation vector v
in its chart, R(chart) exp(v) exp(dq) (the chart's offset, state kept in the Data: see
``chart_offsets``, is left as it is); the free hinges' translation is the body-frame
[w; v] step, the SE(3) exponential. Speeds u, rates udot and forces tau are vectors: their
derivatives are plain ones.

Models with enabled constraints (closed loops, convel and coordinate constraints):
``forward_dynamics_derivatives`` differentiates what ``forward_dynamics`` computes for them, the
tree-augmented constrained udot (``constrained_derivatives.py``); ``inverse_dynamics_derivatives``
those of ``inverse_dynamics``, which is the tree's (M udot + b - J^T f_ext, no constraint force:
the multipliers are not among its inputs), so the tree's derivatives. ``linearize`` uses the
constrained ones; ``modal_analysis`` takes a loop model's modes in the constraints' tangent
space. Models with modal (flexible) bodies: the modal coordinates eta are vector
coordinates of the tangent space; their derivatives are analytic too
(``flex_derivatives.py``; f_ext at deforming nodes served; stacked states through the
batched flex kernels), with enabled constraints too (kernels/flex_constrained_derivatives.py:
the constrained derivatives as the rigid ones', frames at deforming nodes included). Stacked
states of every model, constrained or not, go to the batched kernels (``batch``).
"""
import warnings

import numpy as np

from ..kernels.kinds import FREE, FREE_QUAT, SPHERICAL, SPHERICAL_QUAT
from ..kernels import layout as L
from . import batch
from .constrained_derivatives import (
    constrained_forward_dynamics_derivatives, constrained_modal_analysis, natural_frequencies,
)
from .checks import as_float_vector, data_object, raise_status, zero_division_error
from .dynamics import inverse_dynamics
from .entry import KERNELS
from .external_forces import with_external_forces
from .flex_derivatives import flex_derivatives

_empty = np.empty


def inverse_dynamics_derivatives(m, q, u, udot, f_ext=None, data=None):
    """Analytic first derivatives of the inverse dynamics tau = ID(q, u, udot).

    Returns ``(dtau_dq, dtau_du, dtau_dudot)``, each (nu, nu); dtau_dudot is the mass matrix
    M(q). dtau_dq is tangent: its column k is d/deps ID(integrate(q, eps e_k, 1.0), u, udot)
    at eps = 0 (see the module docstring for each hinge kind). O(N d) for tree depth d, one
    compiled call (Carpentier & Mansard's recursion).

    f_ext: an optional dict {body or node name: wrench [moment; force] (6,) about the frame
    origin, in the frame's axes}, as ``inverse_dynamics``: such wrenches are fixed in their
    bodies, so they turn with them (their derivative is included). Stacked states
    q (B, nq), u, udot (B, nu) give stacked results (B, nu, nu) (not with f_ext or data=).
    ``data``: a Data of ``m`` (default: the calling thread's). Models with modal bodies: see
    the module docstring. With enabled constraints these are the derivatives of
    ``inverse_dynamics``, the tree's: no constraint force is among its terms.
    """
    c = m.compiled
    if f_ext is None and data is None and c.flex is None:
        outs = (_empty(c.shape_M), _empty(c.shape_M), _empty(c.shape_M))
        try:  # the hot path; anything else (a status included) takes the checked one
            if not KERNELS.inverse_dynamics_derivatives(c.thread_local.buf, q, u, udot, *outs):
                return outs
        except (AttributeError, TypeError, ZeroDivisionError):
            pass
    return _checked(m, _INVERSE, q, u, udot, f_ext, data)


def forward_dynamics_derivatives(m, q, u, tau, f_ext=None, data=None):
    """Analytic first derivatives of the forward dynamics udot = FD(q, u, tau).

    Returns ``(dudot_dq, dudot_du, dudot_dtau)``, each (nu, nu); dudot_dtau is M(q)^-1.
    dudot_dq is tangent, as ``inverse_dynamics_derivatives``' dtau_dq. From the identity
    ID(q, u, FD(q, u, tau)) = tau: dudot_dq = -M^-1 dtau_dq and dudot_du = -M^-1 dtau_du,
    with the inverse dynamics derivatives taken at udot = FD(q, u, tau), in one compiled call
    (ABA, the analytic inverse dynamics derivatives, the O(N nu) M^-1, two dense products).
    f_ext, stacked states and ``data`` as in ``inverse_dynamics_derivatives``.

    With enabled constraints: the derivatives of the constrained udot that ``forward_dynamics``
    returns (tree-augmented dynamics; the Baumgarte gains of the Data's constraint work array,
    zero unless set), from its KKT system: d(udot, -lambda) = -K^-1 [H; dC], K = [[M, Gc^T],
    [Gc, 0]], H the tree's inverse dynamics derivatives with the constraint forces held, dC the
    rows' acceleration C = Gc udot + kappa + kd r_dot + kp r differentiated at fixed udot;
    dudot_dtau is then the constrained Mc^-1 = M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1 (singular: zero
    on the constrained directions). Stacked states too, across cores as the trees'.
    """
    c = m.compiled
    if f_ext is None and data is None and c.flex is None and not c.nc:
        outs = (_empty(c.shape_M), _empty(c.shape_M), _empty(c.shape_M))
        try:  # the hot path, as inverse_dynamics_derivatives' (the thread's work kept in thread_local)
            buf, W, T = c.thread_local.derivatives
        except AttributeError:
            buf, W, T = c.thread_local.derivatives = (c.thread_data().buf, *_work(c, c.thread_data()))
        try:
            if not KERNELS.forward_dynamics_derivatives(buf, q, u, tau, W, T, *outs):
                return outs
        except (TypeError, ZeroDivisionError):
            pass
    return _checked(m, _FORWARD, q, u, tau, f_ext, data)


def _checked(m, op, q, u, x, f_ext, data):
    """A derivative call past the hot path (``op``: ``_INVERSE`` or ``_FORWARD``): the models not
    served refused, stacked states, f_ext, data=, coercion and the errors naming the argument."""
    name, names, public, batched, with_work = op
    c = m.compiled
    stacked = getattr(q, "ndim", 1) == 2
    if c.flex is not None and not stacked:
        return flex_derivatives(m, name, names, q, u, x, f_ext, data)
    constrained = c.nc and with_work
    if stacked:
        _refuse_stacked_options(name, f_ext, data)
        return (batch.constrained_forward_dynamics_derivatives if constrained else batched)(m, q, u, x)
    if constrained:
        return constrained_forward_dynamics_derivatives(m, q, u, x, f_ext, data, public)
    d = data_object(c, data)
    if f_ext is not None:
        return with_external_forces(c, d, f_ext, public, m, q, u, x, None, d)
    outs = (_empty(c.shape_M), _empty(c.shape_M), _empty(c.shape_M))
    _call(c, getattr(KERNELS, name), names, (q, u, x), (d.buf,), outs, _work(c, d) if with_work else ())
    return outs


def _work(c, d):
    """(M^-1's work array, the (3, nu, nu) scratch of dtau/dq, dtau/du and M) of Data d."""
    if d.minv_work is None:
        d.minv_work = np.zeros(c.minv_work_shape)
    return d.minv_work, d.dense_scratch("derivatives", (3, c.nu, c.nu))


def _refuse_stacked_options(name, f_ext, data):
    if f_ext is not None:
        raise ValueError(f"{name}: f_ext is not supported with stacked states")
    if data is not None:
        raise ValueError(f"{name}: data= is not supported with stacked states (each worker "
                         f"thread uses its own buffer)")


def _call(c, kernel, names, state, before, outs, work=()):
    """kernel(*before, *state, *work, *outs), coercing the state on a TypeError; raise the
    error a status means, naming the argument."""
    try:
        st = kernel(*before, *state, *work, *outs)
    except TypeError:
        state = tuple(as_float_vector(x, n) for x, n in zip(state, names))
        try:
            st = kernel(*before, *state, *work, *outs)
        except ZeroDivisionError as e:
            raise zero_division_error(c, state[0], e) from None
    except ZeroDivisionError as e:
        raise zero_division_error(c, state[0], e) from None
    if st:
        raise_status(c, st, names, state)


# (kernel and function name, argument names, the public function that with_external_forces
# calls again, the batched function, whether the kernel takes the M^-1 work and scratch)
_INVERSE = ("inverse_dynamics_derivatives", ("q", "u", "udot"), inverse_dynamics_derivatives,
            batch.inverse_dynamics_derivatives, False)
_FORWARD = ("forward_dynamics_derivatives", ("q", "u", "tau"), forward_dynamics_derivatives,
            batch.forward_dynamics_derivatives, True)


def linearize(m, q, u, tau=None, *, B=None):
    """The linear system x_dot = A x + Bmat w of the dynamics about (q, u, tau).

    State x = [dq; du] (2 nu): dq tangent at q (the configuration is ``integrate(q, dq, 1.0)``,
    see ``inverse_dynamics_derivatives``), du added to u; input w = the joint forces added to
    tau (nu), or, given a selection matrix B (nu, k), the k inputs w with tau + B w. tau:
    default zero (gravity and the bias forces act).

        A = [[K, I], [dudot_dq, dudot_du]],  Bmat = [[0], [M^-1 B]]   (2 nu x 2 nu, 2 nu x k)

    The kinematic rows are the tangent coordinates' rate dq_dot = dexp^-1_{-dq}(u), the
    exact map of ``integrate``: its derivative in u is I at dq = 0, and in dq it is
    K = -1/2 ad(u) on each ball or free hinge (-1/2 [w]x on the rotation; [[-[w]x/2, 0],
    [-[v]x/2, -[w]x/2]] on a free hinge's [w; v]) and 0 on the others, so K = 0 at u = 0
    (an equilibrium at rest) and for vector-space hinges. With enabled constraints the
    dynamics rows are the constrained ones (``forward_dynamics_derivatives``; M^-1 is then the
    constrained Mc^-1): the state keeps all nu coordinates, and the constraints show as the
    directions that A leaves closed (Gc du = 0 where u is consistent).
    """
    c = m.compiled
    nu = c.nu
    tau = np.zeros(nu) if tau is None else tau
    dq, du, Minv = forward_dynamics_derivatives(m, q, u, tau)
    u = as_float_vector(u, "u")
    if B is None:
        inputs = Minv
    else:
        B = np.asarray(B, dtype=float)
        if B.ndim != 2 or B.shape[0] != nu or not np.all(np.isfinite(B)):
            raise ValueError(f"B must be a finite ({nu}, k) selection matrix, got shape {B.shape}")
        inputs = Minv @ B
    A = np.zeros((2 * nu, 2 * nu))
    A[:nu, :nu] = _kinematic_block(c, u)
    A[:nu, nu:] = np.eye(nu)
    A[nu:, :nu] = dq
    A[nu:, nu:] = du
    Bmat = np.zeros((2 * nu, inputs.shape[1]))
    Bmat[nu:] = inputs
    return A, Bmat


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _kinematic_block(c, u):
    """K = d(dq_dot)/d(dq) at dq = 0: -1/2 ad(u_j) on each ball or free hinge, else 0."""
    K = np.zeros((c.nu, c.nu))
    for j in range(c.n_links):
        kind = c.mi[j, L.KIND]
        o = c.mi[j, L.UOFF]
        if kind in (SPHERICAL, SPHERICAL_QUAT, FREE, FREE_QUAT):
            w = -0.5 * _skew(u[o:o + 3])
            K[o:o + 3, o:o + 3] = w
            if kind in (FREE, FREE_QUAT):
                K[o + 3:o + 6, o + 3:o + 6] = w
                K[o + 3:o + 6, o:o + 3] = -0.5 * _skew(u[o + 3:o + 6])
    return K


def modal_analysis(m, q, *, stiffness=None, rtol=1e-9):
    """Natural frequencies and mode shapes of the undamped motion linearized about q, at rest.

    Solves K v = w^2 M v (``scipy.linalg.eigh``) with M = M(q) and K = dtau_dq at u = udot = 0
    (tangent coordinates, as ``inverse_dynamics_derivatives``: gravity's stiffness), plus
    ``stiffness`` (nu, nu) if given: the joint stiffness of spring force models, which live in
    ``multibody.simulation`` and are not read here. Returns ``(omega, modes)``: omega (nu,) in
    rad/s, ascending, and the mode shapes as the columns of modes (nu, nu), M-orthonormal
    (modes.T @ M @ modes = I). An unstable direction (w^2 < 0, e.g. an inverted pendulum) has a
    negative omega, -sqrt(-w^2): its exponential rate; rigid-body modes (a free-floating
    system without gravity, a pin with nothing to restore it) have omega = 0 (|w^2| below
    ``rtol`` times the largest; a RuntimeWarning names those so set that stand well above
    round-off, as a real mode does under very stiff springs: then pass a smaller rtol). When
    q is not an equilibrium (the forces that hold it, ``gravity_forces``, are not zero to
    ``rtol`` of the gravity load), a RuntimeWarning gives them and K is taken symmetric,
    (K + K^T) / 2.

    With enabled constraints (closed loops, convel, coordinate constraints): the modes of the
    motion on the constraints, in the independent directions X of Gc(q)'s null space (n_i of
    them): omega (n_i,) and modes (nu, n_i) = X v, M-orthonormal; the stiffness includes the
    constraint forces' own (from the constrained ``forward_dynamics_derivatives``); a q that
    does not close the constraints or is not an equilibrium on them warns
    (``constrained_derivatives.constrained_modal_analysis``). Models with modal bodies alike.
    """
    c = m.compiled
    nu = c.nu
    zero = np.zeros(nu)
    if stiffness is not None:
        stiffness = np.asarray(stiffness, dtype=float)
        if stiffness.shape != (nu, nu) or not np.all(np.isfinite(stiffness)):
            raise ValueError(f"stiffness must be a finite ({nu}, {nu}) matrix, got shape {stiffness.shape}")
    if c.nc:  # (modal bodies too: their constrained derivatives are flex_derivatives')
        return constrained_modal_analysis(m, q, stiffness, rtol)
    K, _, M = inverse_dynamics_derivatives(m, q, zero, zero)
    if stiffness is not None:
        K = K + stiffness
    held = inverse_dynamics(m, q, zero, zero)
    load = max(np.abs(K).max(initial=0.0), np.abs(M).max(initial=0.0) * np.linalg.norm(c.mf[c.n_links, L.GRAVITY:
                                                                                             L.GRAVITY + 3]))
    if np.abs(held).max(initial=0.0) > rtol * max(load, 1e-300):
        warnings.warn(f"modal_analysis: q is not an equilibrium: the joint forces that hold it are {held}; "
                      "the modes are of the symmetric part of the stiffness", RuntimeWarning, stacklevel=2)
    from scipy.linalg import eigh  # (lazy, as constraint_embedding's qr)
    w2, modes = eigh(0.5 * (K + K.T), M)
    return natural_frequencies(w2, rtol), modes


__all__ = ["inverse_dynamics_derivatives", "forward_dynamics_derivatives", "linearize", "modal_analysis"]
