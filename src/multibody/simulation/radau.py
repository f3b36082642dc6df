"""The "radau" integrator: Radau IIA of order 5, implicit, adaptive, on the tangent space.

``RadauIntegrator`` runs the compiled Radau loop (``radau_loop``) with the
``RungeKuttaIntegrator``'s state, sinks, control hand-over and run interface (as
``GeneralizedAlphaIntegrator``); only the loop, its work arrays and its options differ.
"""
import math
import warnings

import numpy as np

from ..algorithms.checks import check_positive
from . import radau_loop as RL
from . import radau_newton as RN
from .flex_implicit import flex_work
from .integrators import RungeKuttaIntegrator
from .radau_step import radau_constants
from .stages import normalize_quaternions

__all__ = ["RadauIntegrator", "RadauWarning", "RADAU_OPTIONS", "radau_settings"]

#: the settings ``simulate(integrator_options=)`` hands to ``RadauIntegrator``
RADAU_OPTIONS = ("adaptive", "max_iterations", "newton_tol", "jacobian_rate")

_CONSTANTS = radau_constants()


class RadauWarning(UserWarning):
    """Some fixed steps of a Radau run ended their Newton iteration above its tolerance."""


def radau_settings(options):
    """``integrator_options`` (None or a dict of ``RADAU_OPTIONS``) as keyword arguments of
    ``RadauIntegrator``; a ValueError names an unknown key."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"integrator_options must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - set(RADAU_OPTIONS))
    if unknown:
        raise ValueError(f"integrator_options: unknown {', '.join(map(repr, unknown))} for integrator='radau'; "
                         f"they are {', '.join(RADAU_OPTIONS)}")
    return dict(options)


def transformed_tolerances(rtol, atol):
    """The tolerances of the error norm for the user's (rtol, atol): RADAU5's 0.1 rtol^(2/3)
    (and atol in the same ratio), with which the global error comes out near rtol."""
    r = 0.1 * rtol ** (2.0 / 3.0)
    return r, atol * r / rtol


class RadauIntegrator(RungeKuttaIntegrator):
    """Radau IIA with 3 stages (order 5, stiffly accurate, L-stable) as Hairer & Wanner's
    RADAU5 runs it: a simplified Newton iteration on the collocation equations, its linear
    system transformed into one real and one complex one, the Jacobian reused across steps
    while the iteration converges fast, steps cut where it converges slowly or diverges,
    an embedded error estimate and Gustafsson's predictive step-size controller. The stage
    equations are solved in a chart centred at each step's start (q = q0 (+) z), so
    quaternions, rotation vectors and free bodies keep order 5; see ``radau_step`` and
    ``radau_loop``.

    The Jacobian: the analytic derivatives of inverse dynamics (for models with modal
    (flexible) bodies the flex ones, ``flex_implicit``) and of the force models (as
    generalized_alpha's: the joint-level ones', and the exact share of world-axes wrenches and
    springs between points, ``link_force_jacobian``). It needs only to be approximate: the iteration converges to
    the exact collocation solution whatever the Jacobian's error (a worse one costs
    iterations, and steps if they become too many).

    Parameters as ``RungeKuttaIntegrator`` (``tableau``, ``lie_group`` are ignored), and:

    rtol, atol : float
        The user's tolerances (rtol > 0, atol >= 0), transformed as RADAU5 does
        (``transformed_tolerances``) so the global error comes out near rtol.
    adaptive : bool
        True (default): error control; False: fixed steps dt (convergence studies), no
        estimate, each step's iteration run to its tolerance.
    max_iterations : int
        The most Newton iterations per try (7); adaptive steps are cut beyond it.
    newton_tol : float, optional
        The iteration's tolerance on the scaled correction (default RADAU5's max(10 eps /
        rtol', min(0.03, sqrt(rtol'))), rtol' the transformed rtol).
    jacobian_rate : float
        A step whose Newton rate is above it has its Jacobian formed anew for the next
        (0.001, RADAU5's; larger reuses it longer).

    The control (if any) is called once per step, at its start, with that state; its forces
    are held over the step. Refused (NotImplementedError): contact. The force models fixed
    in the world (``ExternalForce`` in world axes, ``LinearSpringDamper``) enter the
    Jacobian with their exact derivatives (``link_force_jacobian``); on models with modal
    bodies, the wrenches and spring-dampers at frames with their central differences
    (``flex_link_forces.frame_force_jacobian``).

    Enabled constraints (closed loops, coordinate and convel rows), on rigid models and on
    models with modal bodies alike: the ODE is the tree-augmented constrained dynamics with
    Baumgarte stabilization (the run's ``stabilization_gains``, as the explicit methods), its
    Jacobian the analytic derivatives of that dynamics (``constrained_forward_dynamics_
    derivatives``' kernel, gains included; for modal bodies ``kernels/flex_constrained_
    derivatives`` through ``flex_implicit.flex_ta_jacobian``). The loop closure is held at
    the Baumgarte level, not to round-off.
    """

    LOOP_NAME = "the Radau simulation loop"
    CHECKED_LOOP = True  # (loop_check's "radau_*" recordings)

    lie_group = True

    def __init__(self, m, q0, u0, tableau=None, sink=None, control=None, tau=None, forces=(), adaptive=None,
                 rtol=1e-6, atol=1e-9, h_min=None, h_max=math.inf, t0=0.0, stabilization_gains=None,
                 lie_group=None, *, max_iterations=7, newton_tol=None, jacobian_rate=0.001):
        rtol = check_positive(rtol, "rtol")
        atol = check_positive(atol, "atol", allow_zero=True)
        adaptive = True if adaptive is None else adaptive
        if not isinstance(adaptive, (bool, np.bool_)):
            raise ValueError(f"adaptive must be True or False, got {adaptive!r}")
        if isinstance(max_iterations, bool) or int(max_iterations) != max_iterations or max_iterations < 1:
            raise ValueError(f"max_iterations must be a positive integer, got {max_iterations!r}")
        rate = check_positive(jacobian_rate, "jacobian_rate")
        c = m.compiled
        super().__init__(m, q0, u0, "euler", sink, control, tau, forces, adaptive=False, rtol=rtol, atol=atol,
                         h_min=h_min, h_max=h_max, t0=t0, stabilization_gains=stabilization_gains)
        self.adaptive = bool(adaptive)
        self.iopt[RL.O_ADAPT] = int(self.adaptive)
        normalize_quaternions(c.mi, self._q)
        rt, at = transformed_tolerances(rtol, atol)
        self.ropt = np.zeros(RN.N_ROPT)
        self.ropt[RN.R_RTOL], self.ropt[RN.R_ATOL] = rt, at
        default_tol = max(10 * np.finfo(float).eps / rt, min(0.03, math.sqrt(rt)))
        self.ropt[RN.R_FNEWT] = default_tol if newton_tol is None else check_positive(newton_tol, "newton_tol")
        self.ropt[RN.R_NIT] = int(max_iterations)
        self.ropt[RN.R_THET] = rate
        ta = None if self.constraint_work is None else RL.ta_work(c, self.constraint_work)
        fw = flex_work(self.data.buf, None if ta is None else c) if self.flex else None
        self._rw, self.rst = RL.allocate_radau_work(c.nq, c.nu, ta, fw)

    @property
    def newton_iterations(self):
        """Newton iterations made so far (all tries)."""
        return int(self.rst[RN.S_ITERS])

    @property
    def jacobians(self):
        """Jacobians formed so far."""
        return int(self.rst[RL.S_JACOBIANS])

    @property
    def factorizations(self):
        """Factorisations of the two linear systems so far (one per new step size or Jacobian)."""
        return int(self.rst[RL.S_FACTORS])

    @property
    def unconverged_steps(self):
        """Fixed steps whose Newton iteration stopped at max_iterations above its tolerance."""
        return int(self.rst[RL.S_UNCONVERGED])

    def set_state(self, t, q, u):
        """``RungeKuttaIntegrator.set_state``; the method starts again as on a first step
        (a velocity reset makes its Jacobian, rates and last polynomial stale)."""
        super().set_state(t, q, u)
        self.rst[RL.S_READY] = 0.0
        self.rst[RL.S_CTL] = 0.0

    def integrate(self, t_final, dt, *args, **kwargs):
        """``RungeKuttaIntegrator.integrate``, then a RadauWarning if some fixed steps ended
        their Newton iteration above its tolerance."""
        try:
            return super().integrate(t_final, dt, *args, **kwargs)
        finally:
            n = self.unconverged_steps
            if n and n != getattr(self, "_warned", 0):
                self._warned = n
                warnings.warn(f"radau: the Newton iteration of {n} fixed step{'s' * (n != 1)} stopped at "
                              f"max_iterations = {int(self.ropt[RN.R_NIT])} above its tolerance: take a smaller dt "
                              f"or the adaptive steps", RadauWarning, stacklevel=3)

    def loop_call(self, T, Q, U):
        c = self._c
        args = (c.mi, self.mf, self.data.buf, self.fmi, self.fmf, self.tau0, self.iopt, self.fopt, self.ropt,
                _CONSTANTS, self.smap, self.max_angles, self.chart0, self._q, self._u, self.clk, self.ctr, self._ctl,
                T, Q, U, self._rw, self.rst)
        ta = self.constraint_work is not None
        return RL.radau_entry_point(self._links, self.control is not None, self.flex, ta), args
