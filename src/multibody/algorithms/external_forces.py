"""External wrenches at bodies and nodes, loaded into a data buffer for one call."""
import numpy as np

from ..kernels import layout as L
from .checks import frame_row


def load_external_forces(c, d, f_ext):
    """Write the wrenches of ``f_ext`` into Data d's W_FEXT columns (link frames).

    f_ext: {body or node name: wrench (6,) [moment; force] about the frame origin, in the
    frame's axes}. Wrenches on the world do nothing.
    """
    if not isinstance(f_ext, dict):
        raise ValueError("f_ext must be a dict {body or node name: wrench (6,) [moment; force] "
                         "about the frame origin, in the frame's axes}")
    n = c.n_links
    fext = np.zeros((n, 6))
    for name, w in f_ext.items():
        f = frame_row(c, name)
        link = c.frame_link(f)
        w = np.asarray(w, dtype=float)
        if w.shape != (6,) or not np.all(np.isfinite(w)):
            raise ValueError(f"f_ext[{name!r}] must be a finite (6,) wrench, got {w!r}")
        if link < 0:
            continue
        R = c.fr[f, L.FR_R:L.FR_R + 9].reshape(3, 3)
        p = c.fr[f, L.FR_P:L.FR_P + 3]
        force = R @ w[3:]
        fext[link, :3] += R @ w[:3] + np.cross(p, force)
        fext[link, 3:] += force
    d.ws[:, L.W_FEXT:L.W_FEXT + 6] = fext


def with_external_forces(c, d, f_ext, algorithm, *args):
    """Call ``algorithm(*args)`` (with f_ext=None and data=d among them) with f_ext loaded in Data d."""
    load_external_forces(c, d, f_ext)
    d.flags[L.D_USE_FEXT] = 1.0
    try:
        return algorithm(*args)
    finally:
        d.flags[L.D_USE_FEXT] = 0.0
