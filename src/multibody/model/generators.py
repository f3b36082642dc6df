"""Procedural generators of large test systems: serial chains and trees of rigid rods or
of flexible (modal) bodies. ``GeneratorsMixin`` gives ``Multibody`` its
``add_serial_chain`` and ``add_tree``."""
import numpy as np

_WELDS = ("locked", "fixed")


def _rod_inertia(mass, length):
    i = mass * length**2 / 12.0
    return np.diag([1e-4 * i + 1e-9, i, i])


def _check_modal(modal_data, tip_node, kind, mass, length, inertia):
    """The tip node's index in ``modal_data`` (checked), or ValueError naming the argument."""
    from ..flex import ModalData
    if not isinstance(modal_data, ModalData):
        raise TypeError(f"modal_data: expected a multibody.flex.ModalData (e.g. from mb.flex.beam_modes), "
                        f"got {type(modal_data).__name__}")
    given = [what for what, v in (("mass", mass), ("length", length), ("inertia", inertia)) if v is not None]
    if given:
        raise ValueError(f"{', '.join(given)}: a chain of modal bodies takes its mass properties and "
                         f"its length (the tip node's position) from modal_data; leave them out")
    k = modal_data.n_nodes
    if isinstance(tip_node, bool) or not isinstance(tip_node, (int, np.integer)) or not -k <= tip_node < k:
        raise ValueError(f"tip_node: expected the index of one of modal_data's {k} sampled nodes "
                         f"(-{k} .. {k - 1}), got {tip_node!r}")
    if kind in _WELDS:
        raise ValueError(f"kind: a {kind!r} hinge cannot hang from a deforming tip node (the welded "
                         f"body would have to deform with it); use a moving hinge kind")
    return int(tip_node) % k


def _attachment(prev, T_first):
    """(parent, T_parent_joint) of a chain's first hinge: the tip node of a generated modal
    body, the tip of a generated rod, else the parent's body frame."""
    if prev.tip_node is not None:
        return prev.tip_node, None
    if prev.rod_length:
        T_first = T_first.copy()
        T_first[0, 3] = prev.rod_length
    return prev, T_first


def serial_chain(mb, name, n_bodies, parent, kind, axis, mass, length, inertia, modal_data=None, tip_node=-1):
    """See ``Multibody.add_serial_chain``."""
    if isinstance(n_bodies, bool) or int(n_bodies) != n_bodies or n_bodies < 1:
        raise ValueError(f"n_bodies must be a positive integer, got {n_bodies!r}")
    if modal_data is not None:
        tip = _check_modal(modal_data, tip_node, kind, mass, length, inertia)
    else:
        mass = 1.0 if mass is None else mass
        length = 1.0 if length is None else length
        if not (np.isfinite(length) and length > 0):
            raise ValueError(f"length must be positive, got {length!r}")
        inertia = _rod_inertia(mass, length) if inertia is None else inertia
    bodies = []
    prev = mb.as_body(parent, "parent")
    attach, T = _attachment(prev, np.eye(4))
    for k in range(int(n_bodies)):
        if modal_data is None:
            b = mb.add_body(f"{name}{k}", mass=mass, com=(length / 2.0, 0.0, 0.0), inertia=inertia)
            b.rod_length = length
        else:
            b = mb.add_modal_body(f"{name}{k}", modal_data=modal_data, nodes={f"{name}{k}_tip": tip})
            b.tip_node = b.nodes[f"{name}{k}_tip"]
        mb.add_hinge(attach, b, kind=kind, axis=axis, name=f"{name}{k}_hinge", T_parent_joint=T)
        bodies.append(b)
        attach, T = _attachment(b, np.eye(4))
    return bodies


def tree(mb, name, branch_length, n_branches, depth, parent, kind, axis, mass, length, inertia, modal_data=None,
         tip_node=-1):
    """See ``Multibody.add_tree``."""
    for v, what in ((branch_length, "branch_length"), (n_branches, "n_branches"), (depth, "depth")):
        if isinstance(v, bool) or int(v) != v or v < 1:
            raise ValueError(f"{what} must be a positive integer, got {v!r}")
    bodies = []

    def grow(prefix, root, level):
        chain = serial_chain(mb, prefix + "_", branch_length, root, kind, axis, mass, length, inertia,
                             modal_data, tip_node)
        bodies.extend(chain)
        if level + 1 < depth:
            for b in range(int(n_branches)):
                grow(f"{prefix}{b}", chain[-1], level + 1)

    grow(name, parent, 0)
    return bodies


class GeneratorsMixin:
    """``add_serial_chain`` and ``add_tree`` of ``Multibody``."""

    def add_serial_chain(self, name, n_bodies, parent=None, kind="pin", axis=(0.0, 1.0, 0.0),
                         mass=None, length=None, inertia=None, modal_data=None, tip_node=-1):
        """Append a chain of ``n_bodies`` identical bodies to ``parent``; return the bodies.

        Body k is ``f"{name}{k}"``, hinge k ``f"{name}{k}_hinge"``. Used to generate large
        test systems procedurally.

        Rigid (``modal_data=None``): each body is a uniform rod of ``mass`` [kg] (1 by
        default) and ``length`` [m] (1 by default) along its x axis (centre of mass at
        x = length/2, inertia of a thin rod unless ``inertia`` is given); each hinge sits at
        the tip (x = length) of the previous body.

        Flexible: each body is a modal body made from ``modal_data`` (a
        ``multibody.flex.ModalData``, e.g. ``mb.flex.beam_modes(...)``: mass properties,
        modes, stiffness, damping), with one node ``f"{name}{k}_tip"`` at the sampled node
        ``tip_node`` (an index into ``modal_data.node_positions``; the last by default, the
        tip of a beam from ``beam_modes``) carrying its mode shapes. Each hinge hangs from
        the previous body's tip node, so the deformation of one body moves all that follow.
        ``mass``, ``length`` and ``inertia`` must then be left out. Cantilever modes alone
        carry no moment or shear at the tip, where the next body loads it: for a chain that
        should bend as one beam, make the data with ``beam_modes(..., static_modes=True)``.

        The first hinge sits at ``parent``'s body frame, or, when ``parent`` was itself
        made by a generator, at its tip (the rod's tip, or the modal body's tip node).
        """
        return serial_chain(self, name, n_bodies, parent, kind, axis, mass, length, inertia, modal_data, tip_node)

    def add_tree(self, name, branch_length, n_branches, depth, parent=None, kind="pin",
                 axis=(0.0, 1.0, 0.0), mass=None, length=None, inertia=None, modal_data=None, tip_node=-1):
        """Append a tree of serial branches to ``parent``; return the bodies.

        The tree has ``depth`` levels; each branch is a chain of ``branch_length`` bodies
        (as ``add_serial_chain``, rigid rods or, with ``modal_data``, modal bodies) and the
        tip of every branch not at the last level carries ``n_branches`` child branches.
        """
        return tree(self, name, branch_length, n_branches, depth, parent, kind, axis, mass, length, inertia,
                    modal_data, tip_node)
