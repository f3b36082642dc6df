"""The model file format (YAML/JSON): exact round trips, bad input, and the URDF writer."""
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.io.model_file import (
    FORMAT_VERSION, dumps_model, load_model, loads_model, model_from_dict, model_to_dict,
)
from robots import ROBOTS, robot_urdf, robots_dir
from test_dynamics_vs_pinocchio import KINDS, random_transform, random_tree

needs_robots = pytest.mark.skipif(robots_dir() is None, reason="example-robot-data is not installed")
DOC = Path(__file__).resolve().parents[1] / "docs" / "model_format.md"


def bits(a):
    return np.ascontiguousarray(a).view(np.int64)


def assert_identical(a, b):
    """Same compiled model bit for bit, same names, slices, charts, and data rows."""
    ca, cb = a.compiled, b.compiled
    assert ca.buf.shape == cb.buf.shape
    assert np.array_equal(bits(ca.buf), bits(cb.buf))
    assert (a.name, a.hinge_names, a.body_names, a.node_names) == (b.name, b.hinge_names, b.body_names, b.node_names)
    assert [h.name for h in a.hinges] == [h.name for h in b.hinges]
    assert [h.kind for h in a.hinges] == [h.kind for h in b.hinges]
    assert ca.q_slices == cb.q_slices and ca.u_slices == cb.u_slices
    assert np.array_equal(bits(ca.max_chart_angles), bits(cb.max_chart_angles))
    assert np.array_equal(bits(a.create_data().buf), bits(b.create_data().buf))
    assert np.array_equal(bits(a.gravity), bits(b.gravity))


def round_trips(m):
    for fmt in ("json", "yaml"):
        text = dumps_model(m, fmt)
        m2 = loads_model(text, fmt)
        assert_identical(m, m2)
        assert dumps_model(m2, fmt) == text  # nothing lost, metadata included
    return m2


def load_quiet(name, floating_base):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mb.load_urdf(robot_urdf(name), floating_base=floating_base)


@needs_robots
@pytest.mark.parametrize("floating_base", [False, True, "quaternion"])
@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_robots_round_trip_exactly(name, floating_base):
    m = load_quiet(name, floating_base)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m2 = round_trips(m)
    assert m2.source == m.source
    for h, h2 in zip(m.hinges, m2.hinges):
        for key in ("lower", "upper", "effort", "velocity", "damping", "friction", "mimic", "urdf_type"):
            assert getattr(h, key) == getattr(h2, key), (h.name, key)
    for b, b2 in zip(m.bodies, m2.bodies):
        for key in ("visuals", "collisions"):
            for g, g2 in zip(getattr(b, key), getattr(b2, key), strict=True):
                assert g.keys() == g2.keys()
                for k in g:
                    assert np.array_equal(g[k], g2[k]) and type(g[k]) is type(g2[k]), (b.name, k)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", KINDS + ["mixed"])
def test_random_trees_of_every_kind_round_trip(kind, seed):
    rng = np.random.default_rng(seed)
    m = random_tree(rng, KINDS if kind == "mixed" else [kind])
    m.gravity = rng.normal(size=3) * 5
    for h in m.hinges:
        for s in h.subhinges:
            if s.kind_info.chart:  # a re-centred chart and a custom re-centring angle are state to keep
                q = rng.normal(size=4)
                s.chart_offset = q / np.linalg.norm(q)
                s.max_chart_angle = rng.uniform(0.5, 2.5)
    m.add_node("extra", "b5", random_transform(rng))
    for h in m.hinges[::2]:
        h.armature = rng.uniform(0.0, 0.5, h.nu)
    m2 = round_trips(m)
    q = m.random_q(rng)
    assert np.array_equal(m.mass_matrix(q), m2.mass_matrix(q))


def test_explicit_subhinge_lists_and_names_round_trip():
    m = mb.Multibody("custom", gravity=(0.0, -0.0, -1.6e-5))
    m.add_body("a", mass=1.25, com=(1e-300, -0.0, 5e-324), inertia=np.diag([1 / 3, 2 / 3, 0.5]))
    m.add_body("b", mass=3.0, inertia=[0.1, 0.0, 0.0, 0.2, 0.0, 0.3])
    subs = [mb.ScrewSubhinge((1.0, 2.0, 3.0), pitch=-0.7, name="screw"), mb.SphericalQuaternionSubhinge(),
            mb.TranslationalSubhinge(name="move"), mb.LockedSubhinge()]
    m.add_hinge(None, "a", subhinges=subs, name="mixed")
    h = m.add_hinge("a", "b", kind="gimbal", axes=[(1, 1, 0), (0, 1, 0), (0, 0.6, 0.8)])
    h.lower, h.upper = -np.inf, 1.0
    m2 = round_trips(m)
    assert m2.hinge("mixed").kind == "custom"
    assert [s.name for s in m2.hinge("mixed").subhinges] == ["screw", None, "move", None]
    assert m2.hinge("b_hinge").kind == "gimbal" and m2.hinge("b_hinge").lower == -np.inf
    assert np.array_equal(bits(m2.body("a").com), bits(np.array([1e-300, -0.0, 5e-324])))


def test_generated_models_round_trip_and_keep_growing_alike():
    m = mb.Multibody("gen")
    m.add_serial_chain("c", 5, kind="slider", axis=(1.0, 1.0, 0.0), mass=0.3, length=0.7)
    m.add_tree("t", 2, 3, 3, parent="c4", kind="spherical", length=0.3)
    m2 = round_trips(m)
    for x in (m, m2):  # rod lengths are kept: a chain added later starts at the same tip
        x.add_serial_chain("d", 2, parent="c4")
    assert_identical(m, m2)


def test_files_and_load_model_dispatch(tmp_path):
    m = random_tree(np.random.default_rng(7), KINDS)
    for suffix in (".yaml", ".yml", ".json"):
        path = tmp_path / f"model{suffix}"
        m.save(path)
        assert_identical(m, mb.load_model(path))
        assert_identical(m, mb.load_model(str(path)))
    m.save(tmp_path / "model.txt", format="json")
    assert_identical(m, load_model(tmp_path / "model.txt", format="json"))
    assert json.loads((tmp_path / "model.json").read_text())["format_version"] == FORMAT_VERSION
    urdf = mb.load_model(Path(mb.__file__).parent / "data" / "double_pendulum.urdf", floating_base=True)
    assert urdf.nq == 8
    with pytest.raises(ValueError, match="unknown extension '.txt'"):
        m.save(tmp_path / "model.txt")
    with pytest.raises(TypeError, match="URDF files only"):
        mb.load_model(tmp_path / "model.json", floating_base=True)


def test_hand_written_short_form_yaml():
    text = """
format: multibody-model
format_version: 1
name: arm
bodies:
  - {name: upper, mass: 2, com: [0, 0, -0.5], inertia: [0.1, 0, 0, 0.1, 0, 1e-3]}
  - {name: lower, mass: 1, com: [0, 0, -0.5]}
hinges:
  - {name: shoulder, parent: world, child: upper, kind: universal}
  - {name: elbow, parent: upper, child: lower, kind: revolute, axis: [0, 2, 0],
     T_parent_joint: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -1], [0, 0, 0, 1]], lower: -1, upper: 1}
nodes:
  - {name: tip, body: lower}
"""
    m = loads_model(text)
    assert m.nq == 3 and m.hinge("elbow").kind == "pin" and m.hinge("elbow").upper == 1.0
    assert np.allclose(m.hinge("elbow").subhinges[0].axis, (0, 1, 0))
    assert m.body("upper").inertia[2, 2] == 1e-3  # YAML 1.1 reads 1e-3 as text: accepted
    assert np.array_equal(m.gravity, (0.0, 0.0, -9.81))
    round_trips(m)


def _model_dict():
    return model_to_dict(random_tree(np.random.default_rng(3), KINDS))


def _set(d, path, value):
    keys = [int(k) if k.isdigit() else k for k in re.findall(r"\w+", path)]
    for k in keys[:-1]:
        d = d[k]
    if value is KeyError:
        del d[keys[-1]]
    else:
        d[keys[-1]] = value


@pytest.mark.parametrize("path, value, message", [
    ("format_version", FORMAT_VERSION + 1, f"format_version {FORMAT_VERSION + 1} is newer"),
    ("format_version", "1", "format_version must be a positive integer"),
    ("format_version", KeyError, "format_version: required field missing"),
    ("format", "other", "not a multibody model file"),
    ("bodies[3].mass", KeyError, r"bodies\[3\]\.mass: required field missing"),
    ("bodies[2].mass", "heavy", r"bodies\[2\]\.mass: expected a number"),
    ("bodies[2].mass", -1.0, r"bodies\[2\]: body 'b\d': mass must be"),
    ("bodies[1].com", [0.0, 1.0], r"bodies\[1\]\.com: expected 3 numbers, got shape 2"),
    ("bodies[1].inertia", [[1.0, 0.0], [0.0, 1.0]], r"bodies\[1\]\.inertia: expected 6 or 3x3 numbers"),
    ("bodies[1].masss", 1.0, r"bodies\[1\]: unknown field 'masss'"),
    ("hinges[0].kind", "wobbly", r"hinges\[0\]\.kind: unknown kind 'wobbly'"),
    ("hinges[0].subhinges[0].kind", "hinge", r"hinges\[0\]\.subhinges\[0\]\.kind: unknown kind 'hinge'"),
    ("hinges[0].subhinges[0].axis", [0.0, 0.0, 0.0], r"hinges\[0\]\.subhinges\[0\]\.axis: expected a finite non-zero"),
    ("hinges[{spherical}].subhinges[0].axis", [1.0, 0.0, 0.0], r"hinges\[\d+\]\.subhinges\[0\]: unknown field 'axis'"),
    ("hinges[{spherical}].subhinges[0].chart_offset", [0.0, 0.0, 2.0, 1.0], r"chart_offset: expected a unit quaternion"),
    ("hinges[0].kind", "slider", r"hinges\[0\]\.subhinges: a slider hinge is made of \['slider'\]"),
    ("hinges[1].T_parent_joint", np.eye(3).tolist(), r"hinges\[1\]\.T_parent_joint: expected 4x4 numbers, got shape 3x3"),
    ("hinges[1].T_parent_joint", "identity", r"hinges\[1\]\.T_parent_joint: expected 4x4 numbers, got 'identity'"),
    ("hinges[2].parent", "nowhere", r"hinges\[2\]: no body named 'nowhere'|hinges\[2\]: .*nowhere"),
    ("hinges[2].child", KeyError, r"hinges\[2\]\.child: required field missing"),
    ("hinges[2].axis", [1.0, 0.0, 0.0], r"hinges\[2\]\.axis: give either kind parameters or subhinges"),
    ("hinges", {"a": 1}, "hinges: expected a list"),
    ("nodes[0].body", "b99", r"nodes\[0\]: .*b99"),
    ("gravity", [0.0, -9.81], "gravity: expected 3 numbers"),
    ("hinges[1].armature", [0.1] * 9, r"hinges\[1\]\.armature: expected \d+ or 1 numbers, got shape 9"),
    ("hinges[1].armature", -1.0, r"hinges\[1\]: hinge '\w+': armature must be"),
    ("constraints", [{"kind": "loop"}], r"constraints\[0\]\.type: required field missing"),
    ("constraints", [{"type": "weld", "name": "c"}], r"constraints\[0\]\.type: unknown constraint type 'weld'"),
    ("modal_bodies", [{"name": "beam"}], r"modal_bodies\[0\]\.modal_data: required field missing"),
])
def test_bad_input_names_the_field(path, value, message):
    d = _model_dict()
    spherical = [h["kind"] for h in d["hinges"]].index("spherical")
    _set(d, path.format(spherical=spherical), value)
    for fmt, text in (("json", json.dumps(d)), ("yaml", json.dumps(d))):  # JSON is YAML too
        with pytest.raises(ValueError, match=message):
            loads_model(text, fmt, source="bad.model")
    with pytest.raises(ValueError, match="^bad.model: "):
        model_from_dict(d, source="bad.model")


def test_version_1_files_hold_no_constraints_or_modal_bodies():
    d = _model_dict()
    d["format_version"] = 1
    model_from_dict(d)  # a version-1 file still loads
    for key in ("constraints", "modal_bodies"):
        with pytest.raises(ValueError, match=f"{key}: needs format_version 2 \\(this file is version 1"):
            model_from_dict({**d, key: [{"name": "x"}]})


def test_bad_text_and_empty_sections():
    with pytest.raises(ValueError, match="x.json: invalid JSON"):
        loads_model("{", "json", source="x.json")
    with pytest.raises(ValueError, match="x.yaml: invalid YAML"):
        loads_model("a: [", "yaml", source="x.yaml")
    with pytest.raises(ValueError, match="expected a mapping at the top level"):
        loads_model("- 1", "yaml")
    d = _model_dict()
    d["constraints"], d["modal_bodies"] = [], []
    model_from_dict(d)


def test_schema_document_covers_every_field():
    from multibody.io import _model_constraints as mc
    from multibody.io import _model_hinges as mh
    from multibody.io import _model_modal as mm
    from multibody.io import model_file as mf
    text = DOC.read_text()
    fields = {*mf._TOP, *mf._BODY, *mh.HINGE, "T_body_node", "chart_offset", "max_chart_angle", "multiplier",
              "offset", "joint", *mh.SUBHINGES, *mh.HINGE_PARTS, "custom", *mm.ENTRY, *mc.TYPES,
              *(f for fs in mc.FIELDS.values() for f in fs)}
    missing = sorted(f for f in fields if f"`{f}`" not in text)
    assert not missing, missing
    assert f"`format_version`: {FORMAT_VERSION}" in text or f"format_version: {FORMAT_VERSION}" in text
    example = loads_model(text.split("```yaml")[1].split("```")[0])  # the documented example loads
    assert example.nq == 3 and example.node_names == ["tip"]


# ---------------------------------------------------------------------------- URDF writer
def assert_same_dynamics(m, m2, rng, tol=1e-12):
    assert m.hinge_names == m2.hinge_names
    for _ in range(3):
        q, u = m.random_q(rng), rng.normal(size=m.nu)
        M1, M2 = m.mass_matrix(q), m2.mass_matrix(q)
        b1, b2 = m.bias_forces(q, u), m2.bias_forces(q, u)
        assert np.abs(M1 - M2).max() <= tol * max(1.0, np.abs(M1).max())
        assert np.abs(b1 - b2).max() <= tol * max(1.0, np.abs(b1).max())


@needs_robots
@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_to_urdf_robots_same_dynamics(name):
    floating = ROBOTS[name][1]
    for fb in ((True, "quaternion") if floating else (False,)):
        m = load_quiet(name, fb)
        text = m.to_urdf()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m2 = mb.load_urdf_string(text, floating_base=fb)
        assert m2.body_names == m.body_names
        assert_same_dynamics(m, m2, np.random.default_rng(0))
        for h, h2 in zip(m.hinges, m2.hinges):
            assert (h.lower, h.upper, h.effort, h.velocity, h.damping, h.friction, h.mimic) == \
                   (h2.lower, h2.upper, h2.effort, h2.velocity, h2.damping, h2.friction, h2.mimic)


@pytest.mark.parametrize("seed", range(4))
def test_to_urdf_random_trees_same_dynamics(seed, tmp_path):
    rng = np.random.default_rng(seed)
    m = random_tree(rng, ["pin", "slider", "locked", "planar", "pin"], n_bodies=10)  # T_child_joint random
    m.hinge("b4_hinge").lower, m.hinge("b4_hinge").upper = -1.0, 2.0
    m.hinge("b0_hinge").mimic = {"joint": "b4_hinge", "multiplier": 2.0, "offset": 0.5}
    text = m.to_urdf(tmp_path / "m.urdf")
    assert (tmp_path / "m.urdf").read_text() == text
    m2 = mb.load_urdf(tmp_path / "m.urdf", joint_order="file")
    assert_same_dynamics(m, m2, rng)
    assert m2.hinge("b4_hinge").upper == 2.0 and m2.hinge("b0_hinge").mimic == m.hinge("b0_hinge").mimic
    # the node became a massless link fixed to its body, at the same place
    q = m.random_q(rng)
    assert np.allclose(m2.body_pose(q, "tool"), m.body_pose(q, "tool"), atol=1e-12)


def test_to_urdf_floating_roots():
    for kind, option in (("free", True), ("free_quat", "quaternion")):
        m = mb.Multibody("float")
        m.add_body("base", mass=2.0, inertia=np.eye(3))
        m.add_body("arm", mass=1.0, com=(0.1, 0, 0), inertia=np.eye(3) * 0.1)
        m.add_hinge(None, "base", kind=kind, name="root_joint", T_child_joint=random_transform(np.random.default_rng(1)))
        m.add_hinge("base", "arm", kind="pin", axis=(0, 0, 1))
        text = m.to_urdf()
        assert f"floating_base={option!r}".replace("'", '"') in text or f"floating_base={option}" in text
        assert_same_dynamics(m, mb.load_urdf_string(text, floating_base=option), np.random.default_rng(2))
    m.add_body("other", mass=1.0, inertia=np.eye(3))  # two roots: a "world" link, a floating joint
    m.add_hinge(None, "other", kind="free", T_parent_joint=random_transform(np.random.default_rng(3)))
    with pytest.raises(ValueError, match="hinge 'root_joint' .*free_quat"):
        m.to_urdf()


@pytest.mark.parametrize("kind", ["screw", "spherical", "spherical_quat", "universal", "gimbal", "cylindrical",
                                  "translational"])
def test_to_urdf_refuses_what_urdf_cannot_express(kind):
    m = mb.Multibody()
    m.add_body("a", mass=1.0, inertia=np.eye(3))
    m.add_body("b", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, "a", kind="pin")
    m.add_hinge("a", "b", kind=kind, name="odd")
    with pytest.raises(ValueError, match=f"hinge 'odd' \\({kind}: subhinges"):
        m.to_urdf()


def test_to_urdf_refuses_armature():
    m = mb.Multibody()
    m.add_body("a", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, "a", kind="pin", name="motor").armature = 0.2
    with pytest.raises(ValueError, match="hinge 'motor' has armature"):
        m.to_urdf()


def test_per_coordinate_limits_round_trip(tmp_path):
    m = mb.Multibody("planar")
    b = m.add_body("puck", mass=1.0, inertia=np.eye(3) * 0.01)
    h = m.add_hinge(None, b, "planar", axis=(0, 0, 1))
    h.set_limits((-1.0, None, -0.5), (1.0, 2.0, None))
    for suffix in (".yaml", ".json"):
        m.save(tmp_path / f"p{suffix}")
        back = mb.load_model(tmp_path / f"p{suffix}")
        hb = back.hinge(h.name)
        assert hb.lower == h.lower and hb.upper == h.upper
        assert back.compiled.buf.tobytes() == m.compiled.buf.tobytes()
