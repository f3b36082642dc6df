"""The compiled model (immutable constants) and its data objects (per-call state).

``CompiledModel`` wraps the model buffer built by ``compile_model`` (see
``kernels.layout``) with the Python-side tables that name its rows. ``Data`` holds a
data buffer: chart offsets, external forces and everything the kernels write. One
compiled model serves any number of Data objects; the facade keeps one per thread
(``thread_data``), so calls from several threads on one model never share memory.
"""
import threading
import weakref

import numpy as np

from ..kernels import flex_layout as FL
from ..kernels import layout as L
from ..kernels.flex_views import data_views
from ..kernels.joint_transform import pin_variant
from ..kernels.work_shapes import compliance_work_shape, minv_work_shape
from .flex_compile import FlexModel

_IDENTITY_QUATERNION = (0.0, 0.0, 0.0, 1.0)

#: The facade's kernel namespaces a CompiledModel takes as ``kernels``: "general" (every
#: model), "pins" (models of PIN links only) and "flex" (models with modal bodies). The
#: algorithms layer registers them when it is imported (``algorithms.entry``, through
#: ``register_kernels``): the model layer compiles and calls no kernel, and imports nothing
#: above it.
_KERNEL_NAMESPACES = {}


def register_kernels(general, pins, flex):
    """Make ``general`` the ``kernels`` of the compiled models made from now on, ``pins`` that
    of those whose links are all PIN (``pin_variant``) and ``flex`` that of those with modal
    bodies."""
    _KERNEL_NAMESPACES.update(general=general, pins=pins, flex=flex)


def kernel_namespace(all_pins, modal=False):
    """The registered kernel namespace for a model (``all_pins``: every link a PIN;
    ``modal``: it has modal bodies)."""
    try:
        return _KERNEL_NAMESPACES["flex" if modal else "pins" if all_pins else "general"]
    except KeyError:
        raise RuntimeError("no kernels registered: import multibody (its algorithms register "
                           "them)") from None


class Data:
    """Per-call state of one compiled model: create with ``m.create_data()``.

    ``buf`` is the data buffer (``kernels.layout``): a copy of the model rows (kept in
    step by the model, read-only here; it lets an entry kernel take one buffer), then
    ``flags``, one row per link ``ws`` (chart offsets, external forces, placements,
    velocities, articulated inertias ...) and the ragged blocks ``z`` (U, G, D^-1,
    residuals), and for a model with modal bodies the flex work region, whose views
    ``flex_work`` holds (``kernels/flex_views.FlexArrays``). ``minv_work`` (the inverse mass matrix's, O(N): one block of columns) and
    ``dense_scratch(key, shape)`` (the operational-space compliance's, more than O(N)) lend
    reusable work arrays, made on first use. A Data object must not be used by two threads
    at once; the model it belongs to is ``model``.
    """

    def __init__(self, model):
        self.model = model
        self.buf = np.zeros((model.data_rows, L.DATA_COLS))
        n = model.n_links
        d0 = model.buf.shape[0]
        self.buf[:d0] = model.buf
        self.flags = self.buf[d0]
        self.ws = self.buf[d0 + 1:d0 + 1 + n]
        self.z = self.buf[d0 + 1 + n:].reshape(-1)
        for j, s in enumerate(model.link_subhinges):
            self.ws[j, L.W_CHART:L.W_CHART + 4] = s.chart_offset if s.kind_info.chart else _IDENTITY_QUATERNION
        self._scratch = {}
        self.minv_work = None  # the inverse mass matrix's (n, 6 min(nu, 64)) work array, made on first use
        self.constraint_work = None  # constrained dynamics' (nc, ...) work array, made on first use
        # modal bodies: the views of the flex work region (made once: the buffer stays)
        self.flex_work = None if model.flex is None else data_views(self.buf)

    @property
    def chart_offsets(self):
        """(n_links, 4) view of the chart offset quaternions (x, y, z, w), one row per link."""
        return self.ws[:, L.W_CHART:L.W_CHART + 4]

    def dense_scratch(self, key, shape):
        """A float64 C-contiguous work array of ``shape``, kept for the next call with ``key``."""
        a = self._scratch.get(key)
        if a is None or a.shape != shape:
            a = self._scratch[key] = np.zeros(shape)
        return a

    def __repr__(self):
        return f"Data(links={self.model.n_links}, nq={self.model.nq}, nu={self.model.nu})"


class BatchData:
    """Per-call state of a batched call: ``workers`` data buffers stacked in ``buf``
    (workers, rows, cols), one per parallel worker, each laid out as a Data's."""

    def __init__(self, model, workers):
        self.model = model
        self.workers = workers
        one = Data(model)
        self.buf = np.repeat(one.buf[None], workers, axis=0)
        d0 = model.buf.shape[0]
        self.chart_offsets = self.buf[:, d0 + 1:d0 + 1 + model.n_links, L.W_CHART:L.W_CHART + 4]
        self.minv_work = None  # (workers, n, 6 min(nu, 64)), made on first use


class CompiledModel:
    """Constants of a compiled Multibody (built by ``compile_model``; treat as read-only).

    ``buf`` is the model buffer and ``mi``, ``mf``, ``fr`` its views (``kernels.layout``);
    ``n_links``, ``nq``, ``nu``, ``zsize``; ``link_subhinges`` (the subhinge object of
    each link); ``body_link`` and ``T_link_body`` (per body name: link index, -1 for the
    world, and the fixed 4x4 pose of the body frame in that link frame); ``frames``
    (body, node or hinge name -> row of the frame table); ``hinge_order``, ``q_slices``,
    ``u_slices`` (per hinge name); ``max_chart_angles`` (per link).
    ``thread_local.data`` / ``thread_local.buf`` are the calling thread's default Data
    and its buffer, once ``thread_data()`` has made them. ``all_pins``: every link is a
    PIN (``kernels.joint_transform.pin_variant``), and ``kernels`` the facade's kernels for
    this model (those registered by ``algorithms.entry``: their PIN-only variants then).
    ``contact``: the collision shapes' constants (``model/collision_compile.ContactModel``),
    None when the model has none.
    """

    def __init__(self, buf, link_subhinges, body_link, T_link_body, frame_rows, hinge_order, q_slices, u_slices):
        self.flex = None  # the flex constants' views (model/flex_compile.FlexModel) when there are modal bodies
        self.contact = None  # the contact constants (model/collision_compile.ContactModel) when there are shapes
        self._set_buffer(buf)
        self.constraints = []
        self.constraint_rows = {}
        self.constraint_errors = {}
        self.shape_M = (self.nu, self.nu)
        self.link_subhinges = link_subhinges
        self.body_link = body_link
        self.T_link_body = T_link_body
        self.frame_rows = frame_rows
        self.frames = {name: self.frame_in_link(f) for name, f in frame_rows.items()}
        self.hinge_order = hinge_order
        self.q_slices = q_slices
        self.u_slices = u_slices
        self.max_chart_angles = np.array(
            [s.max_chart_angle if s.kind_info.chart else np.inf for s in link_subhinges], dtype=float)
        self.thread_local = threading.local()
        self._data = weakref.WeakSet()
        self.modal_slices = {}  # modal body name -> (q slice, u slice) of its eta
        self.all_pins = pin_variant(self.mi)  # every link a PIN: the PIN-only kernel variants serve it
        self.kernels = kernel_namespace(self.all_pins)  # the facade's kernels for it
        self.minv_work_shape = minv_work_shape(buf)  # the work array its M^-1 kernel takes (set_flex: the flex one's)

    def _set_buffer(self, buf):
        """Take ``buf`` as the model buffer: its views and sizes (``kernels.layout``)."""
        self.buf = buf
        n = self.n_links = int(buf[0, L.H_NLINKS])
        self.nq = int(buf[0, L.H_NQ])
        self.nu = int(buf[0, L.H_NU])
        self.zsize = int(buf[0, L.H_ZSIZE])
        self.mi = buf[1:1 + n].view(np.int64)
        self.mf = buf[1 + n:2 + 2 * n]
        nf = int(buf[0, L.H_NFRAMES])
        self.nc = int(buf[0, L.H_NCONSTRAINTS])
        self.fr = buf[2 + 2 * n:2 + 2 * n + nf]
        self.cr = buf[2 + 2 * n + nf:2 + 2 * n + nf + self.nc]
        zrows = -(-self.zsize // L.DATA_COLS)
        self.data_rows = buf.shape[0] + 1 + n + zrows  # a Data's: model rows, flags, ws, z
        if buf[0, L.H_FLEX_WORK]:  # and the flex work region
            self.data_rows = int(buf[0, L.H_FLEX_WORK]) + -(-int(buf[0, FL.FH_WEND]) // L.DATA_COLS)

    def set_flex(self, block):
        """Add the flex tables (fi, rows, addresses) of ``model/flex_compile.compile_flex`` to
        the model buffer (fi's flex columns into the mi rows, the flex block after the cr rows;
        before any Data is made) and take the flex kernels."""
        fi, rows, addresses = block
        buf = np.vstack([self.buf, rows])
        buf[1:1 + self.n_links].view(np.int64)[:, L.MI_COLS:FL.FI_COLS] = fi[:, L.MI_COLS:]
        buf[0, L.H_FLEX_ROWS] = rows.shape[0]
        for col, value in addresses.items():
            buf[0, col] = value
        buf[0, L.H_FLEX_WORK] = buf.shape[0] + 1 + self.n_links + -(-self.zsize // L.DATA_COLS)
        self._set_buffer(buf)
        self.flex = FlexModel(buf)
        self.kernels = kernel_namespace(self.all_pins, modal=True)
        self.minv_work_shape = minv_work_shape(buf)

    def compliance_work_shape(self, k):
        """The shape of the work array the operational-space compliance kernel (``kernels``')
        takes for k frames (``kernels/work_shapes.py``)."""
        return compliance_work_shape(self.buf, k)

    def set_constraints(self, constraints, rows):
        """Write the enabled ``constraints`` (in row order) and their cr ``rows`` (nc, CR_COLS);
        ``constraint_rows`` / ``constraint_errors`` map each to its slice of the residual
        vector and of the error vector (6 per hinge loop)."""
        self.cr[:, :rows.shape[1]] = rows
        self.constraints = list(constraints)
        r = e = 0
        for c in self.constraints:
            self.constraint_rows[c] = slice(r, r + c.n_rows)
            self.constraint_errors[c] = slice(e, e + c.n_error)
            r += c.n_rows
            e += c.n_error
        self.n_errors = e

    def create_data(self):
        """A new Data object for this model."""
        d = Data(self)
        self._data.add(d)
        return d

    def batch_data(self, workers):
        """The calling thread's BatchData with ``workers`` data buffers (made on first use)."""
        local = self.thread_local
        b = getattr(local, "batch", None)
        if b is None or b.workers != workers:
            b = local.batch = BatchData(self, workers)
            self._data.add(b)
        return b

    def set_gravity(self, g):
        """Write gravity (3,) [m/s^2] into the constants and into every Data's copy of them."""
        row = 1 + 2 * self.n_links  # mf's model-wide row (row n of mf)
        for buf in [self.buf] + [d.buf for d in list(self._data)]:
            buf[..., row, L.GRAVITY:L.GRAVITY + 3] = g  # a batch's buffers are stacked (T, rows, cols)

    def thread_data(self):
        """The calling thread's default Data (made on first use)."""
        local = self.thread_local
        try:
            return local.data
        except AttributeError:
            local.data = self.create_data()
            local.buf = local.data.buf
            return local.data

    def frame_link(self, f):
        """Link index of frame row f (-1: the world)."""
        return int(self.fr[f, L.FR_LINK])

    def frame_in_link(self, f):
        """(link, T_link_frame (4, 4)) of frame row f: the link it is fixed on and its pose there."""
        T = np.eye(4)
        T[:3, :3] = self.fr[f, L.FR_R:L.FR_R + 9].reshape(3, 3)
        T[:3, 3] = self.fr[f, L.FR_P:L.FR_P + 3]
        return self.frame_link(f), T
