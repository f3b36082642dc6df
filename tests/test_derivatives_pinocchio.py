"""Analytic dynamics derivatives against Pinocchio's (computeRNEADerivatives,
computeABADerivatives), an independent peer, on robots of example-robot-data.

Both take q-derivatives in the tangent space along their ``integrate`` (a body-frame
exponential for every joint), so the columns match once the speeds are permuted: Pinocchio's
free flyer is [v; w], ours [w; v] (``state_maps``). Free bases both as a quaternion and as our
rotation-vector chart. External wrenches are given at bodies and summed by Pinocchio per joint
in the joint frame (``pin_forces``).
"""
import numpy as np
import pinocchio as pin
import pytest

from robots import robots_dir
from test_robots_vs_pinocchio import load_pair, state_maps

pytestmark = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data not installed")

TOL = 1e-9
CASES = [("ur5", False), ("panda", False), ("talos", False), ("talos", "quaternion"), ("talos", True),
         ("solo12", "quaternion"), ("solo12", True)]


def assert_close(a, b, what):
    err = np.abs(np.asarray(a) - np.asarray(b)).max()
    assert err <= TOL * max(1.0, np.abs(b).max()), f"{what}: max difference {err:.3e}"


def pin_forces(pm, f_ext):
    """Our {body: [moment; force] in the body frame} as Pinocchio's per-joint forces."""
    forces = pin.StdVec_Force()
    for _ in range(pm.njoints):
        forces.append(pin.Force.Zero())
    for body, w in f_ext.items():
        frame = pm.frames[pm.getFrameId(body, pin.FrameType.BODY)]
        forces[frame.parentJoint] += frame.placement.act(pin.Force(w[3:], w[:3]))
    return forces


def _state(m, name, trial):
    rng = np.random.default_rng(sum(map(ord, name)) + trial)
    q = m.random_q(rng, scale=1.5)
    u, x = rng.normal(size=(2, m.nu))
    bodies = [b for b in m.body_names if b != "world"]
    f_ext = {b: rng.normal(size=6) for b in rng.choice(bodies, 3, replace=False)} if trial else None
    return q, u, x, f_ext


@pytest.mark.parametrize("name,floating", CASES)
def test_inverse_dynamics_derivatives_match_pinocchio(name, floating):
    m, pm = load_pair(name, floating)
    pd = pm.createData()
    q_to_pin, P = state_maps(m, pm)
    ix = np.ix_(P, P)
    for trial in range(2):
        q, u, udot, f_ext = _state(m, name, trial)
        args = (pm, pd, q_to_pin(q), u[P], udot[P]) + ((pin_forces(pm, f_ext),) if f_ext else ())
        pin.computeRNEADerivatives(*args)
        dq, du, M = m.inverse_dynamics_derivatives(q, u, udot, f_ext=f_ext)
        assert_close(dq[ix], pd.dtau_dq, f"{name} dtau/dq")
        assert_close(du[ix], pd.dtau_dv, f"{name} dtau/du")
        assert_close(M[ix], np.triu(pd.M) + np.triu(pd.M, 1).T, f"{name} dtau/dudot")


@pytest.mark.parametrize("name,floating", CASES)
def test_forward_dynamics_derivatives_match_pinocchio(name, floating):
    m, pm = load_pair(name, floating)
    pd = pm.createData()
    q_to_pin, P = state_maps(m, pm)
    ix = np.ix_(P, P)
    for trial in range(2):
        q, u, tau, f_ext = _state(m, name, trial)
        args = (pm, pd, q_to_pin(q), u[P], tau[P]) + ((pin_forces(pm, f_ext),) if f_ext else ())
        pin.computeABADerivatives(*args)
        dq, du, Minv = m.forward_dynamics_derivatives(q, u, tau, f_ext=f_ext)
        assert_close(dq[ix], pd.ddq_dq, f"{name} dudot/dq")
        assert_close(du[ix], pd.ddq_dv, f"{name} dudot/du")
        assert_close(Minv[ix], np.triu(pd.Minv) + np.triu(pd.Minv, 1).T, f"{name} dudot/dtau")
