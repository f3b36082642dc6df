"""Model files that hold the whole model (issue 24, item 1): loop, convel and coordinate
constraints with their enabled state, modal bodies with their modal data beside the file (or
inline), read back to the same compiled model and the same (constrained) dynamics; the
refusals (modal data files outside the model's folder, URDF's missing elements, what the file
cannot hold); version-1 files; ``multibody convert`` round trips."""
import copy
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.cli import main
from multibody.flex import beam_modes
from multibody.io.model_file import dumps_model, loads_model, model_from_dict, model_to_dict
from robots import cassie_sdf

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from flexible_four_bar import flexible_four_bar  # noqa: E402  (the examples' models: one definition)
from flexible_pendulum import flexible_pendulum  # noqa: E402
from four_bar import four_bar  # noqa: E402

CASSIE = cassie_sdf()
TOL = 1e-12


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def same_arrays(a, b):
    return a.shape == b.shape and np.array_equal(bits(a), bits(b))


def constraint_table(m):
    return [(c.name, c.category, c.enabled, c.n_rows) for c in m.constraints.values()]


def assert_same_model(m, m2):
    """The same sizes, constraints and compiled arrays bit for bit (flex tables included)."""
    assert (m2.nq, m2.nu) == (m.nq, m.nu)
    assert constraint_table(m2) == constraint_table(m)
    assert (m2.body_names, m2.hinge_names, m2.node_names) == (m.body_names, m.hinge_names, m.node_names)
    assert [b.name for b in m2.modal_bodies] == [b.name for b in m.modal_bodies]
    c, c2 = m.compiled, m2.compiled
    assert same_arrays(c.buf, c2.buf)
    assert (c.flex is None) == (c2.flex is None)
    if c.flex is not None:
        for key in ("fi", "fmass", "fm1", "fm2", "fnode", "frame_node", "stiffness", "damping"):
            assert same_arrays(getattr(c.flex, key), getattr(c2.flex, key)), key


def dynamics_difference(m, m2, rng, n=3):
    """The largest difference of forward dynamics (and of the constrained dynamics' udot and
    multipliers, where there are constraints) between ``m`` and ``m2`` at random states."""
    worst = 0.0
    for _ in range(n):
        q = m.random_q(rng)
        for b in m.modal_bodies:  # small deflections, where the modal model holds
            q[m.modal_slice(b)] = 1e-3 * rng.normal(size=b.n_modes)
        u, tau = rng.normal(size=m.nu), rng.normal(size=m.nu)
        a, b = m.forward_dynamics(q, u, tau), m2.forward_dynamics(q, u, tau)
        worst = max(worst, np.abs(a - b).max() / max(1.0, np.abs(a).max()))
        if m.enabled_constraints:
            a, b = m.constrained_dynamics(q, u, tau), m2.constrained_dynamics(q, u, tau)
            for x, y in ((a.udot, b.udot), (a.multipliers, b.multipliers)):
                worst = max(worst, np.abs(x - y).max() / max(1.0, np.abs(x).max()))
    return worst


def every_constraint_four_bar():
    """The four-bar and one constraint of each other type and parameter, disabled."""
    m = four_bar()
    m.add_node("crank_mid", "crank", np.diag([1.0, 1.0, 1.0, 1.0]))
    m.add_convel_constraint("spin", "crank_mid", "rocker_end", [0.0, 0.3, 0.0, 0.0, 0.0, 1.0])
    m.add_coordinate_constraint("gear", "crank_joint", "rocker_joint", ratio=-2.5, offset=0.125)
    m.add_loop_constraint("screw", "coupler_end", "rocker_end", "screw", axis=(0.0, -2.0, 0.0), pitch=0.01)
    m.add_loop_constraint("cross", "coupler_end", "rocker_end", "universal", axes=[(1, 0, 0), (0, 0, 1)])
    for name in ("spin", "gear", "screw", "cross"):
        m.disable_constraint(name)
    return m


def cassie():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # two rotor inertias break the triangle inequality
        return mb.load_sdf(CASSIE, floating_base=True)


MODELS = {
    "four_bar": four_bar,
    "every_constraint": every_constraint_four_bar,
    "flexible_pendulum": lambda: flexible_pendulum()[0],
    "flexible_four_bar": lambda: flexible_four_bar()[0],
    "cassie": cassie,
}


def load_quiet(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Cassie's mesh files lie outside tmp_path
        return mb.load_model(path, **options)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_saved_models_read_back_whole(name, tmp_path):
    if name == "cassie" and CASSIE is None:
        pytest.skip("example-robot-data's cassie.sdf not installed")
    m = MODELS[name]()
    for suffix in (".yaml", ".json"):
        path = tmp_path / f"{name}{suffix}"
        files = m.save(path)
        assert len(files) == len({id(b.M1) for b in m.modal_bodies})
        assert all(f.parent == tmp_path and f.is_file() for f in files)
        m2 = load_quiet(path)
        assert_same_model(m, m2)
        assert model_to_dict(m2) == model_to_dict(m)  # metadata too (SDFormat types and springs: Cassie)
        assert dynamics_difference(m, m2, np.random.default_rng(0)) <= TOL
    for c in m.constraints.values():  # the disabled constraints' rows were stored right too
        m.enable_constraint(c)
        m2.enable_constraint(c.name)
    assert_same_model(m, m2)


def test_model_sizes_of_the_issue(tmp_path):
    """The issue's cases: the four-bar kept its loop, the flexible pendulum its modes."""
    for m, sizes in ((four_bar(), (3, 1)), (flexible_pendulum()[0], (4, 0)), (flexible_four_bar(n_modes=2)[0], (5, 1))):
        m.save(tmp_path / "m.yaml")
        m2 = mb.load_model(tmp_path / "m.yaml")
        assert (m2.nq, len(m2.constraints)) == sizes


def test_inline_modal_data_and_text_round_trips(tmp_path):
    m, _ = flexible_four_bar()
    assert m.save(tmp_path / "one.yaml", modal_data="inline") == []
    assert sorted(os.listdir(tmp_path)) == ["one.yaml"]
    assert_same_model(m, mb.load_model(tmp_path / "one.yaml"))
    for fmt in ("yaml", "json"):
        text = dumps_model(m, fmt)
        m2 = loads_model(text, fmt)
        assert_same_model(m, m2)
        assert dumps_model(m2, fmt) == text
    with pytest.raises(ValueError, match="modal_data must be one of"):
        m.save(tmp_path / "x.yaml", modal_data="beside")


def test_a_modal_chain_shares_one_file_and_keeps_growing_alike(tmp_path):
    data = beam_modes(0.5, EI=5.0, rhoA=0.3, n_elements=8, n_modes=2, damping_ratio=0.01)
    m = mb.Multibody("chain")
    m.add_serial_chain("f", 3, modal_data=data)
    m.body("f1").stiffness = 2.0 * data.stiffness  # a body of its own data: a second file
    files = m.save(tmp_path / "chain.json")
    assert sorted(f.name for f in files) == ["chain.json.f0.modal.npz", "chain.json.f1.modal.npz"]
    m2 = mb.load_model(tmp_path / "chain.json")
    assert_same_model(m, m2)
    assert m2.body("f0").M1 is m2.body("f2").M1  # bodies of one file share its arrays
    assert m2.hinge("f1_hinge").parent_node is m2.node("f0_tip")  # hangs from the deforming tip node
    for x in (m, m2):
        x.add_serial_chain("g", 1, parent="f2", modal_data=data)  # from the kept tip node
    assert_same_model(m, m2)


def test_a_version_1_file_still_loads(tmp_path):
    path = tmp_path / "v1.yaml"
    path.write_text("""format: multibody-model
format_version: 1
name: arm
bodies:
  - {name: upper, mass: 2.0, com: [0.0, 0.0, -0.5], inertia: [0.1, 0.0, 0.0, 0.1, 0.0, 0.001]}
hinges:
  - {name: shoulder, parent: world, child: upper, kind: pin, axis: [0, 1, 0]}
nodes:
  - {name: tip, body: upper}
constraints: []
modal_bodies: []
""")
    m = mb.load_model(path)
    assert (m.nq, m.node_names, m.constraints) == (1, ["tip"], {})
    m.save(path)
    assert "format_version: 2" in path.read_text()
    assert mb.load_model(path).compiled.buf.tobytes() == m.compiled.buf.tobytes()


def _saved_pendulum(folder):
    folder.mkdir()
    m, _ = flexible_pendulum()
    (data_file,) = m.save(folder / "p.yaml")
    return m, folder / "p.yaml", data_file


def test_modal_data_files_outside_the_folder_are_refused_by_name(tmp_path):
    m, path, data_file = _saved_pendulum(tmp_path / "model")
    outside = tmp_path / "elsewhere.npz"
    outside.write_bytes(data_file.read_bytes())
    text = path.read_text()
    for ref in ("../elsewhere.npz", str(outside)):
        path.write_text(text.replace(data_file.name, ref))
        with pytest.raises(ValueError, match=r"p\.yaml: modal_bodies\[0\]\.modal_data: " + re.escape(repr(ref))
                           + " leads outside the model's folder"):
            mb.load_model(path)
        assert_same_model(m, mb.load_model(path, allow_outside=True))
    link = path.parent / "link.npz"
    link.symlink_to(outside)  # inside by name, outside in fact
    path.write_text(text.replace(data_file.name, "link.npz"))
    with pytest.raises(ValueError, match="'link.npz' leads outside the model's folder"):
        mb.load_model(path)
    path.write_text(text.replace(data_file.name, "missing.npz"))
    with pytest.raises(ValueError, match=r"modal_data: no modal data file 'missing.npz'"):
        mb.load_model(path)
    data_file.write_bytes(b"not a zip archive")
    path.write_text(text)
    with pytest.raises(ValueError, match="modal_data: " + re.escape(f"{data_file}: not an .npz file")):
        mb.load_model(path)
    with pytest.raises(ValueError, match="modal_data: 'p.yaml.beam.modal.npz' is a modal data file"):
        loads_model(text)  # text without a folder


def test_bad_modal_and_constraint_entries_name_the_field():
    m, _ = flexible_four_bar(n_modes=2)
    d = model_to_dict(m)
    cases = [
        (("modal_bodies", 0, "modal_data", "stiffness"), [1.0], r"modal_bodies\[0\]\.modal_data: stiffness: expected "
                                                                r"shape \(2\), got \(1,\)"),
        (("modal_bodies", 0, "modal_data", "mass"), None, r"modal_bodies\[0\]\.modal_data\.mass: required field"),
        (("modal_bodies", 0, "nodes", "coupler_tip"), 7, r"modal_bodies\[0\]\.nodes\.coupler_tip: expected the index"),
        (("modal_bodies", 0, "nodes", "crank_tip"), 0, r"modal_bodies\[0\]: 'crank_tip' is not a node of modal body"),
        (("hinges", 1, "parent_node"), "rocker_tip", r"hinges\[1\]\.parent_node: 'rocker_tip' is not a node of"),
        (("constraints", 0, "kind"), "free", r"constraints\[0\]: loop constraint 'closure': kind 'free' has no loop"),
        (("constraints", 0, "enabled"), "yes", r"constraints\[0\]\.enabled: expected true or false"),
        (("constraints", 0, "node_b"), "nowhere", r"constraints\[0\]: .*'nowhere' is neither a node nor a body"),
        (("constraints", 0, "ratio"), 2.0, r"constraints\[0\]: unknown field 'ratio'"),
    ]
    for keys, value, message in cases:
        e = copy.deepcopy(d)
        target = e
        for k in keys[:-1]:
            target = target[k]
        if value is None:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
        with pytest.raises(ValueError, match=message):
            model_from_dict(e)


def test_save_refuses_what_the_file_cannot_hold_by_name(tmp_path):
    m = mb.Multibody()
    m.add_modal_body("ghost", n_modes=1)  # mass 0: no modal data holds it
    m.add_hinge(None, "ghost", "pin")
    with pytest.raises(ValueError, match="modal body 'ghost': mass 0.0"):
        m.save(tmp_path / "g.yaml")
    m = four_bar()

    class Weld(type(m.constraint("closure"))):
        category = "weld"
    m.constraints["closure"].__class__ = Weld
    with pytest.raises(ValueError, match="constraint 'closure' \\(Weld, category 'weld'\\)"):
        m.save(tmp_path / "w.json")
    assert os.listdir(tmp_path) == []  # refused before anything was written


def test_to_urdf_refuses_constraints_and_modal_bodies_by_name():
    with pytest.raises(ValueError, match=r"constraint 'closure' \(loop\): URDF has no element for it"):
        four_bar().to_urdf()
    m = four_bar()
    m.disable_constraint("closure")
    with pytest.raises(ValueError, match=r"constraint 'closure' \(loop, disabled\)"):
        m.to_urdf()
    with pytest.raises(ValueError, match=r"modal body 'beam' \(3 modes\): URDF has no element for a flexible body"):
        flexible_pendulum()[0].to_urdf()
    m = mb.Multibody()
    for name in ("a", "b"):
        m.add_body(name, mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, "a", "pin", name="j1")
    m.add_hinge("a", "b", "pin", name="j2")
    m.add_coordinate_constraint("gear", "j2", "j1", ratio=2.0)
    with pytest.raises(ValueError, match=r"constraint 'gear' \(coordinate\): URDF has no element for it \(a "
                                         r"coordinate constraint only as its hinge's <mimic>\)"):
        m.to_urdf()


def test_to_urdf_keeps_a_mimic_constraint_as_its_mimic():
    text = """<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
      <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
      <joint name="j2" type="continuous"><parent link="b"/><child link="c"/>
        <mimic joint="j1" multiplier="-2" offset="0.1"/></joint></robot>"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = mb.load_urdf_string(text, mimic="constraint")
        m2 = mb.load_urdf_string(m.to_urdf(), mimic="constraint")
    assert constraint_table(m2) == constraint_table(m) == [("mimic_j2", "coordinate", True, 1)]
    assert m2.compiled.buf.tobytes() == m.compiled.buf.tobytes()


def test_convert_round_trips_with_the_modal_data_beside(tmp_path, capsys):
    m, _ = flexible_four_bar()
    m.save(tmp_path / "a.yaml")
    out = tmp_path / "out"
    out.mkdir()
    assert main(["convert", str(tmp_path / "a.yaml"), str(out / "b.json")]) == 0
    assert f"modal data: {out / 'b.json.coupler.modal.npz'}" in capsys.readouterr().out
    assert main(["convert", str(out / "b.json"), str(tmp_path / "c.yml")]) == 0
    assert "1 constraint, nq = 6" in capsys.readouterr().out
    assert sorted(os.listdir(out)) == ["b.json", "b.json.coupler.modal.npz"]
    for path in (out / "b.json", tmp_path / "c.yml"):
        assert_same_model(m, mb.load_model(path))
    with pytest.raises(SystemExit, match="cannot write .*c.urdf: modal body 'coupler'"):
        main(["convert", str(tmp_path / "c.yml"), str(tmp_path / "c.urdf")])
