"""Columns of the flex link table ``fi`` (model/flex_compile.py) read by the flex kernels:
the columns of ``mi`` after the rigid ones (``fi`` is ``mi``, the same int64 view of the
link rows; zero for a model without modal bodies).

Generalized blocks: link k has nb = 6 + NM entries ([V; eta'] of its body frame, NM = 0
for a rigid link) and NUALL = NU + NM speeds (its hinge's, then its body's modal rates).

Constants and work: the undeformed mass block M0 (fmass at CADR), the integrals (fm1
at M1ADR, fm2 at M2ADR) and the modal stiffness and damping matrices (at STIFF and DAMP:
symmetric NM x NM blocks, diagonal where they were given per mode) are read-only and stored
once per distinct block, so links whose bodies come from the same modal data share them
(model/shared_arrays.py); the state's
M(eta) is per link, written into the work array M at MADR (kernels/flex_body_inertia.py),
and every other kernel reads the mass blocks there.

Where they live (MuJoCo's *_adr style, kernels/layout.py): ``fi``'s columns in the mi rows;
the flat constants ``fc`` (float64) in the model buffer's flex block after the cr rows; a data buffer's flex work region ``fw`` (flat, after z, at the
header's H_FLEX_WORK row). The header's FH_* columns hold each piece's start in ``fc`` or
``fw`` (the next column its end), so one small inline helper (kernels/flex_views.py) cuts
every view a kernel takes from a buffer: the flex kernels take the rigid ones' arguments.
The constrained dynamics' tables live there too: its int table ``ti`` (the model's
constraint frames and rows, a constant) and its flat work (per Data), sized when the model
is compiled (kernels/flex_constrained.py ``tables``).
"""
from .layout import H_FLEX_ADR, MI_COLS

# header columns: starts of the constants' pieces in fc, then their end
FH_MASS = H_FLEX_ADR      # the undeformed mass blocks M0 (fmass)
FH_M1 = H_FLEX_ADR + 1    # first-order integrals (fm1)
FH_M2 = H_FLEX_ADR + 2    # second-order integrals (fm2)
FH_NODE = H_FLEX_ADR + 3  # node records (fnode)
FH_STIFF = H_FLEX_ADR + 4  # modal stiffness matrices K
FH_DAMP = H_FLEX_ADR + 5  # modal damping matrices C
FH_FRAME_NODE = H_FLEX_ADR + 6  # per frame row its fnode record (-1: rigid), int64 bits
FH_CON_TABLE = H_FLEX_ADR + 7  # the constraint kernels' int table ti (flex_constrained.tables), int64 bits
FH_CEND = H_FLEX_ADR + 8
# header columns: starts of the work pieces in fw, then their end
FH_M = H_FLEX_ADR + 9       # the state's mass blocks M_k(eta) at MADR, then the shared scratch at SCR
FH_V = H_FLEX_ADR + 10      # [V; eta'] per link at VOFF
FH_A = H_FLEX_ADR + 11      # accelerations at VOFF
FH_F = H_FLEX_ADR + 12      # forces at VOFF
FH_ABIAS = H_FLEX_ADR + 13  # velocity-product accelerations at VOFF
FH_P = H_FLEX_ADR + 14      # articulated / composite inertias at PADR
FH_PHI = H_FLEX_ADR + 15    # Phi^T at PHI
FH_G = H_FLEX_ADR + 16      # G at GADR
FH_DINV = H_FLEX_ADR + 17   # D^-1 at DADR
FH_EPS = H_FLEX_ADR + 18    # eps / nu at EADR
FH_POSE = H_FLEX_ADR + 19   # (n, POSE_COLS) world poses
FH_VN = H_FLEX_ADR + 20     # (n, 6) the parent nodes' velocities
FH_SCRATCH = H_FLEX_ADR + 21  # two (nb x NUALL) column blocks
FH_ZERO = H_FLEX_ADR + 22   # nu zeros (the kernels' u = 0; never written)
FH_CON_WORK = H_FLEX_ADR + 23  # the constraint kernels' flat work (flex_constrained.tables' pieces)
FH_WEND = H_FLEX_ADR + 24
FH_COLS = H_FLEX_ADR + 25
NB = MI_COLS + 0      # 6 + NM
NM = MI_COLS + 1      # modes of the link's body (0: rigid)
NUALL = MI_COLS + 2   # the link's hinge speeds plus its body's modal rates
NODE = MI_COLS + 3    # fnode address of the parent body's deforming node this link hangs from, -1: none
QM = MI_COLS + 4      # q address of the body's eta
UM = MI_COLS + 5      # u address of the body's eta'
VOFF = MI_COLS + 6    # address of the link's nb-vectors (V, A, F, abias)
MADR = MI_COLS + 7    # work M address of the link's (nb x nb) mass matrix M(eta), link frame, row-major
PADR = MI_COLS + 8    # address of the (nb x nb) articulated / composite inertia P (the forward dynamics: P+[:6, :6])
PHI = MI_COLS + 9     # address of Phi^T (6 x nb_parent): parent [V; eta'] -> this link's rigid V
GADR = MI_COLS + 10   # address of G = P H^T D^-1 (nb x NUALL; the forward dynamics: its rows 0-5)
DADR = MI_COLS + 11   # address of D^-1 (NUALL x NUALL)
EADR = MI_COLS + 12   # address of NUALL numbers: the forward dynamics' nu = D^-1 eps
M1ADR = MI_COLS + 13  # fm1 address of the first-order integrals (NM x 6 x nb): dM/deta_i's rigid rows (shared)
M2ADR = MI_COLS + 14  # fm2 address of the second-order integrals (below), -1: zero (shared)
CADR = MI_COLS + 15   # fmass address of the undeformed mass block M0 (nb x nb), link frame, row-major (shared)
M2FULL = MI_COLS + 16  # 1: M2 has modal rows (geometric stiffening), 0: its rigid block only
SCR = MI_COLS + 17    # work M address of the scratch all links share, after the mass blocks (below)
STIFF = MI_COLS + 18  # stiffness-table address of the body's modal stiffness K (NM x NM, row-major; shared)
DAMP = MI_COLS + 19   # damping-table address of the body's modal damping C (NM x NM, row-major; shared)
FI_COLS = MI_COLS + 20
# M2 at M2ADR (model/flex_compile.second_order_rows): the pairs j <= m (j outer, M2[m, j] =
# M2[j, m]), each M2[j, m] (nb x nb) row-major, or with M2FULL 0 its rows 0-5 only (6 x nb,
# zero past column 6). Whole rows make M(eta)'s sum one contiguous (vectorized) run per pair,
# 3x faster than the 106 numbers of its symmetric half in short row segments.
# the shared scratch at SCR, in blocks of the link's nb^2 numbers (SCR_BLOCKS of the largest
# nb are allocated): the forward dynamics' M_k(eta), P_k, D^-1 and G, and bias_force's
# weighted M2 sum W and outer product v v^T. Kept in cache from link to link, so that only
# what the next pass reads is written per link.
SCR_M = 0
SCR_P = 1
SCR_D = 2
SCR_G = 3
SCR_W = 4
SCR_O = 5
SCR_BLOCKS = 6
# an fnode record: R0 (9, the node's undeformed rotation in the link frame), p0 (3), then
# Pi (6 x NM of its body, row-major): [rotation; translation] per unit eta, link axes
N_R0 = 0
N_P0 = 9
N_PI = 12
# a row of the work array ``pose`` (one per link, flex_kinematics): the link's world rotation
# (row-major), its world origin, and its origin relative to its tree's root origin (world
# axes; summed from the root, so exact however far the tree is from the world origin)
POSE_R = 0
POSE_P = 9
POSE_PT = 12
POSE_COLS = 15
