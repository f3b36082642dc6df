"""Ready-made explicit constraints for a ``Multibody``: locked hinge, mimic, relative pose.

All three are :class:`~multibody.planning.explicit_constraint.ExplicitConstraint`
objects on the multibody's :func:`~multibody.planning.liegroup.configuration_space`
(pass ``space=`` to reuse one you already built):

- :class:`LockedHinge`: ``q_hinge = neutral ⊕ rhs`` (for 1-dof and other vector
  hinges simply ``q_hinge = rhs``); ``value=`` sets the initial rhs;
- :class:`Mimic`: ``q_follower = multiplier * q_leader + offset`` (URDF ``<mimic>``);
  :func:`mimic_constraints` builds one per mimic joint found in a loaded URDF;
- :class:`RelativePose`: the pose of a free-floating body (free / free_quat hinge)
  given by another body's (or node's) pose times a fixed transform, as an object
  held by a gripper: ``T_world_body = T_world_ref T_ref_body exp(rhs)`` (rhs in the
  body's hinge p-frame).

Each has an implicit (error-function) form ``h(q) = rhs``; for :class:`RelativePose`
it is computed independently from the multibody's own kinematics
(``body_pose`` / ``body_jacobian``) by :meth:`RelativePose.implicit_function`.
"""

from __future__ import annotations

import numpy as np

from ..spatial import fast
from .explicit_constraint import Equality, EqualToZero, ExplicitConstraint
from .functions import AffineFunction, ConstantFunction, DifferentiableFunction
from .multibody_space import configuration_space
from .rigid_factors import SE3
from .space import LiegroupSpace

__all__ = ["LockedHinge", "Mimic", "RelativePose", "RelativePoseError", "mimic_constraints"]


def _space_of(multibody, space) -> LiegroupSpace:
    if space is None:
        return configuration_space(multibody)
    if not isinstance(space, LiegroupSpace):
        raise ValueError(f"space must be a LiegroupSpace or None, got {space!r}")
    if space.nq != multibody.nq or space.nv != multibody.nu:
        raise ValueError(f"space has nq={space.nq}, nv={space.nv} but the multibody has "
                         f"nq={multibody.nq}, nu={multibody.nu}")
    return space


def _hinge_q(multibody, hinge: str, argname: str) -> np.ndarray:
    if not isinstance(hinge, str):
        raise ValueError(f"{argname} must be a hinge name, got {hinge!r}")
    s = multibody.q_slice(hinge)  # KeyError with suggestions if unknown
    return np.arange(s.start, s.stop)


class LockedHinge(ExplicitConstraint):
    """Lock a hinge: ``q_hinge = neutral ⊕ rhs`` (``= rhs`` for pin/slider/screw hinges).

    Parameters
    ----------
    multibody
        The ``Multibody``.
    hinge
        Name of the hinge to lock (must have coordinates).
    value
        Configuration the hinge is locked at, shape (hinge nq,); default its neutral
        configuration. Stored as the initial ``rhs = value ⊖ neutral``.
    comparison
        Per component (hinge nu) or one for all; default ``Equality``.
    space
        The multibody's configuration space, if already built.
    """

    def __init__(self, multibody, hinge: str, value=None, comparison=Equality, space=None):
        space = _space_of(multibody, space)
        out_q = _hinge_q(multibody, hinge, "hinge")
        if out_q.size == 0:
            raise ValueError(f"hinge {hinge!r} has no coordinates to lock")
        out_space = space.select(out_q, "hinge")[0]
        fn = ConstantFunction(LiegroupSpace(), out_space, name=f"locked({hinge})")
        neutral = out_space.neutral()
        if value is None:
            rhs = np.zeros(out_space.nv)
        else:
            value = out_space.check_q(np.atleast_1d(np.asarray(value, dtype=float)), "value")
            rhs = out_space.difference(neutral, value)
        self.hinge = hinge
        super().__init__(space, fn, [], out_q, comparison=comparison,
                         name=f"locked({hinge})", rhs=rhs)


class Mimic(ExplicitConstraint):
    """``q_follower = multiplier * q_leader + offset``: the URDF ``<mimic>`` joint.

    Both hinges must be vector-space hinges (pin, slider, screw, translational, ...)
    with the same number of coordinates; ``multiplier`` and ``offset`` are scalars or
    arrays of that size. Right-hand side components default to ``EqualToZero``
    (the relation is fixed); pass ``comparison=Equality`` to shift it by ``rhs``.
    """

    def __init__(self, multibody, follower: str, leader: str, multiplier=1.0, offset=0.0,
                 comparison=EqualToZero, space=None):
        space = _space_of(multibody, space)
        out_q = _hinge_q(multibody, follower, "follower")
        in_q = _hinge_q(multibody, leader, "leader")
        if follower == leader:
            raise ValueError(f"a hinge cannot mimic itself ({follower!r})")
        out_space = space.select(out_q, "follower")[0]
        in_space = space.select(in_q, "leader")[0]
        if not (out_space.is_vector_space and in_space.is_vector_space):
            raise ValueError(f"mimic needs vector-space hinges; {follower!r} is {out_space}, "
                             f"{leader!r} is {in_space}")
        if out_space.nq != in_space.nq or out_space.nq == 0:
            raise ValueError(f"mimic hinges must have the same (non-zero) number of "
                             f"coordinates: {follower!r} has {out_space.nq}, {leader!r} has "
                             f"{in_space.nq}")
        n = out_space.nq
        a = np.broadcast_to(np.asarray(multiplier, dtype=float), (n,))
        b = np.broadcast_to(np.asarray(offset, dtype=float), (n,))
        self.follower, self.leader = follower, leader
        self.multiplier, self.offset = a.copy(), b.copy()
        fn = AffineFunction(np.diag(a), b, name=f"mimic({follower}<-{leader})")
        super().__init__(space, fn, in_q, out_q, comparison=comparison, name=fn.name)


def mimic_constraints(multibody, space=None) -> list[Mimic]:
    """One :class:`Mimic` per hinge carrying URDF mimic data (``hinge.mimic`` dict with
    ``joint``, ``multiplier``, ``offset``), in hinge order."""
    space = _space_of(multibody, space)
    out = []
    for h in multibody.hinges:
        info = getattr(h, "mimic", None)
        if info:
            out.append(Mimic(multibody, h.name, info["joint"], info.get("multiplier", 1.0),
                             info.get("offset", 0.0), space=space))
    return out


# ------------------------------------------------------------------ relative pose

def _frame_body(multibody, frame: str):
    """The body a body-or-node name is fixed on."""
    try:
        return multibody.body(frame)
    except KeyError:
        pass
    try:
        return multibody.node(frame).body
    except (KeyError, AttributeError):
        raise KeyError(f"unknown body or node {frame!r}; bodies: {multibody.body_names}") from None


def _ancestor_hinges(body) -> list:
    out = []
    while body is not None and getattr(body, "parent_hinge", None) is not None:
        h = body.parent_hinge
        out.append(h)
        body = h.parent
    return out


def _is_world(body) -> bool:
    return body is None or getattr(body, "parent_hinge", None) is None


def _transform(t, argname: str) -> np.ndarray:
    t = np.eye(4) if t is None else np.asarray(t, dtype=float)
    if t.shape != (4, 4) or not np.all(np.isfinite(t)):
        raise ValueError(f"{argname} must be a finite (4, 4) homogeneous transform")
    r = t[:3, :3]
    if np.abs(r.T @ r - np.eye(3)).max() > 1e-8 or np.abs(t[3] - (0, 0, 0, 1)).max() > 1e-12:
        raise ValueError(f"{argname} must be a rigid transform (orthonormal rotation, last row "
                         f"[0, 0, 0, 1])")
    return t.copy()


class _RelativePoseFunction(DifferentiableFunction):
    """f(q_in) = coordinates of ``T_o_p = (T_w_parent T_pj)^-1 T_w_ref T_ref_body T_cj``.

    Built from the public attributes of a :class:`RelativePose` (set before the
    constraint's own ``__init__`` runs); ``space`` is the whole configuration space.
    """

    def __init__(self, rp: "RelativePose", space, input_space, output_space):
        super().__init__(input_space, output_space, name=rp.name)
        self.rp = rp
        self._q_template = space.neutral()
        self._t_rb_cj = rp.T_ref_body @ rp.T_child_joint
        self._ad_rb_cj_inv = fast.motion_transform_inverse(self._t_rb_cj)
        self._ad_pj_inv = fast.motion_transform_inverse(rp.T_parent_joint)

    def _full_q(self, x):
        q = self._q_template.copy()
        q[self.rp.input_q] = x
        return q

    def _poses(self, q):
        rp = self.rp
        m = rp.multibody
        a = rp.T_parent_joint if rp.parent_body is None else \
            m.body_pose(q, rp.parent_body) @ rp.T_parent_joint
        b = m.body_pose(q, rp.reference) @ self._t_rb_cj
        return a, b

    def _value(self, x):
        a, b = self._poses(self._full_q(x))
        return self.output_space.factors[0].from_matrix(fast.transform_inverse(a) @ b)

    def _jacobian(self, x):
        rp = self.rp
        m = rp.multibody
        q = self._full_q(x)
        a, b = self._poses(q)
        t_op = fast.transform_inverse(a) @ b
        xi = self._ad_rb_cj_inv @ m.body_jacobian(q, rp.reference)
        if rp.parent_body is not None:
            xi_a = self._ad_pj_inv @ m.body_jacobian(q, rp.parent_body)
            xi = xi - fast.motion_transform_inverse(t_op) @ xi_a
        return xi[:, rp.input_v]


class RelativePose(ExplicitConstraint):
    """A free-floating body's pose given by a reference frame's pose times a fixed transform.

    ``T_world_body(q) = T_world_ref(q) @ T_ref_body @ exp(rhs')``: the body (on a
    ``free`` or ``free_quat`` hinge) follows the reference body or node, e.g. an
    object held by a gripper. The outputs are the body's hinge coordinates, the inputs
    the coordinates of every hinge that moves the reference frame or the body's hinge
    parent. ``rhs`` (6,) is the twist ``[omega; v]`` of the body's hinge p-frame; with
    the default ``T_child_joint = I`` it is the body-frame offset
    ``log((T_world_ref T_ref_body)^-1 T_world_body)``.

    Parameters
    ----------
    multibody
        The ``Multibody``.
    body
        Name of the free-floating body (its parent hinge must be free or free_quat).
    reference
        Name of the reference body or node (e.g. the gripper frame).
    T_ref_body
        (4, 4) fixed pose of ``body`` in the reference frame (default identity). Use
        :meth:`ExplicitConstraintSet.right_hand_side_from_input` to grasp "where it is".
    comparison
        Per component ([omega; v], 6) or one for all; default ``Equality``.
    space
        The multibody's configuration space, if already built.

    Attributes (besides those of :class:`ExplicitConstraint`): ``multibody``, ``body``,
    ``reference``, ``T_ref_body`` (4, 4), ``hinge`` (the body's hinge name),
    ``parent_body`` (name of the body the hinge hangs from, ``None`` for the world),
    ``T_parent_joint`` / ``T_child_joint`` (4, 4): the hinge's o-frame in the parent
    body and p-frame in the child body.
    """

    def __init__(self, multibody, body: str, reference: str, T_ref_body=None,
                 comparison=Equality, space=None):
        space = _space_of(multibody, space)
        self.multibody = multibody
        self.body = body
        self.reference = reference
        self.T_ref_body = _transform(T_ref_body, "T_ref_body")
        body_obj = _frame_body(multibody, body)
        try:
            multibody.body(body)
        except KeyError:
            raise KeyError(f"body {body!r} must be a body (not a node) with a free hinge") from None
        ref_body = _frame_body(multibody, reference)
        hinge = body_obj.parent_hinge
        if hinge is None:
            raise ValueError(f"body {body!r} has no parent hinge")
        moving = [s for s in hinge.subhinges if s.kind_info.nq > 0]
        if len(moving) != 1 or not moving[0].kind_info.free:
            raise ValueError(f"body {body!r}: its hinge {hinge.name!r} must be a single free or "
                             f"free_quat subhinge, got {[s.kind for s in hinge.subhinges]}")
        ref_chain = _ancestor_hinges(ref_body)
        if any(h is hinge for h in ref_chain) or ref_body is body_obj:
            raise ValueError(f"reference {reference!r} moves with body {body!r} (the body's "
                             f"hinge {hinge.name!r} is one of its ancestors): not explicit")
        self.parent_body = None if _is_world(hinge.parent) else hinge.parent.name
        chain = ref_chain + ([] if self.parent_body is None else _ancestor_hinges(hinge.parent))
        in_hinges = sorted({h.name for h in chain},
                           key=lambda n: multibody.q_slice(n).start)
        in_q = np.concatenate([np.arange(multibody.q_slice(n).start, multibody.q_slice(n).stop)
                               for n in in_hinges]) if in_hinges else np.zeros(0, np.int64)
        out_q = _hinge_q(multibody, hinge.name, "body")
        self.hinge = hinge.name
        self.T_parent_joint = np.asarray(getattr(hinge, "T_parent_joint", np.eye(4)), dtype=float)
        self.T_child_joint = np.asarray(getattr(hinge, "T_child_joint", np.eye(4)), dtype=float)
        in_space, self.input_q, self.input_v = space.select(in_q, "input")
        out_space, _, _ = space.select(out_q, "body")
        if not isinstance(out_space.factors[0], SE3):
            raise ValueError(f"body {body!r}: hinge space is {out_space}, expected SE(3)")
        # the function reads input_q / input_v / name: set before super().__init__
        self.name = f"relative_pose({body}|{reference})"
        fn = _RelativePoseFunction(self, space, in_space, out_space)
        super().__init__(space, fn, in_q, out_q, comparison=comparison, name=self.name)

    def implicit_function(self) -> "RelativePoseError":
        """The error function computed from the multibody's kinematics (see
        :class:`RelativePoseError`); it equals the generic ``g(q_out) ⊖ f(q_in)``."""
        return RelativePoseError(self)


class RelativePoseError(DifferentiableFunction):
    """Implicit form of a :class:`RelativePose`, from ``body_pose`` / ``body_jacobian``.

    ``h(q) = Ad(T_cj^-1) log((T_world_ref T_ref_body)^-1 T_world_body)`` (6,), the pose
    error of the body in its hinge p-frame (``T_cj``: the hinge's ``T_child_joint``,
    usually identity). ``h(q) = rhs`` on the constraint. Jacobian (6, nu):
    ``Ad(T_cj^-1) Jr^-1(e) (J_body - Ad(X^-1) Ad(T_ref_body^-1) J_ref)``.
    """

    def __init__(self, rp: RelativePose):
        super().__init__(rp.space, LiegroupSpace.Rn(6), name=f"error({rp.name})")
        self.rp = rp
        self._ad_cj_inv = fast.motion_transform_inverse(rp.T_child_joint)
        self._ad_rb_inv = fast.motion_transform_inverse(rp.T_ref_body)

    def _x(self, q):
        rp = self.rp
        m = rp.multibody
        target = m.body_pose(q, rp.reference) @ rp.T_ref_body
        return fast.transform_inverse(target) @ m.body_pose(q, rp.body)

    def _value(self, q):
        return self._ad_cj_inv @ fast.se3_log(self._x(q))

    def _jacobian(self, q):
        rp = self.rp
        m = rp.multibody
        x = self._x(q)
        j_ref = self._ad_rb_inv @ m.body_jacobian(q, rp.reference)
        j = m.body_jacobian(q, rp.body) - fast.motion_transform_inverse(x) @ j_ref
        return self._ad_cj_inv @ fast.se3_right_jacobian_inv(fast.se3_log(x)) @ j
