"""Every subhinge kind, on random trees, against Pinocchio (an independent peer)."""
import numpy as np
import pinocchio as pin
import pytest

import multibody as mb
from pin_convert import q_to_pin, spatial_perm, to_pinocchio, u_perm

KINDS = ["pin", "slider", "screw", "spherical", "spherical_quat", "free", "free_quat",
         "translational", "universal", "gimbal", "planar", "cylindrical", "locked"]


def random_transform(rng, scale=0.5):
    from scipy.spatial.transform import Rotation
    T = np.eye(4)
    T[:3, :3] = Rotation.random(random_state=rng.integers(1 << 31)).as_matrix()
    T[:3, 3] = rng.uniform(-scale, scale, 3)
    return T


def random_tree(rng, kinds, n_bodies=8):
    m = mb.Multibody("random")
    names = [None]
    for k in range(n_bodies):
        kind = kinds[k % len(kinds)]
        mass = rng.uniform(0.5, 3.0)
        d = rng.uniform(0.1, 1.0, 3) ** 2  # a box of random sides in random axes: a physical inertia
        R = random_transform(rng)[:3, :3]
        inertia = R @ np.diag(mass / 12 * (d.sum() - d)) @ R.T
        b = m.add_body(f"b{k}", mass=mass, com=rng.uniform(-0.3, 0.3, 3), inertia=inertia)
        parent = names[rng.integers(len(names))]
        axis = rng.normal(size=3)
        m.add_hinge(parent, b, kind=kind, axis=axis, pitch=0.1, T_parent_joint=random_transform(rng),
                    T_child_joint=random_transform(rng))
        names.append(b.name)
    m.add_node("tool", "b3", random_transform(rng))
    return m


def assert_close(a, b, tol=1e-9):
    a = np.asarray(a)
    b = np.asarray(b)
    scale = max(1.0, np.abs(b).max())
    assert np.abs(a - b).max() <= tol * scale, np.abs(a - b).max()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_random_tree_matches_pinocchio(kind, seed):
    rng = np.random.default_rng(seed)
    kinds = KINDS if kind == "mixed" else [kind]
    if kind == "locked":
        kinds = ["locked", "pin"]
    m = random_tree(rng, kinds)
    m.gravity = rng.normal(size=3) * 5
    if seed % 2:  # rotor inertias on every other tree (Pinocchio's armature)
        for h in m.hinges:
            h.armature = rng.uniform(0.0, 0.5, h.nu)
    model = to_pinocchio(m)
    data = model.createData()
    q = m.random_q(rng)
    u = rng.normal(size=m.nu)
    udot = rng.normal(size=m.nu)
    tau = rng.normal(size=m.nu)
    qp = q_to_pin(m, q)
    P = u_perm(m)
    up, udp, taup = u[P], udot[P], tau[P]
    # mass matrix
    Mp = pin.crba(model, data, qp)
    Mp = np.triu(Mp) + np.triu(Mp, 1).T
    assert_close(m.mass_matrix(q)[np.ix_(P, P)], Mp)
    # inverse dynamics
    assert_close(m.inverse_dynamics(q, u, udot)[P], pin.rnea(model, data, qp, up, udp))
    # forward dynamics and the inverse mass matrix
    assert_close(m.forward_dynamics(q, u, tau)[P], pin.aba(model, data, qp, up, taup))
    Mi = pin.computeMinverse(model, data, qp)
    assert_close(m.inverse_mass_matrix(q)[np.ix_(P, P)], np.triu(Mi) + np.triu(Mi, 1).T)
    # poses and Jacobians of body frames (the last link of each body's hinge)
    pin.forwardKinematics(model, data, qp)
    pin.computeJointJacobians(model, data, qp)
    c = m.compiled
    S = spatial_perm()
    for name in m.body_names + ["tool"]:
        link, T_lb = c.frames[name]
        if link < 0:
            continue
        jid = link + 1
        T_wl = data.oMi[jid].homogeneous
        assert_close(m.body_pose(q, name), T_wl @ T_lb)
        Jl = pin.getJointJacobian(model, data, jid, pin.LOCAL)  # [v; w] of the link frame
        Jl = Jl[S][:, P]
        # carry the link-frame Jacobian to the body frame: X_{body<-link}
        R = T_lb[:3, :3]
        p = T_lb[:3, 3]
        Jw = R.T @ Jl[:3]
        Jv = R.T @ (Jl[3:] + np.cross(Jl[:3], p, axis=0))
        assert_close(m.body_jacobian(q, name), np.vstack([Jw, Jv]))
