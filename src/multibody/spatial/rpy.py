"""Roll-pitch-yaw angles, URDF convention: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.

This is the extrinsic x-y-z sequence (SciPy ``Rotation.from_euler('xyz', [r, p, y])``):
rotate about the fixed x axis by roll, then the fixed y axis by pitch, then the fixed z
axis by yaw. Angles in radians.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_array, as_rotation

__all__ = ["rpy_to_matrix", "matrix_to_rpy"]


def rpy_to_matrix(rpy) -> np.ndarray:
    """Rotation matrix from roll-pitch-yaw angles (URDF ``<origin rpy=...>``).

    Parameters
    ----------
    rpy : array_like, shape (3,)
        ``(roll, pitch, yaw)`` in rad.

    Returns
    -------
    ndarray, shape (3, 3)
        ``R = Rz(yaw) Ry(pitch) Rx(roll)``; for a URDF joint origin this is ``R_PC``
        (child joint frame to parent link frame).
    """
    r, p, y = as_array(rpy, (3,), "rpy")
    cr, sr = np.cos(r), np.sin(r)
    cp, sp = np.cos(p), np.sin(p)
    cy, sy = np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def matrix_to_rpy(R) -> np.ndarray:
    """Roll-pitch-yaw angles of a rotation matrix, inverse of :func:`rpy_to_matrix`.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Rotation matrix (orthonormal, det +1, checked to 1e-6).

    Returns
    -------
    ndarray, shape (3,)
        ``(roll, pitch, yaw)`` in rad with roll, yaw in ``[-pi, pi]`` and pitch in
        ``[-pi/2, pi/2]``. At gimbal lock (``|pitch| = pi/2``) roll is set to 0 and
        yaw carries the whole remaining rotation about z.
    """
    R = as_rotation(R, "R")
    cp = np.hypot(R[0, 0], R[1, 0])
    pitch = np.arctan2(-R[2, 0], cp)
    if cp > 1e-14:
        # yaw from R's first column, which Rz(yaw) Ry(pitch) then matches exactly; roll from
        # (Rz(yaw) Ry(pitch))^T R, which absorbs the error of the ill-conditioned yaw near
        # gimbal lock, so the angles rebuild R to rounding (atan2(R21, R22) for roll left
        # 5e-12 on Baxter's near-lock joints, cp = 5e-12)
        yaw = np.arctan2(R[1, 0], R[0, 0])
        M = rpy_to_matrix([0.0, pitch, yaw]).T @ R
        roll = np.arctan2(M[2, 1], M[1, 1])
    else:  # the lock itself, to rounding: yaw carries the whole rotation about z
        roll = 0.0
        yaw = np.arctan2(-R[0, 1], R[1, 1])
    return np.array([roll, pitch, yaw])
