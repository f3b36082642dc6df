"""Factors of a Lie-group configuration space: the base class, R^n, SO(2) and SO(3).

A factor knows its coordinate sizes (``nq`` configuration numbers, ``nv`` tangent
numbers) and its group operations on 1-D float64 arrays of those sizes; the
rigid-motion factors (SE(2), SE(3), R^3 x SO(3)) are in :mod:`.rigid_factors`, the
product of factors is :class:`~multibody.planning.space.LiegroupSpace`.

Factor methods do **not** validate their inputs (``LiegroupSpace`` does, once, at
its public boundary): they take float64 arrays of the right shape and call the
unchecked helpers of :mod:`multibody.spatial.fast`. Conventions: tangent vectors are
body-frame (``R' = R exp(omega)``), quaternions scalar-last (x, y, z, w).
"""

from __future__ import annotations

import math

import numpy as np

from ..spatial import fast

__all__ = ["Factor", "VectorSpace", "SO2", "SO3"]

_CHARTS = ("quaternion", "rotvec")


def _check_chart(chart: str) -> str:
    if chart not in _CHARTS:
        raise ValueError(f"chart must be one of {_CHARTS}, got {chart!r}")
    return chart


def _nonzero_quat(q: np.ndarray) -> np.ndarray:
    """``q`` itself, a float64 (4,) quaternion; ValueError if it is zero.

    The quaternion chart accepts any non-zero scale: every operation below either
    normalises or is scale-invariant (``quat_to_matrix``, ``quat_to_rotvec``).
    """
    if not q.any():
        raise ValueError("quaternion coordinates must be non-zero")
    return q


def _random_quat(rng: np.random.Generator) -> np.ndarray:
    """Uniformly distributed (Haar) unit quaternion with ``w >= 0``."""
    return fast.quat_canonical(rng.standard_normal(4))


class Factor:
    """One factor of a :class:`~multibody.planning.space.LiegroupSpace` (base class).

    Subclasses set ``nq``, ``nv`` and ``name`` and implement the group operations
    below on 1-D float64 arrays (``q`` of shape ``(nq,)``, ``v`` of shape ``(nv,)``,
    Jacobians ``(nv, nv)``) without validating them. The defaults are those of a
    vector space.
    """

    nq: int
    nv: int
    name: str
    is_vector_space = False

    def key(self) -> tuple:
        """Hashable identity used for equality of spaces."""
        raise NotImplementedError

    def __eq__(self, other) -> bool:
        return isinstance(other, Factor) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return self.name

    def neutral(self) -> np.ndarray:
        """Identity element (nq,)."""
        raise NotImplementedError

    def random(self, rng: np.random.Generator, scale: float) -> np.ndarray:
        """Random element (nq,): vectors uniform in ``[-scale, scale]``, rotations Haar."""
        raise NotImplementedError

    def normalize(self, q) -> np.ndarray:
        """Coordinates projected back onto the group (nq,)."""
        return np.array(q, dtype=float)

    def integrate(self, q, v) -> np.ndarray:
        """q ⊕ v (nq,)."""
        raise NotImplementedError

    def difference(self, q0, q1) -> np.ndarray:
        """q1 ⊖ q0 (nv,), the ``v`` with ``integrate(q0, v) == q1``."""
        raise NotImplementedError

    def d_integrate_dq(self, q, v) -> np.ndarray:
        """Jacobian (nv, nv) of q ⊕ v with respect to q."""
        return np.eye(self.nv)

    def d_integrate_dv(self, q, v) -> np.ndarray:
        """Jacobian (nv, nv) of q ⊕ v with respect to v."""
        return np.eye(self.nv)

    def d_difference_dq0(self, q0, q1) -> np.ndarray:
        """Jacobian (nv, nv) of q1 ⊖ q0 with respect to q0."""
        return -np.eye(self.nv)

    def d_difference_dq1(self, q0, q1) -> np.ndarray:
        """Jacobian (nv, nv) of q1 ⊖ q0 with respect to q1."""
        return np.eye(self.nv)


class VectorSpace(Factor):
    """The vector space R^n: ``q ⊕ v = q + v``, ``q1 ⊖ q0 = q1 - q0``."""

    is_vector_space = True

    def __init__(self, n: int):
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        self.nq = self.nv = n
        self.name = f"R^{n}"

    def key(self):
        return ("R", self.nq)

    def neutral(self):
        return np.zeros(self.nq)

    def random(self, rng, scale):
        return rng.uniform(-scale, scale, self.nq)

    def integrate(self, q, v):
        return np.asarray(q, dtype=float) + v

    def difference(self, q0, q1):
        return np.asarray(q1, dtype=float) - q0


class SO2(Factor):
    """Planar rotations, q = (cos t, sin t), v = t_dot (1)."""

    nq, nv, name = 2, 1, "SO(2)"

    def key(self):
        return ("SO2",)

    def neutral(self):
        return np.array([1.0, 0.0])

    def random(self, rng, scale):
        t = rng.uniform(-math.pi, math.pi)
        return np.array([math.cos(t), math.sin(t)])

    def normalize(self, q):
        q = np.asarray(q, dtype=float)
        return q / math.hypot(q[0], q[1])

    def integrate(self, q, v):
        c, s = self.normalize(q)
        cv, sv = math.cos(v[0]), math.sin(v[0])
        return np.array([c * cv - s * sv, s * cv + c * sv])

    def difference(self, q0, q1):
        c0, s0 = self.normalize(q0)
        c1, s1 = self.normalize(q1)
        return np.array([math.atan2(c0 * s1 - s0 * c1, c0 * c1 + s0 * s1)])


class SO3(Factor):
    """Spatial rotations. q: quaternion (x, y, z, w) or rotation vector; v = omega (body frame).

    ``chart_offset`` (quaternion (4,), rotation-vector chart only) re-centres the
    chart: ``R = R(chart_offset) exp([q]x)``, as the multibody's spherical and free
    subhinges do. It changes :meth:`to_matrix` / :meth:`from_matrix`, not
    ``integrate`` / ``difference`` (right multiplication commutes with a left offset).
    """

    nv = 3

    def __init__(self, chart: str = "quaternion", chart_offset=None):
        self.chart = _check_chart(chart)
        self.quaternion = chart == "quaternion"
        self.nq = 4 if self.quaternion else 3
        self.name = "SO(3)" if self.quaternion else "SO(3)[rotvec]"
        self.chart_offset = None
        if chart_offset is not None:
            if self.quaternion:
                raise ValueError("chart_offset applies to the 'rotvec' chart only")
            off = np.asarray(chart_offset, dtype=float)
            if off.shape != (4,) or not np.all(np.isfinite(off)) or not off.any():
                raise ValueError("chart_offset must be a finite, non-zero quaternion "
                                 f"(x, y, z, w) of shape (4,), got {chart_offset!r}")
            off = fast.quat_canonical(off)
            if not np.allclose(off, (0.0, 0.0, 0.0, 1.0), rtol=0.0, atol=1e-15):
                self.chart_offset = off
        self._r_off = None if self.chart_offset is None else fast.quat_to_matrix(self.chart_offset)

    def key(self):
        off = None if self.chart_offset is None else tuple(np.round(self.chart_offset, 12))
        return ("SO3", self.chart, off)

    def to_matrix(self, q) -> np.ndarray:
        """Rotation matrix (3, 3) of the factor's coordinates (float64 (nq,))."""
        r = fast.quat_to_matrix(_nonzero_quat(q)) if self.quaternion else fast.so3_exp(q)
        return r if self._r_off is None else self._r_off @ r

    def from_matrix(self, r) -> np.ndarray:
        """Coordinates of a rotation matrix (3, 3) (rotation vector of norm <= pi)."""
        r = np.asarray(r, dtype=float)
        if self._r_off is not None:
            r = self._r_off.T @ r
        return fast.matrix_to_quat(r) if self.quaternion else fast.so3_log(r)

    def _to_quat(self, q) -> np.ndarray:
        """Quaternion (non-zero, any scale) of the coordinates, chart offset left out."""
        return _nonzero_quat(q) if self.quaternion else fast.quat_from_rotvec(q)

    def neutral(self):
        return np.array([0.0, 0.0, 0.0, 1.0]) if self.quaternion else np.zeros(3)

    def random(self, rng, scale):
        qq = _random_quat(rng)
        return qq if self.quaternion else fast.quat_to_rotvec(qq)

    def normalize(self, q):
        if self.quaternion:
            return fast.quat_normalize(_nonzero_quat(np.asarray(q, dtype=float)))
        return fast.so3_log(fast.so3_exp(q))

    def integrate(self, q, v):
        out = fast.quat_multiply(self._to_quat(q), fast.quat_from_rotvec(v))
        return fast.quat_normalize(out) if self.quaternion else fast.quat_to_rotvec(out)

    def difference(self, q0, q1):
        return fast.quat_to_rotvec(fast.quat_multiply(fast.quat_conjugate(self._to_quat(q0)),
                                                      self._to_quat(q1)))

    def d_integrate_dq(self, q, v):
        return fast.so3_exp(v).T

    def d_integrate_dv(self, q, v):
        return fast.so3_right_jacobian(v)

    def d_difference_dq0(self, q0, q1):
        return -fast.so3_left_jacobian_inv(self.difference(q0, q1))

    def d_difference_dq1(self, q0, q1):
        return fast.so3_right_jacobian_inv(self.difference(q0, q1))
