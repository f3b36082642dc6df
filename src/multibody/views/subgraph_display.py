"""Readable dumps of a sub-tree or sub-graph (as ``Multibody.dump_tree``; iterative, any depth)."""
import numpy as np

_MAX_INDENT = 24  # levels drawn before the indentation folds into a depth label


def _vec(v):
    return "(" + ", ".join(f"{x:.4g}" for x in np.asarray(v, dtype=float)) + ")"


def _indent(prefix):
    depth = len(prefix) // 3
    if depth <= _MAX_INDENT:
        return prefix
    return prefix[:3 * (_MAX_INDENT - 4)] + f"… depth {depth} " + prefix[-6:]


def _frame(f):
    body = getattr(f, "body", f)
    return f.name if body is f else f"{f.name} (on {body.name})"


def _constraint_line(c, enabled):
    state = "enabled" if enabled else "disabled"
    rows = f"{c.n_rows} row{'s' if c.n_rows != 1 else ''}"
    if c.category == "coordinate":
        what = f"coordinate {c.hinge_a.name} = {c.ratio:g} {c.hinge_b.name} + {c.offset:g}"
    else:
        kind = f" {c.kind}" if c.category == "loop" else ""
        what = f"{c.category}{kind} {_frame(c.node_a)} -> {_frame(c.node_b)}"
    return f"  {c.name}: {what}, {rows}, {state}"


def dump_subtree(sub):
    """Root, bodies with their hinges, subhinges and coordinates (indices into the full q
    and u), nodes, and, for a sub-graph, its constraints with their state."""
    m = sub.multibody
    c = m.compiled
    mass = sum(b.mass for b in sub.bodies)
    kind = type(sub).__name__
    lines = [f"{kind} {sub.name!r} of Multibody {m.name!r}: root {sub.root.name!r}, {len(sub.bodies)} bodies, "
             f"{len(sub.hinges)} hinges, nq={sub.nq}, nu={sub.nu}, mass={mass:.6g} kg; "
             f"coordinates are indices into the model's q and u",
             f"{sub.root.name} (root)"]
    inside = set(sub.bodies)
    nodes_of = {}
    for nd in sub.nodes.values():
        nodes_of.setdefault(nd.body.name, []).append(nd)

    def kids(b):
        return [h for h in b.child_hinges if h.child in inside]

    top = kids(sub.root)
    stack = [(h, "", i == len(top) - 1) for i, h in reversed(list(enumerate(top)))]
    while stack:
        h, prefix, last = stack.pop()
        b = h.child
        qs, us = c.q_slices[h.name], c.u_slices[h.name]
        subs = ", ".join(s.kind + (f" axis={_vec(s.axis)}" if hasattr(s, "axis") else "") for s in h.subhinges)
        coords = f"q[{qs.start}:{qs.stop}] u[{us.start}:{us.stop}]" if h.nq or h.nu else "no coordinates"
        lines.append(f"{_indent(prefix)}{'└─' if last else '├─'} {b.name}  mass={b.mass:.6g} "
                     f"com={_vec(b.com)}  <- {h.name} [{subs}] {coords}")
        inner = prefix + ("   " if last else "│  ")
        for nd in nodes_of.get(b.name, ()):
            lines.append(f"{_indent(inner)}  · node {nd.name} at {_vec(nd.T_body_node[:3, 3])}")
        ks = kids(b)
        stack.extend((k, inner, i == len(ks) - 1) for i, k in reversed(list(enumerate(ks))))
    if hasattr(sub, "enabled_constraints"):
        on = set(x.name for x in sub.enabled_constraints)
        cs = sub.constraints
        lines.append(f"constraints: {len(on)} enabled of {len(cs)}")
        lines.extend(_constraint_line(x, x.name in on) for x in cs.values())
    return "\n".join(lines)
