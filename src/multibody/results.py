"""Simulation results people can read: named columns with units, files, reading back.

* ``SimulationResult``: the samples of a run (t, q, u) with the names and units of
  their columns (``q_names``, ``q_units``, ``u_names``, ``u_units``).
* ``coordinate_labels(m)``: the names and units of q and u of a model, from its hinge
  names (``shoulder_pan_joint`` [rad]; a free hinge ``root``'s components
  ``root.rx root.ry root.rz root.x root.y root.z`` [rad]/[m] and speeds
  ``root.wx .. root.vz`` [rad/s]/[m/s]).
* ``ResultWriter`` (``result_writer``): a result sink that streams samples to a ``.npz``
  or ``.csv`` file while a run goes on, durably (``result_journal``: a lock against a second
  writer, blocks appended to ``<path>.partial`` as they come, the file made atomically).
* ``load_result(path)``: a ``SimulationResult`` from a file ``simulate(output=...)`` or
  ``SimulationResult.save`` wrote, checked (``result_reader``), or recovered from the
  partial file of a run that did not finish.

File formats: see ``result_writer``.
"""
from dataclasses import dataclass

import numpy as np

from .result_reader import RecoveredResultWarning, read_result
from .result_writer import (RESULT_SUFFIXES, ResultWriter, check_output_path, column_labels, default_labels,
                            label, save_result)

__all__ = ["SimulationResult", "EventRecord", "coordinate_labels", "column_labels", "ResultWriter", "load_result",
           "check_output_path", "RecoveredResultWarning", "RESULT_SUFFIXES"]

#: (q names, u names) and (q unit, u unit) per component of each rotation / translation kind
_ROT = {"rotvec": (("rx", "ry", "rz"), ("wx", "wy", "wz"), ("rad", "rad/s")),
        "quat": (("qx", "qy", "qz", "qw"), ("wx", "wy", "wz"), ("", "rad/s"))}
_SCALAR_UNITS = {("axis", "none"): ("rad", "rad/s"), ("none", "axis"): ("m", "m/s"),
                 ("axis", "axis"): ("rad", "rad/s")}


def coordinate_labels(m):
    """Names and units of the coordinates of model ``m``.

    Returns ``(q_names, q_units, u_names, u_units)``: lists of ``m.nq`` and ``m.nu``
    strings. A one-coordinate hinge is named by the hinge (``shoulder_pan_joint``, unit
    "rad" or "m"; its speed "rad/s" or "m/s"); a hinge with several coordinates by
    ``hinge.component`` (rotation vector rx ry rz [rad], quaternion qx qy qz qw [unit
    "" : dimensionless], position x y z [m]; speeds wx wy wz [rad/s], vx vy vz [m/s]; the
    scalar subhinges of a compound hinge by their index in the hinge, ``hinge.0``); a
    modal body's coordinates by ``body.eta0`` .. (unit "": their scale is the mode
    shapes'; rates [1/s] of it).
    """
    qn, qu, un, uu = [""] * m.nq, [""] * m.nq, [""] * m.nu, [""] * m.nu
    for name in m.hinge_names:
        h = m.hinge(name)
        i, k = m.q_slice(name).start, m.u_slice(name).start
        single = h.nq == 1 and h.nu == 1
        for s in h.subhinges:
            kind = s.kind_info
            if kind.nq == 0 and kind.nu == 0:
                continue
            if kind.nq == 1 and kind.nu == 1:
                qunit, uunit = _SCALAR_UNITS[(kind.rotation, kind.translation)]
                label = name if single else f"{name}.{k - m.u_slice(name).start}"
                qn[i], qu[i], un[k], uu[k] = label, qunit, label, uunit
            else:
                q_parts, u_parts = [], []
                if kind.rotation in _ROT:
                    qc, uc, (qunit, uunit) = _ROT[kind.rotation]
                    q_parts += [(c, qunit) for c in qc]
                    u_parts += [(c, uunit) for c in uc]
                if kind.translation == "vector":
                    q_parts += [(c, "m") for c in "xyz"]
                    u_parts += [(f"v{c}", "m/s") for c in "xyz"]
                for j, (c, unit) in enumerate(q_parts):
                    qn[i + j], qu[i + j] = f"{name}.{c}", unit
                for j, (c, unit) in enumerate(u_parts):
                    un[k + j], uu[k + j] = f"{name}.{c}", unit
            i += kind.nq
            k += kind.nu
    for name, (qs, us) in m.compiled.modal_slices.items():  # a modal body's own coordinates
        for j in range(qs.stop - qs.start):
            qn[qs.start + j], un[us.start + j] = f"{name}.eta{j}", f"{name}.eta{j}"
            uu[us.start + j] = "1/s"
    return qn, qu, un, uu


@dataclass(frozen=True)
class EventRecord:
    """An event that fired: its time ``t`` [s], ``name``, ``index`` in ``events``, ``kind``
    ("state" or "timed"), the state before (``q_before``, ``u_before``) and after
    (``q_after``, ``u_after``) its action (equal when the action changed nothing), and
    ``stop`` (True when the run ended there). NPZ results files keep them
    (``result_writer.event_arrays``)."""

    t: float
    name: str
    index: int
    kind: str
    q_before: np.ndarray
    u_before: np.ndarray
    q_after: np.ndarray
    u_after: np.ndarray
    stop: bool


class SimulationResult:
    """Samples of a run: ``t`` (N,) [s], ``q`` (N, nq), ``u`` (N, nu).

    Also ``status`` ("finished", "failed", "interrupted"; "unknown" when read from a CSV
    file), ``message``, ``n_steps`` (accepted steps), ``n_rejected``,
    ``n_chart_resets`` (rotation-vector charts re-centred), ``wall_time`` [s],
    ``integrator`` (its name), and the column names and units ``q_names``, ``q_units``,
    ``u_names``, ``u_units`` (see ``coordinate_labels``; q0.., u0.. when unknown), and
    ``events``: the events that fired (``EventRecord``: time, name, index, kind, state
    before and after), empty without events; an NPZ file keeps them, a CSV file only
    their samples (the states before and after each event, at its time).
    q is expressed in the chart offsets the model had when the run started. A run with
    contacts also has ``contacts`` (with ``contact_output=True``: ``ContactRecords``) and
    ``contact_warm_start`` (its last step's contacts and impulses, for the next run of the
    model to start from: ``contact_options={"warm_start": result}``); None otherwise.
    """

    contacts = None
    contact_warm_start = None

    def __init__(self, t, q, u, status="finished", message="", n_steps=0, n_rejected=0,
                 wall_time=0.0, integrator="", n_chart_resets=0, labels=None, events=()):
        self.n_chart_resets = n_chart_resets
        self.clamped = {}
        self.events = list(events)
        self.t, self.q, self.u = t, q, u
        self.status, self.message = status, message
        self.n_steps, self.n_rejected = n_steps, n_rejected
        self.wall_time, self.integrator = wall_time, integrator
        labels = labels or default_labels(q.shape[1], u.shape[1])
        self.q_names, self.q_units, self.u_names, self.u_units = (list(x) for x in labels)

    def __len__(self):
        return self.t.shape[0]

    def __repr__(self):
        span = f"t = {self.t[0]:.4g}..{self.t[-1]:.4g} s, " if len(self) else ""
        return f"SimulationResult({len(self)} samples, {span}{self.status}, {self.n_steps} steps)"

    @property
    def labels(self):
        """(q_names, q_units, u_names, u_units)."""
        return self.q_names, self.q_units, self.u_names, self.u_units

    def q_legend(self):
        """Legend entries of the q columns, ``name [unit]``."""
        return [label(n, s) for n, s in zip(self.q_names, self.q_units)]

    def u_legend(self):
        """Legend entries of the u columns, ``name [unit]``."""
        return [label(n, s) for n, s in zip(self.u_names, self.u_units)]

    def energy(self, m):
        """(kinetic, potential) energies (N,), (N,) [J] along the run (of a Multibody in one
        kernel call, ``algorithms.energy.trajectory_energies``). With modal (flexible) bodies
        the potential is gravity's (deformed centres of mass) plus the strain energy, so
        that the sum is the total a run without damping conserves."""
        from .algorithms.energy import trajectory_energies
        from .model import Multibody
        if isinstance(m, Multibody):
            return trajectory_energies(m, self.q, self.u)
        ke = np.array([m.kinetic_energy(q, u) for q, u in zip(self.q, self.u)])
        pe = np.array([m.potential_energy(q) for q in self.q])
        return ke, pe

    def save(self, path):
        """Write the samples to ``path`` (``.npz`` or ``.csv``, see ``result_writer``'s formats)
        atomically; returns the Path. ``load_result(path)`` reads it back."""
        return save_result(path, self.t, self.q, self.u, self.labels, self.status, self.message, events=self.events)

    def to_csv(self, path):
        """Write a ``.csv`` file (header ``t [s],q:<name> [unit],...``); returns the Path."""
        if not str(path).lower().endswith(".csv"):
            raise ValueError(f"path must end in .csv, got {str(path)!r}")
        return self.save(path)

    def to_npz(self, path):
        """Write a ``.npz`` archive (t, q, u, names, units, status); returns the Path."""
        if not str(path).lower().endswith(".npz"):
            raise ValueError(f"path must end in .npz, got {str(path)!r}")
        return self.save(path)

    def plot(self, m=None, path=None, title=""):
        """Plot the coordinates and the speeds against time (legends name each joint with
        its unit) and, given the model ``m``, the kinetic, potential and total energy [J].

        Writes the figure to ``path`` if given (png, pdf, svg ...), and returns the matplotlib
        Figure (``plotting.draw``). Needs matplotlib (``pip install multibody[plot]``):
        ImportError otherwise.
        """
        from .plotting import draw
        return draw(self.t, self.q, self.u, self.q_legend(), self.u_legend(),
                    None if m is None else self.energy(m), title, path)


def load_result(path):
    """Read a results file written by ``simulate(output=path)``, ``multibody simulate
    --output`` or ``SimulationResult.save`` (.npz or .csv) back into a SimulationResult
    with ``t`` (N,) [s], ``q`` (N, nq), ``u`` (N, nu), the column names and units, and
    (NPZ) the run's status, message and events.

    The file is checked (shapes, dtypes, names). A run that did not finish its file
    (killed, out of disk space, its file's folder made read-only) leaves
    ``<path>.partial``: it is read instead, up to its last whole block, with a
    ``RecoveredResultWarning`` (status "interrupted" unless the run recorded its end).
    Raises ValueError naming ``path`` for a missing file, an unknown suffix or a file
    that is not a results file.
    """
    r = read_result(path)
    return SimulationResult(r["t"], r["q"], r["u"], status=r["status"], message=r["message"], labels=r["labels"],
                            events=[EventRecord(**e) for e in r["events"]])
