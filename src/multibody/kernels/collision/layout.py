"""Columns of the compiled contact constants and of the contact arrays (issue 21).

Constants (``m.compiled.contact``, a ``ContactModel``; one row per collision shape):

* ``si`` (ns, SI_COLS) int64: shape type, link (-1: the world), body index, MuJoCo-style
  contype/conaffinity bits, where its hull's vertices (a height field's grid points) start in
  ``verts`` and how many, and a height field's number of grid columns.
* ``sf`` (ns, SF_COLS) float64: the shape's axes (row-major 3x3) and origin in its link's
  frame, its sizes, bounding-sphere radius, friction, restitution, margin and softness (a
  spring-damper surface, or MuJoCo's solref/solimp; ``contact_step.soft_targets``).
* ``verts`` (nv, 3) float64: convex-hull vertices in the shape frames (MESH), and a height
  field's grid points (x, y, z) in its frame, row by row (HFIELD; ``heightfield.py``).
* ``allow`` (ns, ns) uint8: 1 where the pair may touch (filters applied at compile time).

Contacts (written by ``detect``; one row per contact point):

* ``ci`` (maxc, CI_COLS) int64: the two shapes (a < b) and the point's feature id within the
  pair's manifold (warm starts match on (a, b, feature)).
* ``cf`` (maxc, CF_COLS) float64: world point (midway between the surfaces), unit normal
  from a to b, signed distance (< 0: penetration), the tangents t1, t2 of a right-handed
  frame (n, t1, t2) that depends on n alone, the pair's friction, restitution and softness.
"""

# --- shape types (SI_TYPE)
SPHERE = 0
CAPSULE = 1
CYLINDER = 2
BOX = 3
ELLIPSOID = 4
PLANE = 5
MESH = 6
HFIELD = 7
N_TYPES = 8
TYPE_NAMES = ("sphere", "capsule", "cylinder", "box", "ellipsoid", "plane", "mesh", "heightfield")

# --- si: int64 columns
SI_TYPE = 0
SI_LINK = 1      # link index; -1: fixed in the world
SI_BODY = 2      # body index in the model's body order (for messages)
SI_CONTYPE = 3
SI_CONAFF = 4
SI_VADR = 5      # first hull vertex in verts (MESH; HFIELD: its first grid point)
SI_VNUM = 6      # number of hull vertices (MESH; HFIELD: of grid points; 0 otherwise)
SI_NCOL = 7      # HFIELD: grid columns (points along x; its rows: SI_VNUM / SI_NCOL, along y)
SI_COLS = 8

# --- sf: float64 columns
SF_R = 0         # 9: shape axes in the link frame, row-major (link <- shape)
SF_P = 9         # 3: shape origin in the link frame [m]
SF_SIZE = 12     # 3: sphere (r, -, -); capsule, cylinder (r, half length, -); box half extents;
#                  ellipsoid radii; plane (-, -, -); mesh: its hull's box half extents about SF_CENTRE;
#                  height field: the box from its bottom to its highest point, about SF_CENTRE
SF_RBOUND = 15   # bounding-sphere radius about SF_CENTRE [m] (inf: plane)
SF_MU = 16       # friction coefficient
SF_REST = 17     # restitution coefficient
SF_MARGIN = 18   # margin [m]: contacts are reported up to this distance (pairs: the sum)
SF_CENTRE = 19   # 3: the bounding sphere's centre in the shape frame [m] (a mesh's box middle; 0 otherwise)
SF_KP = 22       # contact stiffness [N/m] (0: hard)
SF_KD = 23       # contact damping [N s/m] (with SF_KP)
SF_SOLREF = 24   # 2: MuJoCo's solref (timeconst, dampratio; or -stiffness, -damping); (0, 0): none
SF_SOLIMP = 26   # 5: MuJoCo's solimp (dmin, dmax, width, midpoint, power) (with SF_SOLREF)
SF_COLS = 31

# --- ci: int64 columns of a contact
CI_A = 0
CI_B = 1
CI_FEATURE = 2
CI_COLS = 3

# --- cf: float64 columns of a contact
CF_P = 0         # 3: world point [m]
CF_N = 3         # 3: unit normal from shape a to shape b
CF_DIST = 6      # signed distance [m] (< 0: penetration)
CF_T1 = 7        # 3: first tangent
CF_T2 = 10       # 3: second tangent (n x t1)
CF_MU = 13       # the pair's friction (the larger of the two)
CF_REST = 14     # the pair's restitution (the larger of the two)
CF_KP = 15       # the pair's contact stiffness [N/m] (0: hard; ``detect.pair_softness``)
CF_KD = 16       # the pair's contact damping [N s/m]
CF_SOLREF = 17   # 2: the pair's solref ((0, 0): none)
CF_SOLIMP = 19   # 5: the pair's solimp
CF_COMP = 24     # written by the step: the normal row's own compliance [m/(N s)] (0: hard)
CF_COLS = 25

MAX_MANIFOLD = 4  # contact points per pair at most, but for pairs with a height field:
HFIELD_MANIFOLD = 16  # contact points per pair with a height field at most (``heightfield.py``)
