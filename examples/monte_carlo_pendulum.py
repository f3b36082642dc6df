"""Monte Carlo over 10,000 initial states of the packaged double pendulum.

Every state starts at rest from random angles (theta1, theta2) and is integrated for
5 s with RK4, all states at once: one batched ``m.forward_dynamics(Q, U, TAU)`` call
per stage runs the whole block across Numba's threads. ``mb.sweep`` cuts the states
into blocks (its cases) so that ``--processes N`` or ``--scheduler ADDRESS`` spreads
them over processes or a Dask cluster; the default runs the blocks here.

Per state we keep the time the lower link first flips over the top (|theta2| > pi;
inf if it never does within the run), the final angles and the relative energy drift.
A histogram of the flip times is saved if matplotlib is installed.

    python examples/monte_carlo_pendulum.py                  # 10,000 states, serial blocks
    python examples/monte_carlo_pendulum.py --processes 4    # blocks in 4 processes
    python examples/monte_carlo_pendulum.py --n 500 --t-final 1   # a quick run
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
_MODEL = []  # the model, loaded once per process


def pendulum():
    """The packaged double pendulum (loaded on first use in each process)."""
    if not _MODEL:
        _MODEL.append(mb.load_urdf(URDF))
    return _MODEL[0]


def run_block(case):
    """Integrate one block of initial states; ``case`` = {"q0": (B, 2), "t_final", "dt"}."""
    m = pendulum()
    Q = np.array(case["q0"], dtype=float)
    U = np.zeros_like(Q)
    tau = np.zeros_like(Q)
    dt, n_steps = case["dt"], int(round(case["t_final"] / case["dt"]))
    energy0 = m.kinetic_energy(Q, U) + m.potential_energy(Q)
    flip = np.full(len(Q), np.inf)
    k = [np.empty_like(Q) for _ in range(4)]  # stage accelerations, written in place
    for step in range(n_steps):  # classic RK4 on q' = u, u' = a(q, u), every state at once
        m.forward_dynamics(Q, U, tau, out=k[0])
        U1 = U + 0.5 * dt * k[0]          # the speed (= q') of stage 2
        m.forward_dynamics(Q + 0.5 * dt * U, U1, tau, out=k[1])
        U2 = U + 0.5 * dt * k[1]          # stage 3
        m.forward_dynamics(Q + 0.5 * dt * U1, U2, tau, out=k[2])
        U3 = U + dt * k[2]                # stage 4
        m.forward_dynamics(Q + dt * U2, U3, tau, out=k[3])
        Q = Q + dt / 6.0 * (U + 2.0 * U1 + 2.0 * U2 + U3)
        U = U + dt / 6.0 * (k[0] + 2.0 * k[1] + 2.0 * k[2] + k[3])
        new = np.isinf(flip) & (np.abs(Q[:, 1]) > np.pi)
        flip[new] = (step + 1) * dt
    energy = m.kinetic_energy(Q, U) + m.potential_energy(Q)
    drift = np.abs(energy - energy0) / np.maximum(np.abs(energy0), 1.0)
    return {"flip_time": flip, "q_final": Q, "energy_drift": drift}


def main(n=10000, t_final=5.0, dt=0.01, block=1250, processes=None, client=None, out_dir=".", seed=0):
    """Run the Monte Carlo and return {"flip_time": (n,), "q_final": (n, 2), "energy_drift": (n,)}."""
    rng = np.random.default_rng(seed)
    q0 = rng.uniform(-np.pi, np.pi, size=(n, 2))
    cases = [{"q0": q0[s:s + block], "t_final": t_final, "dt": dt} for s in range(0, n, block)]
    if n % block:  # sweep stacks equal shapes: pad the last block, drop the padding after
        pad = block - len(cases[-1]["q0"])
        cases[-1]["q0"] = np.vstack([cases[-1]["q0"], np.zeros((pad, 2))])
    t0 = time.perf_counter()
    out = mb.sweep(run_block, cases, processes=processes, client=client,
                   output=str(Path(out_dir) / "monte_carlo_pendulum.npz"))
    wall = time.perf_counter() - t0
    res = {k: v.reshape((-1,) + v.shape[2:])[:n] for k, v in out.items()}  # (blocks, B, ...) -> (n, ...)
    flips = np.isfinite(res["flip_time"])
    print(f"{n} states, {t_final} s at dt = {dt} s: {wall:.2f} s wall "
          f"({n * t_final / dt / wall:,.0f} state-steps/s)")
    print(f"{flips.sum()} of {n} flip the lower link over the top; median flip time "
          f"{np.median(res['flip_time'][flips]) if flips.any() else float('nan'):.2f} s; "
          f"largest energy drift {res['energy_drift'].max():.2e}")
    _plot(res, t_final, Path(out_dir) / "monte_carlo_pendulum.png")
    return res


def _plot(res, t_final, path):
    made = figure(1, 2, figsize=(10, 4))
    if not made:
        return
    fig, ax = made
    ft = res["flip_time"]
    ax[0].hist(ft[np.isfinite(ft)], bins=50, range=(0, t_final))
    ax[0].set(xlabel="time of the first flip of the lower link [s]", ylabel="initial states",
              title=f"{np.isfinite(ft).sum()} of {len(ft)} states flip")
    ax[1].hist(np.log10(np.maximum(res["energy_drift"], 1e-16)), bins=50)
    ax[1].set(xlabel="log10 relative energy drift", ylabel="initial states", title="RK4 energy drift")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"histogram saved to {path}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=int(os.environ.get("MB_EXAMPLE_N", 10000)), help="initial states")
    ap.add_argument("--t-final", type=float, default=5.0)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--block", type=int, default=1250, help="states per sweep case")
    ap.add_argument("--processes", type=int, default=None, help="local worker processes")
    ap.add_argument("--scheduler", default=None, help="address of a running Dask scheduler")
    ap.add_argument("--out-dir", default=".")
    a = ap.parse_args()
    dask_client = None
    if a.scheduler:
        from dask.distributed import Client
        dask_client = Client(a.scheduler)
    main(a.n, a.t_final, a.dt, min(a.block, a.n), a.processes, dask_client, a.out_dir)
