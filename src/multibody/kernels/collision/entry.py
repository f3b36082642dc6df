"""Checked entry of detection at a configuration (issue 21): the link placements at q in a data
buffer's link rows (``joint_transform.world_placements``: those there when recorded as q's),
then ``detect`` (for ``algorithms/contacts.py``; the stepping loop calls
``detect`` itself on placements it has)."""
from numba import njit

from ..common import check_state_modal_ok, data_start, link_rows, model_arrays
from ..joint_transform import world_placements
from ..status import OK
from .detect import detect


@njit(cache=True)
def contacts_at(dbuf, q, si, sf, verts, allow, work, ci, cf, out):
    """Link placements at q (a data buffer's rows, kept when recorded as q's; shapes on a modal body move with its
    body frame), then the contacts into ci, cf: out[0] = ``detect``'s count (negative: more
    contacts than rows). Returns a ``check_state`` status for q."""
    mi, mf = model_arrays(dbuf)
    n = mi.shape[0]
    ws = link_rows(dbuf, data_start(dbuf, n), n)
    st = check_state_modal_ok(mi, q, q, q, -1, -1)
    if st == OK:
        world_placements(mi, mf, ws, q)  # (kept when the data records them as q's: kernels/placements.py)
        out[0] = detect(si, sf, verts, allow, ws, work, ci, cf)
    return st
