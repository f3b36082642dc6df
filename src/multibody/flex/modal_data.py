"""``ModalData``: the assumed-modes description of one flexible body.

Frames and units. Everything is in the body frame B, the frame in which the body is
undeformed (for a generated beam: the beam along +x from the origin, its root at the
origin). SI units. Modal coordinates ``eta`` (n,) are scaled by the modes: with the
generator's normalisation (modal mass = identity) ``eta`` has units kg^(1/2) m and a
translational mode shape kg^(-1/2); the units below say "per unit eta".

Fields (n = number of modes, k = number of sampled nodes):

=================  ===========  ==============================================================
field              shape        meaning
=================  ===========  ==============================================================
modal_mass         (n, n)       generalized mass ``Phi^T M Phi``; identity after normalisation
stiffness          (n,)         modal stiffness ``omega_i^2 * modal_mass_ii`` [1/s^2 per unit
                                modal mass]; >= 0 (0 for rigid-body modes); or (n, n), a
                                full symmetric positive semi-definite K (a reduced model's
                                K_red: interface modes, rotated degenerate pairs)
damping            (n,)         modal viscous damping ``c_i`` [1/s per unit modal mass];
                                the modal equation reads ``m_ii eta'' + c_i eta' + k_i eta = f_i``;
                                or (n, n) symmetric positive semi-definite C: then
                                ``modal_mass eta'' + C eta' + K eta = f`` (either may be
                                a matrix while the other is a vector)
node_positions     (k, 3)       undeformed node positions in B [m]
mode_shapes        (k, 6, n)    per node and mode, the node's small motion per unit eta,
                                ``[rotation (3) [rad]; translation (3) [m]]``, in B
mass               ()           total mass [kg]
com                (3,)         centre of mass in B [m] (undeformed)
inertia            (3, 3)       rotational inertia about ``com``, axes of B [kg m^2]
S                  (3, n)       first moment of the modes ``int rho Phi_t dV`` in B: the
                                translation of the body's mass per unit eta [kg m per unit eta]
S_rot              (3, n)       ``int rho r x Phi_t dV + int J Phi_r dV`` about B's origin: the
                                angular momentum coupling per unit eta rate [kg m^2 per unit eta]
Kg_centrifugal     (n, n)       or None. Geometric stiffness per Omega^2 [dimensionless per unit
                                modal mass] for a spin ``Omega`` about an axis through B's
                                origin perpendicular to the beam: ``K_geo = Omega^2 Kg_centrifugal``
M1                 (n, 6, 6+n)  or None. The mass matrix's first-order change per unit eta_k,
                                rigid rows (see ``modal_integrals``); None: only the centre
                                of mass moves with the modes (``[S_k]x``)
M2                 (n,n,s,s)    or None. Its second-order change: s = 6, the rigid block, or
                                s = 6 + n, also the angular/modal and modal/modal blocks
                                (geometric stiffening; see ``modal_integrals``)
meta               dict         JSON-serialisable provenance (the generator's arguments)
=================  ===========  ==============================================================

``S`` and ``S_rot`` are the rigid/flexible mass coupling of a floating-frame formulation:
the body's (6 + n) mass matrix about B's origin has the flex/rigid block
``Mfr = [S_rot; S]^T`` ([angular; linear] columns), when the modal shapes are expressed in B.
"""
import json

import numpy as np

from .integral_checks import check_integrals


def _array(name, value, shape):
    """``value`` as a float64 array of ``shape`` (None entries are free), finite; complex
    values are refused (a cast would drop their imaginary parts)."""
    if np.iscomplexobj(value):
        raise ValueError(f"{name}: complex values are not allowed (modal data is real), got {np.asarray(value).dtype}")
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected an array of numbers ({exc})") from None
    if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
        want = "(" + ", ".join("?" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name}: expected shape {want}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains non-finite values")
    return a


def _check_symmetric(name, a, tol=1e-9):
    if np.max(np.abs(a - a.T)) > tol * float(np.max(np.abs(a))):
        raise ValueError(f"{name}: must be symmetric")


#: relative tolerance of ``elastic_matrix``'s symmetry and semi-definiteness tests
ELASTIC_TOL = 1e-9


def elastic_matrix(name, a):
    """A modal stiffness or damping matrix: ``a`` (n, n) finite float, checked symmetric
    (``|a - a^T| <= ELASTIC_TOL max|a|``) and positive semi-definite (no eigenvalue below
    ``-ELASTIC_TOL`` times the largest in magnitude: a rigid-body mode's zero may come out
    of a reduction as -1e-12), returned exactly symmetrized, ``(a + a^T) / 2``.

    Raises ValueError "``name``: must be symmetric" or "``name``: must be positive
    semi-definite" (with its smallest eigenvalue) otherwise.
    """
    scale = float(np.max(np.abs(a), initial=0.0))
    if np.max(np.abs(a - a.T), initial=0.0) > ELASTIC_TOL * scale:
        raise ValueError(f"{name}: must be symmetric (largest |a - a^T| "
                         f"{np.max(np.abs(a - a.T)):.3g} of entries up to {scale:.3g})")
    a = 0.5 * (a + a.T)
    lam = np.linalg.eigvalsh(a)
    if lam.size and lam[0] < -ELASTIC_TOL * float(np.abs(lam).max()):
        raise ValueError(f"{name}: must be positive semi-definite (smallest eigenvalue {lam[0]:.6g})")
    return a


def _elastic(name, value, n):
    """A ModalData ``stiffness`` or ``damping``: (n,) >= 0, or an (n, n) ``elastic_matrix``."""
    a = _array(name, value, (n, n) if np.ndim(value) == 2 else (n,))
    if a.ndim == 2:
        return elastic_matrix(name, a)
    if np.any(a < 0.0):
        raise ValueError(f"{name}: must be non-negative")
    return a


class ModalData:
    """Modes, modal integrals and node mode shapes of one flexible body (see the module
    docstring for every field's frame, shape and units).

    All arrays are float64 copies made read-only; construction validates shapes, finiteness,
    a symmetric positive definite ``modal_mass``, non-negative ``stiffness`` and
    ``damping`` (per mode (n,), or symmetric positive semi-definite (n, n) matrices, see
    ``elastic_matrix``), ``mass > 0`` and a symmetric positive semi-definite ``inertia``,
    and raises ValueError naming the field.
    """

    #: the names of the array fields (the optional ones may be None), in file order
    ARRAYS = ("modal_mass", "stiffness", "damping", "node_positions", "mode_shapes", "mass",
              "com", "inertia", "S", "S_rot", "Kg_centrifugal", "M1", "M2")

    def __init__(self, modal_mass, stiffness, mode_shapes, node_positions, mass, com, inertia,
                 S, S_rot, damping=None, Kg_centrifugal=None, M1=None, M2=None, meta=None):
        mode_shapes = _array("mode_shapes", mode_shapes, (None, 6, None))
        k, _, n = mode_shapes.shape
        if n == 0 or k == 0:
            raise ValueError("mode_shapes: at least one node and one mode are needed, "
                             f"got shape {mode_shapes.shape}")
        stiffness = _elastic("stiffness", stiffness, n)
        modal_mass = _array("modal_mass", modal_mass, (n, n))
        _check_symmetric("modal_mass", modal_mass)
        try:
            np.linalg.cholesky(modal_mass)
        except np.linalg.LinAlgError:
            raise ValueError("modal_mass: must be positive definite") from None
        damping = np.zeros(n) if damping is None else _elastic("damping", damping, n)
        node_positions = _array("node_positions", node_positions, (k, 3))
        mass = _array("mass", mass, ())
        if not mass > 0.0:
            raise ValueError("mass: must be positive")
        com = _array("com", com, (3,))
        inertia = _array("inertia", inertia, (3, 3))
        _check_symmetric("inertia", inertia)
        if np.min(np.linalg.eigvalsh(inertia)) < -1e-9 * float(np.max(np.abs(inertia))):
            raise ValueError("inertia: must be positive semi-definite")
        S = _array("S", S, (3, n))
        S_rot = _array("S_rot", S_rot, (3, n))
        if Kg_centrifugal is not None:
            Kg_centrifugal = _array("Kg_centrifugal", Kg_centrifugal, (n, n))
            _check_symmetric("Kg_centrifugal", Kg_centrifugal)
        if (M1 is None) != (M2 is None):
            raise ValueError("M1, M2: give both configuration-dependent integrals or neither")
        if M1 is not None:
            M1, M2 = check_integrals("modal data", M1, M2, n, S)
        meta = {} if meta is None else meta
        if not isinstance(meta, dict):
            raise ValueError(f"meta: expected a dict, got {type(meta).__name__}")
        try:
            self.meta = json.loads(json.dumps(meta))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"meta: must be JSON-serialisable ({exc})") from None
        values = dict(modal_mass=modal_mass, stiffness=stiffness, damping=damping,
                      node_positions=node_positions, mode_shapes=mode_shapes, mass=mass,
                      com=com, inertia=inertia, S=S, S_rot=S_rot, Kg_centrifugal=Kg_centrifugal,
                      M1=M1, M2=M2)
        for name, a in values.items():
            if a is not None:
                a.setflags(write=False)
            setattr(self, name, a)

    @property
    def n_modes(self):
        """Number of modes n."""
        return self.stiffness.shape[0]

    @property
    def n_nodes(self):
        """Number of sampled nodes k."""
        return self.mode_shapes.shape[0]

    @property
    def frequencies(self):
        """Natural frequencies (n,) [rad/s]: ``sqrt(stiffness / diag(modal_mass))`` for a
        stiffness per mode (the modes' frequencies when the modal mass is diagonal, as the
        generator makes it); for a stiffness matrix K the square roots of the eigenvalues
        of ``K phi = omega^2 modal_mass phi``, ascending."""
        if self.stiffness.ndim == 1:
            return np.sqrt(self.stiffness / np.diag(self.modal_mass))
        Li = np.linalg.inv(np.linalg.cholesky(self.modal_mass))
        lam = np.linalg.eigvalsh(Li @ self.stiffness @ Li.T)
        return np.sqrt(np.maximum(lam, 0.0))

    def arrays(self):
        """The fields as a dict name -> array (``Kg_centrifugal``, ``M1``, ``M2`` left out when None)."""
        return {k: getattr(self, k) for k in self.ARRAYS if getattr(self, k) is not None}

    def replace(self, **changes):
        """A new ModalData with some fields replaced (validated again), e.g.
        ``md.replace(damping=2 * 0.01 * md.frequencies)``."""
        fields = self.arrays()
        for optional in ("Kg_centrifugal", "M1", "M2"):
            fields.setdefault(optional, None)
        fields["meta"] = self.meta
        unknown = set(changes) - set(fields)
        if unknown:
            raise ValueError(f"{sorted(unknown)[0]}: not a ModalData field")
        fields.update(changes)
        return ModalData(**fields)

    def __repr__(self):
        f = ", ".join(f"{w:.4g}" for w in self.frequencies[:6])
        more = ", ..." if self.n_modes > 6 else ""
        return (f"ModalData(n_modes={self.n_modes}, n_nodes={self.n_nodes}, "
                f"mass={float(self.mass):.6g} kg, frequencies=[{f}{more}] rad/s)")
