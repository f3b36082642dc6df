"""A set of compatible explicit constraints, solved by substitution in dependency order.

Compatible explicit constraints combine into one explicit constraint: the outputs of
one may feed the inputs of another, as long as no variable is the output of two
constraints and the dependencies have no cycle. :class:`ExplicitConstraintSet`
keeps such a combination, solves it (one pass in dependency order, no iteration),
checks it, differentiates it as a projector ``p -> q = E(p)`` on the configuration
space, and manages the constraints' right-hand sides.

Notation (sets of configuration indices ``*_q`` and of velocity indices ``*_v``):

- ``out``: variables computed by some constraint;
- ``in``: variables read by some constraint and computed by none;
- ``not_out``: every variable that is not an output (``in`` plus the free ones).
"""

from __future__ import annotations

import numpy as np

from .explicit_constraint import ExplicitConstraint
from .indices import format_segments
from .space import LiegroupSpace

__all__ = ["ExplicitConstraintSet"]


class ExplicitConstraintSet:
    """Compatible explicit constraints on a :class:`LiegroupSpace`.

    Parameters
    ----------
    space
        The configuration space; ``q`` arrays have shape ``(space.nq,)``.
    error_threshold
        :meth:`is_satisfied` accepts ``q`` when every constraint's error norm is
        ``<= error_threshold`` (default 1e-8; settable).

    Constraints are numbered ``0, 1, ...`` in the order they were added. Each keeps its
    own right-hand side inside the set (copied from ``constraint.rhs`` on
    :meth:`add`), so one constraint object may serve several sets.
    """

    def __init__(self, space: LiegroupSpace, error_threshold: float = 1e-8):
        if not isinstance(space, LiegroupSpace):
            raise ValueError(f"space must be a LiegroupSpace, got {space!r}")
        self.space = space
        self._constraints: list[ExplicitConstraint] = []
        self._rhs: list[np.ndarray] = []
        self._q_owner = np.full(space.nq, -1, dtype=np.int64)
        self._v_owner = np.full(space.nv, -1, dtype=np.int64)
        self._order: list[int] = []
        self._deps = np.zeros((0, space.nv), dtype=np.int64)
        self._in_q = np.zeros(0, np.int64)
        self._in_v = np.zeros(0, np.int64)
        self.error_threshold = error_threshold

    # ------------------------------------------------------------- basics
    @property
    def nq(self) -> int:
        """Number of configuration variables."""
        return self.space.nq

    @property
    def nv(self) -> int:
        """Number of velocity (derivative) variables."""
        return self.space.nv

    @property
    def error_threshold(self) -> float:
        """Largest accepted error norm per constraint in :meth:`is_satisfied`."""
        return self._error_threshold

    @error_threshold.setter
    def error_threshold(self, value: float) -> None:
        value = float(value)
        if not (np.isfinite(value) and value > 0.0):
            raise ValueError(f"error_threshold must be a positive finite number, got {value}")
        self._error_threshold = value

    @property
    def squared_error_threshold(self) -> float:
        """``error_threshold ** 2``."""
        return self._error_threshold ** 2

    @property
    def constraints(self) -> tuple[ExplicitConstraint, ...]:
        """The constraints, in the order they were added."""
        return tuple(self._constraints)

    def __len__(self) -> int:
        return len(self._constraints)

    def __repr__(self) -> str:
        return (f"ExplicitConstraintSet({self.space}, {len(self)} constraints, "
                f"in_q={format_segments(self.in_q)}, out_q={format_segments(self.out_q)})")

    def describe(self) -> str:
        """Multi-line summary: constraints in computation order, ``[index] name: q[in] -> q[out]``
        with index ranges written ``start:stop``."""
        lines = [repr(self)]
        for i in self._order:
            c = self._constraints[i]
            rhs = np.round(self._rhs[i], 6).tolist()
            lines.append(f"  [{i}] {c.name}: q{format_segments(c.input_q)} -> "
                         f"q{format_segments(c.output_q)}  rhs={rhs}")
        return "\n".join(lines)

    def contains(self, constraint: ExplicitConstraint) -> bool:
        """Whether ``constraint`` (same object, or same name) is in the set."""
        return self._find(constraint) >= 0

    __contains__ = contains

    def _find(self, constraint) -> int:
        for i, c in enumerate(self._constraints):
            if c is constraint:
                return i
        name = getattr(constraint, "name", None)
        for i, c in enumerate(self._constraints):
            if name is not None and c.name == name:
                return i
        return -1

    def index(self, constraint) -> int:
        """Index of a constraint given as object/name-equal object or int (KeyError if absent)."""
        if isinstance(constraint, (int, np.integer)):
            i = int(constraint)
            if not 0 <= i < len(self._constraints):
                raise KeyError(f"constraint index {i} out of range: the set holds "
                               f"{len(self._constraints)} constraints")
            return i
        i = self._find(constraint)
        if i < 0:
            raise KeyError(f"constraint {getattr(constraint, 'name', constraint)!r} is not in "
                           f"this set")
        return i

    # --------------------------------------------------------- construction
    def add(self, constraint: ExplicitConstraint) -> int:
        """Add a constraint if it is compatible with those already in the set.

        Returns the constraint's index, or ``-1`` when it is already in the set, when one
        of its outputs is already the output of another constraint, or when it would
        close a dependency cycle. Raises ValueError for a malformed constraint (an input
        that is also its own output) or one defined on another space.
        """
        if not isinstance(constraint, ExplicitConstraint):
            raise TypeError(f"constraint must be an ExplicitConstraint, got {constraint!r}")
        if constraint.space != self.space:
            raise ValueError(f"constraint {constraint.name!r} is defined on "
                             f"{constraint.space}, not on this set's space {self.space}")
        out_q = constraint.output_q
        if np.intersect1d(constraint.input_q, out_q).size:
            raise ValueError(f"malformed explicit constraint {constraint.name!r}: its input "
                             f"and output variables overlap")
        if self._find(constraint) >= 0:
            return -1
        if np.any(self._q_owner[out_q] >= 0):
            return -1
        # Cycle: walk back from the new inputs through the constraints producing them.
        out_set = set(int(k) for k in out_q)
        stack = [int(k) for k in constraint.input_q]
        seen_fn: set[int] = set()
        while stack:
            k = stack.pop()
            if k in out_set:
                return -1
            j = int(self._q_owner[k])
            if j >= 0 and j not in seen_fn:
                seen_fn.add(j)
                stack.extend(int(x) for x in self._constraints[j].input_q)
        idx = len(self._constraints)
        self._constraints.append(constraint)
        self._rhs.append(constraint.check_rhs(constraint.rhs))
        self._q_owner[out_q] = idx
        self._v_owner[constraint.output_v] = idx
        self._update()
        return idx

    def _update(self) -> None:
        out_q_mask = self._q_owner >= 0
        out_v_mask = self._v_owner >= 0
        in_q = np.zeros(self.nq, bool)
        in_v = np.zeros(self.nv, bool)
        for c in self._constraints:
            in_q[c.input_q] = True
            in_v[c.input_v] = True
        self._in_q = np.flatnonzero(in_q & ~out_q_mask)
        self._in_v = np.flatnonzero(in_v & ~out_v_mask)
        # computation order and dependency degrees (number of dependency paths)
        n = len(self._constraints)
        deps = np.zeros((n, self.nv), dtype=np.int64)
        done = [False] * n
        order: list[int] = []

        def visit(i: int) -> None:
            if done[i]:
                return
            for k in self._constraints[i].input_v:
                j = int(self._v_owner[k])
                if j < 0:
                    deps[i, k] += 1
                else:
                    visit(j)
                    deps[i] += deps[j]
            done[i] = True
            order.append(i)

        for i in range(n):
            visit(i)
        self._order = order
        self._deps = deps

    # ------------------------------------------------------------ index sets
    @property
    def in_q(self) -> np.ndarray:
        """Sorted configuration indices read by some constraint and output by none."""
        return self._in_q.copy()

    @property
    def in_v(self) -> np.ndarray:
        """Sorted velocity indices read by some constraint and output by none."""
        return self._in_v.copy()

    @property
    def out_q(self) -> np.ndarray:
        """Sorted configuration indices computed by the constraints."""
        return np.flatnonzero(self._q_owner >= 0)

    @property
    def out_v(self) -> np.ndarray:
        """Sorted velocity indices computed by the constraints."""
        return np.flatnonzero(self._v_owner >= 0)

    @property
    def not_out_q(self) -> np.ndarray:
        """Sorted configuration indices that are not outputs (inputs and free variables)."""
        return np.flatnonzero(self._q_owner < 0)

    @property
    def not_out_v(self) -> np.ndarray:
        """Sorted velocity indices that are not outputs."""
        return np.flatnonzero(self._v_owner < 0)

    @property
    def function_of_configuration(self) -> np.ndarray:
        """(nq,) index of the constraint computing each configuration variable, -1 if none."""
        return self._q_owner.copy()

    @property
    def function_of_velocity(self) -> np.ndarray:
        """(nv,) index of the constraint computing each velocity variable, -1 if none."""
        return self._v_owner.copy()

    @property
    def computation_order(self) -> tuple[int, ...]:
        """Constraint indices in the order :meth:`solve` evaluates them."""
        return tuple(self._order)

    def in_out_dependencies(self) -> np.ndarray:
        """Function-by-dof dependency matrix, (n_constraints, nv) int.

        Entry ``[i, k]`` is the number of dependency paths from the not-output velocity
        variable ``k`` to constraint ``i``, counted through velocity components: 1 for a
        direct input; through an intermediate constraint ``j``, each input velocity
        component of ``i`` that ``j`` outputs adds row ``j``. Columns of output variables
        are 0. (A diamond q0 -> q1, q0 -> q2, (q1, q2) -> q3 gives 2 for q0 in q3's row.)
        """
        return self._deps.copy()

    # --------------------------------------------------------------- solving
    def solve(self, q) -> np.ndarray:
        """Configuration (nq,) satisfying the constraints: ``q`` with every output
        recomputed, ``q_out = g^-1(f(q_in) ⊕ rhs)``, in dependency order."""
        q = np.array(self.space.check_q(q), dtype=float)
        for i in self._order:
            c = self._constraints[i]
            q[c.output_q] = c.output_value(q[c.input_q], self._rhs[i])
        return q

    def error(self, q) -> np.ndarray:
        """Stacked errors ``g(q_out) ⊖ (f(q_in) ⊕ rhs)`` of all constraints in index order,
        shape (sum of the constraints' output nv,)."""
        q = self.space.check_q(q)
        if not self._constraints:
            return np.zeros(0)
        return np.concatenate([c.error(q, self._rhs[i])
                               for i, c in enumerate(self._constraints)])

    def is_satisfied(self, q, return_error: bool = False):
        """Whether every constraint's error norm is ``<= error_threshold``.

        With ``return_error=True`` returns ``(satisfied, error)``, ``error`` as in
        :meth:`error`.
        """
        err = self.error(q)
        ok = True
        row = 0
        for c in self._constraints:
            n = c.output_nv
            if float(err[row:row + n] @ err[row:row + n]) > self.squared_error_threshold:
                ok = False
            row += n
        return (ok, err) if return_error else ok

    def is_constraint_satisfied(self, constraint, q):
        """``(satisfied, error)`` of one constraint of the set (KeyError if absent)."""
        i = self.index(constraint)
        err = self._constraints[i].error(q, self._rhs[i])
        return float(err @ err) <= self.squared_error_threshold, err

    # ------------------------------------------------------------ Jacobians
    def jacobian(self, q) -> np.ndarray:
        """Jacobian (nv, nv) of the projector ``p -> E(p)`` at ``q``.

        ``E(p ⊕ dp) ~= E(p) ⊕ J dp``: identity on the not-output velocities, zero
        columns for output velocities, and the rows of each constraint's outputs filled
        by the chain rule in computation order
        ``J[out_i, :] = d(g^-1(f ⊕ rhs))/dq_in @ J[in_i, :]``. It is evaluated at
        ``E(q)`` (``q`` is solved first; solving is idempotent).
        """
        q = self.solve(q)
        jac = np.zeros((self.nv, self.nv))
        free = self.not_out_v
        jac[free, free] = 1.0
        for i in self._order:
            c = self._constraints[i]
            jac[c.output_v, :] = c.output_jacobian(q[c.input_q], self._rhs[i]) @ jac[c.input_v, :]
        return jac

    def jacobian_not_out_to_out(self, q) -> np.ndarray:
        """Block ``J[out_v, not_out_v]`` of :meth:`jacobian`, (len(out_v), len(not_out_v)):
        how the outputs move with the not-output variables (zero for free ones)."""
        jac = self.jacobian(q)
        return jac[np.ix_(self.out_v, self.not_out_v)]

    # ---------------------------------------------------- right-hand sides
    @property
    def right_hand_side_size(self) -> int:
        """Number of Equality components over all constraints (size of
        :meth:`right_hand_side` with no index)."""
        return int(sum(c.parameter_size for c in self._constraints))

    def right_hand_side(self, constraint=None) -> np.ndarray:
        """Right-hand sides.

        With no argument: the Equality components of all constraints, stacked in the
        order the constraints were added, shape ``(right_hand_side_size,)``. With a
        constraint (object, or its index): its full right-hand side, shape
        ``(len(output_v),)`` (EqualToZero components are 0).
        """
        if constraint is None:
            if not self._constraints:
                return np.zeros(0)
            return np.concatenate([r[c.rhs_mask] for c, r in zip(self._constraints, self._rhs)])
        return self._rhs[self.index(constraint)].copy()

    def set_right_hand_side(self, rhs, constraint=None) -> None:
        """Set right-hand sides.

        With no ``constraint``: ``rhs`` (right_hand_side_size,) is dispatched to the
        Equality components of the constraints in the order they were added. With a
        constraint (object or index): ``rhs`` is its full right-hand side
        (len(output_v),), whose EqualToZero components must be 0.
        """
        if constraint is not None:
            i = self.index(constraint)
            self._rhs[i] = self._constraints[i].check_rhs(rhs)
            return
        rhs = np.asarray(rhs, dtype=float).reshape(-1)
        if rhs.shape != (self.right_hand_side_size,):
            raise ValueError(f"rhs must have shape ({self.right_hand_side_size},) (the Equality "
                             f"components of all constraints), got {rhs.shape}")
        if not np.all(np.isfinite(rhs)):
            raise ValueError("rhs contains non-finite values")
        row = 0
        for c, r in zip(self._constraints, self._rhs):
            n = c.parameter_size
            r[c.rhs_mask] = rhs[row:row + n]
            row += n

    def right_hand_side_from_input(self, q, constraint=None) -> np.ndarray:
        """Set right-hand sides so that ``q`` satisfies the constraints, and return them.

        For each constraint (or only the given one), ``rhs = g(q_out) ⊖ f(q_in)`` with its
        EqualToZero components set to zero (those cannot be parameterized: ``q`` satisfies
        the set afterwards only if they already held). Returns what
        :meth:`right_hand_side` returns for the same argument.
        """
        q = self.space.check_q(q)
        targets = range(len(self._constraints)) if constraint is None else [self.index(constraint)]
        for i in targets:
            self._rhs[i] = self._constraints[i].right_hand_side_from_input(q)
        return self.right_hand_side(constraint)
