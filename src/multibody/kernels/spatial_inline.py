"""Scalar spatial-algebra helpers for kernels.

Allocation-free and view-free: helpers read and write ``array[row, offset + k]``
directly (Numba row-slice views cost reference counting in the inner loops: several
times slower, bench/README.md) and small results come back as tuples, which stay in registers.
Rotations are row-major 9-tuples; spatial vectors are [angular; linear];
6x6 matrices are stored row-major in 36 consecutive columns.

A link frame c placed in its parent frame p by (R, p) = (R_pc, p_pc):
motion vectors go parent -> child with  X = [[R^T, 0], [-R^T [p]x, R^T]],
force vectors go child -> parent with   X^T = [[R, [p]x R], [0, R]].
"""
import math

from numba import njit

from .layout import S_COLS, W_P, W_PW, W_R, W_RW

# Helpers on scalars and tuples alone (rotations, 3x3 products) are compiled once and left
# to LLVM to inline; helpers that index arrays are inlined by Numba (``_INL``): a call that
# takes arrays keeps their reference counts around it (see docs/architecture.md).
_INL = dict(cache=True, inline="always")


@njit(cache=True)
def rot_axis_angle(ax, ay, az, angle):
    """exp(angle [a]x) for a unit axis a (Rodrigues), as a row-major 9-tuple."""
    c = math.cos(angle)
    s = math.sin(angle)
    t = 1.0 - c
    return (c + t * ax * ax, t * ax * ay - s * az, t * ax * az + s * ay,
            t * ax * ay + s * az, c + t * ay * ay, t * ay * az - s * ax,
            t * ax * az - s * ay, t * ay * az + s * ax, c + t * az * az)


@njit(cache=True)
def rot_rotvec(vx, vy, vz):
    """exp([v]x), accurate near v = 0, as a row-major 9-tuple."""
    th2 = vx * vx + vy * vy + vz * vz
    if th2 < 1e-12:
        a = 1.0 - th2 / 6.0
        b = 0.5 - th2 / 24.0
    else:
        th = math.sqrt(th2)
        a = math.sin(th) / th
        b = (1.0 - math.cos(th)) / th2
    return (1.0 - b * (vy * vy + vz * vz), -a * vz + b * vx * vy, a * vy + b * vx * vz,
            a * vz + b * vx * vy, 1.0 - b * (vx * vx + vz * vz), -a * vx + b * vy * vz,
            -a * vy + b * vx * vz, a * vx + b * vy * vz, 1.0 - b * (vx * vx + vy * vy))


@njit(cache=True)
def rot_quat(x, y, z, w):
    """Rotation matrix of the quaternion (x, y, z, w) (normalised first), as a 9-tuple."""
    s = 2.0 / (x * x + y * y + z * z + w * w)
    return (1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w),
            s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w),
            s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y))


@njit(cache=True)
def world_subspace_column(mf, ws, j, k):
    """Column k of link j's motion subspace S in world axes, about the link's origin:
    (w0, w1, w2, v0, v1, v2) = (R_world_link S_ang, R_world_link S_lin) (W_RW)."""
    s = S_COLS + 6 * k
    w0 = ws[j, W_RW] * mf[j, s] + ws[j, W_RW + 1] * mf[j, s + 1] + ws[j, W_RW + 2] * mf[j, s + 2]
    w1 = ws[j, W_RW + 3] * mf[j, s] + ws[j, W_RW + 4] * mf[j, s + 1] + ws[j, W_RW + 5] * mf[j, s + 2]
    w2 = ws[j, W_RW + 6] * mf[j, s] + ws[j, W_RW + 7] * mf[j, s + 1] + ws[j, W_RW + 8] * mf[j, s + 2]
    v0 = ws[j, W_RW] * mf[j, s + 3] + ws[j, W_RW + 1] * mf[j, s + 4] + ws[j, W_RW + 2] * mf[j, s + 5]
    v1 = ws[j, W_RW + 3] * mf[j, s + 3] + ws[j, W_RW + 4] * mf[j, s + 4] + ws[j, W_RW + 5] * mf[j, s + 5]
    v2 = ws[j, W_RW + 6] * mf[j, s + 3] + ws[j, W_RW + 7] * mf[j, s + 4] + ws[j, W_RW + 8] * mf[j, s + 5]
    return w0, w1, w2, v0, v1, v2


@njit(cache=True)
def mul33(A, B):
    """A B for row-major 9-tuples."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[3] + A[5] * B[6], A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
            A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@njit(cache=True)
def rotate_sym33(R, a00, a01, a02, a11, a12, a22):
    """R A R^T for a symmetric 3x3 A (a rotational inertia, say), as its upper entries
    (00, 01, 02, 11, 12, 22): T = R A, then the rows of T against the rows of R."""
    T = mul33(R, (a00, a01, a02, a01, a11, a12, a02, a12, a22))
    return (T[0] * R[0] + T[1] * R[1] + T[2] * R[2], T[0] * R[3] + T[1] * R[4] + T[2] * R[5],
            T[0] * R[6] + T[1] * R[7] + T[2] * R[8], T[3] * R[3] + T[4] * R[4] + T[5] * R[5],
            T[3] * R[6] + T[4] * R[7] + T[5] * R[8], T[6] * R[6] + T[7] * R[7] + T[8] * R[8])


@njit(cache=True)
def mul33_vec(A, x0, x1, x2):
    """A x for a row-major 9-tuple A."""
    return (A[0] * x0 + A[1] * x1 + A[2] * x2, A[3] * x0 + A[4] * x1 + A[5] * x2,
            A[6] * x0 + A[7] * x1 + A[8] * x2)


@njit(cache=True)
def mul33T_vec(A, x0, x1, x2):
    """A^T x for a row-major 9-tuple A."""
    return (A[0] * x0 + A[3] * x1 + A[6] * x2, A[1] * x0 + A[4] * x1 + A[7] * x2,
            A[2] * x0 + A[5] * x1 + A[8] * x2)


@njit(**_INL)
def load9(a, r, o):
    """The 9-tuple a[r, o:o+9]."""
    return (a[r, o], a[r, o + 1], a[r, o + 2], a[r, o + 3], a[r, o + 4], a[r, o + 5],
            a[r, o + 6], a[r, o + 7], a[r, o + 8])


@njit(**_INL)
def store9(a, r, o, t):
    """a[r, o:o+9] = t (written out: indexing a tuple with a loop variable is slow in Numba)."""
    a[r, o] = t[0]
    a[r, o + 1] = t[1]
    a[r, o + 2] = t[2]
    a[r, o + 3] = t[3]
    a[r, o + 4] = t[4]
    a[r, o + 5] = t[5]
    a[r, o + 6] = t[6]
    a[r, o + 7] = t[7]
    a[r, o + 8] = t[8]


@njit(**_INL)
def store6(a, r, o, x0, x1, x2, x3, x4, x5):
    """a[r, o:o+6] = (x0, ..., x5)."""
    a[r, o] = x0
    a[r, o + 1] = x1
    a[r, o + 2] = x2
    a[r, o + 3] = x3
    a[r, o + 4] = x4
    a[r, o + 5] = x5


@njit(**_INL)
def motion_to_child_t(ws, j, src, rs, os):
    """X_j src[rs, os:os+6] as a 6-tuple (parent coordinates to link j's)."""
    wx = src[rs, os]
    wy = src[rs, os + 1]
    wz = src[rs, os + 2]
    px = ws[j, W_P]
    py = ws[j, W_P + 1]
    pz = ws[j, W_P + 2]
    # velocity of the child origin, still in parent axes: v + w x p
    lx = src[rs, os + 3] + wy * pz - wz * py
    ly = src[rs, os + 4] + wz * px - wx * pz
    lz = src[rs, os + 5] + wx * py - wy * px
    R = load9(ws, j, W_R)
    return (R[0] * wx + R[3] * wy + R[6] * wz, R[1] * wx + R[4] * wy + R[7] * wz,
            R[2] * wx + R[5] * wy + R[8] * wz, R[0] * lx + R[3] * ly + R[6] * lz,
            R[1] * lx + R[4] * ly + R[7] * lz, R[2] * lx + R[5] * ly + R[8] * lz)


@njit(**_INL)
def motion_to_child(ws, j, src, rs, os, dst, rd, od):
    """dst[rd, od:od+6] = X_j src[rs, os:os+6] (parent coordinates to link j's)."""
    m = motion_to_child_t(ws, j, src, rs, os)
    for k in range(6):
        dst[rd, od + k] = m[k]


@njit(**_INL)
def force_to_parent_t(ws, j, n0, n1, n2, f0, f1, f2):
    """X_j^T [n; f] as a 6-tuple (a force of link j's coordinates to its parent's)."""
    R = load9(ws, j, W_R)
    n = mul33_vec(R, n0, n1, n2)
    f = mul33_vec(R, f0, f1, f2)
    px = ws[j, W_P]
    py = ws[j, W_P + 1]
    pz = ws[j, W_P + 2]
    return (n[0] + py * f[2] - pz * f[1], n[1] + pz * f[0] - px * f[2], n[2] + px * f[1] - py * f[0],
            f[0], f[1], f[2])


@njit(**_INL)
def force_to_parent(ws, j, src, rs, os):
    """X_j^T src[rs, os:os+6] as a 6-tuple (link j's coordinates to its parent's)."""
    return force_to_parent_t(ws, j, src[rs, os], src[rs, os + 1], src[rs, os + 2], src[rs, os + 3],
                             src[rs, os + 4], src[rs, os + 5])


@njit(**_INL)
def cross_motion_t(v0, v1, v2, v3, v4, v5, m0, m1, m2, m3, m4, m5):
    """v x m as a 6-tuple (spatial cross product of motion vectors)."""
    return (v1 * m2 - v2 * m1, v2 * m0 - v0 * m2, v0 * m1 - v1 * m0,
            v1 * m5 - v2 * m4 + v4 * m2 - v5 * m1, v2 * m3 - v0 * m5 + v5 * m0 - v3 * m2,
            v0 * m4 - v1 * m3 + v3 * m1 - v4 * m0)


@njit(**_INL)
def cross_motion_add(a, ra, oa, b, rb, ob, c, rc, oc):
    """c[rc, oc:] += a[ra, oa:] x b[rb, ob:] (spatial cross product of motion vectors)."""
    x = cross_motion_t(a[ra, oa], a[ra, oa + 1], a[ra, oa + 2], a[ra, oa + 3], a[ra, oa + 4], a[ra, oa + 5],
                       b[rb, ob], b[rb, ob + 1], b[rb, ob + 2], b[rb, ob + 3], b[rb, ob + 4], b[rb, ob + 5])
    for k in range(6):
        c[rc, oc + k] += x[k]


@njit(**_INL)
def cross_force_t(v0, v1, v2, v3, v4, v5, f0, f1, f2, f3, f4, f5):
    """v x* f as a 6-tuple (motion vector cross force vector)."""
    return (v1 * f2 - v2 * f1 + v4 * f5 - v5 * f4, v2 * f0 - v0 * f2 + v5 * f3 - v3 * f5,
            v0 * f1 - v1 * f0 + v3 * f4 - v4 * f3, v1 * f5 - v2 * f4, v2 * f3 - v0 * f5, v0 * f4 - v1 * f3)


@njit(**_INL)
def cross_force_add(a, ra, oa, b, rb, ob, c, rc, oc):
    """c[rc, oc:] += a[ra, oa:] x* b[rb, ob:] (motion vector cross force vector)."""
    x = cross_force_t(a[ra, oa], a[ra, oa + 1], a[ra, oa + 2], a[ra, oa + 3], a[ra, oa + 4], a[ra, oa + 5],
                      b[rb, ob], b[rb, ob + 1], b[rb, ob + 2], b[rb, ob + 3], b[rb, ob + 4], b[rb, ob + 5])
    for k in range(6):
        c[rc, oc + k] += x[k]


@njit(**_INL)
def mat66_times(M, rm, om, x0, x1, x2, x3, x4, x5):
    """M x as a 6-tuple, M the row-major 6x6 at M[rm, om:om+36]."""
    return ((M[rm, om] * x0 + M[rm, om + 1] * x1 + M[rm, om + 2] * x2
             + M[rm, om + 3] * x3 + M[rm, om + 4] * x4 + M[rm, om + 5] * x5),
            (M[rm, om + 6] * x0 + M[rm, om + 7] * x1 + M[rm, om + 8] * x2
             + M[rm, om + 9] * x3 + M[rm, om + 10] * x4 + M[rm, om + 11] * x5),
            (M[rm, om + 12] * x0 + M[rm, om + 13] * x1 + M[rm, om + 14] * x2
             + M[rm, om + 15] * x3 + M[rm, om + 16] * x4 + M[rm, om + 17] * x5),
            (M[rm, om + 18] * x0 + M[rm, om + 19] * x1 + M[rm, om + 20] * x2
             + M[rm, om + 21] * x3 + M[rm, om + 22] * x4 + M[rm, om + 23] * x5),
            (M[rm, om + 24] * x0 + M[rm, om + 25] * x1 + M[rm, om + 26] * x2
             + M[rm, om + 27] * x3 + M[rm, om + 28] * x4 + M[rm, om + 29] * x5),
            (M[rm, om + 30] * x0 + M[rm, om + 31] * x1 + M[rm, om + 32] * x2
             + M[rm, om + 33] * x3 + M[rm, om + 34] * x4 + M[rm, om + 35] * x5))


@njit(**_INL)
def rigid_inertia_times(M, r, o, w0, w1, w2, v0, v1, v2):
    """Y [w; v] as a 6-tuple for the rigid-body inertia Y given by 10 numbers at M[r, o:]
    (m, h = m c, I about the origin: xx, xy, xz, yy, yz, zz; the layout of ``RB_MASS`` and
    ``W_Y``): [I w + h x v; m v - h x w]. The 6x6 product's sums without its zero terms."""
    m = M[r, o]
    h0 = M[r, o + 1]
    h1 = M[r, o + 2]
    h2 = M[r, o + 3]
    return (M[r, o + 4] * w0 + M[r, o + 5] * w1 + M[r, o + 6] * w2 + h1 * v2 - h2 * v1,
            M[r, o + 5] * w0 + M[r, o + 7] * w1 + M[r, o + 8] * w2 + h2 * v0 - h0 * v2,
            M[r, o + 6] * w0 + M[r, o + 8] * w1 + M[r, o + 9] * w2 + h0 * v1 - h1 * v0,
            m * v0 - h1 * w2 + h2 * w1,
            m * v1 - h2 * w0 + h0 * w2,
            m * v2 - h0 * w1 + h1 * w0)


@njit(**_INL)
def mat66_vec(M, rm, om, x, rx, ox, y, ry, oy):
    """y[ry, oy:oy+6] = M x with M the row-major 6x6 at M[rm, om:om+36]."""
    r = mat66_times(M, rm, om, x[rx, ox], x[rx, ox + 1], x[rx, ox + 2], x[rx, ox + 3], x[rx, ox + 4],
                    x[rx, ox + 5])
    for k in range(6):
        y[ry, oy + k] = r[k]


@njit(**_INL)
def motion_to_world(ws, j, w0, w1, w2, v0, v1, v2, at=W_PW):
    """A motion vector [w; v] of link j's frame (v at its origin) in world axes, v of the
    point from which link j's origin is at ws[j, at:at+3] (W_PW: the world origin; W_PR:
    its tree's root link origin), from the link's world rotation W_RW."""
    R = load9(ws, j, W_RW)
    a = mul33_vec(R, w0, w1, w2)
    b = mul33_vec(R, v0, v1, v2)
    px = ws[j, at]
    py = ws[j, at + 1]
    pz = ws[j, at + 2]
    return (a[0], a[1], a[2], b[0] + py * a[2] - pz * a[1], b[1] + pz * a[0] - px * a[2],
            b[2] + px * a[1] - py * a[0])


@njit(**_INL)
def force_to_world(ws, j, n0, n1, n2, f0, f1, f2, at=W_PW):
    """A force vector [n; f] of link j's frame (moment about its origin) in world axes,
    the moment about the point ``motion_to_world``'s ``at`` names."""
    R = load9(ws, j, W_RW)
    a = mul33_vec(R, n0, n1, n2)
    b = mul33_vec(R, f0, f1, f2)
    px = ws[j, at]
    py = ws[j, at + 1]
    pz = ws[j, at + 2]
    return (a[0] + py * b[2] - pz * b[1], a[1] + pz * b[0] - px * b[2], a[2] + px * b[1] - py * b[0],
            b[0], b[1], b[2])
