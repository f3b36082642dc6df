"""Constraint embedding: forward dynamics in minimal coordinates, loops as compound bodies.

After A. Jain, "Multibody graph transformations and analysis" (Nonlinear Dynamics 2012,
parts I and II). Each aggregation sub-graph (``model/aggregation.py``: the path-induced set of
bodies of some loops) becomes one compound body, joined to its parent body P by a compound
hinge whose speeds are the aggregation's independent speeds u_i. With G = [G_i G_d] the
aggregation's block of the constraint Jacobian (its constraints' independent rows, its own
speeds: a loop's rows depend on nothing else) and kappa = Gdot u its bias,

    u_A = X u_i,          X = [I; -G_d^-1 G_i]            (velocity-level embedding)
    udot_A = X udot_i + w,  w = [0; -G_d^-1 kappa]        (its rate: Gc udot + kappa = 0)

so the embedded system has only independent speeds and no constraint force (X^T Gc^T = 0).
Two ways to solve it (``method``):

* ``"recursive"`` (default): an articulated-body sweep over the tree whose nodes are the
  ordinary links and the compound bodies. A compound body k with links l, relative Jacobians
  H_l = (motion of l relative to P per unit u_i, l's axes) and bias accelerations c^_l:
  D_k = sum H_l^T IA_l H_l + X^T A X (n_ind x n_ind, A the armature), U_k = sum X_lP^T IA_l H_l,
  res_k = X^T (tau_A - A w) - sum H_l^T (IA_l c^_l + pA_l); it passes
  P+ = sum X_lP^T IA_l X_lP - U_k D_k^-1 U_k^T and pa = sum X_lP^T (IA_l c^_l + pA_l)
  + U_k D_k^-1 res_k to P; outward, udot_i = D_k^-1 (res_k - U_k^T a_P). O(N) in the number of
  tree nodes plus the compound bodies' dense blocks (O(n_l n_A n_ind) each). Written in
  NumPy over the links (a Python loop: the structure of the O(N) algorithm, not its speed).
* ``"dense"``: X^T M X udot_i = X^T (tau - b - M w) with the whole-system M and b (the
  reference the sweep is tested against; O(nu^3)).

The dependent speeds' accelerations follow from the acceleration level (udot_d = -G_d^-1
(G_i udot_i + kappa)). Both equal the tree-augmented accelerations
(``constrained_dynamics`` without stabilization) at a closed configuration with consistent
speeds (u in the null space of Gc): the embedding assumes both, it does not stabilize drift.
"""
import numpy as np

from ..kernels import layout as L
from ..model.aggregation import AggregationSubGraph, check_aggregations, connected_groups, grow, resolve_constraints
from .checks import check_vector, data_object, raise_status, run_kernel
from .constraints import constraint_bias, constraint_jacobian
from .dynamics import inverse_dynamics, mass_matrix
from .entry import KERNELS
from .external_forces import with_external_forces

_RANK_TOL = 1e-9   # relative to the largest pivot of a pivoted QR
_COND_MAX = 1e10   # largest accepted condition number of G_d
_METHODS = ("recursive", "dense")


# ---------------------------------------------------------------- choosing coordinates
def _pivoted(A):
    """(rank, pivots) of A by a QR with column pivoting (rank-revealing)."""
    if A.size == 0:
        return 0, np.arange(A.shape[1])
    from scipy.linalg import qr  # (lazy: scipy.linalg costs 0.2-0.4 s of every import)
    R, piv = qr(A, mode="r", pivoting=True)
    d = np.abs(np.diag(R))
    return int(np.sum(d > _RANK_TOL * max(1.0, d[0]))), piv


def _choose_dependent(G):
    """Positions of the dependent columns of G: the best-conditioned columns for the pivoted QR of
    G's independent rows; returns (sorted dependent positions, rank)."""
    r, rows = _pivoted(G.T)
    _, cols = _pivoted(G[np.sort(rows[:r])])
    return np.sort(cols[:r]), r


def _as_u_indices(m, independent, u_indices, name):
    """``independent`` (u indices and/or hinge names) as sorted unique u indices of the aggregation."""
    out = []
    for x in independent:
        if isinstance(x, str):
            s = m.u_slice(x) if x in m.compiled.u_slices else None
            if s is None:
                raise ValueError(f"independent: {x!r} is not a hinge of this multibody")
            out.extend(range(s.start, s.stop))
        elif isinstance(x, (int, np.integer)):
            out.append(int(x))
        else:
            raise ValueError(f"independent: {x!r} is neither a u index nor a hinge name")
    bad = sorted(set(out) - set(u_indices.tolist()))
    if bad:
        raise ValueError(f"independent: u indices {bad} are not coordinates of aggregation {name!r} "
                         f"(its u indices: {u_indices.tolist()})")
    return np.unique(out)


def _make(m, name, constraints, bodies, parent, independent, q, with_velocity_constraints, Gc=None):
    """The AggregationSubGraph of a grown group; ``Gc`` the whole constraint Jacobian at q if known."""
    c = m.compiled
    order = [b for b in m.bodies if b in bodies]
    u_idx = np.array(sorted(i for b in order for i in range(c.u_slices[b.parent_hinge.name].start,
                                                              c.u_slices[b.parent_hinge.name].stop)), dtype=int)
    constraints = sorted(constraints, key=lambda con: c.constraint_rows[con].start)
    rows = np.concatenate([np.arange(c.constraint_rows[con].start, c.constraint_rows[con].stop)
                           for con in constraints])
    if Gc is None:
        if q is None:  # a generic configuration: the rank of G is that of almost every q
            q = m.random_q(np.random.default_rng(0))
        Gc = constraint_jacobian(m, q)
    G = Gc[rows][:, u_idx]
    if independent is None:
        dep, r = _choose_dependent(G)
        ind = np.setdiff1d(u_idx, u_idx[dep])
    else:
        ind = _as_u_indices(m, independent, u_idx, name)
        r = _pivoted(G.T)[0]
        dep = np.searchsorted(u_idx, np.setdiff1d(u_idx, ind))
        if ind.size != u_idx.size - r or _pivoted(G[:, dep])[0] < r:
            raise ValueError(f"independent: u indices {ind.tolist()} do not span the motion of aggregation "
                             f"{name!r} at q: its {len(rows)} constraint rows have rank {r}, so {u_idx.size - r} "
                             f"of its u indices {u_idx.tolist()} must be independent, and the dependent rest's "
                             f"block G_d of the constraint Jacobian must be invertible")
    return AggregationSubGraph(m, name, order, parent, constraints, u_idx, ind, r, with_velocity_constraints)


def aggregation_sub_graph(m, name, constraints, with_velocity_constraints=True, independent=None, q=None):
    """The aggregation sub-graph of ``constraints`` (a list of constraint objects or names): an
    ``AggregationSubGraph`` (see ``multibody.model.aggregation``).

    Its bodies are the smallest path-induced set holding the constrained bodies (every body on the
    spanning-tree paths of the loops, up to one common parent body); enabled constraints whose
    bodies overlap it are merged in (convel constraints only when ``with_velocity_constraints``;
    without it, convel constraints in the list are dropped). ``independent``: the minimal speeds
    (u indices or hinge names); default: chosen by a rank-revealing QR with column pivoting of the
    aggregation's block of the constraint Jacobian at ``q`` (default: a generic seeded random
    configuration; pass the operating point), the dependent ones being its best-conditioned
    columns. Raises ValueError naming a bad argument: an empty list, a name that is no (enabled)
    constraint, independent coordinates outside the aggregation or that do not span its motion.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    cons = resolve_constraints(m, constraints)
    if not with_velocity_constraints:
        cons = [con for con in cons if con.category != "convel"]
        if not cons:
            raise ValueError("constraints: only convel constraints were given and "
                             "with_velocity_constraints is False")
    candidates = [con for con in m.enabled_constraints if con not in cons
                  and (with_velocity_constraints or con.category != "convel")]
    cons, bodies, parent = grow(m, cons, candidates)
    return _make(m, name, cons, bodies, parent, independent, q, with_velocity_constraints)


def default_aggregations(m, q, Gc=None):
    """One aggregation per group of overlapping enabled constraints, coordinates chosen at q
    (``Gc``: the constraint Jacobian at q, if already known)."""
    groups = connected_groups(m, m.enabled_constraints)
    if groups and Gc is None:
        Gc = constraint_jacobian(m, q)
    return [_make(m, f"aggregation{k}", cons, bodies, parent, None, q, True, Gc)
            for k, (cons, bodies, parent) in enumerate(groups)]


def _embedding_map(a, G, kappa):
    """(X (n_u, n_ind), w (n_u,)) of aggregation a from its Jacobian block G and bias kappa."""
    dep, ind = a.local(a.dependent), a.local(a.independent)
    r = dep.size
    rank = _pivoted(G.T)[0]
    sel = np.sort(_pivoted(G[:, dep].T)[1][:r])
    Gd = G[sel][:, dep]
    cond = np.linalg.cond(Gd) if r else 1.0
    if rank != r or not cond < _COND_MAX:
        raise ValueError(f"aggregation {a.name!r}: its independent u indices {a.independent.tolist()} do not "
                         f"span its motion at q (constraint rank {rank}, {r} dependent speeds, cond(G_d) "
                         f"{cond:.3g}): a singular configuration for this choice; make the aggregation "
                         f"again with q=... near this configuration")
    X = np.zeros((G.shape[1], ind.size))
    X[ind, np.arange(ind.size)] = 1.0
    w = np.zeros(G.shape[1])
    if r:
        X[dep] = -np.linalg.solve(Gd, G[sel][:, ind])
        w[dep] = -np.linalg.solve(Gd, kappa[sel])
    return X, w


# ---------------------------------------------------------------- the dynamics
def embedded_forward_dynamics(m, q, u, tau, aggregations=None, f_ext=None, method="recursive", data=None):
    """udot (nu,) by constraint embedding: each aggregation sub-graph is one compound body with
    its independent speeds as minimal coordinates (see the module docstring).

    q (nq,) a closed configuration, u (nu,) consistent speeds (Gc u = 0), tau (nu,) [N, N m];
    ``aggregations``: AggregationSubGraph objects holding every enabled constraint once (default:
    one per group of overlapping enabled constraints, coordinates chosen at q); f_ext as in
    ``forward_dynamics``; ``method``: "recursive" (the O(N) articulated-body sweep over the tree
    of links and compound bodies) or "dense" (the projected whole-system equations). The
    result equals ``constrained_dynamics(q, u, tau).udot`` without stabilization.
    """
    c = m.compiled
    d = data_object(c, data)
    q, u, tau = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c), check_vector(tau, c.nu, "tau", c)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    G = constraint_jacobian(m, q, data=d)
    aggs = default_aggregations(m, q, G) if aggregations is None else check_aggregations(m, aggregations)
    kappa = constraint_bias(m, q, u, data=d)
    maps = []
    for a in aggs:
        rows = np.concatenate([np.arange(c.constraint_rows[con].start, c.constraint_rows[con].stop)
                               for con in a.constraints])
        maps.append(_embedding_map(a, G[rows][:, a.u_indices], kappa[rows]))
    if method == "dense":
        return _dense(m, d, q, u, tau, f_ext, aggs, maps)
    if f_ext is None:
        return _sweep(m, c, d, q, u, tau, aggs, maps)
    return with_external_forces(c, d, f_ext, _sweep, m, c, d, q, u, tau, aggs, maps)


def _dense(m, d, q, u, tau, f_ext, aggs, maps):
    """X^T M X udot_i = X^T (tau - b - M w) for the whole system; udot = X udot_i + w."""
    nu = m.compiled.nu
    dep = np.concatenate([a.dependent for a in aggs]) if aggs else np.zeros(0, int)
    keep = np.setdiff1d(np.arange(nu), dep)
    col = {int(i): k for k, i in enumerate(keep)}
    X = np.zeros((nu, keep.size))
    X[keep, np.arange(keep.size)] = 1.0
    w = np.zeros(nu)
    for a, (Xa, wa) in zip(aggs, maps):
        X[np.ix_(a.u_indices, [col[int(i)] for i in a.independent])] = Xa
        w[a.u_indices] = wa
    M = mass_matrix(m, q, data=d)
    h = inverse_dynamics(m, q, u, np.zeros(nu), f_ext=f_ext, data=d)  # b - J^T f_ext
    vdot = np.linalg.solve(X.T @ M @ X, X.T @ (tau - h - M @ w))
    return X @ vdot + w


def _skew(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def _cross(v):
    """The 6x6 motion cross-product matrix of v = [w; v] (for forces: minus its transpose)."""
    out = np.zeros((6, 6))
    out[:3, :3] = out[3:, 3:] = _skew(v[:3])
    out[3:, :3] = _skew(v[3:])
    return out


def _links(c, d, q, u):
    """Per-link arrays after the velocity pass: X (n, 6, 6) parent-to-link motion transforms, S
    (list of 6 x nu_j), c (n, 6) velocity-product accelerations, I (n, 6, 6) rigid inertias and
    pA (n, 6) rigid bias forces v x* I v - f_ext, all in link axes."""
    out = np.empty(1)
    st = run_kernel(c, q, KERNELS.kinetic_energy, d.buf, q, u, out)  # placements and velocities
    if st:
        raise_status(c, st, ("q", "u"), (q, u))
    n, mi, mf, ws = c.n_links, c.mi, c.mf, d.ws
    R = ws[:, L.W_R:L.W_R + 9].reshape(n, 3, 3)
    p = ws[:, L.W_P:L.W_P + 3]
    X = np.zeros((n, 6, 6))
    Rt = R.transpose(0, 2, 1)
    X[:, :3, :3] = X[:, 3:, 3:] = Rt
    for j in range(n):
        X[j, 3:, :3] = -Rt[j] @ _skew(p[j])
    V = ws[:, L.W_V:L.W_V + 6]
    I = mf[:n, L.INERTIA:L.INERTIA + 36].reshape(n, 6, 6).copy()
    S, cc, pA = [], np.zeros((n, 6)), np.zeros((n, 6))
    fext = ws[:, L.W_FEXT:L.W_FEXT + 6] if d.flags[L.D_USE_FEXT] != 0.0 else np.zeros((n, 6))
    for j in range(n):
        nu, u0 = mi[j, L.NU], mi[j, L.UOFF]
        S.append(mf[j, L.S_COLS:L.S_COLS + 6 * nu].reshape(nu, 6).T.copy())
        Vx = _cross(V[j])
        cc[j] = Vx @ (S[j] @ u[u0:u0 + nu])
        pA[j] = -Vx.T @ (I[j] @ V[j]) - fext[j]
    return X, S, cc, I, pA


def _sweep(m, c, d, q, u, tau, aggs, maps):
    """The articulated-body sweep over links and compound bodies (see the module docstring)."""
    X, S, cc, IA, pA = _links(c, d, q, u)
    n, mi, mf = c.n_links, c.mi, c.mf
    arm = [mf[j, L.ARMATURE:L.ARMATURE + mi[j, L.NU]] for j in range(n)]
    owner = np.full(n, -1)
    links, parents = [], []
    for k, a in enumerate(aggs):
        mine = np.flatnonzero(np.isin(mi[:, L.UOFF], a.u_indices))
        owner[mine] = k
        tops = {int(mi[j, L.PARENT]) for j in mine if mi[j, L.PARENT] < 0 or owner[mi[j, L.PARENT]] != k}
        if len(tops) != 1:
            raise AssertionError(f"aggregation {a.name!r} hangs from several links {tops}")
        links.append(mine)
        parents.append(tops.pop())
    a0 = np.concatenate([np.zeros(3), -mf[n, L.GRAVITY:L.GRAVITY + 3]])  # the world's apparent acceleration
    keep = [None] * n      # per link: (U, D^-1, res); per compound body (at its first link): its blocks
    for j in range(n - 1, -1, -1):  # inward
        k = owner[j]
        if k >= 0:
            if j == links[k][0]:
                keep[j] = _compound_inward(aggs[k], maps[k], links[k], parents[k], X, S, cc, IA, pA, arm, mi, tau)
            continue
        u0, nu = mi[j, L.UOFF], mi[j, L.NU]
        U = IA[j] @ S[j]
        Dinv = np.linalg.inv(S[j].T @ U + np.diag(arm[j]))
        res = tau[u0:u0 + nu] - S[j].T @ pA[j]
        keep[j] = (U, Dinv, res)
        p = mi[j, L.PARENT]
        if p >= 0:
            Pp = IA[j] - U @ Dinv @ U.T
            IA[p] += X[j].T @ Pp @ X[j]
            pA[p] += X[j].T @ (pA[j] + Pp @ cc[j] + U @ (Dinv @ res))
    acc = np.zeros((n, 6))
    udot = np.zeros(c.nu)
    for j in range(n):  # outward
        k = owner[j]
        if k >= 0:
            if j == links[k][0]:
                P = parents[k]
                _compound_outward(aggs[k], maps[k], keep[j], a0 if P < 0 else acc[P], acc, udot)
            continue
        p = mi[j, L.PARENT]
        a = X[j] @ (a0 if p < 0 else acc[p]) + cc[j]
        U, Dinv, res = keep[j]
        ud = Dinv @ (res - U.T @ a)
        u0 = mi[j, L.UOFF]
        udot[u0:u0 + ud.size] = ud
        acc[j] = a + S[j] @ ud
    return udot


def _compound_inward(a, maps, links, P, X, S, cc, IA, pA, arm, mi, tau):
    """Articulated inertia of one compound body, passed to its parent link P (its axes, or the
    world's when P < 0). Returns what the outward pass needs."""
    XA, wA = maps
    mine = set(links.tolist())
    H, XP, ch = {}, {}, {}
    U = np.zeros((6, XA.shape[1]))
    armA = np.zeros(a.u_indices.size)
    for j in links:  # outward inside the compound body: relative Jacobians and bias accelerations
        pos = a.local(np.arange(mi[j, L.UOFF], mi[j, L.UOFF] + mi[j, L.NU]))
        armA[pos] = arm[j]
        SX, Sw = S[j] @ XA[pos], S[j] @ wA[pos]
        p = mi[j, L.PARENT]
        if p in mine:
            H[j], XP[j], ch[j] = X[j] @ H[p] + SX, X[j] @ XP[p], X[j] @ ch[p] + cc[j] + Sw
        else:
            H[j], XP[j], ch[j] = SX, X[j], cc[j] + Sw
    D = XA.T @ (armA[:, None] * XA)
    res = XA.T @ (tau[a.u_indices] - armA * wA)
    Ic, pc = np.zeros((6, 6)), np.zeros(6)
    for j in links:
        IH = IA[j] @ H[j]
        f = IA[j] @ ch[j] + pA[j]
        U += XP[j].T @ IH
        D += H[j].T @ IH
        res -= H[j].T @ f
        Ic += XP[j].T @ IA[j] @ XP[j]
        pc += XP[j].T @ f
    Dinv = np.linalg.inv(D)
    if P >= 0:
        IA[P] += Ic - U @ Dinv @ U.T
        pA[P] += pc + U @ (Dinv @ res)
    return U, Dinv, res, H, XP, ch


def _compound_outward(a, maps, blocks, aP, acc, udot):
    """udot_i = D^-1 (res - U^T a_P), the aggregation's udot and its links' accelerations."""
    XA, wA = maps
    U, Dinv, res, H, XP, ch = blocks
    udi = Dinv @ (res - U.T @ aP)
    udot[a.u_indices] = XA @ udi + wA
    for j in H:
        acc[j] = XP[j] @ aP + H[j] @ udi + ch[j]
