"""Aggregation sub-graphs: the bodies that constraint embedding merges into one compound body.

For a set of bilateral constraints, the **aggregation sub-graph** (Jain, "Multibody graph
transformations and analysis", Nonlinear Dynamics 2012) is the smallest set of bodies that
holds every constrained body and is *path-induced*: with each body it holds the spanning-tree
path from it up to one common parent body P (the compound body's parent, possibly the world),
so that, the constraints ignored, its bodies form sub-trees hanging from P. Constraint
embedding treats it as one compound body joined to P by a compound hinge whose speeds are the
aggregation's independent speeds (``multibody.algorithms.constraint_embedding``).

The bodies of one constraint are those of ``Multibody.loop_bodies`` for a loop or convel
constraint (the path between its nodes' bodies, their common ancestor excluded) and, for a
coordinate constraint, the children of its two hinges and the path between them. Enabled
constraints whose bodies overlap the set are merged in until none is left (overlapping loops
make one compound body); two loops that only share the parent P stay apart.

This module holds the topology, the ``AggregationSubGraph`` record and the checks of the
constraints and aggregations a user passes; the choice of
independent coordinates (a pivoted QR of the constraint Jacobian) is an algorithm and lives
in ``multibody.algorithms.constraint_embedding``.
"""
import numpy as np


def _chain(b, world):
    """[b, parent of b, ..., world]."""
    out = [b]
    while b is not world:
        b = b.parent_hinge.parent
        out.append(b)
    return out


def common_ancestor(bodies, world):
    """The deepest body that is an ancestor of (or equal to) each of ``bodies`` (the world at worst)."""
    bodies = list(bodies)
    if not bodies:
        return world
    others = [set(_chain(b, world)) for b in bodies[1:]]
    for a in _chain(bodies[0], world):
        if all(a in s for s in others):
            return a
    return world


def path_closure(bodies, world):
    """(closed set, parent P): P is the common ancestor of the bodies' parents, and the closed
    set adds every body on the path from each body up to P (P excluded)."""
    bodies = {b for b in bodies if b is not world}
    if not bodies:
        raise ValueError("an aggregation needs at least one body besides the world")
    parent = common_ancestor([b.parent_hinge.parent for b in bodies], world)
    closed = set()
    for b in bodies:
        while b is not parent:
            closed.add(b)
            b = b.parent_hinge.parent
    return closed, parent


def constraint_bodies(m, con):
    """The bodies of one constraint's loop (see the module docstring), the world left out."""
    if con.category == "coordinate":
        ends = [con.hinge_a.child, con.hinge_b.child]
        return path_closure(ends, m.world)[0]
    return set(m.loop_bodies(con))


def grow(m, constraints, candidates):
    """Merge into ``constraints`` every constraint of ``candidates`` whose bodies overlap theirs,
    until none is left. Returns (constraints, closed body set, parent body)."""
    chosen = list(constraints)
    sets = {c.name: constraint_bodies(m, c) for c in list(chosen) + list(candidates)}
    bodies, parent = path_closure(set().union(*(sets[c.name] for c in chosen)), m.world)
    changed = True
    while changed:
        changed = False
        for c in candidates:
            if c not in chosen and sets[c.name] & bodies:
                chosen.append(c)
                bodies, parent = path_closure(bodies | sets[c.name], m.world)
                changed = True
    return chosen, bodies, parent


def connected_groups(m, constraints):
    """Split ``constraints`` into groups whose body sets do not overlap (one compound body each):
    a list of (constraints, bodies, parent) in the order of their first constraint."""
    left = list(constraints)
    groups = []
    while left:
        chosen, bodies, parent = grow(m, [left[0]], left[1:])
        groups.append((chosen, bodies, parent))
        left = [c for c in left if c not in chosen]
    return groups


class AggregationSubGraph:
    """One compound body of constraint embedding: a path-induced set of bodies and the enabled
    constraints among them, with a split of their speeds into independent and dependent ones.

    Make it with ``Multibody.aggregation_sub_graph``. Attributes:

    * ``name``; ``multibody`` the model it was made for;
    * ``bodies`` (topological order) and ``hinges`` (their parent hinges, in the same order);
      ``parent`` the body (or the world) the compound body hangs from;
    * ``constraints`` in residual-row order (hinge loops, convel, coordinate);
    * ``u_indices`` (n_u,) the entries of u the hinges own (sorted), ``independent`` the
      minimal coordinates kept by the embedding and ``dependent`` the complementary ones
      (u_d = -G_d^-1 G_i u_i), both sorted global u indices;
    * ``rank``: the number of independent constraint rows (= number of dependent speeds).
    """

    def __init__(self, m, name, bodies, parent, constraints, u_indices, independent, rank,
                 with_velocity_constraints=True):
        self.multibody = m
        self.name = name
        self.bodies = list(bodies)
        self.hinges = [b.parent_hinge for b in self.bodies]
        self.parent = parent
        self.constraints = list(constraints)
        self.u_indices = np.asarray(u_indices, dtype=int)
        self.independent = np.sort(np.asarray(independent, dtype=int))
        self.dependent = np.setdiff1d(self.u_indices, self.independent)
        self.rank = int(rank)
        self.with_velocity_constraints = bool(with_velocity_constraints)

    @property
    def n_independent(self):
        """Number of independent (minimal) speeds of the compound body."""
        return int(self.independent.size)

    @property
    def complementary_indices(self):
        """The dependent u indices: ``u_indices`` without ``independent`` (sorted)."""
        return self.dependent

    @property
    def body_names(self):
        """Names of ``bodies``."""
        return [b.name for b in self.bodies]

    @property
    def constraint_names(self):
        """Names of ``constraints``."""
        return [c.name for c in self.constraints]

    def local(self, indices):
        """Positions of the global u ``indices`` within ``u_indices``."""
        return np.searchsorted(self.u_indices, indices)

    def __repr__(self):
        return (f"AggregationSubGraph({self.name!r}, bodies={self.body_names}, constraints="
                f"{self.constraint_names}, independent={self.independent.tolist()})")


def resolve_constraints(m, constraints):
    """The enabled constraints named by ``constraints`` (objects or names, or one of them), without
    repeats, in the order given; ValueError naming an empty list, an unknown or a disabled one."""
    if isinstance(constraints, str) or not hasattr(constraints, "__iter__"):
        constraints = [constraints]
    table = m.constraints
    out = []
    for x in constraints:
        name = x if isinstance(x, str) else getattr(x, "name", None)
        con = table.get(name) if isinstance(name, str) else None
        if con is None or not (isinstance(x, str) or con is x):
            raise ValueError(f"constraints: {x!r} is not a constraint of this multibody "
                             f"(its constraints: {sorted(table)})")
        if not con.enabled:
            raise ValueError(f"constraints: {name!r} is disabled; only enabled constraints are embedded")
        if con not in out:
            out.append(con)
    if not out:
        raise ValueError("constraints: the list is empty; an aggregation needs at least one constraint")
    return out


def check_aggregations(m, aggregations):
    """``aggregations`` (one AggregationSubGraph or a list) as a list, checked: made for m as it is,
    no constraint or body in two of them, every enabled constraint in one (ValueError naming them)."""
    if isinstance(aggregations, AggregationSubGraph):
        aggregations = [aggregations]
    aggs, owner, bodies = list(aggregations), {}, {}
    c = m.compiled
    for a in aggs:
        if not isinstance(a, AggregationSubGraph) or a.multibody is not m:
            raise ValueError(f"aggregations: {a!r} is not an aggregation sub-graph of this multibody")
        slices = [c.u_slices.get(h.name) for h in a.hinges]
        u_now = None if None in slices else sorted(i for s in slices for i in range(s.start, s.stop))
        if u_now != a.u_indices.tolist() or any(not con.enabled for con in a.constraints):
            raise ValueError(f"aggregations: {a.name!r} was made before the model or its enabled "
                             f"constraints changed; make it again")
        for con in a.constraints:
            if con.name in owner:
                raise ValueError(f"aggregations: constraint {con.name!r} is in both {owner[con.name]!r} "
                                 f"and {a.name!r}")
            owner[con.name] = a.name
        for b in a.bodies:
            if b.name in bodies:
                raise ValueError(f"aggregations: body {b.name!r} is in both {bodies[b.name]!r} and {a.name!r}")
            bodies[b.name] = a.name
    left = [con.name for con in m.enabled_constraints if con.name not in owner]
    if left:
        raise ValueError(f"aggregations: the enabled constraints {left} are in no aggregation; "
                         f"embedding needs every enabled constraint in one")
    return aggs
