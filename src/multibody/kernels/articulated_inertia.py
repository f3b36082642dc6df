"""Inward pass of articulated-body inertias (ATBI), kept in the data for later passes.

For each link j from the tips inward, with IA_j = I_j + sum over children c of
X_cj^T P+_c X_cj:
    U_j = IA_j S_j,   D_j = S_j^T U_j + A_j,   G_j = U_j D_j^-1,
    P+_j = IA_j - G_j U_j^T   (the articulated inertia link j passes to its parent),
with A_j the diagonal of the link's armature (reflected rotor inertias).
Kept in the data: IA (ws W_IA), U and D^-1 (ragged blocks of z at U_ADR, DINV_ADR),
and for links with a parent G (z at G_ADR) and, for links of kinds other than PIN, P+
(ws W_PPLUS; a PIN link's P+ stays in registers, ``pin_inertia_step``): a root link passes
nothing on (the world takes it), so its G and P+ are not formed (a 6-dof root's
G alone is a 6x6x6 product).
Forward dynamics runs these steps inside its own inward loop (adding the bias
forces); the inverse mass matrix and the operational-space compliance run the pass
as it is. PIN links (S = e_z after compile's re-framing) take a short path. Both steps
return False when D_j is not positive definite; loops dispatch on the kind themselves
(an inlined helper that dispatches made the inward loop several times slower: bench/README.md).
"""
from numba import njit

from .layout import ARMATURE, DINV_ADR, G_ADR, INERTIA, KIND, NU, PARENT, PIN, S_COLS, U_ADR, W_IA, W_PPLUS
from .inertia_transfer import ZERO21, inertia_to_parent_add, load_sym66, sym66_minus_outer
from .variants import variant

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def spd_inverse(A, off, n):
    """Invert the n x n symmetric positive-definite row-major block A[off:off+n*n] in place.

    Gauss-Jordan without pivoting, which is stable for SPD matrices.
    Returns False when a pivot is not positive (singular joint-space inertia).
    """
    ok = True
    for k in range(n):
        piv = A[off + n * k + k]
        if not piv > 0.0:
            ok = False
            piv = 1.0
        inv = 1.0 / piv
        A[off + n * k + k] = 1.0
        for c in range(n):
            A[off + n * k + c] *= inv
        for r in range(n):
            if r != k:
                fac = A[off + n * r + k]
                if fac != 0.0:
                    A[off + n * r + k] = 0.0
                    for c in range(n):
                        A[off + n * r + c] -= fac * A[off + n * k + c]
    return ok


@njit(**_INL)
def init_articulated_inertia(mf, ws, j):
    """IA_j = I_j (the children add their P+ later)."""
    for k in range(36):
        ws[j, W_IA + k] = mf[j, INERTIA + k]


@njit(**_INL)
def _store6_flat(z, a, x0, x1, x2, x3, x4, x5):
    """z[a:a+6] = (x0, ..., x5)."""
    z[a] = x0
    z[a + 1] = x1
    z[a + 2] = x2
    z[a + 3] = x3
    z[a + 4] = x4
    z[a + 5] = x5


@njit(**_INL)
def pin_inertia_step(mi, mf, ws, z, j):
    """The articulated-inertia step of a PIN link: S = e_z (compile's re-framing), so U is
    column 2 of IA and D = IA[2, 2]. Returns (ok, P+, G) with P+ by its 21 upper entries
    (``inertia_transfer``), kept in registers, not in the data: nothing reads it after the
    pass (P+ and G zeros for a root link, which passes nothing on). U and G are stored too."""
    ua = mi[j, U_ADR]
    ga = mi[j, G_ADR]
    u0, u1, u2 = ws[j, W_IA + 2], ws[j, W_IA + 8], ws[j, W_IA + 14]
    u3, u4, u5 = ws[j, W_IA + 20], ws[j, W_IA + 26], ws[j, W_IA + 32]
    d = u2 + mf[j, ARMATURE]
    ok = d > 0.0
    dinv = 1.0 / d if ok else 0.0
    z[mi[j, DINV_ADR]] = dinv
    _store6_flat(z, ua, u0, u1, u2, u3, u4, u5)
    if mi[j, PARENT] < 0:
        return ok, ZERO21, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    g0, g1, g2, g3, g4, g5 = u0 * dinv, u1 * dinv, u2 * dinv, u3 * dinv, u4 * dinv, u5 * dinv
    _store6_flat(z, ga, g0, g1, g2, g3, g4, g5)
    return ok, sym66_minus_outer(ws, j, W_IA, g0, g1, g2, g3, g4, g5, u0, u1, u2, u3, u4, u5), (g0, g1, g2, g3, g4,
                                                                                                g5)


@njit(cache=True, _nrt=False)
def general_inertia_step(mi, mf, ws, z, j):
    """The articulated-inertia step of a link of any kind: U = IA S, D = S^T U, G = U D^-1, P+.

    Not inlined on purpose: inlined, its loops made the whole inward loop several times slower
    even for chains of PIN links that never take this path (measured); a call that is
    never taken costs nothing there.
    """
    nj = mi[j, NU]
    ua = mi[j, U_ADR]
    ga = mi[j, G_ADR]
    da = mi[j, DINV_ADR]
    for k in range(nj):
        for r in range(6):
            s = 0.0
            for c in range(6):
                s += ws[j, W_IA + 6 * r + c] * mf[j, S_COLS + 6 * k + c]
            z[ua + 6 * k + r] = s
    for a in range(nj):
        for b in range(nj):
            s = 0.0
            for r in range(6):
                s += mf[j, S_COLS + 6 * a + r] * z[ua + 6 * b + r]
            z[da + nj * a + b] = s
        z[da + nj * a + a] += mf[j, ARMATURE + a]
    ok = spd_inverse(z, da, nj)
    if mi[j, PARENT] >= 0:
        # G and P+ with the loops over nj outside and the fixed-size ones inside (the sums
        # in the same order): an nj-loop inside unrolled 6-loops made LLVM emit a vector
        # loop for each (7,900 lines of IR, 0.3 s of every kernel that links this step)
        for k in range(nj):
            for r in range(6):
                z[ga + 6 * k + r] = 0.0
            for b in range(nj):
                d = z[da + nj * b + k]
                for r in range(6):
                    z[ga + 6 * k + r] += z[ua + 6 * b + r] * d
        for r in range(6):
            for c in range(r, 6):
                ws[j, W_PPLUS + 6 * r + c] = ws[j, W_IA + 6 * r + c]
        for k in range(nj):
            for r in range(6):
                g = z[ga + 6 * k + r]
                for c in range(r, 6):
                    ws[j, W_PPLUS + 6 * r + c] -= g * z[ua + 6 * k + c]
        for r in range(6):
            for c in range(r + 1, 6):
                ws[j, W_PPLUS + 6 * c + r] = ws[j, W_PPLUS + 6 * r + c]
    return ok


def _make_articulated_inertia_pass(general):
    """``articulated_inertia_pass`` for links of any kind (``general``) or its PIN-only
    variant (the general step pruned before typing: not compiled)."""

    @variant("articulated_inertia_pass" if general else "articulated_inertia_pin_pass")
    def articulated_inertia_pass(mi, mf, ws, z):
        """IA, U, D^-1, G and P+ of every link (placements W_R/W_P must be current).

        Returns False when some D_j is singular.
        """
        n = mi.shape[0]
        for j in range(n):
            init_articulated_inertia(mf, ws, j)
        good = True
        for j in range(n - 1, -1, -1):
            if general and mi[j, KIND] != PIN:
                ok = general_inertia_step(mi, mf, ws, z, j)
                P = load_sym66(ws, j, W_PPLUS)
            else:
                ok, P, _ = pin_inertia_step(mi, mf, ws, z, j)
            if not ok:
                good = False
            p = mi[j, PARENT]
            if p >= 0:
                inertia_to_parent_add(ws, j, P, ws, p, W_IA)
        return good

    return articulated_inertia_pass


articulated_inertia_pass = _make_articulated_inertia_pass(True)
articulated_inertia_pin_pass = _make_articulated_inertia_pass(False)  # PIN links only
