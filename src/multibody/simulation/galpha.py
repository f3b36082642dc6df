"""The "generalized_alpha" integrator: implicit, fixed steps, on the tangent space.

``GeneralizedAlphaIntegrator`` runs the compiled generalized-alpha loop (``galpha_loop``)
with the ``RungeKuttaIntegrator``'s state, sinks, control hand-over and run interface;
only the loop, its work arrays and its method options differ (as ``MoreauIntegrator``).
"""
import math
import warnings

import numpy as np

from . import galpha_loop as GL
from . import galpha_step as GS
from .flex_implicit import flex_work
from .integrators import RungeKuttaIntegrator
from .radau_loop import ta_work
from .stages import normalize_quaternions

__all__ = ["GeneralizedAlphaIntegrator", "GeneralizedAlphaWarning", "GALPHA_OPTIONS", "galpha_settings", "run_options"]

#: the settings ``simulate(integrator_options=)`` hands to ``GeneralizedAlphaIntegrator``
GALPHA_OPTIONS = ("rho_inf", "newton_rtol", "newton_atol", "max_iterations")


class GeneralizedAlphaWarning(UserWarning):
    """Some steps of a generalized-alpha run ended their Newton iteration above its tolerance."""


def galpha_settings(options, galpha):
    """``integrator_options`` (None or a dict of ``GALPHA_OPTIONS``) as keyword arguments of
    ``GeneralizedAlphaIntegrator``; a ValueError names an unknown key (``adaptive`` among
    them: the method takes fixed steps), or options for another integrator."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"integrator_options must be a dict, got {type(options).__name__}")
    if options and not galpha:
        raise ValueError("integrator_options: only integrator='generalized_alpha' takes options (and 'radau', its "
                         "own)")
    if "adaptive" in options:
        raise ValueError("integrator_options: 'adaptive' is not an option of generalized_alpha, which takes fixed "
                         "steps dt (an adaptive implicit method is not built)")
    unknown = sorted(set(options) - set(GALPHA_OPTIONS))
    if unknown:
        raise ValueError(f"integrator_options: unknown {', '.join(map(repr, unknown))}; they are "
                         f"{', '.join(GALPHA_OPTIONS)}")
    return dict(options)


def run_options(integrator, options, implicit_damping):
    """(whether ``integrator`` is generalized_alpha, keyword arguments of the run's
    integrator, implicit_damping) for ``simulate`` and ``rollout``: ``galpha_settings`` of
    ``options``, and under generalized_alpha no implicit damping (the method takes the
    damping implicitly itself; implicit_damping=True is refused)."""
    galpha = isinstance(integrator, str) and integrator.lower() == "generalized_alpha"
    settings = galpha_settings(options, galpha)
    if not galpha:
        return False, settings, implicit_damping
    if implicit_damping is True:
        raise ValueError("implicit_damping=True: integrator='generalized_alpha' takes the damping implicitly already "
                         "(leave implicit_damping at 'auto')")
    return True, settings, False


def _positive(value, name):
    v = float(value)
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return v


class GeneralizedAlphaIntegrator(RungeKuttaIntegrator):
    """Generalized-alpha time stepping (Chung & Hulbert 1993; Lie-group form of Arnold &
    Bruels 2007) of a tree or a constrained model (rigid or with modal bodies), fixed
    steps: second order, implicit (a Newton iteration per step on the analytic derivatives
    of the dynamics and of the force models), its high-frequency damping set by
    ``rho_inf``. See ``galpha_step`` for the equations and
    ``galpha_loop`` for the step.

    Parameters as ``RungeKuttaIntegrator`` (``tableau``, ``rtol``, ``atol``, ``h_min``,
    ``h_max``, ``lie_group`` are ignored; ``adaptive=True`` is refused), and:

    rho_inf : float in [0, 1]
        Spectral radius at infinite frequency: how much of a mode far above 1/dt is left
        after a step (1: nothing damped, the trapezoidal member, energy kept to O(h^2); 0:
        the most damping; 0.8 by default, the usual compromise).
    newton_rtol, newton_atol : float
        A step's Newton iteration stops when, for every coordinate i, the residual read as
        an acceleration (|r_i| / |S_ii|, S the iteration matrix) or the last correction is
        within newton_atol + newton_rtol |u_dot_i| [m/s^2, rad/s^2].
    max_iterations : int
        The most Newton corrections per step; a step that stops there goes on, counted
        (``unconverged_steps``) and warned at the end of ``integrate``
        (``GeneralizedAlphaWarning``).

    The control (if any) is called once per step, at its start; its forces are held over
    the step (so its gains act explicitly: stiff ones belong in force models or actuators).
    Models with modal (flexible) bodies: the residual is the flex inverse dynamics (modal
    stiffness and damping inside) and Newton's matrix comes from the analytic flex
    derivatives (``flex_implicit``); wrenches and spring-dampers at their frames (nodes
    too) enter the residual and, by central differences, Newton's matrix
    (``flex_link_forces``). On rigid models the force models fixed in the world
    (``ExternalForce`` in world axes, ``LinearSpringDamper``) enter Newton's matrix with
    their exact derivatives (``link_force_jacobian``). Enabled constraints (closed loops,
    coordinate and convel rows), on rigid models and on models with modal bodies alike: the method runs on the
    tree-augmented constrained dynamics with the run's Baumgarte gains (``galpha_loop``'s
    ``ta`` variants; Newton's matrix for modal bodies from ``flex_implicit.flex_ta_jacobian``),
    so the closure is held at the Baumgarte level (bounded), not to round-off.
    """

    LOOP_NAME = "the generalized-alpha simulation loop"
    CHECKED_LOOP = True  # (loop_check's "galpha_*" recordings)

    lie_group = True

    def __init__(self, m, q0, u0, tableau=None, sink=None, control=None, tau=None, forces=(), adaptive=None,
                 rtol=1e-6, atol=1e-9, h_min=None, h_max=math.inf, t0=0.0, stabilization_gains=None,
                 lie_group=None, *, rho_inf=0.8, newton_rtol=1e-10, newton_atol=1e-10, max_iterations=30):
        if adaptive:
            raise ValueError("adaptive=True: generalized_alpha takes fixed steps dt (an adaptive implicit method "
                             "is not built)")
        rho = float(rho_inf)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"rho_inf must be in [0, 1] (the spectral radius at infinite frequency), got {rho_inf!r}")
        self.rho_inf = rho
        rt = _positive(newton_rtol, "newton_rtol") if newton_rtol != 0 else 0.0
        at = _positive(newton_atol, "newton_atol")
        if int(max_iterations) != max_iterations or max_iterations < 1:
            raise ValueError(f"max_iterations must be a positive integer, got {max_iterations!r}")
        c = m.compiled
        super().__init__(m, q0, u0, "euler", sink, control, tau, forces, adaptive=False, t0=t0,
                         stabilization_gains=stabilization_gains)
        normalize_quaternions(c.mi, self._q)  # (integrate keeps them unit from there)
        self.gopt = np.zeros(GS.N_GOPT)
        self.gopt[:4] = GS.parameters(rho)
        self.gopt[GS.G_RTOL], self.gopt[GS.G_ATOL], self.gopt[GS.G_MAXIT] = rt, at, int(max_iterations)
        loops = c if self.constraint_work is not None else None
        fw = flex_work(self.data.buf, loops) if self.flex else flex_work()
        self._gw, self.gst = GL.allocate_galpha_work(c.nq, c.nu, ta_work(c, self.constraint_work), fw)

    @property
    def newton_iterations(self):
        """Newton corrections made so far (all steps)."""
        return int(self.gst[GL.S_ITERS])

    @property
    def most_iterations(self):
        """The most Newton corrections of one step so far."""
        return int(self.gst[GL.S_MOST])

    @property
    def iteration_matrices(self):
        """Newton matrices formed so far: one per step, more where a step's iteration
        contracted slowly (a correction above ``galpha_loop.THETA`` times the last)."""
        return int(self.gst[GL.S_MATRICES])

    @property
    def unconverged_steps(self):
        """Steps whose Newton iteration stopped at max_iterations above its tolerance."""
        return int(self.gst[GL.S_UNCONVERGED])

    def set_state(self, t, q, u):
        """``RungeKuttaIntegrator.set_state``; the method's a and u_dot start again from the
        forward dynamics at the new state (a velocity reset makes the old ones stale)."""
        super().set_state(t, q, u)
        self.gst[GL.S_READY] = 0.0

    def integrate(self, t_final, dt, *args, **kwargs):
        """``RungeKuttaIntegrator.integrate``, then a GeneralizedAlphaWarning if some steps
        ended their Newton iteration above its tolerance."""
        try:
            return super().integrate(t_final, dt, *args, **kwargs)
        finally:
            self.warn_unconverged()

    def warn_unconverged(self):
        """Warn (once per count) about the steps whose Newton iteration did not converge."""
        n = self.unconverged_steps
        if n and n != getattr(self, "_warned", 0):
            self._warned = n
            warnings.warn(f"generalized_alpha: the Newton iteration of {n} step{'s' * (n != 1)} stopped at "
                          f"max_iterations = {int(self.gopt[GS.G_MAXIT])} above its tolerance (worst "
                          f"{self.gst[GL.S_WORST]:.3g} times it, in the step from t = {self.gst[GL.S_TWORST]:.6g} s); "
                          f"a force law that jumps (a joint limit's damper engaging at its edge) leaves a step "
                          f"crossing the jump without an exact solution; elsewhere a smaller dt or more "
                          f"max_iterations tighten it", GeneralizedAlphaWarning, stacklevel=4)

    def loop_call(self, T, Q, U):
        c = self._c
        args = (c.mi, self.mf, self.data.buf, self.fmi, self.fmf, self.tau0, self.iopt, self.fopt, self.gopt,
                self.max_angles, self.chart0, self._q, self._u, self.clk, self.ctr, self._ctl, T, Q, U,
                self._gw, self.gst)
        return GL.galpha_entry_point(self._links, self.control is not None, self.constraint_work is not None,
                                     self.flex), args
