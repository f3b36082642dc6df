"""Hold an object in a gripper: solve the object's pose for random arm configurations.

A Franka Panda (example-robot-data) gets a free-floating box. An explicit constraint
set makes the box follow the hand (relative pose), the second finger mimic the first
(URDF <mimic>) and the first finger stay locked at 2 cm. For each random arm
configuration, ``solve`` computes the box pose and the fingers in one pass, and the
set's Jacobian (the projector onto the constraint) is checked against finite
differences on the Lie group.

Run:  python examples/planning_gripper.py [path/to/panda.urdf]
"""
import os
import sys
import sysconfig

import numpy as np

import multibody as mb
from multibody.planning import (ExplicitConstraintSet, FunctionFromCallables, LockedHinge,
                                RelativePose, check_jacobian, mimic_constraints)


def default_panda():
    robots = os.path.join(sysconfig.get_paths()["purelib"], "cmeel.prefix", "share",
                          "example-robot-data", "robots")
    return os.path.join(robots, "panda_description", "urdf", "panda.urdf")


def main(urdf):
    m = mb.load_urdf(urdf)
    m.add_body("box", mass=0.2, inertia=np.diag([1e-4, 1e-4, 1e-4]))
    m.add_hinge(None, "box", "free_quat")              # the object floats in the world
    space = m.configuration_space()                    # R^1 x ... x SE(3)
    print(space)

    # the grasp: box 3 cm in front of the tool centre point, turned 90 deg about z
    T_tcp_box = np.eye(4)
    T_tcp_box[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    T_tcp_box[:3, 3] = [0.0, 0.0, 0.03]

    cs = ExplicitConstraintSet(space)
    cs.add(RelativePose(m, "box", "panda_hand_tcp", T_ref_body=T_tcp_box, space=space))
    for c in mimic_constraints(m, space=space):        # finger 2 = finger 1
        cs.add(c)
    cs.add(LockedHinge(m, "panda_finger_joint1", value=0.02, space=space))
    print(cs.describe())
    print("inputs q:", cs.in_q, " outputs q:", cs.out_q)

    rng = np.random.default_rng(0)
    worst_pose, worst_jac = 0.0, 0.0
    projector = FunctionFromCallables(space, space, cs.solve, jacobian=cs.jacobian)
    for _ in range(20):
        q = cs.solve(space.random(rng, scale=2.0))     # random arm, box follows
        assert cs.is_satisfied(q)
        expected = m.body_pose(q, "panda_hand_tcp") @ T_tcp_box
        worst_pose = max(worst_pose, np.abs(m.body_pose(q, "box") - expected).max())
        worst_jac = max(worst_jac, check_jacobian(projector, q).max_abs_error)
    print(f"box pose error over 20 arm configurations: {worst_pose:.1e}")
    print(f"projector Jacobian vs finite differences:  {worst_jac:.1e}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else default_panda())
