"""Readable dumps of a Multibody's tree (iterative: any depth)."""
import numpy as np

_MAX_INDENT = 24  # tree levels drawn before the indentation is folded into a depth label


def _fmt(v):
    return "(" + ", ".join(f"{x:.4g}" for x in np.asarray(v, dtype=float)) + ")"


def dump_tree(mb):
    """Tree of bodies with their hinges, subhinges, coordinate slices and masses."""
    c = mb.compiled
    lines = [f"Multibody {mb.name!r}: {len(mb.body_names)} bodies, {len(mb.hinges)} hinges, "
             f"nq={c.nq}, nu={c.nu}, mass={mb.total_mass:.6g} kg, gravity={_fmt(mb.gravity)}",
             "world"]
    nodes_of = {}
    for nd in mb.nodes.values():
        nodes_of.setdefault(nd.body.name, []).append(nd)
    stack = [(h, "", i == len(mb.world.child_hinges) - 1)
             for i, h in reversed(list(enumerate(mb.world.child_hinges)))]
    while stack:
        h, prefix, last = stack.pop()
        b = h.child
        qs, us = c.q_slices[h.name], c.u_slices[h.name]
        subs = ", ".join(s.kind + (f" axis={_fmt(s.axis)}" if hasattr(s, "axis") else "")
                         for s in h.subhinges)
        coords = f"q[{qs.start}:{qs.stop}] u[{us.start}:{us.stop}]" if h.nq or h.nu else "no coordinates"
        lines.append(f"{_shown(prefix)}{'└─' if last else '├─'} {b.name}  mass={b.mass:.6g} "
                     f"com={_fmt(b.com)}  <- {h.name} [{subs}] {coords}")
        inner = prefix + ("   " if last else "│  ")
        for nd in nodes_of.get(b.name, ()):
            lines.append(f"{_shown(inner)}  · node {nd.name} at {_fmt(nd.T_body_node[:3, 3])}")
        kids = b.child_hinges
        stack.extend((k, inner, i == len(kids) - 1) for i, k in reversed(list(enumerate(kids))))
    return "\n".join(lines)


def _shown(prefix):
    """The indentation as drawn: deep levels (long chains) fold into '… depth N ', so a line
    stays short and the dump of an N-link chain is O(N), not O(N^2), characters."""
    depth = len(prefix) // 3
    if depth <= _MAX_INDENT:
        return prefix
    return prefix[:3 * (_MAX_INDENT - 4)] + f"… depth {depth} " + prefix[-6:]
