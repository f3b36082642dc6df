"""Composite-rigid-body mass matrix (CRBA), in world axes about each tree's root.

1. Kinematics: world placement of every link; each link's rigid-body inertia
   (m, h = m c, I about the origin) carried to world axes about its tree's root link
   origin, and each motion subspace column likewise, s_w = X_w,j S_j[:, k]. About the
   root (W_PR), not the world origin: a model 7e6 m away (an orbit) would form moments
   of 1e13 and cancel them (M lost 1e-2 of its value there, all of it at 1 AU). M is the
   same about any point: every column and inertia moves alike.
2. Inward pass: composite inertias Ic_p += Ic_j, a plain sum in world coordinates
   (a composite of rigid bodies is again a rigid-body inertia: 10 numbers).
3. In the same pass, once Ic_j is whole (all its children added): for each column k of
   link j, F = Ic_j s_w,k, and for j and each ancestor i, M[i, j] = s_w,i^T F, a 6-term
   dot product per pair (``link_columns``; as a third pass of its own it cost UR5's core
   about 20 ns more, Panda's 35).
Work is O(N d) for tree depth d; M is dense (nu x nu). Expressing everything in
world coordinates (as Pinocchio does) removes the per-pair transforms of the
body-frame version.
"""
from numba import njit

from .variants import variant
from .common import check_state, data_start, link_rows, model_arrays, result_status
from .joint_transform import place_links, place_pin_links, world_placement
from .layout import (
    ARMATURE, DENSE_M, KIND, NU, PARENT, PIN, RB_H, RB_I, RB_MASS, UOFF, W_PR, W_PW, W_RW, W_SW, W_Y,
)
from .spatial_inline import load9, rigid_inertia_times, rotate_sym33, store6, world_subspace_column


@njit(cache=True, inline="always")
def world_rigid_inertia(mf, ws, j):
    """ws[j, W_Y:W_Y+10] = the link's rigid-body inertia in world axes about its tree's root
    link origin.

    With R the link's world rotation and p its origin from the root (W_PR): h_w = R h + m p and
    I_w = R I R^T - [p]x [R h]x - [R h]x [p]x - m [p]x [p]x  (since [a]x^T = -[a]x).
    """
    R = load9(ws, j, W_RW)
    m = mf[j, RB_MASS]
    h0 = mf[j, RB_H]
    h1 = mf[j, RB_H + 1]
    h2 = mf[j, RB_H + 2]
    i00, i01, i02, i11, i12, i22 = rotate_sym33(R, mf[j, RB_I], mf[j, RB_I + 1], mf[j, RB_I + 2], mf[j, RB_I + 3],
                                                mf[j, RB_I + 4], mf[j, RB_I + 5])  # R I R^T
    r0 = R[0] * h0 + R[1] * h1 + R[2] * h2  # R h
    r1 = R[3] * h0 + R[4] * h1 + R[5] * h2
    r2 = R[6] * h0 + R[7] * h1 + R[8] * h2
    p0 = ws[j, W_PR]
    p1 = ws[j, W_PR + 1]
    p2 = ws[j, W_PR + 2]
    # -[p]x[r]x - [r]x[p]x = 2 (p.r) 1 - p r^T - r p^T ; -m [p]x[p]x = m (|p|^2 1 - p p^T)
    pr = p0 * r0 + p1 * r1 + p2 * r2
    pp = p0 * p0 + p1 * p1 + p2 * p2
    ws[j, W_Y] = m
    ws[j, W_Y + 1] = r0 + m * p0
    ws[j, W_Y + 2] = r1 + m * p1
    ws[j, W_Y + 3] = r2 + m * p2
    ws[j, W_Y + 4] = i00 + 2.0 * pr - 2.0 * p0 * r0 + m * (pp - p0 * p0)
    ws[j, W_Y + 5] = i01 - p0 * r1 - r0 * p1 - m * p0 * p1
    ws[j, W_Y + 6] = i02 - p0 * r2 - r0 * p2 - m * p0 * p2
    ws[j, W_Y + 7] = i11 + 2.0 * pr - 2.0 * p1 * r1 + m * (pp - p1 * p1)
    ws[j, W_Y + 8] = i12 - p1 * r2 - r1 * p2 - m * p1 * p2
    ws[j, W_Y + 9] = i22 + 2.0 * pr - 2.0 * p2 * r2 + m * (pp - p2 * p2)


@njit(cache=True, inline="always")
def world_motion_columns(mi, mf, ws, j, at=W_PW):
    """ws[j, W_SW + 6k:] = the motion subspace columns of link j in world axes, about the
    point from which link j's origin is at ws[j, at:at+3] (W_PW: the world origin; W_PR:
    its tree's root link origin)."""
    p0 = ws[j, at]
    p1 = ws[j, at + 1]
    p2 = ws[j, at + 2]
    for k in range(mi[j, NU]):
        w0, w1, w2, v0, v1, v2 = world_subspace_column(mf, ws, j, k)
        o = W_SW + 6 * k
        ws[j, o] = w0
        ws[j, o + 1] = w1
        ws[j, o + 2] = w2
        ws[j, o + 3] = v0 + p1 * w2 - p2 * w1
        ws[j, o + 4] = v1 + p2 * w0 - p0 * w2
        ws[j, o + 5] = v2 + p0 * w1 - p1 * w0


@njit(cache=True, inline="always")
def link_columns(mi, mf, ws, M, j, general):
    """M's entries of link j's columns (and, by symmetry, rows) with j and its ancestors:
    F = Ic_j s_k for each of j's world columns s_k, then M[i, col] = s_i^T F. Needs Ic_j whole
    (ws[j, W_Y:]) and the world columns of j and its ancestors (W_SW). ``general``: links of
    any kind (else PIN only, one speed each: loops LLVM unrolls); a link of one speed takes
    the one-column code in both variants."""
    uj = mi[j, UOFF]
    nk = mi[j, NU] if general else 1
    for k in range(nk):
        o = W_SW + 6 * k
        f0, f1, f2, f3, f4, f5 = rigid_inertia_times(ws, j, W_Y, ws[j, o], ws[j, o + 1], ws[j, o + 2],
                                                     ws[j, o + 3], ws[j, o + 4], ws[j, o + 5])
        col = uj + k
        for a in range(k + 1):  # the link's own block (a <= k; symmetric)
            b = W_SW + 6 * a
            s = (ws[j, b] * f0 + ws[j, b + 1] * f1 + ws[j, b + 2] * f2
                 + ws[j, b + 3] * f3 + ws[j, b + 4] * f4 + ws[j, b + 5] * f5)
            if a == k:
                s += mf[j, ARMATURE + k]  # reflected rotor inertia on the diagonal
            M[uj + a, col] = s
            M[col, uj + a] = s
        i = mi[j, PARENT]
        while i >= 0:  # the ancestors' rows
            ui = mi[i, UOFF]
            ni = mi[i, NU] if general else 1
            if ni == 1:  # (one speed, the common case: no loop)
                s = (ws[i, W_SW] * f0 + ws[i, W_SW + 1] * f1 + ws[i, W_SW + 2] * f2
                     + ws[i, W_SW + 3] * f3 + ws[i, W_SW + 4] * f4 + ws[i, W_SW + 5] * f5)
                M[ui, col] = s
                M[col, ui] = s
            else:
                for a in range(ni):
                    b = W_SW + 6 * a
                    s = (ws[i, b] * f0 + ws[i, b + 1] * f1 + ws[i, b + 2] * f2
                         + ws[i, b + 3] * f3 + ws[i, b + 4] * f4 + ws[i, b + 5] * f5)
                    M[ui + a, col] = s
                    M[col, ui + a] = s
            i = mi[i, PARENT]


def _make_crba_core(general):
    """``crba_core`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("crba_core" if general else "crba_pin_core", _nrt=False)
    def crba_core(mi, mf, ws, q, M):
        """Fill the full symmetric mass matrix M (nu, nu); entries of unrelated branches are 0."""
        n = mi.shape[0]
        if mf[n, DENSE_M] == 0.0:  # unrelated branches leave zeros that must be written
            for r in range(M.shape[0]):
                for c in range(M.shape[1]):
                    M[r, c] = 0.0
        if general:  # (a constant of the variant)
            place_links(mi, mf, ws, q)
        else:
            place_pin_links(mi, mf, ws, q)
        for j in range(n):
            world_placement(mi, ws, j)
            world_rigid_inertia(mf, ws, j)
            if general and mi[j, KIND] != PIN:
                world_motion_columns(mi, mf, ws, j, W_PR)
            else:  # S = e_z: its world column is R's third column (the same sums without the zeros)
                w0 = ws[j, W_RW + 2]
                w1 = ws[j, W_RW + 5]
                w2 = ws[j, W_RW + 8]
                p0 = ws[j, W_PR]
                p1 = ws[j, W_PR + 1]
                p2 = ws[j, W_PR + 2]
                store6(ws, j, W_SW, w0, w1, w2, p1 * w2 - p2 * w1, p2 * w0 - p0 * w2, p0 * w1 - p1 * w0)
        # leaves first: every child (a higher index) has added its composite inertia when j is
        # reached, so Ic_j is whole; its columns are made then, in the same pass (the sums in
        # the order of the separate passes: the same M bit for bit)
        for j in range(n - 1, -1, -1):
            link_columns(mi, mf, ws, M, j, general)
            p = mi[j, PARENT]
            if p >= 0:
                for k in range(10):
                    ws[p, W_Y + k] += ws[j, W_Y + k]

    return crba_core


crba_core = _make_crba_core(True)
crba_pin_core = _make_crba_core(False)  # PIN links only (joint_transform.pin_variant)


def _make_mass_matrix(general):
    """The checked entry point of ``crba_core`` or of its PIN-only variant."""

    @variant("mass_matrix" if general else "mass_matrix_pins", _nrt=False)
    def mass_matrix(dbuf, q, M):
        """Checked entry point: a status (kernels/status.py) for q, or OVERFLOW."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        d0 = data_start(dbuf, n)
        ws = link_rows(dbuf, d0, n)
        st = check_state(mi, q, q, q, -1, -1)
        if st == 0:
            if general:  # (a constant of the variant)
                crba_core(mi, mf, ws, q, M)
            else:
                crba_pin_core(mi, mf, ws, q, M)
        return result_status(st, M)

    return mass_matrix


mass_matrix = _make_mass_matrix(True)
mass_matrix_pins = _make_mass_matrix(False)  # PIN links only (joint_transform.pin_variant)
