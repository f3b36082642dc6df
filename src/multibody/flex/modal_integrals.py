"""Configuration-dependent modal integrals of a floating-frame body, and modal data from
a set of nodes with masses.

The body's mass points move in its frame B as ``u_i(eta) = x_i + Phi_i eta`` (``Phi_i``
the (3, n) translational mode shapes). With the generalized velocity ``v = [V_B; eta']``
(``V_B = [omega; v_o]`` in B) a point moves with ``v_o - [u_i]x omega + Phi_i eta'``, so the
kinetic energy ``T = 1/2 v^T M(eta) v`` has a mass matrix quadratic in eta:

    M(eta) = M0 + sum_k eta_k dM_k + sum_kl eta_k eta_l M2[k, l]

* ``M0``: the undeformed body's blocks (rigid inertia, ``[S_rot; S]`` coupling, modal mass);
* ``dM_k`` (6 + n, 6 + n) symmetric, non-zero only in the rigid rows and columns; stored as
  ``M1[k]`` (6, 6 + n), its rigid rows (the flexible-rigid block is ``M1[k][:, 6:]^T``):
  the first moment ``[S_k]x`` in the angular/linear block, the inertia's first-order change
  in the angular block, the angular-momentum coupling's change in the angular/modal block;
* ``M2[k, l]`` (6, 6), symmetric in k and l: the inertia's second-order change.

Geometric stiffening. A bending beam's points also move back along its axis ``a`` by the
foreshortening ``delta_i = -1/2 eta^T G_i eta`` (``G_i = int_0^s Phi'^T Phi' ds`` at the
point's arc length s). Kept in the same quadratic form (to second order in eta), it lowers
the inertia about axes across the beam by ``eta^T Kg eta`` (``Kg = sum_i m_i s_i G_i``: the
centrifugal geometric stiffness), shifts the first moment by ``sum_i m_i a delta_i`` and
gives the modal/linear coupling a part linear in eta. Through the kinetic energy a spin
Omega then stiffens the modes by ``Omega^2 Kg``, and gravity or an acceleration along the
beam by the axial force it causes: a spinning beam stays bounded, where the linear model
(without these terms) diverges once the spin rate passes the first bending frequency.

Everything the dynamics needs follows from ``T`` (Euler-Poincare for the frame, Lagrange
for eta; see ``kernels/flex_body_inertia.py``), so energy is conserved exactly whatever
the integrals, and gravity, acting through the frame, is consistent with the deformed
centre of mass ``m c(eta) = m c0 + S eta + ...`` (``M1[k]``'s angular/linear block must be
``[S_k]x``; ``ModalBody`` checks it).
"""
import numpy as np

from ..spatial.so3 import skew


def first_order_block(M1k):
    """The full symmetric (6 + n) matrix dM_k of its rigid rows ``M1k`` (6, 6 + n)."""
    nb = M1k.shape[1]
    d = np.zeros((nb, nb))
    d[:6] = M1k
    d[6:, :6] = M1k[:, 6:].T
    return d


def mass_matrix_at(M0, M1, M2, eta):
    """M(eta) (6 + n, 6 + n) of the quadratic form (reference evaluation in NumPy)."""
    eta = np.asarray(eta, dtype=float)
    M = np.array(M0, dtype=float)
    for k in range(eta.size):
        M += eta[k] * first_order_block(M1[k])
    M[:6, :6] += np.einsum("k,l,klij->ij", eta, eta, M2)
    return M


def default_integrals(S):
    """(M1, M2) of a body given only its first moments ``S`` (3, n): the centre of mass
    moves with the modes, ``m c(eta) = m c0 + S eta``, the rest of M stays constant."""
    n = S.shape[1]
    M1 = np.zeros((n, 6, 6 + n))
    for k in range(n):
        M1[k, :3, 3:6] = skew(S[:, k])
        M1[k, 3:6, :3] = skew(S[:, k]).T
    return M1, np.zeros((n, n, 6, 6))


def check_integrals(where, M1, M2, n, S):
    """(M1, M2) as float arrays of shapes (n, 6, 6 + n), (n, n, 6, 6), finite, with the
    symmetries of the quadratic form and ``M1[k]``'s first moment equal to ``[S_k]x``;
    ValueError naming ``where`` (e.g. "modal body 'beam'") otherwise."""
    out = []
    for name, a, shape in (("M1", M1, (n, 6, 6 + n)), ("M2", M2, (n, n, 6, 6))):
        a = np.array(a, dtype=float)
        if a.shape != shape or not np.all(np.isfinite(a)):
            raise ValueError(f"{where}: {name} must be a finite array of shape {shape}, got {a.shape}")
        out.append(a)
    M1, M2 = out
    scale = max(1.0, float(np.abs(M1).max()), float(np.abs(M2).max()))
    tol = 1e-9 * scale
    if np.abs(M1[:, :, :6] - M1[:, :, :6].transpose(0, 2, 1)).max() > tol:
        raise ValueError(f"{where}: M1[k][:, :6] (the rigid block of dM/deta_k) must be symmetric")
    if (np.abs(M2 - M2.transpose(1, 0, 2, 3)).max() > tol
            or np.abs(M2 - M2.transpose(0, 1, 3, 2)).max() > tol):
        raise ValueError(f"{where}: M2[k, l] must be symmetric and M2[k, l] = M2[l, k]")
    want = default_integrals(S)[0][:, :3, 3:6]
    if np.abs(M1[:, :3, 3:6] - want).max() > tol:
        raise ValueError(f"{where}: M1[k][:3, 3:6] must be the cross-product matrix of S[:, k] "
                         f"(the centre of mass moves with the modes as S eta / mass)")
    return M1, M2


def nodal_integrals(positions, trans_shapes, masses=None, mass_matrix=None, rotary_inertia=None,
                    rot_shapes=None, shortening=None, axis=None):
    """(M0, M1, M2) of mass points ``positions`` (k, 3) in B with translational mode shapes
    ``trans_shapes`` (k, 3, n), lumped ``masses`` (k,) or a nodal ``mass_matrix`` (3k, 3k)
    (translations, node by node). Optional: ``rotary_inertia`` (k, 3, 3) with rotational
    shapes ``rot_shapes`` (k, 3, n) (a node's angular velocity omega + Phi_r eta', its
    inertia taken undeformed), and geometric stiffening from the foreshortening
    ``shortening`` (k, n, n) (the G_i, lumped masses only) along the unit ``axis`` (3,)."""
    x = np.asarray(positions, dtype=float)
    P = np.asarray(trans_shapes, dtype=float)
    k, n = x.shape[0], P.shape[2]
    if mass_matrix is None:
        m3 = np.repeat(np.asarray(masses, dtype=float), 3)

        def mass_times(X):  # lumped: block diagonal
            return m3.reshape((-1,) + (1,) * (X.ndim - 1)) * X
    else:
        Mn = np.asarray(mass_matrix, dtype=float)

        def mass_times(X):
            return np.tensordot(Mn, X, axes=(1, 0))
    L0 = np.zeros((k, 3, 6 + n))  # a point's velocity in B per unit [omega; v_o; eta']
    L0[:, :, :3] = -np.array([skew(xi) for xi in x])
    L0[:, :, 3:6] = np.eye(3)
    L0[:, :, 6:] = P
    L0 = L0.reshape(3 * k, 6 + n)
    # the angular columns' change per unit eta_j: -[phi_ij]x, (n, 3k, 3)
    Lw = -np.array([[skew(P[i, :, j]) for i in range(k)] for j in range(n)]).reshape(n, 3 * k, 3)
    ML0 = mass_times(L0)
    M0 = L0.T @ ML0
    MLw = mass_times(Lw.transpose(1, 0, 2)).transpose(1, 0, 2)
    M1 = np.zeros((n, 6, 6 + n))
    M2 = np.zeros((n, n, 6, 6))
    for j in range(n):
        A = np.zeros((6 + n, 6 + n))
        A[:3] = Lw[j].T @ ML0
        M1[j] = (A + A.T)[:6]
    LwML = np.einsum("jai,lab->jlib", Lw, MLw)
    M2[:, :, :3, :3] = 0.5 * (LwML + LwML.transpose(1, 0, 2, 3))
    if rotary_inertia is not None:
        J = np.asarray(rotary_inertia, dtype=float)
        R = np.zeros((k, 3, n)) if rot_shapes is None else np.asarray(rot_shapes, dtype=float)
        for i in range(k):
            Lr = np.zeros((3, 6 + n))
            Lr[:, :3] = np.eye(3)
            Lr[:, 6:] = R[i]
            M0 += Lr.T @ J[i] @ Lr
    if shortening is not None:
        if mass_matrix is not None:
            raise ValueError("shortening: geometric stiffening needs lumped masses, not a mass_matrix")
        a = np.asarray(axis, dtype=float)
        m = np.asarray(masses, dtype=float)
        G = np.asarray(shortening, dtype=float)
        H = np.einsum("i,ijl->jl", m, G)  # sum_i m_i G_i
        sym = np.array([skew(xi) @ skew(a) + skew(a) @ skew(xi) for xi in x])  # (k, 3, 3)
        xa = np.cross(x, a)  # [x_i]x a
        M2[:, :, :3, :3] += 0.5 * np.einsum("i,ijl,iab->jlab", m, G, sym)
        M2[:, :, :3, 3:6] += skew(-0.5 * a)[None, None] * H[:, :, None, None]
        M2[:, :, 3:6, :3] += skew(-0.5 * a).T[None, None] * H[:, :, None, None]
        M1[:, 3:6, 6:] -= np.einsum("a,jl->jal", a, H)
        M1[:, :3, 6:] -= np.einsum("i,ijl,ia->jal", m, G, xa)
    return M0, M1, M2


def modal_data_from_nodes(positions, mode_shapes, stiffness, masses=None, mass_matrix=None, damping=None,
                          rotary_inertia=None, meta=None):
    """A ``ModalData`` with configuration-dependent integrals from a body's nodes.

    ``positions`` (k, 3) [m]: the nodes in the body frame B; ``mode_shapes`` (k, 3, n)
    translations per unit eta, or (k, 6, n) [rotation; translation]; ``masses`` (k,) [kg]
    (lumped) or ``mass_matrix`` (3k, 3k) (the translations' mass matrix, node by node,
    e.g. reduced from a finite-element tool); ``stiffness`` (n,) modal stiffness (the modes
    should be orthogonal in stiffness); ``rotary_inertia`` (k, 3, 3) [kg m^2] optional,
    used with the rotational rows of (k, 6, n) shapes. Every node becomes a sampled node
    (``add_modal_body(..., nodes={name: index})``). Mass, centre of mass, inertia, S,
    S_rot and the modal mass are the integrals' values at eta = 0.
    """
    x = np.asarray(positions, dtype=float)
    shapes = np.asarray(mode_shapes, dtype=float)
    if x.ndim != 2 or x.shape[1] != 3:
        raise ValueError(f"positions: expected shape (k, 3), got {x.shape}")
    if shapes.ndim != 3 or shapes.shape[0] != x.shape[0] or shapes.shape[1] not in (3, 6):
        raise ValueError(f"mode_shapes: expected shape ({x.shape[0]}, 3, n) or ({x.shape[0]}, 6, n), "
                         f"got {shapes.shape}")
    if (masses is None) == (mass_matrix is None):
        raise ValueError("give exactly one of masses= (lumped, (k,)) and mass_matrix= ((3k, 3k))")
    k, n = x.shape[0], shapes.shape[2]
    if masses is not None:
        m = np.asarray(masses, dtype=float)
        if m.shape != (k,) or not np.all(np.isfinite(m)) or np.any(m < 0.0) or not m.sum() > 0.0:
            raise ValueError(f"masses: expected ({k},) finite values >= 0 with a positive sum")
    else:
        Mn = np.asarray(mass_matrix, dtype=float)
        if Mn.shape != (3 * k, 3 * k) or not np.all(np.isfinite(Mn)):
            raise ValueError(f"mass_matrix: expected a finite ({3 * k}, {3 * k}) array, got {Mn.shape}")
    trans = shapes[:, 3:] if shapes.shape[1] == 6 else shapes
    rot = shapes[:, :3] if shapes.shape[1] == 6 else None
    if rotary_inertia is not None and np.shape(rotary_inertia) != (k, 3, 3):
        raise ValueError(f"rotary_inertia: expected shape ({k}, 3, 3), got {np.shape(rotary_inertia)}")
    M0, M1, M2 = nodal_integrals(x, trans, masses, mass_matrix, rotary_inertia, rot)
    six = shapes if shapes.shape[1] == 6 else np.concatenate([np.zeros_like(shapes), shapes], axis=1)
    meta = dict(generator="multibody.flex.modal_data_from_nodes") if meta is None else meta
    return modal_data_from_integrals(M0, M1, M2, stiffness, damping, x, six, meta=meta)


def modal_data_from_integrals(M0, M1, M2, stiffness, damping, node_positions, mode_shapes, Kg_centrifugal=None,
                              meta=None):
    """ModalData whose rigid properties, S, S_rot and modal mass are read off ``M0``."""
    from .modal_data import ModalData
    mass = M0[3, 3]
    mc = np.array([M0[2, 4], M0[0, 5], M0[1, 3]])
    com = mc / mass
    inertia = M0[:3, :3] + mass * skew(com) @ skew(com)
    return ModalData(modal_mass=M0[6:, 6:], stiffness=stiffness, damping=damping, mode_shapes=mode_shapes,
                     node_positions=node_positions, mass=mass, com=com, inertia=0.5 * (inertia + inertia.T),
                     S=M0[3:6, 6:], S_rot=M0[:3, 6:], Kg_centrifugal=Kg_centrifugal, M1=M1, M2=M2, meta=meta)
