"""What a ``simulate`` call's ``integrator`` names: the integrator class, its tableau, its
settings and the step the force models are sized for."""
from collections import namedtuple

from .galpha import GeneralizedAlphaIntegrator, run_options
from .integrators import MuntheKaasIntegrator, RungeKuttaIntegrator
from .moreau import MoreauIntegrator
from .radau import RadauIntegrator, radau_settings
from .tableaus import ButcherTableau, get_tableau

__all__ = ["INTEGRATORS", "Choice", "choose", "resolve"]

#: integrator names ``simulate`` accepts.
INTEGRATORS = ("euler", "midpoint", "heun", "rk4", "rk38", "bs32", "dopri5", "munthe_kaas", "moreau",
               "generalized_alpha", "radau")

#: cls, tableau, lie (Munthe-Kaas), settings (the class's keyword arguments), implicit_damping,
#: step (the fixed step [s] the limits and damping are sized for; None: adaptive), name, and
#: whether the method takes every stiff force implicitly itself (``implicit``)
Choice = namedtuple("Choice", "cls tableau lie settings implicit_damping step name implicit")


def resolve(integrator, tableau):
    """(tableau, lie_group) for an ``integrator`` name / tableau."""
    if isinstance(integrator, ButcherTableau):
        return integrator, False
    if not isinstance(integrator, str):
        raise ValueError(f"integrator must be a name {INTEGRATORS} or a ButcherTableau, got {integrator!r}")
    name = integrator.lower()
    if name in ("munthe_kaas", "mk", "munthe-kaas"):
        return get_tableau(tableau or "rk4"), True
    if tableau is not None:
        raise ValueError("tableau= is only used with integrator='munthe_kaas'")
    return get_tableau(name), False


def choose(integrator, tableau, options, implicit_damping, dt):
    """The ``Choice`` for ``integrator`` (a name or a tableau; "moreau" after
    ``contact_integrator``), ``tableau``, ``integrator_options``, ``implicit_damping`` and
    the step or output interval ``dt`` [s]. The implicit methods take no implicit damping."""
    moreau = integrator == "moreau"
    radau = isinstance(integrator, str) and integrator.lower() == "radau"
    if radau:
        galpha, settings, implicit_damping = False, radau_settings(options), False
    else:
        galpha, settings, implicit_damping = run_options(integrator, options, implicit_damping)
    tab, lie = resolve("euler" if moreau or galpha or radau else integrator, tableau)
    cls = MoreauIntegrator if moreau else GeneralizedAlphaIntegrator if galpha else RadauIntegrator if radau else \
        MuntheKaasIntegrator if lie else RungeKuttaIntegrator
    step = None if tab.is_embedded or (radau and settings.get("adaptive", True)) else dt
    name = "moreau" if moreau else "generalized_alpha" if galpha else "radau" if radau else \
        ("munthe_kaas/" if lie else "") + tab.name
    return Choice(cls, tab, lie, settings, implicit_damping, step, name, galpha or radau)
