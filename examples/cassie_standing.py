"""Cassie standing with closed legs: example-robot-data's SDF loaded with its loops and
gearboxes, PD control on the ten motor outputs holding the file's standing pose, the file's
joint springs and dampers as force models.

By default on a free pelvis on the floor, contact on (integrator "moreau": hard Coulomb
contact, the loops' rows eliminated from each step, so they stay exact; ``on_ground``,
``stand_on_ground``). Prints the pelvis height range, the contact force against the weight,
the deepest penetration and the loops' closure error. With ``--fixed``, the pelvis held at
its file pose and no floor (RK4 with Baumgarte): the loops' closure error, how far the pose
sags from the target and the run time.

    python examples/cassie_standing.py [--t-final 2] [--soft-springs]
    python examples/cassie_standing.py --fixed [--diagnose] [--plot cassie.png]
    python examples/cassie_standing.py --fixed --crouch 0.1 --dt 2.5e-4 --baumgarte 1e4 200

On the floor (2 s, dt = 5e-4): pelvis height within 0.96 mm, vertical contact force / weight
1.00013 at the end, deepest penetration 1.8 um, the achilles and plantar loops and the
gearboxes closed to 8.7e-10, the knee-spring slider loops to 7.9e-9. Two settings make it
stand: soles of two spheres per foot (the file's foot cylinder stands on its rim at this pose,
one point per foot) with the pose pitched so that the centre of mass is over the feet, and a
PD of 2e4 N m/rad on the leaf springs. At dt = 1e-3 it stands as well (0.8 s of compute
for 2 s; closure 3.7e-9). With the file's springs alone (``--soft-springs``, 1500 and 1250
N m/rad) it does not: at dt = 1e-4 it falls backwards in about 1.2 s (an inverted pendulum
that PD on the motors does not hold); at 5e-4 and 1e-3 a fast mode of the soft legs rings
(the Moreau step's free motion is explicit, first order: with the pelvis fixed and no contact,
rotor speeds of 27 rad/s at dt = 1e-3, 0.02 at 1e-4, against RK4's 0.01 at 1e-3) and the
feet chatter.

Pelvis fixed (2 s, dt = 1e-3): the achilles and plantar loops and the gearboxes stay
closed to 1e-11, the knee-spring slider loops to 1.2e-8 (see below), the motors sag 2.4e-3
rad and the feet 2.5 mm under gravity. A crouched start (``--crouch 0.1``) is a hard PD
step (the fastest mode, ~280 rad/s, is rung): at dt = 1e-3 the loops open up to 6e-6
while they are pulled back (Baumgarte at 10 rad/s is slow for it); at dt = 2.5e-4 with
gains (1e4, 200) they stay within 5e-9.

What the model holds (``load_sdf``): per leg five motors, each a rotor hinge ("-ip")
geared to its output hinge ("-op") by a gearbox (a coordinate constraint, ratio 1/25 to
1/50); the achilles rod (a ball at the hip, a pin loop at the heel spring), the plantar
rod (a ball loop at the foot) and the knee-spring linkage (a slider loop). Measured at the
standing pose (``--diagnose`` prints them):

* Gc has 36 rows of rank 28: the planar loops' out-of-plane rows are redundant, and the
  knee-spring slider loop is nearly singular (smallest singular value 1e-6 and 1.4e-5 of
  its rows, against 1.4 for the largest): tree-augmented dynamics drops those rows (their
  pivots fall below 1e-12 of Gamma's largest diagonal, 2.1e5, an achilles loop's row
  through its light rod), so the knee spring deflects under the file's 1500 N m/rad
  spring and the slider's residual follows at about 1e-6 times the deflection: ~1e-9 m.
  The constraint kinematics solver (``project_every``) leaves the nearly singular
  directions it cannot close out, with a warning (constraint_kinematics.py).
* The springs and dampers in the file (knee-shin 1500 N m/rad, heel 1250 N m/rad,
  damping 0.1-1 N m s/rad) are hinge metadata on load; here they act as force models.
* PD on the outputs (kp = 2000 N m/rad) makes the fastest mode ~280 rad/s: RK4 at
  dt = 1e-3 is fine (stable below ~1e-2 s). The same gains on the rotor hinges reach the
  outputs multiplied by 1/ratio^2 (625 to 2500): ~14,000 rad/s, stable only below ~2e-4 s.
  That is how a try at dt = 1e-3 blew up after 3 ms.
* The file's limits of the foot crank and foot outputs ([-2.44, -0.61] rad) do not hold
  its own standing pose (q = 0): they are in another reference. simulate's limit springs
  (``limits=True``, the default) would push a standing robot hard (a run blew up at
  76 ms), so they are off here.
"""
import argparse
import importlib.metadata
import time
import warnings

import numpy as np

import multibody as mb
from multibody.plotting import figure
from multibody.simulation.forces import JointLimitWarning, JointSpringDamper

SIDES = ("left", "right")
MOTORS = [f"{s}-{j}-op" for s in SIDES for j in ("roll", "yaw", "pitch", "knee", "foot")]
ROTORS = [h.replace("-op", "-ip") for h in MOTORS]
KNEE_SPRING = [f"{s}-{j}" for s in SIDES for j in ("knee-spring-joint", "knee-shin-joint")]
FEET = [f"{s}-foot" for s in SIDES]
# [m] the added soles' spheres, ahead of and behind each foot's middle (0.18 m apart: the
# file's foot cylinder's length)
SOLE_HALF = 0.09
SOLE_RADIUS = 0.02  # [m] their radius
LEAF_SPRINGS = [f"{s}-{j}" for s in SIDES for j in ("knee-shin-joint", "tarsus-spring-joint")]
SPRING_HOLD = 2e4   # [N m/rad] the on-ground run's PD on the leaf springs (``ground_forces``)


def cassie_path():
    """example-robot-data's cassie.sdf, or None when the package is not installed."""
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    return next((f.locate() for f in files if str(f).endswith("cassie_description/robots/cassie.sdf")), None)


def load_cassie(path=None, floating_base=False):
    """Cassie with its loops and gearboxes, the pelvis fixed at its file pose (q = 0 is the
    file's standing configuration, where every loop is closed), or on a free hinge
    (``floating_base``: q[:3] its rotation vector, q[3:6] its position)."""
    path = path or cassie_path()
    if path is None:
        raise FileNotFoundError("example-robot-data's cassie.sdf is not installed (pip install example-robot-data)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # two rotor inertias break the triangle inequality
        return mb.load_sdf(path, floating_base=floating_base)


def _foot_centre(m, q, foot):
    """The world position [m] of the middle of the file's collision cylinder on ``foot``."""
    shape = next(s for s in m.collision_shapes if s.body.name == foot)
    return (m.body_pose(q, foot) @ shape.pose)[:3, 3]


def on_ground(m, sole=SOLE_HALF, radius=SOLE_RADIUS, mu=1.0):
    """Put free-pelvis Cassie (``load_cassie(floating_base=True)``) on a floor: returns q0 at
    the file's joint pose, pitched about y so that the centre of mass is over the feet, with
    a floor (the plane z = 0, friction mu) added and a sole under each foot: two spheres of
    ``radius`` [m], ``sole`` [m] ahead of and behind the foot's middle, resting on the floor.

    Why soles: at the file's pose the foot's collision cylinder stands on its rim (its axis
    63 degrees from the horizontal), one point per foot, and the centre of mass is 0.24 m
    ahead of the feet (a level pelvis would fall forward). The file's foot and tarsus
    cylinders are kept for everything but the floor."""
    q = m.neutral_q()
    base = m.q_slice("root_joint")
    feet = np.mean([_foot_centre(m, q, f) for f in FEET], axis=0)
    d = m.center_of_mass(q) - feet
    q[base.start + 1] = np.arctan2(-d[0], d[2])  # about y: the centre of mass over the feet
    centres = [_foot_centre(m, q, f) for f in FEET]
    z = min(c[2] for c in centres)
    for foot, c in zip(FEET, centres):
        T = np.linalg.inv(m.body_pose(q, foot))
        for end, dx in (("toe", sole), ("heel", -sole)):
            P = np.eye(4)
            P[:3, 3] = (T @ np.r_[c[0] + dx, c[1], z, 1.0])[:3]
            m.add_collision(foot, mb.Sphere(radius), P, name=f"{foot}/{end}", friction=mu)
    m.add_collision(m.world, mb.Plane(), name="floor", friction=mu)
    for s in SIDES:
        for part in ("foot", "tarsus"):
            m.exclude_collision(f"{s}-{part}/{s}-{part}_collision", "floor")
    q[base.start + 3:base.start + 6] -= np.r_[np.mean([c[:2] for c in centres], axis=0), z - radius]
    return q


def force_models(m, q_ref, kp=2000.0, kd=50.0):
    """PD on the motor outputs towards q_ref (spring-dampers on the hinges, compiled into the
    stepping loop) and the file's springs and dampers on the other hinges."""
    forces = [JointSpringDamper(h, kp, kd, q_ref[m.q_slice(h)]) for h in MOTORS]
    for h in m.hinges:
        k, c = h.spring_stiffness, h.damping
        if h.name not in MOTORS and (k or c) and h.nq == h.nu:
            forces.append(JointSpringDamper(h.name, k, c, h.spring_reference))
    return forces


def crouched(m, q_stand, angle):
    """q_stand with the hips pitched by ``angle`` and the knees bent by 1.3 ``angle``, its loops
    closed by the constraint kinematics solver with the motors and the knee-spring hinges
    held (the nearly singular slider loop stalls Newton on those)."""
    q = q_stand.copy()
    for s in SIDES:
        q[m.q_slice(f"{s}-pitch-op")] += angle
        q[m.q_slice(f"{s}-knee-op")] -= 1.3 * angle
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the planar loops' redundant rows
        return m.constraint_kinematics().solve_q(q, frozen=MOTORS + KNEE_SPRING)


def _fastest_mode(m, q, hinges, kp):
    """The largest natural frequency [rad/s] of the loops' motion about q (null space of Gc)
    with springs kp on ``hinges`` and the file's springs."""
    G = m.constraint_jacobian(q)
    _, s, Vt = np.linalg.svd(G)
    N = Vt[int(np.sum(s > 1e-9 * s[0])):].T
    K = np.zeros((m.nu, m.nu))
    for h in m.hinges:
        k = h.spring_stiffness + (kp if h.name in hinges else 0.0)
        i = m.u_slice(h.name)
        K[i, i] += k * np.eye(i.stop - i.start)
    L = np.linalg.cholesky(N.T @ m.mass_matrix(q) @ N)
    A = np.linalg.solve(L, np.linalg.solve(L, N.T @ K @ N).T)
    return float(np.sqrt(max(np.linalg.eigvalsh(A).max(), 0.0)))


def diagnose(m, q, kp=2000.0):
    """The numbers behind the settings (see the module docstring), as a dict."""
    G = m.constraint_jacobian(q)
    c = m.compiled
    slider = {con.name: float(np.linalg.svd(G[c.constraint_rows[con]], compute_uv=False)[1])
              for con in m.enabled_constraints if getattr(con, "kind", None) == "slider"}
    return {"rows": G.shape[0], "rank": int(np.linalg.matrix_rank(G)),
            "slider_second_singular_value": slider,
            "fastest_mode_pd_on_outputs": _fastest_mode(m, q, MOTORS, kp),
            "fastest_mode_pd_on_rotors": _fastest_mode(m, q, ROTORS, kp)}


def stand(m, q0, q_ref, t_final=2.0, dt=1e-3, kp=2000.0, kd=50.0, stabilization_gains="default"):
    """Simulate from q0 at rest (RK4; Baumgarte gains as ``simulate``'s); returns (result, summary)."""
    forces = force_models(m, q_ref, kp, kd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JointLimitWarning)  # the foot limits: see the module docstring
        start = time.perf_counter()
        res = mb.simulate(m, q0, np.zeros(m.nu), t_final, dt=dt, forces=forces, limits=False,
                          joint_dynamics=False,  # (force_models has the file's springs and dampers)
                          contact=False,  # (no floor, and the file's collision shapes stay apart: RK4 runs)
                          stabilization_gains=stabilization_gains)
        wall = time.perf_counter() - start
    errors = np.array([np.abs(m.pose_error(x, "residual")) for x in res.q])
    c = m.compiled
    slider = np.zeros(errors.shape[1], dtype=bool)
    for con in m.enabled_constraints:
        slider[c.constraint_rows[con]] = getattr(con, "kind", None) == "slider"
    closure = errors.max(axis=1)
    motors = np.concatenate([np.arange(m.q_slice(h).start, m.q_slice(h).stop) for h in MOTORS])
    feet = np.array([[m.body_pose(x, f)[:3, 3] for f in FEET] for x in res.q])
    feet_ref = np.array([m.body_pose(q_ref, f)[:3, 3] for f in FEET])
    summary = {
        "closure_max": float(closure.max()), "closure_end": float(closure[-1]),
        "closure_max_slider": float(errors[:, slider].max()), "closure_max_others": float(errors[:, ~slider].max()),
        "motor_deviation_end": float(np.abs(res.q[-1, motors] - q_ref[motors]).max()),
        "feet_deviation_end": float(np.linalg.norm(feet[-1] - feet_ref, axis=1).max()),
        "speed_end": float(np.abs(res.u[-1]).max()), "wall_time": wall, "steps": len(res.t) - 1,
        "closure": closure, "feet": feet - feet_ref, "motors": res.q[:, motors] - q_ref[motors],
    }
    return res, summary


def ground_forces(m, q_ref, kp=2000.0, kd=50.0, spring_hold=SPRING_HOLD):
    """``force_models`` plus, unless ``spring_hold`` is 0, a PD of ``spring_hold`` [N m/rad]
    (damping 5 N m s/rad) holding the knee and heel leaf-spring hinges at q_ref: with only the
    file's springs (1500 and 1250 N m/rad) the free-standing robot is an inverted pendulum in
    pitch that PD on the motors does not hold (at dt = 1e-4 it falls backwards in about 1.2 s)."""
    forces = force_models(m, q_ref, kp, kd)
    if spring_hold:
        forces += [JointSpringDamper(h, spring_hold, 5.0, q_ref[m.q_slice(h)]) for h in LEAF_SPRINGS]
    return forces


def _grouped_closure(m, Q):
    """(largest loop residual of the knee-spring slider loops, of every other row) over Q."""
    errors = np.array([np.abs(m.pose_error(x, "residual")) for x in Q])
    slider = np.zeros(errors.shape[1], dtype=bool)
    for con in m.enabled_constraints:
        slider[m.compiled.constraint_rows[con]] = getattr(con, "kind", None) == "slider"
    return float(errors[:, slider].max()), float(errors[:, ~slider].max())


def stand_on_ground(m, q0, t_final=2.0, dt=5e-4, kp=2000.0, kd=50.0, spring_hold=SPRING_HOLD):
    """Free-pelvis Cassie (``on_ground``'s model and q0) from rest on the floor under
    ``ground_forces`` (Moreau-Jean time stepping with hard contact, the loops exact); returns
    (result, summary): pelvis height range [m], the total vertical contact force over the
    weight at the end (mean of the last 50 steps and last step), the deepest penetration [m],
    the loops' closure errors [m, rad] and the wall time [s]."""
    forces = ground_forces(m, q0, kp, kd, spring_hold)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JointLimitWarning)  # the foot limits: see the module docstring
        start = time.perf_counter()
        res = mb.simulate(m, q0, np.zeros(m.nu), t_final, dt=dt, forces=forces, limits=False,
                          joint_dynamics=False, contact_output=True)  # (contacts on: integrator "moreau")
        wall = time.perf_counter() - start
    weight = sum(b.mass for b in m.bodies) * float(np.linalg.norm(m.gravity))
    fz = -res.contacts.total_force()[:, 2] / weight  # (the floor is each pair's shape b)
    z = res.q[:, m.q_slice("root_joint").start + 5]
    depth = max(0.0, -min(min(m.contacts(x).distances, default=0.0) for x in res.q[::10]))
    slider, others = _grouped_closure(m, res.q)
    return res, {"pelvis_z_range": float(np.ptp(z)), "pelvis_z_drop": float(z[0] - z[-1]),
                 "force_over_weight_end": float(fz[-1]), "force_over_weight_mean": float(fz[-50:].mean()),
                 "deepest_penetration": depth, "closure_max_slider": slider, "closure_max_others": others,
                 "speed_end": float(np.abs(res.u[-1]).max()), "wall_time": wall, "steps": len(res.t) - 1}


def _report_ground(s, t_final, dt):
    print(f"on the floor, {t_final:g} s at dt = {dt:g} (moreau, hard contact, loops exact): {s['steps']} steps in "
          f"{s['wall_time']:.2f} s")
    print(f"pelvis height range {1e3 * s['pelvis_z_range']:.2f} mm (sag {1e3 * s['pelvis_z_drop']:.2f} mm); "
          f"vertical contact force / weight at the end {s['force_over_weight_end']:.6f}; deepest penetration "
          f"{1e3 * s['deepest_penetration']:.4f} mm")
    print(f"loop closure error [m, rad]: achilles and plantar loops and gearboxes {s['closure_max_others']:.1e}, "
          f"knee-spring slider loops {s['closure_max_slider']:.1e}; largest speed at the end {s['speed_end']:.1e}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-final", type=float, default=2.0)
    ap.add_argument("--dt", type=float, default=None, help="step [s] (default 5e-4 on the floor, 1e-3 fixed)")
    ap.add_argument("--fixed", action="store_true", help="pelvis fixed at its file pose, no floor (RK4)")
    ap.add_argument("--soft-springs", action="store_true", help="on the floor, only the file's leaf springs")
    ap.add_argument("--crouch", type=float, default=0.0, help="start with the hips pitched by this [rad]")
    ap.add_argument("--kp", type=float, default=2000.0, help="PD stiffness on the motor outputs [N m/rad]")
    ap.add_argument("--kd", type=float, default=50.0, help="PD damping [N m s/rad]")
    ap.add_argument("--baumgarte", type=float, nargs=2, default=None, metavar=("KP", "KD"),
                    help="Baumgarte gains [1/s^2, 1/s] (default: simulate's, 100 and 20)")
    ap.add_argument("--diagnose", action="store_true", help="print the model's numbers behind the settings")
    ap.add_argument("--plot", default=None, help="write a PNG plot here")
    args = ap.parse_args(argv)
    if not args.fixed:
        m = load_cassie(floating_base=True)
        q0 = on_ground(m)
        dt = args.dt or 5e-4
        print(f"Cassie on a free pelvis on the floor: nu = {m.nu}, {len(m.enabled_constraints)} constraints, "
              f"{len(m.collision_shapes)} collision shapes")
        res, s = stand_on_ground(m, q0, args.t_final, dt, args.kp, args.kd, 0.0 if args.soft_springs else SPRING_HOLD)
        _report_ground(s, args.t_final, dt)
        return res, s
    args.dt = args.dt or 1e-3
    m = load_cassie()
    q_stand = m.neutral_q()
    print(f"Cassie, pelvis fixed: nq = nu = {m.nu}, {len(m.enabled_constraints)} constraints "
          f"({m.constraint_jacobian(q_stand).shape[0]} rows); standing pose closed to "
          f"{np.abs(m.pose_error(q_stand, 'residual')).max():.1e}")
    if args.diagnose:
        d = diagnose(m, q_stand, args.kp)
        print(f"Gc: {d['rows']} rows, rank {d['rank']}; knee-spring slider loops' second singular value "
              + ", ".join(f"{k} {v:.1e}" for k, v in d["slider_second_singular_value"].items()))
        for side in ("outputs", "rotors"):
            w = d[f"fastest_mode_pd_on_{side}"]
            print(f"PD kp = {args.kp:g} on the {side}: fastest mode {w:,.0f} rad/s, "
                  f"RK4 stable for dt < {2.78 / w:.1e} s")
    q0 = crouched(m, q_stand, args.crouch) if args.crouch else q_stand
    gains = "default" if args.baumgarte is None else tuple(args.baumgarte)
    res, s = stand(m, q0, q_stand, args.t_final, args.dt, args.kp, args.kd, gains)
    print(f"{args.t_final:g} s at dt = {args.dt:g} (RK4, Baumgarte {gains}): {s['steps']} steps in "
          f"{s['wall_time']:.2f} s")
    print(f"loop closure error [m, rad]: {s['closure_max']:.1e} largest, {s['closure_end']:.1e} at the end; "
          f"achilles and plantar loops and gearboxes {s['closure_max_others']:.1e} at most, the knee-spring "
          f"slider loops (their nearly singular rows dropped) {s['closure_max_slider']:.1e}")
    print(f"pose at the end: motors within {s['motor_deviation_end']:.1e} rad of the target, feet within "
          f"{1e3 * s['feet_deviation_end']:.2f} mm; largest speed {s['speed_end']:.1e}")
    made = figure(2, 1, figsize=(7, 5), sharex=True) if args.plot else None
    if made:
        fig, (a, b) = made
        a.plot(res.t, s["motors"])
        a.set_ylabel("motor output - target [rad]")
        b.semilogy(res.t, np.maximum(s["closure"], 1e-16))
        b.set_ylabel("loop closure error [m]")
        b.set_xlabel("t [s]")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print("wrote", args.plot)
    return res, s


if __name__ == "__main__":
    main()
