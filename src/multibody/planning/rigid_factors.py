"""Rigid-motion factors of a Lie-group configuration space: SE(2), SE(3) and R^3 x SO(3).

As in :mod:`.factors`, the methods take float64 arrays of the factor's sizes without
validating them and call :mod:`multibody.spatial.fast`. Tangent vectors are angular
first and body-frame for the group exponentials:

- ``SE(2)``: q = (cos t, sin t, x, y), v = [t_dot; vx; vy], ``T' = T exp(v)``;
- ``SE(3)``: q = [rotation (4 or 3); position (3)], v = [omega; v], ``T' = T exp(v)``;
- ``R^3xSO(3)``: same q, v = [omega (body); p_dot (parent)], ``R' = R exp(omega)``,
  ``p' = p + p_dot``.
"""

from __future__ import annotations

import math

import numpy as np

from ..spatial import fast
from .factors import SO3, Factor

__all__ = ["SE2", "SE3", "R3xSO3"]


def _rot2(t: float, p: np.ndarray) -> np.ndarray:
    """``R(t) @ p`` for a planar rotation by ``t`` (rad), p (2,)."""
    c, s = math.cos(t), math.sin(t)
    return np.array([c * p[0] - s * p[1], s * p[0] + c * p[1]])


class SE2(Factor):
    """Planar rigid motions. q = (cos t, sin t, x, y), v = [t_dot; vx; vy] (body frame)."""

    nq, nv, name = 4, 3, "SE(2)"

    def key(self):
        return ("SE2",)

    def neutral(self):
        return np.array([1.0, 0.0, 0.0, 0.0])

    def random(self, rng, scale):
        t = rng.uniform(-math.pi, math.pi)
        return np.concatenate([[math.cos(t), math.sin(t)], rng.uniform(-scale, scale, 2)])

    def normalize(self, q):
        q = np.array(q, dtype=float)
        q[:2] /= math.hypot(q[0], q[1])
        return q

    @staticmethod
    def _split(q):
        return math.atan2(q[1], q[0]), np.asarray(q[2:4], dtype=float)

    @staticmethod
    def _ad_exp_inv(v) -> np.ndarray:
        """``Ad(exp(v)^-1)`` (3, 3): the adjoint of ``(-t, -R(t)^T p)``, ``exp(v) = (t, p)``."""
        t, p = fast.se2_exp(v)
        return fast.se2_adjoint(-t, -_rot2(-t, p))

    def integrate(self, q, v):
        t0, p0 = self._split(q)
        dt, dp = fast.se2_exp(v)
        t1 = t0 + dt
        p1 = p0 + _rot2(t0, dp)
        return np.array([math.cos(t1), math.sin(t1), p1[0], p1[1]])

    def difference(self, q0, q1):
        t0, p0 = self._split(q0)
        t1, p1 = self._split(q1)
        rel_t = math.atan2(math.sin(t1 - t0), math.cos(t1 - t0))
        return fast.se2_log(rel_t, _rot2(-t0, p1 - p0))

    def d_integrate_dq(self, q, v):
        return self._ad_exp_inv(v)

    def d_integrate_dv(self, q, v):
        return fast.se2_right_jacobian(v)

    def d_difference_dq0(self, q0, q1):
        d = self.difference(q0, q1)
        # Jl^-1(d) = Jr^-1(d) Ad(exp(-d))
        return -fast.se2_right_jacobian_inv(d) @ self._ad_exp_inv(d)

    def d_difference_dq1(self, q0, q1):
        return fast.se2_right_jacobian_inv(self.difference(q0, q1))


class _PoseFactor(Factor):
    """Common part of SE3 and R3xSO3: q = [rotation (4 or 3); position (3)], nv = 6."""

    nv = 6
    _label = ""

    def __init__(self, chart: str = "quaternion", chart_offset=None):
        self.rot = SO3(chart, chart_offset)
        self.chart = self.rot.chart
        self.chart_offset = self.rot.chart_offset
        self.nr = self.rot.nq
        self.nq = self.nr + 3
        self.name = self._label if chart == "quaternion" else self._label + "[rotvec]"

    def key(self):
        return (self._label,) + self.rot.key()[1:]

    def neutral(self):
        return np.concatenate([self.rot.neutral(), np.zeros(3)])

    def random(self, rng, scale):
        return np.concatenate([self.rot.random(rng, scale), rng.uniform(-scale, scale, 3)])

    def normalize(self, q):
        q = np.array(q, dtype=float)
        q[:self.nr] = self.rot.normalize(q[:self.nr])
        return q

    def to_matrix(self, q) -> np.ndarray:
        """Homogeneous transform (4, 4) of the factor's coordinates (float64 (nq,))."""
        return fast.transform(self.rot.to_matrix(q[:self.nr]), q[self.nr:self.nr + 3])

    def from_matrix(self, t) -> np.ndarray:
        """Coordinates (nq,) of a homogeneous transform (4, 4)."""
        t = np.asarray(t, dtype=float)
        return np.concatenate([self.rot.from_matrix(t[:3, :3]), t[:3, 3]])


class SE3(_PoseFactor):
    """Rigid motions SE(3): q = [rotation (quaternion 4 or rotvec 3); position (3)].

    v = [omega; v] in the body frame.

    Integration is the exact group exponential: ``T' = T exp([omega; v])`` (the free
    hinge), so ``p' = p + R Jl(omega) v``. ``chart_offset`` as in :class:`SO3`.
    """

    _label = "SE(3)"

    def integrate(self, q, v):
        x = self.nr
        rot = self.rot.integrate(q[:x], v[:3])
        step = fast.so3_left_jacobian(v[:3]) @ v[3:]  # translation of exp(v)
        return np.concatenate([rot, q[x:] + self.rot.to_matrix(q[:x]) @ step])

    def difference(self, q0, q1):
        x = self.nr
        w = self.rot.difference(q0[:x], q1[:x])
        p = self.rot.to_matrix(q0[:x]).T @ (q1[x:] - q0[x:])
        return np.concatenate([w, fast.so3_left_jacobian_inv(w) @ p])

    def d_integrate_dq(self, q, v):
        return fast.motion_transform_inverse(fast.se3_exp(v))

    def d_integrate_dv(self, q, v):
        return fast.se3_right_jacobian(v)

    def d_difference_dq0(self, q0, q1):
        return -fast.se3_left_jacobian_inv(self.difference(q0, q1))

    def d_difference_dq1(self, q0, q1):
        return fast.se3_right_jacobian_inv(self.difference(q0, q1))


def _block_diag33(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros((6, 6))
    out[:3, :3] = a
    out[3:, 3:] = b
    return out


class R3xSO3(_PoseFactor):
    """Direct product R^3 x SO(3): q = [rotation (4 or 3); position (3)].

    v = [omega (body frame); p_dot (parent frame)].

    ``R' = R exp(omega)``, ``p' = p + p_dot``. ``chart_offset`` as in :class:`SO3`.
    """

    _label = "R^3xSO(3)"

    def integrate(self, q, v):
        x = self.nr
        return np.concatenate([self.rot.integrate(q[:x], v[:3]), q[x:] + v[3:]])

    def difference(self, q0, q1):
        x = self.nr
        return np.concatenate([self.rot.difference(q0[:x], q1[:x]), q1[x:] - q0[x:]])

    def d_integrate_dq(self, q, v):
        return _block_diag33(self.rot.d_integrate_dq(q[:self.nr], v[:3]), np.eye(3))

    def d_integrate_dv(self, q, v):
        return _block_diag33(self.rot.d_integrate_dv(q[:self.nr], v[:3]), np.eye(3))

    def d_difference_dq0(self, q0, q1):
        x = self.nr
        return _block_diag33(self.rot.d_difference_dq0(q0[:x], q1[:x]), -np.eye(3))

    def d_difference_dq1(self, q0, q1):
        x = self.nr
        return _block_diag33(self.rot.d_difference_dq1(q0[:x], q1[:x]), np.eye(3))
