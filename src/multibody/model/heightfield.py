"""A height field: terrain as a grid of heights, for contact (issue 21).

``Heightfield(heights, size)`` is the solid under the surface z = h(x, y) of its frame over
the rectangle [-Lx/2, Lx/2] x [-Ly/2, Ly/2] (``size`` = (Lx, Ly)), down to the plane
z = ``bottom``. ``heights`` (nrow, ncol) [m] are the surface's heights at the grid points:
row r at y = -Ly/2 + r Ly/(nrow - 1), column c at x = -Lx/2 + c Lx/(ncol - 1) (MuJoCo's
``hfield_data`` order). Each cell is two triangles, split along its diagonal from
(r, c) to (r + 1, c + 1); between the grid points the surface is those flat triangles.
Nothing collides outside the rectangle, nor with the field's sides.

A height field collides with every convex shape (``kernels/collision/heightfield.py``), not
with planes or other height fields. It may sit on any body, but is meant for scenery.
"""
import numpy as np

from ..kernels.collision import layout as CL
from .shapes import Shape


def _grid(heights):
    """``heights`` as an (nrow, ncol) float array of finite values, nrow, ncol >= 2, or
    ValueError naming the argument."""
    try:
        h = np.array(heights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("Heightfield: heights must be an (nrow, ncol) array of numbers") from None
    if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
        raise ValueError(f"Heightfield: heights must be an (nrow, ncol) array with nrow, ncol >= 2, got shape "
                         f"{h.shape}")
    if not np.all(np.isfinite(h)):
        raise ValueError("Heightfield: heights hold non-finite values")
    h.flags.writeable = False
    return h


class Heightfield(Shape):
    """The solid under the surface of ``heights`` (nrow, ncol) [m] over a rectangle of
    ``size`` (Lx, Ly) [m] centred on the frame's origin, down to z = ``bottom`` [m].

    Rows run along y, columns along x (module docstring). ``bottom`` must lie below the
    lowest height; by default it is the lowest height less the larger of the heights'
    range and 5 % of the longer side (a solid deep enough that a body pushed into it
    is pushed back up, not through its floor)."""

    type_code = CL.HFIELD

    def __init__(self, heights, size, bottom=None):
        self.heights = _grid(heights)
        try:
            L = np.array(size, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"Heightfield: size must be 2 numbers (Lx, Ly) [m], got {size!r}") from None
        if L.shape != (2,) or not np.all(np.isfinite(L)) or np.any(L <= 0.0):
            raise ValueError(f"Heightfield: size must be 2 finite numbers (Lx, Ly) > 0 [m], got {size!r}")
        self.lengths = L
        low = float(self.heights.min())
        if bottom is None:
            bottom = low - max(float(np.ptp(self.heights)), 0.05 * float(L.max()))
        try:
            self.bottom = float(bottom)
        except (TypeError, ValueError):
            raise ValueError(f"Heightfield: bottom must be a number [m], got {bottom!r}") from None
        if not np.isfinite(self.bottom) or self.bottom >= low:
            raise ValueError(f"Heightfield: bottom must be finite and below the lowest height {low:g} m, "
                             f"got {bottom!r}")

    @property
    def grid_shape(self):
        """(nrow, ncol): grid points along y and along x."""
        return self.heights.shape

    @property
    def vertices(self):
        """The grid points (nrow * ncol, 3) [m] in the shape frame, row by row (``verts``' rows)."""
        nrow, ncol = self.heights.shape
        x = np.linspace(-0.5, 0.5, ncol) * self.lengths[0]
        y = np.linspace(-0.5, 0.5, nrow) * self.lengths[1]
        X, Y = np.meshgrid(x, y)
        return np.column_stack([X.ravel(), Y.ravel(), self.heights.ravel()])

    @property
    def centre(self):
        """(3,) middle of the box from the bottom to the highest point [m] (``SF_CENTRE``)."""
        return np.array([0.0, 0.0, 0.5 * (self.bottom + float(self.heights.max()))])

    @property
    def size(self):
        """(3,) half extents of that box (``SF_SIZE``)."""
        return np.array([0.5 * self.lengths[0], 0.5 * self.lengths[1], 0.5 * (float(self.heights.max()) - self.bottom)])

    @property
    def bounding_radius(self):
        """Radius [m] of the sphere about ``centre`` that holds the field (``SF_RBOUND``)."""
        return float(np.linalg.norm(self.size))

    def height_at(self, x, y):
        """The surface's height [m] at points (x, y) of the shape frame (arrays broadcast), on
        the flat triangles; NaN outside the rectangle."""
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        nrow, ncol = self.heights.shape
        fx = (x / self.lengths[0] + 0.5) * (ncol - 1)
        fy = (y / self.lengths[1] + 0.5) * (nrow - 1)
        inside = (fx >= 0) & (fx <= ncol - 1) & (fy >= 0) & (fy <= nrow - 1)
        c = np.clip(np.floor(fx), 0, ncol - 2).astype(int)
        r = np.clip(np.floor(fy), 0, nrow - 2).astype(int)
        u, v = fx - c, fy - r
        h = self.heights
        h00, h01, h11, h10 = h[r, c], h[r, c + 1], h[r + 1, c + 1], h[r + 1, c]
        lower = u >= v  # the triangle (r, c), (r, c + 1), (r + 1, c + 1)
        z = np.where(lower, h00 + u * (h01 - h00) + v * (h11 - h01), h00 + v * (h10 - h00) + u * (h11 - h10))
        return np.where(inside, z, np.nan)

    def _key(self):
        return np.concatenate([self.heights.ravel(), self.lengths, [self.bottom, *self.heights.shape]])

    def __repr__(self):
        nrow, ncol = self.heights.shape
        return (f"Heightfield({nrow}x{ncol} grid, size=({self.lengths[0]:g}, {self.lengths[1]:g}), "
                f"heights {self.heights.min():g}..{self.heights.max():g}, bottom={self.bottom:g})")
