"""Which bodies a sub-tree holds: the descendants of its root, restricted to some branches
and cut below some bodies (seed 000's SubTree body set).

Free functions of a Multibody ``m``; every error is a ValueError naming the argument.
"""
from .body import RigidBody


def as_model_body(m, b, what):
    """The RigidBody of ``m`` for ``b`` (a body, its name, or None / "world" for the world);
    ValueError naming ``what`` when it is not a body of ``m``."""
    try:
        return m.as_body(b, what)
    except (KeyError, TypeError):
        raise ValueError(f"{what}: {getattr(b, 'name', b)!r} is not a body of multibody "
                         f"{m.name!r}") from None


def _as_list(bodies):
    """None -> [], one body or name -> [it], else list(bodies)."""
    if bodies is None:
        return []
    if isinstance(bodies, (str, RigidBody)):
        return [bodies]
    return list(bodies)


def descendants(root, within=None):
    """The bodies below ``root`` (root excluded), depth first with the children in the order
    their hinges were added; only through bodies of the set ``within`` when given."""
    out, stack = [], [root]
    while stack:
        b = stack.pop()
        if b is not root:
            out.append(b)
        stack.extend(h.child for h in reversed(b.child_hinges) if within is None or h.child in within)
    return out


def select_bodies(m, root, use_branches=None, stop_at=None, within=None):
    """The body set of a sub-tree of ``m`` rooted at ``root`` (a RigidBody of m).

    * the descendants of ``root`` (root itself excluded: it is the sub-tree's base), only
      through bodies of ``within`` when given (a nested sub-tree stays inside its parent);
    * ``use_branches`` (bodies or names): if given, only the branches that hold one of them:
      each body, its ancestors below root and its descendants;
    * ``stop_at`` (bodies or names): those bodies stay, their descendants are cut off.

    Returns the bodies in the model's topological order (parents first). ValueError naming
    ``use_branches`` / ``stop_at`` for a body that is not below root (in the selection), and
    naming ``root`` when nothing is left.
    """
    below = descendants(root, within)
    keep = set(below)
    branches = [as_model_body(m, b, "use_branches") for b in _as_list(use_branches)]
    if branches:
        chosen = set()
        for b in branches:
            if b not in keep:
                raise ValueError(f"use_branches: body {b.name!r} is not below the root {root.name!r}"
                                 f"{'' if within is None else ' inside the parent sub-tree'}")
            chosen.add(b)
            chosen.update(descendants(b, keep))
            a = b.parent_hinge.parent
            while a is not root:
                chosen.add(a)
                a = a.parent_hinge.parent
        keep = chosen
    stops = [as_model_body(m, b, "stop_at") for b in _as_list(stop_at)]
    for b in stops:
        if b not in keep:
            raise ValueError(f"stop_at: body {b.name!r} is not in the sub-tree (below the root "
                             f"{root.name!r}{' on the chosen branches' if branches else ''})")
    cut = set()
    for b in stops:
        cut.update(descendants(b, keep))
    keep -= cut
    if not keep:
        raise ValueError(f"root: body {root.name!r} has no bodies below it to make a sub-tree of")
    return [b for b in below if b in keep]
