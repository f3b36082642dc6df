"""Test helper: a long run of the double pendulum with a Python control, for the tests that
interrupt, kill, fill and delete (``test_durable_results.py`` runs it in a subprocess).

``python durable_run.py OUT REPORT [--t-final T] [--dt DT] [--raise-at T] [--delete-at T]
[--immutable-at T] [--no-memory]``: simulates into OUT; the control prints ``running`` on
its first call (the parent waits for it), writes the joint torques of a PD law, and at
the given times raises, removes OUT's folder or makes it immutable (``chattr +i``). On
the way out (any exception) REPORT gets a JSON record: the exception's type and text,
the last time the control saw, the wall time from the event to the exception, and the
in-memory result's length and last time.
"""
import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("report")
    ap.add_argument("--t-final", type=float, default=1000.0)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--raise-at", type=float)
    ap.add_argument("--delete-at", type=float)
    ap.add_argument("--immutable-at", type=float)
    ap.add_argument("--no-memory", action="store_true")
    a = ap.parse_args()
    import multibody as mb
    from multibody.cli import _demo_model_path
    m = mb.load_urdf(str(_demo_model_path()))
    seen = dict(t=None, event_wall=None)
    folder = Path(a.out).parent

    def control(t, q, u, tau):
        if seen["t"] is None:
            print("running", flush=True)
        seen["t"] = t
        if a.raise_at is not None and t >= a.raise_at:
            raise RuntimeError(f"control failure at t = {t}")
        if seen["event_wall"] is None and a.delete_at is not None and t >= a.delete_at:
            shutil.rmtree(folder)
            seen["event_wall"] = time.perf_counter()
        if seen["event_wall"] is None and a.immutable_at is not None and t >= a.immutable_at:
            subprocess.run(["chattr", "+i", str(folder)], check=True)
            seen["event_wall"] = time.perf_counter()
        tau[:] = -2.0 * (q - np.array([1.0, -0.5])) - 0.1 * u

    report = dict(error=None)
    try:
        res = mb.simulate(m, [1.0, -0.5], [0.0, 0.0], a.t_final, dt=a.dt, control=control, output=a.out,
                          keep_in_memory=not a.no_memory)
        report.update(result_len=len(res), result_t=float(res.t[-1]))
    except BaseException as e:
        res = getattr(e, "result", None)
        report.update(error=type(e).__name__, text=str(e), notes=list(getattr(e, "__notes__", [])),
                      t=getattr(e, "t", None), result_len=None if res is None else len(res),
                      result_t=None if res is None else float(res.t[-1]),
                      after_event_s=None if seen["event_wall"] is None else time.perf_counter() - seen["event_wall"])
        raise
    finally:
        report["control_t"] = seen["t"]
        Path(a.report).write_text(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
