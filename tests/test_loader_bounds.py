"""Loaders that stay bounded and inside the model's folder (issue 19).

YAML anchors and aliases refused (an alias bomb in under a second, naming file and line);
mesh and include references refused outside the model's folder and its package roots
(URDF, SDFormat, YAML ``filename``, MJCF), without revealing whether the file exists, and
the viewer drawing no mesh for them; non-regular and oversized files refused by name
(``/dev/zero`` behind a ``.urdf`` symlink); bad modal data files (empty, truncated, not a
zip, complex, wrong shapes, unknown entries) refused naming the file; complex inputs of
``ModalData`` and ``rollout`` refused by name, never cast.
"""
import os
import re
import time
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.flex import beam_modes, load_modal_data
from multibody.io.model_file import dumps_model, loads_model

STL = ("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"
       "endsolid t\n")
needs_dev_zero = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")


def _bomb(levels=14, width=10):
    """A model file whose world.visuals nest ``width`` aliases ``levels`` deep (about 1 KB)."""
    lines = ["format: multibody-model", "format_version: 1", "name: bomb", "world:", "  visuals:",
             "  - &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"  - &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines + ["bodies: []", "hinges: []", ""])


def test_yaml_alias_bomb_is_refused_at_once(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb())
    assert 900 < path.stat().st_size < 1100
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"bomb\.yaml: invalid YAML: line 6, column 5: anchors and aliases"):
        mb.load_model(path)
    assert time.perf_counter() - t < 1.0
    with pytest.raises(ValueError, match="line 1, column 4: anchors and aliases"):
        loads_model("a: &x 1\nb: *x\n")  # a harmless one too: model files have none


def test_dumped_yaml_has_no_aliases():
    m = mb.Multibody("shared")
    m.add_serial_chain("l", 2)
    shared = {"type": "box", "size": [1.0, 2.0, 3.0]}
    m.body("l0").visuals = [shared, shared]  # one object twice: written twice, not as an alias
    text = dumps_model(m)
    assert "&" not in text and "*" not in text
    assert loads_model(text).body("l0").visuals[1]["type"] == "box"


def _outside_refs(tmp_path):
    """A URDF folder and the references that lead out of it; outside.stl exists, gone.stl not."""
    model = tmp_path / "models" / "robot"
    (model / "pkg").mkdir(parents=True)
    (model / "pkg" / "package.xml").write_text("<package/>")
    (tmp_path / "models" / "outside.stl").write_text(STL)
    (model / "link.stl").symlink_to(tmp_path / "models" / "outside.stl")
    outside = tmp_path / "models" / "outside.stl"
    return model, {"package://pkg/../../outside.stl": True, "package://../../outside.stl": True,
                   "file://" + str(outside): True, "file:///etc/hostname": os.path.exists("/etc/hostname"),
                   "../outside.stl": True, "../gone.stl": False, str(outside): True,
                   str(tmp_path / "gone.stl"): False, "link.stl": True}


def _urdf(*filenames):
    visuals = "".join(f'<visual><geometry><mesh filename="{f}"/></geometry></visual>' for f in filenames)
    return f'<robot name="r"><link name="a">{visuals}</link></robot>'


def test_urdf_mesh_paths_outside_are_refused_by_name(tmp_path, monkeypatch):
    model, refs = _outside_refs(tmp_path)
    assert any(refs.values()) and not all(refs.values())  # files that exist and files that do not
    f = model / "robot.urdf"
    f.write_text(_urdf(*refs))
    with pytest.warns(UserWarning, match=r"robot\.urdf: 9 mesh file reference\(s\) lead outside .*package://pkg"):
        m = mb.load_urdf(f)
    for uri, v in zip(refs, m.body("a").visuals, strict=True):  # existing or not: the same entry
        assert v == {**v, "filename": uri, "resolved": False, "uri": uri, "refused": True}, uri
    assert m.file_roots == (str(model),)
    trimesh = pytest.importorskip("trimesh")
    from multibody.viz._geometry import visual_meshes
    monkeypatch.setattr(trimesh, "load", lambda *a, **k: pytest.fail("a refused mesh file was read"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert visual_meshes(m.body("a"), m.file_roots) == []
    said = " ".join(str(w.message) for w in caught)
    assert len(caught) == len(refs) and all(f"mesh file reference {u} leads outside" in said for u in refs)
    monkeypatch.undo()
    m = mb.load_urdf(f, allow_outside=True)  # allowed explicitly: the files there resolve
    resolved = {u: v["resolved"] for u, v in zip(refs, m.body("a").visuals)}
    assert all(resolved[u] for u in ("package://pkg/../../outside.stl", "../outside.stl", "link.stl"))
    assert not resolved["../gone.stl"] and m.file_roots is None


def test_sdf_mesh_path_outside_is_refused(tmp_path):
    model, _ = _outside_refs(tmp_path)
    f = model / "m.sdf"
    f.write_text('<sdf version="1.9"><model name="m"><link name="a"><visual name="v"><geometry><mesh>'
                 '<uri>../outside.stl</uri></mesh></geometry></visual></link></model></sdf>')
    with pytest.warns(UserWarning, match=r"m\.sdf: 1 mesh file reference.*'\.\./outside\.stl'"):
        v = mb.load_sdf(f).body("a").visuals[0]
    assert v["refused"] and not v["resolved"]
    assert mb.load_sdf(f, allow_outside=True).body("a").visuals[0]["resolved"]


def test_yaml_mesh_filename_outside_is_refused_by_the_viewer(tmp_path, monkeypatch):
    trimesh = pytest.importorskip("trimesh")
    from multibody.viz._geometry import visual_meshes
    (tmp_path / "meshes").mkdir()
    (tmp_path / "models").mkdir()
    mesh = tmp_path / "meshes" / "m.stl"
    mesh.write_text(STL)
    m = mb.Multibody("y")
    m.add_serial_chain("l", 1)
    m.body("l0").visuals = [{"type": "mesh", "filename": str(mesh), "resolved": True}]
    path = tmp_path / "models" / "y.yaml"
    m.save(path)
    with pytest.warns(UserWarning, match=r"y\.yaml: 1 mesh file reference.*meshes/m\.stl"):
        m2 = mb.load_model(path)
    assert m2.body("l0").visuals[0]["filename"] == str(mesh)  # kept as written: the file round-trips
    assert m2.file_roots == (str(path.parent.resolve()),)
    real_load = trimesh.load
    monkeypatch.setattr(trimesh, "load", lambda *a, **k: pytest.fail("a refused mesh file was read"))
    with pytest.warns(UserWarning, match=f"body 'l0': mesh file {re.escape(str(mesh))} lies outside"):
        assert visual_meshes(m2.body("l0"), m2.file_roots) == []
    monkeypatch.setattr(trimesh, "load", real_load)
    for allowed in (mb.load_model(path, mesh_dirs=[tmp_path / "meshes"]), mb.load_model(path, allow_outside=True)):
        assert len(visual_meshes(allowed.body("l0"), allowed.file_roots)) == 1


@needs_dev_zero
def test_non_regular_and_oversized_files_are_refused_by_name(tmp_path):
    for name, load in (("z.urdf", mb.load_urdf), ("z.yaml", mb.load_model), ("z.sdf", mb.load_sdf),
                       ("z.npz", load_modal_data)):
        link = tmp_path / name
        link.symlink_to("/dev/zero")
        t = time.perf_counter()
        with pytest.raises(ValueError, match=f"{name}: a character device, not a regular file"):
            load(link)
        assert time.perf_counter() - t < 1.0
    fifo = tmp_path / "f.urdf"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"f\.urdf: a FIFO"):  # opened without blocking
        mb.load_urdf(fifo)
    (tmp_path / "d.urdf").mkdir()
    with pytest.raises(ValueError, match="d.urdf: a folder"):
        mb.load_urdf(tmp_path / "d.urdf")
    big = tmp_path / "big.urdf"
    big.write_text(_urdf())
    with pytest.raises(ValueError, match=r"big\.urdf: \d+ bytes, more than the limit of 10 bytes"):
        mb.load_urdf(big, max_bytes=10)
    assert mb.load_urdf(big).name == "r"
    with pytest.raises(FileNotFoundError, match="nope.urdf"):
        mb.load_urdf(tmp_path / "nope.urdf")


def test_mjcf_includes_and_assets_outside_are_refused(tmp_path):
    pytest.importorskip("mujoco")
    model = tmp_path / "model"
    model.mkdir()
    (tmp_path / "outside.xml").write_text('<mujocoinclude><option timestep="0.003"/></mujocoinclude>')
    (model / "in.xml").write_text('<mujocoinclude><option timestep="0.004"/></mujocoinclude>')
    body = '<worldbody><body><joint type="hinge"/><geom size="0.1"/></body></worldbody>'
    cases = {'<include file="../outside.xml"/>': "<include file> '../outside.xml'",
             '<asset><mesh file="/etc/hostname"/></asset>': "<mesh file> '/etc/hostname'",
             '<compiler meshdir=".."/><asset><mesh file="x.stl"/></asset>': "<mesh file> 'x.stl'",
             '<asset><texture type="cube" fileleft="../t.png"/></asset>': "<texture fileleft> '../t.png'"}
    for i, (xml, named) in enumerate(cases.items()):
        f = model / f"m{i}.xml"
        f.write_text(f"<mujoco>{xml}{body}</mujoco>")
        with pytest.raises(ValueError, match=f"m{i}.xml: {named} leads outside the model's folder"):
            mb.load_mjcf(f)
    twice = model / "twice.xml"
    twice.write_text(f'<mujoco><include file="in.xml"/><include file="./in.xml"/>{body}</mujoco>')
    with pytest.raises(ValueError, match=r"twice\.xml: .*in\.xml is included twice"):
        mb.load_mjcf(twice)
    ok = model / "ok.xml"
    ok.write_text(f'<mujoco><include file="in.xml"/>{body}</mujoco>')
    with pytest.raises(ValueError, match=r"in\.xml: \d+ bytes, more than the limit of \d+ bytes"):
        mb.load_mjcf(ok, max_bytes=ok.stat().st_size + 10)  # the model file and its includes together
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # contacts are not modelled
        assert mb.load_mjcf(ok).nu == 1
        assert mb.load_mjcf(model / "m0.xml", allow_outside=True).nu == 1  # allowed explicitly


def _modal_file(tmp_path, name, **changes):
    md = beam_modes(1.0, EI=100.0, rhoA=1.0, n_modes=2, nodes=[1.0])
    arrays = {**md.arrays(), **changes}
    path = tmp_path / name
    np.savez(path, format=np.array("multibody.modal_data"), version=np.array(1), meta=np.array("{}"),
             **{k: v for k, v in arrays.items() if v is not None})
    return path


def test_bad_modal_files_name_the_file(tmp_path):
    good = _modal_file(tmp_path, "good.npz")
    md = load_modal_data(good)
    data = good.read_bytes()
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "truncated.npz").write_bytes(data[:len(data) // 2])
    (tmp_path / "text.npz").write_text("not a zip")
    np.save(tmp_path / "array.npy", np.zeros(3))
    os.replace(tmp_path / "array.npy", tmp_path / "array.npz")  # an .npy under an .npz name
    cases = {"empty.npz": "not an .npz file", "truncated.npz": "not an .npz file", "text.npz": "not an .npz file",
             "array.npz": "not an .npz file",
             "complex.npz": ("mode_shapes: complex values are not allowed",
                             dict(mode_shapes=md.mode_shapes * (1 + 1j))),
             "complex_m1.npz": ("M1: complex values are not allowed", dict(M1=np.zeros((2, 6, 8)) + 0j,
                                                                           M2=np.zeros((2, 2, 6, 6)))),
             "shape.npz": ("stiffness: expected shape", dict(stiffness=np.ones(3))),
             "strings.npz": ("mass: expected an array of numbers", dict(mass=np.array("heavy"))),
             "unknown.npz": ("extra: not a modal data entry", dict(extra=np.zeros(2)))}
    for name, case in cases.items():
        if isinstance(case, tuple):
            _modal_file(tmp_path, name, **case[1])
            case = case[0]
        with pytest.raises(ValueError, match=f"{name}: (modal data: )?{case}"):
            load_modal_data(tmp_path / name)
    big = tmp_path / "big.npz"  # 8 MB of zeros, compressed: the arrays' declared size is checked first
    np.savez_compressed(big, extra=np.zeros(10**6))
    assert big.stat().st_size < 100_000
    with pytest.raises(ValueError, match=r"big\.npz: its arrays take \d+ bytes, more than the limit of 100000"):
        load_modal_data(big, max_bytes=100_000)


def test_complex_inputs_are_refused_not_cast():
    md = beam_modes(1.0, EI=100.0, rhoA=1.0, n_modes=2, nodes=[1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: refused before any cast
        with pytest.raises(ValueError, match="stiffness: complex values are not allowed"):
            md.replace(stiffness=md.stiffness + 1e-3j)
        m = mb.Multibody()
        m.add_serial_chain("l", 2)
        for kw, name in ((dict(Q0=np.zeros((2, 2)) + 0j), "Q0"), (dict(U0=[[0j, 0], [0, 0]]), "U0"),
                         (dict(tau=np.full((2, 2), 1j)), "tau")):
            args = {"Q0": np.zeros((2, 2)), "U0": np.zeros((2, 2)), **kw}
            with pytest.raises(ValueError, match=f"{name} must be real"):
                mb.rollout(m, args["Q0"], args["U0"], 0.01, dt=0.005, tau=args.get("tau"), progress=False)
