"""The articulated-inertia pass of trees with modal bodies, (6 + n_modes) blocks: the inward
half of the flex articulated-body recursion without its bias forces, shared by the inverse
mass matrix (flex_inverse_mass.py) and the operational-space compliance
(flex_operational_space.py).

Per link k from the tips inward (see kernels/flex_dynamics.py for the blocks), with
H_k (NUALL x nb) = blockdiag(S_k^T, I) (the hinge's speeds, then the body's modal rates):

    P_k = M_k + sum_c Phi_c P+_c Phi_c^T,   U = P H^T,   D = H U (+ armature),
    G = U D^-1,   P+_k = P_k - G U^T,

where only the rigid 6x6 block of P+_c reaches the parent (Phi_c^T has zero modal rows).
The mass blocks M_k are an argument (``Mb``, nb x nb row-major at fi[k, MADR]): they may
depend on the state.
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
        nb, nk, nu = fi[k, FL.NB], fi[k, FL.NUALL], mi[k, NU]
        pa, ga, da = fi[k, FL.PADR], fi[k, FL.GADR], fi[k, FL.DADR]
        inertia_times_ht(mf, k, nu, nk, P, pa, nb, scratch)  # U
        for r in range(nk):  # D = H U (+ armature): S^T U[:6] on the hinge rows, U[6 + i] on the modes
            for c in range(nk):
                if r < nu:
                    s = mf[k, ARMATURE + r] if r == c else 0.0
                    for m in range(6):
                        s += mf[k, S_COLS + 6 * r + m] * scratch[m * nk + c]
                else:
                    s = scratch[(6 + r - nu) * nk + c]
                Dinv[da + r * nk + c] = s
        if not spd_inverse(Dinv, da, nk):
            ok = False
        for r in range(nb):  # G = U D^-1
            for c in range(nk):
                s = 0.0
                for m in range(nk):
                    s += scratch[r * nk + m] * Dinv[da + m * nk + c]
                G[ga + r * nk + c] = s
        for r in range(nb):  # P+ = P - G U^T
            for c in range(nb):
                s = 0.0
                for m in range(nk):
                    s += G[ga + r * nk + m] * scratch[c * nk + m]
                P[pa + r * nb + c] -= s
        p = mi[k, PARENT]
        if p >= 0:  # P_p += Phi P+[:6, :6] Phi^T, Phi^T the 6 x nbp block at phi[o:]
            o = fi[k, FL.PHI]
            nbp = fi[p, FL.NB]
            pp = fi[p, FL.PADR]
            for r in range(6):  # T = P+[:6, :6] Phi^T (6 x nbp) in scratch
                for b in range(nbp):
                    s = 0.0
                    for c in range(6):
                        s += P[pa + r * nb + c] * phi[o + c * nbp + b]
                    scratch[r * nbp + b] = s
            for a in range(nbp):
                for b in range(nbp):
                    s = 0.0
                    for r in range(6):
                        s += phi[o + r * nbp + a] * scratch[r * nbp + b]
                    P[pp + a * nbp + b] += s
    return ok
