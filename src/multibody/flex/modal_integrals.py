"""Configuration-dependent modal integrals of a floating-frame body, and modal data from
a set of nodes with masses.

The body's mass points move in its frame B as ``u_i(eta) = x_i + Phi_i eta`` (``Phi_i``
the (3, n) translational mode shapes). With the generalized velocity ``v = [V_B; eta']``
(``V_B = [omega; v_o]`` in B) a point moves with ``J_i(eta) v``, ``J_i = [-[u_i]x, I,
Phi_i]``, and the kinetic energy ``T = 1/2 v^T M(eta) v`` has the mass-weighted Gram
``M(eta) = sum_i m_i J_i^T J_i``, quadratic in eta:

    M(eta) = M0 + sum_k eta_k dM_k + sum_kl eta_k eta_l M2[k, l]

* ``M0``: the undeformed body's blocks (rigid inertia, ``[S_rot; S]`` coupling, modal mass);
* ``dM_k`` (6 + n, 6 + n) symmetric, non-zero only in the rigid rows and columns; stored as
  ``M1[k]`` (6, 6 + n), its rigid rows (the flexible-rigid block is ``M1[k][:, 6:]^T``):
  the first moment ``[S_k]x`` in the angular/linear block, the inertia's first-order change
  in the angular block, the angular-momentum coupling's change in the angular/modal block;
* ``M2[k, l]`` symmetric, ``M2[k, l] = M2[l, k]``: the second-order change, either (6, 6)
  (only the rigid block changes: linear kinematics) or (6 + n, 6 + n) (also the
  angular/modal and modal/modal blocks: geometric stiffening). Its linear/modal block is
  zero: that block is d(m c)/d eta, the derivative of the first moment, which is quadratic.

Geometric stiffening. A bending beam's points also move back along its axis ``a`` by the
foreshortening ``delta_i = -1/2 eta^T G_i eta`` (``G_i = int_0^s Phi'^T Phi' ds`` at the
point's arc length s, the shapes transverse to ``a``), so ``u_i = x_i + Phi_i eta + a
delta_i`` and, since ``delta_i' = -(G_i eta)^T eta'``, exactly

    J_i = [-[u_i]x,  I,  Phi_i - a (G_i eta)^T] = J0_i + J1_i(eta) + J2_i(eta),
    J1_i = [-[Phi_i eta]x, 0, -a (G_i eta)^T],   J2_i = [-[a delta_i]x, 0, 0].

The Gram ``sum_i m_i J_i^T J_i`` is of degree 4 in eta; ``M(eta)`` keeps it to second
order, ``J0^T m J0 + (J0^T m J1 + J1^T m J0) + (J1^T m J1 + J0^T m J2 + J2^T m J0)``
(the rest, ``J1^T m J2 + ...``, is O(eta^3)). Block by block (sums over points, ``m_i``
left out, ``p_i = Phi_i eta``, ``g_i = G_i eta``):

* angular/angular: ``-[u_i]x [u_i]x``; second order ``-[p_i]x [p_i]x - delta_i ([x_i]x [a]x +
  [a]x [x_i]x)``: across the beam the inertia drops by ``eta^T Kg eta`` (``Kg = sum_i m_i
  s_i G_i``: the centrifugal geometric stiffness);
* angular/linear: ``[u_i]x``, second order ``delta_i [a]x`` (the first moment's shift);
* angular/modal: ``[u_i]x (Phi_i - a g_i^T)``; first order ``[p_i]x Phi_i - ([x_i]x a) g_i^T``,
  second order ``delta_i [a]x Phi_i + ([a]x p_i) g_i^T``;
* linear/modal: ``Phi_i - a g_i^T``: exact at first order;
* modal/modal: ``(Phi_i - a g_i^T)^T (Phi_i - a g_i^T)``: no first order (``Phi_i^T a = 0``),
  second order ``g_i g_i^T``.

The angular/modal and modal/modal second-order terms matter: a cantilever's modes nearly
reproduce a rotation about its root, so the pinned beam's M has an eigenvalue ~1e-5 of its
largest, and a second-order error there (not a Gram) made M indefinite at tip deflections
of a millimetre. Kept to second order, ``M(eta)`` differs from the Gram by O(eta^3).
Through the kinetic energy a spin Omega stiffens the modes by ``Omega^2 Kg``, and gravity
or an acceleration along the beam by the axial force it causes: a spinning beam stays
bounded, where the linear model (without these terms) diverges once the spin rate passes
the first bending frequency.

Everything the dynamics needs follows from ``T`` (Euler-Poincare for the frame, Lagrange
for eta; see ``kernels/flex_body_inertia.py``), so energy is conserved exactly whatever
the integrals, and gravity, acting through the frame, is consistent with the deformed
centre of mass ``m c(eta) = m c0 + S eta + ...`` (``M1[k]``'s angular/linear block must be
``[S_k]x``; ``ModalBody`` checks it).

The defaults and checks of the integrals (``default_integrals``, ``check_integrals``) are in
``integral_checks.py``, below ``ModalData`` (which validates with them), and re-exported here.
"""
import sys

import numpy as np

from ..spatial.so3 import skew
from .integral_checks import check_integrals, default_integrals  # noqa: F401  (re-exported)
from .modal_data import ModalData


def first_order_block(M1k):
    """The full symmetric (6 + n) matrix dM_k of its rigid rows ``M1k`` (6, 6 + n)."""
    nb = M1k.shape[1]
    d = np.zeros((nb, nb))
    d[:6] = M1k
    d[6:, :6] = M1k[:, 6:].T
    return d


def second_order_part(M2, eta):
    """``sum_kl eta_k eta_l M2[k, l]``: (6, 6) or (6 + n, 6 + n) as ``M2``'s blocks."""
    return np.einsum("k,l,klij->ij", eta, eta, M2)


def mass_matrix_at(M0, M1, M2, eta):
    """M(eta) (6 + n, 6 + n) of the quadratic form (reference evaluation in NumPy)."""
    eta = np.asarray(eta, dtype=float)
    M = np.array(M0, dtype=float)
    for k in range(eta.size):
        M += eta[k] * first_order_block(M1[k])
    s = M2.shape[2]
    M[:s, :s] += second_order_part(M2, eta)
    return M


def nodal_integrals(positions, trans_shapes, masses=None, mass_matrix=None, rotary_inertia=None,
                    rot_shapes=None, shortening=None, axis=None):
    """(M0, M1, M2) of mass points ``positions`` (k, 3) in B with translational mode shapes
    ``trans_shapes`` (k, 3, n), lumped ``masses`` (k,) or a nodal ``mass_matrix`` (3k, 3k)
    (translations, node by node; a dense array or a ``scipy.sparse`` matrix, used only
    through its products with (3k, m) blocks, so a sparse one is never made dense).
    Optional: ``rotary_inertia`` (k, 3, 3) with rotational shapes ``rot_shapes`` (k, 3, n)
    (a node's angular velocity omega + Phi_r eta', its inertia taken undeformed), and
    geometric stiffening from the foreshortening ``shortening`` (k, n, n) (the G_i, lumped
    masses only) along the unit ``axis`` (3,)."""
    x = np.asarray(positions, dtype=float)
    P = np.asarray(trans_shapes, dtype=float)
    k, n = x.shape[0], P.shape[2]
    if mass_matrix is None:
        m3 = np.repeat(np.asarray(masses, dtype=float), 3)

        def mass_times(X):  # lumped: block diagonal
            return m3.reshape((-1,) + (1,) * (X.ndim - 1)) * X
    else:
        Mn = mass_matrix if sparse_matrix(mass_matrix) else np.asarray(mass_matrix, dtype=float)

        def mass_times(X):  # Mn @ X over X's first axis
            return np.asarray(Mn @ X.reshape(X.shape[0], -1)).reshape(X.shape)
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
        M2 = _add_foreshortening(x, P, masses, mass_matrix, shortening, axis, M1, M2)
    return M0, M1, M2


def _add_foreshortening(x, P, masses, mass_matrix, shortening, axis, M1, M2):
    """Add the foreshortening's terms (module docstring, block by block) to ``M1`` in place
    and return ``M2`` grown to (n, n, 6 + n, 6 + n) with them."""
    if mass_matrix is not None:
        raise ValueError("shortening: geometric stiffening needs lumped masses, not a mass_matrix")
    a = np.asarray(axis, dtype=float)
    m = np.asarray(masses, dtype=float)
    G = np.asarray(shortening, dtype=float)
    k, n = x.shape[0], P.shape[2]
    if np.abs(np.einsum("a,iaj->ij", a, P)).max() > 1e-12 * max(1.0, float(np.abs(P).max())):
        raise ValueError("shortening: the translational mode shapes must be transverse to axis "
                         "(the foreshortening is the only motion along it)")
    H = np.einsum("i,ijl->jl", m, G)  # sum_i m_i G_i
    full = np.zeros((n, n, 6 + n, 6 + n))
    full[:, :, :6, :6] = M2
    M2 = full
    # angular/angular, angular/linear: -delta_i ([x_i]x [a]x + [a]x [x_i]x), delta_i [a]x
    sym = np.array([skew(xi) @ skew(a) + skew(a) @ skew(xi) for xi in x])  # (k, 3, 3)
    M2[:, :, :3, :3] += 0.5 * np.einsum("i,ijl,iab->jlab", m, G, sym)
    M2[:, :, :3, 3:6] += skew(-0.5 * a)[None, None] * H[:, :, None, None]
    M2[:, :, 3:6, :3] += skew(-0.5 * a).T[None, None] * H[:, :, None, None]
    # first order: linear/modal -a g_i^T, angular/modal -([x_i]x a) g_i^T
    M1[:, 3:6, 6:] -= np.einsum("a,jl->jal", a, H)
    M1[:, :3, 6:] -= np.einsum("i,ijl,ia->jal", m, G, np.cross(x, a))
    # angular/modal, second order: delta_i [a]x Phi_i + ([a]x Phi_i eta) g_i^T
    aP = np.einsum("ab,ibj->iaj", skew(a), P)  # [a]x Phi_i (k, 3, n)
    W = -0.5 * np.einsum("i,ikl,iaq->klaq", m, G, aP)
    X = np.einsum("i,iak,ilq->klaq", m, aP, G)
    W += 0.5 * (X + X.transpose(1, 0, 2, 3))
    M2[:, :, :3, 6:] += W
    M2[:, :, 6:, :3] += W.transpose(0, 1, 3, 2)
    # modal/modal, second order: g_i g_i^T = sum_kl eta_k eta_l G_i[:, k] G_i[l, :]
    Gm = G.reshape(k, n * n)
    Y = (Gm.T @ (m[:, None] * Gm)).reshape(n, n, n, n).transpose(0, 2, 1, 3)  # [k, l, p, q]
    M2[:, :, 6:, 6:] += 0.5 * (Y + Y.transpose(1, 0, 2, 3))
    return M2


def sparse_matrix(a):
    """True for a ``scipy.sparse`` matrix or array (without importing SciPy: an object can
    only be one once ``scipy.sparse`` is imported)."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(a)


def modal_data_from_nodes(positions, mode_shapes, stiffness, masses=None, mass_matrix=None, damping=None,
                          rotary_inertia=None, meta=None):
    """A ``ModalData`` with configuration-dependent integrals from a body's nodes.

    Parameters
    ----------
    positions : (k, 3) array_like
        The nodes in the body frame B [m].
    mode_shapes : (k, 3, n) or (k, 6, n) array_like
        Translations per unit eta, or [rotation; translation].
    stiffness : (n,) or (n, n) array_like
        Modal stiffness per mode (the modes should then be orthogonal in stiffness), or a
        reduced model's full symmetric positive semi-definite K (Craig-Bampton interface
        modes, rotated degenerate pairs), kept whole: the elastic force is -K eta.
    masses : (k,) array_like, optional
        Lumped masses [kg]; give this or ``mass_matrix``.
    mass_matrix : (3k, 3k) array_like or scipy.sparse matrix, optional
        The translations' mass matrix, node by node (x, y, z of node 0, then node 1, ...),
        e.g. a finite-element model's consistent mass matrix. A ``scipy.sparse`` one (any
        format) is converted to CSR once and used only in sparse products: a solid of a few
        thousand nodes needs no dense copy (for 3,000 nodes one would take 650 MB).
    damping : (n,) or (n, n) array_like, optional
        Modal viscous damping per mode, or a symmetric positive semi-definite matrix C.
    rotary_inertia : (k, 3, 3) array_like, optional
        Node inertias [kg m^2], used with the rotational rows of (k, 6, n) shapes.
    meta : dict, optional
        Provenance (JSON-serialisable).

    Returns
    -------
    ModalData
        Every node a sampled node (``add_modal_body(..., nodes={name: index})``); mass,
        centre of mass, inertia, S, S_rot and the modal mass are the integrals' values at
        eta = 0. ValueError names the argument that is wrong.
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
        mass_matrix = _nodal_mass_matrix(mass_matrix, k)
    trans = shapes[:, 3:] if shapes.shape[1] == 6 else shapes
    rot = shapes[:, :3] if shapes.shape[1] == 6 else None
    if rotary_inertia is not None and np.shape(rotary_inertia) != (k, 3, 3):
        raise ValueError(f"rotary_inertia: expected shape ({k}, 3, 3), got {np.shape(rotary_inertia)}")
    M0, M1, M2 = nodal_integrals(x, trans, masses, mass_matrix, rotary_inertia, rot)
    six = shapes if shapes.shape[1] == 6 else np.concatenate([np.zeros_like(shapes), shapes], axis=1)
    meta = dict(generator="multibody.flex.modal_data_from_nodes") if meta is None else meta
    return modal_data_from_integrals(M0, M1, M2, stiffness, damping, x, six, meta=meta)


def _nodal_mass_matrix(mass_matrix, k):
    """``mass_matrix`` checked (3k, 3k), finite and real: a float array, or a ``scipy.sparse``
    one as a CSR array (converted once, never densified); ValueError naming it."""
    name = "mass_matrix"
    sparse = sparse_matrix(mass_matrix)
    if sparse:
        import scipy.sparse as sp
        mass_matrix = sp.csr_array(mass_matrix)
    if np.iscomplexobj(mass_matrix.data if sparse else mass_matrix):
        raise ValueError(f"{name}: complex values are not allowed")
    try:
        Mn = mass_matrix.astype(np.float64, copy=False) if sparse else np.asarray(mass_matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected a ({3 * k}, {3 * k}) array of numbers or a scipy.sparse "
                         f"matrix ({exc})") from None
    if Mn.shape != (3 * k, 3 * k) or not np.all(np.isfinite(Mn.data if sparse else Mn)):
        raise ValueError(f"{name}: expected a finite ({3 * k}, {3 * k}) matrix (x, y, z of each node), "
                         f"got {Mn.shape}")
    return Mn


def modal_data_from_integrals(M0, M1, M2, stiffness, damping, node_positions, mode_shapes, Kg_centrifugal=None,
                              meta=None):
    """ModalData whose rigid properties, S, S_rot and modal mass are read off ``M0``."""
    mass = M0[3, 3]
    mc = np.array([M0[2, 4], M0[0, 5], M0[1, 3]])
    com = mc / mass
    inertia = M0[:3, :3] + mass * skew(com) @ skew(com)
    return ModalData(modal_mass=M0[6:, 6:], stiffness=stiffness, damping=damping, mode_shapes=mode_shapes,
                     node_positions=node_positions, mass=mass, com=com, inertia=0.5 * (inertia + inertia.T),
                     S=M0[3:6, 6:], S_rot=M0[:3, 6:], Kg_centrifugal=Kg_centrifugal, M1=M1, M2=M2, meta=meta)
