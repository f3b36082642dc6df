"""A sub-tree as a Multibody of its own: the derived model every sub-tree algorithm runs on.

The derived model holds copies of the sub-tree's bodies, hinges (with their subhinges),
nodes and (for a sub-graph) enabled constraints. Its base (its "world") is the sub-tree's
root body frame: the hinges that hang from the root keep their T_parent_joint, the nodes
on the root become nodes on the base, and the root's own frame is a node of its name
there. The root and every body outside the sub-tree are frozen (at rest), so the root
frame is inertial and the derived model's dynamics is the full model's restricted to the
sub-tree's coordinates, the others locked: the O(N) kernels run unchanged on it.

The root's world pose T_world_root (read from the full q) enters only through gravity,
g_root = R_world_root^T g, which the derived model takes in place (no recompilation: any
root pose costs the same). World-frame outputs (poses, world Jacobians, centre of mass,
potential energy) are mapped back with T_world_root. A sub-tree of the whole tree (root =
world) has T_world_root = I. Its coordinates are the full model's ``q_index`` /
``u_index`` entries, in its own (topological) order.
"""
import copy
import warnings

import numpy as np

from .multibody import Multibody

_INF = np.inf


def _copy_subhinge(s):
    """A copy of subhinge ``s`` (its arrays copied too), not yet in a hinge."""
    t = copy.copy(s)
    for k, v in vars(s).items():
        if isinstance(v, np.ndarray):
            setattr(t, k, v.copy())
    t.hinge = None
    return t


def _copy_hinge_data(h, h2):
    """Copy the parameters of hinge ``h`` other than its frames onto its copy ``h2``."""
    h2.kind = h.kind
    h2.armature = h.armature
    h2.set_limits(h.lower, h.upper)
    h2.effort, h2.velocity = h.effort, h.velocity
    h2.damping, h2.friction = h.damping, h.friction
    h2.spring_stiffness, h2.spring_reference = h.spring_stiffness, h.spring_reference
    h2.mimic = None if h.mimic is None else dict(h.mimic)


def _frame_name(frame, root, moving_root):
    """The derived model's name of a constraint frame (a Node or a body of the full model):
    the root body's own frame is the node of its name on the derived world."""
    if frame is root and not moving_root:
        return "world"
    return frame.name


def _indices(slices, hinge_names):
    """The entries of the full vector owned by ``hinge_names``, in that order (int array)."""
    parts = [np.arange(slices[h].start, slices[h].stop) for h in hinge_names]
    return np.concatenate(parts).astype(np.intp) if parts else np.zeros(0, dtype=np.intp)


class DerivedModel:
    """The derived Multibody of a sub-tree (see the module docstring) and its index maps.

    ``model`` (the Multibody), ``source`` (the full model's CompiledModel it was made
    from), ``q_index`` / ``u_index`` (int arrays: entry k of the derived q / u is entry
    ``q_index[k]`` / ``u_index[k]`` of the full one), ``T_root`` (4, 4) the root pose it
    was last placed at, ``moving_root`` (False when the root is the world).
    """

    def __init__(self, m, name, root, bodies, hinges, constraints=()):
        self.source = m.compiled
        self.root = root
        self._c = None
        d = self.model = Multibody(f"{m.name}/{name}", gravity=m.gravity)
        self.moving_root = root is not m.world
        with warnings.catch_warnings():  # the full model warned about its bodies already
            warnings.simplefilter("ignore", UserWarning)
            for b in bodies:
                d.add_body(b.name, b.mass, b.com, b.inertia).rod_length = b.rod_length
        self._originals = {}
        for h in hinges:
            subs = [_copy_subhinge(s) for s in h.subhinges]
            h2 = d.add_hinge(None if h.parent is root else h.parent.name, h.child.name, name=h.name,
                             subhinges=subs, T_parent_joint=h.T_parent_joint, T_child_joint=h.T_child_joint)
            _copy_hinge_data(h, h2)
            self._originals.update(zip(subs, h.subhinges))
        inside = set(bodies)
        for nname, nd in m.nodes.items():
            if nd.body in inside:
                d.add_node(nname, nd.body.name, nd.T_body_node)
            elif nd.body is root:
                d.add_node(nname, None, nd.T_body_node)
        if self.moving_root:  # the root's own frame, for poses and constraints on it
            d.add_node(root.name, None)
        for c in constraints:
            self._add_constraint(c)
        order = [h.name for h in d.topological_hinges()]  # the derived coordinate order
        self.q_index = _indices(self.source.q_slices, order)
        self.u_index = _indices(self.source.u_slices, order)
        self.T_root = np.eye(4)
        self.charts_enabled = True
        self.version = 0  # the owner's count of constraint changes it was made at
        self._g_root = m.gravity.tolist()
        self._originals_by_name = {h.name: h for h in hinges}

    def _add_constraint(self, c):
        d = self.model
        if c.category == "coordinate":
            d.add_coordinate_constraint(c.name, c.hinge_a.name, c.hinge_b.name, c.ratio, c.offset)
            return
        a = _frame_name(c.node_a, self.root, self.moving_root)
        b = _frame_name(c.node_b, self.root, self.moving_root)
        if c.category == "convel":
            d.add_convel_constraint(c.name, a, b, c.axis)
        else:
            d.add_loop_constraint(c.name, a, b, c.kind, axis=c.axis, axes=c.axes, pitch=c.pitch)

    # ------------------------------------------------------------------ placing, compiling
    def place(self, T_world_root, g_world):
        """Put the root at T_world_root (4, 4) under world gravity ``g_world`` (3,): the derived
        model takes g in root axes, in place when it changed. Returns its CompiledModel."""
        self.T_root = T_world_root
        g = (T_world_root[:3, :3].T @ g_world).tolist() if self.moving_root else g_world.tolist()
        if g != self._g_root:
            self.model.gravity = g
            self._g_root = g
        return self.compiled()

    def compiled(self):
        """The derived model's CompiledModel (its chart maps and flags set up after any change)."""
        c = self.model.compiled
        if c is not self._c:
            self._setup(c)
        return c

    def _setup(self, c):
        src = self.source
        full_link = {id(s): j for j, s in enumerate(src.link_subhinges)}
        pairs = [(j, full_link[id(self._originals[s])]) for j, s in enumerate(c.link_subhinges)
                 if s.kind_info.chart]
        self.chart_links = np.array([p[0] for p in pairs], dtype=np.intp)
        self.full_chart_links = np.array([p[1] for p in pairs], dtype=np.intp)
        self._chart_angles = c.max_chart_angles[self.chart_links].copy()
        self._c = c
        self._apply_chart_flag(c)

    def _apply_chart_flag(self, c):
        # The compiled per-link table that sanitize and simulate read: +inf never re-centres
        # (the kernels need no change; the derived model is private to its sub-tree).
        c.max_chart_angles[self.chart_links] = self._chart_angles if self.charts_enabled else _INF

    def set_charts(self, enabled):
        """Re-centre the rotation-vector charts (True) or never (False)."""
        self.charts_enabled = bool(enabled)
        if self._c is not None:
            self._apply_chart_flag(self._c)

    # ------------------------------------------------------------------ world frame
    def to_world(self, T_root_frame):
        """T_world_frame (4, 4) of a derived pose T_root_frame."""
        return self.T_root @ T_root_frame if self.moving_root else T_root_frame

    def point_to_world(self, p):
        """A point (3,) given in root coordinates, in world coordinates."""
        return self.T_root[:3, :3] @ p + self.T_root[:3, 3] if self.moving_root else p

    # ------------------------------------------------------------------ state exchange
    def charts_from(self, full_data):
        """Copy the chart offsets of the full model's Data into the derived thread's Data
        (q of spherical/free subhinges is relative to them); returns the derived Data."""
        dd = self.model.compiled.thread_data()
        if self.chart_links.size:
            dd.chart_offsets[self.chart_links] = full_data.chart_offsets[self.full_chart_links]
        return dd

    def charts_to(self, full_data, store):
        """Copy the derived thread's chart offsets back into the full model's Data, and into
        the full model's subhinge objects when ``store`` (its default Data's charts live there)."""
        if not self.chart_links.size:
            return
        offsets = self.model.compiled.thread_data().chart_offsets[self.chart_links]
        full_data.chart_offsets[self.full_chart_links] = offsets
        if store:
            links = self.source.link_subhinges
            for j, off in zip(self.full_chart_links, offsets):
                links[j].chart_offset = off.copy()

    def sync_limits(self):
        """Copy the full model's hinge limits (read when used, never compiled) onto the copies."""
        for h2 in self.model.hinges:
            h = self._originals_by_name[h2.name]
            h2.set_limits(h.lower, h.upper)
