"""Results people can read: named columns with units, files read back, output_every
decimation, streaming to disk with bounded memory, output paths checked before a run."""
import time
import tracemalloc
from importlib import resources

import numpy as np
import pytest

import multibody as mb
from multibody.results import coordinate_labels, load_result


def double_pendulum():
    return mb.load_urdf(str(resources.files("multibody") / "data" / "double_pendulum.urdf"))


def mixed_model():
    m = mb.Multibody("mixed")
    b = m.add_body("base", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, b, "free", name="root")
    c = m.add_body("c", mass=1.0, com=(0, 0, -0.3), inertia=np.eye(3) * 0.1)
    m.add_hinge(b, c, "universal", name="wrist")
    d = m.add_body("d", mass=1.0, inertia=np.eye(3) * 0.1)
    m.add_hinge(c, d, "slider", axis=(1, 0, 0), name="slide")
    return m


def test_coordinate_labels_name_hinges_components_and_units():
    qn, qu, un, uu = coordinate_labels(mixed_model())
    assert qn == ["root.rx", "root.ry", "root.rz", "root.x", "root.y", "root.z", "wrist.0", "wrist.1", "slide"]
    assert qu == ["rad"] * 3 + ["m"] * 3 + ["rad", "rad", "m"]
    assert un == ["root.wx", "root.wy", "root.wz", "root.vx", "root.vy", "root.vz", "wrist.0", "wrist.1", "slide"]
    assert uu == ["rad/s"] * 3 + ["m/s"] * 3 + ["rad/s", "rad/s", "m/s"]
    m = mb.Multibody()
    b = m.add_body("b", mass=1.0, inertia=np.eye(3))
    m.add_hinge(None, b, "free_quat", name="root")
    qn, qu, _, _ = coordinate_labels(m)
    assert qn[:4] == ["root.qx", "root.qy", "root.qz", "root.qw"] and qu[:4] == [""] * 4


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_output_has_named_columns_and_loads_back(tmp_path, suffix):
    m = double_pendulum()
    path = tmp_path / f"r{suffix}"
    res = mb.simulate(m, [1.0, -0.5], [0.0, 0.3], 0.2, output=path)
    assert res.q_names == ["shoulder", "elbow"] and res.u_units == ["rad/s", "rad/s"]
    assert res.q_legend() == ["shoulder [rad]", "elbow [rad]"]
    if suffix == ".csv":
        header = path.read_text().splitlines()[0]
        assert header == "t [s],q:shoulder [rad],q:elbow [rad],u:shoulder [rad/s],u:elbow [rad/s]"
    back = load_result(path)
    for a in ("t", "q", "u"):
        np.testing.assert_array_equal(getattr(back, a), getattr(res, a))  # bit for bit (%.17g in CSV)
    assert back.labels == res.labels
    assert back.status == ("finished" if suffix == ".npz" else "unknown")
    assert not list(tmp_path.glob("*.part-*"))


def test_free_root_columns_in_files(tmp_path):
    m = mixed_model()
    res = mb.simulate(m, m.neutral_q(), np.zeros(m.nu), 0.01, output=tmp_path / "r.npz")
    data = np.load(tmp_path / "r.npz")
    assert list(data["q_names"][:6]) == ["root.rx", "root.ry", "root.rz", "root.x", "root.y", "root.z"]
    assert list(data["u_units"][:6]) == ["rad/s"] * 3 + ["m/s"] * 3
    assert mb.load_result(tmp_path / "r.npz").q.shape == res.q.shape


def test_load_result_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_result(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="unknown results format"):
        load_result(tmp_path / "r.txt")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not a results file"):
        load_result(tmp_path / "other.npz")


def test_output_every_decimates_fixed_and_adaptive():
    m = double_pendulum()
    full = mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, dt=1e-3)
    res = mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, dt=1e-3, output_every=0.1)
    np.testing.assert_allclose(res.t, np.linspace(0, 1, 11), atol=1e-12)
    np.testing.assert_array_equal(res.q, full.q[::100])
    ad = mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, dt=1e-3, integrator="dopri5", output_every=0.25)
    np.testing.assert_allclose(ad.t, [0, 0.25, 0.5, 0.75, 1.0], atol=1e-12)
    with pytest.raises(ValueError, match="multiple of dt"):
        mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, dt=1e-3, output_every=0.0015)
    with pytest.raises(ValueError, match="not both"):
        mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, output_every=0.1, save_every=10)
    with pytest.raises(ValueError, match="output_every"):
        mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, output_every=-1)
    with pytest.raises(ValueError, match="needs output="):
        mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 1.0, keep_in_memory=False)


def test_long_run_streams_to_disk_with_bounded_memory(tmp_path):
    m = double_pendulum()
    mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 0.01, output=tmp_path / "warm.npz")  # compile outside the trace
    tracemalloc.start()
    try:
        # 3000 s at dt = 1 ms: 3e6 steps, 120 MB if every step were kept
        res = mb.simulate(m, [1.0, -0.5], [0.0, 0.0], 3000.0, dt=1e-3, output=tmp_path / "long.npz",
                          output_every=0.01, keep_in_memory=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(res) == 1 and res.t[-1] == pytest.approx(3000.0) and res.n_steps == 3_000_000
    assert peak < 4e6, f"peak {peak / 1e6:.1f} MB"
    back = mb.load_result(tmp_path / "long.npz")
    assert back.q.shape == (300_001, 2) and back.status == "finished"
    np.testing.assert_array_equal(back.q[-1], res.q[-1])


@pytest.mark.parametrize("output, match", [("missing/r.npz", "folder .* does not exist"),
                                           ("r.txt", "unknown file type"), ("d.npz", "is a folder")])
def test_output_path_checked_before_the_run(tmp_path, monkeypatch, output, match):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.npz").mkdir()
    calls = []

    def control(t, q, u, tau_out):
        calls.append(t)

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=f"output '{output}'.*{match}"):
        mb.simulate(double_pendulum(), [1.0, -0.5], [0.0, 0.0], 1000.0, control=control, output=output)
    assert calls == [] and time.perf_counter() - t0 < 5.0


def test_result_plot_and_to_files(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    m = mb.Multibody()
    m.add_serial_chain("l", 2)
    res = mb.simulate(m, np.array([0.3, -0.2]), np.zeros(2), 0.05, dt=1e-3)
    fig = res.plot(m, tmp_path / "r.png", title="chain")
    assert (tmp_path / "r.png").stat().st_size > 1000 and len(fig.axes) == 3
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["l0_hinge [rad]", "l1_hinge [rad]"]
    assert len(res.plot().axes) == 2  # without a model: no energy panel
    back = mb.load_result(res.to_csv(tmp_path / "r.csv"))
    assert np.array_equal(back.q, res.q)
    assert np.array_equal(mb.load_result(res.to_npz(tmp_path / "r.npz")).u, res.u)
    with pytest.raises(ValueError, match=r"\.csv"):
        res.to_csv(tmp_path / "r.txt")
