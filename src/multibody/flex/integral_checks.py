"""The modal integrals' defaults and checks, for ``ModalData`` and ``ModalBody``.

``default_integrals`` gives (M1, M2) of a body known only by its first moments S;
``check_integrals`` validates given ones (shapes, symmetries, the first moment). The
integrals themselves are defined in ``modal_integrals``, which re-exports these two: this
module sits below ``modal_data`` (which validates with it) and imports no ``ModalData``.
"""
import numpy as np

from ..spatial.so3 import skew


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
    """(M1, M2) as float arrays of shapes (n, 6, 6 + n) and (n, n, 6, 6) or (n, n, 6 + n,
    6 + n), finite, with the symmetries of the quadratic form, ``M1[k]``'s first moment
    equal to ``[S_k]x`` and a zero linear/modal block of ``M2[k, l]``; ValueError naming
    ``where`` (e.g. "modal body 'beam'") otherwise. A (6 + n) ``M2`` whose modal rows are
    zero is returned as its rigid (6, 6) block, which the kernels evaluate at less cost."""
    for name, a in (("M1", M1), ("M2", M2)):
        if np.iscomplexobj(a):
            raise ValueError(f"{where}: {name}: complex values are not allowed (modal data is real)")
    M1 = np.array(M1, dtype=float)
    if M1.shape != (n, 6, 6 + n) or not np.all(np.isfinite(M1)):
        raise ValueError(f"{where}: M1 must be a finite array of shape {(n, 6, 6 + n)}, got {M1.shape}")
    M2 = np.array(M2, dtype=float)
    if M2.shape not in ((n, n, 6, 6), (n, n, 6 + n, 6 + n)) or not np.all(np.isfinite(M2)):
        raise ValueError(f"{where}: M2 must be a finite array of shape {(n, n, 6, 6)} or "
                         f"{(n, n, 6 + n, 6 + n)}, got {M2.shape}")
    scale = max(1.0, float(np.abs(M1).max()), float(np.abs(M2).max()))
    tol = 1e-9 * scale
    if np.abs(M1[:, :, :6] - M1[:, :, :6].transpose(0, 2, 1)).max() > tol:
        raise ValueError(f"{where}: M1[k][:, :6] (the rigid block of dM/deta_k) must be symmetric")
    if (np.abs(M2 - M2.transpose(1, 0, 2, 3)).max() > tol
            or np.abs(M2 - M2.transpose(0, 1, 3, 2)).max() > tol):
        raise ValueError(f"{where}: M2[k, l] must be symmetric and M2[k, l] = M2[l, k]")
    if M2.shape[2] > 6:
        if np.abs(M2[:, :, 3:6, 6:]).max() > tol:
            raise ValueError(f"{where}: M2[k, l][3:6, 6:] (linear/modal) must be zero: that block is the "
                             f"derivative of the first moment, whose second-order part M2[k, l][:3, 3:6] holds")
        if not np.any(M2[:, :, 6:]):
            M2 = np.ascontiguousarray(M2[:, :, :6, :6])
    want = default_integrals(S)[0][:, :3, 3:6]
    if np.abs(M1[:, :3, 3:6] - want).max() > tol:
        raise ValueError(f"{where}: M1[k][:3, 3:6] must be the cross-product matrix of S[:, k] "
                         f"(the centre of mass moves with the modes as S eta / mass)")
    return M1, M2
