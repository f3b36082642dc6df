"""External wrenches at bodies and nodes: checked (``external_wrenches``), then loaded into
a data buffer for one call (rigid links: ``with_external_forces``), or made generalized
forces J^T w (``generalized_external_forces``: models with modal bodies, where a wrench at a
deforming node reaches the body's modal rates)."""
import numpy as np

from ..kernels import layout as L
from .checks import check_vector, frame_row, raise_status, run_kernel


def external_wrenches(c, f_ext):
    """(frame rows (k,) int64, wrenches (k, 6)) of ``f_ext`` {body or node name: wrench (6,)
    [moment; force] about the frame origin, in the frame's axes}, or an error naming the
    argument (KeyError for an unknown name)."""
    if not isinstance(f_ext, dict):
        raise ValueError("f_ext must be a dict {body or node name: wrench (6,) [moment; force] "
                         "about the frame origin, in the frame's axes}")
    rows = np.zeros(len(f_ext), dtype=np.int64)
    wrenches = np.zeros((len(f_ext), 6))
    for i, (name, w) in enumerate(f_ext.items()):
        rows[i] = frame_row(c, name)
        w = np.asarray(w, dtype=float)
        if w.shape != (6,) or not np.all(np.isfinite(w)):
            raise ValueError(f"f_ext[{name!r}] must be a finite (6,) wrench, got {w!r}")
        wrenches[i] = w
    return rows, wrenches


def generalized_external_forces(c, d, q, f_ext):
    """tau_ext (nu,) = sum J_F^T w_F of ``f_ext`` at q, on Data d, by the model's kernel
    ``external_generalized_forces`` (models with modal bodies: kernels/flex_external_forces.py)."""
    q = check_vector(q, c.nq, "q", c)
    rows, wrenches = external_wrenches(c, f_ext)
    tau = np.empty(c.nu)
    st = run_kernel(c, q, c.kernels.external_generalized_forces, d.buf, q, rows, wrenches, tau)
    if st:
        raise_status(c, st, ("q",), (q,))
    return tau


def load_external_forces(c, d, f_ext):
    """Write the wrenches of ``f_ext`` (``external_wrenches``) into Data d's W_FEXT columns
    (link frames). Wrenches on the world do nothing."""
    n = c.n_links
    fext = np.zeros((n, 6))
    rows, wrenches = external_wrenches(c, f_ext)
    for f, w in zip(rows, wrenches):
        link = c.frame_link(f)
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
