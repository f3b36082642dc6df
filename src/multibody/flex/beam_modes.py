"""``beam_modes``: assumed modes of a uniform straight beam by finite elements.

The beam lies along ``+axis`` from the origin of the body frame B (its root, the clamped
end of a cantilever, at the origin) and bends in the plane of ``axis`` and
``bending_axis`` (the direction ``d`` of the transverse deflection ``w``). A section's
rotation is ``psi`` about ``n = axis x d``, so a node moves by ``[psi n; w d]`` (for
``axis = x``, ``d = z``: rotation about -y, and ``psi = w'`` for Euler-Bernoulli).

The finite-element model (``beam_element``) is assembled from equal elements, the
boundary condition applied (cantilever: ``w = psi = 0`` at the root), and the generalized
eigenproblem ``K phi = omega^2 M phi`` solved with ``scipy.linalg.eigh``; its
eigenvectors satisfy ``Phi^T M Phi = I`` (unit modal mass). Each mode's sign is fixed so
that the deflection at the far end (x = L) is positive.

``static_modes`` (cantilever) adds the tip's two attachment modes, the static deflections
``K^-1 f`` under a unit transverse force and a unit moment at x = L, to the lowest normal
modes. The normal modes all have zero shear and moment at the free tip, so a body hung from
the tip node (the next segment of a chain) loads it with what no combination of them can
carry: the chain's frequencies then converge slowly with the number of modes (a free-free
beam of 2 cantilever segments with 6 modes each: 4.5e-2 off the first frequency). With the
attachment modes the basis holds the exact static response to the interface's loads (the
component-mode synthesis of MacNeal and Rubin). Their parts M-orthogonal to the kept normal
modes (the residual flexibility) are also K-orthogonal to them (``phi^T K K^-1 f = phi^T f
= lam phi^T M K^-1 f``), so the basis stays modal: the kept normal modes unchanged, then the
two Ritz vectors of the residual space, M-orthonormal, with their Rayleigh quotients as
stiffness (above every kept frequency).
"""
import numpy as np

from .beam_element import BeamElement, assemble, sample
from .beam_integrals import beam_integrals
from .modal_data import ModalData

_AXES = {"x": 0, "y": 1, "z": 2}
_BOUNDARIES = ("cantilever", "free-free")
_THEORIES = ("euler-bernoulli", "timoshenko")


def _positive(name, value, allow_zero=False):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number, got {value!r}") from None
    if not np.isfinite(v) or v < 0.0 or (v == 0.0 and not allow_zero):
        raise ValueError(f"{name}: expected a finite {'non-negative' if allow_zero else 'positive'}"
                         f" number, got {value!r}")
    return v


def _count(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    return int(value)


def _unit(name, value):
    if value not in _AXES:
        raise ValueError(f"{name}: expected 'x', 'y' or 'z', got {value!r}")
    e = np.zeros(3)
    e[_AXES[value]] = 1.0
    return e


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, choices))}, got {value!r}")


def _rigid_modes(n_nodes, h, M):
    """Rigid translation along d and rotation about the centre of mass (about n), each
    scaled to unit modal mass; they are mass-orthogonal for a uniform beam."""
    x = np.arange(n_nodes) * h
    trans = np.zeros(2 * n_nodes)
    trans[0::2] = 1.0
    rot = np.zeros(2 * n_nodes)
    rot[0::2] = x - x[-1] / 2.0
    rot[1::2] = 1.0
    modes = np.stack([trans, rot], axis=1)
    return modes / np.sqrt(np.einsum("ij,ik,kj->j", modes, M, modes))


def beam_modes(length, EI, rhoA, n_elements=40, n_modes=4, boundary="cantilever",
               theory="euler-bernoulli", GA_kappa=None, rhoI=0.0, axis="x", bending_axis="z",
               nodes=None, include_rigid=False, damping_ratio=0.0, integrals=True,
               geometric_stiffening=True, static_modes=False):
    """Bending modes of a uniform beam as a ``ModalData`` (see ``multibody.flex.modal_data``).

    Parameters
    ----------
    length : float
        Beam length L [m].
    EI : float
        Bending stiffness [N m^2].
    rhoA : float
        Mass per unit length [kg/m].
    n_elements : int
        Number of equal finite elements.
    n_modes : int
        Number of modes kept (elastic modes, plus the 2 rigid ones first when
        ``include_rigid``), lowest frequencies first.
    boundary : {"cantilever", "free-free"}
        Cantilever: clamped at the origin, free at x = L. Free-free: both ends free.
    theory : {"euler-bernoulli", "timoshenko"}
        Timoshenko adds shear deformation (needs ``GA_kappa``).
    GA_kappa : float, optional
        Shear stiffness kappa G A [N], required (and only used) for Timoshenko.
    rhoI : float
        Rotary inertia of the sections per unit length [kg m] (mass moment about ``n``),
        0 by default; used by both theories (a Rayleigh beam for Euler-Bernoulli).
    axis, bending_axis : {"x", "y", "z"}
        The beam's direction and the direction of its deflection, different axes of B.
    nodes : array_like, optional
        Positions along the beam in [0, L] [m] where the mode shapes are sampled; default
        the tip only, ``[L]``.
    include_rigid : bool
        Free-free only: keep the two zero-frequency modes (translation along
        ``bending_axis`` and rotation about the centre of mass about ``n``) as the first two.
    damping_ratio : float
        Modal damping ratio zeta >= 0; ``damping = 2 zeta omega`` (unit modal mass).
    integrals : bool
        Compute the configuration-dependent integrals ``M1``, ``M2`` (the mass matrix's
        change with the deformation; ``multibody.flex.modal_integrals``). False: only the
        centre of mass moves with the modes.
    geometric_stiffening : bool
        With ``integrals``: include the foreshortening of the bent beam, through which spin
        (``Kg_centrifugal``), gravity and accelerations along the beam stiffen its bending.
        Without it the linear model softens under spin and diverges once the spin rate
        passes the first bending frequency.
    static_modes : bool
        Cantilever only: the last 2 of the ``n_modes`` modes are the tip's attachment modes
        (static response to a tip force and moment), for a body carrying others at its tip.

    Returns
    -------
    ModalData
        ``frequencies`` (n_modes,) [rad/s], identity ``modal_mass``, ``stiffness =
        omega^2``, node mode shapes, the modal integrals (``S``, ``S_rot``), the rigid
        mass properties, and ``Kg_centrifugal``: the geometric stiffness per Omega^2 of a
        spin Omega about an axis through the origin perpendicular to the beam (axial
        tension ``N(x) = Omega^2 rhoA (L^2 - x^2) / 2``), so that the spinning beam's modal
        stiffness is ``diag(stiffness) + Omega^2 Kg_centrifugal``. (The spin softening of
        in-plane motion comes from the rotating frame's inertia terms, not from here.)
    """
    L, EI, rhoA, rhoI, zeta, n_el, n_modes, a, d, n_rot, e, x_nodes = _checked(
        length, EI, rhoA, rhoI, damping_ratio, n_elements, n_modes, boundary, theory, GA_kappa, axis, bending_axis,
        include_rigid, nodes, static_modes)
    element = BeamElement(L / n_el, e)
    K, M, Kg = assemble(element, n_el, EI, rhoA, rhoI, axial_force=lambda x: rhoA * (L * L - x * x) / 2.0)
    phi, lam = _modes(_scipy_eigh(), element, n_el, K, M, n_modes, boundary, include_rigid, static_modes)
    meta = dict(generator="multibody.flex.beam_modes", length=L, EI=EI, rhoA=rhoA, n_elements=n_el, n_modes=n_modes,
                boundary=boundary, theory=theory, GA_kappa=None if GA_kappa is None else float(GA_kappa), rhoI=rhoI,
                axis=axis, bending_axis=bending_axis, include_rigid=bool(include_rigid), damping_ratio=zeta,
                integrals=bool(integrals), geometric_stiffening=bool(geometric_stiffening),
                static_modes=bool(static_modes))
    M1 = M2 = None
    if integrals:
        _, M1, M2 = beam_integrals(element, n_el, phi, rhoA, rhoI, a, d, n_rot, geometric_stiffening)
    return _modal_data(element, n_el, M, Kg, phi, lam, x_nodes, (L, rhoA, rhoI, zeta), (a, d, n_rot), M1, M2, meta)


def _scipy_eigh():
    """scipy.linalg.eigh, or an ImportError that says how to install SciPy."""
    try:
        from scipy.linalg import eigh
    except ImportError:
        raise ImportError("beam_modes needs SciPy: pip install scipy") from None
    return eigh


def _modal_data(element, n_el, M, Kg, phi, lam, x_nodes, properties, axes, M1, M2, meta):
    """The ``ModalData`` of ``beam_modes``: the modes ``phi`` (n_dof, n_modes) of the FE model
    (M, geometric stiffness Kg) with squared frequencies ``lam``, sampled at ``x_nodes``;
    ``properties`` (L, rhoA, rhoI, zeta), ``axes`` (a, d, n)."""
    L, rhoA, rhoI, zeta = properties
    a, d, n_rot = axes
    w, psi = sample(element, n_el, phi, x_nodes)
    shapes = np.concatenate([psi[:, None, :] * n_rot[None, :, None],
                             w[:, None, :] * d[None, :, None]], axis=1)
    # rigid motions of the FE model: translation along d; rotation about n at the origin
    n_dof = M.shape[0]
    x_grid = np.arange(n_el + 1) * element.h
    t_d = np.zeros(n_dof)
    t_d[0::2] = 1.0
    r_n = np.zeros(n_dof)
    r_n[0::2] = x_grid
    r_n[1::2] = 1.0
    mass = rhoA * L
    inertia = mass * L * L / 12.0 * (np.eye(3) - np.outer(a, a)) + rhoI * L * np.outer(n_rot, n_rot)
    omega = np.sqrt(lam)
    kg = phi.T @ Kg @ phi
    return ModalData(
        modal_mass=np.eye(phi.shape[1]),
        stiffness=lam,
        damping=2.0 * zeta * omega,
        node_positions=x_nodes[:, None] * a[None, :],
        mode_shapes=shapes,
        mass=mass,
        com=a * L / 2.0,
        inertia=inertia,
        S=np.outer(d, t_d @ M @ phi),
        S_rot=np.outer(n_rot, r_n @ M @ phi),
        Kg_centrifugal=(kg + kg.T) / 2.0,
        M1=M1,
        M2=M2,
        meta=meta,
    )


def _checked(length, EI, rhoA, rhoI, damping_ratio, n_elements, n_modes, boundary, theory, GA_kappa, axis,
             bending_axis, include_rigid, nodes, static_modes):
    """``beam_modes``' arguments checked, ValueError naming the bad one: (L, EI, rhoA, rhoI,
    zeta, n_elements, n_modes, the unit axis a, the unit bending direction d, n = a x d, the
    shear flexibility EI / GA_kappa (0 for Euler-Bernoulli), the node positions)."""
    L = _positive("length", length)
    EI = _positive("EI", EI)
    rhoA = _positive("rhoA", rhoA)
    rhoI = _positive("rhoI", rhoI, allow_zero=True)
    zeta = _positive("damping_ratio", damping_ratio, allow_zero=True)
    n_el = _count("n_elements", n_elements)
    n_modes = _count("n_modes", n_modes)
    _check_choice("boundary", boundary, _BOUNDARIES)
    _check_choice("theory", theory, _THEORIES)
    a, d = _unit("axis", axis), _unit("bending_axis", bending_axis)
    if axis == bending_axis:
        raise ValueError(f"bending_axis: must differ from axis ({axis!r})")
    n_rot = np.cross(a, d)
    if theory == "timoshenko":
        if GA_kappa is None:
            raise ValueError("GA_kappa: the shear stiffness kappa*G*A is needed for theory='timoshenko'")
        e = EI / _positive("GA_kappa", GA_kappa)
    else:
        e = 0.0
    if include_rigid and boundary != "free-free":
        raise ValueError("include_rigid: only a free-free beam has rigid-body modes")
    if not isinstance(static_modes, (bool, np.bool_)):
        raise ValueError(f"static_modes: expected True or False, got {static_modes!r}")
    if static_modes and boundary != "cantilever":
        raise ValueError("static_modes: the tip's attachment modes need a clamped root (boundary='cantilever')")
    if static_modes and n_modes < 2:
        raise ValueError(f"n_modes: with static_modes the last 2 modes are the attachment modes; expected "
                         f"n_modes >= 2, got {n_modes}")
    x_nodes = np.array([L] if nodes is None else nodes, dtype=float)
    if x_nodes.ndim != 1 or x_nodes.size == 0 or not np.all(np.isfinite(x_nodes)):
        raise ValueError("nodes: expected a non-empty 1-D array of positions along the beam")
    if np.any(x_nodes < 0.0) or np.any(x_nodes > L):
        raise ValueError(f"nodes: positions must lie in [0, length] = [0, {L}]")
    return L, EI, rhoA, rhoI, zeta, n_el, n_modes, a, d, n_rot, e, x_nodes


def _modes(eigh, element, n_el, K, M, n_modes, boundary, include_rigid, static_modes=False):
    """(phi (n_dof, n_modes), omega^2 (n_modes,)): the lowest modes of the assembled beam (K,
    M) under ``boundary``, the rigid ones first where kept, each signed so that its deflection
    at x = L is positive (else its largest deflection); with ``static_modes`` the last two are
    the tip's attachment modes (``_with_tip_attachment_modes``)."""
    n_extra = 2 if static_modes else 0
    n_modes -= n_extra
    n_dof = K.shape[0]
    free = np.arange(2, n_dof) if boundary == "cantilever" else np.arange(n_dof)
    n_rigid = 2 if boundary == "free-free" else 0
    n_kept_rigid = min(n_modes, n_rigid) if include_rigid else 0
    n_elastic = n_modes - n_kept_rigid
    available = free.size - n_rigid
    if n_elastic + n_extra > available:
        raise ValueError(f"n_modes: expected 1..{available + n_kept_rigid} "
                         f"for {n_el} elements, got {n_modes + n_extra}")
    phi = np.zeros((n_dof, n_elastic))
    lam = np.zeros(n_elastic)
    if n_elastic:
        Kf, Mf = K[np.ix_(free, free)], M[np.ix_(free, free)]
        lam, phi[free] = eigh(Kf, Mf, subset_by_index=[n_rigid, n_rigid + n_elastic - 1])
        lam = np.maximum(lam, 0.0)
    if n_kept_rigid:
        phi = np.hstack([_rigid_modes(n_el + 1, element.h, M)[:, :n_kept_rigid], phi])
        lam = np.concatenate([np.zeros(n_kept_rigid), lam])
    if static_modes:
        return _with_tip_attachment_modes(eigh, K, M, _signed(phi), lam)
    return _signed(phi), lam


def _signed(phi):
    """The columns of phi, each signed so that its deflection at x = L is positive (else its
    largest deflection)."""
    w_dofs = phi[0::2]
    ref = np.where(np.abs(w_dofs[-1]) > 1e-8 * np.max(np.abs(w_dofs), axis=0), w_dofs[-1],
                   w_dofs[np.argmax(np.abs(w_dofs), axis=0), np.arange(phi.shape[1])])
    return phi * np.where(ref < 0.0, -1.0, 1.0)


def _with_tip_attachment_modes(eigh, K, M, phi, lam):
    """(phi, omega^2) of a cantilever's normal modes phi (n_dof, k) followed by the 2 Ritz
    vectors of the tip's attachment modes' residual (module docstring), M-orthonormal."""
    n_dof = K.shape[0]
    free = np.arange(2, n_dof)
    static = np.zeros((n_dof, 2))  # unit force (w) and moment (psi) at the tip, root clamped
    static[free] = np.linalg.solve(K[np.ix_(free, free)], np.eye(n_dof)[free][:, -2:])
    residual = static - phi @ (phi.T @ (M @ static))
    m_r = residual.T @ M @ residual
    scale = np.einsum("ij,ik,kj->j", static, M, static)
    if np.linalg.eigvalsh(m_r / np.sqrt(np.outer(scale, scale)))[0] < 1e-10:
        raise ValueError(f"n_modes: the {phi.shape[1]} normal modes already hold the tip's attachment "
                         "modes (too many modes for the elements); use fewer modes or more elements")
    lam_r, v = eigh(residual.T @ K @ residual, m_r)
    return np.hstack([phi, _signed(residual @ v)]), np.concatenate([lam, lam_r])
