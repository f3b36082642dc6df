"""Tests of the ``multibody`` command line."""
import re
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


def test_version(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["--version"])
    assert ei.value.code == 0 and capsys.readouterr().out.strip() == f"multibody {__import__('multibody').__version__}"


@pytest.mark.parametrize("option, path, match", [
    ("--output", "missing/r.npz", r"--output 'missing/r.npz': the folder 'missing' does not exist"),
    ("--output", "r.txt", r"--output 'r.txt': unknown file type"),
    ("--plot", "missing/p.png", r"--plot 'missing/p.png': the folder 'missing' does not exist"),
    ("--plot", "p.npz", r"--plot 'p.npz': unknown file type")])
def test_output_paths_checked_before_the_run(tmp_path, monkeypatch, option, path, match):
    monkeypatch.chdir(tmp_path)
    import multibody.simulation as sim
    monkeypatch.setattr(sim, "simulate", lambda *a, **k: pytest.fail("the run started"))
    with pytest.raises(SystemExit, match=f"^multibody: {match}"):
        main(["simulate", str(_demo_model_path()), "--t-final", "1000", option, path])


def test_simulate_quaternion_base_and_output_every(tmp_path, capsys):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text("""<robot name="arm">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l1"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
</robot>""")
    out = tmp_path / "r.csv"
    assert main(["simulate", str(urdf), "--floating-base", "quaternion", "--t-final", "0.5",
                 "--output-every", "0.1", "--output", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("t [s],q:root_joint.qx,q:root_joint.qy,q:root_joint.qz,q:root_joint.qw,"
                               "q:root_joint.x [m]")
    assert "q:shoulder [rad]" in lines[0] and lines[0].endswith("u:shoulder [rad/s]")
    assert len(lines) == 1 + 6
    res = __import__("multibody").load_result(out)
    np.testing.assert_allclose(res.t, np.linspace(0, 0.5, 6), atol=1e-12)
    with pytest.raises(SystemExit, match="^multibody: output_every .* must be a multiple of dt"):
        main(["simulate", str(urdf), "--output-every", "0.0015"])


def test_simulate_says_when_a_limit_acted_and_no_limits_leaves_them_out(tmp_path, capsys):
    urdf = tmp_path / "swing.urdf"
    urdf.write_text("""<robot name="swing">
  <link name="base"/>
  <link name="rod"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="pivot" type="revolute"><parent link="base"/><child link="rod"/><axis xyz="0 1 0"/>
    <limit lower="-0.3" upper="0.3" effort="10" velocity="10"/></joint>
</robot>""")
    # launched at 3 rad/s from hanging straight down, it would swing to 1.4 rad: the limit at 0.3 stops it
    assert main(["simulate", str(urdf), "--u0", "3", "--t-final", "1"]) == 0
    said = capsys.readouterr().out
    work = float(re.search(r"the limits of pivot did ([-\d.e+]+) J", said).group(1))
    drift = float(re.search(r"max drift ([-\d.e+]+) J", said).group(1))
    assert -1.0 < work < -0.5 and drift > 0.9  # (the energy the limit took, beside the drift)
    assert main(["simulate", str(urdf), "--u0", "3", "--t-final", "1", "--no-limits"]) == 0
    said = capsys.readouterr().out
    assert "limits of" not in said
    drift = float(re.search(r"max drift ([-\d.e+]+) J", said).group(1))
    assert drift < 1e-6  # RK4 at 1 ms on the free swing


def test_user_errors_are_one_line_without_traceback(tmp_path):
    cases = [["simulate", str(_demo_model_path()), "--output", str(tmp_path / "no" / "r.csv")],
             ["simulate", str(_demo_model_path()), "--output-every", "-1"],
             ["simulate", str(_demo_model_path()), "--plot", str(tmp_path / "p.doc")],
             ["info", str(tmp_path / "missing.urdf")]]
    for argv in cases:
        r = subprocess.run([sys.executable, "-m", "multibody", *argv], capture_output=True, text=True,
                           env={"PYTHONPATH": SRC, "PATH": ""}, timeout=120)
        assert r.returncode == 1, (argv, r.stderr)
        assert r.stderr.startswith("multibody: ") and r.stderr.count("\n") == 1, (argv, r.stderr)
        assert "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "multibody", "--version"], capture_output=True, text=True,
                       env={"PYTHONPATH": SRC, "PATH": ""}, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("multibody ")


def test_plot_legends_name_joints_with_units(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MULTIBODY_NO_PREFETCH", "1")  # draw in this process (no plot worker)
    import matplotlib.figure
    seen = []
    real = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: (
        seen.extend(t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()),
        real(fig, *a, **k))[1])
    assert main(["demo", "--t-final", "0.1", "--output", str(tmp_path / "r.npz"), "--plot", str(tmp_path / "p.png")]) == 0
    assert {"shoulder [rad]", "elbow [rad]", "shoulder [rad/s]", "elbow [rad/s]"} <= set(seen)


def test_info_dump_tree_and_display_model_of_a_10000_link_chain(tmp_path, capsys):
    """Issue 12: no recursion on tree depth (info, dump_tree, display_model, compile, URDF)."""
    import multibody as mb
    m = mb.Multibody()
    m.add_serial_chain("l", 10000)
    path = tmp_path / "chain.urdf"
    m.to_urdf(path)
    assert len(m.dump_tree().splitlines()) == 10000 + 2  # header, world, the bodies
    m.display_model()
    shown = capsys.readouterr().out.splitlines()
    assert len(shown) == 10000 + 2 and "l9999" in shown[-1]
    assert main(["info", str(path)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert any("l9999" in line and "depth 9999" in line for line in text)
    assert any(line.startswith("total mass: 10000 kg; nq = 10000, nu = 10000") for line in text)
    assert text[-1].split()[:2] == ["l9999_hinge", "q[9999:10000]"]


def test_demo_after_a_cold_compile_prints_notices_not_a_burst_of_bars(tmp_path, capsys, monkeypatch):
    """The first run compiles inside the loop's first block: stderr then holds the compile
    notices, each on its own line, and no progress bar redrawn at once afterwards."""
    import time
    from multibody.simulation.integrators import RungeKuttaIntegrator
    monkeypatch.setenv("MULTIBODY_NO_PREFETCH", "1")
    real, calls = RungeKuttaIntegrator.advance, []

    def advance(self, T, Q, U):  # the first block lasts as long as a (short) compile
        if not calls:
            time.sleep(1.5)
        calls.append(1)
        return real(self, T, Q, U)
    monkeypatch.setattr(RungeKuttaIntegrator, "advance", advance)
    out = tmp_path / "r.npz"
    assert main(["demo", "--output", str(out), "--plot", str(tmp_path / "p.png")]) == 0
    err = capsys.readouterr().err
    assert len(calls) > 50 and "\r" not in err and (err == "" or err.endswith("\n"))


def test_output_cut_short_by_its_reader_ends_quietly():
    # ``multibody info MODEL | head``: the reader closes the pipe before the output ends. Closed
    # at once, before the command writes a byte: the demo model's few KB would otherwise fit in
    # the pipe's buffer whenever the command writes them before the reader closes it (exit 0:
    # a race that CI lost).
    p = subprocess.Popen([sys.executable, "-m", "multibody", "info", str(_demo_model_path())],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    assert p.wait(timeout=120) == 141
    assert p.stderr.read() == b""  # no "[Errno 32] Broken pipe"


def test_help_names_every_model_format(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for fmt in (".urdf", ".xml (MJCF)", ".sdf", ".yaml", ".json"):
        assert fmt in out
