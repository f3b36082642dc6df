"""Constrained forward dynamics of models with modal (flexible) bodies, loops closed at
deforming nodes included (kernels/flex_entry.constrained_forward_dynamics_flex): against a dense KKT
solve built from the flex mass matrix, inverse dynamics and the constraint rows (whose own
checks are in test_flex_constraints.py), with Baumgarte gains, wrenches at deforming nodes,
and the squeeze-force identity.
"""
import numpy as np
import pytest

from test_flex_constraints import _cases, _with_loops


@pytest.mark.parametrize("n_loops,kinds,convel,coordinate", list(_cases()))
def test_constrained_dynamics_against_dense_kkt(n_loops, kinds, convel, coordinate):
    m, q, u, tau, rng = _with_loops(11 * n_loops + len(kinds[0]), n_loops, kinds, convel, coordinate)
    G = m.constraint_jacobian(q)
    rows = G.shape[0]
    M = m.mass_matrix(q)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))  # M udot + b = tau (gravity, stiffness, damping)
    kappa = m.constraint_bias(q, u)
    A = np.block([[M, -G.T], [G, np.zeros((rows, rows))]])
    sol = np.linalg.solve(A, np.concatenate([tau - b, -kappa]))
    res = m.constrained_dynamics(q, u, tau)
    scale = max(1.0, np.abs(sol[:m.nu]).max())
    assert np.abs(res.udot - sol[:m.nu]).max() < 1e-9 * scale
    assert np.abs(res.multipliers - sol[m.nu:]).max() < 1e-9 * max(1.0, np.abs(sol[m.nu:]).max())
    np.testing.assert_array_equal(m.forward_dynamics(q, u, tau), res.udot)
    np.testing.assert_allclose(sum(res.forces.values()), res.constraint_force, atol=1e-12 * scale)
    # squeeze forces Gc^T y cause no motion
    y = rng.normal(size=rows)
    assert np.abs(m.constrained_dynamics(q, u, tau + G.T @ y).udot - res.udot).max() < 1e-9 * scale
    # Baumgarte: the rows' acceleration is -kd r_dot - kp r
    kp, kd = 30.0, 7.0
    r, rdot = m.pose_error(q, "residual"), m.velocity_error(q, u, "residual")
    sol = np.linalg.solve(A, np.concatenate([tau - b, -kappa - kd * rdot - kp * r]))
    stab = m.constrained_dynamics(q, u, tau, stabilization_gains=(kp, kd))
    assert np.abs(stab.udot - sol[:m.nu]).max() < 1e-9 * max(1.0, np.abs(sol[:m.nu]).max())


def test_constrained_dynamics_with_a_wrench_at_a_deforming_node():
    m, q, u, tau, rng = _with_loops(3, 2, ["pin", "spherical"])
    w = rng.normal(size=6)
    res = m.constrained_dynamics(q, u, tau, f_ext={"bx": w})
    tau_ext = m.inverse_dynamics(q, u, np.zeros(m.nu)) - m.inverse_dynamics(q, u, np.zeros(m.nu), f_ext={"bx": w})
    np.testing.assert_allclose(res.udot, m.constrained_dynamics(q, u, tau + tau_ext).udot, rtol=0,
                               atol=1e-11 * max(1, np.abs(res.udot).max()))
    assert np.abs(tau_ext[m.modal_slice("beam")]).max() > 1e-3  # the wrench reaches the modal rates
    np.testing.assert_array_equal(m.forward_dynamics(q, u, tau, f_ext={"bx": w}), res.udot)


def _four_bar_state():
    """The flexible four-bar of examples/flexible_four_bar.py (a planar pin loop: 2 of its 5
    rows independent) off its closed configuration, moving, its coupler bent."""
    from test_flex_link_forces import flexible_four_bar
    m, q0 = flexible_four_bar()
    rng = np.random.default_rng(7)
    q = q0 + 0.05 * rng.normal(size=m.nq)
    q[m.modal_slice("coupler")] = q0[m.modal_slice("coupler")] + 1e-3 * rng.normal(size=3)
    return m, q, 0.5 * rng.normal(size=m.nu), rng.normal(size=m.nu)


def test_redundant_rows_get_no_multiplier_and_the_motion_of_the_independent_ones():
    """Against a dense KKT solve on an orthonormal basis of Gc's row space (the motion is
    unique, and so is Gc^T lambda; the rank test drops 3 of the 5 rows: lambda = 0 there)."""
    m, q, u, tau = _four_bar_state()
    G = m.constraint_jacobian(q)
    Us, s, Vt = np.linalg.svd(G)
    rank = int(np.sum(s > 1e-9 * s[0]))
    assert rank == 2
    B = Vt[:rank]  # the rows' span: G = Us[:, :rank] diag(s) B
    kp, kd = 30.0, 7.0
    r, rdot = m.pose_error(q, "residual"), m.velocity_error(q, u, "residual")
    want = Us[:, :rank].T @ (-m.constraint_bias(q, u) - kd * rdot - kp * r) / s[:rank]
    M = m.mass_matrix(q)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))
    A = np.block([[M, -B.T], [B, np.zeros((rank, rank))]])
    sol = np.linalg.solve(A, np.concatenate([tau - b, want]))
    res = m.constrained_dynamics(q, u, tau, stabilization_gains=(kp, kd))
    scale = max(1.0, np.abs(sol[:m.nu]).max())
    assert np.abs(res.udot - sol[:m.nu]).max() < 1e-10 * scale
    np.testing.assert_allclose(res.constraint_force, B.T @ sol[m.nu:], rtol=0,
                               atol=1e-10 * max(1.0, np.abs(B.T @ sol[m.nu:]).max()))
    assert np.count_nonzero(res.multipliers == 0.0) == 3
    np.testing.assert_allclose(G.T @ res.multipliers, res.constraint_force, rtol=0, atol=1e-13 * scale)


def test_matches_the_former_python_implementation():
    """udot and lambda of the four-bar state above as the Python orchestration of the flex
    kernels gave them before the constrained dynamics became one compiled call (recorded
    with 17 digits; the two differ by rounding: 1e-15 relative here, 1e-12 on the random
    trees of _cases, the size of either's distance to a dense KKT solve).

    The tolerance is 1e-9 of the largest entry, not 1e-12: the model itself differs from
    machine to machine. Its modal data come from an eigensolver (``beam_modes``), whose
    result depends on the BLAS kernels OpenBLAS picks for the CPU: with its Sandybridge (or
    Bulldozer) kernels instead of Haswell's, the modal stiffness moves by 7.5e-12 relative,
    the mode shapes by 2e-12, and udot by 6.2e-7 on 11428 (5.4e-11 of the largest entry;
    lambda 4.9e-11; a fresh-clone CI run failed 1e-12 so: 5.9e-7), while the compiled call
    itself repeats the record to 6e-16 on any CPU (Numba for a generic x86-64 included) and
    moves by 4e-15 for inputs perturbed by one rounding. 1e-9 leaves a factor of 20 over
    the kernel families of OpenBLAS 0.3.31 (``OPENBLAS_CORETYPE``)."""
    m, q, u, tau = _four_bar_state()
    res = m.constrained_dynamics(q, u, tau, stabilization_gains="default")
    udot = [17.114177734369257, 11428.484629590608, 4080.7478239276275, -720.5629794559587, 299.2197781968105,
            -43.69150997350089]
    lam = [0.0, 0.0, -2.0255028755826725, 0.0, 11.21382849090985]
    np.testing.assert_allclose(res.udot, udot, rtol=0, atol=1e-9 * np.abs(udot).max())
    np.testing.assert_allclose(res.multipliers, lam, rtol=0, atol=1e-9 * np.abs(lam).max())
    assert list(np.flatnonzero(res.multipliers == 0.0)) == [0, 1, 3]  # the same rows dropped


def test_data_objects_are_independent_and_agree_bit_for_bit():
    m, q, u, tau, _ = _with_loops(44, 3, ["pin", "slider", "spherical"], True, True)
    first = m.constrained_dynamics(q, u, tau, stabilization_gains="default")
    d = m.create_data()
    other = m.constrained_dynamics(q, u, tau, stabilization_gains="default", data=d)
    again = m.constrained_dynamics(q, u, tau, stabilization_gains="default")  # after d's call
    for res in (other, again):
        np.testing.assert_array_equal(res.udot, first.udot)
        np.testing.assert_array_equal(res.multipliers, first.multipliers)
        np.testing.assert_array_equal(res.constraint_force, first.constraint_force)
    first.udot[:] = 0.0  # the results are the caller's arrays, not views of the Data's work
    np.testing.assert_array_equal(m.constrained_dynamics(q, u, tau, stabilization_gains="default").udot, again.udot)


def test_bad_input_is_named():
    m, q, u, tau = _four_bar_state()
    for name, x in (("q", q), ("u", u), ("tau", tau)):
        bad = x.copy()
        bad[2] = np.nan
        args = {"q": q, "u": u, "tau": tau, name: bad}
        with pytest.raises(ValueError, match=rf"{name}\[2\] is not finite"):
            m.constrained_dynamics(args["q"], args["u"], args["tau"])
    with pytest.raises(ValueError, match=r"tau must have shape"):
        m.constrained_dynamics(q, u, tau[:-1])
    m.constrained_dynamics(list(q), list(u), list(tau))  # coerced
    big = q.copy()
    big[m.modal_slice("coupler")] = 5.0  # beyond the stiffened beam's second-order model
    with pytest.raises(ValueError, match="singular"):
        m.constrained_dynamics(big, u, tau)


def test_constrained_dynamics_with_a_loop_to_the_world_against_dense_kkt():
    from test_flex_constraints import _world_loop
    m, q, u, tau, _ = _world_loop()
    G = m.constraint_jacobian(q)
    rows = G.shape[0]
    M = m.mass_matrix(q)
    b = m.inverse_dynamics(q, u, np.zeros(m.nu))
    A = np.block([[M, -G.T], [G, np.zeros((rows, rows))]])
    sol = np.linalg.solve(A, np.concatenate([tau - b, -m.constraint_bias(q, u)]))
    res = m.constrained_dynamics(q, u, tau)
    assert np.abs(res.udot - sol[:m.nu]).max() < 1e-9 * max(1.0, np.abs(sol[:m.nu]).max())
    assert np.abs(res.multipliers - sol[m.nu:]).max() < 1e-9 * max(1.0, np.abs(sol[m.nu:]).max())
