"""Differentiable functions between Lie-group spaces, and a finite-difference checker.

A :class:`DifferentiableFunction` ``f: X -> Y`` maps configurations of an input
:class:`~multibody.planning.liegroup.LiegroupSpace` ``X`` (``x`` of shape
``(X.nq,)``) to configurations of an output space ``Y`` (shape ``(Y.nq,)``). Its
Jacobian ``J`` (shape ``(Y.nv, X.nv)``) is expressed in tangent coordinates::

    f(x ⊕ dx) ~= f(x) ⊕ (J(x) @ dx)

so for vector spaces it is the ordinary Jacobian matrix. Write your own function by
subclassing and implementing ``_value`` and ``_jacobian``, or wrap two callables
with :class:`FunctionFromCallables`; check it with :func:`check_jacobian`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .space import LiegroupSpace

__all__ = [
    "DifferentiableFunction", "FunctionFromCallables", "AffineFunction",
    "ConstantFunction", "IdentityFunction", "finite_difference_jacobian",
    "check_jacobian", "JacobianCheck",
]


def _as_space(space, argname: str) -> LiegroupSpace:
    if isinstance(space, LiegroupSpace):
        return space
    if isinstance(space, (int, np.integer)):
        return LiegroupSpace.Rn(int(space))
    raise ValueError(f"{argname} must be a LiegroupSpace (or an int n for R^n), got {space!r}")


class DifferentiableFunction:
    """A differentiable map between two Lie-group spaces.

    Parameters
    ----------
    input_space, output_space
        :class:`LiegroupSpace` (an int ``n`` stands for R^n).
    name
        Label used in messages and by :meth:`ExplicitConstraintSet.contains`.

    Subclasses implement ``_value(x) -> (output_space.nq,)`` and
    ``_jacobian(x) -> (output_space.nv, input_space.nv)``; the public
    :meth:`value` / :meth:`jacobian` check shapes and finiteness.
    """

    def __init__(self, input_space, output_space, name: str | None = None):
        self.input_space = _as_space(input_space, "input_space")
        self.output_space = _as_space(output_space, "output_space")
        self.name = name if name is not None else type(self).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}: {self.input_space} -> {self.output_space})"

    def _check_x(self, x) -> np.ndarray:
        return self.input_space.check_q(x, "x")

    def value(self, x) -> np.ndarray:
        """f(x): (input_space.nq,) -> (output_space.nq,)."""
        x = self._check_x(x)
        y = np.asarray(self._value(x), dtype=float).reshape(-1)
        if y.shape != (self.output_space.nq,):
            raise ValueError(f"{self.name}: _value returned shape {y.shape}, expected "
                             f"({self.output_space.nq},)")
        return y

    __call__ = value

    def jacobian(self, x) -> np.ndarray:
        """Tangent Jacobian (output_space.nv, input_space.nv) at x."""
        x = self._check_x(x)
        j = np.asarray(self._jacobian(x), dtype=float)
        shape = (self.output_space.nv, self.input_space.nv)
        if j.shape != shape:
            raise ValueError(f"{self.name}: _jacobian returned shape {j.shape}, expected {shape}")
        return j

    def _value(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def _jacobian(self, x):
        return finite_difference_jacobian(self, x)


class FunctionFromCallables(DifferentiableFunction):
    """Wrap ``value(x)`` and optionally ``jacobian(x)`` callables into a function.

    Without ``jacobian`` the Jacobian is computed by central finite differences on
    the Lie groups (step ``fd_step``).
    """

    def __init__(self, input_space, output_space, value: Callable,
                 jacobian: Callable | None = None, name: str | None = None,
                 fd_step: float = 1e-6):
        super().__init__(input_space, output_space, name)
        if not callable(value):
            raise ValueError("value must be callable")
        if jacobian is not None and not callable(jacobian):
            raise ValueError("jacobian must be callable or None")
        self._f = value
        self._j = jacobian
        self.fd_step = float(fd_step)

    def _value(self, x):
        return self._f(x)

    def _jacobian(self, x):
        if self._j is None:
            return finite_difference_jacobian(self, x, self.fd_step)
        return self._j(x)


class AffineFunction(DifferentiableFunction):
    """``f(x) = A x + b`` between vector spaces. A: (m, n), b: (m,) (default 0)."""

    def __init__(self, matrix, offset=None, name: str | None = None):
        a = np.atleast_2d(np.asarray(matrix, dtype=float))
        if a.ndim != 2:
            raise ValueError(f"matrix must be 2-D, got shape {a.shape}")
        b = np.zeros(a.shape[0]) if offset is None else np.asarray(offset, dtype=float).reshape(-1)
        if b.shape != (a.shape[0],):
            raise ValueError(f"offset must have shape ({a.shape[0]},), got {b.shape}")
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("matrix and offset must be finite")
        super().__init__(LiegroupSpace.Rn(a.shape[1]), LiegroupSpace.Rn(a.shape[0]), name)
        self.matrix = a
        self.offset = b

    def _value(self, x):
        return self.matrix @ x + self.offset

    def _jacobian(self, x):
        return self.matrix.copy()


class ConstantFunction(DifferentiableFunction):
    """``f(x) = c`` (a fixed element of ``output_space``); zero Jacobian."""

    def __init__(self, input_space, output_space, constant=None, name: str | None = None):
        super().__init__(input_space, output_space, name)
        c = self.output_space.neutral() if constant is None else constant
        self.constant = self.output_space.check_q(c, "constant").copy()

    def _value(self, x):
        return self.constant.copy()

    def _jacobian(self, x):
        return np.zeros((self.output_space.nv, self.input_space.nv))


class IdentityFunction(DifferentiableFunction):
    """``f(x) = x`` on a space; identity Jacobian."""

    def __init__(self, space, name: str | None = None):
        super().__init__(space, space, name)

    def _value(self, x):
        return np.array(x, dtype=float)

    def _jacobian(self, x):
        return np.eye(self.input_space.nv)


# ============================================================ finite differences

def finite_difference_jacobian(f, x, step: float = 1e-6) -> np.ndarray:
    """Central finite-difference Jacobian of ``f`` at ``x`` on the Lie groups.

    ``f`` is a :class:`DifferentiableFunction` (or any object with ``input_space``,
    ``output_space`` and a ``value`` method). Column ``k`` is
    ``((f(x ⊕ h e_k) ⊖ f(x)) - (f(x ⊕ -h e_k) ⊖ f(x))) / (2 h)``, second-order
    accurate. Returns (output_space.nv, input_space.nv).
    """
    xs, ys = f.input_space, f.output_space
    x = xs.check_q(x, "x")
    step = float(step)
    if not step > 0:
        raise ValueError(f"step must be > 0, got {step}")
    y0 = f.value(x)
    jac = np.empty((ys.nv, xs.nv))
    e = np.zeros(xs.nv)
    for k in range(xs.nv):
        e[k] = step
        yp = f.value(xs.integrate(x, e))
        e[k] = -step
        ym = f.value(xs.integrate(x, e))
        e[k] = 0.0
        jac[:, k] = (ys.difference(y0, yp) - ys.difference(y0, ym)) / (2.0 * step)
    return jac


@dataclass
class JacobianCheck:
    """Result of :func:`check_jacobian`.

    ``analytic`` and ``numeric`` are the two (m, n) matrices; ``max_abs_error`` the
    largest entry of their difference; ``max_rel_error`` that divided by
    ``max(1, max |numeric|)``; ``ok`` whether ``max_abs_error <= atol + rtol * scale``.
    """

    ok: bool
    max_abs_error: float
    max_rel_error: float
    analytic: np.ndarray
    numeric: np.ndarray

    def __bool__(self) -> bool:
        return self.ok


def check_jacobian(f, x=None, step: float = 1e-6, atol: float = 1e-6, rtol: float = 1e-6,
                   rng=None) -> JacobianCheck:
    """Compare ``f.jacobian(x)`` with :func:`finite_difference_jacobian` at ``x``.

    ``x`` defaults to ``f.input_space.random(rng)``. Returns a :class:`JacobianCheck`
    (truthy when the Jacobian agrees to ``atol + rtol * max(1, max |numeric|)``).
    """
    if x is None:
        x = f.input_space.random(rng)
    analytic = np.asarray(f.jacobian(x), dtype=float)
    numeric = finite_difference_jacobian(f, x, step)
    if analytic.shape != numeric.shape:
        raise ValueError(f"analytic Jacobian has shape {analytic.shape}, expected "
                         f"{numeric.shape}")
    err = float(np.max(np.abs(analytic - numeric))) if analytic.size else 0.0
    scale = max(1.0, float(np.max(np.abs(numeric))) if numeric.size else 1.0)
    return JacobianCheck(err <= atol + rtol * scale, err, err / scale, analytic, numeric)
