"""Procedural generators of large test systems: serial chains and trees of bodies."""
import numpy as np


def _rod_inertia(mass, length):
    i = mass * length**2 / 12.0
    return np.diag([1e-4 * i + 1e-9, i, i])


def serial_chain(mb, name, n_bodies, parent, kind, axis, mass, length, inertia):
    """See ``Multibody.add_serial_chain``."""
    if int(n_bodies) != n_bodies or n_bodies < 1:
        raise ValueError(f"n_bodies must be a positive integer, got {n_bodies!r}")
    if not (np.isfinite(length) and length > 0):
        raise ValueError(f"length must be positive, got {length!r}")
    inertia = _rod_inertia(mass, length) if inertia is None else inertia
    bodies = []
    prev = mb.as_body(parent, "parent")
    # the first hinge sits at the parent's body frame origin, unless the parent is
    # itself a generated rod (then at its tip)
    T_first = np.eye(4)
    if prev.rod_length:
        T_first[0, 3] = prev.rod_length
    for k in range(int(n_bodies)):
        b = mb.add_body(f"{name}{k}", mass=mass, com=(length / 2.0, 0.0, 0.0), inertia=inertia)
        b.rod_length = length
        T = T_first if k == 0 else np.eye(4)
        if k > 0:
            T[0, 3] = length
        mb.add_hinge(prev, b, kind=kind, axis=axis, name=f"{name}{k}_hinge", T_parent_joint=T)
        bodies.append(b)
        prev = b
    return bodies


def tree(mb, name, branch_length, n_branches, depth, parent, kind, axis, mass, length, inertia):
    """See ``Multibody.add_tree``."""
    for v, what in ((branch_length, "branch_length"), (n_branches, "n_branches"), (depth, "depth")):
        if int(v) != v or v < 1:
            raise ValueError(f"{what} must be a positive integer, got {v!r}")
    bodies = []

    def grow(prefix, root, level):
        chain = serial_chain(mb, prefix + "_", branch_length, root, kind, axis, mass, length, inertia)
        bodies.extend(chain)
        if level + 1 < depth:
            for b in range(int(n_branches)):
                grow(f"{prefix}{b}", chain[-1], level + 1)

    grow(name, parent, 0)
    return bodies
