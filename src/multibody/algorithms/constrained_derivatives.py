"""Derivatives of the dynamics of models with enabled constraints (closed loops, convel and
coordinate constraints): ``forward_dynamics_derivatives``' checked path for them.

The function differentiated is exactly ``forward_dynamics``' for such models: the
tree-augmented constrained udot (kernels/constrained_dynamics.py), with the Baumgarte gains of
the Data's constraint work array (zero, as ``forward_dynamics`` has them). Rows the TA drops as
redundant stay dropped (a set that is constant near the state). The kernel is
kernels/constrained_dynamics_derivatives.py: the KKT system's derivatives, with the rows'
terms analytic from their frames' kinematics, one compiled call. Models with modal (flexible)
bodies take the same route through their own kernel (``flex_derivatives.flex_constrained_derivatives``,
kernels/flex_constrained_derivatives.py), so ``constrained_modal_analysis`` serves them too.
"""
import warnings

import numpy as np

from ..kernels import layout as L
from ..kernels.constraint_work import K_COLS
from .checks import as_float_vector, data_object, raise_status, zero_division_error
from .constraints import constraint_jacobian, constraint_work, pose_error
from .dynamics import inverse_dynamics, mass_matrix
from .entry import KERNELS
from .external_forces import with_external_forces
from .flex_derivatives import flex_constrained_derivatives

NAMES = ("q", "u", "tau")


def _work(c, d):
    """(M^-1's work, the (3, nu, nu) tree derivatives, the (5, nc, nu) rows' arrays, the links'
    (n, 12) motion, the (3, 2 K_COLS) frame scratch) of Data d."""
    if d.minv_work is None:
        d.minv_work = np.zeros(c.minv_work_shape)
    return (d.minv_work, d.dense_scratch("derivatives", (3, c.nu, c.nu)),
            d.dense_scratch("constrained_derivatives", (5, c.nc, c.nu)),
            d.dense_scratch("constrained_motion", (c.n_links, 12)), d.dense_scratch("row_tangents", (3, 2 * K_COLS)))


def constrained_forward_dynamics_derivatives(m, q, u, tau, f_ext=None, data=None, public=None):
    """(dudot_dq, dudot_du, dudot_dtau) of ``forward_dynamics`` on a model with enabled
    constraints (see ``derivatives.forward_dynamics_derivatives``); dudot_dtau is the
    constrained inverse mass Mc^-1 = M^-1 - M^-1 Gc^T Gamma^+ Gc M^-1. ``public``: the function
    that ``with_external_forces`` calls again with f_ext loaded. One state (stacked ones: the
    batch kernel, ``batch.constrained_forward_dynamics_derivatives``)."""
    c = m.compiled
    if c.flex is not None:  # modal bodies: their own kernel (flex_derivatives)
        return flex_constrained_derivatives(m, q, u, tau, f_ext, data)
    d = data_object(c, data)
    if f_ext is not None:
        return with_external_forces(c, d, f_ext, public, m, q, u, tau, None, d)
    W = constraint_work(c, d)
    outs = (np.empty(c.shape_M), np.empty(c.shape_M), np.empty(c.shape_M))
    kernel = KERNELS.constrained_dynamics_derivatives
    state = (q, u, tau)
    try:
        try:
            st = kernel(d.buf, *state, W, *_work(c, d), *outs)
        except TypeError:
            state = tuple(as_float_vector(x, n) for x, n in zip(state, NAMES))
            st = kernel(d.buf, *state, W, *_work(c, d), *outs)
    except ZeroDivisionError as e:
        raise zero_division_error(c, state[0], e) from None
    if st:
        raise_status(c, st, NAMES, state)
    return outs


def constrained_modal_analysis(m, q, stiffness, rtol, closure_tol=1e-8):
    """``modal_analysis`` of a model with enabled constraints: the modes of the motion on the
    constraint manifold, in the independent directions X (an orthonormal basis of the null
    space of Gc(q), dq = X dq_i; any basis of it gives the same modes, so constraint embedding's
    [I; -G_d^-1 G_i] would too). At rest at an equilibrium udot = 0, so the rows' acceleration
    term drops and the constrained dudot_dq = -Mc^-1 (K - d(Gc^T lambda)/dq), whence
        K_i = -X^T M dudot_dq X = X^T (K - d(Gc^T lambda)/dq) X,   M_i = X^T M X
    (X^T M Mc^-1 = X^T as Gc X = 0): the constraint forces' own stiffness included. Returns
    (omega (n_i,), modes (nu, n_i) = X v, M-orthonormal). Warns when q does not close the
    constraints (pose errors above ``closure_tol``) or is not an equilibrium on them (X^T of the
    forces that hold q above ``rtol`` of the gravity load)."""
    c = m.compiled
    nu = c.nu
    zero = np.zeros(nu)
    residual = np.abs(pose_error(m, q, "residual")).max(initial=0.0)
    if residual > closure_tol:
        warnings.warn(f"modal_analysis: q does not close the constraints (largest pose error {residual:.2e}); "
                      "the modes are of the tangent space at q", RuntimeWarning, stacklevel=3)
    from scipy.linalg import eigh, null_space  # (lazy, as constraint_embedding's qr)
    X = null_space(constraint_jacobian(m, q))
    M = mass_matrix(m, q)
    dudot_dq = constrained_forward_dynamics_derivatives(m, q, zero, zero)[0]
    K = -X.T @ M @ dudot_dq @ X
    if stiffness is not None:
        K = K + X.T @ stiffness @ X
    held = X.T @ inverse_dynamics(m, q, zero, zero)
    load = max(np.abs(K).max(initial=0.0), np.abs(M).max(initial=0.0) * np.linalg.norm(c.mf[c.n_links, L.GRAVITY:
                                                                                             L.GRAVITY + 3]))
    if np.abs(held).max(initial=0.0) > rtol * max(load, 1e-300):
        warnings.warn(f"modal_analysis: q is not an equilibrium on the constraints: the forces that hold it, in "
                      f"the independent directions, are {held}; the modes are of the symmetric part of the "
                      "stiffness", RuntimeWarning, stacklevel=3)
    w2, v = eigh(0.5 * (K + K.T), X.T @ M @ X)
    return natural_frequencies(w2, rtol), X @ v


def natural_frequencies(w2, rtol):
    """omega = sign(w2) sqrt(|w2|) of the eigenvalues w2 of K v = w^2 M v, those with |w2| at
    most ``rtol`` times the largest set to 0 (rigid-body modes). A RuntimeWarning names the
    ones so set that stand well above round-off (10^4 eps times the largest): with very
    stiff springs in K, a real mode can fall under rtol's share of the largest, and it would
    be reported as rigid without a word."""
    w2 = np.array(w2, dtype=float)
    top = max(np.abs(w2).max(initial=0.0), 1e-300)
    rigid = np.abs(w2) <= rtol * top
    real = rigid & (np.abs(w2) > 1e4 * np.finfo(float).eps * top)
    if real.any():
        hidden = np.sqrt(np.abs(w2[real]))
        warnings.warn(f"modal_analysis: {int(real.sum())} frequencies under rtol = {rtol:g} of the largest squared "
                      f"one were set to 0 (rigid-body modes) though they stand above round-off: omega = "
                      f"{np.array2string(hidden, precision=4)} rad/s; pass a smaller rtol if they are modes "
                      f"(stiff springs make the largest frequency {np.sqrt(top):.4g} rad/s)", RuntimeWarning,
                      stacklevel=3)
    w2[rigid] = 0.0
    return np.sign(w2) * np.sqrt(np.abs(w2))


__all__ = ["constrained_forward_dynamics_derivatives", "constrained_modal_analysis", "natural_frequencies"]
