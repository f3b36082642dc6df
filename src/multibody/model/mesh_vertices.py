"""The vertices of STL and OBJ mesh files, read without trimesh (collision hulls, issue 21).

A collision mesh becomes the convex hull of its vertices (``shapes.ConvexMesh.from_file``), so
only the vertices are needed. Most robot descriptions name STL or OBJ files, and trimesh's
import alone costs about 1 s (it pulls in scipy.spatial, scipy.sparse and networkx): that
second was paid by every ``load_urdf`` of a robot with meshes, whether or not it ever
touched anything. These readers take the vertices straight from the file; other formats
(DAE, PLY, ...) still go through trimesh.

``mesh_vertices(path)`` returns the distinct vertices (k, 3) float64 in the order of their
first appearance, or None when the file is not STL or OBJ (by its extension) or is an
STL/OBJ file these readers do not understand; the caller then asks trimesh, which reports
what is wrong with the file.
"""
import os
import re

import numpy as np

MERGE = 1e-8  # [m] vertices closer than this (after rounding) are one
_STL_HEADER = 80  # bytes of a binary STL's header; a uint32 triangle count follows
_STL_RECORD = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])  # 50 bytes


def mesh_vertices(path):
    """The distinct vertices of STL/OBJ file ``path`` (first appearances, in order), or None
    (another format, or a file to leave to trimesh)."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".stl", ".obj"):
        return None
    with open(path, "rb") as f:
        raw = f.read()
    v = _stl(raw) if ext == ".stl" else _obj(raw)
    if v is None or len(v) == 0:
        return None
    # vertices within MERGE of each other are one (files repeat a vertex per facet, rounded
    # differently by the exporters): the first of each is kept
    key = np.round(v / MERGE).astype(np.int64)
    order = np.lexsort(key.T[::-1])  # stable: equal keys keep the file's order
    key = key[order]
    starts = np.ones(len(key), dtype=bool)
    starts[1:] = np.any(key[1:] != key[:-1], axis=1)
    return v[np.sort(order[starts])]


def _stl(raw):
    """The vertex rows (3 per facet) of STL bytes ``raw``, binary or ASCII, or None."""
    if len(raw) >= _STL_HEADER + 4:
        n = int(np.frombuffer(raw, "<u4", 1, _STL_HEADER)[0])
        if len(raw) == _STL_HEADER + 4 + n * _STL_RECORD.itemsize:  # binary (it may begin "solid" too)
            facets = np.frombuffer(raw, _STL_RECORD, n, _STL_HEADER + 4)
            return facets["v"].reshape(-1, 3).astype(np.float64)
    if not raw.lstrip().startswith(b"solid"):
        return None
    return _keyword_rows(raw, b"vertex")


def _obj(raw):
    """The ``v x y z`` rows of OBJ bytes ``raw`` that faces use, or None (OBJ files whose
    faces we cannot read)."""
    v = _keyword_rows(raw, b"v")
    faces = re.findall(rb"^[ \t]*f[ \t]+([^\r\n#]*)", raw, re.MULTILINE)
    if v is None or not faces:
        return None
    try:  # "f 1/2/3 4//6 -1": the vertex index before the first slash; a negative one counts back
        idx = np.array([int(p.split(b"/")[0]) for face in faces for p in face.split()], dtype=np.int64)
    except ValueError:
        return None
    idx = np.where(idx > 0, idx - 1, len(v) + idx)
    if len(idx) == 0 or idx.min() < 0 or idx.max() >= len(v):
        return None
    keep = np.zeros(len(v), dtype=bool)  # a vertex no face uses is not part of the mesh
    keep[idx] = True
    return v[keep]


def _keyword_rows(raw, keyword):
    """The three numbers after each line that starts with ``keyword`` (n, 3), or None."""
    rows = re.findall(rb"^[ \t]*" + keyword + rb"[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)", raw, re.MULTILINE)
    try:
        return np.array(rows, dtype=np.float64).reshape(-1, 3)
    except ValueError:
        return None
