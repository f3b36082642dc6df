"""Link-level force models for runs of models with modal (flexible) bodies.

The compiled loop's flex variants (``flex_stepping``) take joint forces and enabled
constraints (loops, constant-velocity, coordinate constraints: the ``ta`` variants).
Wrenches at frames (``ExternalForce``) and springs between frames (``LinearSpringDamper``)
reach it instead through the loop's control hand-over: at every Runge-Kutta stage the loop
pauses, ``FlexStageForces`` (called as a control) adds their generalized forces to the
stage's joint forces, and the loop goes on with its flexible (constrained) forward dynamics
and its joint force models.

* A wrench w at frame F (a body or a node, whose pose and Jacobian follow the deformation):
  tau += J_F^T w, with J_F the frame's Jacobian in its own axes (the model's kernel
  ``frame_jacobian``: kernels/flex_entry.py) and w in those axes (a world-axes wrench is
  rotated into them).
* A spring-damper between frames a and b: F = -(k (l - l0) + c l_dot) e on b and -F on a,
  e the unit vector from a's origin to b's, applied as wrenches at both.

The wrench's time law and the spring's tension are the compiled loop's own
(``force_kernels.wrench_phase``, ``wrench_component``, ``spring_tension``), evaluated on the
force models' packed rows; the frames' Jacobians are compiled, the rest is Python.
"""
import numpy as np

from ..algorithms.checks import check_vector, frame_row, raise_status
from .force_kernels import spring_tension, wrench_component, wrench_phase
from .forces import ExternalForce, LinearSpringDamper

__all__ = ["FlexStageForces", "needs_stage_forces"]


def needs_stage_forces(m, forces):
    """True when a run of modal-body model ``m`` has link-level force models, which
    ``FlexStageForces`` supplies."""
    return any(isinstance(f, (ExternalForce, LinearSpringDamper)) for f in forces or ())


class FlexStageForces:
    """A control ``(t, q, u, tau_out)`` that first calls the user's ``control`` (if any),
    then adds the link-level forces (see the module docstring)."""

    def __init__(self, m, forces, control=None):
        self.model = m
        c = m.compiled
        self._wrenches = []  # (row, link, ExternalForce, its packed row (1, N_FMF))
        self._springs = []   # (row_a, link_a, T_a, row_b, link_b, T_b, packed row (1, N_FMF))
        for f in forces or ():
            if isinstance(f, ExternalForce):  # its packed row: the compiled loop's formula
                row = frame_row(c, f.frame)
                self._wrenches.append((row, c.frame_in_link(row)[0], f, f._sinusoid()[None]))
            elif isinstance(f, LinearSpringDamper):
                ra, rb = frame_row(c, f.frame_a), frame_row(c, f.frame_b)
                (la, Ta), (lb, Tb) = c.frame_in_link(ra), c.frame_in_link(rb)
                self._springs.append((ra, la, Ta, rb, lb, Tb, f._entries(m)[0][1][None]))
        self.control = control
        self.data = c.create_data()  # this object's own kinematics and work

    def __call__(self, t, q, u, tau_out):
        r = None
        if self.control is not None:
            r = self.control(t, q, u, tau_out)
            if r is not None and r is not tau_out:
                return r  # the caller's check names the mistake
        if self._wrenches or self._springs:
            tau_out += self.link_forces(t, q, u)
        return r

    def _frame(self, row, link, q, u, cache):
        """(J (6, nu) in the frame's axes, T_world_frame, [w; v] in its axes); a frame fixed
        in the world has J = 0."""
        if row not in cache:
            c = self.model.compiled
            if link < 0:
                cache[row] = (np.zeros((6, c.nu)), c.frame_in_link(row)[1], np.zeros(6))
            else:
                J, T = np.zeros((6, c.nu)), np.empty((4, 4))
                q = check_vector(q, c.nq, "q", c)
                st = c.kernels.frame_jacobian(self.data.buf, q, row, T, J)
                if st:
                    raise_status(c, st, ("q",), (q,))
                cache[row] = (J, T, J @ u)
        return cache[row]

    def link_forces(self, t, q, u):
        """tau (nu,) of the wrenches and spring-dampers at (t, q, u)."""
        tau = np.zeros(self.model.compiled.nu)
        cache = {}
        for row, link, f, packed in self._wrenches:
            J, T, _ = self._frame(row, link, q, u, cache)
            s = wrench_phase(packed, 0, t)
            w = np.array([wrench_component(packed, 0, k, s) for k in range(6)])
            if f.axes == "world":
                R = T[:3, :3]
                w = np.concatenate([R.T @ w[:3], R.T @ w[3:]])
            tau += J.T @ w
        for ra, la, _, rb, lb, _, packed in self._springs:
            Ja, Ta, Va = self._frame(ra, la, q, u, cache)
            Jb, Tb, Vb = self._frame(rb, lb, q, u, cache)
            d = Tb[:3, 3] - Ta[:3, 3]
            length = np.linalg.norm(d)
            if length == 0.0:
                continue  # no direction: no force (as the compiled loop's springs)
            e = d / length
            rate = e @ (Tb[:3, :3] @ Vb[3:] - Ta[:3, :3] @ Va[3:])
            F = spring_tension(packed, 0, length, rate) * e  # on b, world axes
            tau += Jb[3:].T @ (Tb[:3, :3].T @ F) - Ja[3:].T @ (Ta[:3, :3].T @ F)
        return tau
