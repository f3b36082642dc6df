"""Placement of each link in its parent link frame, and world placements.

For link j, the joint o-frame sits at (R_TREE, P_TREE) in the parent link frame
and the subhinge moves the link frame relative to the o-frame by (R_J(q), p_J(q)).
The link's placement in its parent is their composition:
R = R_tree R_J, p = p_tree + R_tree p_J. (R_J, p_J) is each kind's (``joints/``, through
``joints.dispatch.joint_rotation_translation``), PIN's short path ``joints.pin.link_placement``.
"""
from numba import njit

from .variants import variant
from .joints import pin
from .joints.dispatch import joint_rotation_translation
from .layout import BODY_NU, KIND, P_TREE, PARENT, PIN, R_TREE, W_P, W_PR, W_PW, W_R, W_RW
from .placements import forget_placement, placements_at, record_placements
from .spatial_inline import load9, mul33, mul33_vec, store9


@njit(cache=True, _nrt=False)
def general_link_placement(mi, mf, ws, q, j):
    """(R, p) of link j, of any kind, in its parent link frame: R = R_tree R_J, p = p_tree +
    R_tree p_J (PIN's short path is ``joints.pin.link_placement``). One compiled function for
    ``place_links`` and M^-1's root frames (``inverse_mass_steps.root_frames``)."""
    RT = load9(mf, j, R_TREE)
    RJ, pJ = joint_rotation_translation(mi, mf, ws, q, j)
    t = mul33_vec(RT, pJ[0], pJ[1], pJ[2])
    return mul33(RT, RJ), (mf[j, P_TREE] + t[0], mf[j, P_TREE + 1] + t[1], mf[j, P_TREE + 2] + t[2])


def _make_place_links(general):
    """``place_links`` for models with links of any kind (``general``) or with PIN links
    only (the general placement code is pruned before typing, so it is not compiled into
    the kernels of such models: see ``pin_variant``)."""

    @variant("place_links" if general else "place_pin_links", _nrt=False)
    def place_links(mi, mf, ws, q):
        """Write R_parent_link (W_R) and p_parent_link (W_P) of every link into ws.

        Placements depend only on q, so they are computed in a pass of their own
        before the recursions: the recursions' loops then hold only inlined code.
        (A call that is not inlined inside a hot loop, even one never taken, made
        those loops several times slower, bench/README.md: Numba kept array reference
        counts around calls.)
        PIN links, the common case, come first in a compact loop. Every link's placement
        rows stop being the recorded world placements (``placements.forget_placement``).
        """
        others = False
        for j in range(mi.shape[0]):
            forget_placement(ws, j)
            if mi[j, KIND] == PIN:
                pin.link_placement(mi, mf, ws, q, j)
            else:
                others = True
        if general and others:  # (general: a constant of the variant, pruned before typing)
            for j in range(mi.shape[0]):
                if mi[j, KIND] != PIN:
                    R, p = general_link_placement(mi, mf, ws, q, j)
                    store9(ws, j, W_R, R)
                    ws[j, W_P] = p[0]
                    ws[j, W_P + 1] = p[1]
                    ws[j, W_P + 2] = p[2]

    return place_links


place_links = _make_place_links(True)
place_pin_links = _make_place_links(False)  # PIN links only (``pin_variant``)


def pin_variant(mi):
    """True when every link of the model rows ``mi`` is a PIN without coordinates of its own
    body (no modal body): its kernels may take the PIN-only variants (``place_pin_links``,
    ``aba_pin_core``, ...), which compute the same numbers without compiling the code
    of the other kinds (seconds of a cold start)."""
    return bool(mi.shape[0] > 0 and (mi[:, KIND] == PIN).all() and not mi[:, BODY_NU].any())


@njit(cache=True, inline="always")
def world_placement(mi, ws, j):
    """World rotation (W_RW) and origin (W_PW) of link j from its parent's and W_R/W_P, and
    its origin relative to its tree's root link origin (W_PR, world axes: 0 for a root)."""
    p = mi[j, PARENT]
    if p < 0:
        for k in range(9):
            ws[j, W_RW + k] = ws[j, W_R + k]
        for k in range(3):
            ws[j, W_PW + k] = ws[j, W_P + k]
            ws[j, W_PR + k] = 0.0
        return
    Rp = load9(ws, p, W_RW)
    store9(ws, j, W_RW, mul33(Rp, load9(ws, j, W_R)))
    t = mul33_vec(Rp, ws[j, W_P], ws[j, W_P + 1], ws[j, W_P + 2])
    for k in range(3):
        ws[j, W_PW + k] = ws[p, W_PW + k] + t[k]
        ws[j, W_PR + k] = ws[p, W_PR + k] + t[k]


@njit(cache=True, inline="always")
def tree_root(mi, j):
    """The root link of link j's tree (j itself for a root; -1 for the world)."""
    while j >= 0 and mi[j, PARENT] >= 0:
        j = mi[j, PARENT]
    return j


def _make_forward_kinematics_pass(general):
    @variant("forward_kinematics_pass" if general else "forward_kinematics_pin_pass")
    def forward_kinematics_pass(mi, mf, ws, q):
        """Placements of every link in its parent (W_R, W_P) and in the world (W_RW, W_PW,
        W_PR), recorded as q's (``placements.record_placements``)."""
        if general:  # (a constant of the variant)
            place_links(mi, mf, ws, q)
        else:
            place_pin_links(mi, mf, ws, q)
        for j in range(mi.shape[0]):
            world_placement(mi, ws, j)
        record_placements(mi, ws, q)

    return forward_kinematics_pass


forward_kinematics_pass = _make_forward_kinematics_pass(True)
forward_kinematics_pin_pass = _make_forward_kinematics_pass(False)  # PIN links only (``pin_variant``)


@njit(cache=True, _nrt=False)
def world_placements(mi, mf, ws, q):
    """The placement rows of every link at q, for a consumer that reads them (W_RW, W_PW,
    W_PR): kept when the data records them as q's (``placements.placements_at``), else made
    by the kinematics pass. Whatever ran before (M^-1 uses W_RW/W_PW as scratch, every
    other pass places the links at its own q), the rows are then q's world placements."""
    if not placements_at(mi, ws, q):
        forward_kinematics_pass(mi, mf, ws, q)
