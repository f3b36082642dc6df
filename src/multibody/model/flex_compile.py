"""The flexible-body tables of a compiled model: per link block sizes and addresses, the
(6 + n_modes) mass matrices, the nodes where children attach and the node frames' mode
shapes, all in link-frame axes, laid out in the model buffer's flex block (with the sizes of
every Data's flex work region; see ``kernels/flex_layout.py``); ``c.flex`` views them."""
import numpy as np

from ..kernels import flex_layout as FL
from ..kernels import layout as L
from ..kernels.flex_constrained import tables as constraint_tables
from ..kernels.flex_operational_space import scratch_size
from ..kernels.flex_views import constant_views
from ..spatial import motion_transform, transform_inverse
from .modal_body import ModalBody
from .shared_arrays import ConstantPool


class FlexModel:
    """The flex constants of a compiled model, as views of its model buffer (``c.flex``; the
    kernels cut the same views with ``kernels/flex_views.py``): ``fi`` (n, cols) int64, the
    link table (``kernels/flex_layout.py``'s columns of the mi rows; ``fi`` is ``c.mi``), ``fmass`` (the undeformed mass blocks
    M0, at CADR), ``fm1`` and ``fm2`` (the modal bodies' integrals M1, M2 at M1ADR, M2ADR;
    M2ADR -1 where M2 is zero), ``fnode`` (node records: R0 (9), p0 (3), Pi (6 x n_modes)
    row-major), ``frame_node`` (nf,) the node record of each frame row (-1: rigid),
    ``stiffness`` and ``damping`` (the modal bodies' K and C, n_modes x n_modes row-major at
    fi's STIFF and DAMP; diagonal for a stiffness given per mode). Read-only constants
    holding each distinct block once (links may share a block); the per-state M_k(eta) is
    per link, in each Data's flex work (``Data.flex_work``: M at MADR; after the last link's
    block, the scratch that every link shares, at SCR)."""

    def __init__(self, buf):
        views = constant_views(buf)
        for name, view in zip(views._fields, views):
            setattr(self, name, view)  # (kernels only read them)

    def elastic_blocks(self, link):
        """(K, C): the modal stiffness and damping (NM x NM) of ``link``'s body, read-only views."""
        nm = int(self.fi[link, FL.NM])
        blocks = []
        for table, col in ((self.stiffness, FL.STIFF), (self.damping, FL.DAMP)):
            a = self.fi[link, col]
            block = table[a:a + nm * nm].reshape(nm, nm)
            block.flags.writeable = False
            blocks.append(block)
        return tuple(blocks)


def flex_block(fi, constants, work_sizes, width):
    """(fi, rows, addresses) of a model with modal bodies (``kernels/flex_layout.py``): ``fi``
    (n, FI_COLS) int64, whose flex columns go into the mi rows; ``rows``, the flex block of
    the model buffer: the flat constants (``constants``: the pieces in FH_MASS ..
    FH_CON_TABLE order, float64 or int64) in rows of ``width``; ``addresses`` {header
    column: value}, the constants' starts and end in the flat region, then those of the work
    pieces of ``work_sizes`` (FH_M .. FH_CON_WORK order) in a data buffer's flex work region."""
    flat = [np.ascontiguousarray(a).ravel().view(np.float64) if a.dtype == np.int64 else
            np.ascontiguousarray(a, dtype=np.float64).ravel() for a in constants]
    starts = np.concatenate([[0], np.cumsum([a.size for a in flat])]).astype(np.int64)
    rows = np.zeros((-(-int(starts[-1]) // width), width))
    rows.reshape(-1)[:starts[-1]] = np.concatenate(flat) if flat else np.zeros(0)
    wstarts = np.concatenate([[0], np.cumsum(work_sizes)]).astype(np.int64)
    addresses = {FL.FH_MASS + i: int(a) for i, a in enumerate(starts)}
    addresses.update({FL.FH_M + i: int(a) for i, a in enumerate(wstarts)})
    return fi, rows, addresses


def _node_record(R0, p0, Pi):
    return np.concatenate([R0.ravel(), p0, Pi.ravel()])


def compile_flex(mb, c):
    """The flex block of Multibody ``mb`` compiled as ``c`` (body data moved into link axes):
    ``flex_block``'s (fi, rows, addresses), for ``CompiledModel.set_flex``. The constrained
    dynamics' table of the model's constraint frames and rows, and the size of its work,
    are made here too (``flex_constrained.tables``), from the enabled constraints.

    The constants (mass blocks M0, integrals, node records) go into pools where equal
    blocks are stored once (``shared_arrays.ConstantPool``): a chain of bodies made from
    one ModalData holds one copy; the per-state blocks M_k(eta) stay per link (work)."""
    n = c.n_links
    mi, mf = c.mi, c.mf
    body_of_link = {}
    for name, link in c.body_link.items():
        b = mb.body(name)
        if isinstance(b, ModalBody) and link >= 0:
            body_of_link[link] = b
    fi = np.zeros((n, FL.FI_COLS), dtype=np.int64)
    mass, first, second, nodes = ConstantPool(), ConstantPool(), ConstantPool(), ConstantPool()
    stiffness, damping = ConstantPool(), ConstantPool()
    integrals = {}  # (id of the body's M1, M2, T_link_body) -> (M1ADR, M2ADR, M2FULL): transformed once
    madr = voff = padr = phiadr = gadr = dadr = eadr = 0
    node_index = {}  # node name -> fnode address
    T_lb = {}
    for link, b in body_of_link.items():
        T_lb[b.name] = c.T_link_body[b.name]
        R = T_lb[b.name][:3, :3]
        for node in b.nodes.values():
            T = T_lb[b.name] @ node.T_body_node
            Pi = np.vstack([R @ node.mode_shapes[:3], R @ node.mode_shapes[3:]])
            node_index[node.name] = nodes.add(_node_record(T[:3, :3], T[:3, 3], Pi))
    for j in range(n):
        s = c.link_subhinges[j]
        b = body_of_link.get(j)
        nm = b.n_modes if b is not None else 0
        nb = 6 + nm
        nuall = mi[j, L.NU] + nm
        p = mi[j, L.PARENT]
        nbp = fi[p, FL.NB] if p >= 0 else 6
        M = np.zeros((nb, nb))
        M[:6, :6] = mf[j, L.INERTIA:L.INERTIA + 36].reshape(6, 6)
        m1adr, m2adr, m2full = 0, -1, 0
        if b is not None:
            X_BL = motion_transform(transform_inverse(T_lb[b.name]))  # V_B = X_BL V_L
            Mfr = np.vstack([b.S_rot, b.S]).T @ X_BL
            M[6:, :6] = Mfr
            M[:6, 6:] = Mfr.T
            M[6:, 6:] = b.modal_mass
            key = (id(b.M1), id(b.M2), T_lb[b.name].tobytes())
            if key not in integrals:
                integrals[key] = _add_integrals(first, second, b, X_BL)
            m1adr, m2adr, m2full = integrals[key]
            fi[j, FL.STIFF], fi[j, FL.DAMP] = stiffness.add(b.stiffness_matrix), damping.add(b.damping_matrix)
        node = -1
        h = s.hinge
        if p >= 0 and p in body_of_link and c.link_subhinges[p].hinge is not h:
            pn = h.parent_node
            if pn is not None and np.any(pn.mode_shapes):
                node = node_index[pn.name]
        fi[j, FL.NB], fi[j, FL.NM], fi[j, FL.NUALL], fi[j, FL.NODE] = nb, nm, nuall, node
        fi[j, FL.QM] = mi[j, L.QOFF] + mi[j, L.NQ]
        fi[j, FL.UM] = mi[j, L.UOFF] + mi[j, L.NU]
        fi[j, FL.VOFF], fi[j, FL.MADR], fi[j, FL.PADR], fi[j, FL.PHI] = voff, madr, padr, phiadr
        fi[j, FL.GADR], fi[j, FL.DADR], fi[j, FL.EADR] = gadr, dadr, eadr
        fi[j, FL.CADR], fi[j, FL.M1ADR], fi[j, FL.M2ADR], fi[j, FL.M2FULL] = mass.add(M), m1adr, m2adr, m2full
        voff += nb
        madr += nb * nb
        padr += nb * nb
        phiadr += 6 * nbp
        gadr += nb * nuall
        dadr += nuall * nuall
        eadr += nuall
    fi[:, FL.SCR] = madr  # the shared scratch, behind the mass blocks
    madr += FL.SCR_BLOCKS * int(fi[:, FL.NB].max(initial=6)) ** 2
    _check_welded_at_deforming_nodes(mb, c)
    frame_node = _frame_nodes(c, node_index)
    con_table, con_work = constraint_tables(c.fr, c.cr, fi, n, c.nu, padr)
    constants = [pool.array() for pool in (mass, first, second, nodes, stiffness, damping)] + [frame_node, con_table]
    work = _work_sizes(fi, c.nu, (madr, voff, padr, phiadr, gadr, dadr, eadr)) + (con_work,)
    return flex_block(fi, constants, work, c.buf.shape[1])


def _frame_nodes(c, node_index):
    """(nf,) int64: per frame row of compiled model ``c`` its node record's address in fnode
    (``node_index``: node name -> address), -1 for a frame that is not a deforming node."""
    frame_node = np.full(c.fr.shape[0], -1, dtype=np.int64)
    for name, f in c.frame_rows.items():
        if name in node_index:
            frame_node[f] = node_index[name]
    return frame_node


def _work_sizes(fi, nu, sizes):
    """The sizes of a data buffer's flex work pieces (FH_M .. FH_ZERO order) from the
    compiler's running ``sizes`` (mass blocks and scratch, vectors, P, phi, G, D^-1, eps)."""
    madr, voff, padr, phiadr, gadr, dadr, eadr = sizes
    n = fi.shape[0]
    block = int(fi[:, FL.NB].max() * fi[:, FL.NUALL].max()) if n else 0
    operators = scratch_size(fi)[1] if n else 0
    return (madr, voff, voff, voff, voff, padr, phiadr, gadr, dadr, eadr, n * FL.POSE_COLS, n * 6,
            max(2 * max(block, 36), operators), nu)  # scratch: two (nb x NUALL) column blocks, and
    # the operators' (M^-1, compliance, frames: kernels/flex_entry.py); zero: u = 0


def _add_integrals(first, second, b, X_BL):
    """(M1ADR, M2ADR, M2FULL) of modal body ``b``'s integrals in link axes (``X_BL``: V_B =
    X_BL V_L), added to the pools ``first`` and ``second`` (M2ADR -1 when M2 is zero)."""
    m1 = np.einsum("ab,kbc->kac", X_BL.T, np.concatenate([b.M1[:, :, :6] @ X_BL, b.M1[:, :, 6:]], axis=2))
    if not np.any(b.M2):
        return first.add(m1), -1, 0
    rows, full = second_order_rows(b.M2, X_BL)
    return first.add(m1), second.add(rows), full


def second_order_rows(M2, X_BL):
    """(rows, full): ``M2`` (n, n, s, s), s = 6 or 6 + n, in link axes (its rigid rows and
    columns by ``X_BL``) laid out as the kernels read it (``kernels/flex_layout.py``: pairs
    j <= m, each (6 + n) x (6 + n), or its first 6 rows without modal rows), and 1 when it
    has modal rows."""
    n, s = M2.shape[0], M2.shape[2]
    A = np.zeros((n, n, 6 + n, 6 + n))
    A[:, :, :s, :s] = M2
    X = np.eye(6 + n)
    X[:6, :6] = X_BL
    A = np.einsum("ab,klbc,cd->klad", X.T, A, X)
    full = int(s > 6 and np.any(A[:, :, 6:]))
    j, m = np.triu_indices(n)
    return np.ascontiguousarray(A[j, m, :6 + n if full else 6]).ravel(), full


def _check_welded_at_deforming_nodes(mb, c):
    """A body welded (locked hinge) at a deforming node of a modal body would move with
    the node, which a welded body (merged into the link) cannot: refuse it by name."""
    for h in mb.hinges:
        pn = h.parent_node
        if pn is not None and pn.mode_shapes is not None and np.any(pn.mode_shapes):
            if c.body_link.get(h.child.name) == c.body_link.get(pn.body.name):
                raise ValueError(f"hinge {h.name!r} welds body {h.child.name!r} to the deforming node "
                                 f"{pn.name!r} of modal body {pn.body.name!r}: give the hinge a moving "
                                 f"subhinge, or attach it at a node without mode shapes")
