"""Entry kernels of models with modal (flexible) bodies, with the rigid entries' arguments:
forward dynamics ``(dbuf, q, u, tau, udot)``, inverse dynamics ``(dbuf, q, u, udot, tau)``,
the mass matrix ``(dbuf, q, M)``, the kinetic energy ``(dbuf, q, u, out (1,))`` and the
mass and centre of mass ``(dbuf, q, out (4,))``, each returning a status (kernels/status.py). The flex
constants are in the model rows of the data buffer and the flex work in its flex region
(kernels/flex_layout.py): ``flex_views.flex_arrays`` cuts the views, and each entry is
compiled without Numba's reference counting (``_nrt=False``: views only, see flex_views).
A compiled model with modal bodies takes these as ``c.kernels.<name>`` (algorithms/entry.py),
so the facade calls them as it calls the rigid ones. ``flex_udot`` is the unchecked forward
dynamics the stepping loop and the batched calls share.
"""
from numba import njit

from .common import check_state_modal_ok, model_arrays, result_status
from .flex_articulated import flex_forward_dynamics, flex_mass_matrix
from .flex_dynamics import flex_inverse_dynamics
from .flex_energy import flex_kinetic_energy, flex_mass_and_com
from .flex_views import flex_arrays
from .status import OK, SINGULAR

_VIEWS_ONLY = dict(cache=True, _nrt=False)


@njit(**_VIEWS_ONLY)
def flex_udot(dbuf, q, u, tau, udot):
    """udot at (q, u, tau), unchecked; False if some articulated inertia is singular."""
    a = flex_arrays(dbuf)
    return flex_forward_dynamics(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, a.stiffness, a.damping,
                                 q, u, tau, a.phi, a.V, a.A, a.F, a.abias, a.pose, a.VN, a.P, a.G, a.Dinv, a.eps,
                                 a.scratch, udot)


@njit(**_VIEWS_ONLY)
def flex_tau(dbuf, q, u, udot, tau):
    """tau = M udot + b + K eta + C eta' at (q, u, udot), unchecked."""
    a = flex_arrays(dbuf)
    flex_inverse_dynamics(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, a.stiffness, a.damping, q, u,
                          udot, a.phi, a.V, a.A, a.F, a.abias, a.pose, a.VN, tau)


@njit(**_VIEWS_ONLY)
def flex_mass(dbuf, q, M):
    """M(q) (nu, nu), unchecked."""
    a = flex_arrays(dbuf)
    flex_mass_matrix(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, q, a.zero, a.phi, a.V, a.abias,
                     a.pose, a.VN, a.P, a.scratch, M)


@njit(**_VIEWS_ONLY)
def forward_dynamics_flex(dbuf, q, u, tau, udot):
    """Checked forward dynamics: a status for (q, u, tau), SINGULAR, or OVERFLOW."""
    mi, _ = model_arrays(dbuf)
    st = check_state_modal_ok(mi, q, u, tau, 1, 1)
    if st == OK and not flex_udot(dbuf, q, u, tau, udot):
        return SINGULAR
    return result_status(st, udot)


@njit(**_VIEWS_ONLY)
def inverse_dynamics_flex(dbuf, q, u, udot, tau):
    """Checked inverse dynamics: a status for (q, u, udot), or OVERFLOW."""
    mi, _ = model_arrays(dbuf)
    st = check_state_modal_ok(mi, q, u, udot, 1, 1)
    if st == OK:
        flex_tau(dbuf, q, u, udot, tau)
    return result_status(st, tau)


@njit(**_VIEWS_ONLY)
def mass_matrix_flex(dbuf, q, M):
    """Checked mass matrix: a status for q, or OVERFLOW."""
    mi, _ = model_arrays(dbuf)
    st = check_state_modal_ok(mi, q, q, q, -1, -1)
    if st == OK:
        flex_mass(dbuf, q, M)
    return result_status(st, M)


@njit(**_VIEWS_ONLY)
def kinetic_energy_flex(dbuf, q, u, out):
    """Checked kinetic energy into out[0]: a status for (q, u), or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, u, u, 1, -1)
    if st == OK:
        out[0] = flex_kinetic_energy(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, q, u, a.phi, a.V,
                                     a.abias, a.pose, a.VN)
    return result_status(st, out)


@njit(**_VIEWS_ONLY)
def mass_and_com_flex(dbuf, q, out):
    """Checked [total mass, centre of mass (3)] into out: a status for q, or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        flex_mass_and_com(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, q, a.zero, a.phi, a.V,
                          a.abias, a.pose, a.VN, out)
    return result_status(st, out)
