"""The articulated-inertia pass of trees with modal bodies, (6 + n_modes) blocks: the inward
half of the flex articulated-body recursion without its bias forces. Its per-link step
(``articulated_step``) and the hand-over to the parent (``inertia_to_parent``) are the one
home of these formulas: the forward dynamics (flex_articulated.py), the inverse mass matrix
(flex_inverse_mass.py) and the operational-space compliance (flex_operational_space.py) use
them.

Per link k from the tips inward (see kernels/flex_dynamics.py for the blocks), with
H_k (NUALL x nb) = blockdiag(S_k^T, I) (the hinge's speeds, then the body's modal rates):

    P_k = M_k + sum_c Phi_c P+_c Phi_c^T,   U = P H^T,   D = H U (+ armature),
    G = U D^-1,   P+_k = P_k - G U^T,

where only the rigid 6x6 block of P+_c reaches the parent (Phi_c^T has zero modal rows).
The mass blocks M_k are an argument (``Mb``, nb x nb row-major at fi[k, MADR]): they may
depend on the state.

Symmetry is kept exactly: D, D^-1, P+ and the parent's sum are computed on and above the diagonal
and mirrored. Computed in full, their rounding differs on the two sides, and the modal
blocks amplify the skew part from link to link (5-10x per ten-mode body), until on chains of
some 20 such bodies a D is no longer positive definite.
"""
from numba import njit

from . import flex_layout as FL
from .articulated_inertia import spd_inverse
from .layout import ARMATURE, NU, PARENT, S_COLS

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def inertia_times_ht(mf, k, nu, nk, P, pa, nb, out):
    """out (nb x nk, row-major) = P H_k^T for the (nb x nb) block at P[pa:]: the hinge columns
    are P[:, :6] S_k, the modal ones P's own columns 6.. (H^T is the identity there)."""
    for r in range(nb):
        for c in range(nu):
            s = 0.0
            for m in range(6):
                s += P[pa + r * nb + m] * mf[k, S_COLS + 6 * c + m]
            out[r * nk + c] = s
        for i in range(nk - nu):
            out[r * nk + nu + i] = P[pa + r * nb + 6 + i]


@njit(cache=True)
def articulated_step(mf, fi, k, nu, P, pa, G, ga, Dinv, da, scratch):
    """Link k's step: U = P H^T (left in ``scratch``, nb x NUALL), D^-1 at Dinv[da:],
    G = U D^-1 at G[ga:], and P (nb x nb at P[pa:]) replaced by P+ = P - G U^T.
    False when D is not positive definite."""
    nb, nk = fi[k, FL.NB], fi[k, FL.NUALL]
    inertia_times_ht(mf, k, nu, nk, P, pa, nb, scratch)  # U
    for r in range(nk):  # D = H U (+ armature): S^T U[:6] on the hinge rows, U[6 + i] on the modes
        for c in range(r, nk):
            if r < nu:
                s = mf[k, ARMATURE + r] if r == c else 0.0
                for m in range(6):
                    s += mf[k, S_COLS + 6 * r + m] * scratch[m * nk + c]
            else:
                s = scratch[(6 + r - nu) * nk + c]
            Dinv[da + r * nk + c] = s
            Dinv[da + c * nk + r] = s
    ok = spd_inverse(Dinv, da, nk)
    for r in range(nk):  # Gauss-Jordan's D^-1 is symmetric only to rounding
        for c in range(r + 1, nk):
            v = 0.5 * (Dinv[da + r * nk + c] + Dinv[da + c * nk + r])
            Dinv[da + r * nk + c] = v
            Dinv[da + c * nk + r] = v
    for r in range(nb):  # G = U D^-1
        for c in range(nk):
            s = 0.0
            for m in range(nk):
                s += scratch[r * nk + m] * Dinv[da + m * nk + c]
            G[ga + r * nk + c] = s
    for r in range(nb):  # P+ = P - G U^T, on and above the diagonal, mirrored
        for c in range(r, nb):
            s = 0.0
            for m in range(nk):
                s += G[ga + r * nk + m] * scratch[c * nk + m]
            v = 0.5 * (P[pa + r * nb + c] + P[pa + c * nb + r]) - s
            P[pa + r * nb + c] = v
            P[pa + c * nb + r] = v
    return ok


@njit(cache=True)
def inertia_to_parent(fi, phi, P, k, p, scratch):
    """P_p += Phi_k P+_k[:6, :6] Phi_k^T, both blocks at their PADR."""
    child_inertia_to_parent(fi, phi, P, fi[k, FL.PADR], fi[k, FL.NB], k, P, fi[p, FL.PADR], fi[p, FL.NB], scratch)


@njit(cache=True)
def child_inertia_to_parent(fi, phi, X, xa, xs, k, P, pp, nbp, scratch):
    """P[pp:] (nb_p x nb_p) += Phi_k X Phi_k^T, X = P+_k[:6, :6] at X[xa:] with row stride xs
    (Phi_k^T the 6 x nb_p block at phi[fi[k, PHI]:]), on and above the diagonal and
    mirrored; ``scratch`` holds 6 x nb_p."""
    o = fi[k, FL.PHI]
    for r in range(6):  # T = P+[:6, :6] Phi^T (6 x nbp)
        for b in range(nbp):
            s = 0.0
            for c in range(6):
                s += X[xa + r * xs + c] * phi[o + c * nbp + b]
            scratch[r * nbp + b] = s
    for a in range(nbp):
        for b in range(a, nbp):
            s = 0.0
            for r in range(6):
                s += phi[o + r * nbp + a] * scratch[r * nbp + b]
            P[pp + a * nbp + b] += s
            if b != a:
                P[pp + b * nbp + a] += s


@njit(cache=True)
def flex_articulated_inertia_pass(mi, mf, fi, Mb, phi, P, G, Dinv, scratch):
    """G = U D^-1 (nb x NUALL at fi[k, GADR]) and D^-1 (at fi[k, DADR]) of every link; P
    (at fi[k, PADR]) ends as P+. ``phi``: the Phi^T blocks of flex_kinematics; ``scratch``:
    at least nb * NUALL of the largest link. False when some D is not positive definite."""
    n = mi.shape[0]
    for k in range(n):
        nb, pa, ma = fi[k, FL.NB], fi[k, FL.PADR], fi[k, FL.MADR]
        for i in range(nb * nb):
            P[pa + i] = Mb[ma + i]
    ok = True
    for k in range(n - 1, -1, -1):
        if not articulated_step(mf, fi, k, mi[k, NU], P, fi[k, FL.PADR], G, fi[k, FL.GADR], Dinv, fi[k, FL.DADR],
                                scratch):
            ok = False
        p = mi[k, PARENT]
        if p >= 0:
            inertia_to_parent(fi, phi, P, k, p, scratch)
    return ok
