"""``ModalBody``: a flexible body described by assumed modes (seed 002's modal body).

The body frame B moves rigidly (its hinge places it); on top of that the body deforms by
``n_modes`` modal coordinates eta, small. A node fixed on the body at ``T_body_node``
(undeformed) carries mode shapes Pi (6, n_modes), [rotation; translation] per unit eta in
B's axes: its deformed pose in B is (exp(Pi_r eta) R0, p0 + Pi_t eta).

Mass model: with the generalized velocity [V_B; eta'] (V_B the body frame's spatial
velocity in B, [angular; linear]) the kinetic energy is 1/2 [V_B; eta']^T M(eta) [V_B; eta']
with the (6 + n) block matrix, quadratic in eta (``multibody.flex.modal_integrals``):

    M(eta) = M0 + sum_k eta_k dM_k(M1[k]) + sum_kl eta_k eta_l M2[k, l],
    M0 = [[M_rr, M_fr^T], [M_fr, modal_mass]],  M_rr the rigid inertia about B's origin,
    M_fr = [S_rot; S]^T (n x 6): the rigid/flexible coupling (zero unless given).

Without integrals (``M1 = M2 = None``) only the centre of mass moves with the modes
(``m c(eta) = m c0 + S eta``: what S itself says), which keeps gravity and energy
consistent. Elastic and damping forces on the modes: -K eta - C eta', K and C the stiffness
and damping given per mode (diagonal) or as symmetric positive semi-definite matrices.
Without coupling (S = S_rot = 0, the default) the modes move only through the bodies and
loads at the body's nodes, as in seed 002's body without modal integrals.
"""
import numpy as np

from ..flex.modal_data import elastic_matrix
from ..flex.modal_integrals import check_integrals, default_integrals, mass_matrix_at
from .body import RigidBody
from .shared_arrays import IdentityCache, frozen, read_only

#: per frozen input (a ModalData's arrays): the checked arrays every body made from it shares
_SHARED = IdentityCache()


def _vector(body, what, value, n, nonnegative=True):
    a = np.array(value, dtype=float).reshape(-1) if np.ndim(value) else np.full(n, float(value))
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise ValueError(f"modal body {body!r}: {what} must be {n} finite values (one per mode), got shape {a.shape}")
    if nonnegative and np.any(a < 0.0):
        raise ValueError(f"modal body {body!r}: {what} must be >= 0, got {a}")
    return a


def _elastic(body, what, value, n):
    """A stiffness or damping: per mode (``_vector``), or a symmetric positive semi-definite
    (n, n) matrix (``flex.modal_data.elastic_matrix``)."""
    if np.ndim(value) == 2:
        return elastic_matrix(f"modal body {body!r}: {what}", _matrix(body, what, value, (n, n)))
    return _vector(body, what, value, n)


def _matrix(body, what, value, shape):
    a = np.array(value, dtype=float)
    if a.shape != shape or not np.all(np.isfinite(a)):
        raise ValueError(f"modal body {body!r}: {what} must be a finite array of shape {shape}, got {a.shape}")
    return a


def _modal_mass(body, value, n):
    """The modal mass (n, n), checked symmetric positive definite, exactly symmetrized."""
    mm = _matrix(body, "modal_mass", value, (n, n))
    if not np.allclose(mm, mm.T, atol=1e-12 * max(1.0, np.abs(mm).max())):
        raise ValueError(f"modal body {body!r}: modal_mass must be symmetric")
    mm = 0.5 * (mm + mm.T)
    if np.linalg.eigvalsh(mm)[0] <= 0.0:
        raise ValueError(f"modal body {body!r}: modal_mass must be positive definite "
                         f"(eigenvalues {np.linalg.eigvalsh(mm)})")
    return mm


def _integrals(body, M1, M2, n, S):
    """(M1, M2) checked against S: the given arrays themselves when they cannot change
    (frozen, a ModalData's: no copy), else the checked float copies."""
    checked = check_integrals(f"modal body {body!r}", M1, M2, n, S)
    return (M1, M2) if frozen(M1) and frozen(M2) else checked


def _frozen_zeros(shape):
    """A read-only zero array (the default S, S_rot)."""
    z = np.zeros(shape)
    z.setflags(write=False)
    return read_only(z)


class ModalBody(RigidBody):
    """A flexible body with ``n_modes`` assumed modes; create it with ``Multibody.add_modal_body``.

    ``mass``, ``com``, ``inertia`` are the undeformed body's (as a RigidBody's);
    ``modal_mass`` (n, n) symmetric positive definite (identity by default);
    ``stiffness``, ``damping`` (n,) >= 0 (modal k_i and c_i), or symmetric positive
    semi-definite (n, n) matrices K and C (a reduced model's); ``S`` and ``S_rot`` (3, n):
    the first moment of the modes and the angular-momentum coupling about B's origin (see
    ``multibody.flex.ModalData``), zero by default; ``M1`` (n, 6, 6 + n) and ``M2``
    (n, n, 6, 6) or (n, n, 6 + n, 6 + n) the configuration-dependent integrals
    (``multibody.flex.modal_integrals``), by default those of a centre of mass moving as S eta.
    """

    def __init__(self, name, n_modes, mass=0.0, com=(0.0, 0.0, 0.0), inertia=None, modal_mass=None,
                 stiffness=0.0, damping=0.0, S=None, S_rot=None, M1=None, M2=None):
        super().__init__(name, mass, com, inertia)
        if not isinstance(n_modes, (int, np.integer)) or isinstance(n_modes, bool) or n_modes < 1:
            raise ValueError(f"modal body {name!r}: n_modes must be an integer >= 1, got {n_modes!r}")
        self.n_modes = n = int(n_modes)
        # the data's arrays are checked once per frozen source (a ModalData's) and shared
        # read-only by every body made from it; other inputs get checked read-only copies
        mm = np.eye(n) if modal_mass is None else modal_mass
        self.modal_mass = _SHARED.get(("modal_mass", n), (mm,), lambda: _modal_mass(name, mm, n))
        self.S = _SHARED.get(("S", n), (S,), lambda: _matrix(name, "S", S, (3, n))) if S is not None \
            else _frozen_zeros((3, n))
        self.S_rot = _SHARED.get(("S_rot", n), (S_rot,), lambda: _matrix(name, "S_rot", S_rot, (3, n))) \
            if S_rot is not None else _frozen_zeros((3, n))
        if (M1 is None) != (M2 is None):
            raise ValueError(f"modal body {name!r}: give both M1 and M2 (or neither)")
        if M1 is None:
            self.M1, self.M2 = _SHARED.get(("default_integrals", n), (self.S,), lambda: default_integrals(self.S))
        else:
            self.M1, self.M2 = _SHARED.get(("integrals", n), (M1, M2, self.S),
                                           lambda: _integrals(name, M1, M2, n, self.S))
        self._stiffness = _elastic(name, "stiffness", stiffness, n)
        self._damping = _elastic(name, "damping", damping, n)
        self.nodes = {}  # name -> Node on this body (with mode shapes)

    #: the arrays bodies made from one data share, read-only
    SHARED_FIELDS = ("modal_mass", "S", "S_rot", "M1", "M2")

    def __setstate__(self, state):
        """After pickling or deepcopy the shared arrays come back writeable (and still one
        object for all bodies of the copy): made read-only again, as at construction."""
        self.__dict__.update(state)
        for name in self.SHARED_FIELDS:
            a = getattr(self, name)
            if not (frozen(a) and isinstance(a.base, memoryview)):
                if a.base is not None and not isinstance(a.base, bytes):  # not as pickle leaves it
                    a = a.copy()
                a.setflags(write=False)  # in place: the copy's bodies still share this object
                setattr(self, name, read_only(a))

    # seed 002's get/set of the stiffness and damping vectors (or matrices)
    @property
    def stiffness(self):
        """Modal stiffness as given: k (n_modes,) >= 0, the elastic force on mode i is
        -k_i eta_i, or a symmetric positive semi-definite K (n_modes, n_modes), the force
        -K eta."""
        return self._stiffness.copy()

    @stiffness.setter
    def stiffness(self, value):
        self._stiffness = _elastic(self.name, "stiffness", value, self.n_modes)
        if self.multibody is not None:
            self.multibody.invalidate()

    @property
    def damping(self):
        """Modal viscous damping as given: c (n_modes,) >= 0, the force on mode i is
        -c_i eta_i', or a symmetric positive semi-definite C (n_modes, n_modes), -C eta'."""
        return self._damping.copy()

    @damping.setter
    def damping(self, value):
        self._damping = _elastic(self.name, "damping", value, self.n_modes)
        if self.multibody is not None:
            self.multibody.invalidate()

    @property
    def stiffness_matrix(self):
        """The modal stiffness K (n_modes, n_modes) (diagonal when given per mode)."""
        return np.diag(self._stiffness) if self._stiffness.ndim == 1 else self._stiffness.copy()

    @property
    def damping_matrix(self):
        """The modal damping C (n_modes, n_modes) (diagonal when given per mode)."""
        return np.diag(self._damping) if self._damping.ndim == 1 else self._damping.copy()

    def mass_matrix(self, eta=None):
        """The (6 + n_modes) mass matrix M(eta) about the body frame's origin, in its axes
        (undeformed, M0, when ``eta`` is None)."""
        n = self.n_modes
        M = np.zeros((6 + n, 6 + n))
        M[:6, :6] = self.spatial_inertia()
        Mfr = np.vstack([self.S_rot, self.S]).T
        M[6:, :6] = Mfr
        M[:6, 6:] = Mfr.T
        M[6:, 6:] = self.modal_mass
        if eta is not None:
            eta = _vector(self.name, "eta", eta, n, nonnegative=False)
            M = mass_matrix_at(M, self.M1, self.M2, eta)
        return M

    def check_mode_shapes(self, node, Pi):
        """Pi as a (6, n_modes) float array, or ValueError naming the node and the body."""
        Pi = np.array(Pi, dtype=float)
        if Pi.shape != (6, self.n_modes) or not np.all(np.isfinite(Pi)):
            raise ValueError(f"node {node!r} on modal body {self.name!r}: mode_shapes must be a finite "
                             f"(6, {self.n_modes}) array ([rotation; translation] per mode), got shape {Pi.shape}")
        return Pi

    def __repr__(self):
        return f"ModalBody({self.name!r}, mass={self.mass:g}, n_modes={self.n_modes})"
