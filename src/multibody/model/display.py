"""Readable dumps of a Multibody's tree."""
import numpy as np


def _fmt(v):
    return "(" + ", ".join(f"{x:.4g}" for x in np.asarray(v, dtype=float)) + ")"


def dump_tree(mb):
    """Tree of bodies with their hinges, subhinges, coordinate slices and masses."""
    c = mb.compiled
    lines = [f"Multibody {mb.name!r}: {len(mb._bodies) - 1} bodies, {len(mb._hinges)} hinges, "
             f"nq={c.nq}, nu={c.nu}, mass={mb.total_mass:.6g} kg, gravity={_fmt(mb.gravity)}",
             "world"]

    def walk(body, prefix):
        kids = body.child_hinges
        for n, h in enumerate(kids):
            last = n == len(kids) - 1
            b = h.child
            qs, us = c.q_slices[h.name], c.u_slices[h.name]
            subs = ", ".join(s.kind + (f" axis={_fmt(s.axis)}" if hasattr(s, "axis") else "")
                             for s in h.subhinges)
            coords = f"q[{qs.start}:{qs.stop}] u[{us.start}:{us.stop}]" if h.nq or h.nu else "no coordinates"
            lines.append(f"{prefix}{'└─' if last else '├─'} {b.name}  mass={b.mass:.6g} "
                         f"com={_fmt(b.com)}  <- {h.name} [{subs}] {coords}")
            nodes = [n_ for n_ in mb._nodes.values() if n_.body is b]
            for nd in nodes:
                lines.append(f"{prefix}{'   ' if last else '│  '}  · node {nd.name} at {_fmt(nd.T_body_node[:3, 3])}")
            walk(b, prefix + ("   " if last else "│  "))

    walk(mb.world, "")
    return "\n".join(lines)
