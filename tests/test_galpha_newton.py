"""generalized_alpha's Newton matrix (issue 23): its pieces M, C_t = -d(forces)/du and
K_t = -d(forces)/dq against central differences of the step residual's forces, on a tree with
a free base, a slider, springs, limits, joint dynamics, an actuator and an external force, and
the whole matrix S = M + gamma' C_t + beta' K_t as the Jacobian of the step residual."""
import numpy as np

import multibody as mb
from multibody.kernels.common import data_start, link_rows
from multibody.simulation.galpha import GeneralizedAlphaIntegrator
from multibody.simulation.galpha_step import (
    G_ALPHA_F, G_ALPHA_M, G_BETA, G_GAMMA, N_GOPT, advance_state, iteration_matrix, parameters, residual,
)
from multibody.simulation.joint_dynamics import JointDynamics


def loaded_tree():
    """Every hinge kind of the Lie-group step (free_quat base, a rotation-vector spherical,
    a pin, a slider) with every force model whose derivatives Newton uses: springs and
    dampers, regularized friction, a limit the slider is past, an actuator with position
    and speed bias, a wrench fixed in a link."""
    m = mb.Multibody("loaded")
    base = m.add_body("base", mass=3.0, com=(0.1, 0.0, 0.05), inertia=np.diag([0.2, 0.3, 0.4]))
    m.add_hinge(None, base, kind="free_quat", name="float")
    arm = m.add_body("arm", mass=1.0, com=(0.0, 0.0, -0.3), inertia=np.diag([0.05, 0.04, 0.02]))
    T = np.eye(4)
    T[:3, 3] = (0.2, 0.0, -0.1)
    m.add_hinge(base, arm, kind="spherical", T_parent_joint=T, name="ball")
    fore = m.add_body("fore", mass=0.7, com=(0.0, 0.05, -0.2), inertia=np.diag([0.02, 0.03, 0.01]))
    T = np.eye(4)
    T[2, 3] = -0.6
    elbow = m.add_hinge(arm, fore, "pin", axis=(0.0, 1.0, 0.0), T_parent_joint=T, name="elbow")
    tip = m.add_body("tip", mass=0.3, inertia=np.eye(3) * 1e-3)
    T = np.eye(4)
    T[2, 3] = -0.4
    slide = m.add_hinge(fore, tip, "slider", axis=(0.0, 0.0, 1.0), T_parent_joint=T, name="slide")
    elbow.damping, elbow.friction = 0.4, 0.3
    slide.set_limits(-0.1, 0.05)
    m.actuators = [mb.Actuator("drive", "elbow", gear=2.0, gain=1.5, bias=(0.1, -2.0, -0.5))]
    forces = [mb.JointSpringDamper("slide", stiffness=40.0, damping=0.7, q_ref=0.01),
              mb.JointLimits(stiffness=500.0, damping=3.0), JointDynamics(),
              mb.ExternalForce("fore", [0.1, -0.2, 0.3, 1.0, 0.5, -0.4])]
    return m, forces


def _kernel_args(m, forces, q, u, ctrl=None):
    """An integrator's packed force models and its data's link rows (to call the step's
    kernels as its loop does)."""
    from multibody.simulation.actuators import ActuatorForces
    extra = (ActuatorForces(m.actuators, ctrl),) if m.actuators else ()
    integ = GeneralizedAlphaIntegrator(m, q, u, forces=tuple(forces) + extra)
    c = m.compiled
    n = c.mi.shape[0]
    ws = link_rows(integ.data.buf, data_start(integ.data.buf, n), n)
    return integ, c, ws


def test_newton_matrix_pieces_equal_central_differences_of_the_residual():
    """K_t = dr/dq (tangent, along integrate) and C_t = dr/du of the residual r = M x + b -
    J^T f - tau(q, u) with every force model active, against central differences; the matrix
    Newton factors is M + gu C_t + gq K_t."""
    m, forces = loaded_tree()
    rng = np.random.default_rng(3)
    q = m.random_q(rng=rng)
    q[m.q_slice("slide")] = 0.08  # past the upper limit (0.05): the limit's spring acts
    q[m.q_slice("elbow")] = 0.3
    u = rng.normal(size=m.nu)
    u[m.u_slice("slide")] = 0.2   # moving outward: the limit's damper acts too
    x = rng.normal(size=m.nu)
    integ, c, ws = _kernel_args(m, forces, q, u, ctrl=[0.2])
    nu = m.nu
    tau, r = np.zeros(nu), np.zeros(nu)
    src = np.zeros(nu)

    def res(qq, uu):
        residual(c.mi, integ.mf, ws, integ.fmi, integ.fmf, True, 0.3, qq, uu, x, src, tau, r)
        return r.copy()

    K, C, S = np.zeros((nu, nu)), np.zeros((nu, nu)), np.zeros((nu, nu))
    gq, gu = 0.013, 0.21
    iteration_matrix(c.mi, integ.mf, ws, integ.fmi, integ.fmf, True, 0.3, q, u, x, src, tau, gq, gu, K, C, S)
    eps = 1e-6
    Kfd = np.array([(res(m.integrate(q, e), u) - res(m.integrate(q, -e), u)) / (2 * eps) for e in np.eye(nu) * eps]).T
    Cfd = np.array([(res(q, u + e) - res(q, u - e)) / (2 * eps) for e in np.eye(nu) * eps]).T
    scale = max(1.0, np.abs(Kfd).max())
    print(f"K: {np.abs(K - Kfd).max():.2e} of {scale:.2e}; C: {np.abs(C - Cfd).max():.2e}")
    assert np.abs(K - Kfd).max() <= 1e-6 * scale
    assert np.abs(C - Cfd).max() <= 1e-6 * max(1.0, np.abs(Cfd).max())
    assert np.abs(C).max() > 0.5 and np.abs(K).max() > 10  # (the forces' terms are there)
    M = m.mass_matrix(q)
    assert np.allclose(S, M + gu * C + gq * K, rtol=0, atol=1e-12 * np.abs(S).max())


def test_newton_matrix_is_the_jacobian_of_the_step_residual():
    """On pins and sliders (q1 = q + delta, no exponential map) Newton's matrix is exactly
    d r(q1(x), u1(x), x) / dx through the method's update: central differences agree."""
    m = mb.Multibody("chain")
    parent = None
    for k, kind in enumerate(("pin", "pin", "slider")):
        b = m.add_body(f"b{k}", mass=1.0 + k, com=(0.0, 0.1, -0.4), inertia=np.diag([0.02, 0.03, 0.01]))
        T = np.eye(4)
        T[2, 3] = -0.5 if k else 0.0
        m.add_hinge(parent, b, kind, axis=(0.0, 1.0, 0.0) if kind == "pin" else (0.0, 0.0, 1.0),
                    T_parent_joint=T, name=f"h{k}")
        parent = b
    m.hinges[1].damping, m.hinges[1].friction = 2.0, 0.5
    forces = [mb.JointSpringDamper("h2", stiffness=300.0, damping=1.5), JointDynamics()]
    rng = np.random.default_rng(5)
    q, u = rng.normal(size=3), rng.normal(size=3)
    a, udot, x0 = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    integ, c, ws = _kernel_args(m, forces, q, u)
    h = 0.01
    gopt = np.zeros(N_GOPT)
    gopt[:4] = parameters(0.7)
    am, af, gamma, beta = gopt[G_ALPHA_M], gopt[G_ALPHA_F], gopt[G_GAMMA], gopt[G_BETA]
    delta, q1, u1, a1, tau, r = (np.zeros(3) for _ in range(6))
    src = np.zeros(3)

    def res(x):
        advance_state(c.mi, ws, gopt, h, q, u, a, udot, x, delta, q1, u1, a1)
        residual(c.mi, integ.mf, ws, integ.fmi, integ.fmf, False, 0.0, q1, u1, x, src, tau, r)
        return r.copy()

    res(x0)
    K, C, S = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))
    iteration_matrix(c.mi, integ.mf, ws, integ.fmi, integ.fmf, False, 0.0, q1.copy(), u1.copy(), x0, src, tau,
                     h * h * beta * (1 - af) / (1 - am), h * gamma * (1 - af) / (1 - am), K, C, S)
    eps = 1e-6
    Sfd = np.array([(res(x0 + e) - res(x0 - e)) / (2 * eps) for e in np.eye(3) * eps]).T
    print(f"S - central differences: {np.abs(S - Sfd).max():.2e} of {np.abs(S).max():.2e}")
    assert np.abs(S - Sfd).max() <= 1e-7 * np.abs(S).max()
