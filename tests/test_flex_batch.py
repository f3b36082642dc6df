"""Stacked states (B, ...) of models with modal (flexible) bodies: every stacked call gives
exactly (bit for bit) what a loop of single calls gives (kernels/flex_batch.py: the
rigid batch kernels' prange around the flex entry kernels; pose gradients a loop of single
calls), with the same argument errors as the rigid stacked calls."""
import numpy as np
import pytest

import multibody as mb
from flex_models import KINDS, flex_state, flexible_tree


def _states(m, rng, B):
    Q, U = zip(*(flex_state(m, rng) for _ in range(B)))
    return np.array(Q), np.array(U), rng.normal(size=(B, m.nu))


def _checks(m, Q, U, X, frames, forward=True):
    """(stacked result, single call of sample i) of every stacked facade call (``forward``:
    forward dynamics among them)."""
    out = [(m.forward_dynamics(Q, U, X), lambda i: m.forward_dynamics(Q[i], U[i], X[i]))] if forward else []
    out += [(m.inverse_dynamics(Q, U, X), lambda i: m.inverse_dynamics(Q[i], U[i], X[i])),
            (m.bias_forces(Q, U), lambda i: m.bias_forces(Q[i], U[i])),
            (m.gravity_forces(Q), lambda i: m.gravity_forces(Q[i])),
            (m.mass_matrix(Q), lambda i: m.mass_matrix(Q[i])),
            (m.inverse_mass_matrix(Q), lambda i: m.inverse_mass_matrix(Q[i])),
            (m.kinetic_energy(Q, U), lambda i: m.kinetic_energy(Q[i], U[i])),
            (m.potential_energy(Q), lambda i: m.potential_energy(Q[i])),
            (m.center_of_mass(Q), lambda i: m.center_of_mass(Q[i])),
            (m.integrate(Q, U, 0.01), lambda i: m.integrate(Q[i], U[i], 0.01))]
    for f in frames:
        out += [(m.body_pose(Q, f), lambda i, f=f: m.body_pose(Q[i], f)),
                (m.body_jacobian(Q, f), lambda i, f=f: m.body_jacobian(Q[i], f)),
                (m.pose_gradient(Q, f), lambda i, f=f: m.pose_gradient(Q[i], f))]
    return out


def _assert_bit_equal(checks, B):
    for stacked, single in checks:
        assert stacked.shape[0] == B
        for i in range(B):
            assert np.array_equal(stacked[i], single(i)), (i, stacked[i], single(i))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("B", [1, 3, 17])
def test_stacked_equals_a_loop_of_single_calls_bit_for_bit(seed, B):
    rng = np.random.default_rng(seed)
    m = flexible_tree(rng, kinds=list(np.roll(KINDS, seed)), gravity=rng.normal(size=3) * 3)
    Q, U, X = _states(m, rng, B)
    q = Q[0].copy()  # charts of the thread's data away from the identity: stacked calls use them
    for h in m.hinges:
        if h.kind == "spherical":
            sl = m.compiled.q_slices[h.name]
            q[sl] *= 2.5 / np.linalg.norm(q[sl])
    assert m.sanitize(q)
    _assert_bit_equal(_checks(m, Q, U, X, ["n1", "tip_panel", "c3"]), B)


def test_stacked_with_constraints_as_the_rigid_stacked_calls():
    """With an enabled loop the tree's quantities (inverse dynamics, M, M^-1, energies, poses)
    are stacked as for a rigid model, and so is the forward dynamics, the tree-augmented one
    (the batched flex constrained kernel), each sample bit for bit its single call."""
    rng = np.random.default_rng(7)
    m = flexible_tree(rng, gravity=(0.0, 0.0, -9.81))
    m.add_node("lb", "c2", np.eye(4))
    m.add_loop_constraint("loop", "n1", "lb", "spherical")
    Q, U, X = _states(m, rng, 5)
    checks = _checks(m, Q, U, X, ["n4"])
    _assert_bit_equal(checks, 5)


def _beam():
    """The pendulum of issue 9: a cantilever beam on a pin."""
    m = mb.Multibody()
    b = m.add_modal_body("beam", modal_data=mb.flex.beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=10,
                                                              n_modes=2, nodes=[1.0]), nodes={"tip": 0})
    m.add_hinge(None, b, "pin", axis=(0, 1, 0))
    return m


def test_stacked_out_arrays_and_large_batches():
    m = _beam()
    rng = np.random.default_rng(3)
    B = 1000  # more samples than workers: each worker's flex work serves many in turn
    Q = np.column_stack([rng.uniform(-3, 3, B), 1e-3 * rng.normal(size=(B, 2))])
    U, T = rng.normal(size=(B, 3)), rng.normal(size=(B, 3))
    out = np.empty((B, 3))
    assert m.forward_dynamics(Q, U, T, out=out) is out
    M = np.empty((B, 3, 3))
    assert m.mass_matrix(Q, out=M) is M
    tau = m.inverse_dynamics(Q, U, out)
    for i in (0, 1, 500, B - 1):
        assert np.array_equal(out[i], m.forward_dynamics(Q[i], U[i], T[i]))
        assert np.array_equal(M[i], m.mass_matrix(Q[i]))
        assert np.array_equal(tau[i], m.inverse_dynamics(Q[i], U[i], out[i]))
    assert np.allclose(tau, T, rtol=0, atol=1e-10)  # and they invert each other


def test_stacked_errors_name_the_argument_and_the_sample():
    m = _beam()
    Q, U = np.zeros((4, 3)), np.zeros((4, 3))
    with pytest.raises(ValueError, match=r"u must have shape \(4, 3\)"):
        m.forward_dynamics(Q, np.zeros((5, 3)), U)
    with pytest.raises(ValueError, match=r"tau must have shape \(4, 3\)"):
        m.forward_dynamics(Q, U, np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"udot must have shape \(4, 3\)"):
        m.inverse_dynamics(Q, U, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"q must have shape \(4, 3\)"):
        m.mass_matrix(np.zeros((4, 2)), out=np.empty((4, 3, 3)))
    with pytest.raises(ValueError, match="out must be"):
        m.mass_matrix(Q, out=np.empty((4, 3)))
    bad = Q.copy()
    bad[2, 1] = np.nan
    for call in (lambda: m.forward_dynamics(bad, U, U), lambda: m.inverse_dynamics(bad, U, U),
                 lambda: m.mass_matrix(bad), lambda: m.inverse_mass_matrix(bad), lambda: m.kinetic_energy(bad, U),
                 lambda: m.potential_energy(bad), lambda: m.body_pose(bad, "tip"), lambda: m.integrate(bad, U)):
        with pytest.raises(ValueError, match=r"sample 2: q\[1\] is not finite"):
            call()
    with pytest.raises(ValueError, match="f_ext is not supported with stacked states"):
        m.forward_dynamics(Q, U, U, f_ext={"tip": np.ones(6)})
    with pytest.raises(ValueError, match="data= is not supported with stacked states"):
        m.forward_dynamics(Q, U, U, out=np.empty((4, 3)), data=m.create_data())
    with pytest.raises(KeyError, match="unknown body, node or hinge 'tpi'"):
        m.body_pose(Q, "tpi")
