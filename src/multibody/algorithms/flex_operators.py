"""Operators of models with modal (flexible) bodies beyond the dynamics of algorithms/flex.py:
the inverse mass matrix, the operational-space compliance, frame Jacobians, velocities and
accelerations (deforming nodes included), and external wrenches at frames.

The facade functions (dynamics.inverse_mass_matrix, operational_space_compliance,
kinematics.body_jacobian, ...) hand over here when their rigid kernel answers MODAL, so
rigid models pay nothing for it. Kernels: kernels/flex_inverse_mass.py,
flex_operational_space.py, flex_jacobian.py, flex_external_forces.py (all O(N), M^-1 O(N nu)).
"""
import numpy as np

from ..kernels.flex_body_inertia import body_masses
from ..kernels.flex_external_forces import flex_external_generalized_forces
from ..kernels.flex_inverse_mass import flex_inverse_mass_matrix
from ..kernels.flex_jacobian import flex_frame_jacobian, flex_frame_velocity_acceleration
from ..kernels.flex_operational_space import flex_operational_space_compliance, scratch_size
from . import flex
from .checks import check_out, check_vector, data_object, frame_row, frame_rows


def _mass_blocks(c, w, q):
    """The (6 + n_modes) mass blocks M_k(eta) of every link at q (nb x nb at fi[k, MADR]),
    written into the work array w.M."""
    f = c.flex
    body_masses(f.fi, f.fmass, f.fm1, f.fm2, q, w.M)
    return w.M


def _work(c, d):
    """(flex work views of Data d, sizes (max nb, max NUALL), scratch for these kernels)."""
    w = d.flex_work
    nbm, size = scratch_size(c.flex.fi)
    scratch = d.dense_scratch(("flex_operators", "scratch"), (size,))
    return w, nbm, scratch


def inverse_mass_matrix(m, q, out=None, data=None):
    """M(q)^-1 (nu, nu) of a model with modal bodies, by the articulated-body recursion on all
    unit forces at once, O(N nu): no M, no factorisation (kernels/flex_inverse_mass.py)."""
    c = m.compiled
    f = c.flex
    d = data_object(c, data)
    q = check_vector(q, c.nq, "q", c)
    out = np.empty((c.nu, c.nu)) if out is None else out
    check_out(out, (c.nu, c.nu))
    w, _, scratch = _work(c, d)
    W = d.dense_scratch(("flex_operators", "minv"), (w.V.shape[0], c.nu))
    ok = flex_inverse_mass_matrix(c.mi, c.mf, d.ws, f.fi, _mass_blocks(c, w, q), f.fnode, q, w.zero, w.phi,
                                  w.V, w.abias, w.pose, w.VN, w.P, w.G, w.Dinv, scratch, W, out)
    if not ok:
        raise ValueError("the joint-space inertia of a subhinge or modal body is singular")
    return out


def operational_space_compliance(m, q, frames, data=None):
    """Upsilon (6k, 6k) = J M(q)^-1 J^T at k bodies or nodes of a model with modal bodies, by
    recursion, O(N + k^2 d) (kernels/flex_operational_space.py). J stacks the frames' body
    Jacobians: at a deforming node they include its modal columns."""
    c = m.compiled
    f = c.flex
    d = data_object(c, data)
    q = check_vector(q, c.nq, "q", c)
    rows = frame_rows(c, frames)
    k = rows.size
    w, nbm, scratch = _work(c, d)
    Om = d.dense_scratch(("flex_operators", "omega"), w.P.shape)
    Bf = d.dense_scratch(("flex_operators", "frames", k), (k, 6 * nbm))
    Bw = d.dense_scratch(("flex_operators", "walk"), (24 * nbm,))
    out = np.empty((6 * k, 6 * k))
    ok = flex_operational_space_compliance(c.mi, c.mf, d.ws, f.fi, _mass_blocks(c, w, q), f.fnode, f.frame_node, c.fr, q,
                                           w.zero, w.phi, w.V, w.abias, w.pose, w.VN, w.P,
                                           w.G, w.Dinv, scratch, Om, np.zeros(c.n_links, dtype=np.int64), rows,
                                           Bf, Bw, out)
    if not ok:
        raise ValueError("the joint-space inertia of a subhinge or modal body is singular")
    return out


def frame_jacobian(m, q, row, data=None):
    """(J (6, nu), T_world_frame (4, 4)) of frame row ``row``: J maps u to [w; v] of the
    frame in its own axes (v: its origin's velocity); a node of a modal body moves with its
    mode shapes, so its Jacobian has the body's modal columns."""
    c = m.compiled
    f = c.flex
    d = data_object(c, data)
    q = check_vector(q, c.nq, "q", c)
    w, nbm, _ = _work(c, d)
    J = np.zeros((6, c.nu))
    T = np.empty((4, 4))
    B = d.dense_scratch(("flex_operators", "jacobian"), (12 * nbm,))
    flex_frame_jacobian(c.mi, c.mf, d.ws, f.fi, f.fnode, f.frame_node, c.fr, q, w.zero, w.phi, w.V,
                        w.abias, w.pose, w.VN, int(row), B, T, J)
    return J, T


def frame_velocity_acceleration(m, q, u, udot, row, data=None):
    """(12,): [w; v] of frame row ``row`` and its spatial acceleration (the rate of [w; v],
    gravity not included), both in its own axes (udot None: zero)."""
    c = m.compiled
    f = c.flex
    d = data_object(c, data)
    q, u = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c)
    udot = np.zeros(c.nu) if udot is None else check_vector(udot, c.nu, "udot", c)
    w, nbm, _ = _work(c, d)
    B = d.dense_scratch(("flex_operators", "jacobian"), (12 * nbm,))
    out = np.empty(12)
    flex_frame_velocity_acceleration(c.mi, c.mf, d.ws, f.fi, f.fnode, f.frame_node, c.fr, q, u, udot, w.phi,
                                     w.V, w.A, w.abias, w.pose, w.VN, int(row), B, out)
    return out


def external_generalized_forces(m, q, f_ext, data=None):
    """tau_ext (nu,) = sum J_F^T w_F of f_ext {body or node name: wrench (6,) [moment; force]
    about the frame's origin, in its axes}: at a deforming node it reaches the modal rates."""
    c = m.compiled
    f = c.flex
    d = data_object(c, data)
    q = check_vector(q, c.nq, "q", c)
    if not isinstance(f_ext, dict):
        raise ValueError("f_ext must be a dict {body or node name: wrench (6,) [moment; force] "
                         "about the frame origin, in the frame's axes}")
    rows = np.array([frame_row(c, name) for name in f_ext], dtype=np.int64)
    wrenches = np.zeros((rows.size, 6))
    for i, (name, x) in enumerate(f_ext.items()):
        x = np.asarray(x, dtype=float)
        if x.shape != (6,) or not np.all(np.isfinite(x)):
            raise ValueError(f"f_ext[{name!r}] must be a finite (6,) wrench, got {x!r}")
        wrenches[i] = x
    w, nbm, _ = _work(c, d)
    F = d.dense_scratch(("flex_operators", "forces"), w.V.shape)
    B = d.dense_scratch(("flex_operators", "jacobian"), (12 * nbm,))
    tau = np.empty(c.nu)
    flex_external_generalized_forces(c.mi, c.mf, d.ws, f.fi, f.fnode, f.frame_node, c.fr, q, w.zero,
                                     w.phi, w.V, w.abias, w.pose, w.VN, rows, wrenches, F, B, tau)
    return tau


def forward_dynamics(m, q, u, tau, f_ext, out=None, data=None):
    """udot of a model with modal bodies under tau and the wrenches f_ext at frames:
    flex forward dynamics with tau + sum J^T w (see ``external_generalized_forces``)."""
    c = m.compiled
    tau = check_vector(tau, c.nu, "tau", c) + external_generalized_forces(m, q, f_ext, data)
    return flex.forward_dynamics(m, q, u, tau, out, data)


def inverse_dynamics(m, q, u, udot, f_ext, out=None, data=None):
    """tau = M udot + b + K eta + C eta' - sum J^T w of a model with modal bodies: the
    generalized forces that, with the wrenches f_ext at frames, produce udot."""
    tau_ext = external_generalized_forces(m, q, f_ext, data)
    out = flex.inverse_dynamics(m, q, u, udot, out, data)
    out -= tau_ext
    return out


def add_modal_rate_blocks(c, N):
    """N+ (nu, nq) with the identity blocks of the modal coordinates (eta' = u's modal
    rates) written in: the rigid coordinate maps know only the hinges' coordinates."""
    for qs, us in c.modal_slices.values():
        N[us, qs] = np.eye(us.stop - us.start)
    return N
