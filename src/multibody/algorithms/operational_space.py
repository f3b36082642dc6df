"""Operational-space compliance Upsilon = J M^-1 J^T at a set of frames, O(N) by recursion."""
import numpy as np

from .checks import as_float_vector, check_result, data_object, frame_rows, raise_status, run_kernel


def operational_space_compliance(m, q, frames, data=None):
    """Upsilon (6k, 6k) = J M(q)^-1 J^T for k named bodies or nodes, without forming M^-1.

    J stacks the frames' body Jacobians (``body_jacobian(q, f, "body")``: [w; v] of each
    frame in its own axes), so block (a, b) maps a wrench [moment; force] applied at frame
    b (its axes) to the spatial acceleration it causes at frame a (its axes). It is the
    building block of tree-augmented constrained dynamics. Computed by the
    operational-space recursion of the spatial-operator literature on the articulated
    inertias of forward dynamics (see ``kernels/operational_space.py``).
    ``frames``: a name or a sequence of names; ``data`` as in ``forward_dynamics``.
    With modal bodies, a node's Jacobian includes its body's modal columns (it moves with
    its mode shapes); see ``kernels/flex_operational_space.py``.
    """
    c = m.compiled
    d = data_object(c, data)
    dbuf = d.buf
    rows = frame_rows(c, frames)
    k = rows.size
    W = d.dense_scratch(("operational_space", k), c.compliance_work_shape(k))
    out = np.empty((6 * k, 6 * k))
    kernel = c.kernels.operational_space_compliance  # (modal bodies: their own recursion, nodes included)
    try:
        st = run_kernel(c, q, kernel, dbuf, q, rows, W, out)
    except TypeError:
        q = as_float_vector(q, "q")
        st = run_kernel(c, q, kernel, dbuf, q, rows, W, out)
    if st:
        raise_status(c, st, ("q",), (q,))
    return check_result(c, out, ("q",), (q,))  # (kernels/operational_space.py has no result check yet)
