"""The browser viewer (multibody.viz, on viser): API, CLI, and real rendering in headless Chromium.

The rendering tests start the viewer on a free port of 127.0.0.1, take a screenshot of its
page with headless Chromium (software WebGL) and check that the robot is drawn: the
screenshot differs from one of the same scene without the robot (same camera) over a
region of the size of the robot. They are skipped only where no Chromium is installed
(``apt-get install chromium``). Set MULTIBODY_VIEWER_SCREENSHOTS=folder to keep the PNGs.
"""
import os
import shutil
import signal
import socket
import subprocess
import time
import warnings
from importlib import resources
from importlib.metadata import PackageNotFoundError, files
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("viser")
pytest.importorskip("trimesh")

import multibody as mb  # noqa: E402
from multibody.viz import Viewer, view  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium found (apt-get install chromium)")


def _pendulum():
    return mb.load_urdf(str(resources.files("multibody") / "data" / "double_pendulum.urdf"))


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _session_cpu_seconds(sid):
    """CPU seconds used so far by the live processes of session ``sid`` (Chromium and its
    children), or None where /proc cannot tell."""
    total, tick = 0, os.sysconf("SC_CLK_TCK")
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[3]) == sid:  # (fields after the name: state, ppid, pgrp, session, ..., utime, stime)
            total += int(fields[11]) + int(fields[12])
    return total / tick


#: a Chromium run whose processes used less CPU than this over the last IDLE_WINDOW seconds is hung
IDLE_CPU, IDLE_WINDOW = 1.0, 15.0


def _run_chromium(cmd, timeout):
    """(returncode, stderr) of one Chromium run, or None when it hung: its whole process group is killed.

    A hung headless Chromium (measured: the page drawn, then the browser idle, 0.03 cores, never
    writing the screenshot) is told from a slow one by its CPU time: a run that works, even on a
    loaded machine, keeps its processes busy. So a run idle for IDLE_WINDOW seconds is killed
    then, not after ``timeout`` (a hung run took the whole 120 s of a robot's shot)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    start = time.monotonic()
    used = [(start, 0.0)]  # (time, CPU seconds of the run's processes)
    try:
        while True:
            try:
                _, err = proc.communicate(timeout=1.0)
                return proc.returncode, err
            except subprocess.TimeoutExpired:
                pass
            now, cpu = time.monotonic(), _session_cpu_seconds(proc.pid)
            if now - start > timeout:
                break
            if cpu is None:
                continue
            used.append((now, cpu))
            past = [c for t, c in used if t <= now - IDLE_WINDOW]
            if past and cpu - past[-1] < IDLE_CPU:
                break
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    return None


def _screenshot(url, path, size=(1000, 700), attempts=3, timeout=45):
    """A PNG of ``url`` taken by headless Chromium; returns an (H, W, 3) array.

    Headless Chromium with a virtual-time budget hangs now and then (about 1 run in 30 on a
    2-core machine; dm_control's humanoid about 1 in 2), so a run that goes idle (``_run_chromium``)
    or takes longer than ``timeout`` seconds is killed with its child processes and retried with a
    fresh profile.
    """
    Image = pytest.importorskip("PIL.Image")
    for attempt in range(attempts):
        profile = Path(path).parent / f"chromium-profile-{Path(path).stem}-{attempt}"
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
               "--use-gl=angle", "--use-angle=swiftshader", "--hide-scrollbars", "--no-first-run",
               "--disable-extensions", f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
               "--run-all-compositor-stages-before-draw",  # (without: 7 of 16 humanoid shots hung, with: 0 of 8)
               "--virtual-time-budget=8000", f"--screenshot={path}", url]
        outcome = _run_chromium(cmd, timeout)
        if outcome is not None:
            break
    else:
        pytest.fail(f"headless Chromium hung {attempts} times in a row (killed when idle for {IDLE_WINDOW:g} s "
                    f"or after {timeout} s)")
    returncode, stderr = outcome
    assert returncode == 0 and Path(path).is_file(), f"chromium failed ({returncode}): {stderr[-1500:]}"
    keep = os.environ.get("MULTIBODY_VIEWER_SCREENSHOTS")
    if keep:
        Image.open(path).convert("RGB").save(Path(keep) / Path(path).name, optimize=True)
    return np.asarray(Image.open(path).convert("RGB"), dtype=int)


def _shot_of(m, what, path, shot_timeout=45, **kw):
    v = view(m, what, port=_free_port(), verbose=False, **kw)
    try:
        assert v.url.startswith("http://127.0.0.1:")
        if v.t is not None:
            v.pause()
            v.set_time(0.5 * (v.t[0] + v.t[-1]))
        return _screenshot(v.url, path, timeout=shot_timeout)
    finally:
        v.close()


def _robot_pixels(m, what, path, min_pixels, empty_kw, attempts=3, accept=None, shot_timeout=45, **kw):
    """(screenshot, mask of the robot's pixels): where the scene (below the notice, left of
    the control panel) differs from a shot of the same scene without the robot. Headless
    Chromium under load now and then shoots the page before it is drawn (a blank page, seen
    in CI), so a blank shot, one that shows too little, or one ``accept(img, drawn)``
    (a count) rejects is taken again, up to ``attempts`` times; fails naming every count."""
    path = Path(path)
    counts = []
    for attempt in range(attempts):
        empty = _shot_of(m, what, path.with_name(f"{path.stem}_empty-{attempt}.png"), shot_timeout, **empty_kw)
        img = _shot_of(m, what, path.with_name(f"{path.stem}-{attempt}.png"), shot_timeout, **kw)
        assert img.shape == empty.shape
        scene = slice(150, empty.shape[0]), slice(0, int(0.65 * empty.shape[1]))
        if np.ptp(empty[scene]) < 30 or np.ptp(img[scene]) < 30:  # a blank page: not drawn yet
            counts.append("blank")
            continue
        drawn = np.abs(img[scene] - empty[scene]).sum(axis=2) > 60
        counts.append(int(drawn.sum()))
        if counts[-1] > min_pixels and (accept is None or accept(img, drawn)):
            return img, drawn
    pytest.fail(f"the robot was not drawn: {counts} pixels differ from the empty scene (want > {min_pixels})")


# ------------------------------------------------------------------ API, no browser
def test_view_returns_a_handle_and_closes():
    m = _pendulum()
    v = mb.view(m, port=_free_port(), verbose=False)
    try:
        assert isinstance(v, Viewer) and not v.closed and v.t is None
        assert v.url == f"http://127.0.0.1:{v.port}"
        with socket.create_connection(("127.0.0.1", v.port), timeout=5):
            pass
        v.set_q(np.array([0.3, -0.2]))
        np.testing.assert_allclose(v._poses["link2"][0], m.body_pose(np.array([0.3, -0.2]), "link2"))
    finally:
        v.close()
    assert v.closed
    v.close()  # idempotent


def test_replay_controls():
    m = _pendulum()
    res = mb.simulate(m, np.array([1.0, 0.0]), np.zeros(2), 1.0, dt=0.01)
    with view(m, res, port=_free_port(), play=False, verbose=False, frames=True, com=True) as v:
        assert len(v.t) == len(res.t) and v.index == 0
        assert v.set_time(0.5) == int(np.argmin(np.abs(res.t - 0.5)))
        np.testing.assert_allclose(v._poses["link2"][v.index], m.body_pose(res.q[v.index], "link2"), atol=1e-12)
        v.speed = 4.0
        assert v.speed == 4.0
        v.play()
        assert v._playing.is_set()
        v.pause()
        assert not v._playing.is_set()
    assert v.closed


def test_missing_mesh_is_a_warning_naming_the_file(tmp_path):
    urdf = """<robot name="r"><link name="a">
      <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
      <visual><geometry><mesh filename="no_such_mesh.stl"/></geometry></visual>
      <visual><origin xyz="0 0 0.5"/><geometry><box size="0.1 0.2 0.3"/></geometry>
        <material name="red"><color rgba="1 0 0 1"/></material></visual>
      <visual><geometry><cylinder radius="0.1" length="0.4"/></geometry></visual>
      <visual><geometry><sphere radius="0.1"/></geometry></visual></link></robot>"""
    p = tmp_path / "r.urdf"
    p.write_text(urdf)
    m = mb.load_urdf(str(p))
    with pytest.warns(UserWarning, match="no_such_mesh.stl"):
        v = view(m, port=_free_port(), verbose=False)
    v.close()
    from multibody.viz._geometry import visual_meshes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vis = visual_meshes(m.body("a"))
    assert [x[0] for x in vis] == ["visual_1", "visual_2", "visual_3"]
    assert vis[0][3] == (255, 0, 0) and vis[0][5][2, 3] == 0.5


def test_a_body_whose_meshes_fail_is_drawn_as_a_skeleton_with_one_warning(tmp_path):
    inertial = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    urdf = f"""<robot name="r">
      <link name="base">{inertial}<visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
      <link name="arm">{inertial}<visual><geometry><mesh filename="gone_1.stl"/></geometry></visual>
        <visual><geometry><mesh filename="gone_2.dae"/></geometry></visual></link>
      <link name="hand">{inertial}<visual><geometry><mesh filename="gone_3.stl"/></geometry></visual>
        <visual><geometry><sphere radius="0.05"/></geometry></visual></link>
      <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="j2" type="revolute"><parent link="arm"/><child link="hand"/><origin xyz="0.5 0 0"/>
        <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""
    p = tmp_path / "r.urdf"
    p.write_text(urdf)
    m = mb.load_urdf(str(p))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = view(m, port=_free_port(), verbose=False)
    try:
        said = [str(w.message) for w in caught if "viewer" in str(w.message)]
        assert len(said) == 1, said  # one warning for the model, listing every visual left out
        assert said[0].startswith("viewer: 3 visual(s) cannot be drawn and are left out (1 bodies are drawn "
                                  "as a skeleton instead: arm)")
        assert all(f in said[0] for f in ("gone_1.stl", "gone_2.dae", "gone_3.stl"))
        # the arm (no visual left) is a skeleton line from its origin to the hand's; base and hand are meshes
        assert [(a, b) for a, _, b, _ in v._segments] == [("arm", "hand")]
    finally:
        v.close()


def test_cli_view_and_simulate_view(monkeypatch):
    import multibody.viz as viz
    from multibody.cli import main
    calls = []
    monkeypatch.setattr(viz, "view", lambda m, what, **kw: calls.append((m.name, what, kw)))
    path = str(resources.files("multibody") / "data" / "double_pendulum.urdf")
    assert main(["view", path, "--port", "8123"]) == 0
    assert calls[-1][0] == "double_pendulum" and calls[-1][1] is None
    assert calls[-1][2]["port"] == 8123 and calls[-1][2]["block"] is True
    assert main(["simulate", path, "--t-final", "0.05", "--view"]) == 0
    assert hasattr(calls[-1][1], "t") and calls[-1][1].q.shape[1] == 2


def test_importing_multibody_does_not_import_viser():
    code = "import sys, multibody; assert 'viser' not in sys.modules and 'multibody.viz' not in sys.modules"
    subprocess.run([os.sys.executable, "-c", code], check=True, timeout=120)


# ------------------------------------------------------------------ real rendering
@needs_chromium
def test_double_pendulum_is_drawn_in_chromium(tmp_path):
    m = _pendulum()
    q = np.array([0.5, 0.8])

    def orange(img, drawn):  # the skeleton is orange: red well above blue where it is drawn
        scene = img[150:, : int(0.65 * img.shape[1])]
        return ((scene[..., 0] - scene[..., 2] > 50) & drawn).sum() > 1000

    img, drawn = _robot_pixels(m, q, tmp_path / "pendulum.png", 1500, dict(skeleton=False), accept=orange)
    assert orange(img, drawn)


@needs_chromium
def test_replay_is_drawn_in_chromium(tmp_path):
    m = _pendulum()
    res = mb.simulate(m, np.array([2.0, -1.0]), np.zeros(2), 2.0, dt=0.01)
    _robot_pixels(m, res, tmp_path / "viewer_replay.png", 1500, dict(skeleton=False), com=True, frames=True)


def _thrown_cube(tmp_path):
    """A cube built in code (collision shapes, no visuals) thrown along a plane, with contacts kept."""
    m = mb.Multibody()
    m.add_body("cube", mass=1.0, inertia=np.eye(3) * (1.0 * 0.02 / 12))
    m.add_hinge("world", "cube", kind="free")
    m.add_collision("cube", mb.Box((0.1, 0.1, 0.1)), friction=0.5)
    m.add_collision("world", mb.Plane(), name="floor", friction=0.5)  # (a pair takes the larger)
    q0 = m.neutral_q()
    q0[-1] = 0.05  # resting on the floor
    u0 = np.r_[0.0, 0.0, 0.0, 2.0, 0.0, 0.0]
    return m, mb.simulate(m, q0, u0, 0.3, dt=1e-3, save_every=10, contact_output=True)


def test_a_replay_shows_its_contacts_and_the_shapes_of_bodies_without_visuals(tmp_path):
    m, res = _thrown_cube(tmp_path)
    with view(m, res, port=_free_port(), play=False, verbose=False) as v:
        names = [name for name, *_ in v._visuals["cube"]]
        assert names == ["collision_0"]  # the box, drawn where the body has no visual
        V = v._visuals["cube"][0][1]
        np.testing.assert_allclose(np.ptp(V, axis=0), 0.1, rtol=1e-6)
        i = v.set_time(0.2)
        rec = res.contacts.at(int(np.flatnonzero(np.isclose(res.contacts.t, res.t[i]))[0]))
        assert len(rec["points"]) == 4 and v._contact_points.visible  # the cube's four corners
        np.testing.assert_allclose(v._contact_points.points, rec["points"], atol=1e-6)
        arrows = v._contact_forces.points
        np.testing.assert_allclose(arrows[:, 0], rec["points"], atol=1e-6)
        up = arrows[:, 1] - arrows[:, 0]
        assert (up[:, 2] >= 0).all() and (up[:, 0] <= 0).all()  # the floor holds it up and slows it down
        np.testing.assert_allclose(-up / v._contact_frames.scale, rec["forces"], rtol=1e-5, atol=1e-6)  # (on b: the floor)
        np.testing.assert_allclose(up.sum(axis=0) / v._contact_frames.scale, [-0.5 * 9.81, 0, 9.81], rtol=1e-3,
                                   atol=1e-6)  # weight and Coulomb's drag, mu m g
        v.set_time(0.0)  # the initial sample has no contacts
        assert not v._contact_points.visible and not v._contact_forces.visible
    with view(m, res, port=_free_port(), play=False, verbose=False, collisions=False, contacts=False) as v:
        assert not v._visuals.get("cube") and v._contact_frames is None
    other = mb.Multibody()
    other.add_body("b", mass=1.0, inertia=np.eye(3))
    other.add_hinge("world", "b", kind="free")
    with pytest.raises(ValueError, match="result: its contacts are of 2 collision shapes that are not the model's"):
        view(other, res, port=_free_port(), verbose=False)
    with pytest.raises(ValueError, match="collisions must be None, True or False"):
        view(m, port=_free_port(), verbose=False, collisions="yes")


@needs_chromium
def test_contact_forces_are_drawn_in_chromium(tmp_path):
    """The box (drawn from its collision shape), its contact points (red: red well above green
    and blue) and force arrows show where the contacts are."""
    m, res = _thrown_cube(tmp_path)

    def red(img, drawn):
        scene = img[150:, : int(0.65 * img.shape[1])].astype(int)
        return ((scene[..., 0] - np.maximum(scene[..., 1], scene[..., 2]) > 80) & drawn).sum() > 50

    _robot_pixels(m, res, tmp_path / "contacts.png", 3000, dict(collisions=False, contacts=False, skeleton=False),
                  accept=red)


def _talos():
    try:
        urdf = next((f for f in files("example-robot-data") if f.name == "talos_full_v2.urdf"), None)
    except PackageNotFoundError:
        urdf = None
    if urdf is None:
        pytest.skip("example-robot-data (Talos) is not installed")
    return mb.load_urdf(str(urdf.locate()), floating_base=True)


def _suite_robot(name):
    """UR5, Solo12 (example-robot-data, meshes: COLLADA and STL) or dm_control's humanoid (MJCF)."""
    if name == "talos":
        return _talos()
    if name == "humanoid":
        dmc = pytest.importorskip("dm_control")
        return mb.load_mjcf(str(Path(dmc.__file__).parent / "suite" / "humanoid.xml"))
    from robots import robot_urdf, robots_dir
    if robots_dir() is None:
        pytest.skip("example-robot-data is not installed")
    return mb.load_urdf(robot_urdf(name), floating_base=name == "solo12")


@needs_chromium
@pytest.mark.parametrize("name,min_share", [("ur5", 0.04), ("talos", 0.04), ("solo12", 0.08), ("humanoid", 0.04)])
def test_robots_with_meshes_are_drawn_in_chromium(tmp_path, name, min_share):
    """Every mesh read (pycollada is in the viewer extra: UR5's meshes are .dae), the robot framed
    left of the control panel and standing out from the dark background: the pixels that differ from
    the empty scene's by more than 60 levels (summed over R, G, B) cover at least ``min_share`` of
    the scene (measured 2026-11-27 with the empty scene without collision shapes: UR5 0.098, Solo12 0.168,
    humanoid 0.062; Talos 0.061 before collision shapes existed; docs/img/viewer_robots.png)."""
    pytest.importorskip("collada")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what MJCF maps and what not, a URDF's missing inertias
        m = _suite_robot(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every mesh is found and read: no warning
        from multibody.viz._geometry import visual_meshes
        n_meshes = sum(len(visual_meshes(b, getattr(m, "file_roots", None))) for b in m.bodies)
    assert n_meshes >= {"ur5": 7, "talos": 30, "solo12": 17, "humanoid": 15}[name]
    # Talos' meshes (0.2 M triangles) took software WebGL past 45 s on a loaded 2-core machine
    img, drawn = _robot_pixels(m, None, tmp_path / f"viewer_{name}.png", 1000,
                               dict(visuals=False, skeleton=False, collisions=False),  # (the empty scene)
                               shot_timeout=120)
    share = drawn.mean()
    assert share >= min_share, f"{name}: the robot covers {share:.3f} of the scene"
    print(f"{name}: the robot covers {share:.3f} of the scene")
