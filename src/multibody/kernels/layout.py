"""Layout of the compiled model buffer and of a data buffer (named rows and columns).

Two buffers, after Pinocchio's Model/Data and MuJoCo's mjModel/mjData:

* the **model buffer** holds constants (topology, kinds, offsets, fixed
  transforms, inertias, frames). Kernels never write it; only the model's parameter
  setters (gravity) do.
* a **data buffer** ``dbuf`` holds everything a call writes: per-call inputs that are
  not arguments (external forces), state that goes with q (rotation-vector chart
  offsets) and the results of the passes (placements, velocities, articulated
  inertias, D^-1, G ...). One model serves any number of data buffers, one per thread
  or per state, so concurrent calls on one model do not share memory.

Both are 2-D float64 arrays of the same width, split into row blocks by ``model_arrays``,
``frame_table``, ``link_rows`` and ``ragged`` (kernels/common.py). A data buffer begins
with a copy of the model rows (the model owns them and keeps every copy in step: only
its gravity setter writes them), so an entry kernel takes a single buffer: every array
argument costs Numba's dispatcher time (bench/README.md). The algorithm cores take the views.

Model buffer rows (n links, nf frames; a *link* is the frame a moving subhinge moves,
in topological depth-first order, so link j's subtree is the range [j, SUBTREE_END)):

    row 0                 header (H_*)
    rows [1, 1+n)         ``mi``: int64 view, one row per link (PARENT ... RES_ADR)
    rows [1+n, 2+2n)      ``mf``: one row per link (R_TREE ... RB_I); row n is model-wide
    rows [2+2n, 2+2n+nf)  ``fr``: one row per frame (bodies and nodes: FR_*)
    rows [.., +nc)        ``cr``: one row per scalar constraint residual row (CR_*), the
                          enabled constraints' rows in the order of seed 000 (hinge loops,
                          convel, coordinate); see model/constraints.py
    rows after            the flex block (H_FLEX_ROWS rows, none without modal bodies):
                          the flat flex constants ``fc`` (mass blocks, integrals, node
                          records, K, C, the frames' node records) at the header's FH_*;
                          the flex link table ``fi`` is mi's columns after MI_COLS
                          (flex_layout.py)

Data buffer rows (d0 = the number of model rows, 2 + 2n + nf + nc + H_FLEX_ROWS):

    rows [0, d0)          a copy of the model buffer
    row d0                flags (D_*)
    rows [d0+1, d0+1+n)   ``ws``: one row per link (W_*)
    rows [d0+1+n, ...)    ``z``: a flat (1-D) region for blocks whose size depends on the
                          link's number of speeds, addressed by the mi columns U_ADR,
                          G_ADR, DINV_ADR, RES_ADR (MuJoCo's *_adr style)
    rows [H_FLEX_WORK, ..) models with modal bodies: the flat flex work region ``fw`` (the
                          state's mass blocks M(eta), V, A, F, abias, P, Phi, G, D^-1, eps,
                          pose, VN, scratch, a zero vector) at the header's FH_* addresses
                          (kernels/flex_layout.py, views by kernels/flex_views.py)

Tree coordinates (W_PR; the CRBA's W_SW, W_Y, the compliance, the constraint rows, Gamma
and TA, which sum over links without per-link transforms): world axes, with the origin of
the link's tree's root link (the link whose parent is the world) as reference point. About
the world origin the same quantities grow with the tree's distance from it and cancel when
combined (moments of 1 kg at 1e11 m lose every digit of a 1 m arm); about the root's origin
they are as large as the tree, so M, Upsilon and Gamma do not depend on where the model
sits. Trees share no spatial quantity (no link of one is an ancestor of a link of another),
so each has its own reference point.

Limits of this layout (stated, not hidden): a subhinge moves at most 6 dof, so the
motion subspace S (6 x NU) fits in 36 columns of mf; the variable-size blocks (U, G,
D^-1, residuals) are already ragged, so a link may own any number of speeds; a body's
own coordinates (modal coordinates, BODY_NU) will be the tail of its link's u slice,
and its (6 + n_modes) blocks go in the ragged regions. Kernels today assume
BODY_NU = 0. Names are module-level integers so Numba folds them into constants.
"""
from .kinds import FREE, FREE_QUAT, LOCKED, PIN, SCREW, SLIDER, SPHERICAL, SPHERICAL_QUAT, TRANSLATIONAL  # noqa: F401

# ---------------------------------------------------------------- model buffer
# header row (row 0)
H_NLINKS = 0        # number of links n
H_NFRAMES = 1       # number of frame rows nf
H_NCONSTRAINTS = 2  # number of constraint residual rows (cr rows)
H_NQ = 3
H_NU = 4
H_ZSIZE = 5         # size of a data buffer's flat region z
H_FLEX_ROWS = 6     # rows of the flex block after cr (kernels/flex_layout.py; 0: no modal body)
H_FLEX_WORK = 7     # first row of a data buffer's flex work region, after z (0: no modal body)
H_FLEX_ADR = 8      # the flex addresses begin here (flex_layout.FH_*: pieces of the flex
                    # constants and of the flex work, MuJoCo's *_adr style)
H_COLS = 40         # (flex_layout.FH_COLS <= H_COLS)

# mi columns (int64)
PARENT = 0       # parent link index, -1 for the world
KIND = 1         # subhinge kind code (kernels/kinds.py)
QOFF = 2         # offset of the link's coordinates in q (its q address)
UOFF = 3         # offset of the link's speeds in u (its u address)
NQ = 4           # number of coordinates of the link
NU = 5           # number of speeds of the link's subhinge (its body's own follow, BODY_NU)
DEPTH = 6        # number of ancestors
SUBTREE_END = 7  # links j .. SUBTREE_END-1 form the subtree of j (depth-first order)
U_ADR = 8        # z address of U = IA S (6 x NU, column-major)
G_ADR = 9        # z address of G = U D^-1 (6 x NU, column-major)
DINV_ADR = 10    # z address of D^-1 (NU x NU, row-major)
RES_ADR = 11     # z address of the residual force tau - S^T p (NU)
BODY_NU = 12     # coordinates (= speeds) of the link's body itself: a modal body's eta, at
                 # q[QOFF+NQ:], u[UOFF+NU:]; the rigid kernels return MODAL when any is > 0
MI_COLS = 13     # the flex link table's columns follow (flex_layout.NB .. FI_COLS)

# mf columns (rows 0..n-1)
R_TREE = 0     # 9, row-major rotation of the joint o-frame in the parent link frame
P_TREE = 9     # 3, origin of the joint o-frame in the parent link frame
AXIS = 12      # 3, unit axis of PIN / SLIDER / SCREW: always (0, 0, 1), since compile frames
               # those links (and their o-frames) with z along the joint axis
PITCH = 15     # 1, screw pitch [m/rad]
INERTIA = 16   # 36, row-major 6x6 spatial inertia about the link origin, link frame
S_COLS = 52    # 36, motion subspace S (6 x nu) in the link frame, column k at S_COLS + 6k
RB_MASS = 88   # 1, the link's rigid-body inertia as 10 numbers (same body as INERTIA):
RB_H = 89      # 3, first moment of mass h = m c about the link origin (link frame)
RB_I = 92      # 6, rotational inertia about the link origin: xx, xy, xz, yy, yz, zz
ARMATURE = 98  # 6, reflected rotor inertia of each speed of the link (added to D and M's diagonal)
MF_COLS = 104
# mf row n (model-wide)
GRAVITY = 0    # 3, gravity in the world frame [m/s^2]
DENSE_M = 3    # 1, non-zero when every pair of links is related (one chain): no entry of M is 0

# fr columns (one row per frame: every body and node)
FR_LINK = 0    # 1, the link the frame is fixed on (-1: the world), stored as a float
FR_R = 1       # 9, row-major rotation of the frame in the link frame
FR_P = 10      # 3, origin of the frame in the link frame
FR_COLS = 13

# cr columns (one row per scalar constraint residual; row types in model/constraints.py)
CR_TYPE = 0     # ALIGN 1, TRANS 2, SCREW 3, CONVEL 4, COORD 5
CR_FA = 1       # frame row of node a (its vectors are stored in a's *link* axes)
CR_FB = 2       # frame row of node b
CR_E = 3        # 3, ALIGN e / TRANS c / SCREW axis / CONVEL n_w (a's link axes)
CR_B = 6        # 3, ALIGN b / SCREW e1 (b's link axes)
CR_E2 = 9       # 3, SCREW e2 / CONVEL n_v (a's link axes)
CR_E3 = 12      # 3, SCREW e1 (a's link axes)
CR_SCALAR = 15  # SCREW pitch [m/rad] / COORD ratio
CR_OFFSET = 16  # COORD offset
CR_QA = 17      # COORD q index of hinge a
CR_QB = 18      # COORD q index of hinge b
CR_UA = 19      # COORD u index of hinge a
CR_UB = 20      # COORD u index of hinge b
CR_COLS = 21

MODEL_COLS = max(H_COLS, MI_COLS, MF_COLS, FR_COLS, CR_COLS)

# ---------------------------------------------------------------- data buffer
# flags row (row 0)
D_USE_FEXT = 0  # non-zero when ws[:, W_FEXT] holds external forces for the next call
D_COLS = 1

# ws columns: state first (kept between calls), then scratch (written by each pass)
W_CHART = 0    # 4, chart offset quaternion (x, y, z, w) of a SPHERICAL / FREE link (state)
W_FEXT = 4     # 6, external spatial force on the link (link frame), read when D_USE_FEXT != 0
W_R = 10       # 9, rotation of the link frame in the parent link frame (R_parent_link)
W_P = 19       # 3, link origin in the parent link frame
W_RW = 22      # 9, rotation of the link frame in the world
W_PW = 31      # 3, link origin in the world
W_V = 34       # 6, link spatial velocity (link frame)
W_A = 40       # 6, link spatial acceleration (link frame)
W_F = 46       # 6, spatial force / articulated bias force (link frame)
W_C = 52       # 6, velocity-product acceleration
W_IA = 58      # 36, articulated (or composite) inertia IA (link frame)
W_PPLUS = 94   # 36, P+ = IA - U D^-1 U^T, what the link passes to its parent (link frame)
W_Y = 130      # 10, a rigid-body inertia (m, h, I as RB_*), e.g. composite inertia in world axes
W_SW = 140     # 36, the link's motion subspace in world coordinates (6 x NU hinge dof, CRBA)
W_TMP = 176    # 6, a pass's per-link temporary (e.g. res - U^T a' in forward dynamics)
W_PR = 182     # 3, link origin relative to its tree's root link origin (world axes), composed
#                along the tree by world_placement: spatial vectors "in world coordinates" are
#                taken about it, never about the world origin (a model 7e6 m away would form
#                moments of 1e13 and cancel them: translation invariance, issue 18)
# the analytic derivatives (inverse_dynamics_derivatives.py): per speed k of the link, in tree
# coordinates, the columns its tangent perturbation and its speed give each subtree link's force
# (Carpentier & Mansard's recursion); P and zeta reuse the articulated-inertia rows, which that
# kernel does not use
W_DP = W_IA          # 36, P_k = (s_k x v_p) x v_p - s_k x a_p (6 per speed)
W_DZETA = W_PPLUS    # 36, zeta_k = (v_p + v) x s_k (6 per speed)
W_DBETA = 185        # 18, the angular part of s_k x v_p (3 per speed)
W_BC = 203           # 12, the composite of d(I v)-terms B = [[B_ww, 0], [-2 [h_f]x, 0]]: B_ww
#                      (9, row-major), then h_f (3), the subtree's linear momentum
# the validity of the placement rows (W_R, W_P, W_RW, W_PW, W_PR; kernels/placements.py): 1.0 when they
# hold the link's world placements at the coordinates recorded beside it, 0.0 after any other writer
W_PLACED = 215       # 1, set by the kinematics pass, cleared by place_links and by M^-1's root frames
W_PLACED_Q = 216     # 7, the link's own NQ coordinates q[QOFF:QOFF+NQ] those placements were made at
WS_COLS = 223

# one width for both buffers (a data buffer holds the model rows too)
BUF_COLS = DATA_COLS = max(MODEL_COLS, D_COLS, WS_COLS)
