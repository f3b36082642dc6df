"""Simulation results people can read: named columns with units, files, reading back.

* ``SimulationResult``: the samples of a run (t, q, u) with the names and units of
  their columns (``q_names``, ``q_units``, ``u_names``, ``u_units``).
* ``coordinate_labels(m)``: the names and units of q and u of a model, from its hinge
  names (``shoulder_pan_joint`` [rad]; a free hinge ``root``'s components
  ``root.rx root.ry root.rz root.x root.y root.z`` [rad]/[m] and speeds
  ``root.wx .. root.vz`` [rad/s]/[m/s]).
* ``ResultWriter``: a result sink that streams samples to a ``.npz`` or ``.csv`` file
  while a run goes on (memory bounded by one block of samples).
* ``load_result(path)``: a ``SimulationResult`` from a file ``simulate(output=...)`` or
  ``SimulationResult.save`` wrote.

File formats. CSV: one header line ``t [s],q:<name> [<unit>],...,u:<name> [<unit>],...``
then one row per sample. NPZ: arrays ``t`` (N,), ``q`` (N, nq), ``u`` (N, nu), the
strings ``status`` and ``message``, and ``q_names``, ``q_units``, ``u_names``, ``u_units``.
"""
import os
import re
import zipfile
from pathlib import Path

import numpy as np
from numpy.lib import format as npformat

__all__ = ["SimulationResult", "coordinate_labels", "column_labels", "ResultWriter", "load_result",
           "check_output_path"]

#: (q names, u names) and (q unit, u unit) per component of each rotation / translation kind
_ROT = {"rotvec": (("rx", "ry", "rz"), ("wx", "wy", "wz"), ("rad", "rad/s")),
        "quat": (("qx", "qy", "qz", "qw"), ("wx", "wy", "wz"), ("", "rad/s"))}
_SCALAR_UNITS = {("axis", "none"): ("rad", "rad/s"), ("none", "axis"): ("m", "m/s"),
                 ("axis", "axis"): ("rad", "rad/s")}
RESULT_SUFFIXES = (".npz", ".csv")


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


def _label(name, unit):
    return f"{name} [{unit}]" if unit else name


def column_labels(q_names, q_units, u_names, u_units):
    """The CSV header fields: ``t [s]``, ``q:<name> [<unit>]`` ..., ``u:<name> [<unit>]`` ..."""
    return (["t [s]"] + [_label(f"q:{n}", s) for n, s in zip(q_names, q_units)]
            + [_label(f"u:{n}", s) for n, s in zip(u_names, u_units)])


def _default_labels(nq, nu):
    return [f"q{i}" for i in range(nq)], [""] * nq, [f"u{i}" for i in range(nu)], [""] * nu


def check_output_path(path, what="output", suffixes=RESULT_SUFFIXES):
    """Check before a run that ``path`` can be written: its suffix is one of ``suffixes``
    (None: any), its folder exists and is writable. Returns the Path; raises ValueError
    naming ``what`` (the argument or option) otherwise."""
    p = Path(path)
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise ValueError(f"{what} {str(path)!r}: unknown file type {p.suffix!r}; use {' or '.join(suffixes)}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{what} {str(path)!r}: the folder {str(folder)!r} does not exist")
    if p.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder, not a file")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"{what} {str(path)!r}: no permission to write there")
    return p


class SimulationResult:
    """Samples of a run: ``t`` (N,) [s], ``q`` (N, nq), ``u`` (N, nu).

    Also ``status`` ("finished", "failed", "interrupted"; "unknown" when read from a CSV
    file), ``message``, ``n_steps`` (accepted steps), ``n_rejected``,
    ``n_chart_resets`` (rotation-vector charts re-centred), ``wall_time`` [s],
    ``integrator`` (its name), and the column names and units ``q_names``, ``q_units``,
    ``u_names``, ``u_units`` (see ``coordinate_labels``; q0.., u0.. when unknown).
    q is expressed in the chart offsets the model had when the run started.
    """

    def __init__(self, t, q, u, status="finished", message="", n_steps=0, n_rejected=0,
                 wall_time=0.0, integrator="", n_chart_resets=0, labels=None):
        self.n_chart_resets = n_chart_resets
        self.t, self.q, self.u = t, q, u
        self.status, self.message = status, message
        self.n_steps, self.n_rejected = n_steps, n_rejected
        self.wall_time, self.integrator = wall_time, integrator
        labels = labels or _default_labels(q.shape[1], u.shape[1])
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
        return [_label(n, s) for n, s in zip(self.q_names, self.q_units)]

    def u_legend(self):
        """Legend entries of the u columns, ``name [unit]``."""
        return [_label(n, s) for n, s in zip(self.u_names, self.u_units)]

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
        """Write the samples to ``path`` (``.npz`` or ``.csv``, see the module's formats);
        returns the Path. ``load_result(path)`` reads it back."""
        w = ResultWriter(path, self.q.shape[1], self.u.shape[1], self.labels, what="path")
        w.process_block(self.t, self.q, self.u)
        w.close(self.status, self.message)
        return w.path

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


class ResultWriter:
    """A result sink that streams samples to ``path`` (.npz or .csv) as they arrive.

    ``labels`` is ``(q_names, q_units, u_names, u_units)`` (default q0.., u0..).
    The path is checked and the file opened at construction (a bad path fails before a
    run). CSV rows are appended per block; NPZ samples go to ``<path>.part-*`` files
    beside it, and ``close(status, message)`` assembles the archive from them (read
    through memory maps: memory stays bounded) and removes them.
    """

    def __init__(self, path, nq, nu, labels=None, what="output"):
        self.path = check_output_path(path, what)
        self.nq, self.nu = nq, nu
        self.labels = labels or _default_labels(nq, nu)
        self.n = 0
        self._csv = self.path.suffix.lower() == ".csv"
        try:
            if self._csv:
                self._files = [open(self.path, "w", encoding="utf-8")]
                self._files[0].write(",".join(column_labels(*self.labels)) + "\n")
            else:
                self._parts = [Path(f"{self.path}.part-{x}") for x in "tqu"]
                self._files = [open(p, "wb") for p in self._parts]
        except OSError as e:
            raise ValueError(f"{what} {str(path)!r}: cannot write: {e.strerror or e}") from None

    def initialize(self, t, q, u):
        self.process_block(np.array([t]), np.asarray(q)[None], np.asarray(u)[None])

    def process(self, t, q, u):
        self.initialize(t, q, u)

    def process_block(self, T, Q, U):
        """Append samples T (n,), Q (n, nq), U (n, nu)."""
        k = T.shape[0]
        if k == 0:
            return
        if self._csv:
            np.savetxt(self._files[0], np.column_stack([T, Q, U]), delimiter=",", fmt="%.17g")
        else:
            for f, a in zip(self._files, (T, Q, U)):
                np.ascontiguousarray(a, dtype=np.float64).tofile(f)
        for f in self._files:
            f.flush()
        self.n += k

    def close(self, status="finished", message=""):
        """Finish the file (the NPZ archive is written now). Returns the Path."""
        for f in self._files:
            f.close()
        if not self._csv:
            shapes = ((self.n,), (self.n, self.nq), (self.n, self.nu))
            arrays = [np.memmap(p, dtype=np.float64, mode="r", shape=s) if self.n and s[-1] else np.zeros(s)
                      for p, s in zip(self._parts, shapes)]
            qn, qu, un, uu = self.labels
            _write_npz(self.path, dict(t=arrays[0], q=arrays[1], u=arrays[2]),
                       dict(status=np.array(status), message=np.array(message),
                            q_names=np.array(qn, dtype=str), q_units=np.array(qu, dtype=str),
                            u_names=np.array(un, dtype=str), u_units=np.array(uu, dtype=str)))
            del arrays
            for p in self._parts:
                p.unlink(missing_ok=True)
        return self.path


def _write_npz(path, big, small, rows=65536):
    """An uncompressed .npz (as ``np.savez``) whose ``big`` arrays are copied ``rows`` rows
    at a time (memory stays bounded however long they are)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for key, a in big.items():
            with zf.open(f"{key}.npy", "w", force_zip64=True) as f:
                npformat.write_array_header_2_0(f, npformat.header_data_from_array_1_0(a))
                for i in range(0, a.shape[0], rows):
                    f.write(np.ascontiguousarray(a[i:i + rows]).tobytes())
        for key, a in small.items():
            with zf.open(f"{key}.npy", "w") as f:
                npformat.write_array(f, a, allow_pickle=False)


_HEAD = re.compile(r"^(?P<name>.*?)(?: \[(?P<unit>[^\]]*)\])?$")


def _read_csv(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[0] == 0:
        data = np.zeros((0, len(header)))
    qn, qu, un, uu, qcols, ucols = [], [], [], [], [], []
    for j, field in enumerate(header[1:], start=1):
        mt = _HEAD.match(field.strip())
        name, unit = mt.group("name"), mt.group("unit") or ""
        if name.startswith("q:") or re.fullmatch(r"q\d+", name):
            qn.append(name[2:] if name.startswith("q:") else name), qu.append(unit), qcols.append(j)
        elif name.startswith("u:") or re.fullmatch(r"u\d+", name):
            un.append(name[2:] if name.startswith("u:") else name), uu.append(unit), ucols.append(j)
        else:
            raise ValueError(f"path {str(path)!r}: column {field!r} is neither q:<name> nor u:<name>")
    return SimulationResult(data[:, 0].copy(), data[:, qcols], data[:, ucols], status="unknown",
                            message="read from a CSV file (the run's status is not stored there)",
                            labels=(qn, qu, un, uu))


def load_result(path):
    """Read a results file written by ``simulate(output=path)``, ``multibody simulate
    --output`` or ``SimulationResult.save`` (.npz or .csv) back into a SimulationResult
    with ``t`` (N,) [s], ``q`` (N, nq), ``u`` (N, nu), the column names and units, and
    (NPZ) the run's status and message. Raises ValueError naming ``path`` for a missing
    file, an unknown suffix or a file that is not a results file."""
    p = Path(path)
    if p.suffix.lower() not in RESULT_SUFFIXES:
        raise ValueError(f"path {str(path)!r}: unknown results format {p.suffix!r}; use .npz or .csv")
    if not p.is_file():
        raise ValueError(f"path {str(path)!r}: no such file")
    if p.suffix.lower() == ".csv":
        return _read_csv(p)
    try:
        with np.load(p, allow_pickle=False) as z:
            t, q, u = z["t"], z["q"], z["u"]
            labels = None
            if "q_names" in z.files:
                labels = tuple([str(x) for x in z[k]] for k in ("q_names", "q_units", "u_names", "u_units"))
            status = str(z["status"]) if "status" in z.files else "unknown"
            message = str(z["message"]) if "message" in z.files else ""
    except (KeyError, OSError, ValueError, zipfile.BadZipFile) as e:
        raise ValueError(f"path {str(path)!r} is not a results file (arrays t, q, u): {e}") from None
    return SimulationResult(t, q, u, status=status, message=message, labels=labels)
