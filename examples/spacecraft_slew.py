"""A spacecraft slew: a rigid hub on a free joint with two flexible solar panels.

The hub (1 m cube, 200 kg) floats without gravity; two 4 m panels (beam_modes cantilevers,
EI = 500 N m^2, rho A = 3 kg/m, three modes each, bending in the plane of the slew) are
clamped to opposite faces. A torque about the hub's z axis turns the spacecraft by 30
degrees in 20 s, rest to rest for a rigid spacecraft of the same inertia, then the run
coasts for 20 s. Two torque profiles, through a control callback (called at every
Runge-Kutta stage of the compiled loop):

* bang-bang: +tau until half time, -tau after: the sudden switches ring the panels;
* sine: tau sin(2 pi t / T), smooth at its ends: far less vibration is left.

After the torque stops, the panels keep vibrating and the hub answers them (the total
angular momentum is zero): the printout gives the panels' tip deflection and the hub's
residual angle and rate oscillation for each profile, and the total angular momentum
about z left after the slew: zero for the smooth profile (1e-14), and for the bang-bang
one the Runge-Kutta error of integrating a torque that jumps within a step (1e-4).

Its modes at rest (``modes``: ``modal_analysis``, printed first): six rigid-body modes (0 Hz),
then the panels' in pairs, each above its clamped frequency (0.45, 2.83, 7.92 Hz): 0.467 Hz
(panels bending opposite in their own axes, the hub moving along y), 0.982 Hz (alike, the hub
turning about z against them: the mode a slew rings), 2.861 / 3.154 Hz, 7.953 / 8.109 Hz.

    python examples/spacecraft_slew.py                     # both profiles, plot if matplotlib is there
    python examples/spacecraft_slew.py --coast 2 --plot ''  # a quick run
"""
import argparse
import time

import numpy as np

import multibody as mb
from multibody.flex import beam_modes
from multibody.plotting import figure

SLEW = np.radians(30.0)  # rest-to-rest angle of the rigid spacecraft [rad]


def spacecraft(n_modes=3, EI=500.0, rhoA=3.0, length=4.0):
    """(model, panel modal data): hub ``hub`` on a free joint; panels ``panel_a`` (along +x)
    and ``panel_b`` (along -x) clamped at the hub's faces, tips ``tip_a``, ``tip_b``."""
    data = beam_modes(length, EI, rhoA, n_elements=40, n_modes=n_modes, axis="x", bending_axis="y")
    m = mb.Multibody(gravity=(0.0, 0.0, 0.0))
    hub = m.add_body("hub", mass=200.0, inertia=np.diag([33.3, 33.3, 33.3]))
    m.add_hinge(None, hub, "free", name="float")
    tip = data.node_positions.shape[0] - 1
    for side, sign in (("a", 1.0), ("b", -1.0)):
        T = np.eye(4)
        T[:3, :3] = np.diag([sign, sign, 1.0])  # panel b turned half a turn about z
        T[0, 3] = 0.5 * sign
        m.add_node(f"face_{side}", hub, T)
        panel = m.add_modal_body(f"panel_{side}", modal_data=data, nodes={f"tip_{side}": tip})
        m.add_hinge(f"face_{side}", panel, "locked", name=f"mount_{side}")
    return m, data


def modes(m):
    """(omega [rad/s], mode shapes as columns) of the spacecraft at rest, undeformed
    (``modal_analysis``): six rigid-body modes (zero), then the panels' modes in pairs."""
    return m.modal_analysis(np.zeros(m.nq))


def torque_profile(name, amplitude, duration):
    """Torque about the hub's z axis [N m] at time t: ``bang-bang`` or ``sine``."""
    if name == "bang-bang":
        return lambda t: amplitude if t < 0.5 * duration else (-amplitude if t < duration else 0.0)
    return lambda t: amplitude * np.sin(2.0 * np.pi * t / duration) if t < duration else 0.0


def slew(m, data, profile, duration, coast):
    """Run one slew; returns (result, tip deflections {"a", "b"} (N,) [m], dict of figures)."""
    J = m.mass_matrix(np.zeros(m.nq))[2, 2]  # the undeformed spacecraft's inertia about z [kg m^2]
    # rest to rest for a rigid body: bang-bang tau (T/2)^2 / J = angle; sine tau T^2 / (2 pi J) = angle
    amplitude = SLEW * J / (0.5 * duration) ** 2 if profile == "bang-bang" else 2 * np.pi * J * SLEW / duration ** 2
    torque = torque_profile(profile, amplitude, duration)

    def control(t, q, u, tau_out):  # the free joint's first three forces: the moment in hub axes
        tau_out[2] = torque(t)

    wall = time.perf_counter()
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), duration + coast, dt=2e-3, control=control,
                      output_every=0.02)
    wall = time.perf_counter() - wall
    after = res.t >= duration - 1e-9
    angle, rate = res.q[:, 2], res.u[:, 2]  # rotation vector's z (a slew about z), hub rate about z
    tips = {s: res.q[:, m.modal_slice(f"panel_{s}")] @ data.mode_shapes[-1][4] for s in "ab"}
    # angular momentum about the hub's z axis at rest position: the z row of M u (hub frame)
    H = np.array([(m.mass_matrix(q) @ u)[2] for q, u in zip(res.q[after], res.u[after])])
    figures = dict(J=J, amplitude=amplitude, wall=wall, final=angle[after][0],
                   angle_pp=np.ptp(angle[after]), rate_amp=np.abs(rate[after]).max(),
                   tip_max=max(np.abs(w).max() for w in tips.values()),
                   tip_residual=max(np.abs(w[after]).max() for w in tips.values()), momentum=np.abs(H).max())
    return res, tips, figures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=20.0, help="slew time [s]")
    ap.add_argument("--coast", type=float, default=20.0, help="time after the slew [s]")
    ap.add_argument("--plot", default="spacecraft_slew.png", help="figure file (needs matplotlib; '' for none)")
    args = ap.parse_args(argv)

    m, data = spacecraft()
    print(f"panels: {', '.join(f'{w / (2 * np.pi):.2f}' for w in data.frequencies)} Hz (clamped), "
          f"{data.mass:.1f} kg each; nq = {m.nq}")
    omega, shapes = modes(m)
    hub_turn = np.abs(shapes[2, 6:]) > 1e-9
    print("modes of the free spacecraft: 6 rigid-body modes (0 Hz), then "
          + ", ".join(f"{w / (2 * np.pi):.3f} Hz ({'hub turning, panels alike' if t else 'hub moving, panels opposite'})"
                      for w, t in zip(omega[6:], hub_turn)))
    runs = {}
    for profile in ("bang-bang", "sine"):
        res, tips, f = slew(m, data, profile, args.duration, args.coast)
        runs[profile] = (res, tips, f)
        print(f"{profile:9s}: peak torque {f['amplitude']:.3f} N m (J_z = {f['J']:.1f} kg m^2), "
              f"{res.n_steps} steps in {f['wall']:.2f} s")
        print(f"           hub at {np.degrees(f['final']):.3f} deg when the torque stops (rigid: "
              f"{np.degrees(SLEW):.0f}); tip deflection up to {1e3 * f['tip_max']:.1f} mm")
        print(f"           after it: tips ring at {1e3 * f['tip_residual']:.2f} mm, the hub by "
              f"{1e3 * np.degrees(f['angle_pp']):.2f} mdeg peak to peak and {1e3 * np.degrees(f['rate_amp']):.3f} "
              f"mdeg/s; angular momentum {f['momentum']:.1e} N m s")
    made = figure(3, 1, sharex=True, figsize=(8, 7)) if args.plot else None
    if made:
        fig, ax = made
        for profile, (res, tips, _) in runs.items():
            ax[0].plot(res.t, np.degrees(res.q[:, 2]), label=profile)
            ax[1].plot(res.t, np.degrees(res.u[:, 2]), label=profile)
            ax[2].plot(res.t, 1e3 * tips["a"], label=profile)
        ax[0].set_ylabel("hub angle [deg]")
        ax[1].set_ylabel("hub rate [deg/s]")
        ax[2].set_ylabel("panel tip deflection [mm]")
        ax[2].set_xlabel("t [s]")
        ax[0].legend()
        for a in ax:
            a.axvline(args.duration, color="0.6", lw=0.8)
        ax[0].set_title("30 deg slew of a hub with two flexible panels")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")
    return runs


if __name__ == "__main__":
    main()
