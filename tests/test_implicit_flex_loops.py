"""integrator="radau" and "generalized_alpha" on models with modal (flexible) bodies AND enabled
constraints (issue 23): the tree-augmented constrained dynamics with the run's Baumgarte gains,
the Jacobian / Newton matrix from the flex constrained dynamics' analytic derivatives
(``flex_implicit.flex_ta_jacobian``).

The flexible four-bar of examples/flexible_four_bar.py (a modal beam coupler closing the loop,
nu = 6, 5 loop rows) with 5 % modal damping: the Jacobian (a joint spring-damper included)
against central differences of the stage rates; radau at rtol 1e-8 and generalized_alpha at
small steps against dopri5 at rtol 1e-12 on the same ODE (same gains), the closure at the
Baumgarte level; generalized_alpha's second order; a stiff coupler where radau's steps are far
fewer than dopri5's; rollout equal to its own runs. (Forces at frames under both methods:
test_implicit_flex_forces.py.)

Why damped: pinned at both ends by the loop, the coupler has a mode far above its free ones
(the constrained Jacobian's entries reach 1.8e7 s^-2 at the closed start); undamped it rings
over the whole run, and the phase of that ringing, off by (omega h)^2 omega t / 12, sets a
second-order method's end error (generalized_alpha's u errors 0.056, 0.0037, 0.0995 at 2, 1,
0.5 ms: no order visible). With 5 % modal damping it dies out in the first hundredth of a
second and the errors fall 4.0x per halving.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes
from multibody.kernels.common import data_start, link_rows
from multibody.kernels.flex_entry import flex_constrained_udot
from multibody.simulation.flex_implicit import flex_ta_jacobian
from multibody.simulation.force_kernels import apply_forces
from multibody.simulation.radau import RadauIntegrator

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from flexible_four_bar import flexible_four_bar  # noqa: E402  (the example's model)

sys.path.pop(0)

GA = "generalized_alpha"
T_FINAL = 0.2


@pytest.fixture(scope="module")
def linkage():
    """(model, q0, u0, reference): the example's four-bar (EI = 20: coupler modes 4, 25 and
    69 Hz, 5 % damped) closed at rest, and dopri5 at rtol 1e-12 over T_FINAL on the same ODE
    (samples every 0.05 s)."""
    m, q0 = flexible_four_bar(damping_ratio=0.05)
    u0 = np.zeros(m.nu)
    ref = mb.simulate(m, q0, u0, T_FINAL, dt=0.05, integrator="dopri5", rtol=1e-12, atol=1e-14)
    assert ref.status == "finished"
    return m, q0, u0, ref


def _error(res, ref):
    return max(np.abs(res.q[-1] - ref.q[-1]).max(), np.abs(res.u[-1] - ref.u[-1]).max())


def _closure(m, res):
    return max(np.abs(m.pose_error(q, "residual")).max() for q in res.q)


def test_jacobian_equals_central_differences_of_the_rates(linkage):
    """(M, C, K) = (I, -du_dot/du, -du_dot/dq) of the constrained udot with the run's gains and
    a joint spring-damper on the crank, against central differences of the stage's udot
    (apply_forces + flex_constrained_udot, q along ``integrate``), at a moving, bent state
    (the reference's at 0.1 s, its rates perturbed)."""
    m, _, _, ref = linkage
    rng = np.random.default_rng(3)
    q = ref.q[2]
    u = ref.u[2] + 0.3 * rng.normal(size=m.nu)
    forces = [mb.JointSpringDamper(m.hinges[0].name, stiffness=7.0, damping=0.3, q_ref=-1.0)]
    integ = RadauIntegrator(m, q, u, forces=forces)
    c, buf, nu = m.compiled, integ.data.buf, m.nu
    n = c.mi.shape[0]
    ws = link_rows(buf, data_start(buf, n), n)
    src, tau, out = np.zeros(nu), np.zeros(nu), np.zeros(nu)
    Wc = integ.constraint_work

    def udot(qq, uu):
        apply_forces(c.mi, integ.mf, ws, integ.fmi, integ.fmf, qq, uu, 0.0, src, tau, False)
        assert flex_constrained_udot(buf, qq, uu, tau, Wc, out) == 0
        return out.copy()

    M, C, K = np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros((nu, nu))
    assert flex_ta_jacobian(c.mi, integ.mf, ws, buf, integ.fmi, integ.fmf, 0.0, q, u, src, tau, integ._rw[27],
                            integ._rw[28], M, C, K)
    eps = 1e-6
    Kfd = -np.array([(udot(m.integrate(q, e), u) - udot(m.integrate(q, -e), u)) / (2 * eps)
                     for e in np.eye(nu) * eps]).T
    Cfd = -np.array([(udot(q, u + e) - udot(q, u - e)) / (2 * eps) for e in np.eye(nu) * eps]).T
    print(f"K - central differences {np.abs(K - Kfd).max():.2e} of {np.abs(Kfd).max():.2e}; "
          f"C {np.abs(C - Cfd).max():.2e} of {np.abs(Cfd).max():.2e}")
    assert np.array_equal(M, np.eye(nu))
    assert np.abs(K - Kfd).max() <= 1e-6 * np.abs(Kfd).max()
    assert np.abs(C - Cfd).max() <= 1e-6 * np.abs(Cfd).max()
    assert np.abs(Kfd).max() > 10.0 and np.abs(Cfd).max() > 0.1


def test_radau_agrees_with_dopri5(linkage):
    """radau at rtol 1e-8 ends within 5e-8 of dopri5 at rtol 1e-12 (RADAU5's transformed
    tolerances put the global error near rtol times the state's scale, ~2 rad/s here;
    measured 2.7e-9); its closure stays at the Baumgarte level (measured 1e-11 m; dopri5's
    at 1e-12 is 1e-15)."""
    m, q0, u0, ref = linkage
    res = mb.simulate(m, q0, u0, T_FINAL, dt=0.05, integrator="radau", rtol=1e-8, atol=1e-10)
    assert res.status == "finished" and res.integrator == "radau"
    err, closure, ref_closure = _error(res, ref), _closure(m, res), _closure(m, ref)
    print(f"radau: {res.n_steps} steps, error {err:.2e}; closure {closure:.2e} m (dopri5 {ref_closure:.2e})")
    assert err < 5e-8
    assert closure < 1e-9


def test_generalized_alpha_second_order_and_agreement(linkage):
    """Steps 2, 1 and 0.5 ms against dopri5: the errors fall 4x per halving (second order;
    measured 4.0, 4.0), the smallest within 1e-3 of it (3.9e-4: u ~ 2.3 rad/s), the closure
    bounded at the Baumgarte level, O(h^2) small."""
    m, q0, u0, ref = linkage
    errors = []
    for h in (0.002, 0.001, 0.0005):
        res = mb.simulate(m, q0, u0, T_FINAL, dt=h, integrator=GA)
        assert res.status == "finished" and res.integrator == GA
        errors.append(_error(res, ref))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    closure, ref_closure = _closure(m, res), _closure(m, ref)
    print(f"generalized_alpha: errors {errors}, ratios {ratios}; closure {closure:.2e} m (dopri5 {ref_closure:.2e})")
    assert np.all((3.6 < ratios) & (ratios < 4.4))
    assert errors[-1] < 1e-3
    assert closure < 1e-6


def test_stiff_coupler_radau_takes_far_fewer_steps():
    """A stiff coupler (EI = 2e5: free modes 0.4, 2.5 and 6.9 kHz, higher pinned in the
    loop) with 5 % modal damping: at rtol 1e-6 dopri5's steps are set by its stability on the
    stiff modes, radau's by the swing (measured 5919 against 137); both agree to 1e-5."""
    m, q0 = flexible_four_bar(EI=2e5, damping_ratio=0.05)
    u0 = np.zeros(m.nu)
    kw = dict(dt=T_FINAL, rtol=1e-6, atol=1e-8)
    d = mb.simulate(m, q0, u0, T_FINAL, integrator="dopri5", **kw)
    r = mb.simulate(m, q0, u0, T_FINAL, integrator="radau", **kw)
    print(f"stiff coupler: dopri5 {d.n_steps} steps, radau {r.n_steps}; difference {_error(r, d):.2e}")
    assert r.status == "finished" and d.status == "finished"
    assert r.n_steps * 10 < d.n_steps
    assert _error(r, d) < 1e-5


def geared_beam():
    """A 5 % damped modal beam on a pin (2 modes, tip node) geared to a rigid arm on a second
    pin (q_arm = -0.5 q_beam: a coordinate row) whose tip's vertical velocity follows the
    beam tip's (a convel row through the deforming node)."""
    data = beam_modes(1.0, 5.0, 1.0, n_elements=10, n_modes=2, damping_ratio=0.05, nodes=[1.0])
    m = mb.Multibody("geared beam")
    beam = m.add_modal_body("beam", modal_data=data, nodes={"beam_tip": 0})
    m.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    arm = m.add_body("arm", mass=0.6, com=(0.5, 0, 0), inertia=np.diag([1e-4, 0.05, 0.05]))
    at = np.eye(4)
    at[1, 3] = 0.3
    m.add_hinge(None, arm, "pin", axis=(0.0, 1.0, 0.0), name="arm_pin", T_parent_joint=at)
    at = np.eye(4)
    at[0, 3] = 1.0
    m.add_node("arm_tip", arm, at)
    m.add_coordinate_constraint("gear", "arm_pin", "pivot", ratio=-0.5)
    m.add_convel_constraint("cv", "arm_tip", "beam_tip", (0.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    return m


def test_coordinate_and_convel_rows_through_a_modal_body():
    """The geared beam released horizontal, 0.3 s, against dopri5 at rtol 1e-12: radau at
    rtol 1e-8 within 2e-8 (measured 1.9e-9), generalized_alpha's errors 4x down from 2 to 1 ms
    (measured 4.0), the gear held at the Baumgarte level."""
    m = geared_beam()
    q0, u0 = np.zeros(m.nq), np.zeros(m.nu)
    arm = m.q_slice("arm_pin").start
    ref = mb.simulate(m, q0, u0, 0.3, dt=0.1, integrator="dopri5", rtol=1e-12, atol=1e-14)
    res = mb.simulate(m, q0, u0, 0.3, dt=0.1, integrator="radau", rtol=1e-8, atol=1e-10)
    errors = [_error(mb.simulate(m, q0, u0, 0.3, dt=h, integrator=GA), ref) for h in (0.002, 0.001)]
    gear = np.abs(res.q[:, arm] + 0.5 * res.q[:, 0]).max()
    print(f"geared beam: radau {res.n_steps} steps, error {_error(res, ref):.2e}, gear {gear:.1e}; "
          f"generalized_alpha errors {errors}")
    assert abs(ref.q[-1, 0]) > 0.03  # (it swings)
    assert _error(res, ref) < 2e-8
    assert 3.6 < errors[0] / errors[1] < 4.4
    assert gear < 1e-9


def test_rollout_equals_its_own_runs(linkage):
    """rollout under both methods runs each sample through its own integrator: each sample
    equals its own simulate run to the bit."""
    m, q0, u0, _ = linkage
    Q0 = np.array([q0, q0])
    U0 = np.zeros((2, m.nu))
    U0[1, 0] = 0.5
    for integrator, kw in (("radau", dict(dt=0.02, rtol=1e-6, atol=1e-8)), (GA, dict(dt=0.01))):
        out = mb.rollout(m, Q0, U0, 0.04, integrator=integrator, progress=False, **kw)
        for b in range(2):
            one = mb.simulate(m, Q0[b], U0[b], 0.04, integrator=integrator, **kw)
            assert np.array_equal(out.q[b], one.q) and np.array_equal(out.u[b], one.u)


#: the last samples (q, u) of the runs in ``test_unchanged_paths_keep_their_samples`` as the code
#: before modal bodies with constraints were served gave them (commit 2c7c32d; the new code's
#: samples were equal to the bit on the machine that recorded these)
BEFORE = {
    ("loop", "radau"): ([2.369278711258677, -2.085659336537414, 1.9911907491709564],
                        [2.9684263685144345, -2.5075468526925397, 1.7386341512980974]),
    ("loop", GA): ([2.3693485838757007, -2.085705281759398, 1.9912107447358118],
                   [2.9685484857005915, -2.507613954429842, 1.738661460788823]),
    ("flex", "radau"): ([0.6711565928445048, 0.011058799954825721, 0.001183249241642555],
                        [3.8866512278354923, -0.20365754183868315, -0.03127044938884566]),
    ("flex", GA): ([0.6720257293666327, 0.011612507202171832, 0.0012713328328466053],
                   [3.9022377681723825, -0.19423297325250727, -0.030325983879533933]),
}


def test_unchanged_paths_keep_their_samples():
    """Rigid loops (examples/four_bar.py, crank at 2 rad/s) and a flexible tree (a 2 % damped
    beam pendulum released horizontal) under radau (rtol 1e-6) and generalized_alpha (dt 10 ms),
    0.3 s: the last samples as before (to 1e-13: another machine's compiler may round apart)."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    from four_bar import closed_start, four_bar
    sys.path.pop(0)
    loop = four_bar()
    data = beam_modes(1.0, 5.0, 1.0, n_elements=10, n_modes=2, damping_ratio=0.02)
    tree = mb.Multibody("beam pendulum")
    beam = tree.add_modal_body("beam", modal_data=data)
    tree.add_hinge(None, beam, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    starts = {"loop": (loop, *closed_start(loop)), "flex": (tree, np.zeros(tree.nq), np.zeros(tree.nu))}
    for (which, integrator), (q_end, u_end) in BEFORE.items():
        m, q0, u0 = starts[which]
        kw = dict(dt=0.05, rtol=1e-6, atol=1e-8) if integrator == "radau" else dict(dt=0.01)
        res = mb.simulate(m, q0, u0, 0.3, integrator=integrator, **kw)
        # the beam's modes come from LAPACK (eigh), whose last bits move with the machine and the
        # library: radau's flex run ended 2.2e-10 (relative) from these on 2026-11-29's machine,
        # where kernel_check's LAPACK-made inputs had moved by 1e-16
        tol = 1e-9 if which == "flex" else 1e-13
        np.testing.assert_allclose(res.q[-1], q_end, rtol=tol, atol=1e-15)
        np.testing.assert_allclose(res.u[-1], u_end, rtol=tol, atol=1e-15)
