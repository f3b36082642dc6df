"""Numba kernels: the algorithms, one file each, on the compiled model arrays.

Every kernel takes only arrays (``mi``, ``mf`` from the compiled model, a
workspace ``ws``, state vectors and preallocated outputs). See ``layout``.
"""
