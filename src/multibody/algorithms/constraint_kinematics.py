"""The constraint kinematics solver: close the enabled constraints at the position, velocity
and acceleration levels (seed 000's ConstraintKinematicsSolver).

``solve_q`` is Newton's method on the residual rows with the exact tangent Jacobian Gc
(the residual of q (+) du changes by Gc du): each step is the minimum-norm correction
du = -Gc^+ r over the free speeds, damped (Levenberg-Marquardt) and halved until the
residual falls, so it converges quadratically near a solution and never diverges.
``solve_u`` and ``solve_udot`` are the minimum-norm linear corrections that make
Gc u = 0 and Gc udot + Gc_dot u = 0. Rows that depend on others (redundant constraints)
are found by a rank test and reported once with a warning; the solves handle them.
"""
import warnings

import numpy as np

from .constraints import constraint_bias, constraint_jacobian, pose_error


class ConstraintError(ValueError):
    """Closure could not be reached; ``constraint`` names the worst constraint."""

    def __init__(self, message, constraint=None, residual=None):
        super().__init__(message)
        self.constraint = constraint
        self.residual = residual


class ConstraintKinematicsSolver:
    """Closes the enabled constraints of Multibody ``m``; make it with ``m.constraint_kinematics()``.

    ``tol``: largest residual accepted (position rows in m or rad, velocity rows in m/s or
    rad/s ...); ``max_iterations`` of ``solve_q``. After each solve, ``residual`` (the largest
    absolute residual) and ``iterations`` tell how it went. ``frozen`` in every solve names
    hinges (their whole q/u slices) or u indices held at the values given.
    """

    def __init__(self, m, tol=1e-12, max_iterations=50):
        if not (np.isfinite(tol) and tol > 0):
            raise ValueError(f"tol must be a positive number, got {tol!r}")
        if int(max_iterations) < 1:
            raise ValueError(f"max_iterations must be >= 1, got {max_iterations!r}")
        self.m = m
        self.tol = float(tol)
        self.max_iterations = int(max_iterations)
        self.residual = None
        self.iterations = 0
        self._warned = None

    # ------------------------------------------------------------------ helpers
    def _free(self, frozen):
        c = self.m.compiled
        held = set()
        for f in frozen:
            if isinstance(f, str):
                s = self.m.u_slice(f)
                held.update(range(s.start, s.stop))
            elif isinstance(f, (int, np.integer)) and 0 <= f < c.nu:
                held.add(int(f))
            else:
                raise ValueError(f"frozen: {f!r} is neither a hinge name nor a u index in range({c.nu})")
        return np.array([i for i in range(c.nu) if i not in held], dtype=int)

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
        does not fall below tol within max_iterations."""
        m = self.m
        q = np.array(q, dtype=float)
        free = self._free(frozen)
        rows = self._holonomic_rows()
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
        self.residual = float(np.abs(r).max(initial=0.0))
        if self.residual > self.tol:
            con, worst = self._worst(r, rows)
            raise ConstraintError(
                f"solve_q: closure not reached after {self.iterations} iterations: constraint {con.name!r} "
                f"keeps a residual of {worst:.3g} (tol {self.tol:g}); the loop may not close from this "
                f"configuration (bodies too short, frozen coordinates, or far from a solution)", con, worst)
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
        x = self._linear(G, -(G @ u), self._free(frozen), u)
        self.residual = float(np.abs(G @ x).max(initial=0.0))
        self._raise_if_open(G @ x, G, x, "solve_u")
        return x

    def solve_udot(self, q, u, udot, frozen=()):
        """udot closest to the given one (free speeds only) with Gc udot + Gc_dot u = 0."""
        G = constraint_jacobian(self.m, q)
        kappa = constraint_bias(self.m, q, u)
        udot = np.asarray(udot, dtype=float)
        x = self._linear(G, -(G @ udot + kappa), self._free(frozen), udot)
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


def constraint_kinematics(m, tol=1e-12, max_iterations=50):
    """A ConstraintKinematicsSolver for the enabled constraints of ``m``."""
    return ConstraintKinematicsSolver(m, tol, max_iterations)
