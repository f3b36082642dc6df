"""Operational-space compliance Upsilon = J M^-1 J^T at k frames, by recursion, O(N + k^2 d).

From the articulated-inertia pass (articulated_inertia.py: S, G = U D^-1, D^-1),
in world axes about each tree's root link origin (no per-link transforms; about the
world origin a model 7e6 m away lost 1e-2 of Upsilon, 1 AU all of it: W_PR), with Psi_j = I - S_j G_j^T the map
that carries a link's parent acceleration to the link when no force acts in its
subtree (Jain's spatial-operator form of the ABA's outward pass):

1. Outward over the links that support a frame: the compliance at link j,
       Upsilon_j = Psi_j Upsilon_p Psi_j^T + S_j D_j^-1 S_j^T   (Upsilon of the world = 0).
2. For frames a, b on links la, lb with deepest common ancestor c:
       Upsilon_ab = P_a Upsilon_c P_b^T,  P_a = Psi_la Psi_parent(la) ... (down to c, excluded),
   found by walking la and lb up to c (d: the tree depth).
3. Into each frame's coordinates: Upsilon_FaFb = X_a Upsilon_ab X_b^T, with X_a the
   motion transform from world coordinates to frame a's.
No mass matrix, no inverse of it, no factorisation.
"""
from numba import njit

from .articulated_inertia import articulated_inertia_pass, articulated_inertia_pin_pass
from .common import check_state, data_start, frame_table, link_rows, model_arrays, ragged
from .inverse_mass_matrix import world_columns
from .jacobian import frame_world_pose
from .joint_transform import place_links, place_pin_links, world_placement
from .layout import DEPTH, DINV_ADR, FR_LINK, NU, PARENT, UOFF, W_PR
from .status import OK, SINGULAR
from .variants import variant

# scratch columns (rows 0..n-1 per link, then one row per frame, then temporaries)
Y_UPS = 0      # 36, Upsilon_j (world coordinates, row-major)
Y_MARK = 36    # 1, 1.0 when link j supports a frame
Y_T = 37       # 36, temporary 6 x nj block (column-major) / 6x6 product
Y_COLS = 73


@njit(cache=True, inline="always")
def _mul66(A, ra, oa, B, rb, ob, tb, C, rc, oc):
    """C[rc, oc:oc+36] = A B (tb = False) or A B^T (tb = True), row-major 6x6 blocks."""
    for r in range(6):
        for c in range(6):
            s = 0.0
            for k in range(6):
                s += A[ra, oa + 6 * r + k] * (B[rb, ob + 6 * c + k] if tb else B[rb, ob + 6 * k + c])
            C[rc, oc + 6 * r + c] = s


@njit(cache=True, inline="always")
def _apply_psi(P, rp, W, r0, Y, ry, u0, nj):
    """P[rp, :36] = P (I - S G^T) for the link's world S, G columns (rows r0, r0 + 2 of W,
    see inverse_mass_matrix.world_columns)."""
    for k in range(nj):  # T = P S (6 x nj), from the unchanged P
        for r in range(6):
            s = 0.0
            for c in range(6):
                s += P[rp, 6 * r + c] * W[r0, 6 * (u0 + k) + c]
            Y[ry, Y_T + 6 * k + r] = s
    for k in range(nj):
        for r in range(6):
            t = Y[ry, Y_T + 6 * k + r]
            for c in range(6):
                P[rp, 6 * r + c] -= t * W[r0 + 2, 6 * (u0 + k) + c]


@njit(cache=True, inline="always")
def _link_compliance(mi, z, W, r0, Y, j):
    """Upsilon_j = Psi_j Upsilon_p Psi_j^T + S D^-1 S^T, as
    Upsilon_p - S T^T - T S^T + S (G^T T + D^-1) S^T with T = Upsilon_p G."""
    p = mi[j, PARENT]
    u0 = mi[j, UOFF]
    nj = mi[j, NU]
    da = mi[j, DINV_ADR]
    for k in range(36):
        Y[j, Y_UPS + k] = Y[p, Y_UPS + k] if p >= 0 else 0.0
    for k in range(nj):
        for r in range(6):
            s = 0.0
            for c in range(6):
                s += Y[j, Y_UPS + 6 * r + c] * W[r0 + 2, 6 * (u0 + k) + c]
            Y[j, Y_T + 6 * k + r] = s
    for a in range(nj):
        for b in range(nj):
            kab = z[da + nj * a + b]
            for r in range(6):
                kab += W[r0 + 2, 6 * (u0 + a) + r] * Y[j, Y_T + 6 * b + r]
            for r in range(6):
                sa = W[r0, 6 * (u0 + a) + r] * kab
                for c in range(6):
                    Y[j, Y_UPS + 6 * r + c] += sa * W[r0, 6 * (u0 + b) + c]
    for k in range(nj):
        for r in range(6):
            s_r = W[r0, 6 * (u0 + k) + r]
            t_r = Y[j, Y_T + 6 * k + r]
            for c in range(6):
                Y[j, Y_UPS + 6 * r + c] -= s_r * Y[j, Y_T + 6 * k + c] + t_r * W[r0, 6 * (u0 + k) + c]


@njit(cache=True, inline="always")
def _frame_transform(ws, fr, f, T, Y, ry):
    """Y[ry, :36] = X_F (world axes about the frame's tree root -> frame f's coordinates) =
    [[R^T, 0], [-R^T [p]x, R^T]], p the frame's origin from that root."""
    frame_world_pose(ws, fr, f, T, W_PR)
    for k in range(36):
        Y[ry, k] = 0.0
    for r in range(3):
        for c in range(3):
            Y[ry, 6 * r + c] = T[c, r]
            Y[ry, 6 * (r + 3) + c + 3] = T[c, r]
    p0 = T[0, 3]
    p1 = T[1, 3]
    p2 = T[2, 3]
    for r in range(3):  # row r of -R^T [p]x is -(a x p)^T = (p x a)^T with a = R[:, r]
        a0 = T[0, r]
        a1 = T[1, r]
        a2 = T[2, r]
        Y[ry, 6 * (r + 3)] = p1 * a2 - p2 * a1
        Y[ry, 6 * (r + 3) + 1] = p2 * a0 - p0 * a2
        Y[ry, 6 * (r + 3) + 2] = p0 * a1 - p1 * a0


def _make_osc_core(general):
    """``osc_core`` for links of any kind (``general``) or its PIN-only variant (PIN placements
    and inertia steps: the general ones are not compiled)."""

    @variant("osc_core" if general else "osc_pin_core")
    def osc_core(mi, mf, fr, ws, z, q, frames, W, Y, out):
        """out (6k, 6k) = Upsilon at the k frame rows ``frames``. W: scratch (3, 6 nu) for the
        world S, U, G columns; Y: scratch (n + k + 6, Y_COLS). Returns False if D_j is singular."""
        n = mi.shape[0]
        k = frames.shape[0]
        if general:  # (a constant of the variant)
            place_links(mi, mf, ws, q)
            if not articulated_inertia_pass(mi, mf, ws, z):
                return False
        else:
            place_pin_links(mi, mf, ws, q)
            if not articulated_inertia_pin_pass(mi, mf, ws, z):
                return False
        for j in range(n):
            world_placement(mi, ws, j)
            Y[j, Y_MARK] = 0.0
        for a in range(k):
            i = int(fr[frames[a], FR_LINK])
            while i >= 0 and Y[i, Y_MARK] == 0.0:
                Y[i, Y_MARK] = 1.0
                i = mi[i, PARENT]
        for j in range(n):
            if Y[j, Y_MARK] != 0.0:
                world_columns(mi, mf, ws, z, j, W, 0)
                _link_compliance(mi, z, W, 0, Y, j)
        T = Y[n + k + 2:n + k + 6, :4]  # a 4x4 work matrix
        for a in range(k):
            _frame_transform(ws, fr, frames[a], T, Y, n + a)
        pa = n + k
        pb = n + k + 1
        for a in range(k):
            for b in range(a, k):
                ia = int(fr[frames[a], FR_LINK])
                ib = int(fr[frames[b], FR_LINK])
                for e in range(36):
                    Y[pa, e] = 1.0 if e % 7 == 0 else 0.0
                    Y[pb, e] = Y[pa, e]
                while ia != ib and ia >= 0 and ib >= 0:
                    if mi[ia, DEPTH] >= mi[ib, DEPTH]:
                        _apply_psi(Y, pa, W, 0, Y, pa, mi[ia, UOFF], mi[ia, NU])
                        ia = mi[ia, PARENT]
                    else:
                        _apply_psi(Y, pb, W, 0, Y, pb, mi[ib, UOFF], mi[ib, NU])
                        ib = mi[ib, PARENT]
                if ia != ib or ia < 0:
                    for r in range(6):
                        for c in range(6):
                            out[6 * a + r, 6 * b + c] = 0.0
                            out[6 * b + c, 6 * a + r] = 0.0
                    continue
                _mul66(Y, ia, Y_UPS, Y, pb, 0, True, Y, pb, Y_T)    # Upsilon_c P_b^T
                _mul66(Y, pa, 0, Y, pb, Y_T, False, Y, pa, Y_T)     # P_a Upsilon_c P_b^T
                _mul66(Y, pa, Y_T, Y, n + b, 0, True, Y, pb, Y_T)   # ... X_b^T
                _mul66(Y, n + a, 0, Y, pb, Y_T, False, Y, pa, Y_T)  # X_a ...
                for r in range(6):
                    for c in range(6):
                        out[6 * a + r, 6 * b + c] = Y[pa, Y_T + 6 * r + c]
                        out[6 * b + c, 6 * a + r] = Y[pa, Y_T + 6 * r + c]
        return True

    return osc_core


osc_core = _make_osc_core(True)
osc_pin_core = _make_osc_core(False)  # PIN links only


def _make_operational_space_compliance(general):
    """The checked entry point of ``osc_core`` or of its PIN-only variant."""

    @variant("operational_space_compliance" if general else "operational_space_compliance_pins")
    def operational_space_compliance(dbuf, q, frames, W, out):
        """Checked entry point: a status for q, or SINGULAR. W: scratch (n + k + 9, max(6 nu, Y_COLS))."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        fr = frame_table(dbuf, n)
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        z = ragged(dbuf, d0, n)
        st = check_state(mi, q, q, q, -1, -1)
        if st == OK:
            if general:  # (a constant of the variant)
                good = osc_core(mi, mf, fr, ws, z, q, frames, W[:3], W[3:, :Y_COLS], out)
            else:
                good = osc_pin_core(mi, mf, fr, ws, z, q, frames, W[:3], W[3:, :Y_COLS], out)
            if not good:
                return SINGULAR
        return st

    return operational_space_compliance


operational_space_compliance = _make_operational_space_compliance(True)
operational_space_compliance_pins = _make_operational_space_compliance(False)  # PIN links only
