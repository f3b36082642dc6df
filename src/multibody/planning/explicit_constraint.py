"""Explicit constraints ``E = (in, out, f, g)`` on a Lie-group configuration space.

An explicit constraint computes some configuration variables (``out``) from others
(``in``, disjoint from ``out``)::

    g(q_out) = f(q_in) ⊕ rhs        i.e.   q_out = g^-1(f(q_in) ⊕ rhs)

where ``f: X_in -> Y`` is a :class:`~multibody.planning.functions.DifferentiableFunction`
from the sub-space of the input variables to the sub-space ``Y`` of the output
variables, ``⊕`` is integration on ``Y``, ``rhs`` a tangent vector of ``Y``
(shape ``(Y.nv,)``) and ``g`` an optional invertible map ``Y -> Y`` given together
with its inverse (both identity when omitted).

Each component of ``rhs`` has a :class:`ComparisonType`: ``Equality`` components
are parameters the user (or :meth:`ExplicitConstraint.right_hand_side_from_input`)
sets; ``EqualToZero`` components are always zero.

The same constraint has an *implicit* form: the error function
``h(q) = g(q_out) ⊖ f(q_in)`` (shape ``(Y.nv,)``), and the constraint reads
``h(q) = rhs``. :meth:`ExplicitConstraint.implicit_function` returns it as a
differentiable function of the whole configuration.
"""

from __future__ import annotations

import enum

import numpy as np

from .functions import DifferentiableFunction
from .indices import as_index_array, format_segments, index_segments
from .space import LiegroupSpace

__all__ = ["ComparisonType", "Equality", "EqualToZero", "ExplicitConstraint",
           "ImplicitFunction", "index_segments"]


class ComparisonType(str, enum.Enum):
    """How one component of a constraint's right-hand side is used."""

    EQUALITY = "Equality"          #: parameterized by the right-hand side
    EQUAL_TO_ZERO = "EqualToZero"  #: right-hand side fixed to zero

    @classmethod
    def parse(cls, value, argname: str = "comparison") -> "ComparisonType":
        """Accept a ComparisonType or its name ("Equality", "equal_to_zero", ...)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            key = value.replace("_", "").replace(" ", "").lower()
            for member in cls:
                if key in (member.value.lower(), member.name.replace("_", "").lower()):
                    return member
        raise ValueError(f"{argname} must be 'Equality' or 'EqualToZero', got {value!r}")


Equality = ComparisonType.EQUALITY
EqualToZero = ComparisonType.EQUAL_TO_ZERO


class ExplicitConstraint:
    """Explicit constraint ``q_out = g^-1(f(q_in) ⊕ rhs)`` on a configuration space.

    Parameters
    ----------
    space
        The :class:`LiegroupSpace` of the whole configuration ``q`` (shape ``(nq,)``).
    function
        ``f``: a :class:`DifferentiableFunction` whose input space is the sub-space of
        ``q[input_q]`` and whose output space is the sub-space of ``q[output_q]``.
    input_q, output_q
        Configuration indices (an int array-like, a slice, or a list of ints, slices and
        ``(start, length)`` segments). Non-vector factors (rotations, poses) must be
        included whole and in order. The velocity indices follow from the space
        (:attr:`input_v`, :attr:`output_v`).
    comparison
        One :class:`ComparisonType` (or name) for all output velocity components, or a
        sequence of ``len(output_v)`` of them. Default ``Equality``.
    g, g_inverse
        Optional pair of differentiable maps on the output sub-space, inverse of each
        other. Both or neither.
    name
        Label, default ``"<function.name>: q[in] -> q[out]"``; sets compare constraints
        by identity or by this name.
    rhs
        Initial right-hand side (``(len(output_v),)``, default zero) that an
        :class:`ExplicitConstraintSet` copies when the constraint is added.

    Raises ValueError when ``input_q`` and ``output_q`` overlap (malformed
    constraint), when spaces do not match, or for a bad comparison/rhs.
    """

    def __init__(self, space: LiegroupSpace, function: DifferentiableFunction, input_q,
                 output_q, *, comparison=Equality, g: DifferentiableFunction | None = None,
                 g_inverse: DifferentiableFunction | None = None, name: str | None = None,
                 rhs=None):
        if not isinstance(space, LiegroupSpace):
            raise ValueError(f"space must be a LiegroupSpace, got {space!r}")
        if not isinstance(function, DifferentiableFunction):
            raise ValueError(f"function must be a DifferentiableFunction, got {function!r}")
        self.space = space
        self.function = function
        in_idx = as_index_array(input_q, space.nq, "input_q")
        out_idx = as_index_array(output_q, space.nq, "output_q")
        self.name = str(name) if name is not None else (
            f"{function.name}: q{format_segments(in_idx)} -> q{format_segments(out_idx)}")
        shared = np.intersect1d(in_idx, out_idx)
        if shared.size:
            raise ValueError(
                f"malformed explicit constraint {self.name!r}: input_q and output_q share "
                f"configuration indices {shared.tolist()} (an output cannot be its own input)")
        self.input_space, self.input_q, self.input_v = space.select(in_idx, "input_q")
        self.output_space, self.output_q, self.output_v = space.select(out_idx, "output_q")
        if function.input_space != self.input_space:
            raise ValueError(f"constraint {self.name!r}: function input space "
                             f"{function.input_space} does not match the input variables' "
                             f"space {self.input_space}")
        if function.output_space != self.output_space:
            raise ValueError(f"constraint {self.name!r}: function output space "
                             f"{function.output_space} does not match the output variables' "
                             f"space {self.output_space}")
        if (g is None) != (g_inverse is None):
            raise ValueError(f"constraint {self.name!r}: give both g and g_inverse, or neither")
        for label, fn in (("g", g), ("g_inverse", g_inverse)):
            if fn is not None and (not isinstance(fn, DifferentiableFunction)
                                   or fn.input_space != self.output_space
                                   or fn.output_space != self.output_space):
                raise ValueError(f"constraint {self.name!r}: {label} must be a "
                                 f"DifferentiableFunction from {self.output_space} to itself")
        self.g = g
        self.g_inverse = g_inverse
        nout = self.output_space.nv
        if isinstance(comparison, (str, ComparisonType)):
            comps = [ComparisonType.parse(comparison)] * nout
        else:
            comps = [ComparisonType.parse(c, f"comparison[{k}]") for k, c in enumerate(comparison)]
            if len(comps) != nout:
                raise ValueError(f"comparison must have {nout} entries (one per output velocity "
                                 f"component), got {len(comps)}")
        self.comparison: tuple[ComparisonType, ...] = tuple(comps)
        #: bool mask (len(output_v),) of the Equality (parameter) components
        self.rhs_mask = np.array([c is Equality for c in comps], dtype=bool)
        self.rhs = self.check_rhs(np.zeros(nout) if rhs is None else rhs)

    # --------------------------------------------------------------- basics
    def __repr__(self) -> str:
        return (f"ExplicitConstraint({self.name!r}: q{format_segments(self.input_q)} -> "
                f"q{format_segments(self.output_q)}, {self.output_space})")

    @property
    def parameter_size(self) -> int:
        """Number of Equality components (the size of the constraint's parameters)."""
        return int(self.rhs_mask.sum())

    @property
    def output_nv(self) -> int:
        """Number of output velocity components (size of rhs and of the error)."""
        return int(self.output_v.size)

    def check_rhs(self, rhs, argname: str = "rhs") -> np.ndarray:
        """Validate a full right-hand side (len(output_v),); EqualToZero entries must be 0."""
        rhs = np.asarray(rhs, dtype=float).reshape(-1) if np.ndim(rhs) else \
            np.full(1, float(rhs))
        if rhs.shape != (self.output_nv,):
            raise ValueError(f"{argname} of constraint {self.name!r} must have shape "
                             f"({self.output_nv},), got {rhs.shape}")
        if not np.all(np.isfinite(rhs)):
            raise ValueError(f"{argname} of constraint {self.name!r} contains non-finite values")
        bad = np.flatnonzero((~self.rhs_mask) & (rhs != 0.0))
        if bad.size:
            raise ValueError(f"{argname} of constraint {self.name!r}: components {bad.tolist()} "
                             f"are EqualToZero and must be 0, got {rhs[bad].tolist()}")
        return rhs.copy()

    # ------------------------------------------------------------ evaluation
    def output_value(self, q_in, rhs=None) -> np.ndarray:
        """``g^-1(f(q_in) ⊕ rhs)``: (len(input_q),) -> (len(output_q),)."""
        rhs = self.rhs if rhs is None else rhs
        y = self.output_space.integrate(self.function.value(q_in), rhs)
        return self.g_inverse.value(y) if self.g_inverse is not None else y

    def output_jacobian(self, q_in, rhs=None) -> np.ndarray:
        """Jacobian (len(output_v), len(input_v)) of :meth:`output_value` w.r.t. q_in."""
        rhs = self.rhs if rhs is None else rhs
        y = self.function.value(q_in)
        jac = self.output_space.d_integrate_dq(y, rhs) @ self.function.jacobian(q_in)
        if self.g_inverse is not None:
            jac = self.g_inverse.jacobian(self.output_space.integrate(y, rhs)) @ jac
        return jac

    def apply(self, q, rhs=None) -> np.ndarray:
        """Copy of ``q`` (nq,) whose output variables are computed from its input variables."""
        q = np.array(self.space.check_q(q), dtype=float)
        q[self.output_q] = self.output_value(q[self.input_q], rhs)
        return q

    def _g(self, q_out) -> np.ndarray:
        return self.g.value(q_out) if self.g is not None else np.asarray(q_out, dtype=float)

    def error(self, q, rhs=None) -> np.ndarray:
        """``g(q_out) ⊖ (f(q_in) ⊕ rhs)``, (len(output_v),): zero iff q satisfies the constraint."""
        q = self.space.check_q(q)
        rhs = self.rhs if rhs is None else rhs
        expected = self.output_space.integrate(self.function.value(q[self.input_q]), rhs)
        return self.output_space.difference(expected, self._g(q[self.output_q]))

    def implicit_value(self, q) -> np.ndarray:
        """The implicit form ``h(q) = g(q_out) ⊖ f(q_in)``, (len(output_v),)."""
        q = self.space.check_q(q)
        return self.output_space.difference(self.function.value(q[self.input_q]),
                                            self._g(q[self.output_q]))

    def right_hand_side_from_input(self, q) -> np.ndarray:
        """Right-hand side (len(output_v),) that makes ``q`` satisfy the constraint:
        ``h(q)`` with its EqualToZero components set to zero. Does not store it."""
        rhs = self.implicit_value(q)
        rhs[~self.rhs_mask] = 0.0
        return rhs

    def implicit_function(self) -> "ImplicitFunction":
        """The error function ``h(q) = g(q_out) ⊖ f(q_in)`` as a DifferentiableFunction
        from the whole space to R^len(output_v); the constraint is ``h(q) = rhs``."""
        return ImplicitFunction(self)


class ImplicitFunction(DifferentiableFunction):
    """``h(q) = g(q_out) ⊖ f(q_in)`` of an :class:`ExplicitConstraint`: space -> R^m.

    Jacobian (m, nv): columns ``input_v`` hold ``d_difference_dq0 @ J_f``, columns
    ``output_v`` hold ``d_difference_dq1 @ J_g``, the others are zero.
    """

    def __init__(self, constraint: ExplicitConstraint):
        super().__init__(constraint.space, LiegroupSpace.Rn(constraint.output_nv),
                         name=f"implicit({constraint.name})")
        self.constraint = constraint

    def _value(self, q):
        return self.constraint.implicit_value(q)

    def _jacobian(self, q):
        c = self.constraint
        ys = c.output_space
        q_in, q_out = q[c.input_q], q[c.output_q]
        fy = c.function.value(q_in)
        gy = c._g(q_out)
        jac = np.zeros((c.output_nv, c.space.nv))
        jac[:, c.input_v] = ys.d_difference_dq0(fy, gy) @ c.function.jacobian(q_in)
        jg = ys.d_difference_dq1(fy, gy)
        if c.g is not None:
            jg = jg @ c.g.jacobian(q_out)
        jac[:, c.output_v] = jg
        return jac
