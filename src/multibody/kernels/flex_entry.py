"""Entry kernels of models with modal (flexible) bodies, with the rigid entries' arguments
(each returning a status, kernels/status.py): forward dynamics ``(dbuf, q, u, tau, udot)``,
inverse dynamics ``(dbuf, q, u, udot, tau)``, the mass matrix ``(dbuf, q, M)``, its inverse
``(dbuf, q, W, Minv)``, the operational-space compliance ``(dbuf, q, frames, W, out)``, frame
poses ``(dbuf, q, f, T)``, Jacobians ``(dbuf, q, f, T, J)``, velocities and accelerations
``(dbuf, q, u, udot, f, out (12,))``, the kinetic energy ``(dbuf, q, u, out (1,))``, the mass
and centre of mass ``(dbuf, q, out (4,))`` and the energies of a trajectory ``(dbuf, Q, U,
out (N, 6))``, the constraint rows ``(dbuf, q, u, W)`` and the constrained forward dynamics
``(dbuf, q, u, tau, W, udot)`` (W: the constraint work array, as the rigid kernels'); and
two that rigid models have no use for: the strain energy ``(dbuf, q,
out (1,))`` and the generalized forces of wrenches at frames ``(dbuf, q, frames, wrenches,
tau)``. The flex constants are in the model rows of the data buffer and the flex work in
its flex region (kernels/flex_layout.py, its scratch sized for every kernel here):
``flex_views.flex_arrays`` cuts the views, and each entry is compiled without Numba's
reference counting (``_nrt=False``: views only, see flex_views). The work arrays W are the
caller's, of the shapes ``work_shapes`` gives for the model (the rigid kernels' too). A compiled model with modal bodies takes these as ``c.kernels.<name>``
(algorithms/entry.py), so the facade calls them as it calls the rigid ones. ``flex_udot``
is the unchecked forward dynamics the stepping loop and the batched calls share.
"""
import numpy as np
from numba import njit

from . import flex_layout as FL
from .common import check_state_modal_ok, model_arrays, result_status
from .flex_articulated import flex_forward_dynamics, flex_mass_matrix
from .constraint_work import WC_KD, WC_KP, WC_LAMBDA, WC_ROW, row_offset
from .flex_body_inertia import body_masses
from .flex_constrained import (
    F_C, F_G, F_RV, F_VEC, N_RV, N_VEC, R_LAMBDA, V_UDOT, piece, flex_constrained_dynamics, flex_constraint_rows,
)
from .flex_dynamics import flex_inverse_dynamics
from .flex_energy import flex_kinetic_energy, flex_mass_and_com, flex_strain_energy
from .flex_external_forces import flex_external_generalized_forces
from .flex_inverse_mass import flex_inverse_mass_matrix
from .flex_jacobian import flex_frame_jacobian, flex_frame_pose, flex_frame_velocity_acceleration
from .flex_operational_space import flex_operational_space_compliance
from .flex_views import flex_arrays
from .status import BAD_LENGTH_ARG1, BAD_LENGTH_ARG2, OK, SINGULAR

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


@njit(**_VIEWS_ONLY)
def inverse_mass_matrix_flex(dbuf, q, W, Minv):
    """Checked M^-1 into Minv (nu, nu): a status for q (BAD_LENGTH_ARG1: Minv is not (nu,
    nu)), SINGULAR, or OVERFLOW. W: ``work_shapes.minv_work_shape``."""
    a = flex_arrays(dbuf)
    nu = a.zero.shape[0]
    if Minv.shape[0] != nu or Minv.shape[1] != nu:
        return BAD_LENGTH_ARG1
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        body_masses(a.fi, a.fmass, a.fm1, a.fm2, q, a.M)
        if not flex_inverse_mass_matrix(a.mi, a.mf, a.ws, a.fi, a.M, a.fnode, q, a.zero, a.phi, a.V, a.abias,
                                        a.pose, a.VN, a.P, a.G, a.Dinv, a.scratch, W, Minv):
            return SINGULAR
    return result_status(st, Minv)


@njit(**_VIEWS_ONLY)
def operational_space_compliance_flex(dbuf, q, frames, W, out):
    """Checked Upsilon (6k, 6k) at the k frame rows ``frames``: a status for q, or SINGULAR
    (the result is checked by the caller, as the rigid kernel's). W:
    ``work_shapes.compliance_work_shape`` (its pieces cut here)."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st != OK:
        return st
    n = a.mi.shape[0]
    k = frames.shape[0]
    nbm = 6
    for j in range(n):
        nbm = max(nbm, a.fi[j, FL.NB])
    w = W.reshape(-1)
    o1 = a.P.shape[0]
    o2 = o1 + 6 * nbm * k
    o3 = o2 + 24 * nbm
    body_masses(a.fi, a.fmass, a.fm1, a.fm2, q, a.M)
    if not flex_operational_space_compliance(a.mi, a.mf, a.ws, a.fi, a.M, a.fnode, a.frame_node, a.fr, q, a.zero,
                                             a.phi, a.V, a.abias, a.pose, a.VN, a.P, a.G, a.Dinv, a.scratch,
                                             w[:o1], w[o3:o3 + n].view(np.int64), frames,
                                             w[o1:o2].reshape((k, 6 * nbm)), w[o2:o3], out):
        return SINGULAR
    return OK


@njit(**_VIEWS_ONLY)
def frame_pose_flex(dbuf, q, f, T):
    """Checked world pose T (4, 4) of frame row f (a node deformed): a status for q, or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        flex_frame_pose(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, q, a.zero, a.phi, a.V, a.abias, a.pose,
                        a.VN, f, T)
    return result_status(st, T)


@njit(**_VIEWS_ONLY)
def frame_jacobian_flex(dbuf, q, f, T, J):
    """Checked body Jacobian J (6, nu), zero on entry, of frame row f (a node's modal columns
    included) and its world pose T: a status for q, or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        flex_frame_jacobian(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, q, a.zero, a.phi, a.V, a.abias,
                            a.pose, a.VN, f, a.scratch, T, J)
    return result_status(result_status(st, T), J)


@njit(**_VIEWS_ONLY)
def frame_velocity_acceleration_flex(dbuf, q, u, udot, f, out):
    """Checked [w; v] and spatial acceleration (12,) of frame row f in its own axes: a status
    for (q, u, udot), or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, u, udot, 1, 1)
    if st == OK:
        flex_frame_velocity_acceleration(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, q, u, udot, a.phi,
                                         a.V, a.A, a.abias, a.pose, a.VN, f, a.scratch, out)
    return result_status(st, out)


@njit(**_VIEWS_ONLY)
def strain_energy_flex(dbuf, q, out):
    """Checked strain energy 1/2 sum eta^T K eta [J] into out[0]: a status for q, or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        out[0] = flex_strain_energy(a.fi, a.stiffness, q)
    return result_status(st, out)


@njit(**_VIEWS_ONLY)
def trajectory_energies_flex(dbuf, Q, U, out):
    """Checked out[k] = (kinetic energy, total mass, centre of mass (3), strain energy) at
    (Q[k], U[k]) (out (N, 6)): (status, k) of the first bad sample k, or (OK, N)."""
    a = flex_arrays(dbuf)
    for k in range(Q.shape[0]):
        q = Q[k]
        u = U[k]
        st = check_state_modal_ok(a.mi, q, u, u, 1, -1)
        if st != OK:
            return st, k
        out[k, 0] = flex_kinetic_energy(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, q, u, a.phi,
                                        a.V, a.abias, a.pose, a.VN)
        flex_mass_and_com(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, q, a.zero, a.phi, a.V,
                          a.abias, a.pose, a.VN, out[k, 1:5])
        out[k, 5] = flex_strain_energy(a.fi, a.stiffness, q)
        st = result_status(st, out[k])
        if st != OK:
            return st, k
    return OK, Q.shape[0]


@njit(**_VIEWS_ONLY)
def external_generalized_forces_flex(dbuf, q, frames, wrenches, tau):
    """Checked tau (nu,) = sum J_F^T w of the wrenches (k, 6) at the frame rows ``frames``
    (a deforming node's reach its modal rates): a status for q, or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, q, q, -1, -1)
    if st == OK:
        flex_external_generalized_forces(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, q, a.zero, a.phi, a.V,
                                         a.abias, a.pose, a.VN, frames, wrenches, a.F, a.scratch, tau)
    return result_status(st, tau)


@njit(**_VIEWS_ONLY)
def _constraint_outputs(a, u, W, with_dynamics):
    """Copy the constraint kernels' results from their work (``flex_constrained``'s pieces)
    into the caller's constraint work array W, laid out as the rigid kernels leave it
    (kernels/constraint_work.py): Gc in W[:, :nu], each row's coefficients at WC_ROW, and with
    the dynamics the multipliers at WC_LAMBDA."""
    nu, nc = u.shape[0], a.cr.shape[0]
    c0 = row_offset(nu, nc)
    C = piece(a.con_work, a.con_table, F_C, nc, 16)
    Gc = piece(a.con_work, a.con_table, F_G, nc, nu)
    lam = piece(a.con_work, a.con_table, F_RV, N_RV, nc)[R_LAMBDA]
    for r in range(nc):
        for c in range(nu):
            W[r, c] = Gc[r, c]
        for k in range(16):
            W[r, c0 + WC_ROW + k] = C[r, k]
        if with_dynamics:
            W[r, c0 + WC_LAMBDA] = lam[r]


@njit(**_VIEWS_ONLY)
def constraint_rows_flex(dbuf, q, u, W):
    """Checked rows of the enabled constraints at (q, u), frames on deforming nodes included
    (``flex_constrained.flex_constraint_rows``): Gc and the coefficients in W as the rigid
    ``evaluate_constraint_rows`` leaves them. Returns a status."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, u, u, 1, -1)
    if st != OK or a.cr.shape[0] == 0:
        return st
    st = flex_constraint_rows(a.mi, a.mf, a.ws, a.fi, a.fnode, a.frame_node, a.fr, a.cr, q, u, a.phi, a.V, a.A,
                              a.abias, a.pose, a.VN, a.con_table, a.con_work)
    if st == OK:
        _constraint_outputs(a, u, W, False)
    return st


@njit(**_VIEWS_ONLY)
def constrained_forward_dynamics_flex(dbuf, q, u, tau, W, udot):
    """Checked constrained forward dynamics (``flex_constrained.flex_constrained_dynamics``)
    with the Baumgarte gains at W's WC_KP, WC_KD columns (written by the caller, as for the
    rigid kernel): udot, and Gc, the rows' coefficients and the multipliers in W. A status for
    (q, u, tau) (BAD_LENGTH_ARG2 also when udot's length is not nu), SINGULAR, or OVERFLOW."""
    a = flex_arrays(dbuf)
    st = check_state_modal_ok(a.mi, q, u, tau, 1, 1)
    if st == OK and udot.shape[0] != u.shape[0]:
        return BAD_LENGTH_ARG2
    if st != OK:
        return st
    nu, nc = u.shape[0], a.cr.shape[0]
    c0 = row_offset(nu, nc)
    st = flex_constrained_dynamics(a.mi, a.mf, a.ws, a.fi, a.fmass, a.fm1, a.fm2, a.M, a.fnode, a.frame_node, a.fr,
                                   a.cr, a.stiffness, a.damping, q, u, tau, W[:, c0 + WC_KP:c0 + WC_KD + 1], a.phi,
                                   a.V, a.A, a.F, a.abias, a.pose, a.VN, a.P, a.G, a.Dinv, a.eps, a.scratch,
                                   a.con_table, a.con_work)
    if st != OK:
        return st
    vec = piece(a.con_work, a.con_table, F_VEC, N_VEC, nu)
    for c in range(nu):
        udot[c] = vec[V_UDOT, c]
    _constraint_outputs(a, u, W, True)
    return result_status(st, udot)
