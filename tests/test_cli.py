"""Tests of the ``multibody`` command line."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from multibody.cli import _demo_model_path, main

SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_demo_writes_results_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out, png = tmp_path / "r.npz", tmp_path / "p.png"
    assert main(["demo", "--t-final", "0.5", "--output", str(out), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "double pendulum demo: finished" in text and "energy" in text
    data = np.load(out)
    assert data["q"].shape == (501, 2)
    assert png.stat().st_size > 1000


def test_demo_without_matplotlib_still_succeeds(tmp_path, capsys, monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    out, png = tmp_path / "r.npz", tmp_path / "p.png"
    assert main(["demo", "--t-final", "0.2", "--output", str(out), "--plot", str(png)]) == 0
    assert "no plot: matplotlib is not installed" in capsys.readouterr().out
    assert out.exists() and not png.exists()


def test_info_prints_tree(capsys):
    assert main(["info", str(_demo_model_path())]) == 0
    text = capsys.readouterr().out
    assert "shoulder" in text and "elbow" in text and "total mass: 2 kg" in text


def test_simulate_csv_and_errors(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["simulate", str(_demo_model_path()), "--t-final", "0.2", "--integrator", "dopri5", "--dt", "0.01",
                 "--q0", "1,0.5", "--output", str(out)]) == 0
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert data.shape == (21, 5)
    with pytest.raises(SystemExit, match="unknown integrator"):
        main(["simulate", str(_demo_model_path()), "--integrator", "rk5"])
    with pytest.raises(SystemExit, match="dt must be"):
        main(["simulate", str(_demo_model_path()), "--dt", "-1"])
    with pytest.raises(SystemExit, match="no such model file"):
        main(["info", str(tmp_path / "missing.urdf")])
    with pytest.raises(SystemExit, match="needs 2 values"):
        main(["simulate", str(_demo_model_path()), "--q0", "1"])


def test_python_dash_m(tmp_path):
    r = subprocess.run([sys.executable, "-m", "multibody", "info", str(_demo_model_path())],
                       capture_output=True, text=True, env={"PYTHONPATH": SRC, "PATH": ""}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "elbow" in r.stdout


def test_info_and_convert_every_format(tmp_path, capsys):
    urdf = str(_demo_model_path())
    yaml_path, json_path, back = tmp_path / "dp.yaml", tmp_path / "dp.json", tmp_path / "back.urdf"
    assert main(["convert", urdf, str(yaml_path)]) == 0
    assert main(["convert", str(yaml_path), str(json_path)]) == 0
    assert main(["convert", str(json_path), str(back)]) == 0
    assert main(["convert", urdf, str(tmp_path / "fb.yml"), "--floating-base", "quaternion"]) == 0
    for path in (yaml_path, json_path, back):
        assert main(["info", str(path)]) == 0
        assert "elbow" in capsys.readouterr().out
    import multibody as mb
    a, b = mb.load_urdf(urdf), mb.load_model(json_path)
    assert np.array_equal(a.compiled.buf.view(np.int64), b.compiled.buf.view(np.int64))
    assert mb.load_model(tmp_path / "fb.yml").nq == 9


def test_convert_errors_are_one_line(tmp_path):
    urdf = str(_demo_model_path())
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "multibody-model", "format_version": 99, "bodies": [], "hinges": []}')
    cases = [
        (["info", str(bad)], "format_version 99 is newer"),
        (["convert", urdf, str(tmp_path / "out.txt")], "unknown extension '.txt'"),
        (["convert", str(tmp_path / "none.yaml"), str(tmp_path / "o.json")], "no such model file"),
        (["info", str(tmp_path / "fb.json"), "--floating-base"], "applies to URDF files only"),
    ]
    (tmp_path / "fb.json").write_text("{}")
    m = mb_spherical(tmp_path / "sph.yaml")
    cases.append((["convert", m, str(tmp_path / "sph.urdf")], "hinge 'b_hinge' \\(spherical"))
    for argv, message in cases:
        with pytest.raises(SystemExit, match=message) as e:
            main(argv)
        assert "\n" not in str(e.value)


def mb_spherical(path):
    import multibody as mb
    m = mb.Multibody()
    m.add_body("b", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, "b", kind="spherical")
    m.save(path)
    return str(path)
