"""A gain sweep of a PD-controlled double pendulum with ``mb.sweep``.

The packaged double pendulum (two 1 m, 1 kg links) starts hanging at rest and a PD law
tau = kp (q_ref - q) - kd u on both joints (``JointSpringDamper``, evaluated inside the
compiled loop) drives it towards q_ref = (pi/2, 0): the arm held out horizontally.
Every (kp, kd) pair of a grid is one case of the sweep; per case we keep the final
error, the overshoot, the settling time (to 2 % of the step around the final state) and the peak joint torque.

    python examples/gain_sweep.py                       # 8 x 8 gains, local processes
    python examples/gain_sweep.py --grid 4 --serial     # a quick serial run
    python examples/gain_sweep.py --scheduler tcp://host:8786   # on a Dask cluster
    python examples/gain_sweep.py --local-cluster 2     # on a dask LocalCluster

``run_case`` is defined at the top level of this file and the sweep is started under
``if __name__ == "__main__":``, as a process pool needs (each worker imports this file).
"""
import argparse
import os
import time
from importlib import resources
from pathlib import Path

import numpy as np

import multibody as mb
from multibody.plotting import figure

URDF = str(resources.files("multibody") / "data" / "double_pendulum.urdf")
Q_REF = np.array([np.pi / 2, 0.0])  # [rad]
T_FINAL, DT = 4.0, 1e-3  # [s]
_MODEL = []  # the model, loaded once per process


def arm():
    """The packaged double pendulum (loaded on first use in each process)."""
    if not _MODEL:
        _MODEL.append(mb.load_urdf(URDF))
    return _MODEL[0]


def run_case(gains):
    """Simulate one (kp [N m/rad], kd [N m s/rad]) pair; return a dict of scalar metrics."""
    kp, kd = (float(g) for g in gains)
    m = arm()
    pd = [mb.JointSpringDamper(h, stiffness=kp, damping=kd, q_ref=r) for h, r in zip(m.hinge_names, Q_REF)]
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), T_FINAL, dt=DT, forces=pd, output_every=0.01)
    # settling: the last sample more than 2 % of the step away from the final state
    away = np.abs(res.q - res.q[-1]).max(axis=1) > 0.02 * np.abs(Q_REF).max()
    last = np.nonzero(away)[0]
    settle = 0.0 if not len(last) else (np.inf if last[-1] + 1 == len(res.t) else res.t[last[-1] + 1])
    if np.abs(res.u[-1]).max() > 0.05:  # still swinging at the end [rad/s]: not settled
        settle = np.inf
    torque = kp * (Q_REF - res.q) - kd * res.u
    return {"final_error": np.abs(res.q[-1] - Q_REF).max(),
            "overshoot": max(0.0, res.q[:, 0].max() - res.q[-1, 0]),
            "settling_time": settle, "peak_torque": np.abs(torque).max()}


def main(grid=8, processes=None, client=None, out_dir="."):
    """Sweep a grid x grid table of gains; return (kp, kd, {metric: (grid, grid)})."""
    kp = np.geomspace(20.0, 500.0, grid)
    kd = np.geomspace(1.0, 60.0, grid)
    cases = [(p, d) for p in kp for d in kd]
    t0 = time.perf_counter()
    out = mb.sweep(run_case, cases, processes=processes, client=client,
                   output=str(Path(out_dir) / "gain_sweep.npz"))
    wall = time.perf_counter() - t0
    table = {k: v.reshape(grid, grid) for k, v in out.items()}
    print(f"{len(cases)} gain pairs, {T_FINAL} s each: {wall:.2f} s wall")
    ok = np.isfinite(table["settling_time"])
    if ok.any():
        i, j = np.unravel_index(np.where(ok, table["settling_time"], np.inf).argmin(), ok.shape)
        print(f"fastest settling: kp = {kp[i]:.1f}, kd = {kd[j]:.1f}: {table['settling_time'][i, j]:.2f} s, "
              f"overshoot {table['overshoot'][i, j]:.3f} rad, peak torque {table['peak_torque'][i, j]:.0f} N m")
    print(f"final error: {table['final_error'].min():.3f} .. {table['final_error'].max():.3f} rad "
          "(a PD law without gravity compensation keeps a steady error that falls as kp grows)")
    _plot(kp, kd, table, Path(out_dir) / "gain_sweep.png")
    return kp, kd, table


def _plot(kp, kd, table, path):
    made = figure(1, 2, figsize=(10, 4))
    if not made:
        return
    fig, ax = made
    for a, key, label in ((ax[0], "settling_time", "2 % settling time [s]"),
                          (ax[1], "final_error", "final error [rad]")):
        im = a.imshow(np.where(np.isfinite(table[key]), table[key], np.nan), origin="lower", aspect="auto")
        a.set_xticks(range(len(kd)), [f"{v:.3g}" for v in kd], rotation=45)
        a.set_yticks(range(len(kp)), [f"{v:.3g}" for v in kp])
        a.set(xlabel="kd [N m s/rad]", ylabel="kp [N m/rad]", title=label)
        fig.colorbar(im, ax=a)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot saved to {path}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=int, default=int(os.environ.get("MB_EXAMPLE_GRID", 8)), help="gains per axis")
    ap.add_argument("--processes", type=int, default=os.cpu_count(), help="local worker processes")
    ap.add_argument("--serial", action="store_true", help="run the cases in this process")
    ap.add_argument("--scheduler", default=None, help="address of a running Dask scheduler")
    ap.add_argument("--local-cluster", type=int, default=0, help="start a dask LocalCluster of N workers")
    ap.add_argument("--out-dir", default=".")
    a = ap.parse_args()
    if a.scheduler or a.local_cluster:
        from dask.distributed import Client, LocalCluster
        cluster = None if a.scheduler else LocalCluster(n_workers=a.local_cluster, threads_per_worker=1)
        with Client(a.scheduler or cluster) as dask_client:
            main(a.grid, client=dask_client, out_dir=a.out_dir)
        if cluster is not None:
            cluster.close()
    else:
        main(a.grid, processes=None if a.serial else a.processes, out_dir=a.out_dir)
