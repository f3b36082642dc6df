"""A symmetric spatial inertia handed from a link to its parent: X_j^T S X_j.

The articulated-body inward pass hands each link's P+ to its parent this way. S is
symmetric, so it travels as a tuple of its 21 upper entries, row by row

    00 01 02 03 04 05 | 11 12 13 14 15 | 22 23 24 25 | 33 34 35 | 44 45 | 55,

which stays in registers: a PIN link's step forms P+ there and never stores it (nothing
reads P+ after the pass, and a store to ``ws`` may alias the ragged blocks of ``z`` that
the step writes, so the loads after it could not be forwarded). Each mirrored pair of
the result is formed once and added to both places: the parent's inertia stays exactly
symmetric (the two triangles used to be summed apart, a rounding away from each other).
"""
from numba import njit

from .layout import W_P, W_R
from .spatial_inline import load9, mul33, rotate_sym33

_INL = dict(cache=True, inline="always")

ZERO21 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
          0.0, 0.0)


@njit(**_INL)
def load_sym66(M, r, o):
    """The 21 upper entries of the symmetric row-major 6x6 at M[r, o:]."""
    return (M[r, o], M[r, o + 1], M[r, o + 2], M[r, o + 3], M[r, o + 4], M[r, o + 5],
            M[r, o + 7], M[r, o + 8], M[r, o + 9], M[r, o + 10], M[r, o + 11],
            M[r, o + 14], M[r, o + 15], M[r, o + 16], M[r, o + 17],
            M[r, o + 21], M[r, o + 22], M[r, o + 23],
            M[r, o + 28], M[r, o + 29],
            M[r, o + 35])


@njit(**_INL)
def sym66_minus_outer(M, r, o, g0, g1, g2, g3, g4, g5, u0, u1, u2, u3, u4, u5):
    """The 21 upper entries of M[r, o:] - g u^T (symmetric where g is a multiple of u)."""
    return (M[r, o] - g0 * u0, M[r, o + 1] - g0 * u1, M[r, o + 2] - g0 * u2, M[r, o + 3] - g0 * u3,
            M[r, o + 4] - g0 * u4, M[r, o + 5] - g0 * u5,
            M[r, o + 7] - g1 * u1, M[r, o + 8] - g1 * u2, M[r, o + 9] - g1 * u3, M[r, o + 10] - g1 * u4,
            M[r, o + 11] - g1 * u5,
            M[r, o + 14] - g2 * u2, M[r, o + 15] - g2 * u3, M[r, o + 16] - g2 * u4, M[r, o + 17] - g2 * u5,
            M[r, o + 21] - g3 * u3, M[r, o + 22] - g3 * u4, M[r, o + 23] - g3 * u5,
            M[r, o + 28] - g4 * u4, M[r, o + 29] - g4 * u5,
            M[r, o + 35] - g5 * u5)


@njit(cache=True)
def sym66_times(S, x0, x1, x2, x3, x4, x5):
    """S x for S given by its 21 upper entries, as a 6-tuple (each row summed in column order)."""
    return (S[0] * x0 + S[1] * x1 + S[2] * x2 + S[3] * x3 + S[4] * x4 + S[5] * x5,
            S[1] * x0 + S[6] * x1 + S[7] * x2 + S[8] * x3 + S[9] * x4 + S[10] * x5,
            S[2] * x0 + S[7] * x1 + S[11] * x2 + S[12] * x3 + S[13] * x4 + S[14] * x5,
            S[3] * x0 + S[8] * x1 + S[12] * x2 + S[15] * x3 + S[16] * x4 + S[17] * x5,
            S[4] * x0 + S[9] * x1 + S[13] * x2 + S[16] * x3 + S[18] * x4 + S[19] * x5,
            S[5] * x0 + S[10] * x1 + S[14] * x2 + S[17] * x3 + S[19] * x4 + S[20] * x5)


@njit(cache=True)
def _rotate33(R, B):
    """R B R^T for a row-major 3x3 B."""
    T = mul33(R, B)
    return (T[0] * R[0] + T[1] * R[1] + T[2] * R[2], T[0] * R[3] + T[1] * R[4] + T[2] * R[5],
            T[0] * R[6] + T[1] * R[7] + T[2] * R[8],
            T[3] * R[0] + T[4] * R[1] + T[5] * R[2], T[3] * R[3] + T[4] * R[4] + T[5] * R[5],
            T[3] * R[6] + T[4] * R[7] + T[5] * R[8],
            T[6] * R[0] + T[7] * R[1] + T[8] * R[2], T[6] * R[3] + T[7] * R[4] + T[8] * R[5],
            T[6] * R[6] + T[7] * R[7] + T[8] * R[8])


@njit(**_INL)
def _add_pair(dst, rd, o, r, c, x):
    """Add x to entries (r, c) and (c, r) of the 6x6 at dst[rd, o:] (once where r == c)."""
    dst[rd, o + 6 * r + c] += x
    if r != c:
        dst[rd, o + 6 * c + r] += x


@njit(**_INL)
def inertia_to_parent_add(ws, j, S, dst, rd, od):
    """dst 6x6 += X_j^T S X_j (link j -> parent), S by its 21 upper entries.

    Rotate the blocks A, B, C of S = [[A, B], [B^T, C]] to parent axes, then shift the
    reference point by p: with P = [p]x,
    X^T S X = [[A' + P B'^T - B' P - P C' P, B' + P C'], [(B' + P C')^T, C']].
    """
    R = load9(ws, j, W_R)
    A = rotate_sym33(R, S[0], S[1], S[2], S[6], S[7], S[11])
    B = _rotate33(R, (S[3], S[4], S[5], S[8], S[9], S[10], S[12], S[13], S[14]))
    C = rotate_sym33(R, S[15], S[16], S[17], S[18], S[19], S[20])
    px = ws[j, W_P]
    py = ws[j, W_P + 1]
    pz = ws[j, W_P + 2]
    # Bn = B' + P C' (C' = [[C0, C1, C2], [C1, C3, C4], [C2, C4, C5]])
    Bn = (B[0] - pz * C[1] + py * C[2], B[1] - pz * C[3] + py * C[4], B[2] - pz * C[4] + py * C[5],
          B[3] + pz * C[0] - px * C[2], B[4] + pz * C[1] - px * C[4], B[5] + pz * C[2] - px * C[5],
          B[6] - py * C[0] + px * C[1], B[7] - py * C[1] + px * C[3], B[8] - py * C[2] + px * C[4])
    # top-left = A' + P B'^T - Bn P (symmetric): (P B'^T)[r, c] = P_r . B'_c, (Bn P)[r, c] = Bn_r . P_c
    _add_pair(dst, rd, od, 0, 0, A[0] + (-pz * B[1] + py * B[2]) - (Bn[1] * pz - Bn[2] * py))
    _add_pair(dst, rd, od, 0, 1, A[1] + (-pz * B[4] + py * B[5]) - (Bn[2] * px - Bn[0] * pz))
    _add_pair(dst, rd, od, 0, 2, A[2] + (-pz * B[7] + py * B[8]) - (Bn[0] * py - Bn[1] * px))
    _add_pair(dst, rd, od, 1, 1, A[3] + (pz * B[3] - px * B[5]) - (Bn[5] * px - Bn[3] * pz))
    _add_pair(dst, rd, od, 1, 2, A[4] + (pz * B[6] - px * B[8]) - (Bn[3] * py - Bn[4] * px))
    _add_pair(dst, rd, od, 2, 2, A[5] + (-py * B[6] + px * B[7]) - (Bn[6] * py - Bn[7] * px))
    _add_pair(dst, rd, od, 0, 3, Bn[0])
    _add_pair(dst, rd, od, 0, 4, Bn[1])
    _add_pair(dst, rd, od, 0, 5, Bn[2])
    _add_pair(dst, rd, od, 1, 3, Bn[3])
    _add_pair(dst, rd, od, 1, 4, Bn[4])
    _add_pair(dst, rd, od, 1, 5, Bn[5])
    _add_pair(dst, rd, od, 2, 3, Bn[6])
    _add_pair(dst, rd, od, 2, 4, Bn[7])
    _add_pair(dst, rd, od, 2, 5, Bn[8])
    _add_pair(dst, rd, od, 3, 3, C[0])
    _add_pair(dst, rd, od, 3, 4, C[1])
    _add_pair(dst, rd, od, 3, 5, C[2])
    _add_pair(dst, rd, od, 4, 4, C[3])
    _add_pair(dst, rd, od, 4, 5, C[4])
    _add_pair(dst, rd, od, 5, 5, C[5])
