"""Multibody methods for flexible (modal) bodies: adding them, their nodes, their coordinates."""
import numpy as np

from .body import Node
from .modal_body import ModalBody


class ModalMixin:
    """Modal-body part of ``Multibody`` (see ``model/modal_body.py`` for the model)."""

    def add_modal_body(self, name, n_modes=None, mass=0.0, com=(0.0, 0.0, 0.0), inertia=None,
                       modal_mass=None, stiffness=0.0, damping=0.0, S=None, S_rot=None,
                       M1=None, M2=None, modal_data=None, nodes=None):
        """Add a flexible body with ``n_modes`` assumed modes (not yet connected); return it.

        Its modal coordinates eta are the tail of its hinge's q and u slices (see
        ``modal_slice``). Either give the fields (see ``ModalBody``), or ``modal_data`` (a
        ``multibody.flex.ModalData``, e.g. from ``mb.flex.beam_modes``): mass, com, inertia,
        modal mass, stiffness, damping, S and S_rot are then taken from it, and ``nodes``
        ({node name: index of a sampled node}) adds those nodes with their mode shapes.
        """
        if name in self._bodies or name in self._nodes:
            raise ValueError(f"a body or node named {name!r} already exists")
        if modal_data is not None:
            d = modal_data
            n_modes = d.modal_mass.shape[0] if n_modes is None else n_modes
            if n_modes != d.modal_mass.shape[0]:
                raise ValueError(f"modal body {name!r}: n_modes={n_modes} but modal_data has {d.modal_mass.shape[0]} modes")
            b = ModalBody(name, n_modes, d.mass, d.com, d.inertia, d.modal_mass, d.stiffness, d.damping, d.S, d.S_rot,
                          d.M1, d.M2)
        else:
            if n_modes is None:
                raise ValueError(f"modal body {name!r}: give n_modes (or modal_data)")
            b = ModalBody(name, n_modes, mass, com, inertia, modal_mass, stiffness, damping, S, S_rot, M1, M2)
        b.multibody = self
        self._bodies[name] = b
        self.invalidate()
        for node_name, k in (nodes or {}).items():
            if modal_data is None:
                raise ValueError(f"modal body {name!r}: nodes= needs modal_data (the sampled nodes)")
            if not 0 <= int(k) < modal_data.node_positions.shape[0]:
                raise ValueError(f"modal body {name!r}: node {node_name!r} index {k} is not one of the "
                                 f"{modal_data.node_positions.shape[0]} sampled nodes")
            T = np.eye(4)
            T[:3, 3] = modal_data.node_positions[int(k)]
            self.add_node(node_name, b, T, mode_shapes=modal_data.mode_shapes[int(k)])
        return b

    def _add_node(self, name, body, T_body_node, mode_shapes):
        """A Node on ``body``; on a ModalBody it carries (6, n_modes) ``mode_shapes``
        (zero when not given: a node at a point that does not deform)."""
        body = self.as_body(body, "body")
        node = Node(name, body, T_body_node)
        if isinstance(body, ModalBody):
            Pi = np.zeros((6, body.n_modes)) if mode_shapes is None else mode_shapes
            node.mode_shapes = body.check_mode_shapes(name, Pi)
            body.nodes[name] = node
        elif mode_shapes is not None:
            raise ValueError(f"node {name!r}: mode_shapes need a modal body; {body.name!r} is rigid")
        else:
            node.mode_shapes = None
        return node

    def _hinge_attachment(self, parent, T_parent_joint):
        """(parent body, T_parent_joint, parent node or None) of add_hinge's ``parent``: a
        body, a body name, None, or a node (its name) whose frame the hinge o-frame is
        placed in (``T_parent_joint`` then relative to the node); on a modal body the hinge
        follows that node's deformation."""
        node = parent if isinstance(parent, Node) else self._nodes.get(parent) if isinstance(parent, str) else None
        if node is None:
            return self.as_body(parent, "parent"), T_parent_joint, None
        if self._nodes.get(node.name) is not node:
            raise ValueError(f"parent: node {node.name!r} does not belong to this multibody")
        T = node.T_body_node if T_parent_joint is None else node.T_body_node @ np.asarray(T_parent_joint, dtype=float)
        return node.body, T, node

    @property
    def modal_bodies(self):
        """The ModalBody objects of the model, in insertion order."""
        return [b for b in self._bodies.values() if isinstance(b, ModalBody)]

    def modal_slice(self, body):
        """Slice of q (and of u: eta is Euclidean, but q and u offsets differ, see
        ``modal_u_slice``) holding the modal coordinates of ``body``."""
        return self._modal_slices(body)[0]

    def modal_u_slice(self, body):
        """Slice of u holding the modal rates eta' of ``body``."""
        return self._modal_slices(body)[1]

    def _modal_slices(self, body):
        b = self.as_body(body, "body")
        if not isinstance(b, ModalBody):
            raise ValueError(f"body {b.name!r} is not a modal body")
        try:
            return self.compiled.modal_slices[b.name]
        except KeyError:
            raise ValueError(f"modal body {b.name!r} is not connected to the tree (add a hinge)") from None
