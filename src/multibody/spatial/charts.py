"""Re-centred rotation-vector charts: ``R = R(offset) exp([v]x)``.

A spherical joint parametrised by a rotation vector ``v`` is singular at
``|v| = 2 pi`` and its Jacobian is ill-conditioned when ``|v|`` gets large. Storing a
unit quaternion ``offset`` (x, y, z, w) with the joint, and using ``v`` only as a local
coordinate about it, keeps ``|v|`` small: when ``|v|`` grows, fold it into the offset
(:func:`rotvec_recenter`) or move it to another offset (:func:`rotvec_change_chart`).
The represented rotation never changes.
"""

from __future__ import annotations

import numpy as np

from . import _fast_rot as F
from ._checks import as_array, as_quaternion

__all__ = ["rotvec_change_chart", "rotvec_recenter"]


def rotvec_change_chart(v, offset_old, offset_new) -> np.ndarray:
    """Express the same rotation in another re-centred rotation-vector chart.

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad) in the old chart.
    offset_old, offset_new : array_like, shape (4,)
        Chart centres as quaternions (x, y, z, w); normalised here.

    Returns
    -------
    ndarray, shape (3,)
        ``v'`` with ``quat_to_matrix(offset_old) @ so3_exp(v) ==
        quat_to_matrix(offset_new) @ so3_exp(v')`` and ``|v'| <= pi``:
        ``v' = log(conj(offset_new) ⊗ offset_old ⊗ quat(v))``.
    """
    v = as_array(v, (3,), "v")
    q_old = F.quat_normalize(as_quaternion(offset_old, "offset_old"))
    q_new = F.quat_normalize(as_quaternion(offset_new, "offset_new"))
    return F.quat_to_rotvec(F.quat_multiply(F.quat_conjugate(q_new),
                                            F.quat_multiply(q_old, F.quat_from_rotvec(v))))


def rotvec_recenter(v, offset):
    """Fold a rotation vector into its chart centre.

    Parameters
    ----------
    v : array_like, shape (3,)
        Rotation vector (rad) in the chart centred at ``offset``.
    offset : array_like, shape (4,)
        Chart centre, quaternion (x, y, z, w); normalised here.

    Returns
    -------
    v_new : ndarray, shape (3,)
        Zeros.
    offset_new : ndarray, shape (4,)
        Unit quaternion ``offset ⊗ quat(v)``, canonical ``w >= 0``; it represents the
        same rotation: ``quat_to_matrix(offset_new) == quat_to_matrix(offset) @ so3_exp(v)``.
    """
    v = as_array(v, (3,), "v")
    q = F.quat_normalize(as_quaternion(offset, "offset"))
    return np.zeros(3), F.quat_canonical(F.quat_multiply(q, F.quat_from_rotvec(v)))
