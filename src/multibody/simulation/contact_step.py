"""The pieces of one Moreau-Jean contact step (issue 21), compiled, inlined into the contact
stepping loop (``contact_loop.py``).

With nc contacts from ``kernels/collision/detect`` (rows ci, cf), the relative velocity of
contact c, in its frame (n, t1, t2), is the velocity of b's material point at the contact
point minus a's: rows 3c..3c+2 of J (3 nc, nu), ``contact_jacobian``. The Delassus matrix
is W = J M^-1 J^T (``delassus``), the free relative velocity J u_f, and the impulses lambda
(``kernels/contact_solver``) change the speeds by M^-1 J^T lambda (``apply_impulses``).

Normal targets b_n (``velocity_targets``): the contact is to satisfy v_n+ + b_n >= 0.
* A contact found within the margin (dist > 0) may approach up to the surface in the step:
  b_n = (dist - CONTACT_SLOP) / h (no tunnelling, no early stop).
* A penetration (dist < 0) is pushed out gently: b_n = PENETRATION_RECOVERY (dist + CONTACT_SLOP) / h,
  at most RECOVERY_SPEED (the push is a real speed: a deep start must not launch the body).
* Distances within CONTACT_SLOP of zero are touching: b_n = 0. Positions far from the
  origin carry the rounding of their size (1e5 m: 1.5e-11 m), so the corners of a face resting
  on a plane get distances that differ by that much; their targets must be equal, or the
  rigid face cannot meet them all (W is singular there) and the solve only creeps.
* A soft contact (a spring-damper surface, or MuJoCo's solref/solimp) takes its own target
  and normal compliance (``soft_targets``, ``set_compliance``); its friction rows stay hard.
* Restitution e: v_n+ >= -e v_n- where the approach speed -v_n- (at the step's start)
  exceeds RESTITUTION_SPEED and the surfaces meet within the step.
"""
import numpy as np
from numba import njit

from ..kernels.collision.layout import (
    CF_COMP, CF_DIST, CF_KD, CF_KP, CF_N, CF_P, CF_REST, CF_SOLIMP, CF_SOLREF, CF_T1, CF_T2, CI_A, CI_B, CI_FEATURE,
    SI_LINK,
)
from ..kernels.layout import NU, PARENT, UOFF, W_PW
from ..kernels.loop_impulses import constrained_compliance, loop_basis, project_speeds
from ..kernels.spatial_inline import world_subspace_column

__all__ = ["contact_jacobian", "delassus", "velocity_targets", "soft_targets", "impedance", "set_compliance",
           "drop_immobile", "warm_start", "apply_impulses", "loop_targets", "eliminate_loop_rows", "project_loops",
           "PENETRATION_RECOVERY", "RESTITUTION_SPEED", "CONTACT_SLOP", "RECOVERY_SPEED", "LOOP_RECOVERY"]

#: The fraction of a penetration removed per step (Baumgarte-like, at the velocity level):
#: 0.2 recovers 1 - 0.8^k of it in k steps without a visible pop.
PENETRATION_RECOVERY = 0.2
#: The fraction of a loop row's residual r removed per step (the loops' drift correction,
#: ``loop_targets``): the step asks Gc u+ = -LOOP_RECOVERY r / h. With the midpoint position
#: update the residual then follows r' = r - (LOOP_RECOVERY / 2) (r_prev + r) + e (e: the
#: step's second-order drift, O(h^2 |u|^2) times the loop's curvature): at 0.5 both roots
#: have modulus 0.5 (a residual halves per step, oscillating), and the drift settles at 2 e.
LOOP_RECOVERY = 0.5
#: [m/s] The fastest push out of a penetration (a 1 cm one takes about 0.1 s; the body
#: then rises RECOVERY_SPEED^2 / (2 g) = 0.5 mm above rest at most).
RECOVERY_SPEED = 0.1
#: [m/s] Approach speeds below this do not bounce (a resting contact's numerical jitter).
RESTITUTION_SPEED = 1e-2
#: [m] Distances within this of zero count as touching (module docstring).
CONTACT_SLOP = 1e-9


@njit(cache=True, inline="always")
def _point_rows(mi, mf, ws, link, sign, cf, c, J):
    """Add sign x (the velocity of the point cf[c, CF_P] fixed on ``link``, projected on the
    contact's n, t1, t2) to rows 3c..3c+2 of J, over the link's ancestors' speeds."""
    p0 = cf[c, CF_P]
    p1 = cf[c, CF_P + 1]
    p2 = cf[c, CF_P + 2]
    i = link
    while i >= 0:
        e0 = p0 - ws[i, W_PW]  # lever arm from link i's origin to the point (world axes)
        e1 = p1 - ws[i, W_PW + 1]
        e2 = p2 - ws[i, W_PW + 2]
        u0 = mi[i, UOFF]
        for k in range(mi[i, NU]):
            w0, w1, w2, v0, v1, v2 = world_subspace_column(mf, ws, i, k)
            # the point's velocity per unit speed: v + w x e
            c0 = v0 + w1 * e2 - w2 * e1
            c1 = v1 + w2 * e0 - w0 * e2
            c2 = v2 + w0 * e1 - w1 * e0
            for r in range(3):
                col = CF_N if r == 0 else (CF_T1 if r == 1 else CF_T2)
                J[3 * c + r, u0 + k] += sign * (cf[c, col] * c0 + cf[c, col + 1] * c1 + cf[c, col + 2] * c2)
        i = mi[i, PARENT]


@njit(cache=True)
def contact_jacobian(mi, mf, ws, si, ci, cf, nc, J):
    """J[:3 nc] (3 nc, nu): per contact c, the rows (n, t1, t2) of the velocity of shape b's
    point minus shape a's at the contact point, from the link placements in ws (W_RW, W_PW).
    A shape on the world (link -1) adds nothing."""
    nu = J.shape[1]
    for r in range(3 * nc):
        for k in range(nu):
            J[r, k] = 0.0
    for c in range(nc):
        _point_rows(mi, mf, ws, si[ci[c, CI_A], SI_LINK], -1.0, cf, c, J)
        _point_rows(mi, mf, ws, si[ci[c, CI_B], SI_LINK], 1.0, cf, c, J)


@njit(cache=True)
def delassus(J, Minv, m, MJt, W):
    """MJt[:, :m] = M^-1 J[:m]^T (nu, m) and W[:m, :m] = J M^-1 J^T (m = 3 nc rows of J).

    A contact's rows touch only the speeds of its two links' ancestors, so J is sparse (a
    foot's rows: the base and its leg, 9 of Solo12's 18; a box's: 6 of a pile's hundreds):
    its zeros are skipped (O(m nu nnz + m^2 nnz), nnz a row's nonzeros, where the dense
    products are O(m nu^2 + m^2 nu)), and the inner loops run along rows of MJt and W (no
    chains of dependent sums). Each entry is summed over k in increasing order as the dense
    products did, and a skipped term is an exact zero, so the result is the same to the bit."""
    nu = Minv.shape[0]
    for a in range(nu):
        for r in range(m):
            MJt[a, r] = 0.0
    for k in range(nu):
        for r in range(m):
            x = J[r, k]
            if x != 0.0:
                for a in range(nu):
                    MJt[a, r] += Minv[a, k] * x
    for r in range(m):
        for c in range(r, m):
            W[r, c] = 0.0
        for k in range(nu):
            x = J[r, k]
            if x != 0.0:
                for c in range(r, m):
                    W[r, c] += x * MJt[k, c]
        for c in range(r + 1, m):
            W[c, r] = W[r, c]


@njit(cache=True, inline="always")
def impedance(cf, c, r):
    """MuJoCo's impedance d in (0, 1) of contact c at distance r (< 0: penetration) from its
    solimp (dmin, dmax, width, midpoint, power): dmin at r = 0 to dmax at |r| >= width along
    a polynomial sigmoid, clamped to [1e-4, 0.9999] as MuJoCo does."""
    dmin = cf[c, CF_SOLIMP]
    dmax = cf[c, CF_SOLIMP + 1]
    width = cf[c, CF_SOLIMP + 2]
    mid = cf[c, CF_SOLIMP + 3]
    power = cf[c, CF_SOLIMP + 4]
    x = abs(r) / width if width > 0.0 else 1.0
    if x >= 1.0 or dmin == dmax:
        d = dmax if x >= 1.0 else dmin
    else:
        if power == 1.0:
            y = x
        elif x <= mid:
            y = x ** power / mid ** (power - 1.0)
        else:
            y = 1.0 - (1.0 - x) ** power / (1.0 - mid) ** (power - 1.0)
        d = dmin + y * (dmax - dmin)
    return min(max(d, 1e-4), 0.9999)


@njit(cache=True, inline="always")
def soft_targets(cf, c, dist, vn, h, wnn):
    """Contact c's normal target b_n and normal compliance when it is soft, else (nan, 0).

    * A spring-damper surface (stiffness k, damping d; ``pair_softness``), taken implicitly:
      the impulse is h (-k (dist + h v_n+) - d v_n+), i.e. v_n+ + b_n + C lambda_n = 0 with
      b_n = k dist / (h k + d) and C = 1 / (h (h k + d)). It rests at dist = -F / k under a
      load F, exactly.
    * MuJoCo's soft constraint (solref, solimp): the reference acceleration
      a_ref = -B v_n - K imp r with imp the impedance (``impedance``), K = 1 / (dmax^2 tc^2
      zeta^2), B = 2 / (dmax tc) (tc at least 2 h, MuJoCo's refsafe; negative solref: K =
      -solref_0 / dmax^2, B = -solref_1 / dmax), and the compliance R = (1 - imp) / imp W_nn
      (MuJoCo takes an approximation of W_nn there): b_n = -(v_n + h a_ref), C = R.
    Before touching (dist >= 0) the target lets the surfaces meet within the step
    (b_n = dist / h) with the same compliance, so that the surface yields from there."""
    k = cf[c, CF_KP]
    tc = cf[c, CF_SOLREF]
    zeta = cf[c, CF_SOLREF + 1]
    if k > 0.0:
        denom = h * k + cf[c, CF_KD]
        comp = 1.0 / (h * denom)
        return (k * dist / denom if dist < 0.0 else dist / h), comp
    if tc == 0.0 and zeta == 0.0:
        return np.nan, 0.0
    imp = impedance(cf, c, min(dist, 0.0))
    dmax = min(max(cf[c, CF_SOLIMP + 1], 1e-4), 0.9999)  # (clamped as MuJoCo clamps it)
    if tc > 0.0:
        tc = max(tc, 2.0 * h)
        kk = 1.0 / (dmax * dmax * tc * tc * zeta * zeta)
        bb = 2.0 / (dmax * tc)
    else:
        kk = -tc / (dmax * dmax)
        bb = -zeta / dmax
    comp = (1.0 - imp) / imp * wnn
    if dist >= 0.0:
        return dist / h, comp
    return -(vn - h * (bb * vn + kk * imp * dist)), comp


@njit(cache=True)
def velocity_targets(J, u, uf, cf, nc, h, W, vfree, b):
    """vfree[:3 nc] = J u_f and the targets b[:3 nc] (module docstring), from J, the speeds u
    at the step's start (the approach speed), u_f and W's diagonal (soft contacts,
    ``soft_targets``, whose normal compliance goes to cf[:, CF_COMP])."""
    nu = u.shape[0]
    for r in range(3 * nc):
        s = 0.0
        for k in range(nu):
            s += J[r, k] * uf[k]
        vfree[r] = s
        b[r] = 0.0
    for c in range(nc):
        dist = cf[c, CF_DIST]
        vn = 0.0
        for k in range(nu):
            vn += J[3 * c, k] * u[k]
        bn, comp = soft_targets(cf, c, dist, vn, h, W[3 * c, 3 * c])
        cf[c, CF_COMP] = comp
        if not bn == bn:  # (nan: hard)
            bn = 0.0
            if dist > CONTACT_SLOP:
                bn = (dist - CONTACT_SLOP) / h
            elif dist < -CONTACT_SLOP:
                bn = max(PENETRATION_RECOVERY * (dist + CONTACT_SLOP) / h, -RECOVERY_SPEED)
        e = cf[c, CF_REST]
        if e > 0.0 and -vn > RESTITUTION_SPEED and -vn * h >= dist:
            bn = min(bn, e * vn)
        b[3 * c] = bn


@njit(cache=True, inline="always")
def set_compliance(W, cf, reg, comp):
    """comp (3 nc,): each row's compliance at the ladder's level ``reg`` (relative to the
    contact's W_nn); a soft contact's normal row takes its own (cf[:, CF_COMP],
    ``contact_step.velocity_targets``) where that is larger."""
    for c in range(comp.shape[0] // 3):
        k = 3 * c
        base = reg * W[k, k]
        comp[k] = max(base, cf[c, CF_COMP])
        comp[k + 1] = base
        comp[k + 2] = base


@njit(cache=True)
def loop_targets(Wc, c0, nr, h, g):
    """g[:nr] = -LOOP_RECOVERY r / h: the loop rows' wanted rates after the step, from each
    row's residual r (column c0 of the constraint work Wc, ``constraint_rows_at``'s; a convel
    row's is 0)."""
    for i in range(nr):
        g[i] = -LOOP_RECOVERY * Wc[i, c0] / h


@njit(cache=True)
def eliminate_loop_rows(lw, h, col_r, Minv, uf):
    """The loop rows at the step's start eliminated (``kernels/loop_impulses``), their rows
    Gc and coefficients already in lw[0] (``constraint_rows_at``, or the flex model's
    ``constraint_rows_flex``): in lw = (wc, LV, S, U, P, g, x) their targets g
    (``loop_targets``; residuals at column col_r of wc), the kinetic-metric basis and the
    constrained compliance P; uf projected onto Gc uf = g in place. Minv (M^-1) is
    symmetrized in place. Returns the rank of the rows, or -1 when M^-1 is not positive
    definite."""
    wc, LV, S, U, P, g, x = lw
    nr = wc.shape[0]
    loop_targets(wc, col_r, nr, h, g)
    rank = loop_basis(Minv, wc, nr, LV, S, U)
    if rank >= 0:
        constrained_compliance(LV, rank, P)
        project_speeds(wc, nr, LV, S, U, rank, g, uf, x)
    return rank


@njit(cache=True)
def project_loops(lw, rank, u):
    """u projected onto Gc u = g in place with ``eliminate_loop_rows``' basis (lw, rank);
    returns the largest |Gc u - g| before."""
    wc, LV, S, U, P, g, x = lw
    return project_speeds(wc, wc.shape[0], LV, S, U, rank, g, u, x)


@njit(cache=True)
def drop_immobile(W, nc, vfree, b):
    """Contacts whose distance no speed changes (W_nn = 0, or below 1e-8 of the tangential
    entries: both shapes on links without speeds up to the world, or speeds that only slide
    them, as a fin on a hinge against its body) take no impulse: they are taken out of the
    problem, their rows and columns of W those of a unit contact coupled to none, their free
    velocity and target zero, so that lambda = 0 solves them exactly (no impulse could meet a
    target, and their nearly null normal rows would only blur the others' solve)."""
    m = 3 * nc
    for c in range(nc):
        k = 3 * c
        if not W[k, k] > 1e-8 * (W[k + 1, k + 1] + W[k + 2, k + 2]):
            for i in range(3):
                vfree[k + i] = 0.0
                b[k + i] = 0.0
                for j in range(m):
                    W[k + i, j] = 0.0
                    W[j, k + i] = 0.0
                W[k + i, k + i] = 1.0


@njit(cache=True)
def warm_start(ci, nc, ci_prev, lam_prev, nprev, lam):
    """lam[:3 nc]: each contact's impulse of the last step where a contact of the same shapes
    and feature was (zero for a new one)."""
    for c in range(nc):
        lam[3 * c] = 0.0
        lam[3 * c + 1] = 0.0
        lam[3 * c + 2] = 0.0
        for p in range(nprev):
            if (ci_prev[p, CI_A] == ci[c, CI_A] and ci_prev[p, CI_B] == ci[c, CI_B]
                    and ci_prev[p, CI_FEATURE] == ci[c, CI_FEATURE]):
                lam[3 * c] = lam_prev[3 * p]
                lam[3 * c + 1] = lam_prev[3 * p + 1]
                lam[3 * c + 2] = lam_prev[3 * p + 2]
                break


@njit(cache=True)
def apply_impulses(MJt, lam, m, uf, u1):
    """u1 = u_f + M^-1 J^T lam (MJt from ``delassus``)."""
    for a in range(uf.shape[0]):
        s = uf[a]
        for r in range(m):
            s += MJt[a, r] * lam[r]
        u1[a] = s


@njit(cache=True)
def keep_contacts(ci, lam, nc, ci_prev, lam_prev):
    """Copy this step's contacts and impulses for the next step's warm start; returns nc."""
    for c in range(nc):
        for k in range(3):
            ci_prev[c, k] = ci[c, k]
            lam_prev[3 * c + k] = lam[3 * c + k]
    return nc


@njit(cache=True)
def contact_record(ci, cf, lam, nc, h, out):
    """out[c] = (a, b, p (3), n (3), f (3)) per contact: the shapes, the world point, the
    normal (a to b) and the mean contact force on b over the step, f = lambda / h in world
    axes [N] (a receives -f); returns nc."""
    for c in range(nc):
        out[c, 0] = ci[c, CI_A]
        out[c, 1] = ci[c, CI_B]
        for k in range(3):
            out[c, 2 + k] = cf[c, CF_P + k]
            out[c, 5 + k] = cf[c, CF_N + k]
            out[c, 8 + k] = (lam[3 * c] * cf[c, CF_N + k] + lam[3 * c + 1] * cf[c, CF_T1 + k]
                             + lam[3 * c + 2] * cf[c, CF_T2 + k]) / h
    return nc
