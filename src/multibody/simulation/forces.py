"""Ready-made force models, evaluated inside the compiled stepping loop.

* ``JointSpringDamper(hinge, stiffness, damping, q_ref=0)``: tau = -k (q - q_ref) - c u on
  every scalar coordinate of a hinge (pin, slider, screw, translational, ...).
* ``ExternalForce(frame, wrench, amplitude=None, frequency=0, phase=0, axes="body")``: a
  wrench [moment; force] (6,) [N m; N] applied at a body or node frame (about its
  origin), constant or w(t) = wrench + amplitude sin(2 pi frequency t + phase).
  ``axes="body"``: components in the frame's own (moving) axes (a follower force);
  ``axes="world"``: components in world axes (e.g. a steady push).
"""
import numpy as np

from ..algorithms.checks import frame_row
from . import force_kernels as F

__all__ = ["JointSpringDamper", "ExternalForce", "pack_force_models"]


class JointSpringDamper:
    """Linear spring-damper on the scalar coordinates of a hinge (k [N m/rad or N/m], c)."""

    def __init__(self, hinge, stiffness=0.0, damping=0.0, q_ref=0.0):
        self.hinge = hinge
        self.stiffness = float(stiffness)
        self.damping = float(damping)
        self.q_ref = q_ref
        if not (np.isfinite(self.stiffness) and np.isfinite(self.damping)):
            raise ValueError("stiffness and damping must be finite")

    def _entries(self, m):
        name = self.hinge if isinstance(self.hinge, str) else self.hinge.name
        qs, us = m.q_slice(name), m.u_slice(name)
        if qs.stop - qs.start != us.stop - us.start:
            raise ValueError(f"JointSpringDamper: hinge {name!r} has rotation coordinates "
                             f"(nq != nu); only scalar coordinates are supported")
        n = us.stop - us.start
        qref = np.broadcast_to(np.asarray(self.q_ref, dtype=float), (n,))
        out = []
        for k in range(n):
            fi = np.zeros(F.N_FMI, dtype=np.int64)
            fi[F.FMI_TYPE], fi[F.FMI_U], fi[F.FMI_Q] = F.FM_SPRING, us.start + k, qs.start + k
            ff = np.zeros(F.N_FMF)
            ff[F.FM_K], ff[F.FM_C], ff[F.FM_QREF] = self.stiffness, self.damping, qref[k]
            out.append((fi, ff))
        return out


class ExternalForce:
    """A constant or sinusoidal wrench at a body or node frame (see module docstring)."""

    def __init__(self, frame, wrench, amplitude=None, frequency=0.0, phase=0.0, axes="body"):
        self.frame = frame
        self.wrench = np.asarray(wrench, dtype=float)
        self.amplitude = np.zeros(6) if amplitude is None else np.asarray(amplitude, dtype=float)
        for nm, w in (("wrench", self.wrench), ("amplitude", self.amplitude)):
            if w.shape != (6,) or not np.all(np.isfinite(w)):
                raise ValueError(f"ExternalForce {nm} must be a finite (6,) [moment; force], got {w!r}")
        if axes not in ("body", "world"):
            raise ValueError(f"axes must be 'body' or 'world', got {axes!r}")
        self.frequency = float(frequency)
        self.phase = float(phase)
        self.axes = axes

    def _entries(self, m):
        link, T = m.compiled.frame_in_link(frame_row(m.compiled, self.frame))
        if link < 0:
            return []
        R, p = T[:3, :3], T[:3, 3]
        ff = np.zeros(F.N_FMF)
        ff[F.FM_OMEGA] = 2.0 * np.pi * self.frequency
        ff[F.FM_PHASE] = self.phase
        if self.axes == "body":
            # link axes, about the link origin
            for off, w in ((F.FM_W0, self.wrench), (F.FM_W1, self.amplitude)):
                f = R @ w[3:]
                ff[off:off + 3] = R @ w[:3] + np.cross(p, f)
                ff[off + 3:off + 6] = f
            typ = F.FM_WRENCH
        else:
            ff[F.FM_W0:F.FM_W0 + 6] = self.wrench
            ff[F.FM_W1:F.FM_W1 + 6] = self.amplitude
            ff[F.FM_POINT:F.FM_POINT + 3] = p
            typ = F.FM_WORLD
        fi = np.zeros(F.N_FMI, dtype=np.int64)
        fi[F.FMI_TYPE], fi[F.FMI_LINK] = typ, link
        return [(fi, ff)]


def pack_force_models(m, forces):
    """(fmi (n, N_FMI) int64, fmf (n, N_FMF) float64, world flag) for the compiled loop
    (columns named in ``simulation.force_kernels``)."""
    rows = []
    for f in forces or ():
        if not hasattr(f, "_entries"):
            raise TypeError(f"force models must be JointSpringDamper or ExternalForce, got {type(f).__name__}")
        rows += f._entries(m)
    fmi = np.zeros((len(rows), F.N_FMI), dtype=np.int64)
    fmf = np.zeros((len(rows), F.N_FMF))
    for k, (a, b) in enumerate(rows):
        fmi[k] = a
        fmf[k] = b
    world = int(np.any(fmi[:, F.FMI_TYPE] == F.FM_WORLD)) if rows else 0
    return fmi, fmf, world
