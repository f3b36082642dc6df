"""Force models print as what builds them (issue 24): ``repr`` evaluates back to an equal model."""
import numpy as np
import pytest

from multibody.simulation import ExternalForce, JointLimits, JointSpringDamper, LinearSpringDamper

MODELS = [
    JointSpringDamper("elbow", 10.0, 0.5),
    JointSpringDamper("knee", stiffness=3.0, q_ref=0.2),
    ExternalForce("tip", [0, 0, 0, 0, 0, -9.81]),
    ExternalForce("tip", np.zeros(6), amplitude=np.ones(6), frequency=2.0, phase=0.5, axes="world"),
    LinearSpringDamper("a", "b", 100.0, damping=2.0),
    JointLimits(),
    JointLimits(["j1"], stiffness=1e4),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda f: type(f).__name__)
def test_repr_builds_the_same_model(model):
    text = repr(model)
    assert "object at 0x" not in text and text.startswith(type(model).__name__ + "(")
    again = eval(text, {type(model).__name__: type(model)})  # noqa: S307 (our own repr)
    assert repr(again) == text
    assert vars(again).keys() == vars(model).keys()
    for k, v in vars(model).items():
        assert np.array_equal(np.asarray(getattr(again, k), dtype=object), np.asarray(v, dtype=object)), k


def test_repr_names_a_hinge_given_as_an_object():
    class Hinge:
        name = "shoulder"
    assert repr(JointSpringDamper(Hinge(), 1.0)) == "JointSpringDamper(hinge='shoulder', stiffness=1.0)"
