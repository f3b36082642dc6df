"""Link velocities, kinetic energy, mass and centre of mass; both along a trajectory in
one call (``trajectory_energies``)."""
from numba import njit

from .variants import variant
from .common import check_state, data_start, joint_motion_add, link_rows, model_arrays, result_status
from .joint_transform import forward_kinematics_pass, forward_kinematics_pin_pass
from .layout import ARMATURE, INERTIA, NU, PARENT, RB_H, RB_MASS, UOFF, W_C, W_PW, W_RW, W_V
from .spatial_inline import mat66_vec, motion_to_child


@njit(cache=True, inline="always")
def velocity_pass(mi, mf, ws, q, u, general):
    """World placements and link spatial velocities v_j (W_V, link frame); ``general``: a
    constant (False: the PIN-only placements, ``joint_transform.pin_variant``)."""
    if general:
        forward_kinematics_pass(mi, mf, ws, q)
    else:
        forward_kinematics_pin_pass(mi, mf, ws, q)
    link_velocities(mi, mf, ws, u)


@njit(cache=True)
def link_velocities(mi, mf, ws, u):
    """W_V of every link (link axes) from the placements W_R/W_P: v_j = X_j v_p + S_j u_j."""
    for j in range(mi.shape[0]):
        p = mi[j, PARENT]
        if p < 0:
            for k in range(6):
                ws[j, W_V + k] = 0.0
        else:
            motion_to_child(ws, j, ws, p, W_V, ws, j, W_V)
        joint_motion_add(mi, mf, j, u, ws, j, W_V)


def _make_kinetic_energy(general):
    """``kinetic_energy`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("kinetic_energy" if general else "kinetic_energy_pins")
    def kinetic_energy(dbuf, q, u, out):
        """Checked entry point: out[0] = ``kinetic_energy_core``; a ``check_state`` status, or OVERFLOW."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        st = check_state(mi, q, u, u, 1, -1)
        if st == 0:
            if general:  # (a constant of the variant)
                out[0] = kinetic_energy_core(mi, mf, ws, q, u)
            else:
                out[0] = kinetic_energy_pin_core(mi, mf, ws, q, u)
        return result_status(st, out)

    return kinetic_energy


kinetic_energy = _make_kinetic_energy(True)
kinetic_energy_pins = _make_kinetic_energy(False)  # PIN links only (joint_transform.pin_variant)


def _make_kinetic_energy_core(general):
    """``kinetic_energy_core`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("kinetic_energy_core" if general else "kinetic_energy_pin_core")
    def kinetic_energy_core(mi, mf, ws, q, u):
        """1/2 sum_j (v_j^T I_j v_j + u_j^T A_j u_j), A_j the armature [J]."""
        velocity_pass(mi, mf, ws, q, u, general)
        e = 0.0
        for j in range(mi.shape[0]):
            mat66_vec(mf, j, INERTIA, ws, j, W_V, ws, j, W_C)
            for k in range(6):
                e += ws[j, W_V + k] * ws[j, W_C + k]
            uj = mi[j, UOFF]
            for k in range(mi[j, NU]):
                e += mf[j, ARMATURE + k] * u[uj + k] * u[uj + k]
        return 0.5 * e

    return kinetic_energy_core


kinetic_energy_core = _make_kinetic_energy_core(True)
kinetic_energy_pin_core = _make_kinetic_energy_core(False)  # PIN links only (joint_transform.pin_variant)


def _make_mass_and_com(general):
    """``mass_and_com`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("mass_and_com" if general else "mass_and_com_pins")
    def mass_and_com(dbuf, q, out):
        """Checked entry point of ``mass_and_com_core``: a ``check_state`` status for q, or OVERFLOW."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        st = check_state(mi, q, q, q, -1, -1)
        if st == 0:
            if general:  # (a constant of the variant)
                mass_and_com_core(mi, mf, ws, q, out)
            else:
                mass_and_com_pin_core(mi, mf, ws, q, out)
        return result_status(st, out)

    return mass_and_com


mass_and_com = _make_mass_and_com(True)
mass_and_com_pins = _make_mass_and_com(False)  # PIN links only (joint_transform.pin_variant)


def _make_mass_and_com_core(general):
    """``mass_and_com_core`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("mass_and_com_core" if general else "mass_and_com_pin_core")
    def mass_and_com_core(mi, mf, ws, q, out):
        """out = [total mass, centre of mass in the world (3)], after a kinematics pass."""
        if general:  # (a constant of the variant)
            forward_kinematics_pass(mi, mf, ws, q)
        else:
            forward_kinematics_pin_pass(mi, mf, ws, q)
        m, c0, c1, c2 = mass_and_com_placed(mi, mf, ws)
        out[0] = m
        out[1] = c0
        out[2] = c1
        out[3] = c2

    return mass_and_com_core


mass_and_com_core = _make_mass_and_com_core(True)
mass_and_com_pin_core = _make_mass_and_com_core(False)  # PIN links only (joint_transform.pin_variant)


@njit(cache=True, inline="always")
def mass_and_com_placed(mi, mf, ws):
    """(total mass, centre of mass in the world (3)) from the world placements in ws
    (the centre is 0 for a massless model)."""
    m = 0.0
    c0 = 0.0
    c1 = 0.0
    c2 = 0.0
    for j in range(mi.shape[0]):
        mj = mf[j, RB_MASS]
        h0 = mf[j, RB_H]  # m c in the link frame
        h1 = mf[j, RB_H + 1]
        h2 = mf[j, RB_H + 2]
        c0 += mj * ws[j, W_PW] + ws[j, W_RW] * h0 + ws[j, W_RW + 1] * h1 + ws[j, W_RW + 2] * h2
        c1 += mj * ws[j, W_PW + 1] + ws[j, W_RW + 3] * h0 + ws[j, W_RW + 4] * h1 + ws[j, W_RW + 5] * h2
        c2 += mj * ws[j, W_PW + 2] + ws[j, W_RW + 6] * h0 + ws[j, W_RW + 7] * h1 + ws[j, W_RW + 8] * h2
        m += mj
    if m > 0.0:
        return m, c0 / m, c1 / m, c2 / m
    return m, 0.0, 0.0, 0.0


def _make_trajectory_energies(general):
    """``trajectory_energies`` (``general``: links of any kind) or its PIN-only variant (a constant of the
    closure: the branches on it are pruned before typing)."""

    @variant("trajectory_energies" if general else "trajectory_energies_pins")
    def trajectory_energies(dbuf, Q, U, out):
        """Checked entry point: out[k] = (kinetic energy [J], total mass, centre of mass (3)) at
        (Q[k], U[k]) for the samples of a trajectory (Q (N, nq), U (N, nu), out (N, 5)), one
        velocity pass per sample (the centre of mass from its world placements). Returns
        (status, k): the ``check_state`` status (or OVERFLOW) of the first bad sample k, or (OK, N)."""
        mi, mf = model_arrays(dbuf)
        n = mi.shape[0]
        ws = link_rows(dbuf, data_start(dbuf, n), n)
        for k in range(Q.shape[0]):
            q = Q[k]
            u = U[k]
            st = check_state(mi, q, u, u, 1, -1)
            if st != 0:
                return st, k
            if general:  # (a constant of the variant)
                out[k, 0] = kinetic_energy_core(mi, mf, ws, q, u)
            else:
                out[k, 0] = kinetic_energy_pin_core(mi, mf, ws, q, u)
            m, c0, c1, c2 = mass_and_com_placed(mi, mf, ws)
            out[k, 1] = m
            out[k, 2] = c0
            out[k, 3] = c1
            out[k, 4] = c2
            st = result_status(st, out[k])
            if st != 0:
                return st, k
        return 0, Q.shape[0]

    return trajectory_energies


trajectory_energies = _make_trajectory_energies(True)
trajectory_energies_pins = _make_trajectory_energies(False)  # PIN links only (joint_transform.pin_variant)
