"""The constraint kinematics solver: close the enabled constraints at the position, velocity
and acceleration levels (seed 000's ConstraintKinematicsSolver).

``solve_q`` is Newton's method on the residual rows with the exact tangent Jacobian Gc
(the residual of q (+) du changes by Gc du): each step is the minimum-norm correction
du = -Gc^+ r over the free speeds, damped (Levenberg-Marquardt) and halved until the
residual falls, so it converges quadratically near a solution and never diverges.
``solve_u`` and ``solve_udot`` are the minimum-norm linear corrections that make
Gc u = 0 and Gc udot + Gc_dot u = 0. Rows that depend on others (redundant constraints)
are found by a rank test and reported once with a warning; the solves handle them.

Nearly singular loops. A loop at (or, through rounded file data, within 1e-6 of) a
singular configuration has rows that are independent only by a tiny singular value of
Gc: Cassie's knee-spring slider loops (R-R-P, 2.9e-6 and 1.4e-7 of Gc's largest at the
standing pose, from the SDF's 1.5708 for pi/2). Newton cannot always close them: a step
r / sigma along such a direction makes second-order errors larger than r, so it stalls
(at 1.5e-11 after 0.3 s of standing) or creeps for all its iterations (at ~5e-9 inside
``project_every``: the ConstraintError stopped the run). Tree-augmented dynamics drops
such rows anyway (multipliers 0: the knee spring deflects). When plain Newton fails,
``solve_q`` tries again from the given q with Gc's smallest directions (singular values
below NEAR_SINGULAR of the largest) left out, one more at a time, smallest first (a
truncated-SVD Newton): with the fewest that let the rest close to ``tol``, and at most
``singular_leftover`` left, it returns with a warning naming the constraints, the
singular values and the leftover (kept in ``leftover``); else the ConstraintError as
before. On Cassie after 0.3 s of standing that is the right slider's direction alone
(leftover 1.9e-11); the left one's still closes. A solver that needed this once tries it
first afterwards.
"""
import warnings

import numpy as np

from .constraints import constraint_bias, constraint_jacobian, free_speeds, pose_error

#: A direction of Gc (free columns) whose singular value is below this fraction of the largest
#: may be left out when plain Newton fails (Newton's step r / sigma along it is no convergent
#: step for r > ~sigma^2): Cassie's slider loops 1.4e-7 .. 2e-5 with the knee spring's
#: deflection (the next, the plantar loops', 4e-4). The fewest such directions that let the
#: rest close are left out, the smallest first.
NEAR_SINGULAR = 1e-3


class ConstraintError(ValueError):
    """Closure could not be reached; ``constraint`` names the worst constraint."""

    def __init__(self, message, constraint=None, residual=None):
        super().__init__(message)
        self.constraint = constraint
        self.residual = residual


class ConstraintKinematicsSolver:
    """Closes the enabled constraints of Multibody ``m``; make it with ``m.constraint_kinematics()``.

    ``tol``: largest residual accepted (position rows in m or rad, velocity rows in m/s or
    rad/s ...); ``max_iterations`` of ``solve_q``; ``singular_leftover``: the largest residual
    ``solve_q`` may leave in the directions of a nearly singular loop (module docstring).
    After each solve, ``residual`` (the largest absolute residual), ``iterations`` and
    ``leftover`` (what solve_q left in nearly singular directions, else 0) tell how it went.
    ``frozen`` in every solve names hinges (their whole q/u slices) or u indices held at the
    values given.
    """

    def __init__(self, m, tol=1e-12, max_iterations=50, singular_leftover=1e-6):
        if not (np.isfinite(tol) and tol > 0):
            raise ValueError(f"tol must be a positive number, got {tol!r}")
        if not (np.isfinite(singular_leftover) and singular_leftover >= 0):
            raise ValueError(f"singular_leftover must be a finite number >= 0, got {singular_leftover!r}")
        if int(max_iterations) < 1:
            raise ValueError(f"max_iterations must be >= 1, got {max_iterations!r}")
        self.m = m
        self.tol = float(tol)
        self.max_iterations = int(max_iterations)
        self.singular_leftover = float(singular_leftover)
        self.residual = None
        self.leftover = 0.0
        self.iterations = 0
        self._warned = None
        self._drop = 0  # how many nearly singular directions the last solve_q left out

    # ------------------------------------------------------------------ helpers
    def _holonomic_rows(self):
        c = self.m.compiled
        rows = [np.arange(s.start, s.stop) for con, s in c.constraint_rows.items() if con.category != "convel"]
        return np.concatenate(rows) if rows else np.zeros(0, dtype=int)

    def _check_rank(self, G, rows):
        """Warn once (per model compile) when some rows depend on the others."""
        key = (id(self.m.compiled), G.shape)
        if self._warned == key or G.shape[0] == 0:
            return
        s = np.linalg.svd(G, compute_uv=False)
        rank = int(np.sum(s > 1e-9 * max(1.0, s[0])))
        if rank < G.shape[0]:
            kept, dependent = np.zeros((0, G.shape[1])), []
            for i in range(G.shape[0]):
                trial = np.vstack([kept, G[i]])
                if np.linalg.matrix_rank(trial, tol=1e-9 * max(1.0, s[0])) > kept.shape[0]:
                    kept = trial
                else:
                    dependent.append(i)
            names = sorted({self.m.constraint_residual_at(int(rows[i]))[0].name for i in dependent})
            warnings.warn(f"constraint rows are redundant (rank {rank} of {G.shape[0]} rows); rows of "
                          f"{names} depend on the others: the solver uses a minimum-norm correction",
                          UserWarning, stacklevel=3)
        self._warned = key

    @staticmethod
    def _min_norm(G, r, damping=0.0):
        """du minimising |du| subject to G du = r (least squares when inconsistent)."""
        if damping == 0.0:
            return np.linalg.lstsq(G, r, rcond=1e-12)[0]
        A = G @ G.T + damping * np.eye(G.shape[0])
        return G.T @ np.linalg.solve(A, r)

    def _worst(self, r, rows):
        i = int(np.argmax(np.abs(r)))
        con, local = self.m.constraint_residual_at(int(rows[i]))
        return con, abs(float(r[i]))

    # ------------------------------------------------------------------ solves
    def solve_q(self, q, frozen=()):
        """The closed configuration nearest q (Newton on the position residuals; convel rows have
        no position level). Raises ConstraintError naming the worst constraint when the residual
        does not fall below tol within max_iterations (after the nearly-singular retry of the
        module docstring)."""
        q0 = np.array(q, dtype=float)
        free = free_speeds(self.m, frozen)
        rows = self._holonomic_rows()
        self.leftover = 0.0
        if self._drop:
            out = self._truncated_newton(q0, free, rows, self._drop)
            if out is not None:
                return out
        q, r = self._newton(q0, free, rows)
        self.residual = float(np.abs(r).max(initial=0.0))
        if self.residual <= self.tol:
            return q
        plain = (q, r, self.iterations)
        s = np.linalg.svd(constraint_jacobian(self.m, q0)[rows][:, free], compute_uv=False)
        weak = int(np.sum((s > 1e-9 * s[0]) & (s < NEAR_SINGULAR * s[0]))) if s.size and s[0] > 0 else 0
        for drop in range(1, weak + 1):  # the fewest (smallest) directions left out that let it close
            out = self._truncated_newton(q0, free, rows, drop)
            if out is not None:
                self._drop = drop
                return out
        q, r, self.iterations = plain
        self.residual = float(np.abs(r).max(initial=0.0))
        con, worst = self._worst(r, rows)
        raise ConstraintError(
            f"solve_q: closure not reached after {self.iterations} iterations: constraint {con.name!r} "
            f"keeps a residual of {worst:.3g} (tol {self.tol:g}); the loop may not close from this "
            f"configuration (bodies too short, frozen coordinates, or far from a solution)", con, worst)

    def _newton(self, q, free, rows):
        """Damped Newton from q until the residual is below tol, no step reduces it, or
        max_iterations: (q, r)."""
        m = self.m
        r = pose_error(m, q, "residual")[rows]
        self.iterations = 0
        checked = False
        while np.abs(r).max(initial=0.0) > self.tol:
            if self.iterations >= self.max_iterations:
                break
            G = constraint_jacobian(m, q)[rows][:, free]
            if not checked:
                self._check_rank(G, rows)
                checked = True
            damping = 0.0
            norm = np.linalg.norm(r)
            for _ in range(30):
                du = np.zeros(m.nu)
                du[free] = -self._min_norm(G, r, damping)
                trial = m.integrate(q, du, 1.0)
                r_trial = pose_error(m, trial, "residual")[rows]
                if np.linalg.norm(r_trial) < norm or not np.isfinite(norm):
                    break
                damping = max(1e-12 * np.linalg.norm(G) ** 2, 10.0 * damping if damping else 1e-6)
            else:
                break  # no step reduces the residual: a stationary point that is not a solution
            q, r = trial, r_trial
            self.iterations += 1
        return q, r

    def _truncated_newton(self, q, free, rows, drop):
        """Newton from q with the ``drop`` smallest directions of Gc above the rank cut (1e-9 of
        the largest singular value) left out, if they are nearly singular (below NEAR_SINGULAR
        of the largest); q when the rest closes to tol and the residual left is at most
        singular_leftover (a warning says which constraints), else None."""
        m = self.m
        r = pose_error(m, q, "residual")[rows]
        for it in range(self.max_iterations + 1):
            U, s, Vt = np.linalg.svd(constraint_jacobian(m, q)[rows][:, free], full_matrices=False)
            rank = int(np.sum(s > 1e-9 * s[0])) if s.size and s[0] > 0 else 0
            k = rank - drop
            if k < 0 or rank == 0 or s[k] >= NEAR_SINGULAR * s[0]:
                return None
            rho = U[:, :k].T @ r
            if np.abs(rho).max(initial=0.0) <= self.tol:
                break
            if it == self.max_iterations:
                return None
            du = np.zeros(m.nu)
            du[free] = -Vt[:k].T @ (rho / s[:k])
            trial = m.integrate(q, du, 1.0)
            r_trial = pose_error(m, trial, "residual")[rows]
            if not np.linalg.norm(U[:, :k].T @ r_trial) < np.linalg.norm(rho):
                return None
            q, r = trial, r_trial
        leftover = float(np.abs(r).max(initial=0.0))
        if leftover > max(self.tol, self.singular_leftover):
            return None
        weak = np.abs(U[:, k:rank]).max(axis=1) > 0.1
        names = sorted({self.m.constraint_residual_at(int(rows[i]))[0].name for i in np.flatnonzero(weak)})
        sigmas = ", ".join(f"{v:.1e}" for v in s[k:rank] / s[0])
        warnings.warn(f"solve_q: Gc is nearly singular here (singular values {sigmas} of the largest, in the rows "
                      f"of {names}): those directions are left as dependent rows, as the dynamics treats them; "
                      f"their residual stays at {leftover:.2g}", UserWarning, stacklevel=3)
        self.iterations, self.residual, self.leftover = it, leftover, leftover
        return q

    def _linear(self, G, rhs, free, x):
        rows = np.arange(G.shape[0])
        Gf = G[:, free]
        self._check_rank(Gf, rows)
        x = np.array(x, dtype=float)
        x[free] += self._min_norm(Gf, rhs)
        self.iterations = 1
        return x

    def solve_u(self, q, u, frozen=()):
        """u closest to the given one (changing only the free speeds) with Gc u = 0."""
        G = constraint_jacobian(self.m, q)
        u = np.asarray(u, dtype=float)
        x = self._linear(G, -(G @ u), free_speeds(self.m, frozen), u)
        self.residual = float(np.abs(G @ x).max(initial=0.0))
        self._raise_if_open(G @ x, G, x, "solve_u")
        return x

    def solve_udot(self, q, u, udot, frozen=()):
        """udot closest to the given one (free speeds only) with Gc udot + Gc_dot u = 0."""
        G = constraint_jacobian(self.m, q)
        kappa = constraint_bias(self.m, q, u)
        udot = np.asarray(udot, dtype=float)
        x = self._linear(G, -(G @ udot + kappa), free_speeds(self.m, frozen), udot)
        err = G @ x + kappa
        self.residual = float(np.abs(err).max(initial=0.0))
        self._raise_if_open(err, G, x, "solve_udot")
        return x

    def _raise_if_open(self, err, G, x, what):
        roundoff = 1e-12 * (1.0 + np.abs(G).max(initial=0.0) * np.abs(x).max(initial=0.0))
        if self.residual > max(self.tol, roundoff):
            rows = np.arange(err.shape[0])
            con, worst = self._worst(err, rows)
            raise ConstraintError(f"{what}: constraint {con.name!r} cannot be met with the free speeds "
                                  f"(residual {worst:.3g}); free more coordinates", con, worst)


def constraint_kinematics(m, tol=1e-12, max_iterations=50, singular_leftover=1e-6):
    """A ConstraintKinematicsSolver for the enabled constraints of ``m``."""
    return ConstraintKinematicsSolver(m, tol, max_iterations, singular_leftover)
