"""Column layout of the compiled model arrays and of the kernel workspace.

The compiled model is two 2-D arrays with one row per *link* in topological order
(parents before children). A link is the frame a non-locked subhinge moves: a
hinge made of k moving subhinges becomes k links, the last of which carries the
child body's inertia (the others are massless). The world is link -1.

``mi`` (int64, shape (n_links, MI_COLS)) holds topology and coordinate offsets;
``mf`` (float64, shape (n_links + 1, MF_COLS)) holds the numbers. Its extra last
row holds model-wide parameters (gravity). ``ws`` (float64, (n_links, WS_COLS))
is scratch space a kernel may overwrite.

Names are module-level integers so Numba folds them into constants.

The three arrays are row blocks of one float64 buffer ``buf`` of shape
(3 n_links + 1, BUF_COLS): rows [0, n) are ``mi`` (viewed as int64), rows [n, 2n+1)
``mf`` and rows [2n+1, 3n+1) ``ws``. The facade's entry kernels take ``buf`` alone
(``split_buffer`` recovers the three views), because every array argument costs
Numba dispatch time; the algorithm cores take (mi, mf, ws).
"""

# --- subhinge kind codes (kernel level; compound hinges are several links) ---
PIN = 0            # rotation by q about a unit axis
SLIDER = 1         # translation by q along a unit axis
SCREW = 2          # rotation q about the axis and translation pitch*q along it
SPHERICAL = 3      # rotation vector in a re-centred chart: R = R(chart) exp(q)
SPHERICAL_QUAT = 4  # unit quaternion (x, y, z, w)
FREE = 5           # [rotation vector (chart as SPHERICAL); position]
FREE_QUAT = 6      # [quaternion (x, y, z, w); position]
TRANSLATIONAL = 7  # 3-dof translation, q = position, u = q_dot

# --- mi columns ---
PARENT = 0   # parent link index, -1 for the world
KIND = 1     # subhinge kind code
QOFF = 2     # offset of the link's coordinates in q
UOFF = 3     # offset of the link's speeds in u
NQ = 4
NU = 5
MI_COLS = 6

# --- mf columns (rows 0..n_links-1) ---
R_TREE = 0     # 9, row-major rotation of the joint o-frame in the parent link frame
P_TREE = 9     # 3, origin of the joint o-frame in the parent link frame
AXIS = 12      # 3, unit axis of PIN / SLIDER / SCREW: always (0, 0, 1), since compile frames
               # those links (and their o-frames) with z along the joint axis
PITCH = 15     # 1, screw pitch [m/rad]
CHART = 16     # 4, chart offset quaternion (x, y, z, w) of SPHERICAL / FREE
INERTIA = 20   # 36, row-major 6x6 spatial inertia about the link origin, link frame
S_COLS = 56    # 36, motion subspace S (6 x nu) in the link frame, column k at S_COLS + 6k
RB_MASS = 92   # 1, the link's rigid-body inertia as 10 numbers (same body as INERTIA):
RB_H = 93      # 3, first moment of mass h = m c about the link origin (link frame)
RB_I = 96      # 6, rotational inertia about the link origin: xx, xy, xz, yy, yz, zz
MF_COLS = 102
# --- mf last row (model-wide) ---
GRAVITY = 0    # 3, gravity in the world frame [m/s^2]
USE_FEXT = 3   # 1, non-zero when ws[:, W_FEXT] holds external forces for the next call
DENSE_M = 4    # 1, non-zero when every pair of links is related (one chain): no entry of M is 0

# --- ws columns ---
W_R = 0        # 9, rotation of the link frame in the parent link frame (R_parent_link)
W_P = 9        # 3, link origin in the parent link frame
W_RW = 12      # 9, rotation of the link frame in the world
W_PW = 21      # 3, link origin in the world
W_V = 24       # 6, link spatial velocity (link frame)
W_A = 30       # 6, link spatial acceleration (link frame)
W_F = 36       # 6, spatial force / bias force (link frame)
W_IA = 42      # 36, articulated or composite inertia (link frame)
W_U = 78       # 36, U = IA S (6 x nu, column-major like S)
W_DINV = 114   # 36, D^-1 (nu x nu, row-major)
W_C = 150      # 6, velocity-product acceleration
W_RES = 156    # 6, residual joint force u' = tau - S^T p
W_FEXT = 162   # 6, external spatial force on the link (link frame), read when use_fext != 0
W_Y = 168      # 10, a rigid-body inertia (m, h, I as RB_*), e.g. composite inertia in world axes
WS_COLS = 178

BUF_COLS = max(MI_COLS, MF_COLS, WS_COLS)
