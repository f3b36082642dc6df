"""Random flexible trees for the modal-body tests (tests/test_flex_bodies.py,
tests/test_flex_operators.py)."""
import numpy as np

import multibody as mb
from multibody.spatial import rotvec_to_matrix

KINDS = ["pin", "slider", "spherical", "universal", "free", "cylindrical"]


def flexible_tree(rng, kinds=KINDS, nm=3, coupling=True, gravity=(0.0, 0.0, 0.0)):
    """Rigid body - modal body (random modes, nodes) - children hanging from a deforming
    node, every hinge kind, plus a modal body welded at a node of the first."""
    m = mb.Multibody(gravity=gravity)
    b0 = m.add_body("b0", mass=1.0, com=[0.1, 0, 0], inertia=[0.1, 0, 0, 0.2, 0, 0.3])
    m.add_hinge(None, b0, kinds[0], axis=(0, 0, 1))
    A = rng.normal(size=(nm, nm))
    beam = m.add_modal_body("beam", nm, mass=2.0, com=[0.5, 0.02, 0], inertia=[0.1, 0.01, 0, 0.3, 0, 0.35],
                            modal_mass=np.eye(nm) + 0.1 * A @ A.T, stiffness=rng.uniform(5, 50, nm),
                            S=0.1 * rng.normal(size=(3, nm)) if coupling else None,
                            S_rot=0.1 * rng.normal(size=(3, nm)) if coupling else None)
    T = np.eye(4)
    T[:3, 3] = [0.3, 0, 0]
    m.add_hinge(b0, beam, kinds[2 % len(kinds)], axis=(0.3, 1, 0.2), T_parent_joint=T)
    for i, kind in enumerate(kinds):
        Tn = np.eye(4)
        Tn[:3, :3] = rotvec_to_matrix(rng.normal(size=3))
        Tn[:3, 3] = rng.normal(size=3)
        m.add_node(f"n{i}", beam, Tn, mode_shapes=0.3 * rng.normal(size=(6, nm)))
        b = m.add_body(f"c{i}", mass=0.5, com=rng.normal(size=3) * 0.1, inertia=[0.01, 0, 0, 0.02, 0, 0.03])
        m.add_hinge(f"n{i}", b, kind, axis=(0, 1, 0), axes=[(1, 0, 0), (0, 1, 0)])
    tip = m.add_modal_body("tip_panel", 2, mass=0.3, com=[0.1, 0, 0], inertia=[0.01, 0, 0, 0.01, 0, 0.02],
                           stiffness=[3.0, 7.0])
    m.add_node("tip_mount", beam, np.eye(4), mode_shapes=0.2 * rng.normal(size=(6, nm)))
    m.add_hinge("tip_mount", tip, "pin", axis=(1, 0, 0))
    return m


def flex_state(m, rng):
    """(q, u): a random configuration with modal coordinates of 0.3 and random speeds."""
    c = m.compiled
    q = np.asarray(m.random_q(rng), dtype=float)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] = 0.3 * rng.normal(size=b.n_modes)
    return q, rng.normal(size=c.nu)


def total_energy(m, q, u):
    """Kinetic + potential energy [J] (gravity and strain: conserved without damping and forces)."""
    return m.kinetic_energy(q, u) + m.potential_energy(q)
