"""Lie-group configuration spaces: products of R^n, SO(2), SO(3), SE(2), SE(3), R^3 x SO(3).

A :class:`LiegroupSpace` is an ordered product of *factors*. A configuration ``q`` is
the concatenation of the factors' coordinates (``nq`` numbers in all), a tangent
vector ``v`` the concatenation of the factors' velocities (``nv`` numbers). The
space offers

- ``integrate(q, v)``  = q ⊕ v, the configuration reached from ``q`` along ``v``
  in unit time (right/body-frame convention: ``R' = R exp(omega)``);
- ``difference(q0, q1)`` = q1 ⊖ q0, the ``v`` with ``q0 ⊕ v == q1``;
- their Jacobians in the same tangent (velocity) coordinates::

      (q ⊕ dq) ⊕ v      ~= (q ⊕ v) ⊕ (d_integrate_dq(q, v) @ dq)
      q ⊕ (v + dv)      ~= (q ⊕ v) ⊕ (d_integrate_dv(q, v) @ dv)
      q1 ⊖ (q0 ⊕ d0)    ~= q1 ⊖ q0 + d_difference_dq0(q0, q1) @ d0
      (q1 ⊕ d1) ⊖ q0    ~= q1 ⊖ q0 + d_difference_dq1(q0, q1) @ d1

Factors and their coordinates (project conventions: rotation first, angular first,
quaternions scalar-last (x, y, z, w))

==============  =====================================  ==================================
factor          q                                      v
==============  =====================================  ==================================
``R^n``         x (n)                                  x_dot (n)
``SO(2)``       (cos t, sin t)                         t_dot (1)
``SO(3)``       quaternion (4) or rotation vector (3)  omega in the body frame (3)
``SE(2)``       (cos t, sin t, x, y)                   [t_dot; v_body] (3), T' = T exp(v)
``SE(3)``       [rotation (4 or 3); position (3)]      [omega; v] body frame, T' = T exp(v)
``R^3xSO(3)``   [rotation (4 or 3); position (3)]      [omega (body); p_dot (parent)]
==============  =====================================  ==================================

``SE(3)`` is the exact group of the free hinge: ``u = [omega; v]`` of the child frame
expressed in the child frame, ``T' = T exp([omega; v])`` (so ``p' = p + R Jl(omega) v``).
``R^3xSO(3)`` is the direct product (``R' = R exp(omega)``, ``p' = p + p_dot``): same
coordinates, different tangent. Rotation-vector charts keep ``|rotvec| <= pi`` after
``integrate``; quaternion charts keep ``|q| = 1``.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from . import _lie_math as lm

__all__ = [
    "LiegroupSpace", "VectorSpace", "SO2", "SO3", "SE2", "SE3", "R3xSO3",
    "as_index_array", "configuration_space",
]

_CHARTS = ("quaternion", "rotvec")


def _check_chart(chart: str) -> str:
    if chart not in _CHARTS:
        raise ValueError(f"chart must be one of {_CHARTS}, got {chart!r}")
    return chart


def _rot_nq(chart: str) -> int:
    return 4 if chart == "quaternion" else 3


def _rot_to_matrix(chart: str, x) -> np.ndarray:
    if chart == "quaternion":
        return lm.quat_to_matrix(x)
    return lm.so3_exp(x)


def _rot_from_matrix(chart: str, r) -> np.ndarray:
    if chart == "quaternion":
        return lm.matrix_to_quat(r)
    return lm.so3_log(r)


def _rot_integrate(chart: str, x, w) -> np.ndarray:
    if chart == "quaternion":
        return lm.quat_normalize(lm.quat_multiply(x, lm.quat_from_rotvec(w)))
    return lm.quat_to_rotvec(lm.quat_multiply(lm.quat_from_rotvec(x), lm.quat_from_rotvec(w)))


def _rot_difference(chart: str, x0, x1) -> np.ndarray:
    if chart == "quaternion":
        return lm.quat_to_rotvec(lm.quat_multiply(lm.quat_conjugate(lm.quat_normalize(x0)),
                                                  lm.quat_normalize(x1)))
    return lm.quat_to_rotvec(lm.quat_multiply(lm.quat_conjugate(lm.quat_from_rotvec(x0)),
                                              lm.quat_from_rotvec(x1)))


def _random_quat(rng: np.random.Generator) -> np.ndarray:
    q = rng.standard_normal(4)
    q /= np.linalg.norm(q)
    return q if q[3] >= 0 else -q


# ===================================================================== factors

class _Factor:
    """One factor of a :class:`LiegroupSpace` (internal base class)."""

    nq: int
    nv: int
    is_vector_space = False

    def key(self) -> tuple:
        """Hashable identity used for equality of spaces."""
        raise NotImplementedError

    def __eq__(self, other) -> bool:
        return isinstance(other, _Factor) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return self.name

    # subclasses implement these on 1-D float arrays of the factor's size
    def neutral(self) -> np.ndarray:
        raise NotImplementedError

    def random(self, rng, scale: float) -> np.ndarray:
        raise NotImplementedError

    def normalize(self, q) -> np.ndarray:
        return np.array(q, dtype=float)

    def integrate(self, q, v) -> np.ndarray:
        raise NotImplementedError

    def difference(self, q0, q1) -> np.ndarray:
        raise NotImplementedError

    def d_integrate_dq(self, q, v) -> np.ndarray:
        return np.eye(self.nv)

    def d_integrate_dv(self, q, v) -> np.ndarray:
        return np.eye(self.nv)

    def d_difference_dq0(self, q0, q1) -> np.ndarray:
        return -np.eye(self.nv)

    def d_difference_dq1(self, q0, q1) -> np.ndarray:
        return np.eye(self.nv)


class VectorSpace(_Factor):
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


class SO2(_Factor):
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


class SO3(_Factor):
    """Spatial rotations. q: quaternion (x, y, z, w) or rotation vector; v = omega (body frame).

    ``chart_offset`` (quaternion (4,), rotation-vector chart only) re-centres the
    chart: ``R = R(chart_offset) exp([q]x)``, as the multibody's spherical and free
    subhinges do. It changes :meth:`to_matrix` / :meth:`from_matrix`, not
    ``integrate`` / ``difference`` (right multiplication commutes with a left offset).
    """

    nv = 3

    def __init__(self, chart: str = "quaternion", chart_offset=None):
        self.chart = _check_chart(chart)
        self.nq = _rot_nq(chart)
        self.name = "SO(3)" if chart == "quaternion" else "SO(3)[rotvec]"
        if chart_offset is None:
            self.chart_offset = None
        else:
            if chart != "rotvec":
                raise ValueError("chart_offset applies to the 'rotvec' chart only")
            off = lm.quat_normalize(np.asarray(chart_offset, dtype=float))
            if off[3] < 0:
                off = -off
            identity = np.allclose(off, (0.0, 0.0, 0.0, 1.0), rtol=0.0, atol=1e-15)
            self.chart_offset = None if identity else off
        self._r_off = None if self.chart_offset is None else lm.quat_to_matrix(self.chart_offset)

    def key(self):
        off = None if self.chart_offset is None else tuple(np.round(self.chart_offset, 12))
        return ("SO3", self.chart, off)

    def to_matrix(self, q) -> np.ndarray:
        """Rotation matrix (3, 3) of the factor's coordinates."""
        r = _rot_to_matrix(self.chart, q)
        return r if self._r_off is None else self._r_off @ r

    def from_matrix(self, r) -> np.ndarray:
        """Coordinates of a rotation matrix (3, 3) (rotation vector of norm <= pi)."""
        r = np.asarray(r, dtype=float)
        if self._r_off is not None:
            r = self._r_off.T @ r
        return _rot_from_matrix(self.chart, r)

    def neutral(self):
        return np.array([0.0, 0.0, 0.0, 1.0]) if self.chart == "quaternion" else np.zeros(3)

    def random(self, rng, scale):
        qq = _random_quat(rng)
        return qq if self.chart == "quaternion" else lm.quat_to_rotvec(qq)

    def normalize(self, q):
        if self.chart == "quaternion":
            return lm.quat_normalize(q)
        return lm.so3_log(lm.so3_exp(q))

    def integrate(self, q, v):
        return _rot_integrate(self.chart, q, v)

    def difference(self, q0, q1):
        return _rot_difference(self.chart, q0, q1)

    def d_integrate_dq(self, q, v):
        return lm.so3_exp(v).T

    def d_integrate_dv(self, q, v):
        return lm.so3_right_jacobian(v)

    def d_difference_dq0(self, q0, q1):
        return -lm.so3_left_jacobian_inv(self.difference(q0, q1))

    def d_difference_dq1(self, q0, q1):
        return lm.so3_right_jacobian_inv(self.difference(q0, q1))


class SE2(_Factor):
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

    def integrate(self, q, v):
        t0, p0 = self._split(q)
        dt, dp = lm.se2_exp(v)
        c, s = math.cos(t0), math.sin(t0)
        t1 = t0 + dt
        p1 = p0 + np.array([c * dp[0] - s * dp[1], s * dp[0] + c * dp[1]])
        return np.array([math.cos(t1), math.sin(t1), p1[0], p1[1]])

    def difference(self, q0, q1):
        t0, p0 = self._split(q0)
        t1, p1 = self._split(q1)
        c, s = math.cos(t0), math.sin(t0)
        d = p1 - p0
        rel_p = np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1]])
        rel_t = math.atan2(math.sin(t1 - t0), math.cos(t1 - t0))
        return lm.se2_log(rel_t, rel_p)

    def d_integrate_dq(self, q, v):
        t, p = lm.se2_exp(v)
        # Ad(exp(v)^-1)
        c, s = math.cos(t), math.sin(t)
        pinv = -np.array([c * p[0] + s * p[1], -s * p[0] + c * p[1]])
        return lm.se2_adjoint(-t, pinv)

    def d_integrate_dv(self, q, v):
        return lm.se2_right_jacobian(v)

    def d_difference_dq0(self, q0, q1):
        d = self.difference(q0, q1)
        t, p = lm.se2_exp(d)
        c, s = math.cos(t), math.sin(t)
        pinv = -np.array([c * p[0] + s * p[1], -s * p[0] + c * p[1]])
        # Jl^-1(d) = Jr^-1(d) Ad(exp(-d))
        return -lm.se2_right_jacobian_inv(d) @ lm.se2_adjoint(-t, pinv)

    def d_difference_dq1(self, q0, q1):
        return lm.se2_right_jacobian_inv(self.difference(q0, q1))


class _PoseFactor(_Factor):
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
        """Homogeneous transform (4, 4) of the factor's coordinates."""
        t = np.eye(4)
        t[:3, :3] = self.rot.to_matrix(q[:self.nr])
        t[:3, 3] = q[self.nr:self.nr + 3]
        return t

    def from_matrix(self, t) -> np.ndarray:
        """Coordinates of a homogeneous transform (4, 4)."""
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
        r0 = self.rot.to_matrix(q[:x])
        e = lm.se3_exp(v)
        rot = self.rot.integrate(q[:x], v[:3])
        return np.concatenate([rot, np.asarray(q[x:], dtype=float) + r0 @ e[:3, 3]])

    def difference(self, q0, q1):
        x = self.nr
        r0 = self.rot.to_matrix(q0[:x])
        w = self.rot.difference(q0[:x], q1[:x])
        p = r0.T @ (np.asarray(q1[x:], dtype=float) - q0[x:])
        return np.concatenate([w, lm.so3_left_jacobian_inv(w) @ p])

    def d_integrate_dq(self, q, v):
        return lm.se3_adjoint(lm.transform_inverse(lm.se3_exp(v)))

    def d_integrate_dv(self, q, v):
        return lm.se3_right_jacobian(v)

    def d_difference_dq0(self, q0, q1):
        return -lm.se3_left_jacobian_inv(self.difference(q0, q1))

    def d_difference_dq1(self, q0, q1):
        return lm.se3_right_jacobian_inv(self.difference(q0, q1))


class R3xSO3(_PoseFactor):
    """Direct product R^3 x SO(3): q = [rotation (4 or 3); position (3)].

    v = [omega (body frame); p_dot (parent frame)].

    ``R' = R exp(omega)``, ``p' = p + p_dot``. ``chart_offset`` as in :class:`SO3`.
    """

    _label = "R^3xSO(3)"

    def integrate(self, q, v):
        x = self.nr
        return np.concatenate([self.rot.integrate(q[:x], v[:3]),
                               np.asarray(q[x:], dtype=float) + v[3:]])

    def difference(self, q0, q1):
        x = self.nr
        return np.concatenate([self.rot.difference(q0[:x], q1[:x]),
                               np.asarray(q1[x:], dtype=float) - q0[x:]])

    def _blocks(self, a, b):
        out = np.zeros((6, 6))
        out[:3, :3] = a
        out[3:, 3:] = b
        return out

    def d_integrate_dq(self, q, v):
        return self._blocks(lm.so3_exp(v[:3]).T, np.eye(3))

    def d_integrate_dv(self, q, v):
        return self._blocks(lm.so3_right_jacobian(v[:3]), np.eye(3))

    def d_difference_dq0(self, q0, q1):
        w = self.difference(q0, q1)[:3]
        return self._blocks(-lm.so3_left_jacobian_inv(w), -np.eye(3))

    def d_difference_dq1(self, q0, q1):
        w = self.difference(q0, q1)[:3]
        return self._blocks(lm.so3_right_jacobian_inv(w), np.eye(3))


# ============================================================ index utilities

def as_index_array(spec, size: int, argname: str = "indices") -> np.ndarray:
    """Normalize an index specification into a 1-D int64 array of distinct indices.

    ``spec`` may be an int, a slice, an int array-like, or a list whose items are
    ints, slices or ``(start, length)`` pairs (segments). Order is preserved.
    Raises ValueError naming ``argname`` for out-of-range or repeated indices.
    """
    parts: list[np.ndarray] = []

    def one(item):
        if isinstance(item, slice):
            parts.append(np.arange(size)[item])
        elif isinstance(item, (int, np.integer)):
            parts.append(np.array([int(item)]))
        elif isinstance(item, tuple) and len(item) == 2 and all(
                isinstance(x, (int, np.integer)) for x in item):
            start, length = int(item[0]), int(item[1])
            if length < 0:
                raise ValueError(f"{argname}: segment {item} has a negative length")
            parts.append(np.arange(start, start + length))
        else:
            raise ValueError(f"{argname}: cannot interpret {item!r} as an index, slice or "
                             f"(start, length) segment")

    if isinstance(spec, np.ndarray):
        if spec.dtype.kind not in "iu":
            raise ValueError(f"{argname} must hold integers, got dtype {spec.dtype}")
        parts.append(spec.astype(np.int64).ravel())
    elif isinstance(spec, (slice, int, np.integer)):
        one(spec)
    elif isinstance(spec, Iterable):
        for item in spec:
            one(item)
    else:
        raise ValueError(f"{argname}: cannot interpret {spec!r} as indices")
    idx = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise ValueError(f"{argname} must lie in [0, {size}), got {idx.tolist()}")
    if np.unique(idx).size != idx.size:
        raise ValueError(f"{argname} contains repeated indices: {idx.tolist()}")
    return idx


# ===================================================================== spaces

def _canonical(factors: Sequence[_Factor]) -> tuple:
    """Factor keys with adjacent vector spaces merged (R^2 x R^1 == R^3), R^0 dropped."""
    out: list = []
    for f in factors:
        if f.is_vector_space:
            if f.nq == 0:
                continue
            if out and out[-1][0] == "R":
                out[-1] = ("R", out[-1][1] + f.nq)
                continue
        out.append(f.key())
    return tuple(out)


class LiegroupSpace:
    """Cartesian product of Lie-group factors, the configuration space of a system.

    Parameters
    ----------
    factors
        Factors in coordinate order: instances of :class:`VectorSpace`, :class:`SO2`,
        :class:`SO3`, :class:`SE2`, :class:`SE3`, :class:`R3xSO3`, or other
        ``LiegroupSpace`` objects (flattened).
    names
        Optional label per factor (e.g. the hinge names of a multibody).

    ``q`` arrays have shape ``(nq,)``, tangent vectors ``(nv,)``, Jacobians ``(nv, nv)``.
    Two spaces compare equal when their factors do, adjacent ``R^n`` merged.
    Spaces multiply: ``LiegroupSpace.Rn(3) * LiegroupSpace.SE3()``.
    """

    def __init__(self, factors: Iterable = (), names: Sequence[str] | None = None):
        flat: list[_Factor] = []
        flat_names: list[str | None] = []
        factors = list(factors)
        if names is not None and len(names) != len(factors):
            raise ValueError(f"names has {len(names)} entries for {len(factors)} factors")
        for k, f in enumerate(factors):
            if isinstance(f, LiegroupSpace):
                flat.extend(f.factors)
                flat_names.extend(f.names)
            elif isinstance(f, _Factor):
                flat.append(f)
                flat_names.append(None if names is None else str(names[k]))
            else:
                raise ValueError(f"factors[{k}] is {f!r}, expected a Lie-group factor "
                                 f"(VectorSpace, SO2, SO3, SE2, SE3, R3xSO3) or a LiegroupSpace")
        self.factors: tuple[_Factor, ...] = tuple(flat)
        self.names: tuple[str | None, ...] = tuple(flat_names)
        nqs = np.array([f.nq for f in flat], dtype=np.int64)
        nvs = np.array([f.nv for f in flat], dtype=np.int64)
        self.q_offsets = np.concatenate([[0], np.cumsum(nqs)]).astype(np.int64)
        self.v_offsets = np.concatenate([[0], np.cumsum(nvs)]).astype(np.int64)
        self.nq = int(self.q_offsets[-1])
        self.nv = int(self.v_offsets[-1])
        self._key = _canonical(flat)
        # factor index of every configuration / velocity coordinate
        self._q_factor = np.repeat(np.arange(len(flat)), nqs)
        self._v_factor = np.repeat(np.arange(len(flat)), nvs)
        self._is_vector = all(f.is_vector_space for f in flat)

    # ----------------------------------------------------------- constructors
    @classmethod
    def Rn(cls, n: int) -> "LiegroupSpace":
        """R^n."""
        return cls([VectorSpace(n)])

    @classmethod
    def SO2(cls) -> "LiegroupSpace":
        """SO(2), q = (cos t, sin t)."""
        return cls([SO2()])

    @classmethod
    def SO3(cls, chart: str = "quaternion") -> "LiegroupSpace":
        """SO(3) with a quaternion or rotation-vector chart."""
        return cls([SO3(chart)])

    @classmethod
    def SE2(cls) -> "LiegroupSpace":
        """SE(2), q = (cos t, sin t, x, y)."""
        return cls([SE2()])

    @classmethod
    def SE3(cls, chart: str = "quaternion") -> "LiegroupSpace":
        """SE(3), q = [rotation; position], exact exponential integration."""
        return cls([SE3(chart)])

    @classmethod
    def R3xSO3(cls, chart: str = "quaternion") -> "LiegroupSpace":
        """R^3 x SO(3), q = [rotation; position], v = [omega (body); p_dot]."""
        return cls([R3xSO3(chart)])

    # ------------------------------------------------------------ structure
    def __mul__(self, other: "LiegroupSpace") -> "LiegroupSpace":
        if not isinstance(other, (LiegroupSpace, _Factor)):
            return NotImplemented
        return LiegroupSpace([self, other])

    def __eq__(self, other) -> bool:
        return isinstance(other, LiegroupSpace) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        if not self.factors:
            return "LiegroupSpace(R^0)"
        return "LiegroupSpace(" + " x ".join(f.name for f in self.factors) + ")"

    @property
    def is_vector_space(self) -> bool:
        """True when every factor is an R^n."""
        return self._is_vector

    def factor_index(self, name: str) -> int:
        """Index of the factor labelled ``name`` (KeyError if unknown)."""
        try:
            return self.names.index(name)
        except ValueError:
            known = [n for n in self.names if n is not None]
            raise KeyError(f"no factor named {name!r}; known factors: {known}") from None

    def q_slice(self, factor) -> slice:
        """Configuration slice of a factor given by index or name."""
        i = self.factor_index(factor) if isinstance(factor, str) else int(factor)
        return slice(int(self.q_offsets[i]), int(self.q_offsets[i + 1]))

    def v_slice(self, factor) -> slice:
        """Velocity slice of a factor given by index or name."""
        i = self.factor_index(factor) if isinstance(factor, str) else int(factor)
        return slice(int(self.v_offsets[i]), int(self.v_offsets[i + 1]))

    def select(self, q_indices, argname: str = "q_indices"):
        """Sub-space and velocity indices of a selection of configuration coordinates.

        ``q_indices`` (see :func:`as_index_array`) may pick any components of R^n
        factors, in any order, but must contain every coordinate of each non-vector
        factor it touches, contiguously and in order.

        Returns ``(subspace, q_indices (k,), v_indices (m,))`` where ``subspace`` is the
        :class:`LiegroupSpace` of ``q[q_indices]`` and ``v_indices`` the matching
        velocity coordinates.
        """
        idx = as_index_array(q_indices, self.nq, argname)
        factors: list[_Factor] = []
        vidx: list[int] = []
        k = 0
        while k < idx.size:
            i = int(self._q_factor[idx[k]])
            f = self.factors[i]
            q0, v0 = int(self.q_offsets[i]), int(self.v_offsets[i])
            if f.is_vector_space:
                factors.append(VectorSpace(1))
                vidx.append(v0 + int(idx[k]) - q0)
                k += 1
                continue
            want = np.arange(q0, q0 + f.nq)
            got = idx[k:k + f.nq]
            if got.size != f.nq or not np.array_equal(got, want):
                raise ValueError(
                    f"{argname} must contain all coordinates {want.tolist()} of factor {i} "
                    f"({f.name}) contiguously and in order")
            factors.append(f)
            vidx.extend(range(v0, v0 + f.nv))
            k += f.nq
        return LiegroupSpace(_merge_vectors(factors)), idx, np.asarray(vidx, dtype=np.int64)

    def velocity_indices(self, q_indices) -> np.ndarray:
        """Velocity coordinates (m,) matching a selection of configuration coordinates."""
        return self.select(q_indices)[2]

    # ------------------------------------------------------------ validation
    def _check_q(self, q, argname: str = "q") -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if q.shape != (self.nq,):
            raise ValueError(f"{argname} must have shape ({self.nq},), got {q.shape}")
        if not np.all(np.isfinite(q)):
            raise ValueError(f"{argname} contains non-finite values")
        return q

    def _check_v(self, v, argname: str = "v") -> np.ndarray:
        v = np.asarray(v, dtype=float)
        if v.shape != (self.nv,):
            raise ValueError(f"{argname} must have shape ({self.nv},), got {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{argname} contains non-finite values")
        return v

    # ------------------------------------------------------------ elements
    def neutral(self) -> np.ndarray:
        """Identity element (nq,)."""
        return np.concatenate([f.neutral() for f in self.factors]) if self.factors \
            else np.zeros(0)

    def random(self, rng=None, scale: float = 1.0) -> np.ndarray:
        """Random configuration (nq,): R^n components and positions uniform in
        ``[-scale, scale]``, rotations uniform (Haar). ``rng``: a numpy Generator or seed."""
        rng = np.random.default_rng(rng)
        if not self.factors:
            return np.zeros(0)
        return np.concatenate([f.random(rng, float(scale)) for f in self.factors])

    def normalize(self, q) -> np.ndarray:
        """Project coordinates back onto the group (unit quaternions, unit (cos, sin))."""
        q = self._check_q(q)
        return self._per_factor_q(q, lambda f, x: f.normalize(x))

    def _per_factor_q(self, q, fn) -> np.ndarray:
        if self._is_vector:
            return np.array(q, dtype=float)
        out = np.empty(self.nq)
        for i, f in enumerate(self.factors):
            a, b = self.q_offsets[i], self.q_offsets[i + 1]
            out[a:b] = fn(f, q[a:b])
        return out

    def integrate(self, q, v) -> np.ndarray:
        """q ⊕ v: (nq,), (nv,) -> (nq,)."""
        q = self._check_q(q)
        v = self._check_v(v)
        if self._is_vector:
            return q + v
        out = np.empty(self.nq)
        for i, f in enumerate(self.factors):
            a, b = self.q_offsets[i], self.q_offsets[i + 1]
            c, d = self.v_offsets[i], self.v_offsets[i + 1]
            out[a:b] = f.integrate(q[a:b], v[c:d])
        return out

    def difference(self, q0, q1) -> np.ndarray:
        """q1 ⊖ q0, the velocity (nv,) with ``integrate(q0, v) == q1``."""
        q0 = self._check_q(q0, "q0")
        q1 = self._check_q(q1, "q1")
        if self._is_vector:
            return q1 - q0
        out = np.empty(self.nv)
        for i, f in enumerate(self.factors):
            a, b = self.q_offsets[i], self.q_offsets[i + 1]
            c, d = self.v_offsets[i], self.v_offsets[i + 1]
            out[c:d] = f.difference(q0[a:b], q1[a:b])
        return out

    def _block_diag(self, method: str, x, y) -> np.ndarray:
        out = np.zeros((self.nv, self.nv))
        if self._is_vector:
            sign = -1.0 if method == "d_difference_dq0" else 1.0
            np.fill_diagonal(out, sign)
            return out
        for i, f in enumerate(self.factors):
            a, b = self.q_offsets[i], self.q_offsets[i + 1]
            c, d = self.v_offsets[i], self.v_offsets[i + 1]
            if method.startswith("d_integrate"):
                out[c:d, c:d] = getattr(f, method)(x[a:b], y[c:d])
            else:
                out[c:d, c:d] = getattr(f, method)(x[a:b], y[a:b])
        return out

    def d_integrate_dq(self, q, v) -> np.ndarray:
        """Jacobian (nv, nv) of q ⊕ v with respect to q (tangent coordinates)."""
        return self._block_diag("d_integrate_dq", self._check_q(q), self._check_v(v))

    def d_integrate_dv(self, q, v) -> np.ndarray:
        """Jacobian (nv, nv) of q ⊕ v with respect to v."""
        return self._block_diag("d_integrate_dv", self._check_q(q), self._check_v(v))

    def d_difference_dq0(self, q0, q1) -> np.ndarray:
        """Jacobian (nv, nv) of q1 ⊖ q0 with respect to q0 (tangent coordinates)."""
        return self._block_diag("d_difference_dq0", self._check_q(q0, "q0"),
                                self._check_q(q1, "q1"))

    def d_difference_dq1(self, q0, q1) -> np.ndarray:
        """Jacobian (nv, nv) of q1 ⊖ q0 with respect to q1 (tangent coordinates)."""
        return self._block_diag("d_difference_dq1", self._check_q(q0, "q0"),
                                self._check_q(q1, "q1"))

    def distance(self, q0, q1) -> float:
        """Euclidean norm of ``difference(q0, q1)``."""
        return float(np.linalg.norm(self.difference(q0, q1)))


def _merge_vectors(factors: Sequence[_Factor]) -> list[_Factor]:
    out: list[_Factor] = []
    for f in factors:
        if f.is_vector_space and out and out[-1].is_vector_space:
            out[-1] = VectorSpace(out[-1].nq + f.nq)
        else:
            out.append(f)
    return out


# ============================================================ multibody spaces

def _subhinge_factor(kind: str, chart_offset) -> _Factor | None:
    if kind in ("pin", "slider", "screw"):
        return VectorSpace(1)
    if kind == "translational":
        return VectorSpace(3)
    if kind == "spherical":
        return SO3("rotvec", chart_offset)
    if kind == "spherical_quat":
        return SO3("quaternion")
    if kind == "free":
        return SE3("rotvec", chart_offset)
    if kind == "free_quat":
        return SE3("quaternion")
    if kind == "locked":
        return None
    raise ValueError(f"subhinge kind {kind!r} has no Lie-group factor; expected one of pin, "
                     f"slider, screw, translational, spherical, spherical_quat, free, "
                     f"free_quat, locked")


def configuration_space(multibody) -> LiegroupSpace:
    """The :class:`LiegroupSpace` of a multibody's coordinates ``q``, tangent ``u``.

    One factor per hinge in coordinate order (named after the hinge; a hinge whose
    subhinges give several factors has them named ``"hinge[k]"``): consecutive
    pin / slider / screw / translational subhinges of a hinge form one ``R^n``;
    ``spherical`` is ``SO(3)`` in the rotation-vector chart (with the subhinge's
    current chart offset), ``spherical_quat`` ``SO(3)`` with a quaternion,
    ``free`` / ``free_quat`` ``SE(3)`` (exact: ``T' = T exp([omega; v])``, ``u`` in the
    child frame); locked subhinges have no factor. Then ``space.nq == m.nq``,
    ``space.nv == m.nu`` and ``space.integrate(q, u)`` moves like ``m.integrate(q, u)``.

    Chart offsets are read when the space is built: rebuild it after
    ``Multibody.sanitize`` moved a chart.
    """
    offsets = multibody.chart_offsets() if hasattr(multibody, "chart_offsets") else {}
    factors: list[_Factor] = []
    names: list[str] = []
    q_at = 0
    v_at = 0
    for hinge in multibody.hinges:
        qs = multibody.q_slice(hinge.name)
        us = multibody.u_slice(hinge.name)
        if qs.start != q_at or us.start != v_at:
            raise ValueError(f"hinge {hinge.name!r}: coordinates are not contiguous in hinge "
                             f"order (q starts at {qs.start}, expected {q_at})")
        rot_subhinges = [s for s in hinge.subhinges if s.kind in ("spherical", "free")]
        hinge_factors: list[_Factor] = []
        for s in hinge.subhinges:
            off = None
            if s.kind in ("spherical", "free"):
                if len(rot_subhinges) == 1 and hinge.name in offsets:
                    off = offsets[hinge.name]
                else:
                    off = getattr(s, "chart_offset", None)
            f = _subhinge_factor(s.kind, off)
            if f is None:
                continue
            if f.is_vector_space and hinge_factors and hinge_factors[-1].is_vector_space:
                hinge_factors[-1] = VectorSpace(hinge_factors[-1].nq + f.nq)
            else:
                hinge_factors.append(f)
        nq = sum(f.nq for f in hinge_factors)
        nv = sum(f.nv for f in hinge_factors)
        if nq != qs.stop - qs.start or nv != us.stop - us.start:
            raise ValueError(f"hinge {hinge.name!r}: factors give nq={nq}, nv={nv} but the "
                             f"multibody has nq={qs.stop - qs.start}, nu={us.stop - us.start}")
        for k, f in enumerate(hinge_factors):
            factors.append(f)
            names.append(hinge.name if len(hinge_factors) == 1 else f"{hinge.name}[{k}]")
        q_at, v_at = qs.stop, us.stop
    if q_at != multibody.nq or v_at != multibody.nu:
        raise ValueError(f"hinges cover nq={q_at}, nu={v_at} of the multibody's nq="
                         f"{multibody.nq}, nu={multibody.nu}")
    return LiegroupSpace(factors, names)
