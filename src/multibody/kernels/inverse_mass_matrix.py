"""The inverse mass matrix M^-1 by an articulated-body recursion, O(N nu), no factorisation.

With v = 0 and g = 0, forward dynamics is linear in tau: udot = M^-1 tau; the ABA's passes
on the nu unit vectors give M^-1 (Featherstone's and Carpentier's ABA on matrices).
All spatial quantities of a tree are in its root link's frame (Jain's spatial-operator
form): inertias pass to the parent by addition, no 6 x nu block is transformed, lever arms
stay short, and a free root's S is I.
1. Outward: placements in the root's frame, S_j, IA_j = the link's rigid inertia (packed).
2. Inward, with U_j = IA_j S_j, D_j = S_j^T U_j + armature and F_j (6 x nu) the
   articulated bias force of link j per unit tau (zero outside its subtree's columns):
       M^-1[j, j] = D_j^-1,  M^-1[j, c] = -D_j^-1 S_j^T F_j[:, c]  for c in j's subtree,
       F_p += F_j + U_j M^-1[j, :],   IA_p += IA_j - U_j D_j^-1 U_j^T.
3. Outward, with A_j (6 x nu) the acceleration of link j per unit tau, G_j = U_j D_j^-1:
       M^-1[j, c] -= G_j^T A_p[:, c],  A_j = A_p + S_j M^-1[j, :]  for c >= j's first speed,
   each entry mirrored into the lower triangle as it is written.
The unit forces are taken k at a time (k = min(nu, BLOCK)): steps 2 and 3 run per block of
k columns on F and A of those columns only, a (n, 6k) work array, O(N), writing M^-1 as
they go. The first block's step 2 also factors the links (U_j, D_j^-1, G_j, IA_p, kept in
the data where later blocks need them), and its passes are the unblocked recursion's code
(one-speed links inline); the later blocks (models of more than k speeds only) take every
link through the out-of-line general steps, step 2 visiting the links whose subtree holds
some of the block's columns, step 3 the links up to its last column: the entries computed,
and each with the same operations, are the unblocked recursion's (equal values, bit for
bit but for the sign of a zero).
A free root (S = I) takes closed-form steps: M^-1[0:6, c] = -D^-1 F_0[:, c], A_0 = M^-1[0:6, :].
Links with one speed run inline; others (and the free root) in out-of-line steps.
``world_columns`` serves the operational-space compliance.
"""
from numba import njit

from .common import check_state, data_start, link_rows, model_arrays, ragged, result_status
from .inverse_mass_steps import (
    DINV, INL, NO_NRT, S_ROOT, dot6, general_columns, general_first, general_outward, load6, pass_inertia,
    root_frames, sym_mul, z6,
)
from .layout import ARMATURE, FREE, FREE_QUAT, G_ADR, H_NU, KIND, NU, PARENT, S_COLS, SUBTREE_END, U_ADR, UOFF, W_PR
from .spatial_inline import force_to_world, motion_to_world
from .status import BAD_LENGTH_ARG1, OK, SINGULAR
from .variants import variant

#: Columns of M^-1 per block: the work array is (n, 6 min(nu, BLOCK)) (``work_shape``).
BLOCK = 64


def work_shape(n, nu):
    """Shape of the work array ``inverse_mass_matrix`` takes for n links and nu speeds:
    F_j, then A_j, of one block of up to BLOCK columns per link, O(N)."""
    return max(n, 1), 6 * max(1, min(nu, BLOCK))


@njit(**INL)
def world_columns(mi, mf, ws, z, j, W, r0):
    """For each speed c of link j, in world axes about its tree's root link origin (W_PR,
    from ``world_placement``): its S column (motion vector) at W[r0, 6c:6c+6], U's at
    W[r0 + 1, 6c:] and G's at W[r0 + 2, 6c:] (force vectors), from the link-frame U and G
    of ``articulated_inertia_pass``."""
    u0 = mi[j, UOFF]
    for k in range(mi[j, NU]):
        s = S_COLS + 6 * k
        m = motion_to_world(ws, j, mf[j, s], mf[j, s + 1], mf[j, s + 2], mf[j, s + 3], mf[j, s + 4], mf[j, s + 5],
                            W_PR)
        a = mi[j, U_ADR] + 6 * k
        fu = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5], W_PR)
        a = mi[j, G_ADR] + 6 * k
        fg = force_to_world(ws, j, z[a], z[a + 1], z[a + 2], z[a + 3], z[a + 4], z[a + 5], W_PR)
        o = 6 * (u0 + k)
        for r in range(6):
            W[r0, o + r] = m[r]
            W[r0 + 1, o + r] = fu[r]
            W[r0 + 2, o + r] = fg[r]


@njit(**INL)
def _pin_columns(W, Minv, j, p, u0, ue, sj, uj, gj, dinv, c0, c1):
    """Step 2 of a one-speed link j on the block's columns c0 <= c < c1: M^-1[j, c] for c
    in its subtree past its speed, then F_p over them."""
    if p < 0:
        for c in range(max(u0 + 1, c0), min(ue, c1)):
            Minv[u0, c] = -dinv * dot6(sj, W, j, 6 * (c - c0))
        return
    if u0 >= c0:  # F_p's column u0 (F_j is 0 there) is G_j
        for r in range(6):
            W[p, 6 * (u0 - c0) + r] = gj[r]
    for c in range(max(u0 + 1, c0), min(ue, c1)):  # the parent's F over j's subtree:
        o = 6 * (c - c0)  # assigned (sibling subtrees are disjoint)
        fj = load6(W, j, o)
        x = -dinv * (sj[0] * fj[0] + sj[1] * fj[1] + sj[2] * fj[2] + sj[3] * fj[3] + sj[4] * fj[4]
                     + sj[5] * fj[5])
        Minv[u0, c] = x
        for r in range(6):
            W[p, o + r] = fj[r] + uj[r] * x


@njit(**INL)
def _inward_first(mi, mf, ws, z, W, Minv, free_root, c1, general):
    """Step 2 on the first block's columns 0 <= c < c1, factoring each link on the way (U,
    D^-1, G, IA_p; what the later blocks use kept). False when some D_j is not positive
    definite. ``general`` as in ``root_frames``."""
    nu = Minv.shape[0]
    good = True
    for j in range(mi.shape[0] - 1, -1, -1):
        if general and mi[j, NU] != 1:
            if not general_first(mi, mf, ws, z, W, Minv, j, j == 0 and free_root, c1):
                good = False
            continue
        u0 = mi[j, UOFF]
        p = mi[j, PARENT]
        sj = load6(ws, j, S_ROOT)
        uj = sym_mul(ws, j, sj)
        d = dot6(uj, ws, j, S_ROOT) + mf[j, ARMATURE]
        dinv = 1.0 / d if d > 0.0 else 0.0
        good = good and d > 0.0
        Minv[u0, u0] = dinv
        gj = (uj[0] * dinv, uj[1] * dinv, uj[2] * dinv, uj[3] * dinv, uj[4] * dinv, uj[5] * dinv)
        if c1 < nu:  # kept for the later blocks
            ws[j, DINV] = dinv
            for r in range(6):
                z[mi[j, U_ADR] + r] = uj[r]
        if p >= 0:
            for r in range(6):
                z[mi[j, G_ADR] + r] = gj[r]
            pass_inertia(ws, j, p, gj, uj)
        if u0 < c1:
            le = mi[j, SUBTREE_END] - 1
            _pin_columns(W, Minv, j, p, u0, mi[le, UOFF] + mi[le, NU], sj, uj, gj, dinv, 0, c1)
    return good


@njit(**INL)
def _outward(mi, ws, z, W, Minv, free_root, c0, c1, general):
    """Step 3 on the columns c0 <= c < c1, for the links up to the block's last speed
    (M^-1[j, c] is 0 before it for c past j's subtree)."""
    for j in range(mi.shape[0]):
        u0 = mi[j, UOFF]
        if u0 >= c1:  # and so are the later links' (depth-first order)
            break
        p = mi[j, PARENT]
        if general and mi[j, NU] != 1:
            # int(c0): the first block's 0 as an int64, not a literal (one compiled version)
            general_outward(mi, ws, z, W, Minv, j, j == 0 and free_root, int(c0), c1)
            continue
        le = mi[j, SUBTREE_END] - 1
        ue = mi[le, UOFF] + mi[le, NU]
        leaf = mi[j, SUBTREE_END] == j + 1
        sj = load6(ws, j, S_ROOT)
        if p < 0:
            for c in range(max(u0, c0), c1):
                x = Minv[u0, c] if c < ue else 0.0
                Minv[u0, c] = x
                Minv[c, u0] = x
                if not leaf:
                    for r in range(6):
                        W[j, 6 * (c - c0) + r] = sj[r] * x
            continue
        gj = z6(z, mi[j, G_ADR])
        for c in range(max(u0, c0), c1):
            o = 6 * (c - c0)
            a = load6(W, p, o)
            x = gj[0] * a[0] + gj[1] * a[1] + gj[2] * a[2] + gj[3] * a[3] + gj[4] * a[4] + gj[5] * a[5]
            x = Minv[u0, c] - x if c < ue else -x
            Minv[u0, c] = x
            Minv[c, u0] = x
            if not leaf:  # leaves keep no A
                for r in range(6):
                    W[j, o + r] = a[r] + sj[r] * x


@njit(**NO_NRT)
def _later_blocks(mi, ws, z, W, Minv, free_root, k):
    """Steps 2 and 3 on the blocks of k columns after the first, every link through the
    general steps (a one-speed link's U, G, D^-1 are kept where theirs are): only models of
    more than k speeds come here, where a link's work is its columns, not its call."""
    n = mi.shape[0]
    nu = Minv.shape[0]
    for c0 in range(k, nu, k):
        c1 = min(c0 + k, nu)
        for j in range(n - 1, -1, -1):  # step 2: the links whose subtree holds some columns
            le = mi[j, SUBTREE_END] - 1
            if mi[j, UOFF] < c1 and mi[le, UOFF] + mi[le, NU] > c0:
                general_columns(mi, ws, z, W, Minv, j, j == 0 and free_root, c0, c1)
        for j in range(n):  # step 3: the links up to the block's last column
            if mi[j, UOFF] >= c1:
                break
            general_outward(mi, ws, z, W, Minv, j, j == 0 and free_root, c0, c1)


@njit(**INL)
def _minv(mi, mf, ws, z, q, W, Minv, general):
    """Fill the full symmetric M^-1 (nu, nu), k columns at a time (k = W.shape[1] // 6):
    W is scratch of shape (n, 6k), row j holding F_j (written by j's children), then A_j,
    for the block's columns, column c at W[j, 6(c - c0):]; S is kept in ws, U and G in z.
    Nothing needs zeroing: every entry is written before it is read. False when some D_j
    is not positive definite. ``general`` as in ``root_frames``."""
    nu = Minv.shape[0]
    k = W.shape[1] // 6
    root_frames(mi, mf, ws, q, general)
    free_root = mi.shape[0] > 0 and (mi[0, KIND] == FREE or mi[0, KIND] == FREE_QUAT)  # S = I in its frame
    good = _inward_first(mi, mf, ws, z, W, Minv, free_root, min(k, nu), general)
    _outward(mi, ws, z, W, Minv, free_root, 0, min(k, nu), general)
    if nu > k:
        _later_blocks(mi, ws, z, W, Minv, free_root, k)
    return good


@njit(cache=True)
def minv_core(mi, mf, ws, z, q, W, Minv):
    """M^-1 into Minv (nu, nu) (see ``_minv``), links of any kind: the call of the
    derivatives and of the contact loop."""
    return _minv(mi, mf, ws, z, q, W, Minv, True)


def _make_inverse_mass_matrix(general):
    """The checked entry point of M^-1 for links of any kind (``general``) or its PIN-only
    variant (``joint_transform.pin_variant``: the other kinds' steps are not compiled)."""

    @variant("inverse_mass_matrix" if general else "inverse_mass_matrix_pins", _nrt=False)
    def inverse_mass_matrix(dbuf, q, W, Minv):
        """Checked entry point: a status for q (BAD_LENGTH_ARG1: Minv is not (nu, nu)), SINGULAR,
        or OVERFLOW."""
        nu = int(dbuf[0, H_NU])
        if Minv.shape[0] != nu or Minv.shape[1] != nu:
            return BAD_LENGTH_ARG1
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        st = check_state(mi, q, q, q, -1, -1)
        if st == OK and not _minv(mi, mf, ws, ragged(dbuf, d0, n), q, W, Minv, general):
            return SINGULAR
        return result_status(st, Minv)

    return inverse_mass_matrix


inverse_mass_matrix = _make_inverse_mass_matrix(True)
inverse_mass_matrix_pins = _make_inverse_mass_matrix(False)  # PIN links only
