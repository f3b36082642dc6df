"""Entry kernels of the analytic derivatives of the dynamics of models with modal (flexible)
bodies (kernels/flex_dynamics_derivatives.py), with the flex entries' conventions
(kernels/flex_entry.py: one data buffer, views cut by ``flex_views.flex_arrays``, compiled
without reference counting, a status returned): the inverse dynamics derivatives
``(dbuf, q, u, udot, frames, wrenches, T, dtau_dq, dtau_du, M)`` and the forward ones
``(dbuf, q, u, tau, frames, wrenches, T, W, udot, dudot_dq, dudot_du, Minv)``; frames and
wrenches: f_ext as frame rows (k,) and wrenches (k, 6) in the frames' axes; T: the work array
of ``derivatives_work_size(dbuf)`` numbers; W: M^-1's work (``work_shapes.minv_work_shape``).
"""
from numba import njit

from . import flex_layout as FL
from .common import check_state_modal_ok, model_arrays, result_status
from .flex_body_inertia import body_masses
from .flex_dynamics_derivatives import flex_inverse_dynamics_tangents
from .flex_entry import flex_mass, flex_tau, flex_udot
from .flex_inverse_mass import flex_inverse_mass_matrix
from .flex_jacobian import frame_map
from .flex_views import flex_arrays
from .layout import PARENT
from .status import OK, SINGULAR

_VIEWS_ONLY = dict(cache=True, _nrt=False)


@njit(cache=True, inline="always")
def nb_max(fi):
    """The largest block size nb of the links (at least 6)."""
    nbm = 6
    for k in range(fi.shape[0]):
        nbm = max(nbm, fi[k, FL.NB])
    return nbm


@njit(**_VIEWS_ONLY)
def derivatives_work_size(dbuf):
    """The length of the work array T the flex derivative entries take: dV, dA, dF (like V),
    a tau (nu), two (nu, nu) blocks, one body's dM (nb_max^2) and a frame map (6 nb_max)."""
    a = flex_arrays(dbuf)
    nbm = nb_max(a.fi)
    nu = a.zero.shape[0]
    return 3 * a.V.shape[0] + nu + 2 * nu * nu + nbm * nbm + 6 * nbm


@njit(**_VIEWS_ONLY)
def flex_tangents(dbuf, q, u, udot, frames, wrenches, T, dtau_dq, dtau_du):
    """dtau_dq, dtau_du at (q, u, udot) of tau = ID - sum J_F^T w (wrenches (k, 6) at the frame
    rows ``frames``, on rigid frames of their links: fixed in them, they join the links' net
    forces and turn with them) into the given arrays (unchecked; T as
    ``derivatives_work_size``)."""
    a = flex_arrays(dbuf)
    nv, nu = a.V.shape[0], a.zero.shape[0]
    o = 3 * nv + nu + 2 * nu * nu
    nbm = nb_max(a.fi)
    held_base_pass(dbuf, q, u, udot, frames, wrenches, T)
    flex_inverse_dynamics_tangents(a.mi, a.mf, a.ws, a.fi, a.fm1, a.fm2, a.M, a.fnode, a.stiffness, a.damping, q, u,
                                   udot, a.phi, a.V, a.A, a.F, a.abias, T[:nv], T[nv:2 * nv], T[2 * nv:3 * nv],
                                   T[o:o + nbm * nbm], T[o + nbm * nbm:], dtau_dq, dtau_du)


@njit(**_VIEWS_ONLY)
def held_base_pass(dbuf, q, u, udot, frames, wrenches, T):
    """The base pass of ``flex_tangents``: the flex RNEA at (q, u, udot), then the wrenches
    taken from the net forces of their links and the ancestors (their rigid part X(F<-L)^T w;
    unchecked; T as ``derivatives_work_size``): what the column passes read."""
    a = flex_arrays(dbuf)
    nv, nu = a.V.shape[0], a.zero.shape[0]
    tau = T[3 * nv:3 * nv + nu]
    B = T[3 * nv + nu + 2 * nu * nu + nb_max(a.fi) ** 2:]
    flex_tau(dbuf, q, u, udot, tau)
    for i in range(frames.shape[0]):  # the net forces of L and its ancestors less X(F<-L)^T w
        L = frame_map(a.mi, a.fi, a.fnode, a.frame_node, a.fr, q, frames[i], B)[0]
        if L < 0:
            continue
        nb = a.fi[L, FL.NB]
        for c in range(6):
            s = 0.0
            for r in range(6):
                s += B[r * nb + c] * wrenches[i, r]
            B[c] = s  # (row 0 of B is read no more)
        k = L
        while k >= 0:
            vo = a.fi[k, FL.VOFF]
            for r in range(6):
                a.F[vo + r] -= B[r]
            p = a.mi[k, PARENT]
            if p >= 0:  # Phi_k carries it: rigid rows into B[6:12], modal rows straight into F_p
                o, nbp, vp = a.fi[k, FL.PHI], a.fi[p, FL.NB], a.fi[p, FL.VOFF]
                for c in range(nbp):
                    s = 0.0
                    for r in range(6):
                        s += a.phi[o + r * nbp + c] * B[r]
                    if c < 6:
                        B[6 + c] = s
                    else:
                        a.F[vp + c] -= s
                for c in range(6):
                    B[c] = B[6 + c]
            k = p


@njit(**_VIEWS_ONLY)
def inverse_dynamics_derivatives_flex(dbuf, q, u, udot, frames, wrenches, T, dtau_dq, dtau_du, M):
    """Checked analytic inverse dynamics derivatives (kernels/flex_dynamics_derivatives.py):
    a status for (q, u, udot), or OVERFLOW."""
    mi, _ = model_arrays(dbuf)
    st = check_state_modal_ok(mi, q, u, udot, 1, 1)
    if st != OK:
        return st
    flex_tangents(dbuf, q, u, udot, frames, wrenches, T, dtau_dq, dtau_du)
    flex_mass(dbuf, q, M)
    return result_status(result_status(result_status(st, dtau_dq), dtau_du), M)


@njit(**_VIEWS_ONLY)
def forward_dynamics_derivatives_flex(dbuf, q, u, tau, frames, wrenches, T, W, udot, dudot_dq, dudot_du, Minv):
    """Checked analytic forward dynamics derivatives: udot = FD(q, u, tau) (tau with the
    wrenches' generalized forces already added by the caller), then
    dudot_dx = -M^-1 dtau_dx at that udot and dudot_dtau = M^-1 (W: M^-1's work,
    ``work_shapes.minv_work_shape``). A status, SINGULAR or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, u, tau, 1, 1)
    if st != OK:
        return st
    if not flex_udot(dbuf, q, u, tau, udot):
        return SINGULAR
    nv, nu = a.V.shape[0], a.zero.shape[0]
    o = 3 * nv + nu
    Tq = T[o:o + nu * nu].reshape((nu, nu))
    Tu = T[o + nu * nu:o + 2 * nu * nu].reshape((nu, nu))
    flex_tangents(dbuf, q, u, udot, frames, wrenches, T, Tq, Tu)
    body_masses(a.fi, a.fmass, a.fm1, a.fm2, q, a.M)
    if not flex_inverse_mass_matrix(a.mi, a.mf, a.ws, a.fi, a.M, a.fnode, q, a.zero, a.phi, a.V, a.abias, a.pose,
                                    a.VN, a.P, a.G, a.Dinv, a.scratch, W, Minv):
        return SINGULAR
    for r in range(nu):
        for c in range(nu):
            sq = su = 0.0
            for i in range(nu):
                sq += Minv[r, i] * Tq[i, c]
                su += Minv[r, i] * Tu[i, c]
            dudot_dq[r, c] = -sq
            dudot_du[r, c] = -su
    return result_status(result_status(result_status(st, dudot_dq), dudot_du), Minv)
