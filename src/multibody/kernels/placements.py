"""Validity of the link placements a data buffer holds (issue 20, item 4).

The placement rows of link j (W_R, W_P, W_RW, W_PW, W_PR) are written by every kernel's
placement pass, and the inverse mass matrix uses W_RW and W_PW as scratch (each link's
placement in its tree's root frame, ``inverse_mass_steps``). A consumer that takes the
placements a *previous* pass left, instead of computing them, asks this module whether
they are the world placements of its own q: the data says so, not the order of the calls.

* ``W_PLACED`` (1.0 / 0.0) and ``W_PLACED_Q`` (the link's own NQ coordinates) of each link
  row: ``record_placements`` sets them at the end of the kinematics pass
  (``joint_transform.forward_kinematics_pass``), which writes every placement row.
* Any other writer clears ``W_PLACED``: every placement pass starts with ``place_links``,
  which clears it per link (one store per link, in the loop it runs anyway), and the
  inverse mass matrix's root-frame step clears it where it overwrites W_RW/W_PW.
* ``world_placements(mi, mf, ws, q)`` is the consumer's call: the rows as they are when
  every link is recorded at q's entries bit for bit, else the kinematics pass.

A recorded q says which state the rows belong to, so reuse never depends on which pass ran
last (the contact loop ran detection after M^-1 only because a kinematics pass stood
between them; nothing recorded that order).
"""
from numba import njit

from .layout import NQ, QOFF, W_PLACED, W_PLACED_Q

NO_NRT = dict(cache=True, _nrt=False)


@njit(cache=True, inline="always")
def forget_placement(ws, j):
    """Link j's placement rows no longer hold the recorded world placements."""
    ws[j, W_PLACED] = 0.0


@njit(**NO_NRT)
def record_placements(mi, ws, q):
    """Every link's placement rows hold its world placements at q (after the kinematics pass)."""
    for j in range(mi.shape[0]):
        o = mi[j, QOFF]
        for k in range(mi[j, NQ]):
            ws[j, W_PLACED_Q + k] = q[o + k]
        ws[j, W_PLACED] = 1.0


@njit(**NO_NRT)
def placements_at(mi, ws, q):
    """True when every link's placement rows are recorded as its world placements at q
    (the same coordinates bit for bit; a NaN never matches)."""
    for j in range(mi.shape[0]):
        if ws[j, W_PLACED] != 1.0:
            return False
        o = mi[j, QOFF]
        for k in range(mi[j, NQ]):
            if ws[j, W_PLACED_Q + k] != q[o + k]:
                return False
    return True
