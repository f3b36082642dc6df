"""MJCF scenes of issue 21's closed forms, written to a folder and loaded with ``mb.load_mjcf``:
a 10 cm, 1 kg cube on a plane (level or tilted about y), a 10 cm ball over a plane; each
optionally moved by ``shift`` (3,) [m] as a whole."""
import math

import numpy as np

import multibody as mb

G = 9.81
HALF = 0.05            # the cube's half edge [m]
CUBE_I = 1.0 * (2 * (2 * HALF) ** 2) / 12  # [kg m^2]
RADIUS = 0.1           # the ball's radius [m]
BALL_I = 0.4 * 1.0 * RADIUS ** 2


def _xml(floor, body):
    return f"""<mujoco model="scene">
  <option gravity="0 0 -{G}"/>
  <worldbody>
    {floor}
    {body}
  </worldbody>
</mujoco>
"""


def _floor(mu, shift, tilt_deg):
    x, y, z = shift
    return (f'<geom name="floor" type="plane" size="0 0 1" pos="{x!r} {y!r} {z!r}" euler="0 {tilt_deg!r} 0" '
            f'friction="{mu!r}"/>')


def cube_scene(folder, mu, tilt_deg=0.0, shift=(0.0, 0.0, 0.0), name="cube"):
    """(model, q0): the cube resting on the plane (tilted tilt_deg about y; downhill is the
    plane's +x), its faces on the plane's axes; q0 = [quaternion (x, y, z, w); position]."""
    body = (f'<body name="box"><freejoint/><inertial pos="0 0 0" mass="1" '
            f'diaginertia="{CUBE_I!r} {CUBE_I!r} {CUBE_I!r}"/>'
            f'<geom type="box" size="{HALF} {HALF} {HALF}" friction="{mu!r}"/></body>')
    path = folder / f"{name}.xml"
    path.write_text(_xml(_floor(mu, shift, tilt_deg), body))
    m = mb.load_mjcf(path)
    th = math.radians(tilt_deg)
    R = np.array([[math.cos(th), 0, math.sin(th)], [0, 1, 0], [-math.sin(th), 0, math.cos(th)]])
    q0 = np.r_[0.0, math.sin(th / 2), 0.0, math.cos(th / 2), np.asarray(shift, float) + R @ [0, 0, HALF]]
    return m, q0, R


def ball_scene(folder, height, mu=0.5, shift=(0.0, 0.0, 0.0), name="ball"):
    """(model, q0): the ball with its lowest point ``height`` [m] over a level plane."""
    body = (f'<body name="ball"><freejoint/><inertial pos="0 0 0" mass="1" '
            f'diaginertia="{BALL_I!r} {BALL_I!r} {BALL_I!r}"/>'
            f'<geom type="sphere" size="{RADIUS}" friction="{mu!r}"/></body>')
    path = folder / f"{name}.xml"
    path.write_text(_xml(_floor(mu, shift, 0.0), body))
    m = mb.load_mjcf(path)
    q0 = np.r_[0.0, 0.0, 0.0, 1.0, np.asarray(shift, float) + [0, 0, RADIUS + height]]
    return m, q0
