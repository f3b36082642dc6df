"""MJCF import: ``load_mjcf(path)``, a MuJoCo model file as a ``Multibody``.

MuJoCo's own parser and compiler read the file (``mujoco.MjModel.from_xml_path``), so
defaults classes, includes, ``inertiafromgeom`` and every other compiler rule behave exactly
as in MuJoCo; the compiled arrays are then mapped:

* bodies: ``body_pos``/``body_quat`` (the body frame in its parent at ``qpos0``),
  ``body_mass``, ``body_ipos``, ``body_iquat`` and the principal ``body_inertia``; a body
  without joints is welded (a locked hinge);
* joints: hinge -> pin, slide -> slider, ball -> quaternion spherical, free -> quaternion
  free (on a child of the world). The joints of one body become one hinge made of several
  subhinges, one per joint, named after the joints (see ``_mjcf_build`` for the rare
  combination that needs a massless intermediate body ``<body>__<joint>``). Hinge and
  slide coordinates carry MuJoCo's qpos numbers (with ``ref`` != 0 our zero is shifted
  accordingly); ball and free joints follow ``multibody.interop.MujocoLayout``'s layouts;
  ``m.mjcf_map`` (an ``MjcfMap``) converts states, forces and mass matrices;
* joint ``armature`` -> ``Hinge.armature``; joint ranges of limited hinge/slide joints ->
  hinge limits; ``damping``, ``frictionloss`` and (hinge and slide joints') ``stiffness``/
  ``springref`` -> the hinge's ``damping``, ``friction``, ``spring_stiffness``/
  ``spring_reference``, which ``simulate`` applies by default (``joint_dynamics=``;
  MuJoCo's frictionloss is a soft constraint, ours the regularized Coulomb law of
  ``simulation.joint_dynamics``); ``m.mjcf_forces`` is empty, kept for scripts that pass
  it; ``<actuator>`` -> ``m.actuators`` (``_mjcf_actuators``: joint transmissions, affine
  gains and biases), driven by ``simulate(..., ctrl=...)``;
* sites -> nodes (a site named like a body gets the suffix ``_site``); ``opt.gravity``
  (zero when MuJoCo's gravity flag is disabled) -> ``m.gravity``;
* colliding geoms (``contype`` or ``conaffinity`` set) -> collision shapes
  (``Multibody.add_collision``: plane, sphere, capsule, cylinder, box, ellipsoid, mesh
  hull; contype, conaffinity, friction[0], margin) and ``<exclude>`` -> ``exclude_collision``
  (``_mjcf_collisions``); contacts act when simulating. MuJoCo's soft-contact parameters
  (``solref``, ``solimp``) are not used: contacts are hard.

Not modelled, each warned by name (``MjcfWarning``) and listed in ``m.mjcf_unmapped``:
equality constraints, tendons, actuators other than those above, gravity compensation,
fluid forces, flexes, ball-joint limits, ball- and free-joint stiffness, and of contact:
height fields, torsional and rolling friction (condim 4, 6), explicit ``<pair>``
elements, non-default solref/solimp.
Unnamed bodies, joints and sites get stable generated names (``body<i>``,
``<body>_joint<k>``, ``site<i>``).

Before MuJoCo opens anything, the model file, its includes and its asset files are checked
(``_mjcf_files``): read with a bound, regular files, inside the model's folder or
``mesh_dirs`` (``allow_outside=True`` lifts that), each refusal naming the file.
"""
import warnings
from pathlib import Path

import numpy as np

from ..model import Multibody
from ._files import MAX_BYTES
from ._mjcf_files import check_mjcf_files
from ._mjcf_collisions import add_mjcf_collisions, check_softness
from ._mjcf_geoms import geom_visuals
from ._mjcf_actuators import mjcf_actuators
from ._mjcf_build import BALL, FREE, Joint, quat_wxyz_to_matrix, split_runs, transform
from ._mjcf_map import MjcfMap

__all__ = ["MjcfWarning", "load_mjcf", "model_from_mjmodel"]

_LISTED = 20   # names listed in one warning


class MjcfWarning(UserWarning):
    """An element of an MJCF file that ``load_mjcf`` does not map (named in the message)."""


def _import_mujoco():
    try:
        import mujoco
    except ImportError:
        raise ImportError("load_mjcf needs MuJoCo's Python package: pip install 'multibody[mjcf]' "
                          "(or pip install mujoco)") from None
    return mujoco


def load_mjcf(path, name=None, *, mesh_dirs=None, allow_outside=False, max_bytes=MAX_BYTES,
              contact_softness="auto"):
    """Load the MJCF file ``path`` (compiled by MuJoCo) into a new ``Multibody``.

    ``name``: the model's name (default: the file's stem). ``mesh_dirs``: folders besides the
    file's own that its includes and asset files may lie in (``allow_outside=True``: any);
    ``max_bytes``: the largest file read (default 256 MiB). Returns the Multibody with
    ``actuators`` (for ``simulate(..., ctrl=...)``), ``mjcf_map`` (an
    ``MjcfMap``: q, u, udot, tau, M <-> qpos, qvel, qacc, qfrc, ``mj_fullM``) and
    ``mjcf_unmapped`` (one line per element not modelled, each also warned).

    ``contact_softness``: "auto" (a file that sets solref or solimp on any colliding geom is
    read soft throughout, as MuJoCo's soft constraint; one that sets none is read hard),
    "mujoco" (soft as MuJoCo, every geom with its solref/solimp, defaults included) or "hard"
    (every contact hard, solref/solimp ignored: Coulomb's closed forms hold).

    Raises FileNotFoundError for a missing file, ValueError naming the file and the reference
    for a file refused (outside, not a regular file, too large) or malformed XML, ValueError
    naming the file with MuJoCo's own message when MuJoCo refuses it, and ValueError naming
    the body for joints that have no counterpart (a free joint below another body or beside
    other joints).
    """
    mujoco = _import_mujoco()
    check_softness(contact_softness)
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"MJCF file not found: {path}")
    check_mjcf_files(p, mesh_dirs, allow_outside, max_bytes)
    try:
        mm = mujoco.MjModel.from_xml_path(str(p))
    except ValueError as e:
        raise ValueError(f"{path}: MuJoCo cannot load this MJCF file: {e}") from e
    return model_from_mjmodel(mm, name=name or p.stem, source=str(path), contact_softness=contact_softness)


def _unique(base, taken):
    """``base``, or ``base_2``, ``base_3``, ... the first not in ``taken`` (which it joins)."""
    out, k = base, 2
    while out in taken:
        out, k = f"{base}_{k}", k + 1
    taken.add(out)
    return out


def _rot(mm_quat):
    return quat_wxyz_to_matrix(mm_quat)


class _Builder:
    """Walks a compiled ``MjModel`` and builds the Multibody (one instance per load)."""

    def __init__(self, mm, name, source, contact_softness="auto"):
        self.mm, self.source, self.softness = mm, source, contact_softness
        self.m = Multibody(name)
        self.bodies = {0: self.m.world}
        self.body_names = {"world"}
        self.hinge_names = set()
        self.records = []        # (joint name, type, hinge name, q offset, u offset, qposadr, dofadr)
        self.unmapped = {}
        self.joint_names = [self._joint_name(j) for j in range(mm.njnt)]

    def note(self, what, item):
        self.unmapped.setdefault(what, []).append(item)

    def _joint_name(self, j):
        mm = self.mm
        n = mm.joint(j).name
        if n:
            return n
        b = int(mm.jnt_bodyid[j])
        return f"{mm.body(b).name or f'body{b}'}_joint{j - int(mm.body_jntadr[b])}"

    # ------------------------------------------------------------------ bodies and joints
    def body(self, b):
        mm = self.mm
        name = _unique(mm.body(b).name or f"body{b}", self.body_names)
        R = _rot(mm.body_iquat[b])
        inertia = R @ np.diag(mm.body_inertia[b]) @ R.T
        body = self.m.add_body(name, mass=float(mm.body_mass[b]), com=mm.body_ipos[b].copy(), inertia=inertia)
        self.bodies[b] = body
        parent = self.bodies[int(mm.body_parentid[b])]
        T0 = transform(_rot(mm.body_quat[b]), mm.body_pos[b])
        jids = list(range(int(mm.body_jntadr[b]), int(mm.body_jntadr[b]) + int(mm.body_jntnum[b])))
        if mm.body_gravcomp[b] != 0:
            self.note("gravity compensation (gravcomp)", name)
        if not jids:
            self.m.add_hinge(parent, body, "locked", name=_unique(f"{name}_weld", self.hinge_names),
                             T_parent_joint=T0)
        elif any(int(mm.jnt_type[j]) == FREE for j in jids):
            self.free(name, body, parent, jids)
        else:
            self.chain(name, body, parent, T0, jids)

    def free(self, name, body, parent, jids):
        j = jids[0]
        if len(jids) > 1 or parent is not self.m.world:
            raise ValueError(f"{self.source}: body {name!r}: a free joint is mapped only as the single "
                             f"joint of a child of the world (MuJoCo places it in world coordinates)")
        h = self.m.add_hinge(None, body, "free_quat", name=self._hinge_name(self.joint_names[j]))
        a = self.mm.dof_armature[self.mm.jnt_dofadr[j]:self.mm.jnt_dofadr[j] + 6]
        if not np.allclose(a[:3], a[0], rtol=0, atol=0):
            self.note("anisotropic free-joint armature", self.joint_names[j])
        h.armature = np.r_[a[3:], a[:3]]
        self.records.append((self.joint_names[j], FREE, h.name, 0, 0, int(self.mm.jnt_qposadr[j]),
                             int(self.mm.jnt_dofadr[j])))
        self.springs(h, [j])

    def _hinge_name(self, base):
        return _unique(base, self.hinge_names)

    def chain(self, name, body, parent, T0, jids):
        mm = self.mm
        joints = [Joint(j, self.joint_names[j], int(mm.jnt_type[j]), mm.jnt_pos[j], mm.jnt_axis[j],
                        mm.qpos0[mm.jnt_qposadr[j]] if int(mm.jnt_type[j]) != BALL else 0.0) for j in jids]
        runs = split_runs(joints)
        for k, run in enumerate(runs):
            last = k == len(runs) - 1
            child = body if last else self.m.add_body(
                _unique(f"{name}__{run.joints[-1].name}", self.body_names))
            hname = run.joints[0].name if len(run.joints) == 1 else f"{name}_hinge"
            h = self.m.add_hinge(parent, child, name=self._hinge_name(hname), subhinges=run.subhinges,
                                 T_parent_joint=T0 @ run.pre if k == 0 else run.pre,
                                 T_child_joint=run.T_child_joint)
            self.joint_data(h, run.joints)
            parent = child

    def joint_data(self, h, joints):
        """Records for the map, armature, limits and springs of the hinge ``h`` of ``joints``."""
        mm, dq, du, arm = self.mm, 0, 0, []
        lo, hi, scalar = [], [], all(j.kind != BALL for j in joints)
        for jt in joints:
            j, nv = jt.index, 3 if jt.kind == BALL else 1
            self.records.append((jt.name, jt.kind, h.name, dq, du, int(mm.jnt_qposadr[j]), int(mm.jnt_dofadr[j])))
            dq, du = dq + (4 if jt.kind == BALL else 1), du + nv
            arm.extend(mm.dof_armature[mm.jnt_dofadr[j]:mm.jnt_dofadr[j] + nv])
            limited = bool(mm.jnt_limited[j])
            if limited and not scalar:
                self.note("joint limits on rotation coordinates", jt.name)
            lo.append(float(mm.jnt_range[j, 0]) if limited else None)
            hi.append(float(mm.jnt_range[j, 1]) if limited else None)
        h.armature = np.array(arm)
        if scalar and any(v is not None for v in lo):
            h.set_limits(tuple(lo), tuple(hi))
        self.springs(h, [jt.index for jt in joints])

    def springs(self, h, jids):
        """The joints' damping, frictionloss and (hinge and slide joints') stiffness onto the
        hinge, per speed in our order (a free joint's dofs are MuJoCo's [linear; angular])."""
        mm = self.mm
        dofs, k, ref = [], [], []
        for j in jids:
            a, nv = int(mm.jnt_dofadr[j]), {FREE: 6, BALL: 3}.get(int(mm.jnt_type[j]), 1)
            dofs += list(range(a + 3, a + 6)) + list(range(a, a + 3)) if nv == 6 else list(range(a, a + nv))
            if nv > 1 and mm.jnt_stiffness[j] != 0.0:
                self.note("joint stiffness on a ball/free joint", self.joint_names[j])
            k += [0.0] * nv if nv > 1 else [float(mm.jnt_stiffness[j])]
            ref += [0.0] * nv if nv > 1 else [float(mm.qpos_spring[mm.jnt_qposadr[j]])]
        h.damping = mm.dof_damping[dofs].astype(float)
        h.friction = mm.dof_frictionloss[dofs].astype(float)
        h.spring_stiffness, h.spring_reference = k, ref

    # ------------------------------------------------------------------ the rest
    def sites(self):
        mm, taken = self.mm, set(self.body_names)
        for i in range(mm.nsite):
            base = mm.site(i).name or f"site{i}"
            nm = _unique(base if base not in taken else f"{base}_site", taken)
            T = transform(_rot(mm.site_quat[i]), mm.site_pos[i])
            self.m.add_node(nm, self.bodies[int(mm.site_bodyid[i])], T_body_node=T)

    def unmapped_elements(self, mujoco):
        mm = self.mm
        for what, n, get in (("equality constraint", mm.neq, mm.equality), ("tendon", mm.ntendon, mm.tendon),
                             ("flex", mm.nflex, None)):
            for i in range(n):
                self.note(what, (get(i).name if get else "") or f"#{i}")
        if mm.opt.density > 0 or mm.opt.viscosity > 0:
            self.note("fluid forces", f"density {mm.opt.density:g}, viscosity {mm.opt.viscosity:g}")

    def build(self):
        mujoco = _import_mujoco()
        mm = self.mm
        off = int(mujoco.mjtDisableBit.mjDSBL_GRAVITY)
        self.m.gravity = np.zeros(3) if mm.opt.disableflags & off else np.array(mm.opt.gravity)
        for b in range(1, mm.nbody):
            self.body(b)
        for b, body in self.bodies.items():  # geoms as visuals (for the viewer)
            body.visuals = geom_visuals(mm, b)
        add_mjcf_collisions(mujoco, mm, self.m, self.bodies, self.note, self.softness)  # colliding geoms as shapes
        self.sites()
        self.unmapped_elements(mujoco)
        m = self.m
        joints = [(n, t, m.q_slice(h).start + dq, m.u_slice(h).start + du, pq, pv)
                  for n, t, h, dq, du, pq, pv in self.records]
        m.mjcf_map = MjcfMap(m, joints, mm.nq, mm.nv)
        coordinates = {self.joint_names.index(n): (h, du) for n, t, h, dq, du, pq, pv in self.records}
        m.actuators = mjcf_actuators(mm, coordinates, self.note)
        m.mjcf_forces = ()  # (the joints' springs and dampers are the hinges' own now: see the module docstring)
        m.mjcf_unmapped = []
        for what, items in self.unmapped.items():
            shown = ", ".join(repr(s) for s in items[:_LISTED]) + (
                f" and {len(items) - _LISTED} more" if len(items) > _LISTED else "")
            line = f"{what} ({len(items)}): {shown}"
            m.mjcf_unmapped.append(line)
            warnings.warn(f"{self.source}: not modelled by load_mjcf: {line}", MjcfWarning, stacklevel=4)
        return m


def model_from_mjmodel(mm, name="mjcf", source="<MjModel>", contact_softness="auto"):
    """A Multibody from a compiled ``mujoco.MjModel`` (what ``load_mjcf`` does after compiling;
    ``contact_softness`` as there)."""
    check_softness(contact_softness)
    return _Builder(mm, name, source, contact_softness).build()
