"""The product space :class:`LiegroupSpace` of Lie-group factors.

A configuration ``q`` (shape ``(nq,)``) is the concatenation of the factors'
coordinates, a tangent vector ``v`` (shape ``(nv,)``) that of their velocities; group
operations and their Jacobians act factor by factor (block-diagonal Jacobians). The
public methods validate their inputs (:meth:`LiegroupSpace.check_q`,
:meth:`LiegroupSpace.check_v`) and then call the factors' unchecked methods.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ..model.hinge import sample_within_limits
from .factors import SO2, SO3, Factor, VectorSpace
from .indices import as_index_array
from .rigid_factors import SE2, SE3, R3xSO3

__all__ = ["LiegroupSpace"]


def _canonical(factors: Sequence[Factor]) -> tuple:
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
    lower, upper
        Optional sampling bounds (nq,) of the coordinates (-inf / +inf: unbounded; the
        default concatenates those of nested spaces). Only R^n coordinates may be
        bounded. They shape :meth:`random` alone (not the group, nor equality);
        :func:`configuration_space` sets them from the hinges' position limits.

    ``q`` arrays have shape ``(nq,)``, tangent vectors ``(nv,)``, Jacobians ``(nv, nv)``.
    Two spaces compare equal when their factors do, adjacent ``R^n`` merged.
    Spaces multiply: ``LiegroupSpace.Rn(3) * LiegroupSpace.SE3()``.
    """

    def __init__(self, factors: Iterable = (), names: Sequence[str] | None = None,
                 lower=None, upper=None):
        flat: list[Factor] = []
        flat_names: list[str | None] = []
        bounds: list = []
        factors = list(factors)
        if names is not None and len(names) != len(factors):
            raise ValueError(f"names has {len(names)} entries for {len(factors)} factors")
        for k, f in enumerate(factors):
            if isinstance(f, LiegroupSpace):
                flat.extend(f.factors)
                flat_names.extend(f.names)
                bounds.append((f.lower, f.upper))
            elif isinstance(f, Factor):
                flat.append(f)
                flat_names.append(None if names is None else str(names[k]))
                bounds.append((np.full(f.nq, -np.inf), np.full(f.nq, np.inf)))
            else:
                raise ValueError(f"factors[{k}] is {f!r}, expected a Lie-group factor "
                                 f"(VectorSpace, SO2, SO3, SE2, SE3, R3xSO3) or a LiegroupSpace")
        self.factors: tuple[Factor, ...] = tuple(flat)
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
        self.lower, self.upper = self._check_bounds(
            np.concatenate([b[0] for b in bounds]) if lower is None and bounds else lower,
            np.concatenate([b[1] for b in bounds]) if upper is None and bounds else upper)

    def _check_bounds(self, lower, upper):
        """(lower, upper) as checked float arrays (nq,): no NaN, lower <= upper, and
        infinite on the coordinates of non-vector factors."""
        out = []
        for name, b, inf in (("lower", lower, -np.inf), ("upper", upper, np.inf)):
            b = np.full(self.nq, inf) if b is None else np.array(b, dtype=float).reshape(-1)
            if b.shape != (self.nq,) or np.any(np.isnan(b)):
                raise ValueError(f"{name} must be ({self.nq},) numbers (+-inf: unbounded), got {b!r}")
            fixed = np.isfinite(b) & ~np.array([self.factors[i].is_vector_space for i in self._q_factor],
                                              dtype=bool).reshape(-1)
            if fixed.any():
                i = int(np.flatnonzero(fixed)[0])
                raise ValueError(f"{name}[{i}] bounds a coordinate of the {self.factors[self._q_factor[i]].name} "
                                 f"factor; only R^n coordinates can be bounded")
            out.append(b)
        if np.any(out[0] > out[1]):
            i = int(np.flatnonzero(out[0] > out[1])[0])
            raise ValueError(f"lower[{i}] = {out[0][i]} > upper[{i}] = {out[1][i]}")
        return out[0], out[1]

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
        if not isinstance(other, (LiegroupSpace, Factor)):
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
        factors: list[Factor] = []
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
        return (LiegroupSpace(_merge_vectors(factors), lower=self.lower[idx], upper=self.upper[idx]), idx,
                np.asarray(vidx, dtype=np.int64))

    def velocity_indices(self, q_indices) -> np.ndarray:
        """Velocity coordinates (m,) matching a selection of configuration coordinates."""
        return self.select(q_indices)[2]

    # ------------------------------------------------------------ validation
    def check_q(self, q, argname: str = "q") -> np.ndarray:
        """``q`` as a float64 array of shape ``(nq,)``; ValueError naming ``argname``
        for another shape or non-finite values. Does not copy a valid float64 array."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.nq,):
            raise ValueError(f"{argname} must have shape ({self.nq},), got {q.shape}")
        if not np.all(np.isfinite(q)):
            raise ValueError(f"{argname} contains non-finite values")
        return q

    def check_v(self, v, argname: str = "v") -> np.ndarray:
        """``v`` as a float64 array of shape ``(nv,)``; ValueError naming ``argname``
        for another shape or non-finite values."""
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
        ``[-scale, scale]``, rotations uniform (Haar); bounded coordinates (``lower``,
        ``upper``) uniform within their bounds (one-sided: a window of width 2 scale from
        the bound). ``rng``: a numpy Generator or seed."""
        rng = np.random.default_rng(rng)
        if not self.factors:
            return np.zeros(0)
        q = np.concatenate([f.random(rng, float(scale)) for f in self.factors])
        return sample_within_limits(rng, q, self.lower, self.upper, float(scale))

    def normalize(self, q) -> np.ndarray:
        """Project coordinates back onto the group (unit quaternions, unit (cos, sin))."""
        q = self.check_q(q)
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
        q = self.check_q(q)
        v = self.check_v(v)
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
        q0 = self.check_q(q0, "q0")
        q1 = self.check_q(q1, "q1")
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
        return self._block_diag("d_integrate_dq", self.check_q(q), self.check_v(v))

    def d_integrate_dv(self, q, v) -> np.ndarray:
        """Jacobian (nv, nv) of q ⊕ v with respect to v."""
        return self._block_diag("d_integrate_dv", self.check_q(q), self.check_v(v))

    def d_difference_dq0(self, q0, q1) -> np.ndarray:
        """Jacobian (nv, nv) of q1 ⊖ q0 with respect to q0 (tangent coordinates)."""
        return self._block_diag("d_difference_dq0", self.check_q(q0, "q0"),
                                self.check_q(q1, "q1"))

    def d_difference_dq1(self, q0, q1) -> np.ndarray:
        """Jacobian (nv, nv) of q1 ⊖ q0 with respect to q1 (tangent coordinates)."""
        return self._block_diag("d_difference_dq1", self.check_q(q0, "q0"),
                                self.check_q(q1, "q1"))

    def distance(self, q0, q1) -> float:
        """Euclidean norm of ``difference(q0, q1)``."""
        return float(np.linalg.norm(self.difference(q0, q1)))


def _merge_vectors(factors: Sequence[Factor]) -> list[Factor]:
    out: list[Factor] = []
    for f in factors:
        if f.is_vector_space and out and out[-1].is_vector_space:
            out[-1] = VectorSpace(out[-1].nq + f.nq)
        else:
            out.append(f)
    return out

