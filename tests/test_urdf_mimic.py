"""URDF ``<mimic>`` as coordinate constraints (``load_urdf(mimic="constraint")``).

Checked against things the constraint code does not use: the coordinate relations
themselves at a closed configuration, and a dense KKT solve from the tree's mass matrix
and bias forces (the mimic joints then accelerate together).
"""
import numpy as np
import pytest

import multibody as mb

_LINK = ('<link name="{0}"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>'
         '<inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>')


def _joint(name, parent, child, kind="revolute", mimic=None, axis="0 0 1"):
    m = "" if mimic is None else f"<mimic {mimic}/>"
    lim = '<limit lower="-1" upper="1" effort="1" velocity="1"/>' if kind in ("revolute", "prismatic") else ""
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="0.3 0 0" rpy="0.1 0 0"/><axis xyz="{axis}"/>{lim}{m}</joint>')


def _robot(*joints, links=("a", "b", "c", "d", "e")):
    return "<robot name='r'>" + "".join(_LINK.format(n) for n in links) + "".join(joints) + "</robot>"


CHAIN = _robot(_joint("j1", "a", "b"),
               _joint("j2", "b", "c", mimic='joint="j1" multiplier="-2" offset="0.1"'),
               _joint("j3", "c", "d", kind="prismatic", axis="1 0 0", mimic='joint="j2" multiplier="0.5"'),
               _joint("j4", "a", "e", kind="continuous"))


def test_mimic_becomes_coordinate_constraints_that_chain():
    m = mb.load_urdf_string(CHAIN, mimic="constraint")
    names = [c.name for c in m.enabled_constraints]
    assert names == ["mimic_j2", "mimic_j3"]
    c2, c3 = m.constraint("mimic_j2"), m.constraint("mimic_j3")
    assert (c2.hinge_a.name, c2.hinge_b.name, c2.ratio, c2.offset) == ("j2", "j1", -2.0, 0.1)
    assert (c3.hinge_a.name, c3.hinge_b.name, c3.ratio, c3.offset) == ("j3", "j2", 0.5, 0.0)
    assert m.hinge("j2").mimic == {"joint": "j1", "multiplier": -2.0, "offset": 0.1}  # metadata kept
    # a configuration with q_j2 = -2 q_j1 + 0.1 and q_j3 = 0.5 q_j2 has zero residual
    q = np.zeros(m.nq)
    q[m.q_slice("j1")] = 0.3
    q[m.q_slice("j2")] = -2 * 0.3 + 0.1
    q[m.q_slice("j3")] = 0.5 * (-2 * 0.3 + 0.1)
    q[m.q_slice("j4")] = -0.7
    assert np.abs(m.pose_error(q, "residual")).max() < 1e-15
    # the dynamics: a dense KKT solve, and the mimic joints accelerate in proportion
    rng = np.random.default_rng(0)
    G = m.constraint_jacobian(q)
    u = rng.normal(size=m.nu)
    u -= np.linalg.pinv(G) @ (G @ u)
    tau = rng.normal(size=m.nu)
    udot = m.forward_dynamics(q, u, tau)
    M, b = m.mass_matrix(q), m.bias_forces(q, u)
    n = G.shape[0]
    K = np.block([[M, G.T], [G, np.zeros((n, n))]])
    ref = np.linalg.solve(K, np.concatenate([tau - b, -m.constraint_bias(q, u)]))[:m.nu]
    np.testing.assert_allclose(udot, ref, atol=1e-10 * max(1.0, np.abs(ref).max()))
    s = {h: m.u_slice(h).start for h in ("j1", "j2", "j3")}
    assert udot[s["j2"]] == pytest.approx(-2 * udot[s["j1"]], abs=1e-10)
    assert udot[s["j3"]] == pytest.approx(0.5 * udot[s["j2"]], abs=1e-10)


def test_default_keeps_mimic_as_metadata_only():
    m = mb.load_urdf_string(CHAIN)
    assert m.constraints == {}
    assert m.hinge("j3").mimic == {"joint": "j2", "multiplier": 0.5, "offset": 0.0}
    with pytest.raises(ValueError, match="mimic must be 'metadata' or 'constraint'"):
        mb.load_urdf_string(CHAIN, mimic="yes")


def test_mimic_cycle_is_refused_naming_the_joints():
    xml = _robot(_joint("j1", "a", "b", mimic='joint="j3"'), _joint("j2", "b", "c", mimic='joint="j1"'),
                 _joint("j3", "c", "d", mimic='joint="j2"'), _joint("j4", "a", "e"))
    with pytest.raises(ValueError, match=r"cycle: j1 -> j3 -> j2 -> j1"):
        mb.load_urdf_string(xml, mimic="constraint")
    with pytest.raises(ValueError, match=r"cycle: j4 -> j4"):
        mb.load_urdf_string(_robot(_joint("j1", "a", "b"), _joint("j2", "b", "c"), _joint("j3", "c", "d"),
                                   _joint("j4", "a", "e", mimic='joint="j4"')), mimic="constraint")


def test_mimic_of_unknown_or_multi_dof_joint_is_refused():
    xml = _robot(_joint("j1", "a", "b"), _joint("j2", "b", "c", mimic='joint="ghost"'),
                 _joint("j3", "c", "d"), _joint("j4", "a", "e"))
    with pytest.raises(ValueError, match=r"joint 'j2' mimics joint 'ghost', which is not a joint"):
        mb.load_urdf_string(xml, mimic="constraint")
    xml = _robot(_joint("j1", "a", "b", kind="floating"), _joint("j2", "b", "c", mimic='joint="j1"'),
                 _joint("j3", "c", "d"), _joint("j4", "a", "e"))
    with pytest.raises(ValueError, match=r"joint 'j2' mimics joint 'j1', but 'j1' is floating"):
        mb.load_urdf_string(xml, mimic="constraint")
    xml = _robot(_joint("j1", "a", "b"), _joint("j2", "b", "c", kind="fixed", mimic='joint="j1"'),
                 _joint("j3", "c", "d"), _joint("j4", "a", "e"))
    with pytest.raises(ValueError, match=r"joint 'j2' mimics joint 'j1', but 'j2' is fixed"):
        mb.load_urdf_string(xml, mimic="constraint")
