"""``mb.sweep``: serial, process-pool and Dask runs give the same results bit for bit; a
failing case is reported by index and the others are kept; outputs, progress bar, errors."""
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.progress import ProgressBar
from multibody.sweep import SweepError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BAD = 5  # the case that raises


def chain_case(case):
    """A 3-link chain with the case's mass, simulated 0.2 s from the case's state (top level: picklable)."""
    mass, q0 = case
    if mass < 0:
        raise ValueError(f"negative mass {mass}")
    m = mb.Multibody()
    m.add_serial_chain("l", 3, mass=mass)
    res = mb.simulate(m, q0, np.zeros(3), 0.2, dt=1e-3)
    return {"q": res.q[-1], "u": res.u[-1], "energy": m.kinetic_energy(res.q[-1], res.u[-1])}


def cases16():
    rng = np.random.default_rng(7)
    out = [(1.0 + 0.1 * k, rng.normal(size=3)) for k in range(16)]
    out[BAD] = (-1.0, out[BAD][1])
    return out


@pytest.fixture(scope="module")
def serial():
    """The serial reference: SweepError carrying 15 results."""
    with pytest.raises(SweepError) as e:
        mb.sweep(chain_case, cases16(), progress=False)
    return e.value


def check_against_serial(err, serial):
    assert list(err.failures) == [BAD] and "ValueError: negative mass -1.0" in err.failures[BAD]
    assert f"indices [{BAD}]" in str(err) and "case 5: ValueError: negative mass" in str(err)
    assert err.completed.tolist() == [k for k in range(16) if k != BAD]
    assert err.results["q"].shape == (15, 3) and err.results["energy"].shape == (15,)
    for k in ("q", "u", "energy"):
        assert np.array_equal(err.results[k], serial.results[k]), k  # bit for bit


def test_serial_reference(serial):
    assert list(serial.failures) == [BAD]
    good = [c for k, c in enumerate(cases16()) if k != BAD]
    assert np.array_equal(mb.sweep(chain_case, good, progress=False)["q"], serial.results["q"])
    assert mb.sweep.SweepError is SweepError


def test_process_pool_equals_serial(serial):
    with pytest.raises(SweepError) as e:
        mb.sweep(chain_case, cases16(), processes=2, progress=False)
    check_against_serial(e.value, serial)
    with pytest.raises(SweepError) as e:  # one case per chunk gives the same
        mb.sweep(chain_case, cases16(), processes=2, chunksize=1, progress=False)
    check_against_serial(e.value, serial)


def test_dask_local_cluster_equals_serial(serial, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        with pytest.raises(SweepError) as e:
            mb.sweep(chain_case, cases16(), client=client, progress=False, output=tmp_path / "d.npz")
        check_against_serial(e.value, serial)
        with pytest.raises(SweepError) as e:
            mb.sweep(chain_case, cases16(), client=client, chunksize=1, progress=False)
        check_against_serial(e.value, serial)
    with np.load(tmp_path / "d.npz") as f:  # the file is written before the error is raised
        assert f["case_index"].tolist() == e.value.completed.tolist()
        assert np.array_equal(f["q"], serial.results["q"])


def square(x):
    return x * x


def pair(x):
    return np.array([x, -x]), float(x) ** 2


def ragged(x):
    return np.zeros(3 if x != 2 else 4)


def test_output_kinds_and_npz(tmp_path):
    a = mb.sweep(square, np.arange(5.0), progress=False, output=tmp_path / "a.npz")
    assert np.array_equal(a, np.arange(5.0) ** 2)
    with np.load(tmp_path / "a.npz") as f:
        assert np.array_equal(f["result"], a) and f["case_index"].tolist() == [0, 1, 2, 3, 4]
    v, s = mb.sweep(pair, range(4), progress=False, output=str(tmp_path / "t.npz"))
    assert v.shape == (4, 2) and np.array_equal(s, [0.0, 1.0, 4.0, 9.0])
    with np.load(tmp_path / "t.npz") as f:
        assert np.array_equal(f["result_0"], v) and np.array_equal(f["result_1"], s)


def test_zarr_output(tmp_path):
    zarr = pytest.importorskip("zarr")
    a = mb.sweep(square, np.arange(4.0), progress=False, output=tmp_path / "a.zarr")
    g = zarr.open_group(str(tmp_path / "a.zarr"), mode="r")
    assert np.array_equal(g["result"][:], a) and g["case_index"][:].tolist() == [0, 1, 2, 3]


def test_a_shape_that_disagrees_is_a_failure_of_that_case():
    with pytest.raises(SweepError, match=r"case 2: ValueError: case 2 returned an array of shape \(4,\)") as e:
        mb.sweep(ragged, range(4), progress=False)
    assert e.value.completed.tolist() == [0, 1, 3] and e.value.results.shape == (3, 3)
    with pytest.raises(SweepError, match="run must return an array") as e:
        mb.sweep(lambda x: object(), range(2), progress=False)
    assert e.value.results is None and sorted(e.value.failures) == [0, 1]


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="run must be callable"):
        mb.sweep(3, [1])
    with pytest.raises(ValueError, match="cases is empty"):
        mb.sweep(square, [])
    with pytest.raises(TypeError, match="cases must be a sequence"):
        mb.sweep(square, "abc")
    with pytest.raises(TypeError, match="cases must be a sequence"):
        mb.sweep(square, 5)
    with pytest.raises(ValueError, match="not both"):
        mb.sweep(square, [1], client=object(), processes=2)
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        mb.sweep(square, [1], client="tcp://localhost:8786")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="processes must be a positive integer"):
            mb.sweep(square, [1], processes=bad)
    with pytest.raises(ValueError, match="chunksize must be a positive integer"):
        mb.sweep(square, [1], chunksize=0)
    with pytest.raises(TypeError, match="run must be picklable"):
        mb.sweep(lambda x: x, [1], processes=2)
    with pytest.raises(ValueError, match="must end in .npz or .zarr"):
        mb.sweep(square, [1], output=tmp_path / "a.csv")
    with pytest.raises(ValueError, match="does not exist"):
        mb.sweep(square, [1], output=tmp_path / "missing" / "a.npz")
    try:
        import zarr  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="needs the zarr package"):
            mb.sweep(square, [1], output=tmp_path / "a.zarr")


def test_progress_bar_ends_cleanly(capsys):
    stream = io.StringIO()
    bar = ProgressBar(after=0.0, stream=stream)
    for k in range(1, 5):
        bar.update(k / 4, f"{k}/4 cases" + (", 1 failed" if k > 2 else ""))
    bar.close()
    text = stream.getvalue()
    assert text.endswith("4/4 cases, 1 failed  elapsed 0.0 s  eta 0.0 s\n") and text.count("\n") == 1
    mb.sweep(square, range(3))  # a short sweep prints no bar
    assert capsys.readouterr().err == ""


def test_monte_carlo_example_runs(tmp_path):
    sys.path.insert(0, str(EXAMPLES))
    try:
        import monte_carlo_pendulum as ex
    finally:
        sys.path.remove(str(EXAMPLES))
    res = ex.main(n=50, t_final=0.5, dt=0.01, block=16, out_dir=tmp_path)  # 4 blocks, the last padded
    assert res["flip_time"].shape == (50,) and res["q_final"].shape == (50, 2)
    assert res["energy_drift"].max() < 1e-2 and (tmp_path / "monte_carlo_pendulum.npz").exists()
    q0 = np.random.default_rng(0).uniform(-np.pi, np.pi, size=(50, 2))  # main's states (seed 0)
    single = mb.simulate(ex.pendulum(), q0[7], np.zeros(2), 0.5, dt=0.01)
    assert np.allclose(single.q[-1], res["q_final"][7], rtol=0, atol=1e-12)  # the same RK4 as simulate


def test_gain_sweep_example_runs_in_processes(tmp_path):
    env = dict(os.environ, MB_EXAMPLE_GRID="3")
    done = subprocess.run([sys.executable, str(EXAMPLES / "gain_sweep.py"), "--processes", "2",
                           "--out-dir", str(tmp_path)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "9 gain pairs" in done.stdout
    with np.load(tmp_path / "gain_sweep.npz") as f:
        assert f["settling_time"].shape == (9,) and np.all(f["final_error"] < 1.0)
