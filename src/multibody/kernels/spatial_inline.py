"""Scalar spatial-algebra helpers for kernels.

Small, unrolled, allocation-free: each helper writes into an output array that
the caller owns (usually a row slice of the workspace). Rotations are 9-vectors
in row-major order; spatial vectors are [angular; linear]; 6x6 matrices are
36-vectors in row-major order unless a name says otherwise.

A link frame c placed in its parent frame p by (R, p) = (R_pc, p_pc):
motion vectors go parent -> child with  X = [[R^T, 0], [-R^T [p]x, R^T]],
force vectors go child -> parent with   X^T = [[R, [p]x R], [0, R]].
"""
import math

from numba import njit

_INL = dict(cache=True, inline="always")


@njit(**_INL)
def rot_from_axis_angle(ax, ay, az, angle, R):
    """R = exp(angle [a]x) for a unit axis a (Rodrigues)."""
    c = math.cos(angle)
    s = math.sin(angle)
    t = 1.0 - c
    R[0] = c + t * ax * ax
    R[1] = t * ax * ay - s * az
    R[2] = t * ax * az + s * ay
    R[3] = t * ax * ay + s * az
    R[4] = c + t * ay * ay
    R[5] = t * ay * az - s * ax
    R[6] = t * ax * az - s * ay
    R[7] = t * ay * az + s * ax
    R[8] = c + t * az * az


@njit(**_INL)
def rot_from_rotvec(vx, vy, vz, R):
    """R = exp([v]x), accurate near v = 0."""
    th2 = vx * vx + vy * vy + vz * vz
    if th2 < 1e-12:
        a = 1.0 - th2 / 6.0
        b = 0.5 - th2 / 24.0
    else:
        th = math.sqrt(th2)
        a = math.sin(th) / th
        b = (1.0 - math.cos(th)) / th2
    R[0] = 1.0 - b * (vy * vy + vz * vz)
    R[1] = -a * vz + b * vx * vy
    R[2] = a * vy + b * vx * vz
    R[3] = a * vz + b * vx * vy
    R[4] = 1.0 - b * (vx * vx + vz * vz)
    R[5] = -a * vx + b * vy * vz
    R[6] = -a * vy + b * vx * vz
    R[7] = a * vx + b * vy * vz
    R[8] = 1.0 - b * (vx * vx + vy * vy)


@njit(**_INL)
def rot_from_quat(x, y, z, w, R):
    """Rotation matrix of the quaternion (x, y, z, w); normalises first."""
    n = x * x + y * y + z * z + w * w
    s = 2.0 / n
    R[0] = 1.0 - s * (y * y + z * z)
    R[1] = s * (x * y - z * w)
    R[2] = s * (x * z + y * w)
    R[3] = s * (x * y + z * w)
    R[4] = 1.0 - s * (x * x + z * z)
    R[5] = s * (y * z - x * w)
    R[6] = s * (x * z - y * w)
    R[7] = s * (y * z + x * w)
    R[8] = 1.0 - s * (x * x + y * y)


@njit(**_INL)
def mat33_mul(A, B, C):
    """C = A B (row-major 3x3); C must not alias A or B."""
    for r in range(3):
        a0 = A[3 * r]
        a1 = A[3 * r + 1]
        a2 = A[3 * r + 2]
        C[3 * r] = a0 * B[0] + a1 * B[3] + a2 * B[6]
        C[3 * r + 1] = a0 * B[1] + a1 * B[4] + a2 * B[7]
        C[3 * r + 2] = a0 * B[2] + a1 * B[5] + a2 * B[8]


@njit(**_INL)
def mat33_vec(A, x0, x1, x2, y, off):
    """y[off:off+3] = A x."""
    y[off] = A[0] * x0 + A[1] * x1 + A[2] * x2
    y[off + 1] = A[3] * x0 + A[4] * x1 + A[5] * x2
    y[off + 2] = A[6] * x0 + A[7] * x1 + A[8] * x2


@njit(**_INL)
def mat33T_vec(A, x0, x1, x2, y, off):
    """y[off:off+3] = A^T x."""
    y[off] = A[0] * x0 + A[3] * x1 + A[6] * x2
    y[off + 1] = A[1] * x0 + A[4] * x1 + A[7] * x2
    y[off + 2] = A[2] * x0 + A[5] * x1 + A[8] * x2


@njit(**_INL)
def motion_to_child(R, p, vp, vc):
    """vc = X vp: a motion vector in parent coordinates to child coordinates."""
    wx = vp[0]
    wy = vp[1]
    wz = vp[2]
    # linear velocity of the child origin, still in parent axes: v + w x p
    lx = vp[3] + wy * p[2] - wz * p[1]
    ly = vp[4] + wz * p[0] - wx * p[2]
    lz = vp[5] + wx * p[1] - wy * p[0]
    mat33T_vec(R, wx, wy, wz, vc, 0)
    mat33T_vec(R, lx, ly, lz, vc, 3)


@njit(**_INL)
def force_to_parent_add(R, p, fc, fp):
    """fp += X^T fc: a force in child coordinates added in parent coordinates."""
    n0 = R[0] * fc[0] + R[1] * fc[1] + R[2] * fc[2]
    n1 = R[3] * fc[0] + R[4] * fc[1] + R[5] * fc[2]
    n2 = R[6] * fc[0] + R[7] * fc[1] + R[8] * fc[2]
    f0 = R[0] * fc[3] + R[1] * fc[4] + R[2] * fc[5]
    f1 = R[3] * fc[3] + R[4] * fc[4] + R[5] * fc[5]
    f2 = R[6] * fc[3] + R[7] * fc[4] + R[8] * fc[5]
    fp[0] += n0 + p[1] * f2 - p[2] * f1
    fp[1] += n1 + p[2] * f0 - p[0] * f2
    fp[2] += n2 + p[0] * f1 - p[1] * f0
    fp[3] += f0
    fp[4] += f1
    fp[5] += f2


@njit(**_INL)
def force_to_parent(R, p, fc, fp):
    """fp = X^T fc (fp must not alias fc)."""
    for k in range(6):
        fp[k] = 0.0
    force_to_parent_add(R, p, fc, fp)


@njit(**_INL)
def cross_motion_add(v, m, out):
    """out += v x m (spatial cross product of motion vectors)."""
    out[0] += v[1] * m[2] - v[2] * m[1]
    out[1] += v[2] * m[0] - v[0] * m[2]
    out[2] += v[0] * m[1] - v[1] * m[0]
    out[3] += v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1]
    out[4] += v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2]
    out[5] += v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0]


@njit(**_INL)
def cross_force_add(v, f, out):
    """out += v x* f (spatial cross product of a motion and a force vector)."""
    out[0] += v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4]
    out[1] += v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5]
    out[2] += v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3]
    out[3] += v[1] * f[5] - v[2] * f[4]
    out[4] += v[2] * f[3] - v[0] * f[5]
    out[5] += v[0] * f[4] - v[1] * f[3]


@njit(**_INL)
def mat66_vec(M, x, y):
    """y = M x for a row-major 6x6 M."""
    for r in range(6):
        s = 0.0
        for c in range(6):
            s += M[6 * r + c] * x[c]
        y[r] = s


@njit(**_INL)
def mat66_vec_add(M, x, y):
    """y += M x for a row-major 6x6 M."""
    for r in range(6):
        s = 0.0
        for c in range(6):
            s += M[6 * r + c] * x[c]
        y[r] += s


@njit(**_INL)
def inertia_to_parent_add(R, p, Ic, Ip):
    """Ip += X^T Ic X for a symmetric 6x6 Ic (row-major) in child coordinates.

    Rotate the four 3x3 blocks to parent axes, then shift the reference point
    by p: with P = [p]x, X^T Ic X = [[1, P], [0, 1]] Ir [[1, 0], [-P, 1]].
    """
    # Ir = blkdiag(R) Ic blkdiag(R)^T, built block by block with T = R B
    # and Ir_block = T R^T.
    rA = _rotate_block(R, Ic, 0, 0)
    rB = _rotate_block(R, Ic, 0, 3)
    rC = _rotate_block(R, Ic, 3, 3)
    # P B^T, B P, P C P pieces; P = [[0,-pz,py],[pz,0,-px],[-py,px,0]]
    px = p[0]
    py = p[1]
    pz = p[2]
    # B' = rB + P rC, top-right block of the result
    Bn = _block_plus_skew_times(rB, px, py, pz, rC)
    # A' = rA + P rB^T - Bn P   (since B' P where B' = rB + P rC gives
    # rB P + P rC P; the formula A + P B^T - B P - P C P equals rA + P rB^T - Bn P)
    for r in range(3):
        for c in range(3):
            # (P rB^T)[r, c] = sum_k P[r,k] rB[c,k]
            prbt = _skew_row_dot(px, py, pz, r, rB[3 * c], rB[3 * c + 1], rB[3 * c + 2])
            # (Bn P)[r, c] = sum_k Bn[r,k] P[k,c]
            bnp = _row_dot_skew_col(Bn[3 * r], Bn[3 * r + 1], Bn[3 * r + 2], px, py, pz, c)
            Ip[6 * r + c] += rA[3 * r + c] + prbt - bnp
            Ip[6 * r + c + 3] += Bn[3 * r + c]
            Ip[6 * (c + 3) + r] += Bn[3 * r + c]
            Ip[6 * (r + 3) + c + 3] += rC[3 * r + c]


@njit(**_INL)
def _rotate_block(R, M, r0, c0):
    """R M_block R^T for the 3x3 block of the row-major 6x6 M at (r0, c0)."""
    t00 = R[0] * M[6 * r0 + c0] + R[1] * M[6 * (r0 + 1) + c0] + R[2] * M[6 * (r0 + 2) + c0]
    t01 = R[0] * M[6 * r0 + c0 + 1] + R[1] * M[6 * (r0 + 1) + c0 + 1] + R[2] * M[6 * (r0 + 2) + c0 + 1]
    t02 = R[0] * M[6 * r0 + c0 + 2] + R[1] * M[6 * (r0 + 1) + c0 + 2] + R[2] * M[6 * (r0 + 2) + c0 + 2]
    t10 = R[3] * M[6 * r0 + c0] + R[4] * M[6 * (r0 + 1) + c0] + R[5] * M[6 * (r0 + 2) + c0]
    t11 = R[3] * M[6 * r0 + c0 + 1] + R[4] * M[6 * (r0 + 1) + c0 + 1] + R[5] * M[6 * (r0 + 2) + c0 + 1]
    t12 = R[3] * M[6 * r0 + c0 + 2] + R[4] * M[6 * (r0 + 1) + c0 + 2] + R[5] * M[6 * (r0 + 2) + c0 + 2]
    t20 = R[6] * M[6 * r0 + c0] + R[7] * M[6 * (r0 + 1) + c0] + R[8] * M[6 * (r0 + 2) + c0]
    t21 = R[6] * M[6 * r0 + c0 + 1] + R[7] * M[6 * (r0 + 1) + c0 + 1] + R[8] * M[6 * (r0 + 2) + c0 + 1]
    t22 = R[6] * M[6 * r0 + c0 + 2] + R[7] * M[6 * (r0 + 1) + c0 + 2] + R[8] * M[6 * (r0 + 2) + c0 + 2]
    return (
        t00 * R[0] + t01 * R[1] + t02 * R[2],
        t00 * R[3] + t01 * R[4] + t02 * R[5],
        t00 * R[6] + t01 * R[7] + t02 * R[8],
        t10 * R[0] + t11 * R[1] + t12 * R[2],
        t10 * R[3] + t11 * R[4] + t12 * R[5],
        t10 * R[6] + t11 * R[7] + t12 * R[8],
        t20 * R[0] + t21 * R[1] + t22 * R[2],
        t20 * R[3] + t21 * R[4] + t22 * R[5],
        t20 * R[6] + t21 * R[7] + t22 * R[8],
    )


@njit(**_INL)
def _block_plus_skew_times(B, px, py, pz, C):
    """B + [p]x C for 3x3 blocks given as 9-tuples."""
    return (
        B[0] - pz * C[3] + py * C[6], B[1] - pz * C[4] + py * C[7], B[2] - pz * C[5] + py * C[8],
        B[3] + pz * C[0] - px * C[6], B[4] + pz * C[1] - px * C[7], B[5] + pz * C[2] - px * C[8],
        B[6] - py * C[0] + px * C[3], B[7] - py * C[1] + px * C[4], B[8] - py * C[2] + px * C[5],
    )


@njit(**_INL)
def _skew_row_dot(px, py, pz, r, x0, x1, x2):
    """Row r of [p]x dotted with x."""
    if r == 0:
        return -pz * x1 + py * x2
    elif r == 1:
        return pz * x0 - px * x2
    return -py * x0 + px * x1


@njit(**_INL)
def _row_dot_skew_col(b0, b1, b2, px, py, pz, c):
    """b dotted with column c of [p]x."""
    if c == 0:
        return b1 * pz - b2 * py
    elif c == 1:
        return -b0 * pz + b2 * px
    return b0 * py - b1 * px
