"""A browser 3-D viewer of a model on viser: a configuration, or a replayed simulation.

``view(m, q)`` draws the model at q; ``view(m, result)`` replays ``result.t``,
``result.q`` with a time slider, play/pause and speed controls. The server runs in
background threads: ``view`` returns a ``Viewer`` at once (``block=False``), whose
``close()`` stops it; ``block=True`` waits until Ctrl-C (then closes).
"""
import contextlib
import io
import math
import threading
import time
import warnings

import numpy as np

from ..kernels.collision.layout import SI_LINK
from ._contacts import FORCE_RGB, POINT_RGB, ContactFrames, collision_visuals
from ._geometry import visual_meshes
from ._scene import (GRID_COLOURS, SKELETON_RGB, bounds_camera, poses_of, segment_points, skeleton_frames,
                     skeleton_segments, wxyz_xyz)

__all__ = ["Viewer", "view"]


def _import_viser():
    try:
        import trimesh  # noqa: F401  (meshes and primitives)
        import viser
    except ImportError as e:
        raise ImportError("the viewer needs viser and trimesh: pip install \"multibody[viewer]\" "
                          f"(or pip install viser trimesh); {e}") from None
    return viser


def _drawable_visuals(m, body_names):
    """{body name: its visual meshes} (``visual_meshes``, mesh files read only where the model's
    loader allows: ``m.file_roots``); one warning lists every visual that cannot be drawn (a body
    left without any is drawn as a skeleton)."""
    roots = getattr(m, "file_roots", None)  # None: anywhere
    problems = []
    out = {name: visual_meshes(m.body(name), roots, problems=problems) for name in body_names}
    if problems:
        bare = [n for n, v in out.items() if not v and any(p.startswith(repr(n) + ":") for p in problems)]
        warnings.warn(f"viewer: {len(problems)} visual(s) cannot be drawn and are left out"
                      + (f" ({len(bare)} bodies are drawn as a skeleton instead: {', '.join(bare)})" if bare else "")
                      + ": " + "; ".join(problems), UserWarning, stacklevel=4)
    return out


class Viewer:
    """A running viewer: ``url``, ``server`` (the ``viser.ViserServer``), ``close()``.

    ``set_q(q)`` shows the model at q; with a replay, ``set_time(t)`` shows the sample
    at (or just before) t, ``play()``, ``pause()``, ``speed``; ``index`` is the sample shown.
    """

    def __init__(self, m, q=None, result=None, *, host="127.0.0.1", port=8080, frames=False, nodes=False,
                 com=False, skeleton=None, visuals=True, grid=True, play=True, speed=1.0, loop=True,
                 verbose=True, collisions=None, contacts=True):
        viser = _import_viser()
        self.model = m
        self.body_names = list(m.body_names)
        self.node_names = list(m.node_names) if nodes else []
        self.t = self.q = None
        if result is not None:
            self.t = np.asarray(result.t, dtype=float).ravel()
            self.q = np.asarray(result.q, dtype=float)
            if self.q.ndim != 2 or self.q.shape != (self.t.shape[0], m.nq) or self.t.shape[0] == 0:
                raise ValueError(f"result: t {self.t.shape} and q {self.q.shape} do not fit the model "
                                 f"(nq = {m.nq}) or hold no sample")
            Q = self.q
        else:
            q = m.neutral_q() if q is None else np.asarray(q, dtype=float)
            if q.shape != (m.nq,):
                raise ValueError(f"q must have shape ({m.nq},), got {q.shape}")
            Q = q[None, :]
        # world poses of every body (and node) at every sample, precomputed: (B, 4, 4) each;
        # the nodes a modal body's skeleton line passes through too
        self._pose_names = list(dict.fromkeys(self.body_names + self.node_names + skeleton_frames(m)))
        self._poses = poses_of(m, Q, self._pose_names)
        self._pose_wxyz = {n: wxyz_xyz(P) for n, P in self._poses.items()}
        self._visuals = _drawable_visuals(m, self.body_names) if visuals else {}
        self._add_collision_shapes(collisions)
        self._segments = skeleton_segments(m, skeleton, drawn={n for n, v in self._visuals.items() if v})
        records = getattr(result, "contacts", None) if contacts else None
        shapes = () if m.compiled.contact is None else m.compiled.contact.shape_names
        if records is not None and tuple(records.shape_names) != tuple(shapes):
            raise ValueError(f"result: its contacts are of {len(records.shape_names)} collision shapes that are not "
                             f"the model's ({len(shapes)}): a result of another model?")
        self._camera = bounds_camera(m, self._poses)  # (size, look_at, position, floor): the scene's and the arrows'
        self._contact_frames = None if records is None else ContactFrames(
            records, self.t, self._camera[0], m.compiled.contact.si[:, SI_LINK] < 0)
        self._lock = threading.RLock()
        self._closed = threading.Event()
        self.index = 0
        with contextlib.redirect_stdout(io.StringIO()):  # viser's own banner: we print one line
            self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self.host, self.port = host, self.server.get_port()
        shown = "localhost" if host in ("0.0.0.0", "::", "") else host
        self.url = f"http://{shown}:{self.port}"
        try:
            self._build_scene(frames, com, grid)
            self._show(0)
            if self.t is not None:
                self._build_player(play, speed, loop)
        except BaseException:
            self.server.stop()
            raise
        if verbose:
            print(f"multibody viewer: {self.url}" + (f"  (listening on {host})" if host != "127.0.0.1" else ""),
                  flush=True)

    # ------------------------------------------------------------------ scene
    def _add_collision_shapes(self, which):
        """Draw collision shapes (``collisions``: None, those of the bodies without a drawable
        visual; True, all; False, none) as translucent meshes on their bodies."""
        if which is False:
            return
        if which not in (None, True):
            raise ValueError(f"collisions must be None, True or False, got {which!r}")
        drawn = (lambda name: True) if which else (lambda name: not self._visuals.get(name))
        for name, dicts in collision_visuals(self.model, set(self.body_names), drawn).items():
            self._visuals[name] = list(self._visuals.get(name, [])) + visual_meshes(
                self.model.body(name), visuals=dicts, prefix="collision")

    def _build_contacts(self, size):
        """The replay's contact points and force arrows (hidden where a sample has none)."""
        sc = self.server.scene
        self._contact_points = sc.add_point_cloud("/contacts/points", np.zeros((1, 3), np.float32), POINT_RGB,
                                                  point_size=0.02 * size, point_shape="circle", precision="float32",
                                                  visible=False)
        self._contact_forces = sc.add_line_segments("/contacts/forces", np.zeros((1, 2, 3), np.float32),
                                                    FORCE_RGB, thickness=0.008 * size, visible=False)

    def _show_contacts(self, i):
        pts, arrows = self._contact_frames.points(i), self._contact_frames.arrows(i)
        for h, x, rgb in ((self._contact_points, pts, POINT_RGB), (self._contact_forces, arrows, FORCE_RGB)):
            h.visible = len(x) > 0
            if len(x):
                h.points = x
                h.colors = np.broadcast_to(np.array(rgb, dtype=np.uint8), x.shape).copy()

    def _build_scene(self, frames, com, grid):
        sc = self.server.scene
        sc.set_up_direction("+z")
        self.server.gui.configure_theme(control_width="medium", show_share_button=False, dark_mode=True)
        size, look_at, position, floor = self._camera
        self.size = size
        cam = self.server.initial_camera
        cam.position, cam.look_at = position, look_at
        cam.up = (0.0, 0.0, 1.0)
        if grid:
            cell = 10.0 ** math.floor(math.log10(max(size, 1e-3)))
            sc.add_grid("/grid", width=20 * cell, height=20 * cell, cell_size=cell / 2, section_size=cell,
                        position=(look_at[0], look_at[1], min(0.0, floor)), **GRID_COLOURS)
        self._frames = {}
        axes = 0.15 * size
        for name in self.body_names:
            body = self.model.body(name)
            h = sc.add_frame(f"/robot/{name}", show_axes=bool(frames), axes_length=axes, axes_radius=axes / 20)
            self._frames[name] = h
            for vname, V, F, rgb, opacity, T in self._visuals.get(name, []):
                wxyz, xyz = wxyz_xyz(T[None])
                sc.add_mesh_simple(f"/robot/{name}/{vname}", V, F, color=rgb,
                                   opacity=None if opacity >= 1.0 else opacity,
                                   wxyz=wxyz[0], position=xyz[0])
            if com and body.mass > 0:
                r = 0.03 * size * (body.mass / max(self.model.total_mass, 1e-12)) ** (1 / 3) + 0.01 * size
                sc.add_icosphere(f"/robot/{name}/com", radius=r, color=(220, 40, 40),
                                 position=tuple(np.asarray(body.com, dtype=float)))
        for name in self.node_names:
            self._frames[name] = sc.add_frame(f"/nodes/{name}", axes_length=axes / 2, axes_radius=axes / 40,
                                              origin_color=(40, 160, 220))
        if self._contact_frames is not None:
            self._build_contacts(size)
        self._skeleton = None
        if self._segments:
            pts = segment_points(self._segments, {n: P[0] for n, P in self._poses.items()})
            self._skeleton = sc.add_line_segments("/skeleton", pts, SKELETON_RGB, thickness=0.02 * size)
            for name in {a for a, _, _, _ in self._segments} & set(self.body_names):  # joints, not nodes
                sc.add_icosphere(f"/robot/{name}/joint", radius=0.025 * size, color=(60, 60, 70))

    def _show(self, i):
        """Move every frame to sample i (one atomic update)."""
        with self._lock, self.server.atomic():
            self.index = i
            for name, h in self._frames.items():
                wxyz, xyz = self._pose_wxyz[name]
                h.wxyz, h.position = wxyz[i], xyz[i]
            if self._skeleton is not None:
                self._skeleton.points = segment_points(self._segments, {n: P[i] for n, P in self._poses.items()})
            if self._contact_frames is not None:
                self._show_contacts(i)

    def set_q(self, q):
        """Show the model at configuration q (stops a replay)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.model.nq,):
            raise ValueError(f"q must have shape ({self.model.nq},), got {q.shape}")
        self.pause()
        with self._lock:
            self._poses = poses_of(self.model, q[None], self._pose_names)
            self._pose_wxyz = {n: wxyz_xyz(P) for n, P in self._poses.items()}
            self.t = self.q = None
            self._contact_frames = None  # (a configuration has no run's contacts)
            if hasattr(self, "_contact_points"):
                self._contact_points.visible = self._contact_forces.visible = False
            self._show(0)

    # ------------------------------------------------------------------ replay
    def _build_player(self, play, speed, loop):
        gui = self.server.gui
        t0, t1 = float(self.t[0]), float(self.t[-1])
        step = (t1 - t0) / max(len(self.t) - 1, 1) or 1.0
        self._time = gui.add_slider("time [s]", min=t0, max=max(t1, t0 + step), step=step, initial_value=t0)
        self._play_button = gui.add_button("Play", icon=None)
        self._pause_button = gui.add_button("Pause")
        self._speed = gui.add_slider("speed", min=0.05, max=10.0, step=0.05, initial_value=float(speed))
        self._loop = gui.add_checkbox("loop", initial_value=bool(loop))
        self._playing = threading.Event()
        self._time.on_update(lambda _: self._show(self._index_at(self._time.value)))
        self._play_button.on_click(lambda _: self.play())
        self._pause_button.on_click(lambda _: self.pause())
        self._thread = threading.Thread(target=self._player, name="multibody-viewer-player", daemon=True)
        self._thread.start()
        self.play() if play else self.pause()

    def _index_at(self, t):
        return int(np.clip(np.searchsorted(self.t, t + 1e-12, side="right") - 1, 0, len(self.t) - 1))

    @property
    def speed(self):
        return float(self._speed.value) if self.t is not None else 1.0

    @speed.setter
    def speed(self, v):
        if self.t is not None:
            self._speed.value = float(v)

    def play(self):
        if self.t is None or self._closed.is_set():
            return
        if self.index >= len(self.t) - 1:
            self.set_time(self.t[0])
        self._playing.set()
        self._play_button.visible, self._pause_button.visible = False, True

    def pause(self):
        if self.t is None or not hasattr(self, "_playing"):
            return
        self._playing.clear()
        if not self._closed.is_set():
            self._play_button.visible, self._pause_button.visible = True, False

    def set_time(self, t):
        """Show the replay at time t (clipped to the run); returns the sample index."""
        if self.t is None:
            raise ValueError("set_time needs a replay: view(m, result)")
        i = self._index_at(float(t))
        self._time.value = float(self.t[i])  # its on_update shows the sample
        self._show(i)
        return i

    def _player(self):
        """Advance the slider at ``speed`` x real time while playing, about 30 frames/s."""
        last = time.perf_counter()
        while not self._closed.is_set():
            if not self._playing.wait(0.1):
                last = time.perf_counter()
                continue
            time.sleep(1 / 30)
            now = time.perf_counter()
            t = self.t[self.index] + (now - last) * self.speed
            last = now
            if t > self.t[-1]:
                if self._loop.value:
                    t = self.t[0]
                else:
                    self.set_time(self.t[-1])
                    self.pause()
                    continue
            try:
                self.set_time(t)
            except Exception:  # the server closed under us
                if self._closed.is_set():
                    return
                raise

    # ------------------------------------------------------------------ life
    def wait(self):
        """Block until ``close()`` or Ctrl-C (which closes the viewer)."""
        try:
            while not self._closed.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            self.close()

    def close(self):
        """Stop the player and the server (idempotent)."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self.t is not None and hasattr(self, "_playing"):
            self._playing.clear()
            self._thread.join(timeout=2.0)
        with contextlib.redirect_stdout(io.StringIO()):
            self.server.stop()

    @property
    def closed(self):
        return self._closed.is_set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        what = f"replay of {len(self.t)} samples" if self.t is not None else "one configuration"
        return f"Viewer({self.model.name!r}, {what}, {self.url}{', closed' if self.closed else ''})"


def view(m, q=None, *, port=8080, host="127.0.0.1", block=False, frames=False, nodes=False, com=False,
         skeleton=None, visuals=True, grid=True, play=True, speed=1.0, loop=True, verbose=True, collisions=None,
         contacts=True):
    """Show model ``m`` in a browser (viser): at configuration ``q`` or replaying a result.

    Parameters
    ----------
    m : Multibody
        The model; URDF visuals (meshes through trimesh: STL, OBJ, DAE with pycollada;
        boxes, cylinders, spheres, capsules) are drawn on their bodies.
    q : array (nq,), SimulationResult or None
        A configuration (default: the neutral one), or a result with ``t`` and ``q``
        to replay with a time slider, play/pause and speed controls.
    port, host : the server's address; the URL is printed (``verbose``) and is
        ``Viewer.url``. ``host="0.0.0.0"`` serves other machines (or tunnel the port).
    block : wait until Ctrl-C, then close (the ``multibody view`` command); default:
        return the running ``Viewer`` at once (close it with ``close()``).
    frames, nodes, com : draw body frames, node frames, centres of mass.
    skeleton : lines between body origins (and to twice the centre of mass of a leaf):
        None draws them for the bodies without visuals, True for all, False for none.
    visuals : draw the URDF visuals. grid : a ground grid. play, speed, loop : the replay's start state.
    collisions : draw collision shapes (``m.add_collision``) as translucent meshes: None (default)
        on the bodies without a visual, True on all, False never. Planes are not drawn.
    contacts : replaying a run made with ``simulate(..., contact_output=True)``, draw its contact
        points and force arrows (the force on the second shape of each pair, or on the first
        where the second is scenery fixed in the world; the run's largest is a quarter of the
        scene's size).

    Returns
    -------
    Viewer
        ``url``, ``close()``, ``set_q(q)``, ``set_time(t)``, ``play()``, ``pause()``.
    """
    result = None
    if q is not None and hasattr(q, "t") and hasattr(q, "q"):
        result, q = q, None
    v = Viewer(m, q, result, host=host, port=port, frames=frames, nodes=nodes, com=com, skeleton=skeleton, visuals=visuals,
               grid=grid, play=play, speed=speed, loop=loop, verbose=verbose, collisions=collisions, contacts=contacts)
    if block:
        v.wait()
    return v
