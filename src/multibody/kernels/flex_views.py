"""The views a flex kernel takes, cut from one data buffer (kernels/flex_layout.py).

A model with modal bodies keeps its flex constants in the model buffer (the link table
``fi``: the flex columns of the mi rows; the flat constants ``fc``: the flex block after the
cr rows) and its
flex work in every data buffer (the flat region ``fw`` after z), at the addresses in the
header (flex_layout.FH_*). ``flex_arrays(dbuf)`` makes every view from them: the one place
that knows where the pieces are. It is inlined into the flex entry kernels, which are
compiled without Numba's reference counting (``_nrt=False``, kernels/flex_entry.py): they
only make views, and with counting twenty views cost 1.2 us per call (a pendulum's flex ABA
is ~4 us); without, 0.1-0.3 us. It uses nothing but NumPy slicing, so Python takes the same
views with ``constant_views`` (the model's, ``model/flex_compile.FlexModel``) and
``data_views`` (a Data's ``flex_work``), their Python functions.
"""
from collections import namedtuple
from types import FunctionType

import numpy as np
from numba import njit

from . import flex_layout as FL
from .layout import H_FLEX_ROWS, H_FLEX_WORK, H_NCONSTRAINTS, H_NFRAMES, H_NLINKS, H_NU

#: the flex constants of a model buffer (``flex_constants``)
FlexConstants = namedtuple("FlexConstants", "fi fmass fm1 fm2 fnode stiffness damping frame_node con_table")
#: every array a flex kernel takes (``flex_arrays``): the rigid views, the constants, the work
FlexArrays = namedtuple("FlexArrays", "mi mf ws fr cr fi fmass fm1 fm2 fnode stiffness damping frame_node "
                                      "M V A F abias P phi G Dinv eps pose VN scratch zero con_table con_work")


@njit(cache=True, inline="always")
def flex_constants(buf):
    """``FlexConstants`` views of a model (or data) buffer of a model with modal bodies (each
    piece runs from its header address to the next one's)."""
    h = buf[0]
    n = int(h[H_NLINKS])
    f0 = 2 + 2 * n + int(h[H_NFRAMES]) + int(h[H_NCONSTRAINTS])
    fc = buf[f0:f0 + int(h[H_FLEX_ROWS])].reshape(-1)
    a = (int(h[FL.FH_MASS]), int(h[FL.FH_M1]), int(h[FL.FH_M2]), int(h[FL.FH_NODE]), int(h[FL.FH_STIFF]),
         int(h[FL.FH_DAMP]), int(h[FL.FH_FRAME_NODE]), int(h[FL.FH_CON_TABLE]), int(h[FL.FH_CEND]))  # (no list: no NRT)
    return FlexConstants(buf[1:1 + n].view(np.int64), fc[a[0]:a[1]], fc[a[1]:a[2]], fc[a[2]:a[3]],
                         fc[a[3]:a[4]], fc[a[4]:a[5]], fc[a[5]:a[6]], fc[a[6]:a[7]].view(np.int64),
                         fc[a[7]:a[8]].view(np.int64))


@njit(cache=True, inline="always")
def flex_arrays(dbuf):
    """``FlexArrays`` views of a data buffer of a model with modal bodies."""
    h = dbuf[0]
    n = int(h[H_NLINKS])
    c0 = 2 + 2 * n + int(h[H_NFRAMES])
    f0 = c0 + int(h[H_NCONSTRAINTS])
    d0 = f0 + int(h[H_FLEX_ROWS])
    k = flex_constants(dbuf)
    fw = dbuf[int(h[H_FLEX_WORK]):].reshape(-1)
    a = (int(h[FL.FH_M]), int(h[FL.FH_V]), int(h[FL.FH_A]), int(h[FL.FH_F]), int(h[FL.FH_ABIAS]), int(h[FL.FH_P]),
         int(h[FL.FH_PHI]), int(h[FL.FH_G]), int(h[FL.FH_DINV]), int(h[FL.FH_EPS]), int(h[FL.FH_POSE]),
         int(h[FL.FH_VN]), int(h[FL.FH_SCRATCH]), int(h[FL.FH_ZERO]), int(h[FL.FH_CON_WORK]), int(h[FL.FH_WEND]))
    return FlexArrays(
        dbuf[1:1 + n].view(np.int64), dbuf[1 + n:2 + 2 * n], dbuf[d0 + 1:d0 + 1 + n], dbuf[2 + 2 * n:c0],
        dbuf[c0:f0], k.fi, k.fmass, k.fm1, k.fm2, k.fnode, k.stiffness, k.damping, k.frame_node,
        fw[a[0]:a[1]], fw[a[1]:a[2]], fw[a[2]:a[3]], fw[a[3]:a[4]], fw[a[4]:a[5]], fw[a[5]:a[6]], fw[a[6]:a[7]],
        fw[a[7]:a[8]], fw[a[8]:a[9]], fw[a[9]:a[10]], fw[a[10]:a[11]].reshape((n, FL.POSE_COLS)),
        fw[a[11]:a[12]].reshape((n, 6)), fw[a[12]:a[13]], fw[a[13]:a[13] + int(h[H_NU])], k.con_table,
        fw[a[14]:a[15]])


#: the same views from Python (the njit callee replaced by its Python function, so that
#: nothing is compiled for a call from Python)
constant_views = flex_constants.py_func
data_views = FunctionType(flex_arrays.py_func.__code__, {**flex_arrays.py_func.__globals__, "flex_constants": constant_views})
