"""Analytic derivatives of a flexible tree vs central differences of our own dynamics, as
ratios measured in the same run (issue 22).

The tree: a chain of N rigid links on pins, each carrying a modal panel (beam_modes
cantilever, 3 modes, geometric stiffening) on a pin at its side, so nu = N (1 + 1 + 3); every
link hangs from a rigid attachment (what the flex derivatives serve). Timed:
``inverse_dynamics_derivatives`` against 4 nu ``inverse_dynamics`` calls (central differences
of dtau/dq and dtau/du, the cheapest finite-difference peer, called from Python as a user
would), and ``forward_dynamics_derivatives`` against 4 nu ``forward_dynamics`` calls. The
analytic results agree with the differences to about 1e-8 (printed).

Run:  python bench/bench_flex_derivatives.py [N ...]   (default 2 8)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_core import best_time  # noqa: E402


def panel_chain(n):
    """(model, q, u, x): N pin links, each with a 3-mode panel on a pin."""
    import multibody as mb
    from multibody.flex import beam_modes
    data = beam_modes(1.0, 50.0, 1.0, n_elements=12, n_modes=3)
    m = mb.Multibody()
    parent = None
    for i in range(n):
        T = np.eye(4)
        T[0, 3] = 0.5 if i else 0.0
        b = m.add_body(f"link{i}", mass=1.0, com=[0.25, 0, 0], inertia=[0.01, 0, 0, 0.02, 0, 0.02])
        m.add_hinge(parent, b, "pin", axis=(0, 1, 0), T_parent_joint=T)
        Tp = np.eye(4)
        Tp[1, 3] = 0.1
        m.add_hinge(b, m.add_modal_body(f"panel{i}", modal_data=data), "pin", axis=(0, 0, 1), T_parent_joint=Tp)
        parent = b
    rng = np.random.default_rng(0)
    return m, 0.01 * rng.normal(size=m.nq), rng.normal(size=m.nu), rng.normal(size=m.nu)


def differences(m, fn, q, u, x, h=1e-6):
    nu = m.nu
    dq, du = np.empty((nu, nu)), np.empty((nu, nu))
    for k in range(nu):
        e = np.zeros(nu)
        e[k] = h
        dq[:, k] = (fn(m.integrate(q, e, 1.0), u, x) - fn(m.integrate(q, -e, 1.0), u, x)) / (2 * h)
        du[:, k] = (fn(q, u + e, x) - fn(q, u - e, x)) / (2 * h)
    return dq, du


def main(sizes):
    import multibody as mb
    print(f"multibody from {os.path.dirname(mb.__file__)}")
    for n in sizes:
        m, q, u, x = panel_chain(n)
        for name, fn in (("inverse", m.inverse_dynamics), ("forward", m.forward_dynamics)):
            analytic = getattr(m, f"{name}_dynamics_derivatives")
            a = analytic(q, u, x)
            d = differences(m, fn, q, u, x)
            err = max(np.abs(a[i] - d[i]).max() / np.abs(d[i]).max() for i in range(2))
            t_a = best_time(lambda: analytic(q, u, x), n=200, repeats=3)  # [us]
            t_d = best_time(lambda: differences(m, fn, q, u, x), n=5, repeats=3)
            print(f"N = {n:3d} (nu = {m.nu:3d}) {name:7s} derivatives: analytic {t_a:9.1f} us, "
                  f"central differences {t_d:9.1f} us, ratio {t_a / t_d:.3f}; rel. difference {err:.1e}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2, 8])
